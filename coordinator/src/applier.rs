//! The event applier task: one durable pull consumer (`coordinator`), shared by every
//! coordinator, on the events stream. Events already received are applied together, exactly
//! once each, in one transaction ([`crate::store::events::apply_batch`]) and acked after it
//! commits; when a batch fails its events are applied one by one, and a failed apply is
//! nak'ed to come back in 500 ms (the ack wait, half the lease, covers a coordinator that
//! died holding an event).

use std::sync::Arc;
use std::time::Duration;

use argus_protocol::RunEvent;
use async_nats::jetstream::consumer::{pull, AckPolicy};
use async_nats::jetstream::AckKind;
use tokio::sync::Notify;

use crate::drain::Stop;
use crate::store::events::{apply, apply_batch, Applied};
use crate::AppState;

/// Most events applied in one transaction (one pull batch).
const APPLY_BATCH: usize = 256;

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
    // Take what has already arrived (up to one pull batch) and apply it in one
    // transaction; acks follow the commit.
    loop {
        // Waiting for events stops at once on drain; messages pulled but not yet handed
        // out are redelivered to another coordinator after the ack wait.
        let next = tokio::select! {
            biased;
            _ = stop.wait() => return Ok(()),
            next = argus_infra::nats::next_batch(&mut messages, APPLY_BATCH) => next,
        };
        let Some(batch) = next else { break };
        let batch = batch?;
        let mut events = Vec::with_capacity(batch.len());
        let mut msgs = Vec::with_capacity(batch.len());
        for msg in batch {
            match serde_json::from_slice::<RunEvent>(&msg.payload) {
                Ok(ev) => {
                    events.push(ev);
                    msgs.push(msg);
                }
                Err(e) => {
                    tracing::error!(error = %e, subject = %msg.subject, "unreadable event dropped");
                    let _ = msg.ack().await;
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
                    match apply(&state.pool, ev).await {
                        Ok(outcome) => {
                            if outcome == Applied::Finished {
                                wake.notify_one();
                            }
                            ack(msg).await;
                        }
                        Err(e) => {
                            // Transient (deadlock, database restart): back in 500 ms, not
                            // after the whole ack wait.
                            tracing::warn!(run_id = %ev.run_id, seq = ev.seq, error = %e, "event apply failed; will retry");
                            let _ = msg
                                .ack_with(AckKind::Nak(Some(Duration::from_millis(500))))
                                .await;
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

async fn ack(msg: &async_nats::jetstream::Message) {
    if let Err(e) = msg.ack().await {
        tracing::warn!(error = %e, "event ack failed (it will be redelivered and deduplicated)");
    }
}
