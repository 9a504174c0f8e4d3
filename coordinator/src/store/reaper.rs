//! The lease reaper: a run whose lease expired (its worker stopped heartbeating) is
//! re-queued when nothing of its current attempt was delivered to the device (every action
//! `not_delivered`, or none yet), and otherwise ends `lost` with its evidence kept, for a
//! person to judge (and, for an `idempotent` job with retries left, retried as a new run).
//! Its slot is freed either way. Queued runs past their `queue_timeout_s` end `timed_out`. Rows are taken `FOR UPDATE SKIP LOCKED`,
//! so several coordinators can reap at once.

use sqlx::PgPool;

/// Reaps up to `limit` expired leases; returns `(requeued, lost)`.
pub async fn reap(pool: &PgPool, limit: i64) -> Result<(u64, u64), sqlx::Error> {
    let mut tx = pool.begin().await?;
    let expired: Vec<(uuid::Uuid, uuid::Uuid, bool)> = sqlx::query_as(
        "select r.id, r.attempt_id,
                exists (select 1 from actions a where a.run_id = r.id and a.attempt_id = r.attempt_id
                          and a.disposition <> 'not_delivered') as delivered
           from runs r
          where r.status in ('assigned', 'running') and r.lease_expires_at < now()
          order by r.lease_expires_at
          limit $1
          for update of r skip locked",
    )
    .bind(limit)
    .fetch_all(&mut *tx)
    .await?;
    let (mut requeued, mut lost) = (0, 0);
    for (run_id, attempt_id, delivered) in expired {
        if delivered {
            let idempotent: (bool,) = sqlx::query_as(
                "select coalesce((j.spec->>'idempotent')::boolean, false)
                   from runs r join jobs j on j.id = r.job_id where r.id = $1",
            )
            .bind(run_id)
            .fetch_one(&mut *tx)
            .await?;
            sqlx::query(
                "update runs set status = 'lost', finished_at = now(), lease_expires_at = null,
                        error = 'the worker stopped heartbeating after delivering actions; \
                                 check the last screenshots before re-running'
                  where id = $1 and attempt_id = $2",
            )
            .bind(run_id)
            .bind(attempt_id)
            .execute(&mut *tx)
            .await?;
            lost += 1;
            if idempotent.0 {
                crate::store::jobs::retry_in(&mut tx, run_id).await?;
            }
        } else {
            sqlx::query(
                "update runs set status = 'queued', attempt_id = null, worker_id = null,
                        device_id = null, lease_expires_at = null, assigned_at = null,
                        started_at = null
                  where id = $1 and attempt_id = $2",
            )
            .bind(run_id)
            .bind(attempt_id)
            .execute(&mut *tx)
            .await?;
            requeued += 1;
        }
        sqlx::query("update devices set current_run_id = null where current_run_id = $1")
            .bind(run_id)
            .execute(&mut *tx)
            .await?;
    }
    // Queued runs past their queue deadline: no matching device became free in time.
    let timed_out = sqlx::query(
        "update runs set status = 'timed_out', finished_at = now(),
                error = 'no matching free device within the job''s queue_timeout_s'
          where id in (select id from runs
                        where status = 'queued' and queue_deadline < now()
                        limit $1 for update skip locked)",
    )
    .bind(limit)
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
