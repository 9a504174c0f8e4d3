//! The applier's batch ([`apply_batch`]) against one event at a time ([`apply`]): one batch
//! holding a whole run's events (shuffled, with duplicates and a stale attempt) must write
//! the same rows and report the same outcomes; a `run_finished` with a non-terminal status
//! ends the run `errored`.

use argus_coordinator::store::claim::claim_batch;
use argus_coordinator::store::events::{apply, apply_batch, Applied};
use argus_protocol::{ActionRecord, Disposition, EventBody, RunEvent, RunStatus};
use chrono::Utc;
use serde_json::json;
use uuid::Uuid;

use crate::bare_farm;

fn ev(run: Uuid, attempt: Uuid, seq: u64, body: EventBody) -> RunEvent {
    RunEvent {
        run_id: run,
        attempt_id: attempt,
        seq,
        at: Utc::now() + chrono::Duration::milliseconds(seq as i64),
        body,
    }
}

fn action(step: u32, n: u32, ok: bool, d: Disposition) -> EventBody {
    EventBody::ActionFinished(Box::new(ActionRecord::new(
        step,
        n,
        "tap",
        format!("tap {step}.{n}"),
        ok,
        (!ok).then(|| "not found".to_string()),
        d,
        Utc::now(),
    )))
}

/// A whole run's events as a worker sends them (seq 1..=9), with two `run_finished`: the
/// first (`failed`) ends the run, the second changes nothing.
fn whole_run(run: Uuid, att: Uuid) -> Vec<RunEvent> {
    vec![
        ev(
            run,
            att,
            1,
            EventBody::RunStarted {
                device_id: "d".into(),
                screen_w_px: 800,
                screen_h_px: 600,
            },
        ),
        ev(
            run,
            att,
            2,
            EventBody::StepStarted {
                step: 0,
                text: "tap A".into(),
            },
        ),
        ev(
            run,
            att,
            3,
            action(0, 0, true, Disposition::DeliveredVerified),
        ),
        ev(
            run,
            att,
            4,
            EventBody::StepFinished {
                step: 0,
                ok: true,
                error: None,
                duration_ms: 12.0,
            },
        ),
        // an action of a step whose step_started comes later
        ev(run, att, 5, action(1, 0, false, Disposition::NotDelivered)),
        ev(
            run,
            att,
            6,
            EventBody::StepStarted {
                step: 1,
                text: "tap B".into(),
            },
        ),
        ev(
            run,
            att,
            7,
            EventBody::StepFinished {
                step: 1,
                ok: false,
                error: Some("not found".into()),
                duration_ms: 5.0,
            },
        ),
        ev(
            run,
            att,
            8,
            EventBody::RunFinished {
                status: RunStatus::Failed,
                error: Some("step 2 failed".into()),
            },
        ),
        ev(
            run,
            att,
            9,
            EventBody::RunFinished {
                status: RunStatus::Succeeded,
                error: None,
            },
        ),
    ]
}

type RunState = (
    String,
    Option<String>,
    Option<i32>,
    Option<i32>,
    bool,
    bool,
    i64,
    i64,
    i64,
    bool,
);

/// Everything the applier writes about `run`, comparable across runs.
async fn applied_state(pool: &sqlx::PgPool, run: Uuid) -> (RunState, Vec<String>) {
    let st: RunState = sqlx::query_as(
        "select r.status, r.error, r.screen_w_px, r.screen_h_px, r.started_at is not null,
                r.finished_at is not null,
                (select count(*) from runs x where x.retry_of = r.id),
                (select count(*) from run_events e where e.run_id = r.id),
                (select count(*) from devices d where d.current_run_id = r.id),
                r.lease_expires_at is null
              from runs r where r.id = $1",
    )
    .bind(run)
    .fetch_one(pool)
    .await
    .expect("run");
    let rows: Vec<(String,)> = sqlx::query_as(
        "select format('step %s %s %s %s %s', step, text, ok, error, duration_ms) from steps
          where run_id = $1
         union all
         select format('action %s.%s %s %s %s', step, action, kind, ok, disposition)
           from actions where run_id = $1
         order by 1",
    )
    .bind(run)
    .fetch_all(pool)
    .await
    .expect("rows");
    (st, rows.into_iter().map(|r| r.0).collect())
}

/// Two runs of identical jobs (`retries: 1`) get the same events: one run's as one batch
/// (shuffled, with an in-batch duplicate, a duplicate of an event applied before, and an
/// event of a stale attempt), the other's one event at a time in seq order. The rows
/// written and the outcome of every event must be the same: `Applied::Finished` only for
/// the `run_finished` that ended the run (the second one ends nothing).
///
/// Failed before the fix in `events.rs`: every fresh `run_finished` of a run the batch
/// ended was reported `Finished`, so seq 9 was `Finished` in a batch but `Applied` alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_batch_of_a_whole_run_applies_like_one_event_at_a_time() {
    let farm = bare_farm().await;
    let pool = &farm.pool;
    for i in 0..2 {
        farm.register_sim_device(&format!("fx-{i}"), "web", json!({"pool": "fx"}), 60)
            .await;
    }
    let spec = json!({"platform": "web", "instruction": "wait 1ms", "retries": 1,
        "selector": {"labels": {"pool": "fx"}}});
    let r1 = farm.submit(&spec).await;
    let r2 = farm.submit(&spec).await;
    let claimed = claim_batch(pool, 600, 30, 256).await.expect("claim");
    assert_eq!(claimed.len(), 2, "{claimed:?}");
    let att = |run: Uuid| {
        claimed
            .iter()
            .find(|c| c.run_id == run)
            .map(|c| c.attempt_id)
            .expect("claimed")
    };
    let (a1, a2) = (att(r1), att(r2));

    // run_started of both applied earlier, on its own
    let e1 = whole_run(r1, a1);
    let e2 = whole_run(r2, a2);
    assert_eq!(apply(pool, &e1[0]).await.expect("apply"), Applied::Applied);
    assert_eq!(apply(pool, &e2[0]).await.expect("apply"), Applied::Applied);

    // r1: everything else in one batch, shuffled, plus noise
    let mut batch: Vec<RunEvent> = e1.clone();
    batch.reverse();
    batch.swap(0, 4);
    batch.push(e1[3].clone()); // in-batch duplicate
    batch.push(ev(
        r1,
        Uuid::new_v4(),
        10,
        EventBody::RunFinished {
            status: RunStatus::Succeeded,
            error: None,
        },
    )); // a stale attempt's
    let outcomes = apply_batch(pool, &batch).await.expect("apply_batch");
    let mut by_seq_batch: Vec<(u64, Applied)> = Vec::new();
    for (e, o) in batch.iter().zip(&outcomes) {
        if e.attempt_id != a1 {
            assert_eq!(*o, Applied::Fenced, "stale attempt");
        } else if !by_seq_batch.iter().any(|(s, _)| *s == e.seq) {
            by_seq_batch.push((e.seq, *o));
        } else {
            assert_eq!(
                *o,
                Applied::Duplicate,
                "in-batch duplicate of seq {}",
                e.seq
            );
        }
    }
    by_seq_batch.sort_by_key(|(s, _)| *s);

    // r2: the same events one at a time, in seq order
    let mut by_seq_single: Vec<(u64, Applied)> = vec![(1, Applied::Duplicate)];
    assert_eq!(
        apply(pool, &e2[0]).await.expect("apply"),
        Applied::Duplicate
    );
    for e in &e2[1..] {
        by_seq_single.push((e.seq, apply(pool, e).await.expect("apply")));
    }
    assert_eq!(
        by_seq_single.iter().find(|(s, _)| *s == 8).map(|x| x.1),
        Some(Applied::Finished)
    );

    let (s1, rows1) = applied_state(pool, r1).await;
    let (s2, rows2) = applied_state(pool, r2).await;
    assert_eq!(rows1, rows2, "steps and actions");
    assert_eq!(s1, s2, "run row, retries, events, slot");
    assert_eq!(s1.0, "failed", "the first run_finished (by seq) counts");
    assert_eq!(s1.6, 1, "one retry run");
    assert_eq!(s1.8, 0, "slot freed");
    assert!(
        rows1.contains(&"step 1 tap B f not found 5".to_string()),
        "{rows1:?}"
    );
    assert_eq!(
        by_seq_batch, by_seq_single,
        "per-event outcomes of one batch vs one at a time (seq 9, a second run_finished, \
         ended nothing)"
    );
}

/// A `run_finished` with a non-terminal status (a broken worker) ends the run `errored`
/// with the reason, frees its slot and never puts the run back in the queue under a stale
/// attempt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_terminal_run_finished_ends_the_run_errored() {
    let farm = bare_farm().await;
    let pool = &farm.pool;
    farm.register_sim_device("nt-0", "web", json!({"pool": "nt"}), 60)
        .await;
    let run = farm
        .submit(&json!({"platform": "web", "instruction": "wait 1ms",
            "selector": {"labels": {"pool": "nt"}}}))
        .await;
    let claimed = claim_batch(pool, 600, 30, 256).await.expect("claim");
    assert_eq!(claimed.len(), 1, "{claimed:?}");
    let att = claimed[0].attempt_id;
    let end = ev(
        run,
        att,
        1,
        EventBody::RunFinished {
            status: RunStatus::Queued,
            error: None,
        },
    );
    assert_eq!(apply(pool, &end).await.expect("apply"), Applied::Finished);
    let (status, error): (String, Option<String>) =
        sqlx::query_as("select status, error from runs where id = $1")
            .bind(run)
            .fetch_one(pool)
            .await
            .expect("run");
    assert_eq!(status, "errored");
    assert_eq!(
        error.as_deref(),
        Some(argus_coordinator::store::effects::NON_TERMINAL_END)
    );
    let held: (Option<Uuid>,) =
        sqlx::query_as("select current_run_id from devices where id = 'nt-0'")
            .fetch_one(pool)
            .await
            .expect("slot");
    assert_eq!(held.0, None, "slot freed");
}
