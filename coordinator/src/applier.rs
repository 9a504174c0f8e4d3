//! The event applier task: one durable pull consumer (`coordinator`), shared by every
//! coordinator, on the events stream. Events already received are applied together, exactly
//! once each, in one transaction ([`crate::store::events::apply_batch`]) and acked after it
//! commits; while events arrive steadily (the last batch held at least [`BUSY_BATCH`]) a
//! batch waits up to [`LINGER`] to fill, so a busy farm commits fewer, larger batches
//! (PostgreSQL's CPU per job falls with the batch: 94 µs a job at 256 runs a batch, 123 µs
//! at 64, `dispatch-bench --floor [--floor-batch 64]`); when a batch fails its events are
//! applied one by one, and a failed apply is nak'ed to come back in 500 ms (the ack wait,
//! half the lease, covers a coordinator that died holding an event).
//!
//! A message holds one event or a worker's group of them ([`crate::ingest::decode_group`]);
//! it is acked once every event of it is applied, terminated once each is applied or parked
//! (an element that cannot be read is parked on its own), and nak'ed while one must be
//! retried.
//!
//! Poison events: each payload is decoded with U+0000 stripped ([`crate::ingest`]), so NUL
//! in a string never reaches PostgreSQL. An event the database still rejects as data
//! ([`rejects_data`]) is parked once JetStream has delivered it `event_max_deliveries` times
//! (default 5): written to `dead_events` with its bytes and the reason, its run ended
//! `errored` ([`crate::store::dead_events::park`]), then terminated on the stream so it
//! never comes back. An unreadable payload is parked on its first delivery. Failures that
//! are not about the event (database down, deadlock) are retried without bound: a database
//! restart loses nothing.

use std::sync::Arc;
use std::time::Duration;

use argus_protocol::RunEvent;
use async_nats::jetstream::consumer::{pull, AckPolicy};
use async_nats::jetstream::{AckKind, Message};
use tokio::sync::Notify;

use crate::drain::Stop;
use crate::store::dead_events::{park, Parked};
use crate::store::events::{apply, apply_batch, Applied};
use crate::AppState;

/// Most messages applied in one transaction (one pull batch): events, or workers' groups
/// of events.
const APPLY_BATCH: usize = 256;

/// A batch of at least this many messages means events arrive steadily: the next batch
/// lingers up to [`LINGER`] to fill (so the first batch after a burst may wait too).
const BUSY_BATCH: usize = 32;

/// How long a busy applier waits for its batch to fill.
const LINGER: Duration = Duration::from_millis(5);

/// Applier tasks per coordinator, each pulling its own batches from the one shared
/// consumer: two, so one batch is read and decoded while another's transaction waits for
/// its commit. Safe for the reason several coordinators are: each batch locks its runs in
/// id order, and every event is applied once whichever applier gets it.
pub const APPLIERS: usize = 2;

/// Runs until `stop`, reconnecting the consumer after errors; a batch already received is
/// applied and acked first.
pub async fn run(state: AppState, wake: Arc<Notify>, mut stop: Stop) {
    while !stop.is_stopped() {
        if let Err(e) = consume(&state, &wake, &mut stop).await {
            tracing::warn!(error = %e, "event consumer stopped; restarting in 1 s");
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(1)) => {}
            _ = stop.wait() => {}
        }
    }
}

async fn consume(state: &AppState, wake: &Notify, stop: &mut Stop) -> anyhow::Result<()> {
    let stream = state.js.get_stream(state.subjects.events_stream()).await?;
    let name = state.subjects.coordinator_consumer();
    let consumer = stream
        .get_or_create_consumer(
            &name,
            pull::Config {
                durable_name: Some(name.clone()),
                filter_subject: state.subjects.events_all(),
                ack_policy: AckPolicy::Explicit,
                // Shorter than the lease: an event delivered to a coordinator that died
                // before acking comes back before the run's lease can expire (else the
                // reaper would judge a finished run by a stale database).
                ack_wait: Duration::from_secs((state.cfg.lease_s / 2).clamp(2, 30)),
                max_ack_pending: 10_000,
                ..Default::default()
            },
        )
        .await?;
    let mut messages = consumer
        .stream()
        .max_messages_per_batch(256)
        .heartbeat(Duration::from_secs(5))
        .expires(Duration::from_secs(30))
        .messages()
        .await?;
    // Take what has already arrived (up to one pull batch), lingering while busy, and
    // apply it in one transaction; acks follow the commit.
    let mut busy = false;
    loop {
        let Some((batch, late_error)) = next_events(&mut messages, stop, busy).await? else {
            break;
        };
        busy = batch.len() >= BUSY_BATCH;
        // a message holds one event or a worker's group of them: `spans[m]` are message m's
        // events in `events`; an element of a group that cannot be read is parked on its own
        let mut events = Vec::with_capacity(batch.len());
        let mut parts = Vec::with_capacity(batch.len());
        let mut spans = Vec::with_capacity(batch.len());
        let mut msgs = Vec::with_capacity(batch.len());
        for msg in batch {
            match crate::ingest::decode_group(&msg.payload) {
                Ok(items) => {
                    let grouped = items.len() > 1;
                    let start = events.len();
                    let mut how = Settled::Applied;
                    for (at, item) in items.into_iter().enumerate() {
                        match item {
                            Ok(ev) => {
                                events.push(ev);
                                parts.push(grouped.then_some(at));
                            }
                            Err(e) => {
                                tracing::error!(error = %e, subject = %msg.subject, at, "unreadable event parked");
                                let part = grouped.then_some(at);
                                let why = format!("unreadable event: {e}");
                                if !park_msg(state, wake, &msg, None, part, &why).await {
                                    how = Settled::Retry;
                                } else if how == Settled::Applied {
                                    how = Settled::Parked;
                                }
                            }
                        }
                    }
                    spans.push((start..events.len(), how));
                    msgs.push(msg);
                }
                Err(e) => {
                    tracing::error!(error = %e, subject = %msg.subject, "unreadable event parked");
                    let why = format!("unreadable event: {e}");
                    let parked = park_msg(state, wake, &msg, None, None, &why).await;
                    settle(
                        &msg,
                        if parked {
                            Settled::Parked
                        } else {
                            Settled::Retry
                        },
                    )
                    .await;
                }
            }
        }
        match apply_batch(&state.pool, &events).await {
            Ok(outcomes) => {
                if outcomes.contains(&Applied::Finished) {
                    wake.notify_one();
                }
                for (msg, (_, how)) in msgs.iter().zip(&spans) {
                    settle(msg, *how).await;
                }
            }
            Err(e) => {
                // One bad event must not hold the others back: each message alone, and the
                // events of one that fails one by one; each message is settled as soon as
                // its events are (so a long batch does not outlast the ack wait).
                tracing::warn!(events = events.len(), error = %e, "batch apply failed; applying message by message");
                for (msg, (span, how)) in msgs.iter().zip(spans) {
                    let (evs, at) = (&events[span.clone()], &parts[span]);
                    let how = apply_message(state, wake, evs, at, msg, how).await;
                    settle(msg, how).await;
                }
            }
        }
        if let Some(e) = late_error {
            return Err(e);
        }
    }
    Ok(())
}

/// The next batch of events: `None` when the stream ended or on drain before any arrived.
/// While `busy` a batch that is not full lingers up to [`LINGER`] to fill; a drain or a
/// stream error during the linger ends it early and the batch goes out as it is (so a
/// drain still applies and acks what was received, `crate::drain`), the error handed back
/// beside it to end the stream once the batch is applied. Messages pulled but not yet
/// handed out when a drain stops the wait for the first are redelivered to another
/// coordinator after the ack wait.
async fn next_events<S, E>(
    messages: &mut S,
    stop: &mut Stop,
    busy: bool,
) -> anyhow::Result<Option<(Vec<Message>, Option<anyhow::Error>)>>
where
    S: futures::Stream<Item = Result<Message, E>> + Unpin,
    E: std::fmt::Display,
{
    let next = tokio::select! {
        biased;
        _ = stop.wait() => return Ok(None),
        next = argus_infra::nats::next_batch(messages, APPLY_BATCH) => next,
    };
    let Some(batch) = next else {
        return Ok(None);
    };
    let mut batch = batch?;
    let mut late_error = None;
    if busy && batch.len() < APPLY_BATCH {
        tokio::select! {
            biased;
            _ = stop.wait() => {}
            r = argus_infra::nats::linger_fill(messages, &mut batch, APPLY_BATCH, LINGER) => {
                late_error = r.err();
            }
        }
    }
    Ok(Some((batch, late_error)))
}

/// What became of one event applied alone, and so of its message: acked when all of its
/// events were [`Settled::Applied`], terminated when one was parked and none must be
/// retried, nak'ed to come back in 500 ms when one must be retried (its applied neighbours
/// are duplicates then, and change nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settled {
    Applied,
    Parked,
    Retry,
}

impl Settled {
    /// The message's outcome with one more event's: a retry outweighs a park, a park an
    /// apply.
    fn and(self, other: Settled) -> Settled {
        match (self, other) {
            (Settled::Retry, _) | (_, Settled::Retry) => Settled::Retry,
            (Settled::Parked, _) | (_, Settled::Parked) => Settled::Parked,
            _ => Settled::Applied,
        }
    }
}

/// Applies one message's events (`parts`: each one's place in a grouped message; `how`: what
/// its unreadable elements came to) in one transaction, or, when that fails, one by one.
async fn apply_message(
    state: &AppState,
    wake: &Notify,
    evs: &[RunEvent],
    parts: &[Option<usize>],
    msg: &Message,
    how: Settled,
) -> Settled {
    if let Ok(outcomes) = apply_batch(&state.pool, evs).await {
        if outcomes.contains(&Applied::Finished) {
            wake.notify_one();
        }
        return how;
    }
    let mut how = how;
    for (ev, part) in evs.iter().zip(parts) {
        how = how.and(apply_one(state, wake, ev, msg, *part).await);
    }
    how
}

/// Applies one event alone (`part`: its place in a grouped message, `None` when the message
/// holds it alone); parks it when the database rejects it as data for the
/// `event_max_deliveries`th delivery of its message.
async fn apply_one(
    state: &AppState,
    wake: &Notify,
    ev: &RunEvent,
    msg: &Message,
    part: Option<usize>,
) -> Settled {
    let e = match apply(&state.pool, ev).await {
        Ok(outcome) => {
            if outcome == Applied::Finished {
                wake.notify_one();
            }
            return Settled::Applied;
        }
        Err(e) => e,
    };
    let delivered = msg.info().map(|i| i.delivered).unwrap_or(1);
    if rejects_data(&e) && delivered >= state.cfg.event_max_deliveries {
        tracing::error!(run_id = %ev.run_id, seq = ev.seq, deliveries = delivered, error = %e,
            "the database keeps rejecting this event; parked in dead_events");
        let parked = park_msg(state, wake, msg, Some(ev), part, &e.to_string()).await;
        return if parked {
            Settled::Parked
        } else {
            Settled::Retry
        };
    }
    // Transient (deadlock, database restart) or not yet given up on: back in 500 ms, not
    // after the whole ack wait.
    tracing::warn!(run_id = %ev.run_id, seq = ev.seq, deliveries = delivered, error = %e, "event apply failed; will retry");
    Settled::Retry
}

/// Acks, terminates or naks `msg` as [`Settled`] says.
async fn settle(msg: &Message, how: Settled) {
    match how {
        Settled::Applied => ack(msg).await,
        Settled::Parked => {
            if let Err(e) = msg.ack_with(AckKind::Term).await {
                tracing::warn!(error = %e, "terminating a parked event failed (it will be parked again, once)");
            }
        }
        Settled::Retry => nak(msg).await,
    }
}

/// Whether `e` is the database refusing the event's data (SQLSTATE class 22 data exception,
/// 23 integrity constraint violation, 54 program limit exceeded, or a value sqlx could not
/// encode) rather than a failure a retry can cure.
pub fn rejects_data(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(db) => db
            .code()
            .is_some_and(|c| c.starts_with("22") || c.starts_with("23") || c.starts_with("54")),
        sqlx::Error::Encode(_) => true,
        _ => false,
    }
}

/// Parks `msg`'s event `ev` (see [`park`]; `None`: an element or a message that could not be
/// read): its `dead_events` row is keyed by the message's stream sequence and subject,
/// `#<part>` added for an element of a grouped message (`part`: its place). Returns whether
/// it was parked (when parking fails the message is retried and parked on a later delivery).
async fn park_msg(
    state: &AppState,
    wake: &Notify,
    msg: &Message,
    ev: Option<&RunEvent>,
    part: Option<usize>,
    error: &str,
) -> bool {
    let (stream_seq, delivered) = msg
        .info()
        .map(|i| (i.stream_sequence, i.delivered))
        .unwrap_or((0, 1));
    let subject = match part {
        Some(at) => format!("{}#{at}", msg.subject),
        None => msg.subject.to_string(),
    };
    let parked = Parked {
        stream_seq,
        subject: &subject,
        event: ev,
        payload: &msg.payload,
        error,
        deliveries: delivered,
    };
    match park(&state.pool, &parked).await {
        Ok(freed) => {
            if freed {
                wake.notify_one();
            }
            true
        }
        Err(e) => {
            tracing::warn!(error = %e, "parking an event failed; will retry");
            false
        }
    }
}

async fn nak(msg: &Message) {
    if let Err(e) = msg
        .ack_with(AckKind::Nak(Some(Duration::from_millis(500))))
        .await
    {
        tracing::warn!(error = %e, "nak failed (the event comes back after the ack wait)");
    }
}

async fn ack(msg: &Message) {
    if let Err(e) = msg.ack().await {
        tracing::warn!(error = %e, "event ack failed (it will be redelivered and deduplicated)");
    }
}
