//! Pins the claim statements: each queued run goes to exactly one slot when several
//! claimers race (as several coordinators would), a selector the device's labels do not
//! satisfy is never claimed, priority beats age, a team quota holds exactly under racing
//! batch claimers, and the plans walk the partial `runs_queued` index.

use argus_coordinator::store::claim::{
    claim, claim_batch, class_candidates_sql, free_devices, Claimed,
};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_claimers_hand_each_run_out_once_and_respect_labels() {
    let farm = crate::bare_farm().await;
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

    // The claim's candidate scan (for one slot) uses the partial queued index, with no sort
    // node.
    sqlx::query("analyze runs")
        .execute(&farm.pool)
        .await
        .expect("analyze");
    let mut tx = farm.pool.begin().await.expect("tx");
    sqlx::query("set local enable_seqscan = off")
        .execute(&mut *tx)
        .await
        .expect("set");
    let plan: Vec<(String,)> = sqlx::query_as(&format!("explain {}", candidates()))
        .bind("web")
        .bind(json!({"team": "qa"}))
        .bind(Vec::<String>::new())
        .bind(1_i64)
        .bind(true)
        .bind(None::<String>)
        .fetch_all(&mut *tx)
        .await
        .expect("explain");
    let plan: String = plan.into_iter().map(|r| r.0 + "\n").collect();
    assert!(plan.contains("runs_queued"), "{plan}");
    assert!(!plan.contains("Sort"), "{plan}");
}

/// Four batch claimers (as four coordinators) at once; returns every claim they made.
pub(crate) async fn race_batch_claimers(pool: &sqlx::PgPool) -> Vec<Claimed> {
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let pool = pool.clone();
        tasks.push(tokio::spawn(async move {
            claim_batch(&pool, 600, 30, 256).await.expect("claim_batch")
        }));
    }
    let mut claimed = Vec::new();
    for t in tasks {
        claimed.extend(t.await.expect("task"));
    }
    claimed
}

pub(crate) fn assert_exclusive(claimed: &[Claimed]) {
    let mut runs: Vec<_> = claimed.iter().map(|c| c.run_id).collect();
    runs.sort();
    runs.dedup();
    assert_eq!(runs.len(), claimed.len(), "a run was handed out twice");
    let mut devices: Vec<_> = claimed.iter().map(|c| c.device_id.clone()).collect();
    devices.sort();
    devices.dedup();
    assert_eq!(devices.len(), claimed.len(), "a slot got two runs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn batch_claimers_claim_by_class_exclusively_in_priority_order() {
    let farm = crate::bare_farm().await;
    // Two classes of slots, heard from a minute ago (the farm's own dispatcher, 15 s TTL,
    // leaves them alone): 6 chromium, 4 firefox.
    for i in 0..6 {
        farm.register_sim_device(&format!("c-{i}"), "web", json!({"browser": "chromium"}), 60)
            .await;
    }
    for i in 0..4 {
        farm.register_sim_device(&format!("f-{i}"), "web", json!({"browser": "firefox"}), 60)
            .await;
    }
    let mut chromium = Vec::new();
    for i in 0..5 {
        chromium.push(
            farm.submit(
                &json!({"platform": "web", "instruction": format!("wait {i}ms"),
                "selector": {"labels": {"browser": "chromium"}}}),
            )
            .await,
        );
    }
    let mut firefox = Vec::new();
    for i in 0..7 {
        firefox.push(
            farm.submit(
                &json!({"platform": "web", "instruction": format!("wait {i}ms"),
                "selector": {"require": ["browser in [firefox]"]}}),
            )
            .await,
        );
    }
    // submitted last, claimed first among the firefox runs
    let urgent = farm
        .submit(
            &json!({"platform": "web", "instruction": "wait 1ms", "priority": 9,
            "selector": {"labels": {"browser": "firefox"}}}),
        )
        .await;
    let claimed = race_batch_claimers(&farm.pool).await;
    assert_exclusive(&claimed);
    for c in &claimed {
        if chromium.contains(&c.run_id) {
            assert!(c.device_id.starts_with("c-"), "{c:?}");
        } else {
            assert!(c.device_id.starts_with("f-"), "{c:?}");
        }
    }
    let on = |prefix: &str| {
        claimed
            .iter()
            .filter(|c| c.device_id.starts_with(prefix))
            .count()
    };
    assert_eq!(on("c-"), 5, "every chromium run got a chromium slot");
    assert_eq!(on("f-"), 4, "every firefox slot got a run");
    assert!(claimed.iter().any(|c| c.run_id == urgent), "priority first");
    // FIFO within a priority: the three oldest firefox runs went with the urgent one
    for r in &firefox[..3] {
        assert!(claimed.iter().any(|c| c.run_id == *r), "oldest first");
    }
    // the database agrees: each slot holds its run, each run its slot and a fresh attempt
    for c in &claimed {
        let (status, device, attempt): (String, String, uuid::Uuid) =
            sqlx::query_as("select status, device_id, attempt_id from runs where id = $1")
                .bind(c.run_id)
                .fetch_one(&farm.pool)
                .await
                .expect("run");
        assert_eq!(
            (status.as_str(), device.as_str(), attempt),
            ("assigned", c.device_id.as_str(), c.attempt_id)
        );
        let held: (Option<uuid::Uuid>,) =
            sqlx::query_as("select current_run_id from devices where id = $1")
                .bind(&c.device_id)
                .fetch_one(&farm.pool)
                .await
                .expect("device");
        assert_eq!(held.0, Some(c.run_id));
    }
    let queued: (i64,) = sqlx::query_as("select count(*) from runs where status = 'queued'")
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(queued.0, 4, "the four youngest firefox runs wait");

    // The per-class candidate query walks the partial queued index, with no sort node.
    sqlx::query("analyze runs")
        .execute(&farm.pool)
        .await
        .expect("analyze");
    let mut tx = farm.pool.begin().await.expect("tx");
    sqlx::query("set local enable_seqscan = off")
        .execute(&mut *tx)
        .await
        .expect("set");
    let plan: Vec<(String,)> = sqlx::query_as(&format!("explain {}", candidates()))
        .bind("web")
        .bind(json!({"browser": "firefox"}))
        .bind(Vec::<String>::new())
        .bind(4_i64)
        .bind(false)
        .bind("qa-team")
        .fetch_all(&mut *tx)
        .await
        .expect("explain");
    let plan: String = plan.into_iter().map(|r| r.0 + "\n").collect();
    assert!(plan.contains("runs_queued"), "{plan}");
    assert!(!plan.contains("Sort"), "{plan}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_batch_claimers_keep_a_team_quota_exactly() {
    let farm = crate::bare_farm().await;
    for i in 0..8 {
        farm.register_sim_device(&format!("q-{i}"), "web", json!({"pool": "q"}), 60)
            .await;
    }
    let mut runs = Vec::new();
    for i in 0..10 {
        runs.push(
            farm.submit(
                &json!({"platform": "web", "instruction": format!("wait {i}ms"),
                "selector": {"labels": {"pool": "q"}}}),
            )
            .await,
        );
    }
    // the submitting team may hold three slots at once
    sqlx::query("update teams set max_concurrent = 3 where id = 'default'")
        .execute(&farm.pool)
        .await
        .expect("quota");
    let first = race_batch_claimers(&farm.pool).await;
    assert_exclusive(&first);
    assert_eq!(
        first.len(),
        3,
        "quota 3 with 8 free slots and 10 queued runs"
    );
    let again = race_batch_claimers(&farm.pool).await;
    assert!(again.is_empty(), "the team is at its quota: {again:?}");
    // one run ends: exactly one more may start
    sqlx::query("update runs set status = 'succeeded' where id = $1")
        .bind(first[0].run_id)
        .execute(&farm.pool)
        .await
        .expect("finish");
    let more = race_batch_claimers(&farm.pool).await;
    assert_eq!(more.len(), 1, "{more:?}");
}

/// The candidate query of the claim, as the bench and the tests above EXPLAIN it.
fn candidates() -> &'static str {
    class_candidates_sql().expect("candidate query in coordinator/sql/claim.sql")
}

/// The claim functions the database runs are the ones `coordinator/sql/claim.sql` defines
/// (applied on connect): the candidate query EXPLAINed above is the body of the installed
/// `argus_claim_candidates`, and the installed `argus_claim_batch` calls it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_explained_candidate_query_is_the_one_the_claim_runs() {
    let farm = crate::bare_farm().await;
    let def = |signature: &'static str| {
        let pool = farm.pool.clone();
        async move {
            let (def,): (String,) =
                sqlx::query_as("select pg_get_functiondef($1::text::regprocedure)")
                    .bind(signature)
                    .fetch_one(&pool)
                    .await
                    .expect("function definition");
            def
        }
    };
    let candidates_def =
        def("argus_claim_candidates(text, jsonb, text[], integer, boolean, text)").await;
    assert!(
        candidates_def.contains(candidates()),
        "argus_claim_candidates in the database is not claim.sql's:\n{candidates_def}"
    );
    let batch_def = def("argus_claim_batch(float8, float8, integer, text)").await;
    assert!(
        batch_def.contains("from argus_claim_candidates(cls.platform, cls.labels, full_teams,"),
        "{batch_def}"
    );
}
