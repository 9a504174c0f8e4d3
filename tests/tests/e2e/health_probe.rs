//! Pins issue 27's health probe on real services and real Chromium: two web workers of one
//! slot each, the second one's Chromium killed every 250 ms until its device is quarantined
//! by the health rule. While the killing goes on, probes (`health probe: <device>`, run on
//! that device alone) keep failing, the device stays quarantined and every normal run goes
//! to the healthy device. Once the killing stops, a probe passes on that very device, the
//! device is `healthy` again with an event naming the probe run, and it takes runs again.
//! No probe ever ran on another device; team users see no probe; probes do not count in the
//! health window. A device an admin quarantined by hand gets no probe at all.

use std::time::{Duration, Instant};

use argus_tests::site::Site;
use argus_tests::{Farm, FarmOptions};
use serde_json::{json, Value};

use super::device_health::{get_json, job, post, start_sick_worker, wait_health};

/// Probe interval of these farms, s: short, so a test sees several probes.
const INTERVAL_S: u64 = 2;

/// `(run id, device id, status)` of every probe of `device`, oldest first.
async fn probes_of(farm: &Farm, device: &str) -> Vec<(uuid::Uuid, Option<String>, String)> {
    sqlx::query_as(
        "select id, device_id, status from runs where probe_device = $1 order by created_at",
    )
    .bind(device)
    .fetch_all(&farm.pool)
    .await
    .expect("probes")
}

/// Waits (at most `limit`) until `device` has `n` probes that ended, all not succeeded.
async fn wait_failed_probes(farm: &Farm, device: &str, n: usize, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        let probes = probes_of(farm, device).await;
        let over: Vec<_> = probes
            .iter()
            .filter(|p| !matches!(p.2.as_str(), "queued" | "assigned" | "running"))
            .collect();
        assert!(
            over.iter().all(|p| p.2 != "succeeded"),
            "a probe passed while the browser was being killed: {probes:?}"
        );
        if over.len() >= n {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {n} probes ended: {probes:?}",
            over.len()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_passing_probe_brings_back_a_device_the_health_rule_quarantined() {
    let site = Site::todomvc().await;
    let mut farm = Farm::start(FarmOptions {
        health_probe_interval_s: INTERVAL_S,
        ..FarmOptions::default().allowing(&site.base_url)
    })
    .await;
    let healthy = format!("{}-0", farm.worker_id);
    let (sick, killer) = start_sick_worker(&mut farm).await;

    // Quarantined by the rule: the sick device (first in id order) eats runs until then.
    let mut runs = Vec::new();
    for n in 0..8 {
        runs.push(farm.submit(&job(&site, &farm, n, "todos")).await);
    }
    for run in &runs {
        farm.wait_run(*run, Duration::from_secs(120)).await;
    }
    wait_health(&farm, &sick, "quarantined", Duration::from_secs(10)).await;

    // (2) While the browser keeps dying: probes run on it and fail, it stays quarantined and
    // no normal run goes to it.
    let mut later = Vec::new();
    for n in 10..13 {
        later.push(farm.submit(&job(&site, &farm, n, "todos")).await);
    }
    wait_failed_probes(&farm, &sick, 2, Duration::from_secs(60)).await;
    for run in &later {
        let d = farm.wait_run(*run, Duration::from_secs(60)).await;
        assert_eq!(d.device_id.as_deref(), Some(healthy.as_str()));
        assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
    }
    let d = wait_health(&farm, &sick, "quarantined", Duration::from_secs(1)).await;
    let (user_runs,): (i64,) = sqlx::query_as(
        "select least(count(*), 10) from runs
          where device_id = $1 and probe_device is null and finished_at is not null",
    )
    .bind(&sick)
    .fetch_one(&farm.pool)
    .await
    .expect("count");
    assert_eq!(
        d["health"]["window"]["runs"].as_i64(),
        Some(user_runs),
        "the failed probes do not count in its window: {d}"
    );
    let probes = probes_of(&farm, &sick).await;
    let (queued_or_ended, ran_on_sick) = (
        probes.len(),
        probes
            .iter()
            .filter(|p| p.1.as_deref() == Some(sick.as_str()))
            .count(),
    );
    assert!(ran_on_sick >= 2, "{probes:?}");
    assert!(
        ran_on_sick + 1 >= queued_or_ended,
        "at most one outstanding: {probes:?}"
    );

    // (1) The killing stops: the next probe passes on that device and releases it.
    killer.abort();
    let stopped = Instant::now();
    let d = wait_health(&farm, &sick, "healthy", Duration::from_secs(60)).await;
    eprintln!(
        "released by a probe {:.1} s after the killing stopped (interval {INTERVAL_S} s)",
        stopped.elapsed().as_secs_f64()
    );
    assert_eq!(
        d["health"]["window"]["runs"], 0,
        "a release starts a clean window and probes never count: {d}"
    );
    let events = get_json(&farm, "/api/v1/device-health-events").await;
    let ev = &events["events"][0];
    assert_eq!(
        (&ev["device_id"], &ev["from"], &ev["to"], &ev["actor"]),
        (
            &json!(sick),
            &json!("quarantined"),
            &json!("healthy"),
            &json!("health-probe")
        ),
        "{events}"
    );
    let reason = ev["reason"].as_str().unwrap_or_default();
    let probe: uuid::Uuid = reason
        .strip_prefix("health probe passed (run ")
        .and_then(|r| r.strip_suffix(')'))
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("the event names no probe run: {ev}"));
    let v = get_json(&farm, &format!("/api/v1/runs/{probe}")).await;
    assert_eq!(
        (&v["status"], &v["device_id"], &v["probe_device"]),
        (&json!("succeeded"), &json!(sick), &json!(sick)),
        "{v}"
    );
    assert_eq!(v["spec"]["name"], format!("health probe: {sick}"), "{v}");
    assert!(farm
        .report_html(probe)
        .await
        .contains("id=\"health-probe\""));

    // No probe ever ran on another device; none is left over.
    let (elsewhere, outstanding): (i64, i64) = sqlx::query_as(
        "select count(*) filter (where device_id is distinct from probe_device
                                   and device_id is not null),
                count(*) filter (where status in ('queued', 'assigned', 'running'))
           from runs where probe_device is not null",
    )
    .fetch_one(&farm.pool)
    .await
    .expect("count");
    assert_eq!((elsewhere, outstanding), (0, 0));

    // Team users see no probe (they belong to the system team); the admin lists them.
    let user = farm.client_for("default", "user").await;
    let r = user
        .get(format!("{}/api/v1/runs/{probe}", farm.base_url))
        .send()
        .await
        .expect("get");
    assert_eq!(r.status().as_u16(), 404);
    let listed: Value = user
        .get(format!("{}/api/v1/runs?limit=1000", farm.base_url))
        .send()
        .await
        .expect("list")
        .json()
        .await
        .expect("json");
    let list = listed.as_array().expect("runs");
    assert!(!list.is_empty() && list.iter().all(|r| r.get("probe_device").is_none()));
    let all = get_json(&farm, "/api/v1/runs?limit=1000").await;
    assert!(
        all.as_array()
            .expect("runs")
            .iter()
            .any(|r| r["probe_device"] == sick.as_str() && r["team_id"] == "argus-system"),
        "{all}"
    );

    // Well again, it takes normal runs (first in id order) and passes them.
    let run = farm.submit(&job(&site, &farm, 30, "todos")).await;
    let d = farm.wait_run(run, Duration::from_secs(60)).await;
    assert_eq!(d.device_id.as_deref(), Some(sick.as_str()), "{:?}", d.error);
    assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quarantine_by_hand_gets_no_probe() {
    let farm = Farm::start(FarmOptions {
        health_probe_interval_s: 1,
        ..Default::default()
    })
    .await;
    let dev = format!("{}-0", farm.worker_id);
    let (code, v) = post(
        &farm.http,
        format!("{}/api/v1/devices/{dev}/quarantine", farm.base_url),
        Some(r#"{"reason": "cracked screen"}"#),
    )
    .await;
    assert_eq!(code, 200, "{v}");
    // Several probe ticks (1 s each) pass: none is made, the device stays quarantined.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let (n,): (i64,) = sqlx::query_as("select count(*) from runs where probe_device is not null")
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(n, 0, "a quarantine by hand is never probed");
    wait_health(&farm, &dev, "quarantined", Duration::from_secs(1)).await;
    let (actor,): (String,) =
        sqlx::query_as("select actor from device_health where device_id = $1")
            .bind(&dev)
            .fetch_one(&farm.pool)
            .await
            .expect("actor");
    assert!(actor.starts_with("admin"), "{actor}");
}

/// The claim alone (`argus_claim_batch`, no worker): a probe goes to its own quarantined
/// device once that slot is free and live, never to another free slot of its class, and a
/// normal run never to the quarantined device.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_claim_gives_a_probe_to_its_device_only() {
    use argus_coordinator::store::claim::claim_batch;
    use argus_coordinator::store::probes;
    let farm = crate::bare_farm().await;
    // Heard from long ago (sim-a) and a minute ago (sim-b): the farm's own dispatcher (15 s
    // device TTL) leaves both alone; the claims below take slots heard from within 600 s.
    farm.register_sim_device("sim-a", "web", json!({"team": "qa"}), 3600)
        .await;
    farm.register_sim_device("sim-b", "web", json!({"team": "qa"}), 60)
        .await;
    sqlx::query(
        "insert into device_health (device_id, state, reason, actor)
         values ('sim-a', 'quarantined', 'test', 'health')",
    )
    .execute(&farm.pool)
    .await
    .expect("quarantine");
    // Eight schedulers at once (as eight coordinators would), besides the farm's own probe
    // task: exactly one probe is made; the others find it made or the row held.
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let pool = farm.pool.clone();
        tasks.push(tokio::spawn(async move {
            probes::schedule(&pool, "sim-a", 60).await
        }));
    }
    for t in tasks {
        match t.await.expect("task") {
            Ok(_) => {}
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {}
            Err(e) => panic!("schedule: {e}"),
        }
    }
    assert_eq!(
        probes::schedule(&farm.pool, "sim-a", 60).await.ok(),
        Some(None)
    );
    let probe = probes_of(&farm, "sim-a").await;
    assert_eq!(probe.len(), 1, "{probe:?}");
    let probe = probe[0].0;

    // sim-a is not live: the probe waits; the free sim-b does not take it.
    let c = claim_batch(&farm.pool, 600, 30, 10).await.expect("claim");
    assert!(c.is_empty(), "{c:?}");
    // A normal run goes to sim-b, never to the quarantined sim-a.
    let normal = farm
        .submit(&json!({"platform": "web", "instruction": "wait 1ms"}))
        .await;
    sqlx::query("update devices set last_seen = now() - interval '60 s' where id = 'sim-a'")
        .execute(&farm.pool)
        .await
        .expect("sim-a live");
    let mut c: Vec<(uuid::Uuid, String)> = claim_batch(&farm.pool, 600, 30, 10)
        .await
        .expect("claim")
        .into_iter()
        .map(|c| (c.run_id, c.device_id))
        .collect();
    c.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(
        c,
        [(probe, "sim-a".to_string()), (normal, "sim-b".to_string())]
    );
    // The probe failed; sim-a is free, sim-b busy: a new normal run waits.
    sqlx::query("update runs set status = 'errored', finished_at = now() where id = $1;")
        .bind(probe)
        .execute(&farm.pool)
        .await
        .expect("probe over");
    sqlx::query("update devices set current_run_id = null where id = 'sim-a'")
        .execute(&farm.pool)
        .await
        .expect("free");
    farm.submit(&json!({"platform": "web", "instruction": "wait 2ms"}))
        .await;
    let c = claim_batch(&farm.pool, 600, 30, 10).await.expect("claim");
    assert!(c.is_empty(), "{c:?}");
}
