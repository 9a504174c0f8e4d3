//! Pins that a worker serves only the teams its token allows (issue 24, item 6):
//!
//! - a worker whose token is team `a`'s runs team `a`'s jobs and never receives team `b`'s:
//!   `b`'s run stays queued, unassigned, while `a`'s runs (read from the database, not from
//!   the worker);
//! - a worker token an admin minted for the shared pool (`argus token create --role worker
//!   --shared-pool`) serves every team: it then runs `b`'s job; `--shared-pool` is refused
//!   for any other role;
//! - a replay entry is written only for a team the worker serves: a `replay_learned` event
//!   for a run of team `b` held by team `a`'s worker (as a coordinator without the claim's
//!   team rule would have handed it out) stores nothing, while the same event for team
//!   `a`'s run stores `a`'s entry. The events go over JetStream through the worker's own
//!   publisher and are applied by the running coordinator.

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use argus_protocol::EventBody;
use argus_tests::procs::argus_bin;
use argus_tests::{authed_client, Farm};
use argus_worker::run::events::{Emitter, NatsSink};
use serde_json::{json, Value};
use uuid::Uuid;

/// A job that needs no page and no model.
fn quick_job(name: &str) -> Value {
    json!({"platform": "web", "name": name, "start_url": "about:blank",
           "instruction": "wait 10ms\nassert screen does not contain \"nothing here\""})
}

async fn submit(client: &reqwest::Client, farm: &Farm, spec: &Value) -> Uuid {
    let r = client
        .post(format!("{}/api/v1/jobs", farm.base_url))
        .json(spec)
        .send()
        .await
        .expect("POST job");
    assert_eq!(r.status().as_u16(), 201, "submit refused");
    let body: Value = r.json().await.expect("job JSON");
    body["run_id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("run_id")
}

/// `(status, worker_id)` of a run, read from the database.
async fn run_row(farm: &Farm, run: Uuid) -> (String, Option<String>) {
    sqlx::query_as("select status, worker_id from runs where id = $1")
        .bind(run)
        .fetch_one(&farm.pool)
        .await
        .expect("run row")
}

async fn wait_terminal(farm: &Farm, run: Uuid) -> (String, Option<String>) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let row = run_row(farm, run).await;
        if !matches!(row.0.as_str(), "queued" | "assigned" | "running") {
            return row;
        }
        assert!(Instant::now() < deadline, "run {run} still {}", row.0);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// `argus token create …` against the farm's database; `(exit ok, stdout, stderr)`.
fn token_cli(farm: &Farm, args: &[&str]) -> (bool, String, String) {
    let out = Command::new(argus_bin())
        .args(["token", "create"])
        .args(args)
        .env("ARGUS_DATABASE_URL", farm.database_url())
        .output()
        .expect("run argus token create");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_serves_only_the_teams_its_token_allows() {
    let mut farm = crate::bare_farm().await;
    let (ok, wa_token, err) = token_cli(&farm, &["--team", "a", "--role", "worker"]);
    assert!(ok, "{err}");
    let wa = farm.start_worker("wa", &wa_token).await;
    let team_a = farm.client_for("a", "user").await;
    let team_b = farm.client_for("b", "user").await;

    // b's job is older: FIFO would hand it out first.
    let run_b = submit(&team_b, &farm, &quick_job("b")).await;
    let run_a = submit(&team_a, &farm, &quick_job("a")).await;
    let (status, worker) = wait_terminal(&farm, run_a).await;
    assert_eq!(status, "succeeded", "team a's run on team a's worker");
    assert_eq!(worker.as_deref(), Some(wa.as_str()));
    // Several dispatcher passes (200 ms) and heartbeats (500 ms) later, b's run is untouched.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (status, worker) = run_row(&farm, run_b).await;
    assert_eq!(
        (status.as_str(), worker.as_deref()),
        ("queued", None),
        "team a's worker received team b's job"
    );

    // Only an admin (whoever can run `argus token create` against the database) grants
    // the shared pool, and only to a worker token.
    let (ok, _, err) = token_cli(&farm, &["--team", "b", "--role", "user", "--shared-pool"]);
    assert!(!ok, "--shared-pool was accepted for a user token");
    assert!(err.contains("--shared-pool"), "{err}");
    let (ok, pool_token, err) = token_cli(
        &farm,
        &["--team", "farm", "--role", "worker", "--shared-pool"],
    );
    assert!(ok, "{err}");
    let pw = farm.start_worker("pool", &pool_token).await;
    let (status, worker) = wait_terminal(&farm, run_b).await;
    assert_eq!(status, "succeeded", "team b's run on the shared pool");
    assert_eq!(worker.as_deref(), Some(pw.as_str()));
}

fn heartbeat(worker: &str, device: &str) -> Value {
    json!({
        "worker_id": worker, "hostname": "h", "running": [],
        "devices": [{"device_id": device, "platform": "web", "labels": {},
                     "screen_w_px": 100, "screen_h_px": 100}],
    })
}

/// Assigns `run` to `device` of `worker` as a claim would; returns the attempt id.
async fn assign(farm: &Farm, run: Uuid, worker: &str, device: &str) -> Uuid {
    let (att,): (Uuid,) = sqlx::query_as(
        "update runs set status = 'assigned', attempt_id = gen_random_uuid(),
                attempts = attempts + 1, worker_id = $2, device_id = $3,
                lease_expires_at = now() + interval '5 minutes', assigned_at = now()
          where id = $1 and status = 'queued'
         returning attempt_id",
    )
    .bind(run)
    .bind(worker)
    .bind(device)
    .fetch_one(&farm.pool)
    .await
    .expect("assign");
    att
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_writes_no_replay_entry_for_a_team_it_does_not_serve() {
    let farm = crate::bare_farm().await;
    let (ok, wa_token, err) = token_cli(&farm, &["--team", "a", "--role", "worker"]);
    assert!(ok, "{err}");
    let r = authed_client(&wa_token)
        .post(format!("{}/api/v1/workers/heartbeat", farm.base_url))
        .json(&heartbeat("wa", "dev-a"))
        .send()
        .await
        .expect("heartbeat");
    assert_eq!(r.status().as_u16(), 200);
    // Heard from a minute ago: past the dispatcher's TTL, so only this test assigns it.
    crate::exec(
        &farm.pool,
        "update devices set last_seen = now() - interval '1 minute'",
    )
    .await;

    let spec = json!({"platform": "web", "mode": "llm", "start_url": "about:blank",
                      "instruction": "add a todo"});
    let run_a = submit(&farm.client_for("a", "user").await, &farm, &spec).await;
    let run_b = submit(&farm.client_for("b", "user").await, &farm, &spec).await;
    let att_a = assign(&farm, run_a, "wa", "dev-a").await;
    let att_b = assign(&farm, run_b, "wa", "dev-a").await;

    let nc = async_nats::connect(&farm.services.nats_url)
        .await
        .expect("nats");
    let sink = Arc::new(NatsSink::new(
        async_nats::jetstream::new(nc),
        farm.subjects.clone(),
    ));
    for (run, att, script) in [
        (run_a, att_a, "open \"https://a.example\""),
        (run_b, att_b, "open \"https://evil.example\""),
    ] {
        let mut em = Emitter::new(sink.clone(), run, att);
        em.emit(EventBody::ReplayLearned {
            script: script.into(),
        })
        .await
        .expect("publish");
    }
    // Both events applied (the applier records every event it took).
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (n,): (i64,) = sqlx::query_as("select count(*) from run_events where run_id = any($1)")
            .bind(vec![run_a, run_b])
            .fetch_one(&farm.pool)
            .await
            .expect("count events");
        if n >= 2 {
            break;
        }
        assert!(Instant::now() < deadline, "events not applied in 30 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let entries: Vec<(String, String)> =
        sqlx::query_as("select team_id, script from replay_cache order by team_id")
            .fetch_all(&farm.pool)
            .await
            .expect("replay entries");
    assert_eq!(
        entries,
        vec![("a".to_string(), "open \"https://a.example\"".to_string())],
        "a worker of team a wrote team b's replay entry"
    );
}
