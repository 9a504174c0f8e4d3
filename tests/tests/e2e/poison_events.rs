//! Pins what the event applier does with an event PostgreSQL rejects (issue 24, item 9),
//! against a real `argus coordinator` process on a private NATS:
//! - an event whose text holds U+0000 (PostgreSQL refuses NUL in `text` and `jsonb`) is
//!   applied with the character stripped, not retried or parked;
//! - an event the database rejects (here a timestamp outside PostgreSQL's range) is parked
//!   in `dead_events` after exactly the default 5 deliveries and stops coming back; its run
//!   ends `errored` saying so, never left `running` silently;
//! - `GET /api/v1/dead-events` shows it to an admin and answers 403 to a user token;
//! - the applier keeps applying later events of other runs;
//! - a grouped message (a worker's events as one JSON array) is applied event by event.

use std::time::{Duration, Instant};

use argus_protocol::{EventBody, RunDetail, RunEvent};
use argus_tests::procs::{ProcFarm, ProcFarmOptions};
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};
use uuid::Uuid;

/// Marks `run` as held by a worker that never heartbeats: `running`, a fresh attempt, a
/// lease of an hour (so the reaper leaves it alone). Returns the attempt id.
async fn hold(farm: &ProcFarm, run: Uuid) -> Uuid {
    let att = Uuid::new_v4();
    sqlx::query(
        "update runs set status = 'running', attempt_id = $2, attempts = 1,
                lease_expires_at = now() + interval '1 hour', started_at = now()
          where id = $1",
    )
    .bind(run)
    .bind(att)
    .execute(&farm.pool)
    .await
    .expect("hold run");
    att
}

/// A farm of one coordinator and `n` runs no device takes, each held (see [`hold`]):
/// `(farm, coordinator URL, [(run, attempt)])`.
async fn farm_holding(n: usize) -> (ProcFarm, String, Vec<(Uuid, Uuid)>) {
    let mut farm = ProcFarm::start(ProcFarmOptions {
        lease_s: 60,
        ..Default::default()
    })
    .await;
    farm.start_coordinator().await;
    let url = farm.coordinator_url(0);
    let spec = json!({"platform": "web", "instruction": "wait 1ms",
        "selector": {"labels": {"pool": format!("nobody-{}", farm.token)}}});
    let mut held = Vec::new();
    for _ in 0..n {
        let (_, run) = farm.submit_to(&url, &spec).await;
        held.push((run, hold(&farm, run).await));
    }
    (farm, url, held)
}

/// Publishes `ev` on its run's events subject, as a worker does, and waits for the ack.
async fn publish(js: &async_nats::jetstream::Context, farm: &ProcFarm, ev: &RunEvent) {
    let body = serde_json::to_vec(ev).expect("event JSON");
    js.publish(farm.subjects.events(&ev.run_id), body.into())
        .await
        .expect("publish")
        .await
        .expect("publish ack");
}

fn step(run: Uuid, att: Uuid, text: &str) -> RunEvent {
    RunEvent {
        run_id: run,
        attempt_id: att,
        seq: 1,
        at: Utc::now(),
        body: EventBody::StepStarted {
            step: 0,
            text: text.into(),
        },
    }
}

/// Valid JSON, a valid `RunEvent`, but PostgreSQL's timestamptz ends at 4713 BC (a run's
/// start time is stored).
fn poison(run: Uuid, att: Uuid) -> RunEvent {
    RunEvent {
        run_id: run,
        attempt_id: att,
        seq: 1,
        at: Utc
            .with_ymd_and_hms(-5000, 1, 1, 0, 0, 0)
            .single()
            .expect("date"),
        body: EventBody::RunStarted {
            device_id: "d".into(),
            screen_w_px: 800,
            screen_h_px: 600,
        },
    }
}

/// Asserts the coordinator's consumer holds nothing pending or unacked.
async fn assert_settled(js: &async_nats::jetstream::Context, farm: &ProcFarm) {
    let mut consumer: async_nats::jetstream::consumer::PullConsumer = js
        .get_stream(farm.subjects.events_stream())
        .await
        .expect("stream")
        .get_consumer(&farm.subjects.coordinator_consumer())
        .await
        .expect("consumer");
    let info = consumer.info().await.expect("consumer info");
    assert_eq!(
        (info.num_pending, info.num_ack_pending),
        (0, 0),
        "every event was settled: {info:?}"
    );
}

/// The run as `GET /api/v1/runs/{run}` shows it.
async fn run_detail(farm: &ProcFarm, url: &str, run: Uuid) -> RunDetail {
    farm.http
        .get(format!("{url}/api/v1/runs/{run}"))
        .send()
        .await
        .expect("GET run")
        .json()
        .await
        .expect("run JSON")
}

/// Waits (30 s at most) for `run`'s [`poison`] event to be parked with the database's reason.
async fn wait_parked(farm: &ProcFarm, run: Uuid) {
    let error = wait_text(
        farm,
        "select error from dead_events where run_id = $1",
        run,
        Duration::from_secs(30),
    )
    .await;
    assert!(
        error.contains("out of range"),
        "the database's reason: {error}"
    );
}

/// Polls `sql` (one bound uuid, one text column) until it returns a row.
async fn wait_text(farm: &ProcFarm, sql: &str, run: Uuid, limit: Duration) -> String {
    let deadline = Instant::now() + limit;
    loop {
        let row: Option<(String,)> = sqlx::query_as(sql)
            .bind(run)
            .fetch_optional(&farm.pool)
            .await
            .unwrap_or(None);
        if let Some((t,)) = row {
            return t;
        }
        assert!(
            Instant::now() < deadline,
            "{sql} for {run}: nothing after {limit:?}\n{}",
            farm.logs(30)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poison_event_is_parked_and_nul_is_stripped() {
    let (farm, url, held) = farm_holding(3).await;
    let [(poisoned, att_p), (nul, att_n), (later, att_l)] = held[..] else {
        panic!("three runs")
    };
    let nc = async_nats::connect(&farm.nats.url).await.expect("nats");
    let js = async_nats::jetstream::new(nc);

    let poison = poison(poisoned, att_p);
    publish(&js, &farm, &poison).await;
    publish(&js, &farm, &step(nul, att_n, "be\u{0}fore")).await;

    // The NUL is stripped at ingestion and the event applied.
    let text = wait_text(
        &farm,
        "select text from steps where run_id = $1",
        nul,
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(text, "before", "U+0000 stripped, the rest kept");

    // The poison is parked after 5 deliveries, with the database's reason.
    wait_parked(&farm, poisoned).await;
    let (seq, subject, deliveries, attempt): (i64, String, i32, Uuid) = sqlx::query_as(
        "select seq, subject, deliveries, attempt_id from dead_events where run_id = $1",
    )
    .bind(poisoned)
    .fetch_one(&farm.pool)
    .await
    .expect("dead event row");
    assert_eq!(
        (seq, subject.as_str(), deliveries, attempt),
        (1, farm.subjects.events(&poisoned).as_str(), 5, att_p)
    );
    let nul_parked: (i64,) = sqlx::query_as("select count(*) from dead_events where run_id = $1")
        .bind(nul)
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(nul_parked.0, 0, "the NUL event was applied, not parked");

    // Its run is not left running silently.
    let d = run_detail(&farm, &url, poisoned).await;
    assert_eq!(d.status.as_str(), "errored", "{:?}", d.error);
    let e = d.error.unwrap_or_default();
    assert!(
        e.contains("seq 1") && e.contains("parked") && e.contains("dead-events"),
        "the run says which event was parked and where to look: {e}"
    );

    // The applier goes on with other runs' events.
    publish(&js, &farm, &step(later, att_l, "after the poison")).await;
    let text = wait_text(
        &farm,
        "select text from steps where run_id = $1",
        later,
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(text, "after the poison");

    // The parked event does not come back: nothing pending, nothing unacked, parked once.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_settled(&js, &farm).await;
    let parked: (i64, i32) =
        sqlx::query_as("select count(*), max(deliveries) from dead_events where run_id = $1")
            .bind(poisoned)
            .fetch_one(&farm.pool)
            .await
            .expect("count");
    assert_eq!(parked, (1, 5), "parked once, after 5 deliveries");

    // Admins see it; a user token is refused.
    let r = farm
        .http
        .get(format!("{url}/api/v1/dead-events"))
        .send()
        .await
        .expect("GET dead-events");
    assert_eq!(r.status().as_u16(), 200);
    let body: Value = r.json().await.expect("JSON");
    let rows = body["dead_events"].as_array().expect("dead_events array");
    assert_eq!(rows.len(), 1, "{body}");
    assert_eq!(rows[0]["run_id"], json!(poisoned));
    assert_eq!(rows[0]["seq"], json!(1));
    assert_eq!(rows[0]["deliveries"], json!(5));
    assert!(
        rows[0]["payload"]
            .as_str()
            .is_some_and(|p| p.contains("-5000")),
        "the payload is kept for a person to judge: {body}"
    );
    let user = argus_coordinator::auth::generate();
    argus_coordinator::auth::create_token(
        &farm.pool,
        "default",
        argus_coordinator::auth::Role::User,
        "test",
        &user,
    )
    .await
    .expect("user token");
    let r = argus_tests::authed_client(&user)
        .get(format!("{url}/api/v1/dead-events"))
        .send()
        .await
        .expect("GET dead-events as user");
    assert_eq!(r.status().as_u16(), 403, "a user token sees no dead events");
    let body: Value = r.json().await.expect("envelope");
    assert_eq!(body["code"], "forbidden", "{body}");
}

/// A worker's events grouped in one message (`argus_worker::run::event_groups`: a JSON array
/// of events) are applied each, as if they had come alone: a good one at once and once only,
/// a poison one parked alone after 5 deliveries of the message (its `dead_events` row keyed
/// by the message's subject and its place in the group), and the message settled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grouped_message_is_applied_event_by_event() {
    let (farm, url, held) = farm_holding(2).await;
    let [(good, att_g), (poisoned, att_p)] = held[..] else {
        panic!("two runs")
    };
    let nc = async_nats::connect(&farm.nats.url).await.expect("nats");
    let js = async_nats::jetstream::new(nc);
    let group = vec![step(good, att_g, "grouped"), poison(poisoned, att_p)];
    let subject = farm.subjects.events(&good);
    js.publish(
        subject.clone(),
        serde_json::to_vec(&group).expect("JSON").into(),
    )
    .await
    .expect("publish")
    .await
    .expect("publish ack");

    let text = wait_text(
        &farm,
        "select text from steps where run_id = $1",
        good,
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(text, "grouped");
    wait_parked(&farm, poisoned).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let parked: Vec<(Uuid, String, i32)> =
        sqlx::query_as("select run_id, subject, deliveries from dead_events")
            .fetch_all(&farm.pool)
            .await
            .expect("dead events");
    assert_eq!(
        parked,
        vec![(poisoned, format!("{subject}#1"), 5)],
        "only the poison parked, after 5 deliveries"
    );
    let steps: (i64,) = sqlx::query_as("select count(*) from steps where run_id = $1")
        .bind(good)
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(steps.0, 1, "the good event applied once over 5 deliveries");
    assert_settled(&js, &farm).await;
    let d = run_detail(&farm, &url, poisoned).await;
    assert_eq!(d.status.as_str(), "errored", "{:?}", d.error);
}
