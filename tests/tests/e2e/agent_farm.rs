//! Pins the agent loop through the whole farm (HTTP → PostgreSQL → NATS → worker on real
//! Chromium → S3 → report) against a **scripted stub** chat-completions endpoint
//! (`argus_tests::chat_stub`: the real wire format with fixed answers, not a model):
//! the TodoMVC job written as one sentence passes in `llm` mode, confirmed by the page's own
//! probe, with a report showing the plan, token counts and dispositions; and a job typing
//! `${secret.PASSWORD}` leaves no trace of the value in database rows, S3 objects, the NATS
//! event stream, the prompts or the captured logs.

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use argus_tests::chat_stub::{plan, ChatStub, Reply};
use argus_tests::site::{Item, Site};
use argus_tests::{Farm, FarmOptions};
use serde_json::json;

/// Everything logged in this test process (all tests share it).
fn captured_logs() -> Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let w = buf.clone();
        let _ = tracing_subscriber::fmt()
            .with_env_filter("debug,h2=info,hyper=info,aws=info,sqlx=info,async_nats=info,rustls=info,tower=info,reqwest=info")
            .with_writer(move || LogWriter(w.clone()))
            .try_init();
        buf
    })
    .clone()
}

struct LogWriter(Arc<Mutex<Vec<u8>>>);
impl Write for LogWriter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut v) = self.0.lock() {
            v.extend_from_slice(b);
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn call(name: &'static str, args: serde_json::Value) -> Reply {
    Reply::Call(name, args)
}

/// Every clause of this sentence reads (`agent::clause_plan`): Argus plans it without the
/// model ("clear the completed ones" deletes the one todo the plan ticked). The stub's script
/// is empty: a request to it would fail the run.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn todomvc_sentence_passes_in_llm_mode() {
    let site = Site::todomvc().await;
    let stub = ChatStub::start(vec![]).await;
    let mut opts = FarmOptions::default().allowing(&site.base_url);
    opts.model.endpoints = vec![stub.base_url.clone()];
    let farm = Farm::start(opts).await;
    let token = format!("llm-{}", farm.token);
    let run_id = farm
        .submit(&json!({
            "platform": "web",
            "mode": "llm",
            "start_url": site.example_url("vanillajs", &token),
            "instruction": "Add the todos \"buy milk\" and \"walk the dog\", mark \"buy milk\" done, clear the completed ones and check that only \"walk the dog\" is left.",
            "model": {"base_url": stub.base_url, "model": "stub"},
            "timeout_s": 120,
        }))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
    assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
    assert!(stub.requests().is_empty(), "the model was asked");
    let state = site.state(&token).expect("page reported");
    assert_eq!(
        state.items,
        vec![Item {
            text: "walk the dog".into(),
            completed: false
        }]
    );
    // Steps: open, plan, the six planned steps (two typings each with Enter, the tick, the
    // clearing), then the clause's expectation ("check that only \"walk the dog\" is left")
    // and the end state the read plan leaves ("buy milk" cleared away) checked on the final
    // screen.
    let texts: Vec<&str> = d.steps.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(d.steps.len(), 10, "{texts:?}");
    assert_eq!(d.expectations.len(), 2, "{:?}", d.expectations);
    assert!(
        d.expectations
            .iter()
            .any(|e| e.line == "assert screen does not contain \"buy milk\""),
        "{:?}",
        d.expectations
    );
    assert_eq!(d.plans().len(), 1);
    // "clear the completed ones": the plan knows which todo is done by then.
    assert!(
        texts.contains(&"tap \"Delete\" in the row of \"buy milk\""),
        "{texts:?}"
    );
    let html = farm.report_html(run_id).await;
    assert!(
        html.contains("id=\"plan-1\"") && html.contains("clear the completed ones"),
        "plan shown"
    );
    assert!(
        html.contains("read from the instruction"),
        "the plan's source shown"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn secret_leaves_no_trace() {
    let logs = captured_logs();
    let secret = format!("Tr0ub4dor-{}", uuid::Uuid::new_v4().simple());
    let mut opts = FarmOptions::default();
    opts.model.env_secrets = vec![("PASSWORD".into(), secret.clone())];
    let site = Site::todomvc().await;
    let stub = ChatStub::start(vec![
        plan(&["sign in as alice"]),
        call("type", json!({"element": "{{id:Username}}", "text": "alice", "observation": "{{obs}}"})),
        call("type", json!({"element": "{{id:Password}}", "text": "${secret.PASSWORD}", "observation": "{{obs}}"})),
        call("tap", json!({"element": "{{id:Sign in}}", "observation": "{{obs}}"})),
        call("assert_contains", json!({"text": "Welcome, alice"})),
        call("finish", json!({})),
    ])
    .await;
    let mut opts = opts.allowing(&site.base_url);
    opts.model.endpoints = vec![stub.base_url.clone()];
    let farm = Farm::start(opts).await;
    let run_id = farm
        .submit(&json!({
            "platform": "web", "mode": "llm",
            "start_url": format!("{}/login.html", site.base_url),
            "instruction": "Sign in as alice with the password ${secret.PASSWORD}.",
            "model": {"base_url": stub.base_url},
            "timeout_s": 120,
        }))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
    // Nothing checkable in the instruction: the run is done but unverified.
    assert_eq!(d.status.as_str(), "unverified", "{:?}", d.error);
    // The value really was typed: the page got it.
    assert_eq!(
        site.logins(),
        vec![json!({"user": "alice", "password": secret})]
    );
    let needle = secret.as_bytes();
    let has = |hay: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    // Prompts.
    for r in stub.requests() {
        assert!(!has(r.to_string().as_bytes()), "a prompt holds the secret");
    }
    assert!(stub
        .requests()
        .iter()
        .any(|r| r.to_string().contains("${secret.PASSWORD}")));
    // Every row of every table.
    let tables: Vec<(String,)> = sqlx::query_as(
        "select table_name::text from information_schema.tables where table_schema = 'public'",
    )
    .fetch_all(&farm.pool)
    .await
    .expect("tables");
    for (t,) in &tables {
        let q = format!("select coalesce(string_agg(x::text, E'\\n'), '') from \"{t}\" x");
        let (dump,): (String,) = sqlx::query_as(&q)
            .fetch_one(&farm.pool)
            .await
            .expect("dump");
        assert!(!has(dump.as_bytes()), "table {t} holds the secret");
    }
    // Every S3 object (and the password field is blanked in the screenshots).
    let list = farm
        .s3_client
        .list_objects_v2()
        .bucket(&farm.s3.bucket)
        .send()
        .await
        .expect("list");
    let mut n = 0;
    for o in list.contents() {
        let key = o.key().unwrap_or_default();
        let bytes = farm.s3_get(key).await.expect("object");
        assert!(!has(&bytes), "object {key} holds the secret");
        n += 1;
    }
    assert!(n >= 4, "screenshots were uploaded");
    // Every message of the run's NATS event stream.
    let nc = async_nats::connect(&farm.services.nats_url)
        .await
        .expect("nats");
    let js = async_nats::jetstream::new(nc);
    let mut stream = js
        .get_stream(farm.subjects.events_stream())
        .await
        .expect("stream");
    let last = stream.info().await.expect("info").state.last_sequence;
    assert!(last > 0);
    for seq in 1..=last {
        if let Ok(m) = stream.get_raw_message(seq).await {
            assert!(!has(&m.payload), "event {seq} holds the secret");
        }
    }
    // Logs captured from this process (coordinator and worker run in it).
    let logs = logs.lock().expect("logs").clone();
    assert!(!logs.is_empty(), "logs were captured");
    assert!(!has(&logs), "the logs hold the secret");
}

/// The run's only check is a count, which would hold with the wrong todo ticked; the model's
/// plan (scripted here) ticks the wrong one. Argus reads this instruction itself
/// (`agent::clause_plan`: two adds and `tick off "walk the dog"`), so the model is not asked
/// for a plan and the right todo is ticked; the effect the clause names (`assert "walk the
/// dog" is checked`) is among the run's expectations and holds. The page's own probe is the
/// independent record of which todo was ticked. (A wrong tick by the model — in a re-plan or
/// a free step — fails on that effect: `verdict::decide`'s tests.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_wrong_todo_in_the_models_plan_is_never_ticked_when_the_clauses_read() {
    let site = Site::todomvc().await;
    let field = "\"What needs to be done?\"";
    let stub = ChatStub::start(vec![plan(&[
        &format!("type 'buy milk' into {field}"),
        "press Enter",
        &format!("type 'walk the dog' into {field}"),
        "press Enter",
        "check \"buy milk\"",
    ])])
    .await;
    let mut opts = FarmOptions::default().allowing(&site.base_url);
    opts.model.endpoints = vec![stub.base_url.clone()];
    let farm = Farm::start(opts).await;
    let instruction = "Add \"buy milk\" and \"walk the dog\", tick off \"walk the dog\", then verify that the footer says 1 item left.";
    let token = format!("effect-{}", farm.token);
    let d = llm_on_todomvc(&farm, &site, &stub, &token, instruction).await;
    let page = site.state(&token).expect("page reported");
    assert_eq!(
        page.items,
        vec![
            Item {
                text: "buy milk".into(),
                completed: false
            },
            Item {
                text: "walk the dog".into(),
                completed: true
            },
        ],
        "the right todo is ticked"
    );
    assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
    assert!(stub.requests().is_empty(), "the model was asked for a plan");
    let lines: Vec<(String, String)> = d
        .expectations
        .iter()
        .map(|e| (e.line.clone(), format!("{:?}", e.source)))
        .collect();
    assert!(
        lines.contains(&(
            "assert screen contains \"1 item left\"".into(),
            "Instruction".into()
        )),
        "{lines:?}"
    );
    assert!(
        lines.contains(&("assert \"walk the dog\" is checked".into(), "Effect".into())),
        "{lines:?}"
    );
}

/// "Complete all" is one planned step, `check every item`, that Argus walks itself on the
/// screen's toggles (no model call): on real TodoMVC every todo ends completed, by the page's
/// probe; then `uncheck every item` reopens them all. Argus reads "tick them all off" /
/// "reopen every one" from the instruction; "put three chores on the list" names no chore, so
/// it is a free step the model acts out (scripted: three typings, each with Enter) — the
/// report then shows the model's usage and its reflections.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn check_all_ticks_every_todo_and_uncheck_all_reopens_them() {
    let site = Site::todomvc().await;
    let field = "{{id:What needs to be done?}}";
    let mut script = Vec::new();
    for _case in 0..2 {
        for t in ["oil the hinges", "sweep the yard", "mend the fence"] {
            script.push(Reply::Call(
                "type",
                json!({"element": field, "text": t, "observation": "{{obs}}"}),
            ));
            script.push(Reply::Call("key", json!({"key": "Enter"})));
        }
        script.push(Reply::Call("finish", json!({})));
    }
    let stub = ChatStub::start(script).await;
    let mut opts = FarmOptions::default().allowing(&site.base_url);
    opts.model.endpoints = vec![stub.base_url.clone()];
    let farm = Farm::start(opts).await;
    let cases = [
        ("Put three chores on the list, then tick them all off at once and verify that the footer says 0 items left.", true, "0 items left"),
        ("Put three chores on the list, tick them all off, reopen every one, and verify that the footer says 3 items left.", false, "3 items left"),
    ];
    for (k, (instruction, done, count)) in cases.into_iter().enumerate() {
        let token = format!("all{k}-{}", farm.token);
        let d = llm_on_todomvc(&farm, &site, &stub, &token, instruction).await;
        assert_eq!(
            d.status.as_str(),
            "succeeded",
            "{instruction}: {:?}",
            d.error
        );
        let page = site.state(&token).expect("page reported");
        assert_eq!(page.items.len(), 3, "{:?}", page.items);
        assert!(
            page.items.iter().all(|i| i.completed == done),
            "{instruction}: {:?}",
            page.items
        );
        assert_eq!(page.count.as_deref(), Some(count));
        let every = d
            .steps
            .iter()
            .find(|s| s.text == "check every item")
            .expect("the check_all step");
        assert!(!every.actions.is_empty(), "it set at least one toggle");
        let html = farm.report_html(d.run_id).await;
        assert!(
            html.contains("class=\"tokens\">prompt "),
            "token counts shown"
        );
        assert!(html.contains("model calls"), "run-wide usage shown");
        assert!(html.contains("class=\"reflection\">A"), "reflections shown");
    }
    assert_eq!(stub.remaining(), 0);
}

/// Runs `instruction` as an `llm` job (replay cache off) on vanillajs TodoMVC under `token`
/// against `stub`; returns the finished run.
async fn llm_on_todomvc(
    farm: &Farm,
    site: &Site,
    stub: &ChatStub,
    token: &str,
    instruction: &str,
) -> argus_protocol::RunDetail {
    let run_id = farm
        .submit(&json!({
            "platform": "web", "mode": "llm",
            "start_url": site.example_url("vanillajs", token),
            "instruction": instruction,
            "model": {"base_url": stub.base_url, "model": "stub"},
            "cache": "off",
            "timeout_s": 120,
        }))
        .await;
    farm.wait_run(run_id, Duration::from_secs(180)).await
}

/// A check clause that counts list items ("make sure exactly one is ticked and that there
/// are three entries") becomes `assert N items …` expectations, checked on real TodoMVC: the
/// right counts hold but earn no pass alone (`unverified`), with the counter's text as well
/// they do (`succeeded`), a wrong count fails naming it and the count seen. The select-all
/// toggle ("Mark all as complete") is no item. Argus reads every clause itself: no model call.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_clause_that_counts_items_is_checked_on_the_list() {
    let site = Site::todomvc().await;
    let stub = ChatStub::start(Vec::new()).await;
    let mut opts = FarmOptions::default().allowing(&site.base_url);
    opts.model.endpoints = vec![stub.base_url.clone()];
    let farm = Farm::start(opts).await;
    let add = "Add \"oil the hinges\", \"sweep the yard\" and \"mend the fence\", tick off \"sweep the yard\",";
    let right = format!(
        "{add} then make sure exactly one item is ticked and that there are three entries."
    );
    let d = llm_on_todomvc(
        &farm,
        &site,
        &stub,
        &format!("count-ok-{}", farm.token),
        &right,
    )
    .await;
    let lines: Vec<&str> = d.expectations.iter().map(|e| e.line.as_str()).collect();
    assert!(lines.contains(&"assert 1 item is checked"), "{lines:?}");
    assert!(lines.contains(&"assert 3 items are listed"), "{lines:?}");
    // Counts held, but the right count holds with the wrong items too: no pass on them alone.
    assert_eq!(d.status.as_str(), "unverified", "{:?}", d.error);
    let named = format!(
        "{add} then make sure exactly one item is ticked and that the footer says 2 items left."
    );
    let d = llm_on_todomvc(
        &farm,
        &site,
        &stub,
        &format!("count-named-{}", farm.token),
        &named,
    )
    .await;
    assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
    let wrong = format!("{add} then double-check that two items are ticked.");
    let token = format!("count-bad-{}", farm.token);
    let d = llm_on_todomvc(&farm, &site, &stub, &token, &wrong).await;
    let page = site.state(&token).expect("page reported");
    assert_eq!(page.items.iter().filter(|i| i.completed).count(), 1);
    assert_eq!(d.status.as_str(), "failed", "{:?}", d.error);
    let why = d.error.clone().unwrap_or_default();
    assert!(
        why.contains("assert 2 items are checked") && why.contains("1 list item checked (of 3)"),
        "{why}"
    );
    assert!(
        stub.requests_except_checks().is_empty(),
        "the model was asked for more than the judge"
    );
}

/// A clause the reader takes for a description but that brings a new text ("so label it
/// 'X' for us": a verb outside its lexicon, a pronoun) is asked of the model on its own —
/// the list as the plan leaves it by then, the clause said before it, the clause — and the
/// answer, an operation on an item named as listed, runs as step-language lines (a rename in
/// place, on real TodoMVC). The page's own probe says what the todo is called at the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_clause_the_reader_cannot_read_is_mapped_by_the_model_alone() {
    let site = Site::todomvc().await;
    let answer =
        json!({"steps": [{"do": "rename", "item": "oil the hinges", "text": "check the hinges"}]});
    let stub = ChatStub::start(vec![Reply::Content(answer.to_string())]).await;
    let mut opts = FarmOptions::default().allowing(&site.base_url);
    opts.model.endpoints = vec![stub.base_url.clone()];
    let farm = Farm::start(opts).await;
    let instruction = "Add 'oil the hinges' and 'mend the fence'. The hinges may be fine already, so label it 'check the hinges' for us.";
    let token = format!("ask-{}", farm.token);
    let d = llm_on_todomvc(&farm, &site, &stub, &token, instruction).await;
    let page = site.state(&token).expect("page reported");
    let texts: Vec<&str> = page.items.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(
        texts,
        ["check the hinges", "mend the fence"],
        "{:?}",
        d.error
    );
    let asked = stub.requests();
    let first = asked.first().expect("the model was asked").to_string();
    assert!(
        first.contains("label it 'check the hinges' for us»"),
        "{first}"
    );
    assert!(first.contains("- [ ] oil the hinges"), "{first}");
    assert!(
        first.contains("«The hinges may be fine already»"),
        "{first}"
    );
}
