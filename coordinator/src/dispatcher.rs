//! The dispatcher task: claims matching queued runs for up to [`CLAIM_BATCH`] free slots in
//! one statement (see [`crate::store::claim::claim_batch`]), commits, then publishes the
//! assignments to the slots' workers pipelined (all sent, then all acks awaited). A failed
//! publish puts that run back in the queue (fenced by attempt id). Wakes on submit,
//! on run finish, on re-queued runs, and every `dispatch_interval_ms`. The lease reaper runs
//! on a task of its own ([`crate::reaper_task`]).

use std::sync::Arc;
use std::time::Duration;

use argus_protocol::Assignment;
use tokio::sync::Notify;

use crate::bus;
use crate::drain::Stop;
use crate::store::{claim, replay};
use crate::AppState;

/// Runs until `stop`; a pass under way (claimed runs being published) finishes first.
pub async fn run(state: AppState, wake: Arc<Notify>, mut stop: Stop) {
    let interval = Duration::from_millis(state.cfg.dispatch_interval_ms.max(10));
    while !stop.is_stopped() {
        match dispatch_once(&state).await {
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
}

/// Most slots claimed per statement; a pass repeats the statement while batches come back
/// full. Bounds one transaction's lock time and the latency of the first assignment.
const CLAIM_BATCH: u32 = 256;

/// One pass over the free slots; returns how many runs were assigned.
pub async fn dispatch_once(state: &AppState) -> anyhow::Result<usize> {
    let mut assigned = 0;
    loop {
        let mut claimed = claim::claim_batch(
            &state.pool,
            state.cfg.device_ttl_s,
            state.cfg.lease_s,
            CLAIM_BATCH,
        )
        .await?;
        if let Err(e) = claim::attach_teams(&state.pool, &mut claimed).await {
            // Without its team a run could not be given its secrets: put the batch back.
            for c in &claimed {
                claim::unclaim(&state.pool, c).await?;
            }
            return Err(e.into());
        }
        if let Err(e) = replay::attach(&state.pool, &mut claimed).await {
            // The runs still go out: their models do the work a script would have saved.
            tracing::warn!(error = %e, "cannot read the replay cache; assigning without it");
        }
        let full = claimed.len() >= CLAIM_BATCH as usize;
        let batch: Vec<(String, Assignment)> = claimed
            .iter()
            .map(|c| {
                (
                    c.worker_id.clone(),
                    Assignment {
                        run_id: c.run_id,
                        attempt_id: c.attempt_id,
                        job_id: c.job_id,
                        team: c.team.clone(),
                        device_id: c.device_id.clone(),
                        spec: c.spec.clone(),
                        lease_expires_at: c.lease_expires_at,
                        replay: c.replay.clone(),
                    },
                )
            })
            .collect();
        let results = bus::publish_assignments(&state.js, &state.subjects, &batch).await;
        for (c, res) in claimed.iter().zip(results) {
            match res {
                Ok(()) => {
                    tracing::info!(run_id = %c.run_id, device = c.device_id, "run assigned");
                    assigned += 1;
                }
                Err(e) => {
                    tracing::warn!(run_id = %c.run_id, error = %e, "assignment publish failed; re-queueing");
                    claim::unclaim(&state.pool, c).await?;
                }
            }
        }
        if !full {
            return Ok(assigned);
        }
    }
}
