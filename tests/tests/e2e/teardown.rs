//! Pins the failure paths: a failing assertion ends the run `failed` with the failing step
//! and its screenshot in the report, a run over its `timeout_s` ends `timed_out`, and in
//! both cases the run's browser context is closed (teardown runs on failure and timeout,
//! not only on success), checked through Chromium's own target list.

use std::time::Duration;

use argus_tests::site::Site;
use argus_tests::{Farm, FarmOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn failing_assertion_and_timeout_end_truthfully_and_tear_down() {
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;

    let token = format!("fail-{}", farm.token);
    let run_id = farm
        .submit(&json!({
            "platform": "web",
            "start_url": site.example_url("vanillajs", &token),
            "instruction": "type \"buy milk\" into \"What needs to be done?\"\npress Enter\nassert screen contains \"no such text\"\ntap \"Clear completed\"",
        }))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(60)).await;
    assert_eq!(d.status.as_str(), "failed", "{:?}", d.error);
    let err = d.error.clone().unwrap_or_default();
    assert!(
        err.contains("no such text") && err.contains("step 4"),
        "{err}"
    );
    assert_eq!(d.steps.len(), 4, "the step after the failure never ran");
    let failing = &d.steps[3];
    assert_eq!(failing.ok, Some(false));
    let shot = failing.actions[0]
        .after_key
        .clone()
        .expect("failing step screenshot");
    assert!(farm.s3_get(&shot).await.is_some());
    let html = farm
        .http
        .get(format!("{}/runs/{run_id}", farm.base_url))
        .send()
        .await
        .expect("report")
        .text()
        .await
        .expect("body");
    assert!(html.contains("step fail") && html.contains("id=\"step-3\""));
    assert!(html.contains(&format!("/artifacts/{shot}")));
    assert!(
        farm.open_pages()
            .await
            .iter()
            .all(|p| !p["url"].as_str().unwrap_or("").contains(&token)),
        "the failed run's page is still open"
    );

    let token = format!("timeout-{}", farm.token);
    let run_id = farm
        .submit(&json!({
            "platform": "web",
            "start_url": site.example_url("vanillajs", &token),
            "instruction": "wait 20s\nassert screen contains \"todos\"",
            "timeout_s": 3,
        }))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(30)).await;
    assert_eq!(d.status.as_str(), "timed_out", "{:?}", d.error);
    assert!(
        farm.open_pages()
            .await
            .iter()
            .all(|p| !p["url"].as_str().unwrap_or("").contains(&token)),
        "the timed-out run's page is still open"
    );
}
