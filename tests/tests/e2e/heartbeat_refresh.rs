//! Pins what a heartbeat writes (`store::workers::heartbeat`, issue 25 item 3): a slot
//! whose row would not change is left alone while its `last_seen` is younger than the
//! refresh age, so an idle farm of 10,000 slots does not rewrite every row on every beat;
//! a changed slot is written at once; a slot heard from longer ago than the refresh age is
//! refreshed, and stays claimable.

use std::collections::BTreeMap;

use argus_coordinator::store::claim::free_devices;
use argus_protocol::{DeviceInfo, Heartbeat, Platform};

use crate::{bare_farm, exec};

fn beat(browser_of_d1: &str) -> Heartbeat {
    Heartbeat {
        worker_id: "hb-refresh".into(),
        hostname: "sim".into(),
        devices: (0..3)
            .map(|i| DeviceInfo {
                device_id: format!("hb-refresh-d{i}"),
                platform: Platform::Web,
                labels: BTreeMap::from([(
                    "browser".to_string(),
                    if i == 1 { browser_of_d1 } else { "chromium" }.to_string(),
                )]),
                screen_w_px: 1280,
                screen_h_px: 800,
            })
            .collect(),
        running: Vec::new(),
        reads_assignment_groups: false,
    }
}

/// `(device id, row version, labels)` of the three slots, by id.
async fn rows(pool: &sqlx::PgPool) -> Vec<(String, String, serde_json::Value)> {
    sqlx::query_as(
        "select id, xmin::text, labels from devices where worker_id = 'hb-refresh' order by id",
    )
    .fetch_all(pool)
    .await
    .expect("devices")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_slot_is_rewritten_only_when_its_last_seen_ages() {
    let farm = bare_farm().await;
    let pool = &farm.pool;
    let hb = |b: &'static str| async move {
        argus_coordinator::store::workers::heartbeat(pool, &beat(b), 30, None, 5.0)
            .await
            .expect("heartbeat")
    };
    hb("chromium").await;
    let first = rows(pool).await;
    assert_eq!(first.len(), 3, "{first:?}");

    // Same slots again at once: no row is written.
    hb("chromium").await;
    assert_eq!(rows(pool).await, first, "an unchanged beat rewrote a slot");

    // One slot's labels change: that row is written now, the others are not.
    hb("firefox").await;
    let changed = rows(pool).await;
    assert_ne!(changed[1].1, first[1].1, "the changed slot was not written");
    assert_eq!(changed[1].2["browser"], "firefox");
    assert_eq!((&changed[0], &changed[2]), (&first[0], &first[2]));

    // A slot last heard from a minute ago (older than the 5 s refresh age, and than the
    // 15 s TTL): the next beat refreshes it and it is free and fresh for the claim again.
    exec(
        pool,
        "update devices set last_seen = now() - interval '1 minute' where id = 'hb-refresh-d2'",
    )
    .await;
    let stale = rows(pool).await;
    let fresh_ids = |devs: Vec<argus_coordinator::store::claim::FreeDevice>| {
        let mut ids: Vec<String> = devs
            .into_iter()
            .filter(|d| d.worker_id == "hb-refresh")
            .map(|d| d.id)
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(
        fresh_ids(free_devices(pool, 15).await.expect("free")),
        ["hb-refresh-d0", "hb-refresh-d1"]
    );
    hb("firefox").await;
    let after = rows(pool).await;
    assert_ne!(after[2].1, stale[2].1, "the aged slot was not refreshed");
    assert_eq!((&after[0], &after[1]), (&stale[0], &stale[1]));
    assert_eq!(
        fresh_ids(free_devices(pool, 15).await.expect("free")),
        ["hb-refresh-d0", "hb-refresh-d1", "hb-refresh-d2"]
    );
}

/// The lease extension (`store::workers::heartbeat`, `extend_leases`) reads each listed
/// run's status by key in a CTE instead of filtering the updated table by status (which let
/// the planner walk `runs_active_team`, every busy slot's run, on each beat): a lease the
/// worker holds is extended; one whose attempt is not the run's current one, one of a run
/// that ended, and one of a run held by another worker are fenced and left as they were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_heartbeat_extends_its_own_leases_and_fences_the_rest() {
    use argus_coordinator::store::claim::claim_batch;
    use argus_protocol::LeaseRef;

    let farm = bare_farm().await;
    let pool = &farm.pool;
    // Three slots of worker hb-refresh, then aged past the farm dispatcher's 15 s TTL so
    // only the claim below hands them runs.
    let mut hb = beat("chromium");
    argus_coordinator::store::workers::heartbeat(pool, &hb, 30, None, 5.0)
        .await
        .expect("register");
    exec(
        pool,
        "update devices set last_seen = now() - interval '1 minute' where worker_id = 'hb-refresh'",
    )
    .await;
    for i in 0..3 {
        farm.submit(
            &serde_json::json!({"platform": "web", "instruction": format!("wait {i}ms"),
            "selector": {"labels": {"browser": "chromium"}}}),
        )
        .await;
    }
    let claimed = claim_batch(pool, 600, 30, 256).await.expect("claim");
    assert_eq!(claimed.len(), 3, "{claimed:?}");
    let (held, ended, other) = (&claimed[0], &claimed[1], &claimed[2]);
    exec(
        pool,
        &format!(
            "update runs set status = 'succeeded', finished_at = now() where id = '{}'",
            ended.run_id
        ),
    )
    .await;
    exec(
        pool,
        &format!(
            "update runs set worker_id = 'someone-else' where id = '{}'",
            other.run_id
        ),
    )
    .await;
    let lease = |id: uuid::Uuid| {
        let pool = pool.clone();
        async move {
            let (at,): (Option<chrono::DateTime<chrono::Utc>>,) =
                sqlx::query_as("select lease_expires_at from runs where id = $1")
                    .bind(id)
                    .fetch_one(&pool)
                    .await
                    .expect("lease");
            at
        }
    };
    let other_before = lease(other.run_id).await;
    let stale = LeaseRef {
        run_id: held.run_id,
        attempt_id: uuid::Uuid::new_v4(),
    };
    let lease_of = |c: &argus_coordinator::store::claim::Claimed| LeaseRef {
        run_id: c.run_id,
        attempt_id: c.attempt_id,
    };
    hb.running = vec![
        lease_of(held),
        stale.clone(),
        lease_of(ended),
        lease_of(other),
    ];
    let (mut fenced, _) = argus_coordinator::store::workers::heartbeat(pool, &hb, 3600, None, 5.0)
        .await
        .expect("heartbeat");
    let mut want = vec![stale, lease_of(ended), lease_of(other)];
    let key = |l: &LeaseRef| (l.run_id, l.attempt_id);
    fenced.sort_by_key(key);
    want.sort_by_key(key);
    assert_eq!(fenced, want);
    // extended to an hour from now (the claim gave 30 s)
    let extended = lease(held.run_id).await.expect("held lease");
    assert!(
        extended > chrono::Utc::now() + chrono::Duration::minutes(50),
        "{extended}"
    );
    assert_eq!(
        lease(other.run_id).await,
        other_before,
        "another's lease moved"
    );
}
