//! The NATS side of the coordinator: it owns the two JetStream streams (assignments, a
//! work queue; run events, kept 7 days) and publishes assignments with `Nats-Msg-Id` = attempt
//! id (a group's: `group:<first attempt id>`) so a republish is deduplicated. A claimed
//! batch's assignments go one message per worker (a group,
//! [`argus_protocol::assignment_group`]), pipelined: every message is sent before any
//! acknowledgement is awaited (one round trip per batch, not per run).

use std::time::Duration;

use argus_protocol::assignment_group as group;
use argus_protocol::subjects::Subjects;
use argus_protocol::Assignment;
use async_nats::jetstream::{self, stream};

/// Creates (or reuses) both streams. Works on NATS 2.9.
pub async fn ensure_streams(
    js: &jetstream::Context,
    subjects: &Subjects,
    replicas: usize,
) -> anyhow::Result<()> {
    js.get_or_create_stream(stream::Config {
        name: subjects.assign_stream(),
        subjects: vec![subjects.assign_all()],
        retention: stream::RetentionPolicy::WorkQueue,
        max_age: Duration::from_secs(24 * 3600),
        duplicate_window: Duration::from_secs(120),
        num_replicas: replicas,
        ..Default::default()
    })
    .await
    .map_err(|e| anyhow::anyhow!("cannot create stream {}: {e}", subjects.assign_stream()))?;
    js.get_or_create_stream(stream::Config {
        name: subjects.events_stream(),
        subjects: vec![subjects.events_all()],
        retention: stream::RetentionPolicy::Limits,
        max_age: Duration::from_secs(7 * 24 * 3600),
        duplicate_window: Duration::from_secs(120),
        num_replicas: replicas,
        ..Default::default()
    })
    .await
    .map_err(|e| anyhow::anyhow!("cannot create stream {}: {e}", subjects.events_stream()))?;
    Ok(())
}

/// Publishes a batch of assignments `(worker_id, assignment)` pipelined: each worker's
/// assignments of the batch go as one message ([`argus_protocol::assignment_group`]: a lone
/// assignment as before, several as a JSON array, split at
/// [`argus_protocol::assignment_group::GROUP_MAX_BYTES`]), every message is sent first,
/// then every stream acknowledgement is awaited. Returns one result per input, in order: a
/// message's result is each of its assignments' (a failed group fails all of its runs).
pub async fn publish_assignments(
    js: &jetstream::Context,
    subjects: &Subjects,
    batch: &[(String, Assignment)],
) -> Vec<anyhow::Result<()>> {
    let mut out: Vec<Option<anyhow::Result<()>>> = (0..batch.len()).map(|_| None).collect();
    // each worker's assignments, in the batch's order (workers in order of first appearance)
    let mut workers: Vec<(&str, Vec<group::Encoded>)> = Vec::new();
    for (i, (worker_id, a)) in batch.iter().enumerate() {
        let bytes = match serde_json::to_vec(a) {
            Ok(b) => b,
            Err(e) => {
                out[i] = Some(Err(e.into()));
                continue;
            }
        };
        match workers.iter_mut().find(|w| w.0 == worker_id.as_str()) {
            Some(w) => w.1.push((i, bytes)),
            None => workers.push((worker_id.as_str(), vec![(i, bytes)])),
        }
    }
    let mut pending = Vec::new();
    for (worker_id, encoded) in workers {
        for (idx, payload) in group::pack(encoded) {
            let Some(&first) = idx.first() else { continue };
            let id = match idx.len() {
                1 => batch[first].1.attempt_id.to_string(),
                _ => group::group_msg_id(batch[first].1.attempt_id),
            };
            let sent = send(js, subjects.assign(worker_id), &id, payload).await;
            pending.push((idx, sent));
        }
    }
    for (idx, sent) in pending {
        let res = match sent {
            Ok(ack) => ack.await.map(|_| ()).map_err(|e| e.to_string()),
            Err(e) => Err(format!("{e:#}")),
        };
        for i in idx {
            out[i] = Some(res.clone().map_err(|e| anyhow::anyhow!(e)));
        }
    }
    out.into_iter()
        .map(|r| r.unwrap_or_else(|| Err(anyhow::anyhow!("assignment not published"))))
        .collect()
}

/// Sends one assignment message with `Nats-Msg-Id` = `id`; the future is its stream
/// acknowledgement.
async fn send(
    js: &jetstream::Context,
    subject: String,
    id: &str,
    payload: Vec<u8>,
) -> anyhow::Result<jetstream::context::PublishAckFuture> {
    let mut headers = async_nats::HeaderMap::new();
    headers.insert("Nats-Msg-Id", id);
    Ok(js
        .publish_with_headers(subject, headers, payload.into())
        .await?)
}
