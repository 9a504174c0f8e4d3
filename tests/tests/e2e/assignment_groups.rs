//! A claim that hands several runs to one worker publishes them as one message (a group,
//! `argus_protocol::assignment_group`), and the real worker (`argus_worker::service`) runs
//! every one of them: three runs queued before a three-slot worker registers are claimed
//! together, the assignment stream carries them as one array, and each run succeeds on its
//! own slot.

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
    let mut sub = nc
        .subscribe(farm.subjects.assign_all())
        .await
        .expect("subscribe");
    let messages: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
    let log = messages.clone();
    let watch = tokio::spawn(async move {
        while let Some(m) = sub.next().await {
            if let Ok(mut l) = log.lock() {
                l.push(m.payload.to_vec());
            }
        }
    });
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
