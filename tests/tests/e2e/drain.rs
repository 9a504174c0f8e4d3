//! Pins how a real `argus coordinator` process stops: on SIGTERM it stops accepting at
//! once, lets the request in flight (a live report's event stream, which never ends on its
//! own) run until the drain limit, finishes its tasks' passes, logs that it drained and
//! exits 0; on SIGINT with nothing in flight it exits 0 promptly. The queued run it held
//! in the database is untouched.

use std::time::{Duration, Instant};

use argus_coordinator::drain::DRAIN_LIMIT;
use argus_coordinator::store::jobs::{insert, JobMeta};
use argus_protocol::{JobSpec, Platform};
use argus_tests::procs::{ProcFarm, ProcFarmOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_coordinator_drains_on_sigterm_and_sigint_and_exits_zero() {
    let mut farm = ProcFarm::start(ProcFarmOptions::default()).await;
    let i = farm.start_coordinator().await;
    let url = farm.coordinator_url(i);
    // A queued run (no device: it stays queued) whose live feed we hold open.
    let spec = JobSpec::script(Platform::Web, None, "wait 1ms".into());
    let meta = JobMeta {
        team_id: "default".into(),
        ..Default::default()
    };
    let (_, run) = insert(&farm.pool, &spec, &meta).await.expect("insert");
    let mut live = farm
        .http
        .get(format!("{url}/runs/{run}/live"))
        .send()
        .await
        .expect("live feed");
    assert!(live.status().is_success(), "{}", live.status());
    let first = live.chunk().await.expect("first event").expect("data");
    assert!(
        String::from_utf8_lossy(&first).contains("queued"),
        "{first:?}"
    );

    let p = farm.coordinators[i].proc.as_mut().expect("running");
    let signalled = Instant::now();
    p.signal("-TERM");
    // It stops accepting at once, while the live feed keeps it draining.
    let health = reqwest::Client::new();
    let refused = loop {
        if health.get(format!("{url}/healthz")).send().await.is_err() {
            break Instant::now();
        }
        assert!(
            signalled.elapsed() < Duration::from_secs(3),
            "still accepting 3 s after SIGTERM:\n{}",
            p.tail(20)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        p.alive(),
        "exited before the request in flight was given its time"
    );
    let code = p.wait_exit(DRAIN_LIMIT + Duration::from_secs(10)).await;
    assert_eq!(code, Some(0), "exit after SIGTERM:\n{}", p.tail(30));
    assert!(
        signalled.elapsed() + Duration::from_millis(500) >= DRAIN_LIMIT,
        "the request in flight was cut before the drain limit ({:?})",
        refused - signalled
    );
    let log = p.log_text();
    assert!(log.contains("SIGTERM: draining"), "{log}");
    assert!(log.contains("coordinator drained"), "{log}");
    drop(live);

    let (st,): (String,) = sqlx::query_as("select status from runs where id = $1")
        .bind(run)
        .fetch_one(&farm.pool)
        .await
        .expect("run");
    assert_eq!(st, "queued");

    // SIGINT with nothing in flight: out within a few seconds, exit 0.
    farm.restart_coordinator(i).await;
    let p = farm.coordinators[i].proc.as_mut().expect("running");
    let signalled = Instant::now();
    p.signal("-INT");
    let code = p.wait_exit(Duration::from_secs(8)).await;
    assert_eq!(code, Some(0), "exit after SIGINT:\n{}", p.tail(30));
    assert!(
        signalled.elapsed() < DRAIN_LIMIT,
        "{:?}",
        signalled.elapsed()
    );
    assert!(p.log_text().contains("SIGINT: draining"));
}
