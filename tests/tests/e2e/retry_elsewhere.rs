//! Pins issue 27 item 2, retry on another device, on real services and real Chromium: two
//! web workers of one slot each. With the second one's Chromium killed every 250 ms, a suite
//! of jobs with `retry_elsewhere: 1` passes: every job ends with a succeeded attempt on the
//! healthy device; each attempt the sick device ate is a `device` failure marked flaky, and
//! its retry avoided the sick device. A check that fails everywhere is tried on both devices,
//! both attempts `app`, the job failed (and with `retries: 1` as well, one plain retry
//! follows). Out-of-range `retry_elsewhere` (job or suite) is a
//! 4xx envelope naming the field, with nothing stored.

use std::time::Duration;

use argus_tests::site::Site;
use argus_tests::{Farm, FarmOptions};
use serde_json::{json, Value};
use uuid::Uuid;

use super::device_health::{get_json, job, junit_xml, start_sick_worker};

/// Waits for run `run` to end, then returns its detail as JSON.
async fn ended(farm: &Farm, run: Uuid) -> Value {
    farm.wait_run(run, Duration::from_secs(120)).await;
    get_json(farm, &format!("/api/v1/runs/{run}")).await
}

/// The id in `v[key]` (a run id) as a `Uuid`, if any.
fn id(v: &Value) -> Option<Uuid> {
    v.as_str().and_then(|s| s.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn device_failures_pass_on_another_device_and_are_flaky() {
    let site = Site::todomvc().await;
    let mut farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let healthy = format!("{}-0", farm.worker_id);
    let (sick, killer) = start_sick_worker(&mut farm).await;
    let suite = json!({
        "name": "retry elsewhere",
        "retry_elsewhere": 1,
        "jobs": (0..4).map(|n| job(&site, &farm, n, "todos")).collect::<Vec<_>>(),
    });
    let (code, created) = post(&farm, "/api/v1/suites", &suite).await;
    assert_eq!(code, 201, "{created}");
    let mut on_sick = 0;
    for j in created["jobs"].as_array().expect("jobs") {
        let first = id(&j["run_id"]).expect("run_id");
        let mut run = ended(&farm, first).await;
        let mut chain = vec![run.clone()];
        while run["status"] != "succeeded" {
            let next = id(&run["attempts"]["next_attempt"])
                .unwrap_or_else(|| panic!("a failed attempt with no retry: {run}"));
            run = ended(&farm, next).await;
            chain.push(run.clone());
        }
        assert_eq!(run["device_id"], healthy.as_str(), "{run}");
        let (last, failed) = chain.split_last().expect("attempts");
        assert!(
            failed.len() <= 1,
            "retry_elsewhere 1 allows one retry: {chain:#?}"
        );
        for f in failed {
            on_sick += 1;
            let f = get_json(
                &farm,
                &format!("/api/v1/runs/{}", f["run_id"].as_str().unwrap_or("")),
            )
            .await;
            assert_eq!(f["device_id"], sick.as_str(), "{f}");
            assert_eq!(f["failure_class"], "device", "{f}");
            assert_eq!(f["attempts"]["flaky"], true, "{f}");
            assert_eq!(f["attempts"]["next_attempt"], last["run_id"], "{f}");
            assert_eq!(last["attempts"]["retry_of"], f["run_id"], "{last}");
            assert_eq!(last["attempts"]["avoid_devices"], json!([sick]), "{last}");
        }
        assert_eq!(last["attempts"]["flaky"], false, "{last}");
        if let Some(f) = failed.first().and_then(|f| id(&f["run_id"])) {
            let html = farm.report_html(f).await;
            assert!(
                html.contains("id=\"flaky\"") && html.contains("id=\"next-attempt\""),
                "the report of a flaky attempt links its retry"
            );
        }
    }
    killer.abort();
    assert!(on_sick >= 1, "no job went to the sick device");
    let suite_id = created["suite_id"].as_str().expect("suite_id");
    let v = get_json(&farm, &format!("/api/v1/suites/{suite_id}")).await;
    assert_eq!(
        v["verdict"], "passed",
        "device failures that passed elsewhere: {v}"
    );
    assert_eq!(v["flaky"], on_sick, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_app_failure_is_tried_on_both_devices_and_stays_app() {
    let site = Site::todomvc().await;
    let mut farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let admin = farm.admin_token.clone();
    farm.start_worker("second", &admin).await;
    let mut spec = job(&site, &farm, 0, "no such text");
    spec["retry_elsewhere"] = json!(1);
    let first = farm.submit(&spec).await;
    let a = ended(&farm, first).await;
    assert_eq!(
        (&a["status"], &a["failure_class"]),
        (&json!("failed"), &json!("app")),
        "{a}"
    );
    let second = id(&a["attempts"]["next_attempt"]).unwrap_or_else(|| panic!("no retry: {a}"));
    let b = ended(&farm, second).await;
    assert_eq!(
        (&b["status"], &b["failure_class"]),
        (&json!("failed"), &json!("app")),
        "{b}"
    );
    assert_ne!(
        a["device_id"], b["device_id"],
        "the retry ran on the same device"
    );
    assert_eq!(b["attempts"]["retry_of"], a["run_id"], "{b}");
    assert_eq!(
        b["attempts"]["avoid_devices"],
        json!([a["device_id"]]),
        "{b}"
    );
    assert!(
        b["attempts"].get("next_attempt").is_none(),
        "a third attempt: {b}"
    );
    for v in [&a, &b] {
        assert_eq!(v["attempts"]["flaky"], false, "{v}");
    }
    let job_id = a["job_id"].as_str().expect("job_id");
    let j = get_json(&farm, &format!("/api/v1/jobs/{job_id}")).await;
    let runs = j["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2, "{j}");
    assert_eq!(runs[1]["status"], "failed", "{j}");

    // `retries` is a budget of its own: after the run elsewhere, one plain retry (any device).
    spec["retries"] = json!(1);
    let first = farm.submit(&spec).await;
    let a = ended(&farm, first).await;
    let b = ended(
        &farm,
        id(&a["attempts"]["next_attempt"]).expect("elsewhere"),
    )
    .await;
    assert_eq!(
        b["attempts"]["avoid_devices"],
        json!([a["device_id"]]),
        "{b}"
    );
    let c = ended(
        &farm,
        id(&b["attempts"]["next_attempt"]).expect("plain retry"),
    )
    .await;
    assert!(c["attempts"].get("avoid_devices").is_none(), "{c}");
    assert_eq!(c["attempts"]["retry_of"], b["run_id"], "{c}");
    assert_eq!(
        (&c["status"], &c["failure_class"]),
        (&json!("failed"), &json!("app")),
        "{c}"
    );
    assert!(
        c["attempts"].get("next_attempt").is_none(),
        "a fourth attempt: {c}"
    );

    // In a suite (`retry_elsewhere` set on the suite): `app` in the API, the grid and the
    // JUnit as junitparser reads it.
    suite_case_failing_everywhere_is_app(&farm, &site).await;
}

/// A suite whose one case fails the same check on both devices: the suite's API, its page's
/// grid and its JUnit (read by PyPI junitparser) all say `app`.
async fn suite_case_failing_everywhere_is_app(farm: &Farm, site: &Site) {
    let Some(wheel) = argus_tests::junit_read::wheel() else {
        argus_tests::require::require("junitparser", false, "run deploy/dev-up.sh");
        return;
    };
    let suite = json!({
        "name": format!("fails everywhere {}", farm.token),
        "retry_elsewhere": 1,
        "jobs": [job(site, farm, 40, "no such text")],
    });
    let (code, created) = post(farm, "/api/v1/suites", &suite).await;
    assert_eq!(code, 201, "{created}");
    let suite_id = created["suite_id"].as_str().expect("suite_id");
    let first = id(&created["jobs"][0]["run_id"]).expect("run_id");
    let a = ended(farm, first).await;
    let b = ended(
        farm,
        id(&a["attempts"]["next_attempt"]).unwrap_or_else(|| panic!("no retry: {a}")),
    )
    .await;
    assert_ne!(a["device_id"], b["device_id"], "{a} {b}");
    let v = get_json(farm, &format!("/api/v1/suites/{suite_id}")).await;
    assert_eq!(
        (&v["jobs"][0]["status"], &v["jobs"][0]["failure_class"]),
        (&json!("failed"), &json!("app")),
        "{v}"
    );
    let page = farm
        .http
        .get(format!("{}/suites/{suite_id}", farm.base_url))
        .send()
        .await
        .expect("page")
        .text()
        .await
        .expect("html");
    assert!(
        page.contains("<span class=\"badge failure-class\">app</span>"),
        "{page}"
    );
    let xml = junit_xml(farm, suite_id).await;
    let cases = argus_tests::junit_read::cases(&wheel, &xml);
    assert_eq!(cases.len(), 1, "{cases:?}");
    let results = cases[0]["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{cases:?}");
    assert_eq!(
        (&results[0]["kind"], &results[0]["type"]),
        (&json!("failure"), &json!("app")),
        "{cases:?}"
    );
}

async fn post(farm: &Farm, path: &str, body: &Value) -> (u16, Value) {
    let r = farm
        .http
        .post(format!("{}{path}", farm.base_url))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("post");
    let code = r.status().as_u16();
    (code, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_elsewhere_out_of_range_is_refused_and_nothing_stored() {
    let farm = Farm::start(FarmOptions {
        worker_slots: None,
        ..Default::default()
    })
    .await;
    let base = json!({"platform": "web", "instruction": "assert screen contains \"x\""});
    for n in [json!(6), json!(-1), json!("1")] {
        let mut spec = base.clone();
        spec["retry_elsewhere"] = n.clone();
        let (code, env) = post(&farm, "/api/v1/jobs", &spec).await;
        assert_eq!(code, 422, "{n}: {env}");
        assert_eq!(env["field"], "retry_elsewhere", "{n}: {env}");
        assert!(
            env["message"].is_string() && env["hint"].is_string(),
            "{env}"
        );
        let in_suite = json!({"name": "s", "jobs": [spec]});
        let (code, env) = post(&farm, "/api/v1/suites", &in_suite).await;
        assert_eq!(code, 422, "{n}: {env}");
        assert_eq!(env["field"], "jobs[0].retry_elsewhere", "{n}: {env}");
        let suite_wide = json!({"name": "s", "jobs": [base], "retry_elsewhere": n});
        let (code, env) = post(&farm, "/api/v1/suites", &suite_wide).await;
        assert_eq!(code, 422, "{n}: {env}");
        assert_eq!(env["field"], "retry_elsewhere", "{n}: {env}");
    }
    let (jobs, runs, suites): (i64, i64, i64) = sqlx::query_as(
        "select (select count(*) from jobs), (select count(*) from runs),
                (select count(*) from suites)",
    )
    .fetch_one(&farm.pool)
    .await
    .expect("count");
    assert_eq!((jobs, runs, suites), (0, 0, 0), "nothing was stored");
    // 5 is the most, and it is stored
    let mut spec = base.clone();
    spec["retry_elsewhere"] = json!(5);
    let run = farm.submit(&spec).await;
    let v = get_json(&farm, &format!("/api/v1/runs/{run}")).await;
    assert_eq!(v["spec"]["retry_elsewhere"], 5, "{v}");
}
