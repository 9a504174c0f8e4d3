//! Pins what a step that names a target promises: it waits (bounded by `auto_wait_ms`) until
//! the target exists, is visible, enabled, not covered and stable — so a page that builds its
//! form a second or two after the load event passes, as it does under Playwright — and a
//! failure says what it was still waiting for. Also pins the gestures added through the one
//! action shape (double tap, long press, swipe) on real Chromium, each confirmed by the page's
//! own report (the injected probe), never by the worker's "ok".

use std::time::Duration;

use argus_tests::site::{Item, Site};
use argus_tests::{Farm, FarmOptions};
use serde_json::json;

use crate::todomvc::TODO_STEPS;

async fn farm() -> (Farm, Site) {
    let opts = FarmOptions {
        worker_slots: Some(2),
        ..Default::default()
    };
    let site = Site::todomvc().await;
    let farm = Farm::start(opts.allowing(&site.base_url)).await;
    (farm, site)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn late_forms_are_waited_for_and_failures_say_why() {
    let (farm, site) = farm().await;
    // Our own page that builds the app 1.5 s after load, and a real require.js variant.
    let mut runs = Vec::new();
    for (name, page) in [
        ("delayed", "delayed.html?ms=1500".to_string()),
        ("backbone_require", String::new()),
    ] {
        let token = format!("{name}-{}", farm.token);
        let url = if page.is_empty() {
            site.example_url(name, &token)
        } else {
            site.page_url(&page, &token)
        };
        let spec = json!({"platform": "web", "start_url": url, "instruction": TODO_STEPS,
            "name": format!("late {name}"), "timeout_s": 120});
        runs.push((name, token, farm.submit(&spec).await));
    }
    for (name, token, run_id) in runs {
        let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
        assert_eq!(
            d.status.as_str(),
            "succeeded",
            "{name}: run {run_id} ended {} ({:?})",
            d.status.as_str(),
            d.error
        );
        let state = site
            .state(&token)
            .unwrap_or_else(|| panic!("{name}: page never reported"));
        assert_eq!(
            state.items,
            vec![Item {
                text: "walk the dog".into(),
                completed: false
            }],
            "{name}: the page's own list"
        );
    }

    // A target that never comes: the step fails after its wait, naming what it waited for.
    let spec = json!({"platform": "web", "start_url": site.page_url("gestures.html", "nope"),
        "instruction": "tap \"No such button\"", "auto_wait_ms": 800, "timeout_s": 60});
    let d = farm
        .wait_run(farm.submit(&spec).await, Duration::from_secs(60))
        .await;
    assert_eq!(d.status.as_str(), "failed");
    let err = d.error.unwrap_or_default();
    assert!(
        err.contains("after waiting 800 ms") && err.contains("no element named"),
        "{err}"
    );
    // A disabled target: waited for, then "disabled".
    let spec = json!({"platform": "web", "start_url": site.page_url("gestures.html", "locked"),
        "instruction": "tap \"Locked\"", "auto_wait_ms": 600, "timeout_s": 60});
    let d = farm
        .wait_run(farm.submit(&spec).await, Duration::from_secs(60))
        .await;
    assert_eq!(d.status.as_str(), "failed");
    let err = d.error.unwrap_or_default();
    assert!(
        err.contains("not actionable") && err.contains("disabled"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn double_tap_long_press_and_swipe_reach_the_page() {
    let (farm, site) = farm().await;
    let token = format!("g-{}", farm.token);
    let steps = "double tap \"Double me\"\nlong press \"Hold me\" for 700ms\nswipe up\n\
                 wait for \"scrolled=1\"";
    let spec = json!({"platform": "web", "start_url": site.page_url("gestures.html", &token),
        "instruction": steps, "timeout_s": 60});
    let d = farm
        .wait_run(farm.submit(&spec).await, Duration::from_secs(90))
        .await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:?}",
        d.error,
        d.steps
    );
    let kinds: Vec<&str> = d
        .steps
        .iter()
        .flat_map(|s| s.actions.iter().map(|a| a.kind.as_str()))
        .collect();
    assert_eq!(
        kinds,
        ["open", "double_tap", "long_press", "swipe", "wait_for"]
    );
    // The page's own account: one dblclick, one press held ≥ 500 ms, scrolled down.
    let mut count = None;
    for _ in 0..20 {
        count = site.state(&token).and_then(|s| s.count);
        if count.as_deref() == Some("dbl=1 held=1 scrolled=1") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(count.as_deref(), Some("dbl=1 held=1 scrolled=1"));
}
