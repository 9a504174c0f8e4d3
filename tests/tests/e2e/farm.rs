//! Pins the farm's scheduling semantics with simulated devices (real PostgreSQL, NATS and
//! HTTP; `argus_tests::sim::SimWorker` stands in for device work): label constraints and
//! the warning (not a refusal) for selectors no device matches yet, priority order, a team quota, the queue
//! timeout, cancel of a queued and of a running run, a schedule firing exactly once per tick
//! with two coordinators racing, and a suite over a 3-device matrix with valid JUnit XML.

use std::time::{Duration, Instant};

use argus_tests::sim::{Behavior, SimWorker};
use argus_tests::{Farm, FarmOptions};
use serde_json::{json, Value};

fn no_worker() -> FarmOptions {
    FarmOptions {
        worker_slots: None,
        ..Default::default()
    }
}

async fn status(farm: &Farm, run: uuid::Uuid) -> String {
    let r: (String,) = sqlx::query_as("select status from runs where id = $1")
        .bind(run)
        .fetch_one(&farm.pool)
        .await
        .expect("status");
    r.0
}

async fn wait_status(farm: &Farm, run: uuid::Uuid, want: &str, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        let s = status(farm, run).await;
        if s == want {
            return;
        }
        assert!(Instant::now() < deadline, "run {run} is {s}, wanted {want}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn labels_priorities_quota_queue_timeout_and_cancel() {
    let farm = Farm::start(no_worker()).await;
    let pixel = json!({"os": "android", "os_version": "13", "model": "Pixel 7", "team": "qa"});
    farm.register_sim_device("sim-a", "web", pixel.clone(), 3600)
        .await;

    // A selector no registered device satisfies yet is queued, with a warning naming the
    // labels that exist (cancelled here so it cannot disturb the order below).
    let (code, body) = farm
        .post_job_raw(
            json!({"platform": "web", "instruction": "wait 1ms",
                   "selector": {"require": ["os_version>=14"]}})
            .to_string(),
        )
        .await;
    assert_eq!(code, 201, "{body}");
    let warning = body["warning"].as_str().unwrap_or("");
    assert!(
        warning.contains("no registered device matches") && warning.contains("os_version=13"),
        "{body}"
    );
    let unmatched = body["run_id"].as_str().expect("run_id").to_string();
    let r = farm
        .http
        .post(format!("{}/api/v1/runs/{unmatched}/cancel", farm.base_url))
        .send()
        .await
        .expect("cancel");
    assert!(r.status().is_success(), "{}", r.status());

    // Priorities: submitted while the only device is offline, assigned highest first.
    let mut runs = Vec::new();
    for (p, name) in [(0, "low"), (10, "high"), (5, "mid")] {
        runs.push(
            farm.submit(&json!({"platform": "web", "instruction": "wait 1ms", "name": name,
                "priority": p, "selector": {"require": ["os_version>=13", "model in [Pixel 7, Galaxy]"]}}))
                .await,
        );
    }
    let sim = SimWorker::start(
        &farm,
        "sim",
        vec![("sim-a".into(), pixel.clone())],
        Behavior {
            hold: Duration::from_millis(100),
        },
    )
    .await;
    for r in &runs {
        wait_status(&farm, *r, "succeeded", Duration::from_secs(20)).await;
    }
    assert_eq!(
        sim.order(),
        vec![runs[1], runs[2], runs[0]],
        "priority order"
    );

    // Queue timeout: a job whose only matching device is offline times out, not hangs.
    farm.register_sim_device("sim-off", "web", json!({"pool": "offline"}), 3600)
        .await;
    let stuck = farm
        .submit(
            &json!({"platform": "web", "instruction": "wait 1ms", "queue_timeout_s": 1,
            "selector": {"labels": {"pool": "offline"}}}),
        )
        .await;
    wait_status(&farm, stuck, "timed_out", Duration::from_secs(10)).await;
    let d: Value = farm
        .http
        .get(format!("{}/api/v1/runs/{stuck}", farm.base_url))
        .send()
        .await
        .expect("get")
        .json()
        .await
        .expect("json");
    assert!(
        d["error"]
            .as_str()
            .unwrap_or("")
            .contains("no matching free device"),
        "{d}"
    );

    // Cancel a queued run: it ends now, never reaches a device.
    let queued = farm
        .submit(&json!({"platform": "web", "instruction": "wait 1ms",
            "selector": {"labels": {"pool": "offline"}}}))
        .await;
    let r: Value = farm
        .http
        .post(format!("{}/api/v1/runs/{queued}/cancel", farm.base_url))
        .send()
        .await
        .expect("cancel")
        .json()
        .await
        .expect("json");
    assert_eq!(r["status"], "cancelled");
    assert_eq!(status(&farm, queued).await, "cancelled");

    // Cancel a running run: the worker stops it and reports cancelled. The slow worker
    // replaces the quick one before the run is submitted (submitted first, the quick one
    // once ran it to `succeeded` on a loaded machine).
    drop(sim);
    let sim = SimWorker::start(
        &farm,
        "sim",
        vec![("sim-a".into(), pixel.clone())],
        Behavior {
            hold: Duration::from_secs(30),
        },
    )
    .await;
    let long = farm
        .submit(&json!({"platform": "web", "instruction": "wait 1ms",
            "selector": {"labels": {"model": "Pixel 7"}}}))
        .await;
    wait_status(&farm, long, "running", Duration::from_secs(10)).await;
    let r = farm
        .http
        .post(format!("{}/api/v1/runs/{long}/cancel", farm.base_url))
        .send()
        .await
        .expect("cancel");
    assert_eq!(r.status().as_u16(), 200);
    wait_status(&farm, long, "cancelled", Duration::from_secs(10)).await;
    let r = farm
        .http
        .post(format!("{}/api/v1/runs/{long}/cancel", farm.base_url))
        .send()
        .await
        .expect("cancel again");
    assert_eq!(
        r.status().as_u16(),
        409,
        "a finished run cannot be cancelled"
    );
    drop(sim);

    // Team quota: team "payments" may run one at a time even with two free devices.
    sqlx::query("insert into teams (id, max_concurrent) values ('payments', 1)")
        .execute(&farm.pool)
        .await
        .expect("team");
    let pay = farm.client_for("payments", "user").await;
    let devs = vec![
        ("sim-p1".to_string(), json!({"pool": "pay"})),
        ("sim-p2".to_string(), json!({"pool": "pay"})),
    ];
    for (id, l) in &devs {
        farm.register_sim_device(id, "web", l.clone(), 3600).await;
    }
    let mut pay_runs = Vec::new();
    for i in 0..3 {
        let body: Value = pay
            .post(format!("{}/api/v1/jobs", farm.base_url))
            .json(
                &json!({"platform": "web", "instruction": format!("wait {i}ms"),
                "selector": {"labels": {"pool": "pay"}}}),
            )
            .send()
            .await
            .expect("submit")
            .json()
            .await
            .expect("json");
        pay_runs.push(
            body["run_id"]
                .as_str()
                .and_then(|s| s.parse::<uuid::Uuid>().ok())
                .expect("run id"),
        );
    }
    let _sim = SimWorker::start(
        &farm,
        "simpay",
        devs,
        Behavior {
            hold: Duration::from_millis(400),
        },
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut max_active = 0;
    loop {
        let active: (i64,) = sqlx::query_as(
            "select count(*) from runs where team_id = 'payments' and status in ('assigned', 'running')")
            .fetch_one(&farm.pool).await.expect("count");
        max_active = max_active.max(active.0);
        let done: (i64,) = sqlx::query_as(
            "select count(*) from runs where team_id = 'payments' and status = 'succeeded'",
        )
        .fetch_one(&farm.pool)
        .await
        .expect("count");
        if done.0 == 3 {
            break;
        }
        assert!(Instant::now() < deadline, "payments runs did not finish");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(max_active, 1, "quota of 1 respected");
    // Team isolation: the payments token cannot see the default team's runs.
    let r = pay
        .get(format!("{}/api/v1/runs/{}", farm.base_url, runs[0]))
        .send()
        .await
        .expect("get");
    assert_eq!(r.status().as_u16(), 404);
    let r = pay
        .get(format!("{}/runs/{}", farm.base_url, runs[0]))
        .send()
        .await
        .expect("get");
    assert_eq!(r.status().as_u16(), 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn schedule_fires_once_per_tick_with_two_coordinators() {
    let mut farm = Farm::start(no_worker()).await;
    let second = farm.start_extra_coordinator().await;
    for m in ["Pixel", "Galaxy"] {
        farm.register_sim_device(&format!("sim-{m}"), "web", json!({"model": m}), 3600)
            .await;
    }
    let body = json!({
        "name": "balance patrol", "cron": "*/5 * * * *", "timezone": "Europe/Paris",
        "template": {"platform": "web", "instruction": "assert screen contains \"Balance\"", "name": "balance"},
        "matrix": [{"labels": {"model": "Pixel"}}, {"labels": {"model": "Galaxy"}}],
    });
    let r = farm
        .http
        .post(format!("{second}/api/v1/schedules"))
        .json(&body)
        .send()
        .await
        .expect("create");
    assert_eq!(r.status().as_u16(), 201);
    let created: Value = r.json().await.expect("json");
    let id: uuid::Uuid = created["schedule_id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("id");
    let next = created["next_fire_times"].as_array().expect("times");
    assert_eq!(next.len(), 5);
    // Make a tick due now, then let both coordinators' schedulers and extra racers at it.
    for _ in 0..3 {
        sqlx::query("update schedules set next_fire_at = date_trunc('second', now()) - interval '1 second' where id = $1")
            .bind(id).execute(&farm.pool).await.expect("due");
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
    let fires: (i64,) =
        sqlx::query_as("select count(*) from schedule_fires where schedule_id = $1")
            .bind(id)
            .fetch_one(&farm.pool)
            .await
            .expect("fires");
    let jobs: (i64,) = sqlx::query_as("select count(*) from jobs where schedule_id = $1")
        .bind(id)
        .fetch_one(&farm.pool)
        .await
        .expect("jobs");
    assert!(fires.0 >= 1, "the due tick fired");
    assert_eq!(
        jobs.0,
        fires.0 * 2,
        "exactly one job per matrix cell per tick"
    );
    let next: (chrono::DateTime<chrono::Utc>,) =
        sqlx::query_as("select next_fire_at from schedules where id = $1")
            .bind(id)
            .fetch_one(&farm.pool)
            .await
            .expect("next");
    assert!(next.0 > chrono::Utc::now(), "next tick in the future");

    // Pause: due ticks no longer fire.
    let r = farm
        .http
        .post(format!("{}/api/v1/schedules/{id}/pause", farm.base_url))
        .send()
        .await
        .expect("pause");
    assert_eq!(r.status().as_u16(), 200);
    sqlx::query("update schedules set next_fire_at = now() - interval '1 second' where id = $1")
        .bind(id)
        .execute(&farm.pool)
        .await
        .expect("due");
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let jobs2: (i64,) = sqlx::query_as("select count(*) from jobs where schedule_id = $1")
        .bind(id)
        .fetch_one(&farm.pool)
        .await
        .expect("jobs");
    assert_eq!(jobs2.0, jobs.0, "a paused schedule does not fire");
    // A bad cron is refused with the field named.
    let mut bad = body.clone();
    bad["cron"] = json!("every day");
    let r = farm.post_json("/api/v1/schedules", &bad).await;
    assert_eq!(r.status().as_u16(), 422);
    let env: Value = r.json().await.expect("json");
    assert_eq!(env["field"], "cron");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn suite_over_three_devices_gives_verdict_flaky_and_junit() {
    let farm = Farm::start(no_worker()).await;
    let devs: Vec<(String, Value)> = ["A", "B", "C"]
        .iter()
        .map(|m| (format!("sim-{m}"), json!({"model": m})))
        .collect();
    let _sim = SimWorker::start(
        &farm,
        "simsuite",
        devs,
        Behavior {
            hold: Duration::from_millis(50),
        },
    )
    .await;
    let suite = json!({
        "name": "regression",
        "jobs": [
            {"platform": "web", "name": "login", "instruction": "wait 1ms"},
            {"platform": "web", "name": "checkout <&>", "instruction": "wait 1ms\n# FAIL on purpose"},
            {"platform": "web", "name": "search", "instruction": "wait 1ms\n# FLAKY", "retries": 1},
        ],
        "matrix": [{"labels": {"model": "A"}}, {"labels": {"model": "B"}}, {"labels": {"model": "C"}}],
    });
    let r = farm.post_json("/api/v1/suites", &suite).await;
    assert_eq!(r.status().as_u16(), 201);
    let created: Value = r.json().await.expect("json");
    let id = created["suite_id"].as_str().expect("id").to_string();
    assert_eq!(created["jobs"].as_array().map(Vec::len), Some(9));
    let deadline = Instant::now() + Duration::from_secs(30);
    let v: Value = loop {
        let v: Value = farm
            .http
            .get(format!("{}/api/v1/suites/{id}", farm.base_url))
            .send()
            .await
            .expect("get")
            .json()
            .await
            .expect("json");
        if v["verdict"] != "running" {
            break v;
        }
        assert!(Instant::now() < deadline, "suite still running: {v}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(v["verdict"], "failed");
    assert_eq!(v["passed"], 6);
    assert_eq!(v["failed"], 3);
    assert_eq!(v["flaky"], 3, "search passed on its retry on every device");
    // Every job ran on the device of its cell.
    for j in v["jobs"].as_array().expect("jobs") {
        let cell = j["cell"].as_str().unwrap_or("");
        let dev = j["device_id"].as_str().unwrap_or("");
        assert_eq!(format!("model={}", &dev[4..]), cell, "{j}");
    }
    let xml = farm
        .http
        .get(format!("{}/api/v1/suites/{id}/junit.xml", farm.base_url))
        .send()
        .await
        .expect("junit")
        .text()
        .await
        .expect("body");
    // Well-formed and complete: parse every event.
    let mut reader = quick_xml::Reader::from_str(&xml);
    let (mut suites, mut cases, mut failures) = (0, 0, 0);
    loop {
        match reader.read_event().expect("valid XML") {
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                match e.name().as_ref() {
                    b"testsuite" => suites += 1,
                    b"testcase" => cases += 1,
                    b"failure" => failures += 1,
                    _ => {}
                }
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!((suites, cases, failures), (3, 9, 3), "{xml}");
    assert!(xml.contains("checkout &lt;&amp;&gt;"), "names are escaped");
    assert!(xml.contains("/runs/"), "failures link to reports");
}
