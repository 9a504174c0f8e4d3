//! Pins the claim's next fit (migration 0021, `claim_hands`): a class's next claim takes
//! the free slots after the last one its previous claim locked before any earlier free slot,
//! wraps around to the class's first slot when the slots after the hand run out, and a
//! claim for one named slot neither reads nor moves the hand. Before it, every claim walked
//! a class from its first slot, stepping over every busy one: with 10,000 slots nearly all
//! busy, 8-10 ms a claim in `dispatch-bench`.

use argus_coordinator::store::claim::{claim, claim_batch, free_devices};
use serde_json::json;

use crate::{bare_farm, exec};

/// Queues `n` runs only the `pool=hand` slots may take.
async fn queue(farm: &argus_tests::Farm, n: usize) {
    for i in 0..n {
        farm.submit(
            &json!({"platform": "web", "instruction": format!("wait {i}ms"),
            "selector": {"labels": {"pool": "hand"}}}),
        )
        .await;
    }
}

/// Ends every assigned run and frees every slot (what the applier does at a run's end).
async fn finish_all(pool: &sqlx::PgPool) {
    exec(
        pool,
        "update runs set status = 'succeeded', finished_at = now(), lease_expires_at = null
          where status = 'assigned'",
    )
    .await;
    exec(pool, "update devices set current_run_id = null").await;
}

/// The slots one batch claim took, sorted.
async fn claimed_slots(pool: &sqlx::PgPool) -> Vec<String> {
    let mut slots: Vec<String> = claim_batch(pool, 600, 30, 256)
        .await
        .expect("claim")
        .into_iter()
        .map(|c| c.device_id)
        .collect();
    slots.sort();
    slots
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_starts_after_the_last_slot_claimed_and_wraps_around() {
    let farm = bare_farm().await;
    let pool = &farm.pool;
    // One class of six slots, heard from a minute ago: the farm's own dispatcher (15 s
    // device TTL) leaves them alone; the claims below allow 600 s.
    for i in 0..6 {
        farm.register_sim_device(
            &format!("hand-{i}"),
            "web",
            json!({"browser": "chromium", "pool": "hand"}),
            60,
        )
        .await;
    }
    // No hand yet: the class's first slots.
    queue(&farm, 2).await;
    assert_eq!(claimed_slots(pool).await, ["hand-0", "hand-1"]);
    finish_all(pool).await;

    // hand-0 and hand-1 are free again, but the slots after the hand come first.
    queue(&farm, 2).await;
    assert_eq!(claimed_slots(pool).await, ["hand-2", "hand-3"]);
    finish_all(pool).await;

    // Three runs, two slots left after the hand: the rest from the class's first slot.
    queue(&farm, 3).await;
    assert_eq!(claimed_slots(pool).await, ["hand-0", "hand-4", "hand-5"]);
    finish_all(pool).await;

    // A claim for one named slot neither reads nor moves the hand (now hand-0)…
    queue(&farm, 1).await;
    let named = free_devices(pool, 600)
        .await
        .expect("free")
        .into_iter()
        .find(|d| d.id == "hand-4")
        .expect("hand-4 free");
    let c = claim(pool, &named, 30)
        .await
        .expect("claim")
        .expect("a run");
    assert_eq!(c.device_id, "hand-4");
    finish_all(pool).await;
    // …so the next batch claim goes on after hand-0.
    queue(&farm, 1).await;
    assert_eq!(claimed_slots(pool).await, ["hand-1"]);

    // Only busy slots after the hand: the free one before it is still found.
    finish_all(pool).await;
    exec(
        pool,
        "update devices set current_run_id = gen_random_uuid() where id <> 'hand-0'",
    )
    .await;
    queue(&farm, 1).await;
    assert_eq!(claimed_slots(pool).await, ["hand-0"]);
}
