//! The NATS side of the coordinator: it owns the two JetStream streams (assignments, a
//! work queue; run events, kept 7 days) and publishes assignments with `Nats-Msg-Id` = attempt
//! id (a group's: `group:<first attempt id>`) so a republish is deduplicated. A claimed
//! batch's assignments go one message per worker that reads groups (a group,
//! [`argus_protocol::assignment_group`]; any other worker gets one a message), pipelined:
//! every message is sent before any acknowledgement is awaited (one round trip per batch,
//! not per run).

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

/// One assignment message of a batch, planned by [`plan`].
#[derive(Debug)]
pub struct Planned {
    /// The worker it goes to (its subject token).
    pub worker_id: String,
    /// The batch's indexes of the assignments it carries, in order.
    pub idx: Vec<usize>,
    /// Its `Nats-Msg-Id`: the attempt id of a lone assignment, `group:<first attempt id>`
    /// of a group ([`group::group_msg_id`]).
    pub id: String,
    /// Its bytes: an assignment (a JSON object) or a group (a JSON array).
    pub payload: bytes::Bytes,
}

/// Plans a batch's messages: the assignments of a worker that reads groups (`grouped`)
/// go as groups of at most `max_bytes` ([`group::pack`]), each other assignment as a
/// message of its own; workers in order of first appearance, each worker's assignments in
/// the batch's order. Returns the messages and, per assignment that cannot be encoded as
/// JSON, its index and error.
pub fn plan(
    batch: &[(String, Assignment)],
    grouped: impl Fn(&str) -> bool,
    max_bytes: usize,
) -> (Vec<Planned>, Vec<(usize, serde_json::Error)>) {
    let mut failed = Vec::new();
    // each worker's assignments, encoded, in the batch's order
    let mut workers: Vec<(&str, Vec<group::Encoded>)> = Vec::new();
    let mut slot: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, (worker_id, a)) in batch.iter().enumerate() {
        match serde_json::to_vec(a) {
            Ok(bytes) => {
                let k = *slot.entry(worker_id.as_str()).or_insert_with(|| {
                    workers.push((worker_id.as_str(), Vec::new()));
                    workers.len() - 1
                });
                workers[k].1.push((i, bytes));
            }
            Err(e) => failed.push((i, e)),
        }
    }
    let mut out = Vec::new();
    for (worker_id, encoded) in workers {
        let messages = if grouped(worker_id) {
            group::pack(encoded, max_bytes)
        } else {
            encoded.into_iter().map(|(i, b)| (vec![i], b)).collect()
        };
        for (idx, payload) in messages {
            let Some(&first) = idx.first() else { continue };
            let attempt = batch[first].1.attempt_id;
            let id = match idx.len() {
                1 => attempt.to_string(),
                _ => group::group_msg_id(attempt),
            };
            out.push(Planned {
                worker_id: worker_id.to_string(),
                idx,
                id,
                payload: payload.into(),
            });
        }
    }
    (out, failed)
}

/// Publishes a batch of assignments `(worker_id, assignment)` pipelined: the messages of
/// [`plan`] (a worker that reads groups, `grouped`, gets its assignments of the batch as
/// one message, split at [`group::GROUP_MAX_BYTES`] or half the server's `max_payload`,
/// whichever is less; any other one assignment a message) are all sent first, then every
/// stream acknowledgement is awaited. A message whose acknowledgement failed (a timeout or
/// a stream leader change: it may be stored already) is sent once more, the same bytes
/// with the same `Nats-Msg-Id`, which the stream's duplicate window (120 s) stores at most
/// once; never regrouped. Returns one result per input, in order: a message's result is
/// each of its assignments' (a failed group fails all of its runs).
pub async fn publish_assignments(
    js: &jetstream::Context,
    subjects: &Subjects,
    batch: &[(String, Assignment)],
    grouped: impl Fn(&str) -> bool,
) -> Vec<anyhow::Result<()>> {
    let max_bytes = group::GROUP_MAX_BYTES.min(js_max_payload(js) / 2);
    let (messages, failed) = plan(batch, grouped, max_bytes);
    let mut out: Vec<Option<anyhow::Result<()>>> = (0..batch.len()).map(|_| None).collect();
    for (i, e) in failed {
        out[i] = Some(Err(e.into()));
    }
    let mut pending = Vec::with_capacity(messages.len());
    for m in messages {
        let subject = subjects.assign(&m.worker_id);
        let sent = send(js, subject.clone(), &m.id, m.payload.clone()).await;
        pending.push((m, subject, sent));
    }
    for (m, subject, sent) in pending {
        let acked = acked_or_sent_again(js, subject, &m, sent).await;
        for i in m.idx {
            out[i] = Some(acked.clone().map_err(|e| anyhow::anyhow!(e)));
        }
    }
    out.into_iter()
        .map(|r| r.unwrap_or_else(|| Err(anyhow::anyhow!("assignment not published"))))
        .collect()
}

/// Awaits `sent`'s stream acknowledgement; when it failed (the message may be stored
/// already), sends `m` once more, the same bytes and id, and awaits that one's. Errors: the
/// send's or the last acknowledgement's, as text (shared by every run of the message).
async fn acked_or_sent_again(
    js: &jetstream::Context,
    subject: String,
    m: &Planned,
    sent: anyhow::Result<jetstream::context::PublishAckFuture>,
) -> Result<(), String> {
    let first = match sent {
        Ok(ack) => ack.await,
        Err(e) => return Err(format!("{e:#}")),
    };
    let Err(first) = first else { return Ok(()) };
    tracing::warn!(id = m.id, error = %first, "assignment not acknowledged; sending it again");
    match send(js, subject, &m.id, m.payload.clone()).await {
        Ok(ack) => ack.await.map(|_| ()).map_err(|e| e.to_string()),
        Err(e) => Err(format!("{e:#}")),
    }
}

/// The server's `max_payload`, bytes (1 MiB, the default, when the client has not heard it).
fn js_max_payload(js: &jetstream::Context) -> usize {
    match js.client().server_info().max_payload {
        0 => 1024 * 1024,
        n => n,
    }
}

/// Sends one assignment message with `Nats-Msg-Id` = `id`; the future is its stream
/// acknowledgement.
async fn send(
    js: &jetstream::Context,
    subject: String,
    id: &str,
    payload: bytes::Bytes,
) -> anyhow::Result<jetstream::context::PublishAckFuture> {
    let mut headers = async_nats::HeaderMap::new();
    headers.insert("Nats-Msg-Id", id);
    Ok(js.publish_with_headers(subject, headers, payload).await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_protocol::assignment_group::decode;

    fn assignment(n: u128) -> Assignment {
        Assignment {
            run_id: uuid::Uuid::from_u128(n),
            attempt_id: uuid::Uuid::from_u128(100 + n),
            job_id: uuid::Uuid::from_u128(200 + n),
            team: "qa".into(),
            device_id: format!("d{n}"),
            spec: serde_json::from_value(serde_json::json!({
                "instruction": "wait 1ms", "platform": "web"
            }))
            .expect("spec"),
            lease_expires_at: chrono::DateTime::UNIX_EPOCH,
            replay: None,
        }
    }

    fn runs(p: &Planned) -> Vec<uuid::Uuid> {
        decode(&p.payload)
            .expect("a message")
            .into_iter()
            .map(|a| a.expect("an assignment").run_id)
            .collect()
    }

    #[test]
    fn a_worker_that_reads_groups_gets_one_message_and_any_other_one_a_run() {
        let batch: Vec<(String, Assignment)> = [("w1", 0), ("w2", 1), ("w1", 2), ("w2", 3)]
            .into_iter()
            .map(|(w, n)| (w.to_string(), assignment(n)))
            .collect();
        let (messages, failed) = plan(&batch, |w| w == "w1", group::GROUP_MAX_BYTES);
        assert!(failed.is_empty());
        let shape: Vec<(&str, Vec<usize>, String)> = messages
            .iter()
            .map(|m| (m.worker_id.as_str(), m.idx.clone(), m.id.clone()))
            .collect();
        let attempt = |n: u128| uuid::Uuid::from_u128(100 + n);
        assert_eq!(
            shape,
            vec![
                ("w1", vec![0, 2], group::group_msg_id(attempt(0))),
                ("w2", vec![1], attempt(1).to_string()),
                ("w2", vec![3], attempt(3).to_string()),
            ]
        );
        assert_eq!(
            runs(&messages[0]),
            vec![batch[0].1.run_id, batch[2].1.run_id]
        );
        // a lone assignment is the object every worker reads, not an array of one
        let lone: Assignment = serde_json::from_slice(&messages[1].payload).expect("object");
        assert_eq!(lone, batch[1].1);
    }

    #[test]
    fn a_group_is_split_at_the_cap() {
        let batch: Vec<(String, Assignment)> =
            (0..5).map(|n| ("w1".to_string(), assignment(n))).collect();
        let one = serde_json::to_vec(&batch[0].1).expect("json").len();
        let (messages, _) = plan(&batch, |_| true, 2 * one + 1);
        let idx: Vec<Vec<usize>> = messages.iter().map(|m| m.idx.clone()).collect();
        assert_eq!(idx, vec![vec![0, 1], vec![2, 3], vec![4]]);
        assert_eq!(messages[2].id, batch[4].1.attempt_id.to_string());
        for m in &messages {
            assert_eq!(runs(m).len(), m.idx.len());
        }
    }
}
