//! Pins the dashboard's suites (issue 28 item 2), in real headless Chromium against a real
//! coordinator and PostgreSQL: the New suite form (two cases, the second added with the
//! form's "Add a case" button, a var, two data rows, two device cells, retry_elsewhere)
//! stores one suite whose 2 × 2 × 2 jobs and runs carry those fields (read back through
//! `GET /api/v1/suites/{id}` and `GET /api/v1/jobs/{id}`); a missing name, a step the
//! language does not know, `retry_elsewhere` 9, bad pasted JSON and a post without the CSRF
//! token are refused with the API's own message at the field (4xx) and leave no suite, job
//! or run behind; "Run again" makes a second suite of the same name (in the history), and
//! "Edit" opens the form filled from the suite so a changed step runs as a third.

use std::time::Duration;

use argus_tests::Farm;
use serde_json::{json, Value};

use crate::dashboard::Page;
use crate::dashboard_forms::{click_and_load, count, get, sign_in};

/// Sets field `name` of `#new-suite` (the `i`-th of that name).
fn set(name: &str, i: usize, value: &str) -> String {
    format!(
        "document.querySelectorAll('#new-suite [name=\"{name}\"]')[{i}].value = {};",
        json!(value)
    )
}

async fn fill(page: &Page, fields: &[(&str, usize, &str)]) {
    let mut js: String = fields.iter().map(|(n, i, v)| set(n, *i, v)).collect();
    js.push_str("true");
    page.eval(&js).await;
}

/// `(suites, jobs, runs)` rows in the database.
async fn rows(farm: &Farm) -> (i64, i64, i64) {
    (
        count(farm, "select count(*) from suites").await,
        count(farm, "select count(*) from jobs").await,
        count(farm, "select count(*) from runs").await,
    )
}

/// The id of the suite page the browser shows.
async fn shown_suite(page: &Page) -> String {
    page.wait_for(
        "/^\\/suites\\/[0-9a-f-]{36}$/.test(location.pathname)",
        Duration::from_secs(10),
    )
    .await;
    page.eval("location.pathname.split('/')[2]")
        .await
        .as_str()
        .expect("suite id")
        .to_string()
}

/// The text of the element `id`, waiting for it to appear.
async fn text_of(page: &Page, id: &str) -> String {
    let find = format!("document.getElementById({})", json!(id));
    page.wait_for(&format!("{find} !== null"), Duration::from_secs(10))
        .await;
    page.eval(&format!("{find}.textContent"))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// POSTs a suite body to the API: `(status, answer)`.
async fn api_suite(farm: &Farm, body: &Value) -> (u16, Value) {
    let r = farm
        .http
        .post(format!("{}/api/v1/suites", farm.base_url))
        .json(body)
        .send()
        .await
        .expect("POST /api/v1/suites");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// Fills the two-case form (the second case added with "Add a case").
async fn fill_suite(farm: &Farm, page: &Page, name: &str, retry_elsewhere: &str, steps: &str) {
    page.goto(&format!("{}/suites/new", farm.base_url)).await;
    fill(
        page,
        &[
            ("jobs[0].name", 0, "login"),
            ("jobs[0].instruction", 0, steps),
            ("jobs[0].timeout_s", 0, "60"),
            ("jobs[0].var_name", 0, "SHOP"),
            ("jobs[0].var_value", 0, "demo"),
        ],
    )
    .await;
    click_and_load(page, "#new-suite button[name=add_case]").await;
    page.wait_for(
        "document.querySelector('[name=\"jobs[1].name\"]') !== null",
        Duration::from_secs(5),
    )
    .await;
    fill(
        page,
        &[
            ("name", 0, name),
            ("retry_elsewhere", 0, retry_elsewhere),
            ("matrix", 0, "rack=a\nrack=b"),
            ("rows", 0, "USER=alice\nUSER=bob"),
            ("jobs[1].name", 0, "search"),
            ("jobs[1].instruction", 0, "wait 2s"),
        ],
    )
    .await;
}

/// Submits the filled form, expecting a refusal at `error_id`; returns its text.
async fn refused_at(page: &Page, error_id: &str) -> String {
    click_and_load(page, "#run-suite").await;
    text_of(page, error_id).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn suites_are_made_run_again_and_edited_from_the_dashboard() {
    // No worker: the runs stay queued (nothing here needs them to run).
    let farm = crate::bare_farm().await;
    let page = Page::open(
        &farm.services.chromium,
        &farm.worker_dir.with_extension("suites"),
    )
    .await;
    sign_in(&farm, &page).await;
    refusals(&farm, &page).await;

    let before = rows(&farm).await;
    fill_suite(&farm, &page, "form suite", "1", "wait 1s").await;
    page.shot("new-suite-filled").await;
    click_and_load(&page, "#run-suite").await;
    let id = shown_suite(&page).await;
    page.shot("suite-page").await;
    assert_eq!(
        rows(&farm).await,
        (before.0 + 1, before.1 + 8, before.2 + 8)
    );
    let line = text_of(&page, "verdict-line").await;
    assert!(
        line.contains("Verdict: running") && line.contains("0 of 8"),
        "{line}"
    );
    assert_eq!(
        page.eval("document.getElementById('junit').getAttribute('href')")
            .await,
        json!(format!("/suites/{id}/junit.xml"))
    );
    // The link serves the XML to the signed-in page (the API itself takes no cookie).
    let xml = page
        .eval(
            "fetch(document.getElementById('junit').href)\
             .then(r => r.status + ' ' + r.headers.get('content-type')).catch(e => String(e))",
        )
        .await;
    assert!(
        xml.as_str()
            .is_some_and(|x| x.starts_with("200 application/xml")),
        "{xml}"
    );
    assert_eq!(
        page.eval("document.querySelectorAll('#matrix a.case-link[href^=\"/runs/\"]').length")
            .await,
        json!(8),
        "each case links its run's report"
    );

    assert_eq!(
        page.eval("[...document.querySelectorAll('#matrix tr')].map(r => r.firstElementChild.textContent + '|' + r.children[1].textContent.trim().split(/\\s/)[0]).join(' / ')")
            .await,
        json!("job|rack=a / login [USER=alice]|queued / login [USER=bob]|queued / search [USER=alice]|queued / search [USER=bob]|queued"),
        "the grid in submission order: cases, then rows; cells as given"
    );
    let (status, s) = get(&farm, &format!("/api/v1/suites/{id}")).await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["name"], json!("form suite"));
    assert_eq!(s["spec"]["retry_elsewhere"], json!(1), "{s}");
    assert_eq!(
        s["spec"]["vars_matrix"],
        json!([{"USER": "alice"}, {"USER": "bob"}])
    );
    let cases = s["jobs"].as_array().expect("jobs");
    assert_eq!(cases.len(), 8, "{s}");
    let alice_a = cases
        .iter()
        .find(|c| c["name"] == json!("login [USER=alice]") && c["cell"] == json!("rack=a"))
        .expect("the case login × alice × rack=a");
    let (_, job) = get(
        &farm,
        &format!("/api/v1/jobs/{}", alice_a["job_id"].as_str().unwrap()),
    )
    .await;
    let spec = &job["spec"];
    assert_eq!(
        spec["vars"],
        json!({"SHOP": "demo", "USER": "alice"}),
        "{job}"
    );
    assert_eq!(spec["instruction"], json!("wait 1s"));
    assert_eq!(spec["timeout_s"], json!(60));
    assert_eq!(spec["retry_elsewhere"], json!(1));
    assert_eq!(spec["selector"]["labels"], json!({"rack": "a"}));

    run_again_and_edit(&farm, &page, &id).await;
}

/// Each refusal: 4xx, the API's message at its field, nothing stored.
async fn refusals(farm: &Farm, page: &Page) {
    let before = rows(farm).await;
    // No name.
    fill_suite(farm, page, "", "1", "wait 1s").await;
    let shown = refused_at(page, "error-name").await;
    // What the form sends, as the API's body.
    let good = json!({"name": "x", "retry_elsewhere": 1,
        "matrix": [{"labels": {"rack": "a"}}, {"labels": {"rack": "b"}}],
        "vars_matrix": [{"USER": "alice"}, {"USER": "bob"}],
        "jobs": [{"name": "login", "platform": "web", "instruction": "wait 1s"}]});
    let mut body = good.clone();
    body["name"] = json!("");
    let (status, api) = api_suite(farm, &body).await;
    assert_eq!(
        (status, api["field"].clone()),
        (422, json!("name")),
        "{api}"
    );
    assert!(
        shown.contains(api["message"].as_str().unwrap()),
        "{shown} / {api}"
    );
    assert!(text_of(page, "form-error").await.contains("name"));
    assert_eq!(
        page.eval("document.querySelector('[name=\"jobs[1].instruction\"]').value")
            .await,
        json!("wait 2s"),
        "the form keeps the cases typed"
    );
    page.shot("new-suite-error").await;

    // A step the language does not know, in case 1.
    fill_suite(farm, page, "bad steps", "1", "frobnicate the widget").await;
    let shown = refused_at(page, "error-jobs[0].instruction").await;
    let mut body = good.clone();
    body["jobs"][0]["instruction"] = json!("frobnicate the widget");
    let (status, api) = api_suite(farm, &body).await;
    assert_eq!(status, 422, "{api}");
    assert!(
        api["field"]
            .as_str()
            .unwrap()
            .starts_with("jobs[0].instruction"),
        "{api}"
    );
    assert!(
        shown.contains(api["message"].as_str().unwrap()),
        "{shown} / {api}"
    );

    // retry_elsewhere out of range.
    fill_suite(farm, page, "too many", "9", "wait 1s").await;
    let shown = refused_at(page, "error-retry_elsewhere").await;
    let mut body = good.clone();
    body["retry_elsewhere"] = json!(9);
    let (status, api) = api_suite(farm, &body).await;
    assert_eq!(
        (status, api["field"].clone()),
        (422, json!("retry_elsewhere"))
    );
    assert!(
        shown.contains(api["message"].as_str().unwrap()),
        "{shown} / {api}"
    );

    // Pasted JSON of the wrong shape: the API's parse error at the JSON.
    page.goto(&format!("{}/suites/new", farm.base_url)).await;
    page.submit_form(
        "#suite-json",
        &[("suite_json", r#"{"name": "j", "jobs": 3}"#)],
    )
    .await;
    let shown = text_of(page, "error-suite_json").await;
    assert!(shown.starts_with("jobs:"), "{shown}");

    // Without the CSRF token: 403.
    let status = page
        .eval(
            "fetch('/suites/new', {method: 'POST', headers: {'content-type': \
             'application/x-www-form-urlencoded'}, body: 'name=x&jobs%5B0%5D.instruction=wait%201s'})\
             .then(r => r.status)",
        )
        .await;
    assert_eq!(status, json!(403));
    assert_eq!(rows(farm).await, before, "no refusal stored anything");
}

/// "Run again" and "Edit" from the suite's page.
async fn run_again_and_edit(farm: &Farm, page: &Page, id: &str) {
    let before = rows(farm).await;
    page.goto(&format!("{}/suites/{id}", farm.base_url)).await;
    click_and_load(page, "#run-again button").await;
    let again = shown_suite(page).await;
    assert_ne!(again, id);
    assert_eq!(rows(farm).await, (before.0 + 1, before.1 + 8, before.2 + 8));
    let (_, s) = get(farm, &format!("/api/v1/suites/{again}")).await;
    assert_eq!(s["name"], json!("form suite"));
    assert_eq!(s["jobs"].as_array().map(Vec::len), Some(8));
    let history = text_of(page, "history").await;
    assert!(
        history.contains(id) && history.contains(&again),
        "{history}"
    );

    page.goto(&format!("{}/suites/{id}/edit", farm.base_url))
        .await;
    let value = |n: &str| format!("document.querySelector('#new-suite [name=\"{n}\"]').value");
    assert_eq!(page.eval(&value("name")).await, json!("form suite"));
    assert_eq!(page.eval(&value("matrix")).await, json!("rack=a\nrack=b"));
    assert_eq!(
        page.eval(&value("jobs[1].instruction")).await,
        json!("wait 2s")
    );
    page.shot("suite-edit").await;
    fill(page, &[("jobs[1].instruction", 0, "wait 3s")]).await;
    click_and_load(page, "#run-suite").await;
    let edited = shown_suite(page).await;
    let (_, s) = get(farm, &format!("/api/v1/suites/{edited}")).await;
    assert_eq!(s["spec"]["jobs"][1]["instruction"], json!("wait 3s"), "{s}");
    assert_eq!(s["spec"]["jobs"][0]["instruction"], json!("wait 1s"), "{s}");
    assert_eq!(s["spec"]["retry_elsewhere"], json!(1), "{s}");
    let (_, first) = get(farm, &format!("/api/v1/suites/{id}")).await;
    assert_eq!(
        first["spec"]["jobs"][1]["instruction"],
        json!("wait 2s"),
        "the edited suite stays as it ran"
    );

    // The API's run-again answers the new suite's jobs.
    let r = farm
        .http
        .post(format!("{}/api/v1/suites/{id}/run", farm.base_url))
        .send()
        .await
        .expect("run again");
    assert_eq!(r.status().as_u16(), 201);
    let ran: Value = r.json().await.expect("json");
    assert_eq!(ran["jobs"].as_array().map(Vec::len), Some(8), "{ran}");
    let named = count(
        farm,
        "select count(*) from suites where name = 'form suite'",
    )
    .await;
    assert_eq!(named, 4);
}
