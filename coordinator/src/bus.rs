//! The NATS side of the coordinator: it owns the two JetStream streams (assignments, a
//! work queue; run events, kept 7 days) and publishes assignments with `Nats-Msg-Id` = attempt
//! id so a republish is deduplicated. Batches of assignments are pipelined: every message
//! is sent before any acknowledgement is awaited (one round trip per batch, not per run).

use std::time::Duration;

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

/// Publishes one assignment and waits for the stream's acknowledgement.
pub async fn publish_assignment(
    js: &jetstream::Context,
    subjects: &Subjects,
    worker_id: &str,
    a: &Assignment,
) -> anyhow::Result<()> {
    send_assignment(js, subjects, worker_id, a).await?.await?;
    Ok(())
}

/// Publishes a batch of assignments `(worker_id, assignment)` pipelined: all are sent first,
/// then every stream acknowledgement is awaited. Returns one result per input, in order.
pub async fn publish_assignments(
    js: &jetstream::Context,
    subjects: &Subjects,
    batch: &[(String, Assignment)],
) -> Vec<anyhow::Result<()>> {
    let mut pending = Vec::with_capacity(batch.len());
    for (worker_id, a) in batch {
        pending.push(send_assignment(js, subjects, worker_id, a).await);
    }
    let mut out = Vec::with_capacity(batch.len());
    for p in pending {
        out.push(match p {
            Ok(ack) => ack.await.map(|_| ()).map_err(anyhow::Error::from),
            Err(e) => Err(e),
        });
    }
    out
}

async fn send_assignment(
    js: &jetstream::Context,
    subjects: &Subjects,
    worker_id: &str,
    a: &Assignment,
) -> anyhow::Result<jetstream::context::PublishAckFuture> {
    let payload = serde_json::to_vec(a)?;
    let mut headers = async_nats::HeaderMap::new();
    headers.insert("Nats-Msg-Id", a.attempt_id.to_string().as_str());
    Ok(js
        .publish_with_headers(subjects.assign(worker_id), headers, payload.into())
        .await?)
}
