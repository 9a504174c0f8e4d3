//! A claim that hands several runs to one worker publishes them as one message (a group,
//! `argus_protocol::assignment_group`) when the worker says it reads groups, and the real
//! worker (`argus_worker::service`) runs every one of them: three runs queued before a
//! three-slot worker registers are claimed together, the assignment stream carries them as
//! one array, and each run succeeds on its own slot. A worker whose heartbeat does not say
//! so (one older than groups) gets one assignment a message, as before.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use argus_protocol::assignment_group;
use futures::StreamExt;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_workers_runs_of_one_claim_go_as_one_message_and_all_run() {
    let mut farm = crate::bare_farm().await;
    // every assignment message, as the stream receives it (core NATS sees each publish)
    let nc = async_nats::connect(&farm.services.nats_url)
        .await
        .expect("nats");
    let (messages, watch) = watch(&nc, &farm.subjects.assign_all()).await;
    let mut runs = Vec::new();
    for i in 0..3 {
        let spec = json!({"platform": "web", "name": format!("grouped-{i}"),
                          "instruction": "wait 1ms"});
        runs.push(farm.submit(&spec).await);
    }
    let admin = farm.admin_token.clone();
    let worker = farm.start_worker_with_slots("grouped", &admin, 3).await;
    let mut devices = BTreeSet::new();
    for run in &runs {
        let d = farm.wait_run(*run, Duration::from_secs(60)).await;
        assert_eq!(d.status.as_str(), "succeeded", "run {run}: {:?}", d.error);
        devices.insert(d.device_id.clone().expect("the run names its device"));
    }
    assert_eq!(devices.len(), 3, "each run on its own slot: {devices:?}");
    let seen = messages.lock().map(|m| m.clone()).unwrap_or_default();
    watch.abort();
    let decoded: Vec<Vec<_>> = seen
        .iter()
        .map(|p| {
            assignment_group::decode(p)
                .expect("an assignment message")
                .into_iter()
                .map(|a| a.expect("every element is an assignment"))
                .collect()
        })
        .collect();
    let all: BTreeSet<uuid::Uuid> = decoded.iter().flatten().map(|a| a.run_id).collect();
    assert_eq!(
        all,
        runs.iter().copied().collect(),
        "every run assigned once"
    );
    assert_eq!(
        decoded.iter().map(Vec::len).sum::<usize>(),
        3,
        "no run assigned twice: {decoded:?}"
    );
    assert!(
        decoded.iter().any(|g| g.len() >= 2),
        "the runs of one claim went as one message: {} messages of {:?} runs",
        decoded.len(),
        decoded.iter().map(Vec::len).collect::<Vec<_>>()
    );
    assert!(decoded
        .iter()
        .flatten()
        .all(|a| a.device_id.starts_with(&worker)));
}

/// Every message published on `subject` from now on: `(subject, payload)`.
async fn watch(
    nc: &async_nats::Client,
    subject: &str,
) -> (Arc<Mutex<Vec<Vec<u8>>>>, tokio::task::JoinHandle<()>) {
    let mut sub = nc.subscribe(subject.to_string()).await.expect("subscribe");
    nc.flush()
        .await
        .expect("the subscription reaches the server");
    let messages: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
    let log = messages.clone();
    let task = tokio::spawn(async move {
        while let Some(m) = sub.next().await {
            if let Ok(mut l) = log.lock() {
                l.push(m.payload.to_vec());
            }
        }
    });
    (messages, task)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_that_does_not_say_it_reads_groups_gets_one_run_a_message() {
    let farm = crate::bare_farm().await;
    let nc = async_nats::connect(&farm.services.nats_url)
        .await
        .expect("nats");
    let worker = format!("legacy-{}", farm.token);
    let (messages, watch) = watch(&nc, &farm.subjects.assign(&worker)).await;
    // a heartbeat as a worker older than groups sends it: no `reads_assignment_groups`
    let hb = json!({
        "worker_id": worker, "hostname": "old", "running": [],
        "devices": (0..2).map(|i| json!({
            "device_id": format!("{worker}-{i}"), "platform": "web",
            "labels": {"gen": "old"}, "screen_w_px": 100, "screen_h_px": 100,
        })).collect::<Vec<_>>(),
    });
    let r = argus_tests::authed_client(&farm.admin_token)
        .post(format!("{}/api/v1/workers/heartbeat", farm.base_url))
        .json(&hb)
        .send()
        .await
        .expect("heartbeat");
    assert!(r.status().is_success(), "heartbeat: {}", r.status());
    // two runs stored in one transaction (a suite), so one claim takes both
    let suite = json!({
        "name": "legacy",
        "jobs": [{"platform": "web", "name": "a", "instruction": "wait 1ms"},
                 {"platform": "web", "name": "b", "instruction": "wait 1ms"}],
        "matrix": [{"labels": {"gen": "old"}}],
    });
    let r = farm.post_json("/api/v1/suites", &suite).await;
    assert_eq!(r.status().as_u16(), 201);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let seen = loop {
        let seen = messages.lock().map(|m| m.clone()).unwrap_or_default();
        if seen.len() >= 2 {
            break seen;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "assignments published: {}",
            seen.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    watch.abort();
    assert_eq!(seen.len(), 2, "one message a run");
    for payload in &seen {
        let a: argus_protocol::Assignment =
            serde_json::from_slice(payload).expect("a lone assignment, as an old worker reads it");
        assert!(a.device_id.starts_with(&worker));
    }
    let (reads,): (bool,) =
        sqlx::query_as("select reads_assignment_groups from workers where id = $1")
            .bind(&worker)
            .fetch_one(&farm.pool)
            .await
            .expect("worker row");
    assert!(!reads);
}
