//! The applier's batch ([`apply_batch`]) against one event at a time ([`apply`]): one batch
//! holding a whole run's events (shuffled, with duplicates and a stale attempt) must write
//! the same rows and report the same outcomes; a `run_finished` with a non-terminal status
//! ends the run `errored`; and the SQL fold agrees with `RunDetail::apply` on the same
//! event streams (expectations, verdicts and `unverified` included).

use argus_coordinator::store::claim::claim_batch;
use argus_coordinator::store::events::{apply, apply_batch, Applied};
use argus_coordinator::store::TeamScope;
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
                verdict: None,
                failure_class: None,
            },
        ),
        ev(
            run,
            att,
            9,
            EventBody::RunFinished {
                status: RunStatus::Succeeded,
                error: None,
                verdict: None,
                failure_class: None,
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
            verdict: None,
            failure_class: None,
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
            verdict: None,
            failure_class: None,
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

/// An event at a whole millisecond (what PostgreSQL's timestamps keep exactly).
fn ev_ms(run: Uuid, attempt: Uuid, seq: u64, body: EventBody) -> RunEvent {
    let ms = Utc::now().timestamp_millis() + seq as i64;
    RunEvent {
        at: chrono::DateTime::from_timestamp_millis(ms).expect("time"),
        ..ev(run, attempt, seq, body)
    }
}

/// Event streams (as bodies, seq from 1) whose folds must agree, including a non-terminal
/// `run_finished` (a broken worker) followed by a terminal one.
fn fold_streams(device: &str) -> Vec<Vec<EventBody>> {
    let started = EventBody::RunStarted {
        device_id: device.into(),
        screen_w_px: 390,
        screen_h_px: 844,
    };
    let step = |n: u32, text: &str| EventBody::StepStarted {
        step: n,
        text: text.into(),
    };
    let step_end = |n: u32, ok: bool| EventBody::StepFinished {
        step: n,
        ok,
        error: (!ok).then(|| "no such button".to_string()),
        duration_ms: 7.0,
    };
    // an errored end says its class (device); the others leave it to the fold's rule
    let end = |status: RunStatus, error: Option<&str>| EventBody::RunFinished {
        status,
        error: error.map(str::to_string),
        verdict: None,
        failure_class: (status == RunStatus::Errored)
            .then_some(argus_protocol::FailureClass::Device),
    };
    let expectations = |lines: &[&str]| EventBody::Expectations {
        items: lines
            .iter()
            .map(|l| argus_protocol::expect::Expectation {
                line: l.to_string(),
                source: argus_protocol::expect::ExpectationSource::Job,
                clause: None,
            })
            .collect(),
    };
    let judged = |status: RunStatus, basis: &str, claim: Option<&str>| EventBody::RunFinished {
        status,
        error: None,
        verdict: Some(argus_protocol::expect::Verdict {
            basis: basis.into(),
            expectation: Some("assert screen contains \"Saved\"".into()),
            step: Some(0),
            action: Some(0),
            observation: Some(4),
            claim: claim.map(str::to_string),
        }),
        failure_class: None,
    };
    vec![
        // a run that checked nothing: unverified, its claim recorded; a later end (with
        // another verdict) changes nothing, a later expectations report replaces the first
        vec![
            started.clone(),
            expectations(&["assert screen contains \"Saved\""]),
            step(0, "tap A"),
            action(0, 0, true, Disposition::DeliveredVerified),
            step_end(0, true),
            judged(RunStatus::Unverified, "nothing to check", Some("done")),
            judged(RunStatus::Succeeded, "2 of 2 held", None),
            expectations(&[]),
        ],
        // expectations before the first action, then a failed one named by the verdict
        vec![
            started.clone(),
            expectations(&["assert screen contains \"Saved\"", "wait for \"Done\""]),
            step(0, "tap A"),
            judged(RunStatus::Failed, "did not hold on observation 4", None),
        ],
        // expectations reported, still running
        vec![started.clone(), expectations(&["wait for \"Done\""])],
        // a run that fails, then a second end that changes nothing
        vec![
            started.clone(),
            step(0, "tap A"),
            action(0, 0, true, Disposition::DeliveredVerified),
            step_end(0, true),
            step(1, "tap B"),
            action(1, 0, false, Disposition::NotDelivered),
            step_end(1, false),
            end(RunStatus::Failed, Some("step 2 failed")),
            end(RunStatus::Succeeded, None),
        ],
        // a broken worker: a non-terminal end, then a terminal one
        vec![
            started.clone(),
            step(0, "tap A"),
            end(RunStatus::Running, Some("still going")),
            end(RunStatus::Succeeded, None),
        ],
        // a non-terminal end before anything else
        vec![end(RunStatus::Queued, None)],
        // the device broke: errored, its class reported
        vec![
            started.clone(),
            step(0, "tap A"),
            end(RunStatus::Errored, Some("cannot observe the screen")),
        ],
        // still running
        vec![started, step(0, "tap A"), step_end(0, true)],
    ]
}

/// The two folds of run events into a run's state agree: the coordinator's SQL effects
/// (`apply_batch`, read back with `store::runs::detail`) and [`RunDetail::apply`] (the
/// worker's local report) are fed the same streams and must give the same status, error,
/// screen, start and end times, steps and actions.
///
/// Failed before `argus_protocol::events::run_end`: after a non-terminal `run_finished`
/// the SQL side said `errored`, `RunDetail::apply` kept `running` and took the later
/// `succeeded`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sql_fold_and_run_detail_apply_agree() {
    use argus_protocol::RunDetail;
    let farm = bare_farm().await;
    let pool = &farm.pool;
    let n = fold_streams("").len();
    let mut runs = Vec::new();
    for i in 0..n {
        farm.register_sim_device(&format!("fold-{i}"), "web", json!({"pool": "fold"}), 60)
            .await;
        runs.push(
            farm.submit(
                &json!({"platform": "web", "instruction": format!("wait {i}ms"),
                "selector": {"labels": {"pool": "fold"}}}),
            )
            .await,
        );
    }
    let claimed = claim_batch(pool, 600, 30, 256).await.expect("claim");
    assert_eq!(claimed.len(), n, "{claimed:?}");
    for (i, run) in runs.iter().enumerate() {
        let c = claimed.iter().find(|c| c.run_id == *run).expect("claimed");
        let evs: Vec<RunEvent> = fold_streams(&c.device_id)
            .swap_remove(i)
            .into_iter()
            .enumerate()
            .map(|(k, body)| ev_ms(*run, c.attempt_id, k as u64 + 1, body))
            .collect();
        let before = argus_coordinator::store::runs::detail(pool, *run, &TeamScope::system())
            .await
            .expect("detail")
            .expect("run")
            .0;
        let mut folded = RunDetail {
            status: RunStatus::Assigned,
            ..RunDetail::new(
                before.run_id,
                before.job_id,
                before.spec.clone(),
                before.created_at,
            )
        };
        folded.device_id = before.device_id.clone();
        folded.worker_id = before.worker_id.clone();
        for e in &evs {
            folded.apply(e);
        }
        apply_batch(pool, &evs).await.expect("apply_batch");
        let stored = argus_coordinator::store::runs::detail(pool, *run, &TeamScope::system())
            .await
            .expect("detail")
            .expect("run")
            .0;
        let view = |d: &RunDetail| {
            (
                d.status,
                d.error.clone(),
                d.screen_px,
                d.started_at,
                d.finished_at,
                serde_json::to_value(&d.steps).expect("steps"),
                serde_json::to_value(&d.expectations).expect("expectations"),
                serde_json::to_value(&d.verdict).expect("verdict"),
                d.failure_class,
            )
        };
        assert_eq!(view(&stored), view(&folded), "stream {i}");
    }
    let mut statuses = Vec::new();
    for run in &runs {
        let d = argus_coordinator::store::runs::detail(pool, *run, &TeamScope::system())
            .await
            .expect("detail")
            .expect("run");
        statuses.push((d.0.status, d.0.failure_class.map(|c| c.as_str())));
    }
    assert_eq!(
        statuses,
        [
            (RunStatus::Unverified, None),
            (RunStatus::Failed, Some("app")),
            (RunStatus::Running, None),
            (RunStatus::Failed, Some("app")),
            (RunStatus::Errored, Some("infra")),
            (RunStatus::Errored, Some("infra")),
            (RunStatus::Errored, Some("device")),
            (RunStatus::Running, None)
        ]
    );
}
