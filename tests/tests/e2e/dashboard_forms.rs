//! Pins what the dashboard's forms build, in real headless Chromium (the [`Page`] helper of
//! `dashboard.rs`): a model-mode job from the new-job form with two vars (one row added with
//! the form's "Add var" button), a secret reference, labels, retries, priority, queue timeout,
//! cache and model endpoint is stored exactly so (`GET /api/v1/jobs/{id}`); an out-of-range
//! timeout shows the API's own message next to the timeout field and stores nothing; a
//! schedule is paused, run now, edited and deleted from the schedules page, each checked
//! through the API.

use std::time::Duration;

use argus_tests::Farm;
use serde_json::{json, Value};

use crate::dashboard::Page;

/// Sets the `i`-th field named `name` of `#new-job`.
fn set(name: &str, i: usize, value: &str) -> String {
    format!(
        "document.querySelectorAll('#new-job [name={name}]')[{i}].value = {};",
        json!(value)
    )
}

/// Clicks `sel` (a submit button) and waits for the next page to load.
pub(crate) async fn click_and_load(page: &Page, sel: &str) {
    page.eval(&format!(
        "document.querySelector({}).click(); true",
        json!(sel)
    ))
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    page.wait_for(
        "document.readyState === 'complete'",
        Duration::from_secs(10),
    )
    .await;
}

pub(crate) async fn count(farm: &Farm, sql: &str) -> i64 {
    let n: (i64,) = sqlx::query_as(sql)
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    n.0
}

pub(crate) async fn get(farm: &Farm, path: &str) -> (u16, Value) {
    let r = farm
        .http
        .get(format!("{}{path}", farm.base_url))
        .send()
        .await
        .expect("get");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

pub(crate) async fn sign_in(farm: &Farm, page: &Page) {
    page.goto(&format!("{}/login", farm.base_url)).await;
    page.submit_form("form", &[("token", &farm.admin_token)])
        .await;
    page.wait_for(
        "document.getElementById('runs') !== null",
        Duration::from_secs(5),
    )
    .await;
}

/// Fills the new-job form for a job no device matches (it stays queued).
async fn fill_job(farm: &Farm, page: &Page, timeout_s: &str) {
    page.goto(&format!("{}/jobs/new", farm.base_url)).await;
    page.eval("document.getElementById('add-var').click(); true")
        .await;
    let mut js = String::new();
    for (name, i, value) in [
        ("name", 0, "every field"),
        ("mode", 0, "llm"),
        ("instruction", 0, "Add the todo ${var.ITEM} for ${var.WHO}"),
        ("model_base_url", 0, "http://127.0.0.1:9/v1"),
        ("model_name", 0, "stub-model"),
        ("model_temperature", 0, "0.25"),
        ("cache", 0, "off"),
        ("var_name", 0, "ITEM"),
        ("var_value", 0, "buy milk"),
        ("var_name", 1, "WHO"),
        ("var_value", 1, "Ann"),
        ("secret_var", 0, "PASS"),
        ("secret_name", 0, "shop_password"),
        ("label_key", 0, "rack"),
        ("label_value", 0, "nowhere"),
        ("retries", 0, "3"),
        ("priority", 0, "7"),
        ("queue_timeout_s", 0, "600"),
        ("timeout_s", 0, timeout_s),
        ("expectations", 0, "assert screen contains \"buy milk\""),
    ] {
        js.push_str(&set(name, i, value));
    }
    js.push_str("true");
    page.eval(&js).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dashboard_builds_every_job_field_and_manages_schedules() {
    // No worker: the jobs stay queued (their label matches no device anyway).
    let farm = crate::bare_farm().await;
    let page = Page::open(
        &farm.services.chromium,
        &farm.worker_dir.with_extension("viewer"),
    )
    .await;
    sign_in(&farm, &page).await;

    // An out-of-range timeout: the API's message next to the field, nothing stored.
    let jobs_before = count(&farm, "select count(*) from jobs").await;
    fill_job(&farm, &page, "999999").await;
    page.shot("new-job-filled").await;
    click_and_load(&page, "#new-job button[type=submit]").await;
    page.wait_for(
        "document.getElementById('error-timeout_s') !== null",
        Duration::from_secs(5),
    )
    .await;
    let shown = page
        .eval("document.getElementById('error-timeout_s').textContent")
        .await;
    let (status, api) = farm
        .post_job_raw(
            json!({"platform": "web", "instruction": "x", "timeout_s": 999999}).to_string(),
        )
        .await;
    assert_eq!(status, 422, "{api}");
    assert_eq!(api["field"], json!("timeout_s"), "{api}");
    let api_msg = api["message"].as_str().expect("message");
    assert!(
        shown.as_str().unwrap_or("").contains(api_msg),
        "{shown} should carry the API's {api_msg:?}"
    );
    assert!(page
        .eval("document.getElementById('form-error').textContent")
        .await
        .as_str()
        .unwrap_or("")
        .contains("timeout_s"));
    assert_eq!(
        page.eval("document.querySelectorAll('#new-job [name=var_value]')[1].value")
            .await,
        json!("Ann"),
        "the form keeps the rows typed"
    );
    page.shot("new-job-timeout-error").await;
    assert_eq!(count(&farm, "select count(*) from jobs").await, jobs_before);

    // The same form with a good timeout: the job is stored with every field as typed.
    fill_job(&farm, &page, "120").await;
    click_and_load(&page, "#new-job button[type=submit]").await;
    page.wait_for(
        "location.pathname.startsWith('/runs/')",
        Duration::from_secs(5),
    )
    .await;
    let run_id: uuid::Uuid = page
        .eval("location.pathname.split('/')[2]")
        .await
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("run id");
    let (job_id,): (uuid::Uuid,) = sqlx::query_as("select job_id from runs where id = $1")
        .bind(run_id)
        .fetch_one(&farm.pool)
        .await
        .expect("job of the run");
    let (status, job) = get(&farm, &format!("/api/v1/jobs/{job_id}")).await;
    assert_eq!(status, 200, "{job}");
    let spec = &job["spec"];
    assert_eq!(
        spec["vars"],
        json!({"ITEM": "buy milk", "WHO": "Ann", "PASS": "${secret.shop_password}"})
    );
    assert_eq!(spec["retries"], json!(3));
    assert_eq!(spec["priority"], json!(7));
    assert_eq!(spec["timeout_s"], json!(120));
    assert_eq!(spec["queue_timeout_s"], json!(600));
    assert_eq!(spec["mode"], json!("llm"));
    assert_eq!(spec["cache"], json!("off"));
    assert_eq!(
        spec["model"],
        json!({"base_url": "http://127.0.0.1:9/v1", "model": "stub-model", "temperature": 0.25})
    );
    assert_eq!(spec["selector"]["labels"], json!({"rack": "nowhere"}));
    assert_eq!(
        spec["expectations"],
        json!(["assert screen contains \"buy milk\""])
    );
    assert_eq!(
        count(&farm, "select count(*) from jobs").await,
        jobs_before + 1
    );

    schedule_actions(&farm, &page).await;
}

/// Pause, run now, edit and delete a schedule from the page; the API shows each.
async fn schedule_actions(farm: &Farm, page: &Page) {
    let r = farm
        .http
        .post(format!("{}/api/v1/schedules", farm.base_url))
        .json(
            &json!({"name": "page patrol", "cron": "0 9 * * 1-5", "timezone": "UTC",
            "template": {"platform": "web", "instruction": "wait 1s", "retries": 2,
                         "selector": {"labels": {"rack": "nowhere"}}}}),
        )
        .send()
        .await
        .expect("create schedule");
    assert_eq!(r.status().as_u16(), 201);
    let id = r.json::<Value>().await.expect("json")["schedule_id"]
        .as_str()
        .expect("id")
        .to_string();
    let row = format!("#schedules tr[data-id='{id}']");
    page.goto(&format!("{}/schedules", farm.base_url)).await;
    click_and_load(page, &format!("{row} button[name=toggle]")).await;
    page.wait_for(
        &format!("document.querySelector(\"{row}\").innerText.includes('paused')"),
        Duration::from_secs(5),
    )
    .await;
    let (_, s) = get(farm, &format!("/api/v1/schedules/{id}")).await;
    assert_eq!(s["paused"], json!(true), "{s}");
    page.shot("schedule-paused").await;

    let fired = format!("select count(*) from jobs where schedule_id = '{id}'");
    assert_eq!(count(farm, &fired).await, 0);
    click_and_load(page, &format!("{row} button[name=run]")).await;
    page.wait_for(
        "location.search.includes('schedule=')",
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(count(farm, &fired).await, 1, "run now queued one job");
    let runs = format!(
        "select count(*) from runs r join jobs j on j.id = r.job_id where j.schedule_id = '{id}'"
    );
    assert_eq!(count(farm, &runs).await, 1, "with its run");
    let (_, s) = get(farm, &format!("/api/v1/schedules/{id}")).await;
    assert_eq!(s["paused"], json!(true), "run now leaves it paused: {s}");

    // Edit: a bad cron is shown at its field; a good one is stored, the rest kept.
    page.goto(&format!("{}/schedules/{id}/edit", farm.base_url))
        .await;
    page.submit_form("#edit-schedule", &[("cron", "every day")])
        .await;
    page.wait_for(
        "document.getElementById('error-cron') !== null",
        Duration::from_secs(5),
    )
    .await;
    page.submit_form(
        "#edit-schedule",
        &[("cron", "15 10 * * *"), ("name", "page patrol 2")],
    )
    .await;
    page.wait_for("location.pathname === '/schedules'", Duration::from_secs(5))
        .await;
    let (_, s) = get(farm, &format!("/api/v1/schedules/{id}")).await;
    assert_eq!(s["cron"], json!("15 10 * * *"), "{s}");
    assert_eq!(s["name"], json!("page patrol 2"), "{s}");
    assert_eq!(s["paused"], json!(true), "{s}");
    assert_eq!(
        s["template"]["retries"],
        json!(2),
        "fields the form lacks are kept: {s}"
    );
    assert_eq!(s["template"]["instruction"], json!("wait 1s"), "{s}");

    // The API's run now answers the queued job and run.
    let r = farm
        .http
        .post(format!("{}/api/v1/schedules/{id}/run", farm.base_url))
        .send()
        .await
        .expect("run now");
    assert_eq!(r.status().as_u16(), 201);
    let ran: Value = r.json().await.expect("json");
    assert_eq!(ran["jobs"].as_array().map(Vec::len), Some(1), "{ran}");
    assert_eq!(
        ran["jobs"][0]["matrix_cell"],
        json!("rack=nowhere"),
        "{ran}"
    );
    assert_eq!(count(farm, &fired).await, 2);

    click_and_load(page, &format!("{row} button[name=delete]")).await;
    let (status, _) = get(farm, &format!("/api/v1/schedules/{id}")).await;
    assert_eq!(status, 404);
    assert_eq!(count(farm, &fired).await, 2, "its past jobs stay");
}
