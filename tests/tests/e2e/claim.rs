//! Pins the claim statement: each queued run goes to exactly one slot when several
//! claimers race (as several coordinators would), a selector the device's labels do not
//! satisfy is never claimed, and the plan walks the partial `runs_queued` index.

use argus_coordinator::store::claim::{claim, free_devices, CLAIM_SQL};
use argus_tests::{Farm, FarmOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_claimers_hand_each_run_out_once_and_respect_labels() {
    let farm = Farm::start(FarmOptions {
        worker_slots: None,
        ..Default::default()
    })
    .await;
    // Heard from a minute ago: the farm's own dispatcher (15 s device TTL) leaves these
    // slots alone, so only the claimers below race for them.
    for i in 0..8 {
        let team = if i < 6 { "qa" } else { "ops" };
        farm.register_sim_device(
            &format!("sim-{i}"),
            "web",
            json!({"browser": "chromium", "team": team, "payments_ok": "no"}),
            60,
        )
        .await;
    }
    let mut ids = Vec::new();
    for i in 0..6 {
        ids.push(
            farm.submit(
                &json!({"platform": "web", "instruction": format!("wait {i}ms"),
                "selector": {"labels": {"team": "qa"}}}),
            )
            .await,
        );
    }
    // Only a payments device could run this one, and it is offline: it waits.
    farm.register_sim_device("sim-pay", "web", json!({"team": "payments"}), 3600)
        .await;
    let unmatched = farm
        .submit(&json!({"platform": "web", "instruction": "wait 1ms",
            "selector": {"labels": {"team": "payments"}, "require": ["team in [payments, x]"]}}))
        .await;
    // Heard from a minute ago: the farm's own dispatcher (15 s device TTL) leaves these
    // slots alone, so only the claimers below race for them.
    let devs = free_devices(&farm.pool, 600).await.expect("free");
    assert_eq!(devs.len(), 8);
    // Two claimers per device, all at once.
    let mut tasks = Vec::new();
    for d in devs.iter().chain(devs.iter()) {
        let pool = farm.pool.clone();
        let d = d.clone();
        tasks.push(tokio::spawn(async move {
            claim(&pool, &d, 30).await.expect("claim")
        }));
    }
    let mut claimed = Vec::new();
    for t in tasks {
        if let Some(c) = t.await.expect("task") {
            claimed.push(c);
        }
    }
    let mut runs: Vec<_> = claimed.iter().map(|c| c.run_id).collect();
    runs.sort();
    runs.dedup();
    assert_eq!(runs.len(), claimed.len(), "a run was handed out twice");
    let mut devices: Vec<_> = claimed.iter().map(|c| c.device_id.clone()).collect();
    devices.sort();
    devices.dedup();
    assert_eq!(devices.len(), claimed.len(), "a slot got two runs");
    assert_eq!(claimed.len(), 6, "all six qa runs claimed by qa slots");
    assert!(claimed
        .iter()
        .all(|c| c.device_id != "sim-6" && c.device_id != "sim-7"));
    assert!(!runs.contains(&unmatched));
    let st: (String,) = sqlx::query_as("select status from runs where id = $1")
        .bind(unmatched)
        .fetch_one(&farm.pool)
        .await
        .expect("status");
    assert_eq!(st.0, "queued");

    // The claim's candidate scan uses the partial queued index, with no sort node.
    sqlx::query("analyze runs")
        .execute(&farm.pool)
        .await
        .expect("analyze");
    let mut tx = farm.pool.begin().await.expect("tx");
    sqlx::query("set local enable_seqscan = off")
        .execute(&mut *tx)
        .await
        .expect("set");
    let plan: Vec<(String,)> = sqlx::query_as(&format!("explain {CLAIM_SQL}"))
        .bind("sim-0")
        .bind("web")
        .bind(json!({"team": "qa"}))
        .bind(uuid::Uuid::new_v4())
        .bind(30.0_f64)
        .fetch_all(&mut *tx)
        .await
        .expect("explain");
    let plan: String = plan.into_iter().map(|r| r.0 + "\n").collect();
    assert!(plan.contains("runs_queued"), "{plan}");
    assert!(!plan.contains("Sort"), "{plan}");
}
