//! Pins learned replay (issue 15) through the whole farm, on real Chromium, against the
//! scripted chat-completions stub (`argus_tests::chat_stub`):
//!
//! - an `llm` TodoMVC job that succeeded leaves a step-language script (targets by role and
//!   name or anchor, never ids); the next run of the same job key replays it with **zero**
//!   model requests and passes, the page's own probe confirming the todo list, every action
//!   marked `source: cache` and badged in the report;
//! - the same key on a changed page (the app under the URL switched to another TodoMVC) makes
//!   the replay hand over at the first line that does not resolve: the stub is asked only
//!   from there (planner told what was replayed), the step says so, and the stored script is
//!   updated from the successful run;
//! - `cache: off` asks the model every time and stores nothing; another team's identical
//!   job never gets the entry; `GET|DELETE /api/v1/jobs/{id}/replay` show and clear it; a
//!   bad `cache` value is a 4xx envelope naming the field.

use std::time::{Duration, Instant};

use argus_tests::chat_stub::{plan, ChatStub, Reply};
use argus_tests::site::{Item, Site, MINIMAL_APP};
use argus_tests::{Farm, FarmOptions};
use serde_json::{json, Value};

fn call(name: &'static str, args: Value) -> Reply {
    Reply::Call(name, args)
}

const FIELD: &str = "{{id:What needs to be done?}}";

/// Its last clause is the run's expectation (`assert screen does not contain "buy milk"`):
/// without one the run would end `unverified` and leave nothing to replay. The todos are not
/// quoted in its action clauses, so Argus reads no step from it itself (`agent::clause_plan`
/// needs to know the items) and the plan is the model's: these tests are about replaying
/// what a model did.
const TASK: &str = "Add the todos buy milk and walk the dog, mark buy milk done and show only the active ones, then make sure \"buy milk\" is no longer listed.";

/// What the model does for [`TASK`] on vanillajs TodoMVC.
fn first_run_script() -> Vec<Reply> {
    vec![
        plan(&[
            "add \"buy milk\"",
            "add \"walk the dog\"",
            "complete \"buy milk\"",
            "show the active ones",
        ]),
        call(
            "type",
            json!({"element": FIELD, "text": "buy milk", "observation": "{{obs}}"}),
        ),
        call("key", json!({"key": "Enter"})),
        call("finish", json!({})),
        call(
            "type",
            json!({"element": FIELD, "text": "walk the dog", "observation": "{{obs}}"}),
        ),
        call("key", json!({"key": "Enter"})),
        call("finish", json!({})),
        // `complete "buy milk"` is read by meaning as `check "buy milk"`: no model call.
        call(
            "tap",
            json!({"element": "{{id:Active}}", "observation": "{{obs}}"}),
        ),
        call("finish", json!({})),
    ]
}

fn job(site: &Site, stub: &ChatStub, token: &str, extra: Value) -> Value {
    let mut j = json!({
        "platform": "web",
        "mode": "llm",
        "start_url": site.app_url(token),
        "instruction": TASK,
        "model": {"base_url": stub.base_url, "model": "stub"},
        "timeout_s": 300,
    });
    if let (Some(o), Some(e)) = (j.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    j
}

async fn get_json(c: &reqwest::Client, url: String) -> (u16, Value) {
    let r = c.get(url).send().await.expect("get");
    let s = r.status().as_u16();
    (s, r.json().await.unwrap_or(Value::Null))
}

async fn job_id(farm: &Farm, run: uuid::Uuid) -> String {
    let (_, v) = get_json(&farm.http, format!("{}/api/v1/runs/{run}", farm.base_url)).await;
    v["job_id"].as_str().unwrap_or_default().to_string()
}

async fn stored(farm: &Farm, c: &reqwest::Client, job: &str) -> (u16, Value) {
    get_json(c, format!("{}/api/v1/jobs/{job}/replay", farm.base_url)).await
}

/// Each action's kind and source, the end-of-run expectation checks left out (Argus's own
/// checks: neither the model's nor the cache's).
fn sources(d: &argus_protocol::RunDetail) -> Vec<(String, Option<&'static str>)> {
    d.steps
        .iter()
        .filter(|s| !s.text.starts_with("expectation "))
        .flat_map(|s| s.actions.iter())
        .map(|a| (a.kind.clone(), a.source.map(|s| s.as_str())))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn second_run_replays_with_no_model_call_and_a_changed_page_hands_over() {
    let site = Site::todomvc().await;
    site.set_app("vanillajs");
    let mut script = first_run_script();
    // The changed page: what the model does from where the replay stops.
    // Its one planned step reads as a check but is no step-language line: it is dropped (the
    // run's checks are its expectations), so no action call follows the plan.
    script.extend([plan(&["check that \"walk the dog\" is still to do"])]);
    let stub = ChatStub::start(script).await;
    let mut opts = FarmOptions::default().allowing(&site.base_url);
    opts.model.endpoints = vec![stub.base_url.clone()];
    let farm = Farm::start(opts).await;

    // 1. The model does the job; the run leaves a script.
    let t1 = format!("r1-{}", farm.token);
    let started = Instant::now();
    let run1 = farm.submit(&job(&site, &stub, &t1, json!({}))).await;
    let d1 = farm.wait_run(run1, Duration::from_secs(360)).await;
    let first_s = started.elapsed().as_secs_f64();
    assert_eq!(d1.status.as_str(), "succeeded", "{:?}", d1.error);
    // Progress checks (auto-answered by the stub) are counted apart from plan + tool calls.
    let after_first = stub.requests_except_checks().len();
    let after_first_all = stub.requests().len();
    assert_eq!(after_first, 9, "plan + 8 tool calls");
    let want = vec![Item {
        text: "walk the dog".into(),
        completed: false,
    }];
    assert_eq!(site.state(&t1).map(|s| s.items), Some(want.clone()));
    assert!(sources(&d1)
        .iter()
        .filter(|(k, _)| k != "open")
        .all(|(_, s)| *s == Some("model")));
    let job1 = job_id(&farm, run1).await;
    let (status, v) = stored(&farm, &farm.http, &job1).await;
    assert_eq!(status, 200, "{v}");
    let learned = v["entry"]["script"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    eprintln!("learned script:\n{learned}");
    assert_eq!(v["entry"]["source_run_id"], json!(run1.to_string()));
    assert_eq!(v["cache"], "read_write");
    assert!(learned.contains(r#"type "buy milk" into "#), "{learned}");
    assert!(learned.contains("press Enter"), "{learned}");
    assert!(learned.contains(r#""Active""#), "{learned}");
    // The todo's checkbox: named by its row's text (`row_label`), or placed by it.
    assert!(
        learned.contains(r#"checkbox "buy milk""#) || learned.contains(r#"of "buy milk""#),
        "{learned}"
    );
    // Targets by role, name and anchor — never an element id or an observation number.
    for line in learned.lines() {
        assert!(
            !line.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
                w.len() > 1 && w.starts_with('e') && w[1..].chars().all(|c| c.is_ascii_digit())
            }),
            "an element id in {line:?}"
        );
        argus_protocol::Script::parse(line).expect("every stored line parses");
    }
    let lines = learned.lines().count();

    // 2. The same job again: replayed, zero model requests, same page state.
    let t2 = format!("r2-{}", farm.token);
    let started = Instant::now();
    let run2 = farm.submit(&job(&site, &stub, &t2, json!({}))).await;
    let d2 = farm.wait_run(run2, Duration::from_secs(360)).await;
    let second_s = started.elapsed().as_secs_f64();
    assert_eq!(d2.status.as_str(), "succeeded", "{:?}", d2.error);
    assert_eq!(
        stub.requests().len(),
        after_first_all,
        "the replay asked the model (progress checks included)"
    );
    assert_eq!(d2.model_usage().calls, 0);
    assert_eq!(site.state(&t2).map(|s| s.items), Some(want));
    let s2 = sources(&d2);
    assert_eq!(
        s2.iter().filter(|(_, s)| *s == Some("cache")).count(),
        lines
    );
    assert!(
        s2.iter().all(|(k, s)| k == "open" || *s == Some("cache")),
        "{s2:?}"
    );
    assert!(d2.plans().is_empty(), "no plan call");
    // The bench line (`bench/replay.sh`): run durations as the worker reported them
    // (started → finished), submit-to-result wall time, and the first run's model calls.
    let run_s = |d: &argus_protocol::RunDetail| d.duration_ms().unwrap_or(0) as f64 / 1000.0;
    eprintln!(
        "replay_first_s={:.2} replay_second_s={:.2} first_model_calls={} second_model_calls={} speedup={:.1} wall_first_s={first_s:.2} wall_second_s={second_s:.2}",
        run_s(&d1),
        run_s(&d2),
        d1.model_usage().calls,
        d2.model_usage().calls,
        run_s(&d1) / run_s(&d2).max(0.001)
    );
    let html = farm
        .http
        .get(format!("{}/runs/{run2}", farm.base_url))
        .send()
        .await
        .expect("report")
        .text()
        .await
        .expect("body");
    assert!(
        html.contains(r#"<span class="c by-cache">cache</span>"#),
        "cache badge"
    );
    assert!(
        html.contains(r#"id="replay-script""#),
        "stored script shown"
    );
    assert!(html.contains("/replay/clear"), "clear button");
    let (_, v) = stored(&farm, &farm.http, &job_id(&farm, run2).await).await;
    assert_eq!(v["entry"]["hits"], 1);

    // 3. Same key, changed page: the app under the URL is now the minimal TodoMVC, which has
    // no filter links. The replay does what still resolves, then hands over.
    site.set_app(MINIMAL_APP);
    let t3 = format!("r3-{}", farm.token);
    let run3 = farm.submit(&job(&site, &stub, &t3, json!({}))).await;
    let d3 = farm.wait_run(run3, Duration::from_secs(360)).await;
    // This app cannot show only the active todos: the job's expectation ("buy milk" no
    // longer listed) does not hold on the final screen, whatever the model's own check said.
    assert_eq!(d3.status.as_str(), "failed", "{:?}", d3.error);
    assert!(
        d3.error
            .as_deref()
            .unwrap_or_default()
            .contains(r#"assert screen does not contain "buy milk""#),
        "{:?}",
        d3.error
    );
    let reqs = stub.requests_except_checks();
    assert_eq!(
        reqs.len(),
        after_first + 1,
        "asked only from the handover on (the plan)"
    );
    assert_eq!(stub.remaining(), 0);
    let planner = argus_tests::chat_stub::last_user_text(&reqs[after_first]);
    assert!(planner.contains("already done by replaying"), "{planner}");
    assert!(planner.contains(r#"type "buy milk" into"#), "{planner}");
    let stopped = d3
        .steps
        .iter()
        .find(|s| s.ok == Some(false))
        .expect("a replay step stopped");
    assert!(stopped.text.starts_with("replay "), "{}", stopped.text);
    assert!(stopped.text.contains("Active"), "{}", stopped.text);
    let err = stopped.error.clone().unwrap_or_default();
    assert!(err.contains("the model takes over"), "{err}");
    assert!(
        d3.steps
            .iter()
            .filter(|s| s.text.starts_with("replay "))
            .take_while(|s| s.ok == Some(true))
            .count()
            >= 4
    );
    // Everything before the handover came from the cache, everything after from the model.
    let s3 = sources(&d3);
    let first_model = s3
        .iter()
        .position(|(_, s)| *s == Some("model"))
        .expect("model");
    assert!(s3[..first_model]
        .iter()
        .all(|(k, s)| k == "open" || *s == Some("cache")));
    assert!(s3[first_model..].iter().all(|(_, s)| *s == Some("model")));
    let state = site.state(&t3).expect("page reported");
    assert_eq!(
        state.items,
        vec![
            Item {
                text: "buy milk".into(),
                completed: true
            },
            Item {
                text: "walk the dog".into(),
                completed: false
            },
        ]
    );
    // A failed run never replaces the stored script.
    let (_, v) = stored(&farm, &farm.http, &job_id(&farm, run3).await).await;
    assert_ne!(v["entry"]["source_run_id"], json!(run3.to_string()));
    assert!(v["entry"]["script"].is_string(), "{v}");

    // 4. DELETE clears it.
    let job3 = job_id(&farm, run3).await;
    let r = farm
        .http
        .delete(format!("{}/api/v1/jobs/{job3}/replay", farm.base_url))
        .send()
        .await
        .expect("delete");
    assert_eq!(r.status().as_u16(), 200);
    let (_, v) = stored(&farm, &farm.http, &job3).await;
    assert!(v["entry"].is_null(), "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cache_off_asks_every_time_and_teams_never_share() {
    let site = Site::todomvc().await;
    site.set_app("vanillajs");
    let one = || {
        vec![
            plan(&["add \"buy milk\""]),
            call(
                "type",
                json!({"element": FIELD, "text": "buy milk", "observation": "{{obs}}"}),
            ),
            call("key", json!({"key": "Enter"})),
            call("finish", json!({})),
        ]
    };
    let stub = ChatStub::start([one(), one(), one(), one()].concat()).await;
    let mut opts = FarmOptions::default().allowing(&site.base_url);
    opts.model.endpoints = vec![stub.base_url.clone()];
    let farm = Farm::start(opts).await;
    let base = farm.base_url.clone();
    let spec = |t: &str, extra: Value| {
        let mut j = job(&site, &stub, t, extra);
        j["instruction"] = json!("Add the todo buy milk and make sure \"1 item left\" is shown.");
        j
    };
    // A bad value is refused, naming the field.
    let (status, body) = farm
        .post_job_raw(spec("x", json!({"cache": "sometimes"})).to_string())
        .await;
    assert!((400..500).contains(&status), "{status} {body}");
    assert!(body.to_string().contains("cache"), "{body}");

    // cache: off — the model both times, nothing stored.
    for n in 0..2 {
        let t = format!("off{n}-{}", farm.token);
        let run = farm.submit(&spec(&t, json!({"cache": "off"}))).await;
        let d = farm.wait_run(run, Duration::from_secs(360)).await;
        assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
        assert_eq!(stub.requests_except_checks().len(), 4 * (n + 1));
        let (_, v) = stored(&farm, &farm.http, &job_id(&farm, run).await).await;
        assert!(v["entry"].is_null(), "{v}");
        assert_eq!(v["cache"], "off");
    }

    // Team qa learns it (read_write by default) ...
    let qa = farm.client_for("qa", "user").await;
    let other = farm.client_for("ops", "user").await;
    let submit = |c: reqwest::Client, body: Value| {
        let base = base.clone();
        async move {
            let r = c
                .post(format!("{base}/api/v1/jobs"))
                .json(&body)
                .send()
                .await
                .expect("submit");
            assert_eq!(r.status().as_u16(), 201);
            let v: Value = r.json().await.expect("json");
            (
                v["job_id"].as_str().unwrap_or_default().to_string(),
                v["run_id"]
                    .as_str()
                    .and_then(|s| s.parse().ok())
                    .expect("run"),
            )
        }
    };
    let (qa_job, run) = submit(qa.clone(), spec(&format!("qa-{}", farm.token), json!({}))).await;
    let d = farm.wait_run(run, Duration::from_secs(360)).await;
    assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
    assert_eq!(stub.requests_except_checks().len(), 12);
    let (status, v) = stored(&farm, &qa, &qa_job).await;
    assert_eq!(status, 200);
    assert!(v["entry"]["script"].as_str().is_some(), "{v}");
    // ... team ops, same instruction, same page: not replayed, asks the model.
    let (ops_job, run) = submit(
        other.clone(),
        spec(&format!("ops-{}", farm.token), json!({})),
    )
    .await;
    let d = farm.wait_run(run, Duration::from_secs(360)).await;
    assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
    assert_eq!(
        stub.requests_except_checks().len(),
        16,
        "another team's entry was replayed"
    );
    assert!(sources(&d)
        .iter()
        .all(|(k, s)| k == "open" || *s == Some("model")));
    // Neither team sees the other's job (nor its entry).
    let (status, _) = stored(&farm, &other, &qa_job).await;
    assert_eq!(status, 404);
    let r = other
        .delete(format!("{base}/api/v1/jobs/{qa_job}/replay"))
        .send()
        .await
        .expect("delete");
    assert_eq!(r.status().as_u16(), 404);
    let (_, v) = stored(&farm, &qa, &qa_job).await;
    assert!(
        v["entry"]["script"].as_str().is_some(),
        "qa's entry is still there"
    );
    let (_, ops_v) = stored(&farm, &other, &ops_job).await;
    assert_eq!(ops_v["key"].as_str().map(str::len), Some(64));
    assert_ne!(ops_v["key"], v["key"], "the team is part of the key");
}
