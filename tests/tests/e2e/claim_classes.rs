//! The batch claim over classes of identical slots (migration 0005, `argus_claim_batch`),
//! against a real PostgreSQL:
//! - idle slots of many distinct label sets (every Android/HarmonyOS phone carries its own
//!   `serial` label, so each is a class of one) must not make a claim walk the whole queue
//!   once per class while holding every free slot locked;
//! - racing batch claimers over several classes, with quotas that span classes, keep every
//!   run and slot exclusive, quotas exact, and skip runs not due, cancelled runs and stale
//!   slots.

use std::time::{Duration, Instant};

use argus_coordinator::store::claim::{claim_batch, Claimed};
use argus_protocol::{DeviceInfo, Heartbeat, Platform};
use serde_json::json;
use uuid::Uuid;

use crate::bare_farm;
use crate::exec;

/// 1000 free phones, each its own class (a `serial` label, as the Android and HarmonyOS
/// drivers advertise), and a backlog of 5000 due runs waiting for a model whose only phone
/// is busy. Nothing can be claimed, so a claim pass must stay cheap, and must not hold the
/// free slots locked (a worker's heartbeat upserts its slots) for long.
///
/// Failed on the first version of the class claim, which visited every class of free slots,
/// locked each class's slots, then walked the whole queue for it: 1000 walks of 5000 runs,
/// 5-6 s per pass, and the heartbeat waited behind it (now ~11 ms and ~18 ms).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn idle_unique_slots_keep_a_fruitless_claim_cheap() {
    let farm = bare_farm().await;
    let pool = &farm.pool;
    // The busy model's only phone, heard from an hour ago (so the submit check passes and
    // no claimer sees it free).
    farm.register_sim_device(
        "busy-x9",
        "android",
        json!({"model": "x9", "serial": "busy"}),
        3600,
    )
    .await;
    let first = farm
        .submit(&json!({"platform": "android", "instruction": "wait 1ms",
            "selector": {"labels": {"model": "x9"}}}))
        .await;
    // 4999 more runs of the same kind, cloned in SQL (the API would take minutes here).
    exec(
        pool,
        &format!(
            "with src as (select j.* from jobs j join runs r on r.job_id = j.id
                           where r.id = '{first}'),
                  ids as (select gen_random_uuid() as jid, gen_random_uuid() as rid, i
                            from generate_series(1, 4999) i),
                  js as (insert into jobs (id, spec, platform, selector_labels,
                                           selector_require, team_id)
                         select ids.jid, src.spec, src.platform, src.selector_labels,
                                src.selector_require, src.team_id from ids, src)
             insert into runs (id, job_id, status, team_id, created_at)
             select rid, jid, 'queued', 'default', now() + make_interval(secs => i / 1000.0)
               from ids"
        ),
    )
    .await;
    exec(
        pool,
        "insert into devices (id, worker_id, platform, labels, screen_w_px, screen_h_px,
                              last_seen, serves_all)
         select 'phone-' || i, 'sim', 'android',
                jsonb_build_object('model', 'p7', 'serial', 's' || i), 1080, 2400,
                now() - interval '60 seconds', true
           from generate_series(1, 1000) i",
    )
    .await;
    exec(pool, "analyze").await;

    let claimer = {
        let pool = pool.clone();
        tokio::spawn(async move {
            let t = Instant::now();
            let c = claim_batch(&pool, 600, 30, 256).await.expect("claim_batch");
            (c, t.elapsed())
        })
    };
    // The phones' worker heartbeats (all its slots, unchanged) while the claim runs.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let hb = Heartbeat {
        worker_id: "sim".into(),
        hostname: "sim".into(),
        devices: (1..=1000)
            .map(|i| DeviceInfo {
                device_id: format!("phone-{i}"),
                platform: Platform::Android,
                labels: [("model", "p7".to_string()), ("serial", format!("s{i}"))]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
                screen_w_px: 1080,
                screen_h_px: 2400,
            })
            .collect(),
        running: Vec::new(),
        reads_assignment_groups: false,
    };
    let t = Instant::now();
    argus_coordinator::store::workers::heartbeat(pool, &hb, 30, None, 5.0)
        .await
        .expect("heartbeat");
    let heartbeat_took = t.elapsed();
    let (claimed, claim_took) = claimer.await.expect("claimer");
    eprintln!("fruitless claim over 1000 classes: {claim_took:?}; heartbeat: {heartbeat_took:?}");
    assert!(
        claimed.is_empty(),
        "nothing matches a free slot: {claimed:?}"
    );
    assert!(
        claim_took < Duration::from_millis(1500),
        "a claim that can hand out nothing took {claim_took:?}: it walks the queue once per \
         class of free slots"
    );
    assert!(
        heartbeat_took < Duration::from_millis(1500),
        "a heartbeat waited {heartbeat_took:?} for the claim's locks on idle slots"
    );
}

/// Four batch claimers at once, three rounds, over three classes of slots (plus one stale
/// slot) that overlap in what they match, with a quota that spans classes (`a`: 2), a team
/// that may run nothing (`b`: 0), runs not yet due and a cancelled run. After every round:
/// each run and slot is held once, runs and slots agree, every claim satisfies its
/// selector, no quota is exceeded, and no free live slot is left that a claimable run
/// matches.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_claimers_over_overlapping_classes_keep_quotas_and_exclusivity() {
    let farm = bare_farm().await;
    let pool = &farm.pool;
    exec(
        pool,
        "insert into teams (id, max_concurrent) values ('a', 2), ('b', 0), ('c', null)",
    )
    .await;
    // Everything registered first, so every submit passes the matchability check.
    let classes = [
        ("x", json!({"pool": "p", "gpu": "no"}), 3),
        ("y", json!({"pool": "p", "gpu": "yes"}), 3),
        ("z", json!({"pool": "p", "gpu": "yes", "big": "yes"}), 2),
    ];
    for (name, labels, n) in &classes {
        for i in 0..*n {
            farm.register_sim_device(&format!("{name}-{i}"), "web", labels.clone(), 60)
                .await;
        }
    }
    // Same labels as x, but not heard from within the claimers' TTL.
    farm.register_sim_device("stale-0", "web", json!({"pool": "p", "gpu": "no"}), 3600)
        .await;
    let a = farm.client_for("a", "user").await;
    let b = farm.client_for("b", "user").await;
    let c = farm.client_for("c", "user").await;
    let submit = |client: reqwest::Client, spec: serde_json::Value| {
        let url = format!("{}/api/v1/jobs", farm.base_url);
        async move {
            let r = client.post(url).json(&spec).send().await.expect("POST");
            assert_eq!(r.status().as_u16(), 201);
            let v: serde_json::Value = r.json().await.expect("json");
            v["run_id"]
                .as_str()
                .and_then(|s| s.parse::<Uuid>().ok())
                .expect("run_id")
        }
    };
    let any = json!({"labels": {"pool": "p"}});
    for i in 0..5 {
        submit(
            a.clone(),
            json!({"platform": "web", "instruction": format!("wait {i}ms"),
            "selector": any, "priority": 5}),
        )
        .await;
    }
    for i in 0..2 {
        submit(
            b.clone(),
            json!({"platform": "web", "instruction": format!("wait {i}ms"),
            "selector": any, "priority": 9}),
        )
        .await;
    }
    for i in 0..3 {
        submit(
            c.clone(),
            json!({"platform": "web", "instruction": format!("wait {i}ms"),
            "selector": {"require": ["gpu in [yes]"]}}),
        )
        .await;
        submit(
            c.clone(),
            json!({"platform": "web", "instruction": format!("wait {i}ms"),
            "selector": {"labels": {"big": "yes"}}}),
        )
        .await;
    }
    let later = submit(
        c.clone(),
        json!({"platform": "web", "instruction": "wait 1ms",
        "selector": any, "priority": 50}),
    )
    .await;
    sqlx::query("update runs set not_before = now() + interval '1 hour' where id = $1")
        .bind(later)
        .execute(pool)
        .await
        .expect("not due");
    let cancelled = submit(
        c.clone(),
        json!({"platform": "web", "instruction": "wait 1ms",
        "selector": any, "priority": 50}),
    )
    .await;
    argus_coordinator::store::jobs::cancel_run(
        pool,
        cancelled,
        &argus_coordinator::store::TeamScope::system(),
    )
    .await
    .expect("cancel");

    let mut all: Vec<Claimed> = Vec::new();
    for round in 0..3 {
        let claimed = crate::claim::race_batch_claimers(pool).await;
        crate::claim::assert_exclusive(&claimed);
        eprintln!(
            "round {round}: {:?}",
            claimed
                .iter()
                .map(|c| c.device_id.as_str())
                .collect::<Vec<_>>()
        );
        all.extend(claimed);
        let held: Vec<(String, Option<Uuid>, Option<Uuid>)> = sqlx::query_as(
            "select coalesce(d.id, r.device_id), d.current_run_id, r.id from devices d
               full join (select id, device_id from runs
                           where status in ('assigned', 'running')) r on r.device_id = d.id",
        )
        .fetch_all(pool)
        .await
        .expect("slots");
        for (dev, cur, run) in &held {
            assert_eq!(cur, run, "round {round}: slot {dev} and its run disagree");
        }
        let wrong: (i64,) = sqlx::query_as(
            "select count(*) from runs r join jobs j on j.id = r.job_id
               join devices d on d.id = r.device_id
              where r.status in ('assigned', 'running')
                and not (d.platform = j.platform and d.labels @> j.selector_labels
                         and argus_selector_match(d.labels, j.selector_require))",
        )
        .fetch_one(pool)
        .await
        .expect("selectors");
        assert_eq!(
            wrong.0, 0,
            "round {round}: a run on a slot it does not match"
        );
        let per_team: Vec<(String, i64)> = sqlx::query_as(
            "select team_id, count(*) from runs where status in ('assigned', 'running')
              group by team_id",
        )
        .fetch_all(pool)
        .await
        .expect("per team");
        for (team, n) in &per_team {
            match team.as_str() {
                "a" => assert!(*n <= 2, "round {round}: team a holds {n} > quota 2"),
                "b" => panic!("round {round}: team b (quota 0) holds {n}"),
                _ => {}
            }
        }
        // Greedy per class, but never idle with a claimable match.
        let missed: Vec<(String, Uuid)> = sqlx::query_as(
            "select d.id, r.id from devices d, runs r join jobs j on j.id = r.job_id
              left join teams t on t.id = r.team_id
              where d.current_run_id is null and d.last_seen > now() - interval '600 seconds'
                and r.status = 'queued' and r.not_before <= now()
                and d.platform = j.platform and d.labels @> j.selector_labels
                and argus_selector_match(d.labels, j.selector_require)
                and (t.max_concurrent is null
                     or t.max_concurrent > (select count(*) from runs x where x.team_id = r.team_id
                                             and x.status in ('assigned', 'running')))
              limit 5",
        )
        .fetch_all(pool)
        .await
        .expect("missed");
        assert!(
            missed.is_empty(),
            "round {round}: idle slot with a claimable run: {missed:?}"
        );
        // Between rounds, the oldest held run of each team ends and frees its slot.
        exec(
            pool,
            "with done as (
                 select distinct on (team_id) id from runs
                  where status in ('assigned', 'running') order by team_id, assigned_at, id),
             fin as (update runs set status = 'succeeded', finished_at = now()
                      where id in (select id from done) returning id)
             update devices set current_run_id = null
              where current_run_id in (select id from fin)",
        )
        .await;
    }
    assert!(
        all.iter().all(|c| c.device_id != "stale-0"),
        "a stale slot was used"
    );
    assert!(
        !all.iter().any(|c| c.run_id == later),
        "a run not yet due was claimed"
    );
    assert!(
        !all.iter().any(|c| c.run_id == cancelled),
        "a cancelled run was claimed"
    );
    let teams: Vec<(String,)> =
        sqlx::query_as("select distinct r.team_id from runs r where r.id = any($1)")
            .bind(all.iter().map(|c| c.run_id).collect::<Vec<_>>())
            .fetch_all(pool)
            .await
            .expect("teams");
    assert!(teams.iter().any(|t| t.0 == "a") && teams.iter().any(|t| t.0 == "c"));
}
