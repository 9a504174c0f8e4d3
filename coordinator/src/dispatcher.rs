//! The dispatcher task: for each free slot, claim one matching queued run (one statement,
//! see [`crate::store::claim`]), commit, then publish the assignment to the slot's worker.
//! A failed publish puts the run back in the queue (fenced by attempt id). Wakes on submit,
//! on run finish, and every `dispatch_interval_ms`; the same task runs the lease reaper.

use std::sync::Arc;
use std::time::Duration;

use argus_protocol::Assignment;
use tokio::sync::Notify;

use crate::bus;
use crate::store::{claim, reaper};
use crate::AppState;

/// Runs until the process ends.
pub async fn run(state: AppState, wake: Arc<Notify>) {
    let interval = Duration::from_millis(state.cfg.dispatch_interval_ms.max(10));
    loop {
        if let Err(e) = reaper::reap(&state.pool, 100).await {
            tracing::warn!(error = %e, "reaper pass failed");
        }
        match dispatch_once(&state).await {
            Ok(n) if n > 0 => continue,
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "dispatch pass failed"),
        }
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(interval) => {}
        }
    }
}

/// One pass over the free slots; returns how many runs were assigned.
pub async fn dispatch_once(state: &AppState) -> anyhow::Result<usize> {
    let free = claim::free_devices(&state.pool, state.cfg.device_ttl_s).await?;
    let mut assigned = 0;
    for dev in &free {
        let Some(c) = claim::claim(&state.pool, dev, state.cfg.lease_s).await? else {
            continue;
        };
        let a = Assignment {
            run_id: c.run_id,
            attempt_id: c.attempt_id,
            job_id: c.job_id,
            device_id: c.device_id.clone(),
            spec: c.spec.clone(),
            lease_expires_at: c.lease_expires_at,
        };
        match bus::publish_assignment(&state.js, &state.subjects, &c.worker_id, &a).await {
            Ok(()) => {
                tracing::info!(run_id = %c.run_id, device = c.device_id, "run assigned");
                assigned += 1;
            }
            Err(e) => {
                tracing::warn!(run_id = %c.run_id, error = %e, "assignment publish failed; re-queueing");
                claim::unclaim(&state.pool, &c).await?;
            }
        }
    }
    Ok(assigned)
}
