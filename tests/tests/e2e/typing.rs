//! Pins what `type` does to a field that already holds text on the web: the typed text
//! replaces it (Playwright's `fill`), so typing the same text twice leaves one copy — read
//! back from the page's own probe, not from the worker.

use std::time::Duration;

use argus_tests::site::{Item, Site};
use argus_tests::{Farm, FarmOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typing_into_a_field_that_holds_text_replaces_it() {
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let token = format!("typing-{}", farm.token);
    let spec = json!({
        "platform": "web",
        "start_url": site.example_url("vanillajs", &token),
        "instruction": "type \"draft\" into \"What needs to be done?\"\ntype \"buy milk\" into \"What needs to be done?\"\ntype \"buy milk\" into \"What needs to be done?\"\npress Enter",
        "selector": {"labels": {"browser": "chromium", "team": "qa"}},
        "timeout_s": 120,
    });
    let run_id = farm.submit(&spec).await;
    let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
    assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
    let state = site.state(&token).expect("the page reported its state");
    assert_eq!(
        state.items,
        vec![Item {
            text: "buy milk".into(),
            completed: false
        }]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typing_into_a_heading_fails_the_step_instead_of_passing_silently() {
    // The keys sent "into" a heading land nowhere; the step says so at once (the page's own
    // probe confirms no todo was added).
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let token = format!("typing-heading-{}", farm.token);
    let spec = json!({
        "platform": "web",
        "start_url": site.example_url("vanillajs", &token),
        "instruction": "type \"zebra crossing\" into \"todos\"\npress Enter",
        "selector": {"labels": {"browser": "chromium", "team": "qa"}},
        "timeout_s": 120,
    });
    let run_id = farm.submit(&spec).await;
    let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
    assert_eq!(d.status.as_str(), "failed");
    let err = d.error.clone().unwrap_or_default();
    assert!(err.contains("not a text field"), "{err}");
    assert!(err.contains("heading \"todos\""), "{err}");
    let state = site.state(&token).expect("the page reported its state");
    assert!(state.items.is_empty(), "{:?}", state.items);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typing_a_time_and_a_date_as_people_write_them_fills_the_segmented_fields() {
    // Chromium drops `11:10 AM` typed key by key into <input type=time> (the ':' and the
    // space); the page prints the values the fields really took.
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let spec = json!({
        "platform": "web",
        "start_url": site.page_url("dates.html", "dates"),
        "instruction": "type \"11:10 AM\" into \"Time\"\ntype \"02/04/2012\" into \"Date\"\nassert screen contains \"time=11:10 date=2012-02-04\"\ntype \"1:05 PM\" into \"Time\"\ntype \"2012-3-1\" into \"Date\"\nassert screen contains \"time=13:05 date=2012-03-01\"",
        "selector": {"labels": {"browser": "chromium", "team": "qa"}},
        "timeout_s": 120,
    });
    let run_id = farm.submit(&spec).await;
    let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
    assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn typing_into_a_closed_select_chooses_the_option_it_names() {
    // A closed native <select> takes keys only as type-ahead, and its options are not on the
    // screen to tap; the page prints the value the list really took (its `change` event).
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let spec = json!({
        "platform": "web",
        "start_url": site.page_url("dates.html", "dates"),
        "instruction": "type \"Norfolk Island\" into \"Country\"\nassert screen contains \"country=nf\"\ntype \"north korea\" into \"Country\"\nassert screen contains \"country=kp\"\ntype \"Peru\" into \"Country\"",
        "selector": {"labels": {"browser": "chromium", "team": "qa"}},
        "timeout_s": 120,
    });
    let run_id = farm.submit(&spec).await;
    let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
    // The last line names no option: the run fails there, saying which options there are.
    assert_eq!(d.status.as_str(), "failed", "{:?}", d.error);
    let err = d.error.unwrap_or_default();
    assert!(
        err.contains("no option \"Peru\"") && err.contains("\"Norfolk Island\""),
        "{err}"
    );
    // Opening the page and the four lines before passed; the last one failed.
    let oks: Vec<Option<bool>> = d.steps.iter().map(|s| s.ok).collect();
    assert_eq!(
        oks,
        [
            Some(true),
            Some(true),
            Some(true),
            Some(true),
            Some(true),
            Some(false)
        ],
        "{:?}",
        d.steps.iter().map(|s| &s.text).collect::<Vec<_>>()
    );
}
