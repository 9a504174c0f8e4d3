//! Pins where a `${secret.NAME}` chosen by the model (or a replay) may be resolved (issue 24,
//! item 10): only when the job's own text names that secret, and only when typing into a
//! field. One farm (real Chromium, the sign-in page of the test site), one scripted model
//! stub per case:
//! - the model types `${secret.PW}` although the job never names it: the run fails naming
//!   `PW`, the page receives nothing, and the value is in no event and not in the report;
//! - the job names `${secret.PW}` and the model types it into the password field: the page
//!   receives the value;
//! - the job names `${secret.PW}` and the model plans to open a URL carrying it: refused,
//!   the run fails naming `PW` before the page is opened with it;
//! - the job's own script types `${secret.PW}` into the page's search box: refused for
//!   every run (a query ends up in URLs and logs), the run fails naming `PW` and the box.

use std::time::Duration;

use argus_tests::chat_stub::{plan, ChatStub, Reply};
use argus_tests::site::Site;
use argus_tests::{Farm, FarmOptions};
use futures::StreamExt;
use serde_json::{json, Value};

fn call(name: &'static str, args: Value) -> Reply {
    Reply::Call(name, args)
}

/// The sign-in calls: user name, then `password` into the password field, then the button.
fn sign_in(password: &str) -> Vec<Reply> {
    vec![
        plan(&["sign in as alice"]),
        call(
            "type",
            json!({"element": "{{id:Username}}", "text": "alice", "observation": "{{obs}}"}),
        ),
        call(
            "type",
            json!({"element": "{{id:Password}}", "text": password, "observation": "{{obs}}"}),
        ),
        call(
            "tap",
            json!({"element": "{{id:Sign in}}", "observation": "{{obs}}"}),
        ),
        call("finish", json!({})),
    ]
}

/// Every payload of the farm's events stream, as text.
async fn stream_text(farm: &Farm) -> String {
    let nc = async_nats::connect(&farm.services.nats_url)
        .await
        .expect("nats");
    let js = async_nats::jetstream::new(nc);
    let stream = js
        .get_stream(farm.subjects.events_stream())
        .await
        .expect("stream");
    let consumer = stream
        .create_consumer(async_nats::jetstream::consumer::pull::OrderedConfig::default())
        .await
        .expect("ordered consumer");
    let pending = consumer.cached_info().num_pending;
    let mut msgs = consumer.messages().await.expect("messages");
    let mut out = String::new();
    for _ in 0..pending {
        match tokio::time::timeout(Duration::from_secs(5), msgs.next()).await {
            Ok(Some(Ok(m))) => out.push_str(&String::from_utf8_lossy(&m.payload)),
            _ => break,
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn model_chosen_secrets_only_where_the_job_names_them() {
    let secret = format!("S3cr3t-{}", uuid::Uuid::new_v4().simple());
    let site = Site::todomvc().await;
    let unnamed = ChatStub::start(sign_in("${secret.PW}")).await;
    let named = ChatStub::start(sign_in("${secret.PW}")).await;
    let leak_url = format!("{}/login.html?q=${{secret.PW}}", site.base_url);
    let opened = ChatStub::start(vec![
        plan(&[&format!("open {leak_url}")]),
        call("open", json!({"url": leak_url})),
        call("finish", json!({})),
    ])
    .await;
    let mut opts = FarmOptions::default().allowing(&site.base_url);
    opts.model.env_secrets = vec![("PW".into(), secret.clone())];
    opts.model.endpoints = vec![
        unnamed.base_url.clone(),
        named.base_url.clone(),
        opened.base_url.clone(),
    ];
    let farm = Farm::start(opts).await;
    let login = format!("{}/login.html", site.base_url);
    let job = |instruction: &str, stub: &ChatStub| {
        json!({"platform": "web", "mode": "llm", "start_url": login,
            "instruction": instruction, "model": {"base_url": stub.base_url},
            "timeout_s": 90})
    };

    // 1. The job never names PW: the model's `type "${secret.PW}"` is refused.
    let run = farm.submit(&job("Sign in as alice.", &unnamed)).await;
    let d = farm.wait_run(run, Duration::from_secs(150)).await;
    assert_eq!(
        d.status.as_str(),
        "failed",
        "a secret the job never names was typed: {:?}",
        d.error
    );
    let e = d.error.clone().unwrap_or_default();
    assert!(
        e.contains("\"PW\"") && e.contains("not named"),
        "the error names the secret and why: {e}"
    );
    assert!(!e.contains(&secret), "the error holds the value: {e}");
    assert!(site.logins().is_empty(), "the page received a sign-in");
    let html = farm
        .http
        .get(format!("{}/runs/{run}", farm.base_url))
        .send()
        .await
        .expect("report")
        .text()
        .await
        .expect("body");
    assert!(html.contains("PW"), "the report says which secret");
    assert!(!html.contains(&secret), "the report holds the value");
    assert!(
        !stream_text(&farm).await.contains(&secret),
        "an event holds the value"
    );

    // 2. The job names PW: the model may type it into the password field.
    let run = farm
        .submit(&job(
            "Sign in as alice with the password ${secret.PW}.",
            &named,
        ))
        .await;
    let d = farm.wait_run(run, Duration::from_secs(150)).await;
    assert_ne!(d.status.as_str(), "failed", "{:?}", d.error);
    assert_eq!(
        site.logins(),
        vec![json!({"user": "alice", "password": secret})],
        "the named secret was typed"
    );

    // 3. The job names PW, the model puts it into a URL: refused.
    let run = farm
        .submit(&job(
            "Sign in as alice with the password ${secret.PW}.",
            &opened,
        ))
        .await;
    let d = farm.wait_run(run, Duration::from_secs(150)).await;
    assert_eq!(
        d.status.as_str(),
        "failed",
        "a secret went into a URL: {:?}",
        d.error
    );
    let e = d.error.clone().unwrap_or_default();
    assert!(
        e.contains("\"PW\"") && e.contains("only be typed"),
        "the error names the secret and the rule: {e}"
    );
    assert!(
        !d.steps
            .iter()
            .flat_map(|s| s.actions.iter())
            .any(|a| a.kind == "open" && a.detail.contains("secret")),
        "the URL with the secret was opened: {:#?}",
        d.steps
    );
    assert!(!stream_text(&farm).await.contains(&secret));

    // 4. The job's own script types PW into the search box: refused there, nothing typed.
    let run = farm
        .submit(&json!({"platform": "web", "start_url": login,
            "instruction": "type \"${secret.PW}\" into \"Search\"\n\
                            type \"alice\" into \"Username\"",
            "timeout_s": 60}))
        .await;
    let d = farm.wait_run(run, Duration::from_secs(120)).await;
    assert_eq!(
        d.status.as_str(),
        "failed",
        "a secret was typed into a search box: {:?}",
        d.error
    );
    let e = d.error.clone().unwrap_or_default();
    assert!(
        e.contains("\"PW\"") && e.contains("search box"),
        "the error names the secret and the search box: {e}"
    );
    assert!(
        !d.steps
            .iter()
            .flat_map(|s| s.actions.iter())
            .any(|a| a.detail.contains("Username")),
        "the run went on after the refusal: {:#?}",
        d.steps
    );
    assert!(!stream_text(&farm).await.contains(&secret));
}
