//! The event applier task: one durable pull consumer (`coordinator`), shared by every
//! coordinator, on the events stream. Each event is applied exactly once
//! ([`crate::store::events::apply`]) and acked after its transaction commits; a failed
//! apply is not acked and comes back after the ack wait.

use std::sync::Arc;
use std::time::Duration;

use argus_protocol::RunEvent;
use async_nats::jetstream::consumer::{pull, AckPolicy};
use futures::StreamExt;
use tokio::sync::Notify;

use crate::store::events::{apply, Applied};
use crate::AppState;

/// Runs until the process ends, reconnecting the consumer after errors.
pub async fn run(state: AppState, wake: Arc<Notify>) {
    loop {
        if let Err(e) = consume(&state, &wake).await {
            tracing::warn!(error = %e, "event consumer stopped; restarting in 1 s");
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn consume(state: &AppState, wake: &Notify) -> anyhow::Result<()> {
    let stream = state.js.get_stream(state.subjects.events_stream()).await?;
    let name = state.subjects.coordinator_consumer();
    let consumer = stream
        .get_or_create_consumer(
            &name,
            pull::Config {
                durable_name: Some(name.clone()),
                filter_subject: state.subjects.events_all(),
                ack_policy: AckPolicy::Explicit,
                ack_wait: Duration::from_secs(30),
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
    while let Some(msg) = messages.next().await {
        let msg = msg.map_err(|e| anyhow::anyhow!(e))?;
        let ev: RunEvent = match serde_json::from_slice(&msg.payload) {
            Ok(ev) => ev,
            Err(e) => {
                tracing::error!(error = %e, subject = %msg.subject, "unreadable event dropped");
                let _ = msg.ack().await;
                continue;
            }
        };
        match apply(&state.pool, &ev).await {
            Ok(outcome) => {
                if outcome == Applied::Finished {
                    wake.notify_one();
                }
                if let Err(e) = msg.ack().await {
                    tracing::warn!(error = %e, "event ack failed (it will be redelivered and deduplicated)");
                }
            }
            Err(e) => {
                tracing::warn!(run_id = %ev.run_id, seq = ev.seq, error = %e, "event apply failed; will retry");
            }
        }
    }
    Ok(())
}
