//! The lease reaper: a run whose lease expired (its worker stopped heartbeating) is
//! re-queued when nothing of its current attempt was delivered to the device (every action
//! `not_delivered`, or none yet), and otherwise ends `lost` with its evidence kept, for a
//! person to judge (and, for an `idempotent` job with retries left, retried as a new run).
//! Its slot is freed either way. A `lost` run's failure class is `device`
//! (`argus_protocol::failure_class`): its worker vanished while the coordinators and the
//! database were up (an outage of theirs starts the grace below instead), so the host driving
//! the device is to blame; it counts towards that device's health (`store::health`). Queued runs past their `queue_timeout_s` end `timed_out`. Rows are taken `FOR UPDATE SKIP LOCKED`,
//! so several coordinators can reap at once.
//!
//! **Grace after an outage.** Heartbeats land only while a coordinator and PostgreSQL are
//! up. When all coordinators (or the database) were down for longer than a lease, every
//! lease looks expired on recovery although the workers are fine: nobody was there to hear
//! them. The one-row table `reaper_state` (migration 0004) is shared by all coordinators:
//! each [`Reaper::pass`] stamps `last_pass` (at most every [`REFRESH_EVERY`]), and the pass
//! that finds it older than [`GAP_THRESHOLD`] sets `reap_not_before` one lease (plus
//! [`HEARTBEAT_SLACK`]) ahead. Until then expired leases are left alone, so every live
//! worker heartbeats and extends first; a worker that really died is reaped when the grace
//! ends. While one coordinator keeps passing (a restarted sibling, a quick restart under
//! the threshold) `last_pass` stays fresh and reaping goes on as usual. Queue deadlines
//! (`timed_out`) are not held back: they say "no device in time", which stays true.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// A reaper silence longer than this, across all coordinators, means heartbeats could not
/// land, and starts a grace. Default 5 s, chosen to be:
/// - well above how often a live coordinator stamps `last_pass`: every [`REFRESH_EVERY`]
///   (1 s), from the reaper's own task ([`crate::reaper_task`]) ticking every dispatch
///   interval (default 500 ms), so no dispatch pass, however slow, delays it; only a
///   database that takes seconds to answer does (and then heartbeats stall too);
///   [`Reaper::new`] raises the threshold for dispatch intervals over 2 s;
/// - above the workers' heartbeat interval (2 s by default): an outage shorter than that
///   costs each worker at most one or two missed heartbeats, which a lease absorbs as long
///   as it is longer than this threshold plus two heartbeat intervals (9 s; default 30 s).
pub const GAP_THRESHOLD: Duration = Duration::from_secs(5);

/// Least time between two writes of `last_pass` by one coordinator: the reaper task passes
/// every dispatch interval (500 ms by default, less in tests); the row needs no more.
pub const REFRESH_EVERY: Duration = Duration::from_secs(1);

/// Added to the lease in a grace: one worker heartbeat interval (default 2 s), so a worker
/// whose first heartbeat after the outage comes late in its interval (or was in flight and
/// failed as the grace began) still has its lease extended before the grace ends.
pub const HEARTBEAT_SLACK: Duration = Duration::from_secs(2);

/// One coordinator's reaper: [`reap`] plus the shared outage bookkeeping (see the module
/// docs). Owned by the reaper task ([`crate::reaper_task`]).
#[derive(Debug)]
pub struct Reaper {
    /// Grace length: lease + [`HEARTBEAT_SLACK`].
    grace: Duration,
    /// [`GAP_THRESHOLD`], raised for long dispatch intervals.
    gap: Duration,
    /// When this coordinator last stamped `last_pass`; `None` before the first pass.
    refreshed_at: Option<Instant>,
}

impl Reaper {
    /// A reaper for leases of `lease` (the coordinator's `lease_s`) run every
    /// `dispatch_interval` (or sooner).
    pub fn new(lease: Duration, dispatch_interval: Duration) -> Reaper {
        Reaper {
            grace: lease + HEARTBEAT_SLACK,
            gap: GAP_THRESHOLD.max(dispatch_interval * 2 + REFRESH_EVERY),
            refreshed_at: None,
        }
    }

    /// One pass: stamps `last_pass` (starting a grace after a silence, logged once at info)
    /// when [`REFRESH_EVERY`] has passed since this reaper last did, then [`reap`]s up to
    /// `limit` runs; returns `(requeued, lost)`. Errors: any database error; the stamp is
    /// retried on the next pass.
    pub async fn pass(&mut self, pool: &PgPool, limit: i64) -> Result<(u64, u64), sqlx::Error> {
        if self
            .refreshed_at
            .is_none_or(|t| t.elapsed() >= REFRESH_EVERY)
        {
            self.refresh(pool).await?;
            self.refreshed_at = Some(Instant::now());
        }
        reap(pool, limit).await
    }

    /// Stamps `last_pass = now()`; if no coordinator had done so for longer than the gap
    /// threshold (or the row is missing), sets `reap_not_before = now() + grace` — one
    /// statement, so racing coordinators agree.
    async fn refresh(&self, pool: &PgPool) -> Result<(), sqlx::Error> {
        let row = sqlx::query!(
            r#"with prev as (select last_pass from reaper_state where id = 1)
             insert into reaper_state as s (id, last_pass, reap_not_before)
             values (1, now(), now() + make_interval(secs => $2))
             on conflict (id) do update
                set reap_not_before = case
                        when now() - s.last_pass > make_interval(secs => $1)
                        then greatest(s.reap_not_before, excluded.reap_not_before)
                        else s.reap_not_before end,
                    last_pass = greatest(s.last_pass, excluded.last_pass)
             returning s.reap_not_before = now() + make_interval(secs => $2) as "started!",
                       (select extract(epoch from now() - last_pass)::float8 from prev)
                           as silent_s,
                       s.reap_not_before"#,
            self.gap.as_secs_f64(),
            self.grace.as_secs_f64()
        )
        .fetch_one(pool)
        .await?;
        let until: DateTime<Utc> = row.reap_not_before;
        if row.started {
            let silent = row
                .silent_s
                .map_or("an unknown time".to_string(), |s| format!("{s:.1} s"));
            tracing::info!(
                grace_s = self.grace.as_secs_f64(),
                "no coordinator reaped for {silent}; not reaping leases until {until} \
                 (workers get a lease to heartbeat first)"
            );
        }
        Ok(())
    }
}

/// Reaps up to `limit` expired leases — none while `reaper_state.reap_not_before` is ahead
/// (a grace after an outage; [`Reaper::pass`] maintains it) — and ends up to `limit` queued
/// runs past their queue deadline; returns `(requeued, lost)`. Errors: any database error
/// (the transaction is rolled back).
pub async fn reap(pool: &PgPool, limit: i64) -> Result<(u64, u64), sqlx::Error> {
    let mut tx = pool.begin().await?;
    let expired = sqlx::query!(
        r#"select r.id, r.attempt_id as "attempt_id!", r.device_id,
                exists (select 1 from actions a where a.run_id = r.id and a.attempt_id = r.attempt_id
                          and a.disposition <> 'not_delivered') as "delivered!"
           from runs r
          where r.status in ('assigned', 'running') and r.lease_expires_at < now()
            and now() >= (select reap_not_before from reaper_state where id = 1)
          order by r.lease_expires_at
          limit $1
          for update of r skip locked"#,
        limit
    )
    .fetch_all(&mut *tx)
    .await?;
    let (mut requeued, mut lost) = (0, 0);
    let mut lost_on: Vec<String> = Vec::new();
    for row in expired {
        let (run_id, attempt_id) = (row.id, row.attempt_id);
        if row.delivered {
            let idempotent = sqlx::query_scalar!(
                r#"select coalesce((j.spec->>'idempotent')::boolean, false) as "idempotent!"
                     from runs r join jobs j on j.id = r.job_id where r.id = $1"#,
                run_id
            )
            .fetch_one(&mut *tx)
            .await?;
            sqlx::query!(
                "update runs set status = 'lost', finished_at = now(), lease_expires_at = null,
                        failure_class = 'device',
                        error = 'the worker stopped heartbeating after delivering actions; \
                                 check the last screenshots before re-running'
                  where id = $1 and attempt_id = $2",
                run_id,
                attempt_id
            )
            .execute(&mut *tx)
            .await?;
            lost += 1;
            lost_on.extend(row.device_id.clone());
            if idempotent {
                crate::store::jobs::retry_in(&mut tx, run_id).await?;
            }
        } else {
            sqlx::query!(
                "update runs set status = 'queued', attempt_id = null, worker_id = null,
                        device_id = null, lease_expires_at = null, assigned_at = null,
                        started_at = null
                  where id = $1 and attempt_id = $2",
                run_id,
                attempt_id
            )
            .execute(&mut *tx)
            .await?;
            requeued += 1;
        }
        crate::store::claim::free_slot(&mut tx, run_id, row.device_id.as_deref()).await?;
    }
    // a lost run is a `device` failure of its device (its worker vanished mid-run)
    crate::store::health::evaluate(&mut tx, &lost_on).await?;
    // Queued runs past their queue deadline: no matching device became free in time.
    let timed_out = sqlx::query!(
        "update runs set status = 'timed_out', finished_at = now(),
                error = 'no matching free device within the job''s queue_timeout_s'
          where id in (select id from runs
                        where status = 'queued' and queue_deadline < now()
                        limit $1 for update skip locked)",
        limit
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    tx.commit().await?;
    if timed_out > 0 {
        tracing::warn!(timed_out, "queued runs passed their queue deadline");
    }
    if requeued + lost > 0 {
        tracing::warn!(requeued, lost, "reaped expired leases");
    }
    Ok((requeued, lost))
}
