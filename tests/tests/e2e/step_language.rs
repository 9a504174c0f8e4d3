//! Pins step-language constructs on real Chromium, each effect confirmed by the page's own
//! report (the injected probe) or a page the site served, never by the worker's "ok": a named
//! target narrowed by its row (`tap "Add" in the row of "Groups"` — two "Add" buttons on the
//! page), `scroll until "X" is visible`, following a link and `go back`.

use std::time::Duration;

use argus_tests::site::Site;
use argus_tests::{Farm, FarmOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn row_narrowed_targets_scroll_until_and_back() {
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let token = format!("rows-{}", farm.token);
    let steps = "tap \"Add\" in the row of \"Groups\"\n\
                 wait for \"added=Groups\"\n\
                 scroll until \"Far below\" is visible\n\
                 tap \"More gestures\"\n\
                 wait for \"Double me\"\n\
                 go back\n\
                 wait for \"Admin rows\"";
    let spec = json!({"platform": "web", "start_url": site.page_url("rows.html", &token),
        "instruction": steps, "timeout_s": 90});
    let d = farm
        .wait_run(farm.submit(&spec).await, Duration::from_secs(120))
        .await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:#?}",
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
        [
            "open",
            "tap",
            "wait_for",
            "scroll_until",
            "tap",
            "wait_for",
            "back",
            "wait_for"
        ]
    );
    // The first page's own account: the Groups row's Add, and it scrolled far down.
    let rows = site.state(&token).and_then(|s| s.count);
    assert_eq!(rows.as_deref(), Some("added=Groups scrolled=1"));
    // The link was followed (the gestures page reported under its own token) …
    assert!(
        site.state(&format!("{token}-g")).is_some(),
        "the gestures page never loaded"
    );
    // … and `go back` came back: the last step waited for the rows page's fixed header.
    let back = d.steps[6].actions[0].clone();
    assert!(back.ok, "{:?}", back.error);
}
