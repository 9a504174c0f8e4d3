//! Pins step-language constructs on real Chromium, each effect confirmed by the page's own
//! report (the injected probe) or a page the site served, never by the worker's "ok": a named
//! target narrowed by its row (`tap "Add" in the row of "Groups"` — two "Add" buttons on the
//! page), `scroll until "X" is visible`, following a link and `go back`; `repeat` (todos
//! added, counted back from the page), `if` taken and not taken (English and Chinese, the
//! effect read back), `include`, `${var.…}` and a data-matrix suite of two rows whose
//! verdict and JUnit list each row; submit-time refusals name the file, line and variable;
//! names as people say them (`type … into "Password"` on a form labelled `Password:`, the
//! values read back from the page); the element checks (`is checked`, `has value`, `is
//! empty`, `contains "X" N times`, EN and ZH) pass where they hold and fail, named, where
//! they do not.

use std::time::{Duration, Instant};

use argus_tests::site::{Item, Site};
use argus_tests::{Farm, FarmOptions};
use serde_json::{json, Value};

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

const NEW: &str = "What needs to be done?";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn repeat_if_include_and_vars_on_todomvc() {
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let token = format!("blocks-{}", farm.token);
    let steps = format!(
        "include lib/add.steps\n\
         repeat ${{var.TIMES}} times:\n\
         \x20 type \"repeat item\" into \"{NEW}\"\n\
         \x20 press Enter\n\
         if screen contains \"4 items left\":\n\
         \x20 type \"then ran\" into \"{NEW}\"\n\
         \x20 press Enter\n\
         如果 页面包含 \"99 items left\":\n\
         \x20 在 \"{NEW}\" 输入 \"never added\"\n\
         \x20 按 回车\n\
         否则:\n\
         \x20 在 \"{NEW}\" 输入 \"else ran\"\n\
         \x20 按 回车\n\
         if screen does not contain \"else ran\":\n\
         \x20 type \"skipped\" into \"{NEW}\"\n\
         wait for \"6 items left\""
    );
    let spec = json!({"platform": "web", "start_url": site.example_url("vanillajs", &token),
    "instruction": steps, "timeout_s": 240,
    "vars": {"TIMES": "3", "FIRST": "milk from \"vars\""},
    "files": {
        "lib/add.steps": "include ../enter.steps",
        "enter.steps": format!("type \"${{var.FIRST}}\" into \"{NEW}\"\npress Enter"),
    }});
    let d = farm
        .wait_run(farm.submit(&spec).await, Duration::from_secs(300))
        .await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:#?}",
        d.error,
        d.steps
    );
    // The page's own account: the included step with the variable's value, three repeat
    // items, the then-branch of the first if, the else-branch of the second, not the third.
    let state = site.state(&token).expect("the page reported");
    let texts: Vec<&str> = state.items.iter().map(|i: &Item| i.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "milk from \"vars\"",
            "repeat item",
            "repeat item",
            "repeat item",
            "then ran",
            "else ran"
        ]
    );
    assert_eq!(state.count.as_deref(), Some("6 items left"));
    // The run's steps say which iteration and branch each action belonged to.
    let texts: Vec<&str> = d.steps.iter().map(|s| s.text.as_str()).collect();
    for want in [
        "repeat 1/3 › type \"repeat item\" into \"What needs to be done?\"",
        "repeat 3/3 › press Enter",
        "then › type \"then ran\" into \"What needs to be done?\"",
        "else › 按 回车",
    ] {
        assert!(texts.contains(&want), "{want:?} not in {texts:#?}");
    }
    assert!(!texts
        .iter()
        .any(|t| t.contains("never added") || t.contains("skipped")));
    let ifs: Vec<String> = d
        .steps
        .iter()
        .flat_map(|s| s.actions.iter())
        .filter(|a| a.kind == "if")
        .map(|a| a.detail.clone())
        .collect();
    assert_eq!(
        ifs,
        [
            "screen contains \"4 items left\": shown → the then-block runs",
            "screen contains \"99 items left\": not shown → the else-block runs",
            "screen does not contain \"else ran\": shown → the block is skipped",
        ]
    );
    // open + 1 include + 3×2 repeat + (if + 2) + (if + 2) + if + wait for
    assert_eq!(d.steps.len(), 1 + 2 + 6 + 3 + 3 + 1 + 1, "{texts:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_name_the_file_line_and_variable() {
    let farm = crate::bare_farm().await;
    for (body, field, needle) in [
        (
            json!({"platform": "web", "instruction": "wait 1ms\ninclude login.steps"}),
            "instruction[line 2]",
            "login.steps",
        ),
        (
            json!({"platform": "web", "instruction": "wait 1ms\ntap \"${var.WHO}\"",
                "vars": {"OTHER": "x"}}),
            "instruction[line 2]",
            "WHO",
        ),
        (
            json!({"platform": "web", "instruction": "include a.steps",
                "files": {"a.steps": "wait 1ms\nfly away"}}),
            "files[a.steps][line 2]",
            "fly",
        ),
        (
            json!({"platform": "web", "instruction": "wait 1ms", "vars": {"bad-name": "x"}}),
            "vars",
            "bad-name",
        ),
        (
            json!({"platform": "web", "instruction": "repeat 1000 times:\n  wait 1ms"}),
            "instruction[line 1]",
            "1000",
        ),
        (
            json!({"platform": "web", "instruction": "repeat 20 times:\n  wait 1ms\n  wait 1ms\n  wait 1ms"}),
            "max_steps",
            "60",
        ),
    ] {
        let (status, env) = farm.post_job_raw(body.to_string()).await;
        assert_eq!(status, 422, "{body}: {env}");
        assert_eq!(env["field"], field, "{body}: {env}");
        assert!(
            env["message"].as_str().unwrap_or("").contains(needle),
            "{body}: {env}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn data_matrix_suite_runs_each_row_as_its_own_test_case() {
    let site = Site::todomvc().await;
    // Two slots: the rows run side by side.
    let opts = FarmOptions {
        worker_slots: Some(2),
        ..Default::default()
    };
    let farm = Farm::start(opts.allowing(&site.base_url)).await;
    let tok = |r: &str| format!("rows-{r}-{}", farm.token);
    let suite = json!({
        "name": "data rows",
        "jobs": [{"platform": "web", "name": "add todo", "timeout_s": 200,
            "instruction": format!("open ${{var.URL}}\ntype \"${{var.ITEM}}\" into \"{NEW}\"\n\
                press Enter\nassert screen contains \"${{var.EXPECT}}\"")}],
        "vars_matrix": [
            {"ITEM": "alpha", "EXPECT": "alpha", "URL": site.example_url("vanillajs", &tok("a"))},
            {"ITEM": "beta", "EXPECT": "gamma", "URL": site.example_url("vanillajs", &tok("b"))},
        ],
    });
    let r = farm.post_json("/api/v1/suites", &suite).await;
    assert_eq!(r.status().as_u16(), 201);
    let created: Value = r.json().await.expect("json");
    let id = created["suite_id"].as_str().expect("id").to_string();
    assert_eq!(created["jobs"].as_array().map(Vec::len), Some(2));
    let deadline = Instant::now() + Duration::from_secs(300);
    let v: Value = loop {
        let v: Value = farm
            .http
            .get(format!("{}/api/v1/suites/{id}", farm.base_url))
            .send()
            .await
            .expect("get")
            .json()
            .await
            .expect("json");
        if v["verdict"] != "running" {
            break v;
        }
        assert!(Instant::now() < deadline, "suite still running: {v}");
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    assert_eq!(v["verdict"], "failed", "{v}");
    assert_eq!(
        (v["passed"].as_u64(), v["failed"].as_u64()),
        (Some(1), Some(1)),
        "{v}"
    );
    let jobs = v["jobs"].as_array().expect("jobs");
    let by_row = |item: &str| {
        jobs.iter()
            .find(|j| {
                j["name"]
                    .as_str()
                    .unwrap_or("")
                    .contains(&format!("ITEM={item}"))
            })
            .unwrap_or_else(|| panic!("no job for row {item}: {v}"))
    };
    assert_eq!(by_row("alpha")["status"], "succeeded");
    assert_eq!(by_row("beta")["status"], "failed");
    assert!(by_row("beta")["error"]
        .as_str()
        .unwrap_or("")
        .contains("gamma"));
    // Each row typed its own value on its own page (the pages' own account).
    for (r, item) in [("a", "alpha"), ("b", "beta")] {
        let state = site.state(&tok(r)).expect("the page reported");
        assert_eq!(
            state.items,
            vec![Item {
                text: item.into(),
                completed: false
            }]
        );
    }
    let xml = farm
        .http
        .get(format!("{}/api/v1/suites/{id}/junit.xml", farm.base_url))
        .send()
        .await
        .expect("junit")
        .text()
        .await
        .expect("body");
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut cases = Vec::new();
    let mut failures = 0;
    loop {
        match reader.read_event().expect("valid XML") {
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                match e.name().as_ref() {
                    b"testcase" => cases.push(
                        e.try_get_attribute("name")
                            .ok()
                            .flatten()
                            .and_then(|a| a.unescape_value().ok())
                            .map(|n| n.to_string())
                            .unwrap_or_default(),
                    ),
                    b"failure" => failures += 1,
                    _ => {}
                }
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(cases.len(), 2, "{xml}");
    assert!(cases[0].starts_with("add todo [EXPECT="), "{cases:?}");
    assert!(
        cases.iter().any(|c| c.contains("ITEM=alpha"))
            && cases.iter().any(|c| c.contains("ITEM=beta"))
    );
    assert_eq!(failures, 1, "{xml}");
}

/// The latest `count` line `/signup.html` reported for `token` once it satisfies `done`,
/// polled for up to 5 s (the probe reports 20 ms after a change).
async fn signup_state(site: &Site, token: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let count = site.state(token).and_then(|s| s.count).unwrap_or_default();
        if done(&count) || Instant::now() >= deadline {
            return count;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Typing "into \"Password\"" on a form whose labels end in a colon (`Password:`,
/// `Password confirmation:`, `Email *`) reaches the field so labelled, each value read back
/// from the page itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn labels_ending_in_a_colon_name_their_fields() {
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let token = format!("colon-{}", farm.token);
    let steps = "type \"first-secret\" into \"Password\"\n\
                 type \"second-secret\" into \"Password confirmation\"\n\
                 在 \"Email\" 输入 \"ada@example.com\"";
    let spec = json!({"platform": "web", "start_url": site.page_url("signup.html", &token),
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
    let want = "email=ada@example.com pw=first-secret pw2=second-secret name=Ada Lovelace";
    let got = signup_state(&site, &token, |c| c == want).await;
    assert_eq!(got, want, "the page's own fields");
}

/// `assert "X" is [not] checked`, `has value` / `is empty` and `contains "X" N times`, EN and
/// ZH, pass on a page where they hold; a check that does not hold fails its run naming the
/// check and the element's state, and a check whose element is missing waits, then names it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn element_checks_pass_where_they_hold_and_fail_by_name() {
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let token = format!("checks-{}", farm.token);
    let steps = "type \"ada@example.com\" into \"Email\"\n\
                 assert \"Remember me\" is checked\n\
                 assert \"Subscribe to news\" is not checked\n\
                 断言 \"Remember me\" 已勾选\n\
                 断言 \"Subscribe to news\" 未勾选\n\
                 assert \"Dark mode\" is checked\n\
                 assert \"Free\" is checked\n\
                 assert \"Pro\" is not checked\n\
                 assert \"Name\" has value \"Ada Lovelace\"\n\
                 断言 \"Name\" 的值为 \"Ada Lovelace\"\n\
                 assert \"Email\" has value \"ada@example.com\"\n\
                 assert \"Nickname\" is empty\n\
                 断言 \"Nickname\" 为空\n\
                 assert \"Country\" has value \"Norway\"\n\
                 assert screen contains \"Delete\" 2 times\n\
                 断言 页面包含 \"delete\" 2 次\n\
                 assert screen contains \"Sign up\" 1 time";
    let spec = json!({"platform": "web", "start_url": site.page_url("signup.html", &token),
        "instruction": steps, "timeout_s": 120});
    let d = farm
        .wait_run(farm.submit(&spec).await, Duration::from_secs(150))
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
    for k in ["assert_checked", "assert_value", "assert_count"] {
        assert!(kinds.contains(&k), "{k} not in {kinds:?}");
    }
    // The page itself says the typed value landed (the check above read the same field).
    let got = signup_state(&site, &token, |c| c.starts_with("email=ada@")).await;
    assert!(got.starts_with("email=ada@example.com "), "{got}");

    // Checks that do not hold: the run fails at that step, naming it and what was seen.
    for (steps, step_no, says) in [
        (
            "assert \"Remember me\" is checked\nassert \"Subscribe to news\" is checked",
            3,
            "\"Subscribe to news\" is not checked",
        ),
        (
            "断言 \"Name\" 的值为 \"ada lovelace\"",
            2,
            "holds \"Ada Lovelace\", not \"ada lovelace\"",
        ),
        (
            "assert screen contains \"Delete\" 3 times",
            2,
            "2 elements show \"Delete\", not 3",
        ),
        (
            "assert \"Newsletter\" is checked",
            2,
            "no element named \"Newsletter\"",
        ),
    ] {
        let spec = json!({"platform": "web", "start_url": site.page_url("signup.html", &token),
            "instruction": steps, "timeout_s": 60, "auto_wait_ms": 500});
        let d = farm
            .wait_run(farm.submit(&spec).await, Duration::from_secs(90))
            .await;
        assert_eq!(d.status.as_str(), "failed", "{steps}: {:#?}", d.steps);
        let err = d.error.clone().unwrap_or_default();
        let line = steps.lines().last().unwrap_or_default();
        assert!(
            err.contains(&format!("step {step_no} ({line})")) && err.contains(says),
            "{steps}: {err}"
        );
    }
}
