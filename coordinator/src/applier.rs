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

/// Most events applied in one transaction (one pull batch).
const APPLY_BATCH: usize = 256;

/// A batch of at least this many events means events arrive steadily: the next batch
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
        let mut events = Vec::with_capacity(batch.len());
        let mut msgs = Vec::with_capacity(batch.len());
        for msg in batch {
            match crate::ingest::decode(&msg.payload) {
                Ok(ev) => {
                    events.push(ev);
                    msgs.push(msg);
                }
                Err(e) => {
                    tracing::error!(error = %e, subject = %msg.subject, "unreadable event parked");
                    park_msg(state, wake, &msg, None, &format!("unreadable event: {e}")).await;
                }
            }
        }
        match apply_batch(&state.pool, &events).await {
            Ok(outcomes) => {
                if outcomes.contains(&Applied::Finished) {
                    wake.notify_one();
                }
                for msg in &msgs {
                    ack(msg).await;
                }
            }
            Err(e) => {
                // One bad event must not hold the others back: retry them one by one.
                tracing::warn!(events = events.len(), error = %e, "batch apply failed; applying one by one");
                for (ev, msg) in events.iter().zip(&msgs) {
                    apply_one(state, wake, ev, msg).await;
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

/// Applies one event alone: acked when applied, parked when the database rejects it as data
/// for the `event_max_deliveries`th time, else nak'ed to come back in 500 ms.
async fn apply_one(state: &AppState, wake: &Notify, ev: &RunEvent, msg: &Message) {
    let e = match apply(&state.pool, ev).await {
        Ok(outcome) => {
            if outcome == Applied::Finished {
                wake.notify_one();
            }
            ack(msg).await;
            return;
        }
        Err(e) => e,
    };
    let delivered = msg.info().map(|i| i.delivered).unwrap_or(1);
    if rejects_data(&e) && delivered >= state.cfg.event_max_deliveries {
        tracing::error!(run_id = %ev.run_id, seq = ev.seq, deliveries = delivered, error = %e,
            "the database keeps rejecting this event; parked in dead_events");
        park_msg(state, wake, msg, Some(ev), &e.to_string()).await;
        return;
    }
    // Transient (deadlock, database restart) or not yet given up on: back in 500 ms, not
    // after the whole ack wait.
    tracing::warn!(run_id = %ev.run_id, seq = ev.seq, deliveries = delivered, error = %e, "event apply failed; will retry");
    nak(msg).await;
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

/// Parks `msg` (see [`park`]) and terminates it on the stream; when parking fails it is
/// nak'ed and parked on a later delivery.
async fn park_msg(
    state: &AppState,
    wake: &Notify,
    msg: &Message,
    ev: Option<&RunEvent>,
    error: &str,
) {
    let (stream_seq, delivered) = msg
        .info()
        .map(|i| (i.stream_sequence, i.delivered))
        .unwrap_or((0, 1));
    let parked = Parked {
        stream_seq,
        subject: msg.subject.as_str(),
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
            if let Err(e) = msg.ack_with(AckKind::Term).await {
                tracing::warn!(error = %e, "terminating a parked event failed (it will be parked again, once)");
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "parking an event failed; will retry");
            nak(msg).await;
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
