//! `--floor`: what a job costs on this machine before any of Argus's own logic, to tell
//! how far the dispatch path is from its target and what stands in the way.
//!
//! - **Database floor**: one connection repeats, in batches of [`BATCH`] runs, the row
//!   writes a job makes in PostgreSQL today and nothing else: the claim's assigning UPDATE
//!   of `runs` (the same columns, so the same index entries), the slot's `current_run_id`,
//!   the job's spec read; then, as the applier does, the runs locked, two `run_events` rows
//!   (`run_started`, `run_finished`, their real JSON), the ending UPDATE of `runs` and the
//!   slot freed. No matching of selectors, classes, hands, quotas, health or replay: a
//!   lower bound of PostgreSQL's CPU per job for the schema and the exactly-once rows.
//! - **Wire floor**: the JetStream traffic of a job and nothing else, through the same
//!   code: assignments published pipelined by `argus_coordinator::bus`, each worker's of a
//!   batch as one message (a group, `argus_protocol::assignment_group`, as Argus's
//!   dispatcher sends them since 4d6cc7d: the wire floors before it are of one assignment a
//!   message), ten simulated workers of [`sim`] fetching, acking and answering with two
//!   events each (through the workers' grouping publisher), and one pull consumer fetching the events in batches of 256 and acking
//!   them, as the applier does (without its linger: the batches are as large as what has
//!   arrived). On streams of their own made by the coordinator's
//!   `ensure_streams`, so no coordinator applies them.
//!   The workers' events go through the grouping publisher Argus's workers use; then once
//!   more, for comparison ([`Events::OnePerMessage`]), one event a message, as before.
//!
//! CPU is read from `/proc` over each window: every `postgres` process for the database
//! floor (the phase's idle coordinator included, about 1% of a core), `nats-server` and this
//! process for the wire floor. Each figure is µs of CPU per job; two cores give 200 µs a
//! job at 10,000 jobs/s.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use argus_protocol::subjects::Subjects;
use argus_protocol::{Assignment, EventBody, RunStatus};
use async_nats::jetstream::consumer::{pull, AckPolicy};
use sqlx::PgPool;
use uuid::Uuid;

use crate::farm::Farm;
use crate::procfs::{ticks_of_named, ticks_of_pid, ticks_per_s};
use crate::sim;

/// Runs per claim and per applied batch of the wire floor, and by default of the database
/// floor (`--floor-batch`): the dispatcher's `CLAIM_BATCH` and the applier's `APPLY_BATCH`
/// (256 each).
pub const BATCH: i64 = 256;

/// Simulated devices the database floor claims for (registered long ago, so the phase's
/// coordinator never takes them) and runs the wire floor keeps in flight.
const SLOTS: i64 = 1_000;

/// One floor's figures.
pub struct Floor {
    /// Jobs through the floor per second over the window.
    pub jobs_per_s: f64,
    /// CPU of the named processes per job, µs: `(name, µs)`.
    pub cpu_us: Vec<(&'static str, f64)>,
}

/// The database floor over `window_s` seconds (after one warm-up batch), `batch` runs a
/// claim and an applied batch.
pub async fn db_floor(farm: &Farm, window_s: f64, batch: i64) -> anyhow::Result<Floor> {
    let jobs = (window_s * 20_000.0).max(20_000.0) as i64;
    crate::dispatch::preload(farm, jobs).await?;
    slots(&farm.pool).await?;
    let bodies = event_bodies()?;
    let mut conn = farm.pool.acquire().await?;
    one_job_batch(&mut conn, &bodies, batch).await?;
    let (pg0, t0) = (ticks_of_named("postgres"), Instant::now());
    let mut done = 0_i64;
    while t0.elapsed().as_secs_f64() < window_s {
        let n = one_job_batch(&mut conn, &bodies, batch).await?;
        anyhow::ensure!(n > 0, "no run claimed after {done} runs: the queue ran dry");
        done += n;
    }
    let dt = t0.elapsed().as_secs_f64();
    let pg = ticks_of_named("postgres").saturating_sub(pg0) as f64 / ticks_per_s();
    Ok(Floor {
        jobs_per_s: done as f64 / dt,
        cpu_us: vec![("postgres", pg / done as f64 * 1e6)],
    })
}

/// [`SLOTS`] web slots of one worker, last heard from a day ago.
async fn slots(pool: &PgPool) -> anyhow::Result<()> {
    sqlx::query("insert into workers (id, hostname) values ('floor', 'dispatch-bench')")
        .execute(pool)
        .await?;
    sqlx::query(
        "insert into devices (id, worker_id, platform, labels, screen_w_px, screen_h_px,
                              last_seen, serves_all)
         select 'floor-d' || g, 'floor', 'web', '{\"browser\": \"chromium\"}', 1280, 800,
                now() - interval '1 day', true
           from generate_series(1, $1::int8) g",
    )
    .bind(SLOTS)
    .execute(pool)
    .await?;
    Ok(())
}

/// The JSON of a `run_started` and a `run_finished` event, as a worker sends them.
fn event_bodies() -> anyhow::Result<[serde_json::Value; 2]> {
    Ok([
        serde_json::to_value(EventBody::RunStarted {
            device_id: "floor-d1".into(),
            screen_w_px: 1280,
            screen_h_px: 800,
        })?,
        serde_json::to_value(EventBody::RunFinished {
            status: RunStatus::Succeeded,
            error: None,
            verdict: None,
            failure_class: None,
        })?,
    ])
}

/// The claim's writes for up to [`BATCH`] queued runs.
const CLAIM: &str = "
with c as (select id, row_number() over () rn
             from (select id from runs where status = 'queued'
                    order by priority desc, created_at, id limit $1 for update skip locked) s),
     d as (select id, worker_id, row_number() over () rn
             from (select id, worker_id from devices where current_run_id is null
                    order by id limit $1 for update skip locked) t),
     m as (select c.id r, d.id dv, d.worker_id w from c join d using (rn)),
     u as (update runs r set status = 'assigned', attempt_id = gen_random_uuid(),
                  attempts = r.attempts + 1, worker_id = m.w, device_id = m.dv,
                  lease_expires_at = now() + interval '60 s', assigned_at = now()
             from m where r.id = m.r
           returning r.id, r.job_id, r.attempt_id),
     x as (update devices set current_run_id = m.r from m where devices.id = m.dv)
select coalesce(array_agg(u.id), '{}'), coalesce(array_agg(u.attempt_id), '{}'),
       count(j.spec)
  from u join jobs j on j.id = u.job_id";

/// The applier's writes for one batch, each with how many parameters it names: `$1` runs,
/// `$2` their attempts, `$3`/`$4` the two events' bodies.
const APPLY: [(&str, usize); 5] = [
    (
        "select id, attempt_id from runs where id = any ($1) order by id for update",
        1,
    ),
    (
        "insert into run_events (run_id, attempt_id, seq, body)
     select u.id, u.att, s.seq, case when s.seq = 1 then $3 else $4 end
       from unnest($1::uuid[], $2::uuid[]) u(id, att), (values (1::int8), (2)) s(seq)
     on conflict do nothing returning run_id",
        4,
    ),
    (
        "select id from devices
      where id = any (array(select r.device_id from runs r where r.id = any ($1)))
        and current_run_id = any ($1) order by id for update",
        1,
    ),
    (
        "update runs r set status = 'succeeded', error = null, finished_at = now(),
            lease_expires_at = null, verdict = null, failure_class = null,
            started_at = coalesce(r.started_at, now()), screen_w_px = 1280, screen_h_px = 800
       from unnest($1::uuid[], $2::uuid[]) u(id, att)
      where r.id = u.id and r.attempt_id = u.att
        and r.status in ('queued', 'assigned', 'running') and r.id = any ($1)",
        2,
    ),
    (
        "update devices set current_run_id = null
      where id = any (array(select r.device_id from runs r where r.id = any ($1)))
        and current_run_id = any ($1)",
        1,
    ),
];

/// Claims a batch in one transaction and applies its two events per run in another, as the
/// dispatcher and the applier commit them; returns how many runs went through.
async fn one_job_batch(
    conn: &mut sqlx::PgConnection,
    bodies: &[serde_json::Value; 2],
    batch: i64,
) -> anyhow::Result<i64> {
    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    let (ids, atts, n): (Vec<Uuid>, Vec<Uuid>, i64) = sqlx::query_as(CLAIM)
        .bind(batch)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    if n == 0 {
        return Ok(0);
    }
    let mut tx = sqlx::Connection::begin(&mut *conn).await?;
    for (sql, params) in APPLY {
        // each statement is bound only the parameters it names
        let mut q = sqlx::query(sql).bind(&ids);
        if params >= 2 {
            q = q.bind(&atts);
        }
        if params >= 4 {
            q = q.bind(&bodies[0]).bind(&bodies[1]);
        }
        q.execute(&mut *tx)
            .await
            .with_context(|| format!("floor statement {sql}"))?;
    }
    tx.commit().await?;
    Ok(n)
}

/// How the wire floor's simulated workers send their events.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Events {
    /// As Argus's workers do: through one grouping publisher per worker
    /// (`argus_worker::run::event_groups`), so what queues up while a publish is in flight
    /// goes as one message.
    Grouped,
    /// For comparison: one event a message, as the workers sent them before.
    OnePerMessage,
}

/// The wire floor over `window_s` seconds (after 1 s of warm-up).
pub async fn wire_floor(farm: &Farm, window_s: f64, events: Events) -> anyhow::Result<Floor> {
    let mut wire = farm.clone();
    wire.subjects = Subjects::new(&format!(
        "floor{}",
        &Uuid::new_v4().simple().to_string()[..8]
    ))
    .map_err(|e| anyhow::anyhow!(e))?;
    argus_coordinator::bus::ensure_streams(&wire.js, &wire.subjects, 1).await?;
    let result = wire_window(&wire, window_s, events).await;
    for s in [wire.subjects.assign_stream(), wire.subjects.events_stream()] {
        let _ = wire.js.delete_stream(&s).await;
    }
    result
}

/// Simulated workers answering assignments.
const WORKERS: usize = 10;

async fn wire_window(wire: &Farm, window_s: f64, events: Events) -> anyhow::Result<Floor> {
    let finished = Arc::new(AtomicU64::new(0));
    let tally = sim::Shared::default();
    let mut tasks = Vec::new();
    for w in 0..WORKERS {
        let consumer = sim::consumer(wire, &format!("bw{w}")).await?;
        let (js, subjects, tally) = (wire.js.clone(), wire.subjects.clone(), tally.clone());
        tasks.push(tokio::spawn(async move {
            let served = match events {
                Events::Grouped => sim::serve_assignments(consumer, &js, &subjects, &tally).await,
                Events::OnePerMessage => {
                    sim::serve_assignments_one_per_message(consumer, &js, &subjects, &tally).await
                }
            };
            if let Err(e) = served {
                eprintln!("wire floor: simulated worker stopped: {e:#}");
            }
        }));
    }
    tasks.push(tokio::spawn(apply_events(wire.clone(), finished.clone())));
    tasks.push(tokio::spawn(assign(wire.clone(), finished.clone())));
    let measured = async {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let pid = std::process::id();
        let (n0, b0, f0) = (
            ticks_of_named("nats-server"),
            ticks_of_pid(pid),
            finished.load(Ordering::Relaxed),
        );
        let t0 = Instant::now();
        tokio::time::sleep(Duration::from_secs_f64(window_s)).await;
        let done = finished.load(Ordering::Relaxed).saturating_sub(f0) as f64;
        let (n1, b1) = (ticks_of_named("nats-server"), ticks_of_pid(pid));
        let dt = t0.elapsed().as_secs_f64();
        anyhow::ensure!(done > 0.0, "no job went through the wire floor");
        let per_job = |t: u64| t as f64 / ticks_per_s() / done * 1e6;
        Ok(Floor {
            jobs_per_s: done / dt,
            cpu_us: vec![
                ("nats-server", per_job(n1.saturating_sub(n0))),
                (
                    "dispatch-bench (dispatcher, workers, applier)",
                    per_job(b1.saturating_sub(b0)),
                ),
            ],
        })
    }
    .await;
    tasks.iter().for_each(|t| t.abort());
    measured
}

/// Publishes assignments in pipelined batches of [`BATCH`], keeping [`SLOTS`] in flight.
async fn assign(wire: Farm, finished: Arc<AtomicU64>) {
    let spec = match crate::dispatch::job_spec("floor") {
        Ok(s) => s,
        Err(e) => return eprintln!("wire floor: {e:#}"),
    };
    let mut sent = 0_u64;
    loop {
        let room = (SLOTS as u64 + finished.load(Ordering::Relaxed)).saturating_sub(sent);
        if room < BATCH as u64 {
            tokio::time::sleep(Duration::from_millis(1)).await;
            continue;
        }
        let batch: Vec<(String, Assignment)> = (0..BATCH as u64)
            .map(|i| {
                let a = Assignment {
                    run_id: Uuid::new_v4(),
                    attempt_id: Uuid::new_v4(),
                    job_id: Uuid::new_v4(),
                    team: "default".into(),
                    device_id: format!("bw{}-d{}", (sent + i) % WORKERS as u64, i % 100),
                    spec: spec.clone(),
                    lease_expires_at: chrono::Utc::now() + chrono::Duration::seconds(60),
                    replay: None,
                };
                (format!("bw{}", (sent + i) % WORKERS as u64), a)
            })
            .collect();
        // the bench's simulated workers read grouped assignments, as Argus's do
        let published =
            argus_coordinator::bus::publish_assignments(&wire.js, &wire.subjects, &batch, |_| true)
                .await;
        for r in published {
            if let Err(e) = r {
                return eprintln!("wire floor: publish failed: {e:#}");
            }
        }
        sent += BATCH as u64;
    }
}

/// Fetches events in batches of [`BATCH`] from one durable consumer, as the applier does,
/// acks each, and counts the `run_finished` ones.
async fn apply_events(wire: Farm, finished: Arc<AtomicU64>) {
    let run = async {
        let stream = wire.js.get_stream(wire.subjects.events_stream()).await?;
        let consumer = stream
            .get_or_create_consumer(
                "floor-applier",
                pull::Config {
                    durable_name: Some("floor-applier".into()),
                    filter_subject: wire.subjects.events_all(),
                    ack_policy: AckPolicy::Explicit,
                    max_ack_pending: 10_000,
                    ..Default::default()
                },
            )
            .await?;
        let mut messages = consumer
            .stream()
            .max_messages_per_batch(BATCH as usize)
            .messages()
            .await?;
        while let Some(batch) = argus_infra::nats::next_batch(&mut messages, BATCH as usize).await {
            for msg in batch? {
                // one event, or a worker's group of them (an array)
                let evs: Vec<argus_protocol::RunEvent> = match msg.payload.first() {
                    Some(b'[') => serde_json::from_slice(&msg.payload)?,
                    _ => vec![serde_json::from_slice(&msg.payload)?],
                };
                msg.ack().await.map_err(|e| anyhow::anyhow!(e))?;
                let ended = evs
                    .iter()
                    .filter(|ev| matches!(ev.body, EventBody::RunFinished { .. }))
                    .count();
                finished.fetch_add(ended as u64, Ordering::Relaxed);
            }
        }
        anyhow::Ok(())
    };
    if let Err(e) = run.await {
        eprintln!("wire floor: event consumer stopped: {e:#}");
    }
}
