//! The dispatcher task: claims matching queued runs for up to [`CLAIM_BATCH`] free slots in
//! one statement (see [`crate::store::claim::claim_batch`]), commits, and hands the claimed
//! batch to its publisher ([`publish_loop`]), which publishes the assignments to the slots'
//! workers pipelined (all sent, then all acks awaited) while the next claim already runs:
//! a claim never waits for the previous batch's stream acknowledgements. A worker that
//! says it reads groups (`Heartbeat::reads_assignment_groups`) gets its runs of a batch as
//! one message ([`bus::publish_assignments`]), any other one run a message. At most
//! [`PUBLISHING_BATCHES`] claimed batches wait for the publisher (back-pressure). A failed
//! publish puts the runs of that message back in the queue (fenced by attempt id). Wakes on
//! submit, on run finish, on re-queued runs, and every `dispatch_interval_ms`. The lease reaper runs on a
//! task of its own ([`crate::reaper_task`]).
//!
//! On drain the claimer stops after its pass and the publisher publishes every batch
//! already claimed before the task returns.

use std::sync::Arc;
use std::time::Duration;

use argus_protocol::Assignment;
use tokio::sync::{mpsc, Notify};

use crate::bus;
use crate::drain::Stop;
use crate::store::claim::{self, Claimed};
use crate::store::replay;
use crate::AppState;

/// Runs until `stop`; a pass under way (claimed runs being published) finishes first.
pub async fn run(state: AppState, wake: Arc<Notify>, mut stop: Stop) {
    let interval = Duration::from_millis(state.cfg.dispatch_interval_ms.max(10));
    let (tx, rx) = mpsc::channel(PUBLISHING_BATCHES);
    let publisher = tokio::spawn(publish_loop(state.clone(), rx));
    while !stop.is_stopped() {
        match claim_pass(&state, &tx).await {
            Ok(n) if n > 0 => continue,
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "dispatch pass failed"),
        }
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(interval) => {}
            _ = stop.wait() => {}
        }
    }
    drop(tx);
    if let Err(e) = publisher.await {
        tracing::warn!(error = %e, "assignment publisher ended abnormally");
    }
}

/// Most slots claimed per statement; a pass repeats the statement while batches come back
/// full. Bounds one transaction's lock time and the latency of the first assignment.
const CLAIM_BATCH: u32 = 256;

/// Claimed batches waiting for the publisher before the claimer waits too: two, so one
/// batch is claimed while the previous one is published.
const PUBLISHING_BATCHES: usize = 2;

/// One pass over the free slots: claims while batches come back full and hands each batch
/// to the publisher; returns how many runs were claimed.
async fn claim_pass(
    state: &AppState,
    publish: &mpsc::Sender<Vec<Claimed>>,
) -> anyhow::Result<usize> {
    let mut claimed_n = 0;
    loop {
        let mut claimed = claim::claim_batch(
            &state.pool,
            state.cfg.device_ttl_s,
            state.cfg.lease_s,
            CLAIM_BATCH,
        )
        .await?;
        if let Err(e) = replay::attach(&state.pool, &mut claimed).await {
            // The runs still go out: their models do the work a script would have saved.
            tracing::warn!(error = %e, "cannot read the replay cache; assigning without it");
        }
        let full = claimed.len() >= CLAIM_BATCH as usize;
        claimed_n += claimed.len();
        if !claimed.is_empty() {
            if let Err(mpsc::error::SendError(back)) = publish.send(claimed).await {
                // The publisher is gone (it only ends when this sender is dropped, or
                // panicked): nobody will publish these, so they go back in the queue.
                for c in &back {
                    claim::unclaim(&state.pool, c).await?;
                }
                anyhow::bail!("the assignment publisher stopped");
            }
        }
        if !full {
            return Ok(claimed_n);
        }
    }
}

/// Publishes each claimed batch in the order it was claimed, until the claimer drops its
/// sender and every batch already sent is published.
async fn publish_loop(state: AppState, mut batches: mpsc::Receiver<Vec<Claimed>>) {
    while let Some(claimed) = batches.recv().await {
        if let Err(e) = publish(&state, &claimed).await {
            tracing::warn!(error = %e, "re-queueing runs whose assignment was not published failed (the reaper re-queues them when their lease expires)");
        }
    }
}

/// Publishes one claimed batch pipelined; a run whose publish failed is put back in the
/// queue. Errors: the database's, while putting a run back.
async fn publish(state: &AppState, claimed: &[Claimed]) -> anyhow::Result<()> {
    let batch: Vec<(String, Assignment)> = claimed
        .iter()
        .map(|c| (c.worker_id.clone(), assignment(c)))
        .collect();
    // a worker that reads groups gets its runs of this batch as one message
    let mut workers: Vec<&str> = claimed.iter().map(|c| c.worker_id.as_str()).collect();
    workers.sort_unstable();
    workers.dedup();
    let grouped = match crate::store::workers::reading_groups(&state.pool, &workers).await {
        Ok(g) => g,
        Err(e) => {
            // one assignment a message: every worker reads those
            tracing::warn!(error = %e, "cannot read which workers read grouped assignments; sending one a message");
            Default::default()
        }
    };
    let results =
        bus::publish_assignments(&state.js, &state.subjects, &batch, |w| grouped.contains(w)).await;
    for (c, res) in claimed.iter().zip(results) {
        match res {
            Ok(()) => {
                tracing::info!(run_id = %c.run_id, device = c.device_id, "run assigned");
            }
            Err(e) => {
                tracing::warn!(run_id = %c.run_id, error = %e, "assignment publish failed; re-queueing");
                claim::unclaim(&state.pool, c).await?;
            }
        }
    }
    Ok(())
}

fn assignment(c: &Claimed) -> Assignment {
    Assignment {
        run_id: c.run_id,
        attempt_id: c.attempt_id,
        job_id: c.job_id,
        team: c.team.clone(),
        device_id: c.device_id.clone(),
        spec: c.spec.clone(),
        lease_expires_at: c.lease_expires_at,
        replay: c.replay.clone(),
    }
}
