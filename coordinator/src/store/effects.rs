//! The effects of a batch of new, current-attempt run events, written set-wise: one
//! statement per event kind (`unnest` of arrays) instead of one per event, so a batch of
//! 256 events costs about seven round trips.
//!
//! Kinds are written in the order a run produces them (run started, expectations, step
//! started, action finished, step finished, learned script, run finished). Every effect is a field-wise merge that does not
//! depend on the order of different kinds (a `running` status is only set on an `assigned`
//! or `running` run; a terminal status only on a non-terminal run). Within one kind the
//! result is the one events applied one at a time in `seq` order give: for steps and
//! actions the last event wins; for a run's start and end the first (later ones change
//! nothing). A run whose start and end arrive in one batch (a short run, or one whose events
//! queued up) is started and ended by one UPDATE of its row, with the same result.

use std::collections::BTreeMap;

use argus_protocol::events::run_end;
use argus_protocol::expect::{Expectation, Verdict};
use argus_protocol::{failure_class, ActionRecord, EventBody, FailureClass, RunEvent, RunStatus};
use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

pub use argus_protocol::events::NON_TERMINAL_END;

/// Key of a step row: `(run_id, attempt_id, step)`.
type StepKey = (Uuid, Uuid, u32);
/// Key of a run's attempt: `(run_id, attempt_id)`.
type RunKey = (Uuid, Uuid);
/// A run's start: `(at, screen width px, screen height px)`.
type Start = (DateTime<Utc>, i32, i32);
/// A run's end: `(status, error, at, verdict, failure class)`.
type End<'a> = (
    RunStatus,
    Option<&'a str>,
    DateTime<Utc>,
    Option<&'a Verdict>,
    Option<FailureClass>,
);

/// Writes the effects of `evs` (new, current-attempt events only) inside the caller's
/// transaction; returns the `(run_id, status)` of the runs this batch ended.
///
/// Errors: any statement's database error; the caller rolls the batch back.
pub async fn write(
    tx: &mut PgConnection,
    evs: &[&RunEvent],
) -> Result<Vec<(Uuid, RunStatus)>, sqlx::Error> {
    let mut started: BTreeMap<RunKey, Start> = BTreeMap::new();
    let mut step_text: BTreeMap<StepKey, &str> = BTreeMap::new();
    let mut actions: BTreeMap<(Uuid, Uuid, u32, u32), &ActionRecord> = BTreeMap::new();
    let mut step_end: BTreeMap<StepKey, (bool, Option<&str>, f64)> = BTreeMap::new();
    let mut finished: BTreeMap<RunKey, End> = BTreeMap::new();
    let mut learned: BTreeMap<RunKey, &str> = BTreeMap::new();
    let mut expectations: BTreeMap<RunKey, &[Expectation]> = BTreeMap::new();
    let mut sorted: Vec<&RunEvent> = evs.to_vec();
    sorted.sort_by_key(|e| (e.run_id, e.attempt_id, e.seq));
    for ev in sorted {
        let run = (ev.run_id, ev.attempt_id);
        match &ev.body {
            EventBody::RunStarted {
                screen_w_px,
                screen_h_px,
                ..
            } => {
                // the first start counts (`started_at` is kept once set)
                started
                    .entry(run)
                    .or_insert((ev.at, *screen_w_px as i32, *screen_h_px as i32));
            }
            EventBody::StepStarted { step, text } => {
                step_text.insert((ev.run_id, ev.attempt_id, *step), text);
            }
            EventBody::ActionFinished(a) => {
                actions.insert((ev.run_id, ev.attempt_id, a.step, a.action), a);
            }
            EventBody::StepFinished {
                step,
                ok,
                error,
                duration_ms,
            } => {
                step_end.insert(
                    (ev.run_id, ev.attempt_id, *step),
                    (*ok, error.as_deref(), *duration_ms),
                );
            }
            EventBody::Expectations { items } => {
                // the last report wins, as in `RunDetail::apply`
                expectations.insert(run, items);
            }
            EventBody::ReplayLearned { script } => {
                learned.insert(run, script);
            }
            EventBody::RunFinished {
                status,
                error,
                verdict,
                failure_class: class,
            } => {
                // A non-terminal end (a broken worker) ends the run `errored`, saying
                // why: the same rule as `RunDetail::apply` (`argus_protocol::events::run_end`),
                // and so is the failure class (`argus_protocol::failure_class`).
                let (status, error) = run_end(*status, error.as_deref());
                let class = failure_class(status, *class);
                finished
                    .entry(run)
                    .or_insert((status, error, ev.at, verdict.as_ref(), class));
            }
        }
    }
    // A run whose start and end are both in this batch is written once, by its end (one
    // row version instead of two: `runs` updates are not HOT, each one costs index entries).
    let folded: BTreeMap<RunKey, Start> = finished
        .keys()
        .filter_map(|k| Some((*k, started.remove(k)?)))
        .collect();
    runs_started(tx, &started).await?;
    crate::store::verdicts::expectations(tx, &expectations).await?;
    steps_started(tx, &step_text).await?;
    actions_finished(tx, &actions).await?;
    steps_finished(tx, &step_end).await?;
    // every learned script is the run's exported step file; the replay cache keeps it only
    // for jobs that write the cache (`replay::learned` decides)
    crate::store::verdicts::steps_scripts(tx, &learned).await?;
    crate::store::replay::learned(tx, &learned).await?;
    runs_finished(tx, &finished, &folded).await
}

/// Marks the runs of `started` running. Primary-key look-ups whatever the statistics say:
/// `r.id = any ($1)` besides the join (planned when few runs were active, the join walked
/// every entry of `runs_active_team`, dead ones included while vacuum had not run: 39 ms a
/// batch in `dispatch-bench` with 10,000 devices), and the status is read by key in a
/// materialized CTE and checked there, the updated row only compared with it: a condition
/// `status in ('assigned', 'running')` on the updated table is `runs_active_team`'s
/// predicate, and with statistics taken while no run was active the planner walked that
/// whole index (every assigned or running run: ~5,700 of them, 1,700 buffers and 10 ms a
/// batch with 10,000 devices busy) to find the batch's few runs. `r.status = t.status`
/// keeps the update fenced should the row change after the CTE read it (the applier holds
/// the batch's runs locked, so it does not).
async fn runs_started(
    tx: &mut PgConnection,
    started: &BTreeMap<RunKey, Start>,
) -> Result<(), sqlx::Error> {
    if started.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = started.keys().map(|k| k.0).collect();
    let atts: Vec<Uuid> = started.keys().map(|k| k.1).collect();
    let ats: Vec<DateTime<Utc>> = started.values().map(|v| v.0).collect();
    let ws: Vec<i32> = started.values().map(|v| v.1).collect();
    let hs: Vec<i32> = started.values().map(|v| v.2).collect();
    sqlx::query!(
        "with t as materialized (
             select x.id, x.attempt_id, x.status from runs x where x.id = any ($1))
         update runs r set status = 'running', started_at = coalesce(r.started_at, u.at),
                screen_w_px = u.w, screen_h_px = u.h
           from unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::int4[], $5::int4[])
                as u(id, att, at, w, h), t
          where t.id = u.id and t.attempt_id = u.att and t.status in ('assigned', 'running')
            and r.id = t.id and r.attempt_id = t.attempt_id and r.status = t.status
            and r.id = any ($1)",
        &ids,
        &atts,
        &ats,
        &ws,
        &hs
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

fn step_columns<V>(m: &BTreeMap<StepKey, V>) -> (Vec<Uuid>, Vec<Uuid>, Vec<i32>) {
    (
        m.keys().map(|k| k.0).collect(),
        m.keys().map(|k| k.1).collect(),
        m.keys().map(|k| k.2 as i32).collect(),
    )
}

async fn steps_started(
    tx: &mut PgConnection,
    steps: &BTreeMap<StepKey, &str>,
) -> Result<(), sqlx::Error> {
    if steps.is_empty() {
        return Ok(());
    }
    let (ids, atts, nums) = step_columns(steps);
    let texts: Vec<&str> = steps.values().copied().collect();
    sqlx::query!(
        "insert into steps (run_id, attempt_id, step, text)
         select * from unnest($1::uuid[], $2::uuid[], $3::int4[], $4::text[])
         on conflict (run_id, attempt_id, step) do update set text = excluded.text",
        &ids,
        &atts,
        &nums,
        &texts as _
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

async fn actions_finished(
    tx: &mut PgConnection,
    actions: &BTreeMap<(Uuid, Uuid, u32, u32), &ActionRecord>,
) -> Result<(), sqlx::Error> {
    if actions.is_empty() {
        return Ok(());
    }
    // the step row an action belongs to exists before the action row
    let steps: BTreeMap<StepKey, ()> = actions.keys().map(|k| ((k.0, k.1, k.2), ())).collect();
    let (ids, atts, nums) = step_columns(&steps);
    sqlx::query!(
        "insert into steps (run_id, attempt_id, step)
         select * from unnest($1::uuid[], $2::uuid[], $3::int4[])
         on conflict do nothing",
        &ids,
        &atts,
        &nums
    )
    .execute(&mut *tx)
    .await?;
    let ids: Vec<Uuid> = actions.keys().map(|k| k.0).collect();
    let atts: Vec<Uuid> = actions.keys().map(|k| k.1).collect();
    let steps: Vec<i32> = actions.keys().map(|k| k.2 as i32).collect();
    let nums: Vec<i32> = actions.keys().map(|k| k.3 as i32).collect();
    let kinds: Vec<&str> = actions.values().map(|a| a.kind.as_str()).collect();
    let oks: Vec<bool> = actions.values().map(|a| a.ok).collect();
    let dispositions: Vec<&str> = actions.values().map(|a| a.disposition.as_str()).collect();
    let records: Vec<sqlx::types::Json<&ActionRecord>> =
        actions.values().map(|a| sqlx::types::Json(*a)).collect();
    sqlx::query!(
        "insert into actions (run_id, attempt_id, step, action, kind, ok, disposition, record)
         select * from unnest($1::uuid[], $2::uuid[], $3::int4[], $4::int4[], $5::text[],
                              $6::bool[], $7::text[], $8::jsonb[])
         on conflict (run_id, attempt_id, step, action) do update
           set kind = excluded.kind, ok = excluded.ok,
               disposition = excluded.disposition, record = excluded.record",
        &ids,
        &atts,
        &steps,
        &nums,
        &kinds as _,
        &oks,
        &dispositions as _,
        &records as _
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

async fn steps_finished(
    tx: &mut PgConnection,
    steps: &BTreeMap<StepKey, (bool, Option<&str>, f64)>,
) -> Result<(), sqlx::Error> {
    if steps.is_empty() {
        return Ok(());
    }
    let (ids, atts, nums) = step_columns(steps);
    let oks: Vec<bool> = steps.values().map(|v| v.0).collect();
    let errors: Vec<Option<&str>> = steps.values().map(|v| v.1).collect();
    let durations: Vec<f64> = steps.values().map(|v| v.2).collect();
    sqlx::query!(
        "insert into steps (run_id, attempt_id, step, ok, error, duration_ms)
         select * from unnest($1::uuid[], $2::uuid[], $3::int4[], $4::bool[], $5::text[],
                              $6::float8[])
         on conflict (run_id, attempt_id, step) do update
           set ok = excluded.ok, error = excluded.error, duration_ms = excluded.duration_ms",
        &ids,
        &atts,
        &nums,
        &oks,
        &errors as _,
        &durations
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Ends the runs of `finished`; a run with an entry in `folded` (its start came in the same
/// batch) is started in the same UPDATE, with the effect [`runs_started`] would have had
/// first: `started_at` (kept once set) and the screen size, only while the run was
/// `assigned` or `running`.
async fn runs_finished(
    tx: &mut PgConnection,
    finished: &BTreeMap<RunKey, End<'_>>,
    folded: &BTreeMap<RunKey, Start>,
) -> Result<Vec<(Uuid, RunStatus)>, sqlx::Error> {
    if finished.is_empty() {
        return Ok(Vec::new());
    }
    let start_ats: Vec<Option<DateTime<Utc>>> = finished
        .keys()
        .map(|k| folded.get(k).map(|s| s.0))
        .collect();
    let start_ws: Vec<Option<i32>> = finished
        .keys()
        .map(|k| folded.get(k).map(|s| s.1))
        .collect();
    let start_hs: Vec<Option<i32>> = finished
        .keys()
        .map(|k| folded.get(k).map(|s| s.2))
        .collect();
    let ids: Vec<Uuid> = finished.keys().map(|k| k.0).collect();
    let atts: Vec<Uuid> = finished.keys().map(|k| k.1).collect();
    let statuses: Vec<&str> = finished.values().map(|v| v.0.as_str()).collect();
    let errors: Vec<Option<&str>> = finished.values().map(|v| v.1).collect();
    let ats: Vec<DateTime<Utc>> = finished.values().map(|v| v.2).collect();
    let verdicts: Vec<Option<sqlx::types::Json<&Verdict>>> = finished
        .values()
        .map(|v| v.3.map(sqlx::types::Json))
        .collect();
    let classes: Vec<Option<&str>> = finished.values().map(|v| v.4.map(|c| c.as_str())).collect();
    let ended = sqlx::query!(
        "update runs r set status = u.status, error = u.error, finished_at = u.at,
                lease_expires_at = null, verdict = u.verdict, failure_class = u.class,
                started_at = case when u.s_at is not null and r.status in ('assigned', 'running')
                                  then coalesce(r.started_at, u.s_at) else r.started_at end,
                screen_w_px = case when u.s_at is not null and r.status in ('assigned', 'running')
                                   then u.w else r.screen_w_px end,
                screen_h_px = case when u.s_at is not null and r.status in ('assigned', 'running')
                                   then u.h else r.screen_h_px end
           from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[],
                       $6::jsonb[], $7::text[], $8::timestamptz[], $9::int4[], $10::int4[])
                as u(id, att, status, error, at, verdict, class, s_at, w, h)
          where r.id = u.id and r.attempt_id = u.att
            and r.status in ('queued', 'assigned', 'running') and r.id = any ($1)
         returning r.id, r.device_id, r.probe_device, r.status",
        &ids,
        &atts,
        &statuses as _,
        &errors as _,
        &ats,
        &verdicts as _,
        &classes as _,
        &start_ats as _,
        &start_ws as _,
        &start_hs as _
    )
    .fetch_all(&mut *tx)
    .await?;
    // the health of the devices these runs ended on (quarantine after device failures); a
    // health probe does not count, one that passed releases its device
    let devices: Vec<String> = ended
        .iter()
        .filter(|r| r.probe_device.is_none())
        .filter_map(|r| r.device_id.clone())
        .collect();
    crate::store::health::evaluate(&mut *tx, &devices).await?;
    let probes_passed: Vec<(Uuid, String)> = ended
        .iter()
        .filter(|r| r.status == RunStatus::Succeeded.as_str())
        .filter_map(|r| Some((r.id, r.probe_device.clone()?)))
        .collect();
    crate::store::probes::passed(&mut *tx, &probes_passed).await?;
    let ended: Vec<Uuid> = ended.into_iter().map(|r| r.id).collect();
    // the slot is freed whether or not the status changed (a cancelled or reaped run's
    // worker still reports its end); found by the runs' device_id (primary-key look-ups:
    // no index holds current_run_id, so the update is HOT, migration 0020; `any (array(…))`
    // because a join to runs made the planner read every slot for a hash join)
    sqlx::query!(
        "update devices set current_run_id = null
          where id = any (array(select r.device_id from runs r where r.id = any($1)))
            and current_run_id = any($1)",
        &ids
    )
    .execute(&mut *tx)
    .await?;
    let ended: std::collections::HashSet<Uuid> = ended.into_iter().collect();
    let mut out = Vec::with_capacity(ended.len());
    let passed: Vec<Uuid> = finished
        .iter()
        .filter(|(k, v)| ended.contains(&k.0) && v.0 == RunStatus::Succeeded)
        .map(|(k, _)| k.0)
        .collect();
    crate::store::attempts::mark_flaky(&mut *tx, &passed).await?;
    for (k, v) in finished {
        if !ended.contains(&k.0) {
            continue;
        }
        if matches!(
            v.0,
            RunStatus::Failed | RunStatus::Errored | RunStatus::TimedOut
        ) {
            crate::store::jobs::retry_in(&mut *tx, k.0).await?;
        }
        out.push((k.0, v.0));
    }
    Ok(out)
}
