//! The health probe task (issue 27 item 3): every [`tick`] it makes a probe run for each
//! device the health evaluation quarantined that has none outstanding and whose last probe
//! ended at least `health_probe_interval_s` ago (`ARGUS_HEALTH_PROBE_INTERVAL_S`), and wakes
//! the dispatcher. What a probe is, who may run it and what its success does:
//! [`crate::store::probes`]. Every coordinator runs this task; the store makes each probe
//! once (a row lock and a unique index), so no state is kept here.

use std::time::Duration;

use crate::drain::Stop;
use crate::store::probes;
use crate::AppState;

/// How often the task looks for devices due a probe: the interval, but at least every 5 s
/// (so a probe is made at most 5 s after it is due) and at most every second.
pub fn tick(interval_s: u64) -> Duration {
    Duration::from_secs(interval_s.clamp(1, 5))
}

/// Runs until `stop`; a pass under way finishes first.
pub async fn run(state: AppState, mut stop: Stop) {
    let interval_s = state.cfg.health_probe_interval_s.max(1);
    let mut timer = tokio::time::interval(tick(interval_s));
    timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = timer.tick() => {}
            _ = stop.wait() => return,
        }
        match pass(&state, interval_s).await {
            Ok(n) if n > 0 => state.wake.notify_one(),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "health probe pass failed"),
        }
    }
}

/// One pass: a probe for each device due one; returns how many were made. A device whose
/// probe another coordinator made first is skipped (its insert fails on the unique index
/// and is rolled back, logged at debug level).
async fn pass(state: &AppState, interval_s: u64) -> Result<usize, sqlx::Error> {
    let mut made = 0;
    for device in probes::due(&state.pool, interval_s).await? {
        match probes::schedule(&state.pool, &device, interval_s).await {
            Ok(Some(_)) => made += 1,
            Ok(None) => {}
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                tracing::debug!(device_id = %device, "another coordinator made its probe")
            }
            Err(e) => return Err(e),
        }
    }
    Ok(made)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tick_is_the_interval_between_one_and_five_seconds() {
        assert_eq!(tick(0), Duration::from_secs(1));
        assert_eq!(tick(2), Duration::from_secs(2));
        assert_eq!(tick(60), Duration::from_secs(5));
    }
}
