//! The reaper task: one [`Reaper`] pass every `dispatch_interval_ms`, on its own task so a
//! slow dispatch pass (a long claim, a sibling's claim holding the quota lock, a NATS
//! publish waiting for acks) never delays it. That matters twice: expired leases are reaped
//! on time, and `reaper_state.last_pass` keeps being stamped, so a busy dispatcher is never
//! mistaken for "no coordinator was up" (which would start a grace and hold reaping back).
//! A pass that re-queued runs wakes the dispatcher.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use crate::drain::Stop;
use crate::store::reaper::Reaper;
use crate::AppState;

/// Most expired leases reaped per pass.
const REAP_LIMIT: i64 = 100;

/// Runs until `stop`; a pass under way finishes first.
pub async fn run(state: AppState, wake: Arc<Notify>, mut stop: Stop) {
    let interval = Duration::from_millis(state.cfg.dispatch_interval_ms.max(10));
    let mut reaper = Reaper::new(Duration::from_secs(state.cfg.lease_s), interval);
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.wait() => return,
        }
        match reaper.pass(&state.pool, REAP_LIMIT).await {
            Ok((requeued, _)) if requeued > 0 => wake.notify_one(),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "reaper pass failed"),
        }
    }
}
