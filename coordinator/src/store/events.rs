//! Applying run events exactly once: the `(run_id, attempt_id, seq)` row is inserted first in
//! the same transaction as the effect; a duplicate inserts nothing and changes nothing. An
//! event whose attempt id is not the run's current one (a fenced, stale worker) is ignored.
//!
//! [`apply_batch`] applies a fetched batch in one transaction: one statement locks every run
//! of the batch (in id order) and reads its current attempt, one statement inserts the event
//! rows of current attempts (`on conflict do nothing … returning` tells which are new), then
//! the new events' effects are written set-wise, one statement per event kind
//! ([`super::effects`]). Same guarantees as one event per transaction, a fraction of the
//! round trips and commits.

use std::collections::{HashMap, HashSet};

use argus_protocol::{EventBody, RunEvent};
use sqlx::{PgConnection, PgPool};

use super::effects;
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
    // key look-ups of the batch's runs and slots, whatever plans the connection cached
    let mut tx = super::begin_keyed(pool).await?;
    let current = lock_attempts(&mut tx, evs).await?;
    let mut out = vec![Applied::Fenced; evs.len()];
    let live = current_attempts(evs, &current, &mut out);
    if live.is_empty() {
        tx.rollback().await?;
        return Ok(out);
    }
    let inserted = insert_rows(&mut tx, evs, &live).await?;
    lock_finishing_slots(&mut tx, evs, &live, &inserted).await?;
    let fresh = mark_fresh(evs, &live, &inserted, &mut out);
    let fresh_evs: Vec<&RunEvent> = fresh.iter().map(|&i| &evs[i]).collect();
    let ended: HashSet<Uuid> = effects::write(&mut tx, &fresh_evs)
        .await?
        .into_iter()
        .map(|(run, _)| run)
        .collect();
    mark_finished(evs, &fresh, &ended, &mut out);
    tx.commit().await?;
    Ok(out)
}

/// An event row's key: `(run_id, attempt_id, seq)`.
type EventKey = (Uuid, Uuid, i64);

fn key_of(ev: &RunEvent) -> EventKey {
    (ev.run_id, ev.attempt_id, ev.seq as i64)
}

/// Locks the runs of `evs` (sorted, so two appliers never deadlock) and reads their current
/// attempts: every transition that changes an attempt id takes this lock too.
async fn lock_attempts(
    tx: &mut PgConnection,
    evs: &[RunEvent],
) -> Result<HashMap<Uuid, Option<Uuid>>, sqlx::Error> {
    let mut ids: Vec<Uuid> = evs.iter().map(|e| e.run_id).collect();
    ids.sort();
    ids.dedup();
    Ok(sqlx::query!(
        "select id, attempt_id from runs where id = any($1) order by id for update",
        &ids
    )
    .fetch_all(&mut *tx)
    .await?
    .into_iter()
    .map(|r| (r.id, r.attempt_id))
    .collect())
}

/// The indexes of the events of their run's current attempt, each `(run, attempt, seq)`
/// once; a repeat within the batch is marked [`Applied::Duplicate`] in `out` (the rest stay
/// [`Applied::Fenced`]).
fn current_attempts(
    evs: &[RunEvent],
    current: &HashMap<Uuid, Option<Uuid>>,
    out: &mut [Applied],
) -> Vec<usize> {
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
    live
}

/// Inserts the event rows of `live` in one statement; returns the keys that were new (a
/// row stored before is left as it was).
async fn insert_rows(
    tx: &mut PgConnection,
    evs: &[RunEvent],
    live: &[usize],
) -> Result<HashSet<EventKey>, sqlx::Error> {
    let run_ids: Vec<Uuid> = live.iter().map(|&i| evs[i].run_id).collect();
    let attempt_ids: Vec<Uuid> = live.iter().map(|&i| evs[i].attempt_id).collect();
    let seqs: Vec<i64> = live.iter().map(|&i| evs[i].seq as i64).collect();
    let bodies: Vec<sqlx::types::Json<&EventBody>> = live
        .iter()
        .map(|&i| sqlx::types::Json(&evs[i].body))
        .collect();
    Ok(sqlx::query!(
        "insert into run_events (run_id, attempt_id, seq, body)
         select * from unnest($1::uuid[], $2::uuid[], $3::int8[], $4::jsonb[])
         on conflict do nothing
         returning run_id, attempt_id, seq",
        &run_ids,
        &attempt_ids,
        &seqs,
        &bodies as _
    )
    .fetch_all(&mut *tx)
    .await?
    .into_iter()
    .map(|r| (r.run_id, r.attempt_id, r.seq))
    .collect())
}

/// Locks the slots this batch frees (the runs of its new `run_finished` events) up front in
/// id order, the order heartbeats lock them in, so the two never deadlock. A run's slot is
/// found by the run's `device_id` (the slot's primary key): a claim sets the slot's
/// `current_run_id` and the run's `device_id` together, and a run's `device_id` is only
/// cleared together with its slot (the reaper's re-queue, `unclaim`).
async fn lock_finishing_slots(
    tx: &mut PgConnection,
    evs: &[RunEvent],
    live: &[usize],
    inserted: &HashSet<EventKey>,
) -> Result<(), sqlx::Error> {
    let finishing: Vec<Uuid> = live
        .iter()
        .map(|&i| &evs[i])
        .filter(|ev| matches!(ev.body, EventBody::RunFinished { .. }))
        .filter(|ev| inserted.contains(&key_of(ev)))
        .map(|ev| ev.run_id)
        .collect();
    if !finishing.is_empty() {
        sqlx::query!(
            "select id from devices
              where id = any (array(select r.device_id from runs r where r.id = any($1)))
                and current_run_id = any($1)
              order by id for update",
            &finishing
        )
        .fetch_all(&mut *tx)
        .await?;
    }
    Ok(())
}

/// Marks each of `live` [`Applied::Applied`] when its row was new, else
/// [`Applied::Duplicate`]; returns the new ones' indexes, in order.
fn mark_fresh(
    evs: &[RunEvent],
    live: &[usize],
    inserted: &HashSet<EventKey>,
    out: &mut [Applied],
) -> Vec<usize> {
    let mut fresh = Vec::with_capacity(live.len());
    for &i in live {
        if inserted.contains(&key_of(&evs[i])) {
            out[i] = Applied::Applied;
            fresh.push(i);
        } else {
            out[i] = Applied::Duplicate;
        }
    }
    fresh
}

/// Marks [`Applied::Finished`] the `run_finished` that ended each run of `ended`: its first
/// fresh one by seq (later ones change nothing, as they would one at a time).
fn mark_finished(evs: &[RunEvent], fresh: &[usize], ended: &HashSet<Uuid>, out: &mut [Applied]) {
    let mut ender: HashMap<Uuid, usize> = HashMap::new();
    for &i in fresh {
        let ev = &evs[i];
        if matches!(ev.body, EventBody::RunFinished { .. }) && ended.contains(&ev.run_id) {
            let e = ender.entry(ev.run_id).or_insert(i);
            if evs[*e].seq > ev.seq {
                *e = i;
            }
        }
    }
    for i in ender.into_values() {
        out[i] = Applied::Finished;
    }
}
