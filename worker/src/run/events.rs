//! Where a run's events go: JetStream (`<prefix>.events.<run_id>`, `Nats-Msg-Id` =
//! `<run>:<attempt>:<seq>` so a republish is deduplicated) or memory (for `argus run`).
//!
//! [`Emitter`] numbers events per run from 1 and retries a failed publish with backoff
//! (250 ms doubling, up to [`PUBLISH_ATTEMPTS`] tries) before giving up with an error.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use argus_protocol::subjects::Subjects;
use argus_protocol::{ActionKind, EventBody, RunEvent};
use async_trait::async_trait;

use super::record::RecordKind;
use crate::secrets::Secrets;
use chrono::Utc;
use uuid::Uuid;

/// Publish tries before an event is given up on.
pub const PUBLISH_ATTEMPTS: u32 = 6;
/// Most lines [`Emitter::action_log`] keeps (the newest): enough for a judge to see how a
/// run ended without sending a long run's whole history.
pub const ACTION_LOG_LINES: usize = 40;

/// The waits after each failed publish try: 250 ms, doubling ([`PUBLISH_ATTEMPTS`] of them
/// are used).
pub fn retry_delays() -> impl Iterator<Item = Duration> {
    std::iter::successors(Some(Duration::from_millis(250)), |d| Some(*d * 2))
}

/// A destination for run events.
#[async_trait]
pub trait EventSink: Send + Sync {
    /// Publishes one event, awaiting the broker's acknowledgement.
    async fn publish(&self, ev: &RunEvent) -> Result<(), String>;

    /// Whether [`EventSink::publish`] already retries on the [`retry_delays`] schedule, so
    /// the [`Emitter`] tries once instead of retrying again on top.
    fn retries_itself(&self) -> bool {
        false
    }
}

/// JetStream publisher.
pub struct NatsSink {
    js: async_nats::jetstream::Context,
    subjects: Subjects,
}

impl NatsSink {
    /// Publishes on `subjects.events(run_id)`.
    pub fn new(js: async_nats::jetstream::Context, subjects: Subjects) -> NatsSink {
        NatsSink { js, subjects }
    }
}

#[async_trait]
impl EventSink for NatsSink {
    async fn publish(&self, ev: &RunEvent) -> Result<(), String> {
        let payload = serde_json::to_vec(ev).map_err(|e| e.to_string())?;
        let mut headers = async_nats::HeaderMap::new();
        headers.insert("Nats-Msg-Id", ev.msg_id().as_str());
        let ack = self
            .js
            .publish_with_headers(self.subjects.events(&ev.run_id), headers, payload.into())
            .await
            .map_err(|e| e.to_string())?;
        ack.await.map(|_| ()).map_err(|e| e.to_string())
    }
}

/// Keeps events in memory (local runs, tests).
#[derive(Default)]
pub struct MemorySink {
    /// Everything published, in order.
    pub events: Mutex<Vec<RunEvent>>,
}

#[async_trait]
impl EventSink for MemorySink {
    async fn publish(&self, ev: &RunEvent) -> Result<(), String> {
        self.events
            .lock()
            .map_err(|_| "event log poisoned".to_string())?
            .push(ev.clone());
        Ok(())
    }
}

/// Numbers and publishes one run's events. With [`Emitter::with_secrets`], every string in
/// an event is redacted (secret values → `${secret.NAME}`) before it leaves the worker.
pub struct Emitter {
    sink: Arc<dyn EventSink>,
    run_id: Uuid,
    attempt_id: Uuid,
    seq: u64,
    secrets: Option<Arc<Secrets>>,
    log: Vec<String>,
    tapped: Vec<String>,
    entered: bool,
}

impl Emitter {
    /// Starts at sequence 1.
    pub fn new(sink: Arc<dyn EventSink>, run_id: Uuid, attempt_id: Uuid) -> Emitter {
        Emitter {
            sink,
            run_id,
            attempt_id,
            seq: 0,
            secrets: None,
            log: Vec::new(),
            tapped: Vec::new(),
            entered: false,
        }
    }

    /// Redacts every event against `secrets` before publishing.
    pub fn with_secrets(mut self, secrets: Arc<Secrets>) -> Emitter {
        self.secrets = Some(secrets);
        self
    }

    fn redact(&self, body: EventBody) -> EventBody {
        let Some(s) = &self.secrets else { return body };
        let Ok(mut v) = serde_json::to_value(&body) else {
            return body;
        };
        s.redact_json(&mut v);
        serde_json::from_value(v).unwrap_or(body)
    }

    /// The run's action log so far, one line an action (`tap "Save": ok`, `type … : failed —
    /// why`), redacted like the events; at most [`ACTION_LOG_LINES`], the newest kept.
    pub fn action_log(&self) -> &[String] {
        &self.log
    }

    /// The names of the elements this run's taps went to (ok taps and double taps), and
    /// whether it pressed Enter with no tap, tick or typing delivered after it (an Enter that
    /// may stand for a closing press): which controls the run pressed (`agent::presses`).
    pub fn presses(&self) -> (&[String], bool) {
        (&self.tapped, self.entered)
    }

    /// Publishes `body` as the next event; retries with backoff, then errors.
    pub async fn emit(&mut self, body: EventBody) -> Result<(), String> {
        self.seq += 1;
        let body = self.redact(body);
        if let EventBody::ActionFinished(r) = &body {
            let kind = |k: ActionKind| RecordKind::Action(k).wire() == r.kind;
            if r.ok && (kind(ActionKind::Tap) || kind(ActionKind::DoubleTap)) {
                if let Some(t) = &r.target {
                    self.tapped.push(t.name.clone());
                }
            }
            // An Enter followed by a tap, a tick or typing was not the run's closing press.
            let input = [
                ActionKind::Tap,
                ActionKind::DoubleTap,
                ActionKind::LongPress,
                ActionKind::SetChecked,
                ActionKind::Type,
            ];
            if r.ok && input.into_iter().any(kind) {
                self.entered = false;
            }
            self.entered |= r.ok && kind(ActionKind::Key) && r.detail.contains("Enter");
        }
        if let Some(rec) = match &body {
            EventBody::ActionFinished(r) if !RecordKind::is_bookkeeping(&r.kind) => Some(r),
            _ => None,
        } {
            let mut line = format!("{}: {}", rec.detail, if rec.ok { "ok" } else { "failed" });
            if let Some(e) = rec.error.as_deref().filter(|_| !rec.ok) {
                line.push_str(" — ");
                line.extend(e.chars().take(160));
            }
            if self.log.len() == ACTION_LOG_LINES {
                self.log.remove(0);
            }
            self.log.push(line);
        }
        let ev = RunEvent {
            run_id: self.run_id,
            attempt_id: self.attempt_id,
            seq: self.seq,
            at: Utc::now(),
            body,
        };
        let tries = if self.sink.retries_itself() {
            1
        } else {
            PUBLISH_ATTEMPTS
        };
        let mut last = String::new();
        for delay in retry_delays().take(tries as usize) {
            match self.sink.publish(&ev).await {
                Ok(()) => return Ok(()),
                Err(e) => {
                    tracing::warn!(run_id = %self.run_id, seq = ev.seq, error = %e, "event publish failed; retrying");
                    last = e;
                    if tries > 1 {
                        tokio::time::sleep(delay).await;
                    }
                }
            }
        }
        Err(format!("event {} not published: {last}", ev.seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_protocol::{ActionRecord, Disposition};

    fn finished(kind: ActionKind, detail: &str) -> EventBody {
        EventBody::ActionFinished(Box::new(ActionRecord::new(
            0,
            0,
            kind.name(),
            detail.to_string(),
            true,
            None,
            Disposition::DeliveredUnverified,
            Utc::now(),
        )))
    }

    #[tokio::test]
    async fn an_enter_stands_for_a_press_only_with_no_input_after_it() {
        let mut em = Emitter::new(Arc::new(MemorySink::default()), Uuid::nil(), Uuid::nil());
        for (kind, detail) in [
            (ActionKind::Type, "type \"1990\" into \"Year\""),
            (ActionKind::Key, "press Enter"),
            (
                ActionKind::AssertContains,
                "assert screen contains \"1990\"",
            ),
        ] {
            em.emit(finished(kind, detail)).await.expect("published");
        }
        assert!(em.presses().1, "the closing Enter");
        // "Add 'milk', tick it, then hit Clear completed": the Enter added the item; a tick
        // came after it, so it stands for no press.
        em.emit(finished(ActionKind::SetChecked, "check \"milk\""))
            .await
            .expect("published");
        assert!(!em.presses().1);
    }
}
