//! Applying run events exactly once: the `(run_id, attempt_id, seq)` row is inserted first in
//! the same transaction as the effect; a duplicate inserts nothing and changes nothing. An
//! event whose attempt id is not the run's current one (a fenced, stale worker) is ignored.
//!
//! [`apply_batch`] applies a fetched batch in one transaction: one statement locks every run
//! of the batch (in id order) and reads its current attempt, one statement inserts the event
//! rows of current attempts (`on conflict do nothing … returning` tells which are new), then
//! each new event's effect is written in order. Same guarantees as one event per
//! transaction, a fraction of the round trips and commits.

use std::collections::{HashMap, HashSet};

use argus_protocol::{EventBody, RunEvent};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

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
    let out = apply_batch(pool, std::slice::from_ref(ev)).await?;
    Ok(out.first().copied().unwrap_or(Applied::Fenced))
}

/// Applies `evs` in one transaction, in order; returns one outcome per event. On error
/// nothing of the batch is written (the caller may retry the events one by one).
pub async fn apply_batch(pool: &PgPool, evs: &[RunEvent]) -> Result<Vec<Applied>, sqlx::Error> {
    if evs.is_empty() {
        return Ok(Vec::new());
    }
    let mut tx = pool.begin().await?;
    // Lock the runs (sorted, so two appliers never deadlock) and read their attempts: every
    // transition that changes an attempt id takes this lock too.
    let mut ids: Vec<Uuid> = evs.iter().map(|e| e.run_id).collect();
    ids.sort();
    ids.dedup();
    let current: Vec<(Uuid, Option<Uuid>)> =
        sqlx::query_as("select id, attempt_id from runs where id = any($1) order by id for update")
            .bind(&ids)
            .fetch_all(&mut *tx)
            .await?;
    let current: HashMap<Uuid, Option<Uuid>> = current.into_iter().collect();
    let mut out = vec![Applied::Fenced; evs.len()];
    let mut seen = HashSet::new();
    let mut live = Vec::new();
    for (i, ev) in evs.iter().enumerate() {
        if current.get(&ev.run_id).copied().flatten() != Some(ev.attempt_id) {
            continue;
        }
        if !seen.insert((ev.run_id, ev.attempt_id, ev.seq)) {
            out[i] = Applied::Duplicate;
            continue;
        }
        live.push(i);
    }
    if live.is_empty() {
        tx.rollback().await?;
        return Ok(out);
    }
    let run_ids: Vec<Uuid> = live.iter().map(|&i| evs[i].run_id).collect();
    let attempt_ids: Vec<Uuid> = live.iter().map(|&i| evs[i].attempt_id).collect();
    let seqs: Vec<i64> = live.iter().map(|&i| evs[i].seq as i64).collect();
    let bodies: Vec<sqlx::types::Json<&EventBody>> = live
        .iter()
        .map(|&i| sqlx::types::Json(&evs[i].body))
        .collect();
    let inserted: Vec<(Uuid, Uuid, i64)> = sqlx::query_as(
        "insert into run_events (run_id, attempt_id, seq, body)
         select * from unnest($1::uuid[], $2::uuid[], $3::int8[], $4::jsonb[])
         on conflict do nothing
         returning run_id, attempt_id, seq",
    )
    .bind(&run_ids)
    .bind(&attempt_ids)
    .bind(&seqs)
    .bind(&bodies)
    .fetch_all(&mut *tx)
    .await?;
    let inserted: HashSet<(Uuid, Uuid, i64)> = inserted.into_iter().collect();
    // Slots freed by this batch are locked up front in id order, the order heartbeats lock
    // them in, so the two never deadlock.
    let finishing: Vec<Uuid> = live
        .iter()
        .map(|&i| &evs[i])
        .filter(|ev| matches!(ev.body, EventBody::RunFinished { .. }))
        .filter(|ev| inserted.contains(&(ev.run_id, ev.attempt_id, ev.seq as i64)))
        .map(|ev| ev.run_id)
        .collect();
    if !finishing.is_empty() {
        sqlx::query("select id from devices where current_run_id = any($1) order by id for update")
            .bind(&finishing)
            .execute(&mut *tx)
            .await?;
    }
    for &i in &live {
        let ev = &evs[i];
        out[i] = if inserted.contains(&(ev.run_id, ev.attempt_id, ev.seq as i64)) {
            effect(&mut tx, ev).await?
        } else {
            Applied::Duplicate
        };
    }
    tx.commit().await?;
    Ok(out)
}

/// Writes the effect of one new, current-attempt event.
async fn effect(tx: &mut PgConnection, ev: &RunEvent) -> Result<Applied, sqlx::Error> {
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
                    crate::store::jobs::retry_in(&mut *tx, ev.run_id).await?;
                }
            }
        }
    }
    Ok(result)
}
