//! Pins issue 23's export promise through the whole farm, on real Chromium: a succeeded
//! natural-language TodoMVC run, exported with the real `argus runs steps RUN_ID`, is a step
//! file that reruns as a `script` job and passes with **zero** model requests — counted at
//! the chat-completions endpoint (`argus_tests::chat_stub`'s request log), not by Argus —
//! the page's own probe confirming the list; and the very same file, run against a copy of
//! the app whose completion toggle does nothing (`Site::toggle_off_url`), fails on what no
//! longer holds — the closing assertion, named in the error — the page's probe confirming
//! the todo was never completed. (That copy still ticks the box when tapped, so the `tap`
//! line has its visible effect and passes; the claim about the app is what fails, which is
//! what the expectation is for: a script that only checks its own clicks would pass here.)
//!
//! The file is reviewable: targets by role, name and anchor (no element ids), every line
//! parses, and it closes with the run's expectation as an assertion.
//!
//! Its Chinese twin (`argus runs steps RUN_ID --lang zh`, `?lang=zh`) keeps the header,
//! writes every step line in Chinese, parses to the same actions, and reruns as a `script`
//! job that passes just as the English file does (no model call, the page's probe
//! confirming the list); an unknown `lang` is a 422 envelope naming the parameter.

use std::time::Duration;

use argus_tests::chat_stub::ChatStub;
use argus_tests::site::{Item, Site};
use argus_tests::{Farm, FarmOptions};
use serde_json::{json, Value};

/// Its last clause is the run's one expectation ([`EXPECTATION`]).
const TASK: &str = "Add \"water the plants\" and \"pay the rent\", mark \"pay the rent\" as done, then make sure \"1 item left\" is shown.";

/// The step line the instruction's checkable clause maps to.
const EXPECTATION: &str = "assert screen contains \"1 item left\"";

/// The end states [`TASK`]'s action clauses name (expectations of source `effect`), after it.
const EFFECTS: [&str; 2] = [
    "assert screen contains \"water the plants\"",
    "assert \"pay the rent\" is checked",
];

/// `argus runs steps RUN_ID [EXTRA…]` with the real binary: (exit code, stdout, stderr).
fn cli_steps(farm: &Farm, run: uuid::Uuid, extra: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(argus_tests::procs::argus_bin())
        .args([
            "runs",
            "steps",
            &run.to_string(),
            "--server",
            &farm.base_url,
        ])
        .args(extra)
        .env("ARGUS_API_TOKEN", &farm.admin_token)
        .output()
        .expect("argus runs steps");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Whether `line` holds a word shaped like an element id (`e12`).
fn has_element_id(line: &str) -> bool {
    line.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w.len() > 1 && w.starts_with('e') && w[1..].chars().all(|c| c.is_ascii_digit()))
}

fn script_job(start_url: String, steps: &str) -> Value {
    json!({
        "platform": "web",
        "mode": "script",
        "name": "exported todo flow",
        "start_url": start_url,
        "instruction": steps,
        "timeout_s": 120,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_exported_nl_run_reruns_as_a_script_with_no_model_call_and_fails_on_a_broken_toggle() {
    let site = Site::todomvc().await;
    site.set_app("vanillajs");
    // Every clause of TASK reads (`agent::clause_plan`): Argus plans and runs it without the
    // model, whose script is empty (a request would fail the run).
    let stub = ChatStub::start(vec![]).await;
    let mut opts = FarmOptions::default().allowing(&site.base_url);
    opts.model.endpoints = vec![stub.base_url.clone()];
    let farm = Farm::start(opts).await;

    // 1. The natural-language run (cache off: nothing is replayed later by the job key).
    let t1 = format!("nl-{}", farm.token);
    let run = farm
        .submit(&json!({
            "platform": "web",
            "mode": "llm",
            "name": "water and rent",
            "start_url": site.app_url(&t1),
            "instruction": TASK,
            "model": {"base_url": stub.base_url, "model": "stub"},
            "cache": "off",
            "timeout_s": 300,
        }))
        .await;
    let d = farm.wait_run(run, Duration::from_secs(360)).await;
    assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
    assert!(stub.requests().is_empty(), "the model was asked");
    let lines: Vec<&str> = d.expectations.iter().map(|e| e.line.as_str()).collect();
    assert_eq!(lines, vec![EXPECTATION, EFFECTS[0], EFFECTS[1]]);
    let done = vec![
        Item {
            text: "water the plants".into(),
            completed: false,
        },
        Item {
            text: "pay the rent".into(),
            completed: true,
        },
    ];
    let page = site.state(&t1).expect("the page reported");
    assert_eq!(page.items, done);
    assert_eq!(page.count.as_deref(), Some("1 item left"));

    // 2. Export it with the real CLI; the API serves the same file.
    let (code, file, err) = cli_steps(&farm, run, &[]);
    assert_eq!(code, Some(0), "{err}");
    eprintln!("exported step file:\n{file}");
    let api = farm
        .http
        .get(format!("{}/api/v1/runs/{run}/steps", farm.base_url))
        .send()
        .await
        .expect("GET steps")
        .text()
        .await
        .expect("body");
    assert_eq!(file, api);
    assert!(
        file.starts_with(&format!("# run {run} of job water and rent\n")),
        "{file}"
    );
    let body: Vec<&str> = file
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    for line in &body {
        assert!(!has_element_id(line), "an element id in {line:?}");
        argus_protocol::Script::parse(line).expect("every line parses");
    }
    assert_eq!(
        body[body.len() - 3..],
        [EXPECTATION, EFFECTS[0], EFFECTS[1]],
        "{file}"
    );
    assert!(file.contains("type \"water the plants\" into "), "{file}");
    assert!(file.contains("type \"pay the rent\" into "), "{file}");
    assert!(file.contains("pay the rent"), "{file}");
    // TodoMVC has no secret: nothing to keep as `${secret.…}`, and no placeholder appears.
    assert!(!file.contains("${"), "{file}");
    let model_requests = stub.requests().len();

    // 2b. The Chinese twin, by CLI and API: same header, every step line in Chinese, the
    // same actions line for line.
    let (code, zh, err) = cli_steps(&farm, run, &["--lang", "zh"]);
    assert_eq!(code, Some(0), "{err}");
    eprintln!("exported step file (zh):\n{zh}");
    let api_zh = farm
        .http
        .get(format!("{}/api/v1/runs/{run}/steps?lang=zh", farm.base_url))
        .send()
        .await
        .expect("GET steps?lang=zh")
        .text()
        .await
        .expect("body");
    assert_eq!(zh, api_zh);
    let en_default = farm
        .http
        .get(format!("{}/api/v1/runs/{run}/steps?lang=en", farm.base_url))
        .send()
        .await
        .expect("GET steps?lang=en")
        .text()
        .await
        .expect("body");
    assert_eq!(en_default, file, "lang=en is the default file");
    assert_eq!(zh.lines().next(), file.lines().next(), "the header is kept");
    let zh_body: Vec<&str> = zh
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(zh_body.len(), body.len(), "{zh}");
    for (en_line, zh_line) in body.iter().zip(&zh_body) {
        assert!(!zh_line.is_ascii(), "{zh_line:?} is not written in Chinese");
        let steps = |l: &str| {
            argus_protocol::Script::parse(l)
                .unwrap_or_else(|e| panic!("{l:?} does not parse: {e}"))
                .steps
                .into_iter()
                .map(|s| s.step)
                .collect::<Vec<_>>()
        };
        assert_eq!(steps(zh_line), steps(en_line), "{zh_line:?} vs {en_line:?}");
    }
    assert_eq!(
        zh_body[zh_body.len() - 3],
        "断言 页面包含 \"1 item left\"",
        "{zh}"
    );
    let bad = farm
        .http
        .get(format!("{}/api/v1/runs/{run}/steps?lang=fr", farm.base_url))
        .send()
        .await
        .expect("GET steps?lang=fr");
    assert_eq!(bad.status().as_u16(), 422);
    let envelope: Value = bad.json().await.expect("an envelope");
    assert_eq!(envelope["code"], "invalid_field", "{envelope}");
    assert_eq!(envelope["field"], "lang", "{envelope}");
    let message = envelope["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`en`") && message.contains("`zh`"),
        "{envelope}"
    );
    let (code, _, err) = cli_steps(&farm, run, &["--lang", "fr"]);
    assert_eq!(code, Some(2), "clap refuses the value: {err}");
    assert!(err.contains("zh"), "{err}");

    // 3. The file as a `script` job on a fresh page: it passes, and the model is never asked.
    let t2 = format!("script-{}", farm.token);
    let rerun = farm.submit(&script_job(site.app_url(&t2), &file)).await;
    let d2 = farm.wait_run(rerun, Duration::from_secs(180)).await;
    assert_eq!(d2.status.as_str(), "succeeded", "{:?}", d2.error);
    assert_eq!(
        stub.requests().len(),
        model_requests,
        "the script run asked the model"
    );
    assert_eq!(d2.model_usage().calls, 0);
    assert!(d2.plans().is_empty(), "no plan call");
    let page = site.state(&t2).expect("the rerun's page reported");
    assert_eq!(page.items, done);
    assert_eq!(page.count.as_deref(), Some("1 item left"));

    // 3b. The Chinese file as a `script` job on a fresh page: it passes the same way.
    let t_zh = format!("script-zh-{}", farm.token);
    let rerun_zh = farm.submit(&script_job(site.app_url(&t_zh), &zh)).await;
    let d_zh = farm.wait_run(rerun_zh, Duration::from_secs(180)).await;
    assert_eq!(d_zh.status.as_str(), "succeeded", "{:?}", d_zh.error);
    assert_eq!(
        stub.requests().len(),
        model_requests,
        "the Chinese script run asked the model"
    );
    assert_eq!(d_zh.model_usage().calls, 0);
    let page = site
        .state(&t_zh)
        .expect("the Chinese rerun's page reported");
    assert_eq!(page.items, done);
    assert_eq!(page.count.as_deref(), Some("1 item left"));

    // 4. The same file against a copy of the app whose completion toggle does nothing.
    let t3 = format!("broken-{}", farm.token);
    let broken = farm
        .submit(&script_job(site.toggle_off_url(&t3), &file))
        .await;
    let d3 = farm.wait_run(broken, Duration::from_secs(180)).await;
    assert_eq!(d3.status.as_str(), "failed", "{:?}", d3.error);
    // It fails on the closing assertion, named: every action before it went through (the
    // tap did tick the box — a visible effect — only the app never counted it), and what
    // no longer holds is the claim about the app, which is the expectation.
    let error = d3.error.clone().unwrap_or_default();
    assert!(error.contains(EXPECTATION), "{error}");
    let failed: Vec<&str> = d3
        .steps
        .iter()
        .filter(|s| s.ok == Some(false))
        .map(|s| s.text.as_str())
        .collect();
    assert_eq!(failed, vec![EXPECTATION], "{:?}", d3.steps);
    let acted = d3.steps.iter().filter(|s| s.ok == Some(true)).count();
    // `open` plus every file line before the assertions went through (the two effect
    // lines after it are not reached).
    assert_eq!(acted, 1 + (body.len() - 3), "{:?}", d3.steps);
    assert_eq!(stub.requests().len(), model_requests, "no model call");
    // The page confirms why: both todos there, neither completed, two left.
    let page = site.state(&t3).expect("the broken copy's page reported");
    assert_eq!(
        page.items,
        vec![
            Item {
                text: "water the plants".into(),
                completed: false
            },
            Item {
                text: "pay the rent".into(),
                completed: false
            },
        ]
    );
    assert_eq!(page.count.as_deref(), Some("2 items left"));
}
