//! One publisher for every run of a worker: the events its runs emit while an earlier
//! publish awaits JetStream's acknowledgement go out together, as one message.
//!
//! A lone event is published as it always was (one [`RunEvent`] as JSON on its run's
//! subject, `Nats-Msg-Id` = [`RunEvent::msg_id`]). Events that queued up meanwhile (other
//! runs', since each run awaits its own publish before emitting again) go as one message
//! holding a JSON array of them, on the first one's run subject, `Nats-Msg-Id` =
//! `group:<uuid>` (fresh for each group, kept across its retries); the coordinator applies
//! each event exactly once by its `(run_id, attempt_id, seq)` row whatever message brought
//! it (`argus_coordinator::ingest::decode_group`). A quiet worker
//! therefore sends exactly what it did before; a busy one (many devices ending runs at
//! once) sends fewer, larger messages (`dispatch-bench --dispatch-only 1000`, alternating
//! runs against the commit before: nats-server 52–60 µs of CPU a job against 86–97, the
//! coordinator 27–28 against 34–38; README). A group holds at most [`GROUP_EVENTS`] events
//! and [`GROUP_BYTES`] of JSON. A failed publish is tried again as the same message (so the
//! stream's duplicate window drops a repeat of one it had stored), on the schedule a run's
//! [`super::events::Emitter`] used for its own events; when every try failed, every event
//! of the group fails, as a lone event's publish did.

use argus_protocol::subjects::Subjects;
use argus_protocol::RunEvent;
use async_trait::async_trait;
use tokio::sync::{mpsc, oneshot};

use super::events::{retry_delays, EventSink, PUBLISH_ATTEMPTS};

/// Most events in one message.
pub const GROUP_EVENTS: usize = 256;

/// Most bytes of JSON in one grouped message (JetStream's default largest message is 1 MiB);
/// an event larger than this still goes, alone.
pub const GROUP_BYTES: usize = 256 * 1024;

/// Events waiting for the publisher before an emitting run waits too.
const QUEUE: usize = 4096;

type Pending = (RunEvent, oneshot::Sender<Result<(), String>>);

/// An [`EventSink`] shared by a worker's runs that groups what queues up while a publish is
/// in flight. Publishing ends when every clone is dropped.
pub struct GroupingSink {
    tx: mpsc::Sender<Pending>,
}

impl GroupingSink {
    /// Starts the publisher task (needs a Tokio runtime).
    pub fn new(js: async_nats::jetstream::Context, subjects: Subjects) -> GroupingSink {
        let (tx, rx) = mpsc::channel(QUEUE);
        tokio::spawn(publish_loop(js, subjects, rx));
        GroupingSink { tx }
    }
}

#[async_trait]
impl EventSink for GroupingSink {
    async fn publish(&self, ev: &RunEvent) -> Result<(), String> {
        let (done, result) = oneshot::channel();
        self.tx
            .send((ev.clone(), done))
            .await
            .map_err(|_| "the event publisher stopped".to_string())?;
        result
            .await
            .map_err(|_| "the event publisher stopped".to_string())?
    }

    /// A group is retried here, as the same message; a run's emitter tries once.
    fn retries_itself(&self) -> bool {
        true
    }
}

async fn publish_loop(
    js: async_nats::jetstream::Context,
    subjects: Subjects,
    mut rx: mpsc::Receiver<Pending>,
) {
    let mut held: Option<(Pending, Vec<u8>)> = None;
    loop {
        let first = match held.take() {
            Some(p) => p,
            None => match rx.recv().await {
                Some(p) => match encoded(p) {
                    Some(p) => p,
                    None => continue,
                },
                None => return,
            },
        };
        let mut group = vec![first];
        let mut bytes = group[0].1.len();
        while group.len() < GROUP_EVENTS {
            let Ok(p) = rx.try_recv() else { break };
            let Some(p) = encoded(p) else { continue };
            if bytes + p.1.len() + 1 > GROUP_BYTES {
                held = Some(p);
                break;
            }
            bytes += p.1.len() + 1;
            group.push(p);
        }
        let result = send_retrying(&js, &subjects, &group).await;
        for ((_, done), _) in group {
            // a run that stopped waiting (its task ended) needs no answer
            let _ = done.send(result.clone());
        }
    }
}

/// The event with its JSON; `None` when it cannot be encoded, after failing that event
/// alone (its run's emitter retries it and gives up as for any failed publish).
fn encoded(p: Pending) -> Option<(Pending, Vec<u8>)> {
    match serde_json::to_vec(&p.0) {
        Ok(json) => Some((p, json)),
        Err(e) => {
            let _ =
                p.1.send(Err(format!("the event cannot be encoded as JSON: {e}")));
            None
        }
    }
}

/// Publishes a group as [`send`] does, the same message again (the same `Nats-Msg-Id`, so
/// the stream keeps it once) after each failure, [`PUBLISH_ATTEMPTS`] tries on the
/// [`retry_delays`] schedule (the runs' emitters, told by [`EventSink::retries_itself`],
/// do not retry on top).
async fn send_retrying(
    js: &async_nats::jetstream::Context,
    subjects: &Subjects,
    group: &[(Pending, Vec<u8>)],
) -> Result<(), String> {
    let Some(((first, _), _)) = group.first() else {
        return Ok(());
    };
    let id = if group.len() == 1 {
        first.msg_id()
    } else {
        format!("group:{}", uuid::Uuid::new_v4())
    };
    let mut last = String::new();
    for delay in retry_delays().take(PUBLISH_ATTEMPTS as usize) {
        match send(js, subjects, group, &id).await {
            Ok(()) => return Ok(()),
            Err(e) => {
                tracing::warn!(events = group.len(), error = %e, "event publish failed; retrying");
                last = e;
                tokio::time::sleep(delay).await;
            }
        }
    }
    Err(last)
}

/// Publishes a group with `Nats-Msg-Id` `id` and awaits its acknowledgement: a lone event
/// as itself, more as one JSON array.
async fn send(
    js: &async_nats::jetstream::Context,
    subjects: &Subjects,
    group: &[(Pending, Vec<u8>)],
    id: &str,
) -> Result<(), String> {
    let Some(((first, _), first_json)) = group.first() else {
        return Ok(());
    };
    let subject = subjects.events(&first.run_id);
    let mut headers = async_nats::HeaderMap::new();
    headers.insert("Nats-Msg-Id", id);
    let payload = if group.len() == 1 {
        first_json.clone()
    } else {
        array(group)
    };
    let ack = js
        .publish_with_headers(subject, headers, payload.into())
        .await;
    ack.map_err(|e| e.to_string())?
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The group's events as one JSON array, from their JSON.
fn array(group: &[(Pending, Vec<u8>)]) -> Vec<u8> {
    let len = group.iter().map(|(_, j)| j.len() + 1).sum::<usize>() + 1;
    let mut out = Vec::with_capacity(len);
    out.push(b'[');
    for (i, (_, json)) in group.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(json);
    }
    out.push(b']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_protocol::EventBody;
    use uuid::Uuid;

    fn pending(seq: u64) -> (Pending, Vec<u8>) {
        let ev = RunEvent {
            run_id: Uuid::new_v4(),
            attempt_id: Uuid::new_v4(),
            seq,
            at: chrono::Utc::now(),
            body: EventBody::StepStarted {
                step: 1,
                text: format!("step {seq}"),
            },
        };
        encoded((ev, oneshot::channel().0)).expect("encodes")
    }

    #[test]
    fn a_group_is_a_json_array_of_its_events_in_order() {
        let group = vec![pending(1), pending(2), pending(3)];
        let back: Vec<RunEvent> = serde_json::from_slice(&array(&group)).unwrap();
        let seqs: Vec<u64> = back.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [1, 2, 3]);
        assert_eq!(back[1].run_id, group[1].0 .0.run_id);
    }

    #[test]
    fn a_group_of_one_is_an_array_of_one() {
        let back: Vec<RunEvent> = serde_json::from_slice(&array(&[pending(7)])).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].seq, 7);
    }
}
