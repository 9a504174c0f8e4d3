//! Pins the reaper's grace after an outage (`argus_coordinator::store::reaper`, migration
//! 0004) on a real database, with no processes: a pass after a silence longer than the gap
//! threshold holds expired leases back for a lease plus slack; a pass after a short one (a
//! quick restart) or next to a live sibling coordinator starts no grace and reaps at once;
//! once the grace ends, expired leases are reaped again. And a coordinator whose dispatcher
//! is stuck (here: behind a sibling's claim lock) keeps reaping on time, because the reaper
//! has a task of its own.

use std::time::{Duration, Instant};

use argus_coordinator::store::reaper::{Reaper, GAP_THRESHOLD, HEARTBEAT_SLACK};
use argus_coordinator::store::MIGRATOR;
use argus_tests::procs::{ProcFarm, ProcFarmOptions};
use serde_json::json;
use uuid::Uuid;

const LEASE: Duration = Duration::from_secs(30);
const TICK: Duration = Duration::from_millis(200);

/// A `running` run whose lease expired a minute ago, nothing delivered (so a reap re-queues).
async fn expired_run(pool: &sqlx::PgPool) -> Uuid {
    let (job, run) = (Uuid::new_v4(), Uuid::new_v4());
    sqlx::query("insert into jobs (id, spec, platform) values ($1, '{}', 'web')")
        .bind(job)
        .execute(pool)
        .await
        .expect("job");
    sqlx::query(
        "insert into runs (id, job_id, status, attempt_id, attempts, worker_id,
                           lease_expires_at, assigned_at, started_at)
         values ($1, $2, 'running', $3, 1, 'w', now() - interval '1 minute',
                 now() - interval '2 minutes', now() - interval '2 minutes')",
    )
    .bind(run)
    .bind(job)
    .bind(Uuid::new_v4())
    .execute(pool)
    .await
    .expect("run");
    run
}

async fn status(pool: &sqlx::PgPool, run: Uuid) -> String {
    let s: (String,) = sqlx::query_as("select status from runs where id = $1")
        .bind(run)
        .fetch_one(pool)
        .await
        .expect("status");
    s.0
}

/// Seconds from now to `reap_not_before` (negative: reaping allowed).
async fn grace_left_s(pool: &sqlx::PgPool) -> f64 {
    let s: (f64,) = sqlx::query_as(
        "select extract(epoch from reap_not_before - now())::float8 from reaper_state",
    )
    .fetch_one(pool)
    .await
    .expect("reaper_state");
    s.0
}

async fn silence(pool: &sqlx::PgPool, secs: f64) {
    sqlx::query("update reaper_state set last_pass = now() - make_interval(secs => $1)")
        .bind(secs)
        .execute(pool)
        .await
        .expect("set last_pass");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reaper_grace_follows_only_a_silence() {
    let farm = ProcFarm::start(ProcFarmOptions::default()).await;
    let pool = &farm.pool;
    MIGRATOR.run(pool).await.expect("migrate");

    // Every coordinator silent for longer than the threshold: a grace of lease + slack.
    let run = expired_run(pool).await;
    silence(pool, GAP_THRESHOLD.as_secs_f64() + 5.0).await;
    let mut a = Reaper::new(LEASE, TICK);
    assert_eq!(a.pass(pool, 100).await.expect("pass"), (0, 0));
    assert_eq!(status(pool, run).await, "running", "held back in the grace");
    let left = grace_left_s(pool).await;
    let want = (LEASE + HEARTBEAT_SLACK).as_secs_f64();
    assert!(left > want - 2.0 && left <= want, "grace of {left} s");

    // A second coordinator passing right after finds `last_pass` fresh: no new grace, and it
    // does not reap either while the first grace lasts.
    let mut b = Reaper::new(LEASE, TICK);
    assert_eq!(b.pass(pool, 100).await.expect("pass"), (0, 0));
    assert!(
        grace_left_s(pool).await <= left,
        "the grace was not extended"
    );
    assert_eq!(status(pool, run).await, "running");

    // The grace over, the same expired lease is reaped (re-queued: nothing delivered).
    sqlx::query("update reaper_state set reap_not_before = now() - interval '1 second'")
        .execute(pool)
        .await
        .expect("end the grace");
    assert_eq!(b.pass(pool, 100).await.expect("pass"), (1, 0));
    assert_eq!(status(pool, run).await, "queued");

    // A quick restart (silence under the threshold): reaps on its first pass.
    let run = expired_run(pool).await;
    silence(pool, GAP_THRESHOLD.as_secs_f64() - 2.0).await;
    let mut c = Reaper::new(LEASE, TICK);
    assert_eq!(c.pass(pool, 100).await.expect("pass"), (1, 0));
    assert_eq!(status(pool, run).await, "queued");
    assert!(grace_left_s(pool).await < 0.0, "no grace");
}

/// A dispatcher stuck in a claim must not read as an outage. Here a sibling coordinator
/// holds the claim's advisory lock (any team has a quota) for 7 s, as a slow claim of its
/// own would, while this coordinator keeps answering heartbeats. A dead worker's lease
/// that expired meanwhile must be reaped within moments, not a lease later.
///
/// Failed while the dispatcher task also ran the reaper (fixed by `reaper_task.rs`): the
/// first pass after the stall found `last_pass` 7 s old (> the 5 s gap) and started a 32 s
/// grace; with claims that kept taking longer than the gap, every pass renewed it and
/// expired leases were never reaped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_dispatcher_does_not_suspend_reaping() {
    let farm = crate::bare_farm().await;
    let pool = &farm.pool;
    farm.register_sim_device("q-0", "web", json!({"pool": "q"}), 3600)
        .await;
    // a due run that no live slot matches, and a quota: every claim takes the advisory lock
    farm.submit(&json!({"platform": "web", "instruction": "wait 1ms",
        "selector": {"labels": {"pool": "q"}}}))
        .await;
    crate::exec(
        pool,
        "update teams set max_concurrent = 100 where id = 'default'",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await; // a normal pass or two
    let mut sibling = pool.begin().await.expect("tx");
    sqlx::query("select pg_advisory_xact_lock(7306813395581925699)")
        .execute(&mut *sibling)
        .await
        .expect("advisory lock");
    // wait until this coordinator's dispatcher is stuck on it
    let waiting = Instant::now();
    loop {
        let n: (i64,) = sqlx::query_as(
            "select count(*) from pg_locks l join pg_database d on d.oid = l.database
              where l.locktype = 'advisory' and not l.granted
                and d.datname = current_database()",
        )
        .fetch_one(pool)
        .await
        .expect("pg_locks");
        if n.0 > 0 {
            break;
        }
        assert!(
            waiting.elapsed() < Duration::from_secs(5),
            "the dispatcher never claimed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // the dead worker's run: running, lease expired, nothing delivered
    let run = expired_run(pool).await;
    let stall = Instant::now();
    // heartbeats land all along
    while stall.elapsed() < Duration::from_secs(7) {
        let r = farm
            .http
            .post(format!("{}/api/v1/workers/heartbeat", farm.base_url))
            .json(&json!({"worker_id": "live", "hostname": "h", "devices": [], "running": []}))
            .send()
            .await
            .expect("heartbeat");
        assert_eq!(r.status().as_u16(), 200);
        tokio::time::sleep(Duration::from_millis(1000)).await;
    }
    sibling.commit().await.expect("release");
    let released = Instant::now();
    loop {
        let st: (String, f64) = sqlx::query_as(
            "select r.status, extract(epoch from s.reap_not_before - now())::float8
               from runs r, reaper_state s where r.id = $1",
        )
        .bind(run)
        .fetch_one(pool)
        .await
        .expect("status");
        if st.0 == "queued" {
            break;
        }
        assert!(
            released.elapsed() < Duration::from_secs(3),
            "the expired lease is still {} 3 s after a 7 s dispatcher stall (reaping held back \
             for {:.0} s more) although heartbeats landed throughout",
            st.0,
            st.1
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
