//! Applying run events exactly once: the `(run_id, attempt_id, seq)` row is inserted first in
//! the same transaction as the effect; a duplicate inserts nothing and changes nothing. An
//! event whose attempt id is not the run's current one (a fenced, stale worker) is ignored.

use argus_protocol::{EventBody, RunEvent};
use sqlx::PgPool;

/// What applying an event did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Effect written.
    Applied,
    /// Seen before; nothing changed.
    Duplicate,
    /// From a stale attempt or an unknown run; nothing changed.
    Fenced,
    /// Applied, and it ended the run (its slot is free now).
    Finished,
}

/// Applies one event in one transaction.
pub async fn apply(pool: &PgPool, ev: &RunEvent) -> Result<Applied, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let current: Option<(Option<uuid::Uuid>,)> =
        sqlx::query_as("select attempt_id from runs where id = $1 for update")
            .bind(ev.run_id)
            .fetch_optional(&mut *tx)
            .await?;
    if current.and_then(|c| c.0) != Some(ev.attempt_id) {
        tx.rollback().await?;
        return Ok(Applied::Fenced);
    }
    let inserted = sqlx::query(
        "insert into run_events (run_id, attempt_id, seq, body) values ($1, $2, $3, $4)
         on conflict do nothing",
    )
    .bind(ev.run_id)
    .bind(ev.attempt_id)
    .bind(ev.seq as i64)
    .bind(sqlx::types::Json(&ev.body))
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if inserted == 0 {
        tx.rollback().await?;
        return Ok(Applied::Duplicate);
    }
    let mut result = Applied::Applied;
    match &ev.body {
        EventBody::RunStarted {
            device_id: _,
            screen_w_px,
            screen_h_px,
        } => {
            sqlx::query(
                "update runs set status = 'running', started_at = coalesce(started_at, $3),
                        screen_w_px = $4, screen_h_px = $5
                  where id = $1 and attempt_id = $2 and status in ('assigned', 'running')",
            )
            .bind(ev.run_id)
            .bind(ev.attempt_id)
            .bind(ev.at)
            .bind(*screen_w_px as i32)
            .bind(*screen_h_px as i32)
            .execute(&mut *tx)
            .await?;
        }
        EventBody::StepStarted { step, text } => {
            sqlx::query(
                "insert into steps (run_id, attempt_id, step, text) values ($1, $2, $3, $4)
                 on conflict (run_id, attempt_id, step) do update set text = excluded.text",
            )
            .bind(ev.run_id)
            .bind(ev.attempt_id)
            .bind(*step as i32)
            .bind(text)
            .execute(&mut *tx)
            .await?;
        }
        EventBody::ActionFinished(a) => {
            sqlx::query(
                "insert into steps (run_id, attempt_id, step) values ($1, $2, $3)
                 on conflict do nothing",
            )
            .bind(ev.run_id)
            .bind(ev.attempt_id)
            .bind(a.step as i32)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "insert into actions (run_id, attempt_id, step, action, kind, ok, disposition, record)
                 values ($1, $2, $3, $4, $5, $6, $7, $8)
                 on conflict (run_id, attempt_id, step, action) do update
                   set kind = excluded.kind, ok = excluded.ok,
                       disposition = excluded.disposition, record = excluded.record",
            )
            .bind(ev.run_id)
            .bind(ev.attempt_id)
            .bind(a.step as i32)
            .bind(a.action as i32)
            .bind(&a.kind)
            .bind(a.ok)
            .bind(a.disposition.as_str())
            .bind(sqlx::types::Json(a.as_ref()))
            .execute(&mut *tx)
            .await?;
        }
        EventBody::StepFinished {
            step,
            ok,
            error,
            duration_ms,
        } => {
            sqlx::query(
                "insert into steps (run_id, attempt_id, step, ok, error, duration_ms)
                 values ($1, $2, $3, $4, $5, $6)
                 on conflict (run_id, attempt_id, step) do update
                   set ok = excluded.ok, error = excluded.error, duration_ms = excluded.duration_ms",
            )
            .bind(ev.run_id)
            .bind(ev.attempt_id)
            .bind(*step as i32)
            .bind(*ok)
            .bind(error.as_deref())
            .bind(*duration_ms)
            .execute(&mut *tx)
            .await?;
        }
        EventBody::RunFinished { status, error } => {
            let n = sqlx::query(
                "update runs set status = $3, error = $4, finished_at = $5, lease_expires_at = null
                  where id = $1 and attempt_id = $2
                    and status in ('queued', 'assigned', 'running')",
            )
            .bind(ev.run_id)
            .bind(ev.attempt_id)
            .bind(status.as_str())
            .bind(error.as_deref())
            .bind(ev.at)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            sqlx::query("update devices set current_run_id = null where current_run_id = $1")
                .bind(ev.run_id)
                .execute(&mut *tx)
                .await?;
            if n == 1 {
                result = Applied::Finished;
                if matches!(
                    status,
                    argus_protocol::RunStatus::Failed
                        | argus_protocol::RunStatus::Errored
                        | argus_protocol::RunStatus::TimedOut
                ) {
                    crate::store::jobs::retry_in(&mut tx, ev.run_id).await?;
                }
            }
        }
    }
    tx.commit().await?;
    Ok(result)
}
