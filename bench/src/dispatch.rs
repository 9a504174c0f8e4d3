//! The dispatch phase: a preloaded queue drained by simulated devices; jobs/s from the
//! first completion (after 1 s of warm-up), over a fixed window, counting the applier's
//! completion UPDATEs (claim → JetStream assignment → worker fetch + ack → events → apply),
//! and events applied/s. Then the rest of the queue is drained and every run is checked
//! ([`Outcome`]): a run that did not succeed exactly once is lost.

use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use argus_coordinator::store::claim::class_candidates_sql;
use argus_protocol::JobSpec;
use sqlx::PgPool;

use crate::farm::Farm;
use crate::procfs::{ticks_of_named, ticks_of_pid, ticks_per_s};
use crate::sim;

/// How often a drain looks at the counts.
const POLL: Duration = Duration::from_millis(500);

/// Result of one dispatch phase.
pub struct Dispatch {
    /// Runs finished per second over the window.
    pub jobs_per_s: f64,
    /// Events applied per second over the window.
    pub events_per_s: f64,
    /// CPU per finished run over the window, µs: PostgreSQL (every `postgres` process),
    /// `nats-server`, the coordinators, this process (the simulated devices).
    pub cpu_us: [f64; 4],
    /// The claim's candidate query plan, when asked for.
    pub plan: Option<String>,
    /// What became of every queued run.
    pub outcome: Outcome,
}

/// What became of a phase's runs once its queue was drained.
#[derive(Debug, Clone, Copy, Default)]
pub struct Outcome {
    /// Runs submitted.
    pub jobs: i64,
    /// Runs that did not end `succeeded` (still queued, stuck or failed) when the queue
    /// stopped moving.
    pub lost: i64,
    /// Assignments the simulated workers received for a run they had already been handed.
    pub duplicates: u64,
    /// Runs claimed more than once (`attempts > 1`).
    pub retried: i64,
}

impl Outcome {
    /// Adds another phase's outcome to this one.
    pub fn add(&mut self, o: Outcome) {
        self.jobs += o.jobs;
        self.lost += o.lost;
        self.duplicates += o.duplicates;
        self.retried += o.retried;
    }
}

/// A job the simulated devices run; its `name` carries its submit time when timed.
pub fn job_spec(name: &str) -> anyhow::Result<JobSpec> {
    Ok(serde_json::from_value(serde_json::json!({
        "platform": "web",
        "instruction": "wait 1ms",
        "name": name,
        "selector": {"labels": {"browser": "chromium"}},
    }))?)
}

/// Counts `(succeeded runs, applied events)`: two sequential scans, so it is read only at
/// the window's edges and every [`POLL`] while draining, never in a tight loop (polled every
/// 20 ms it took a third of PostgreSQL's CPU away from the farm it measures).
async fn counts(pool: &PgPool) -> anyhow::Result<(i64, i64)> {
    let r = sqlx::query!(
        r#"select (select count(*) from runs where status = 'succeeded') as "succeeded!",
                  (select count(*) from run_events) as "events!""#
    )
    .fetch_one(pool)
    .await?;
    Ok((r.succeeded, r.events))
}

/// Queues `jobs` jobs of one run each straight in the database.
pub async fn preload(farm: &Farm, jobs: i64) -> anyhow::Result<()> {
    let spec = serde_json::to_value(job_spec("bench-queue")?)?;
    sqlx::query!(
        "with j as (
            insert into jobs (id, spec, platform, selector_labels, name)
            select gen_random_uuid(), $1, 'web', $2, 'bench' from generate_series(1, $3::int8)
            returning id)
         insert into runs (id, job_id, status) select gen_random_uuid(), j.id, 'queued' from j",
        spec,
        serde_json::json!({"browser": "chromium"}),
        jobs
    )
    .execute(&farm.pool)
    .await?;
    sqlx::query!("vacuum analyze runs")
        .execute(&farm.pool)
        .await?;
    sqlx::query!("analyze jobs").execute(&farm.pool).await?;
    Ok(())
}

/// The `EXPLAIN` of the claim's per-class candidate query (256 slots).
async fn explain(farm: &Farm) -> anyhow::Result<String> {
    let query = class_candidates_sql().context("candidate query in coordinator/sql/claim.sql")?;
    // EXPLAIN of a text: a runtime string by nature (the text is the claim file's)
    let rows: Vec<String> = sqlx::query_scalar(&format!("explain {query}"))
        .bind("web")
        .bind(serde_json::json!({"browser": "chromium"}))
        .bind(Vec::<String>::new())
        .bind(256_i64)
        .bind(true)
        .bind(None::<String>)
        .fetch_all(&farm.pool)
        .await?;
    Ok(rows.into_iter().map(|r| r + "\n").collect())
}

/// Queue length of a phase: enough that the window ends before the queue does at 14k
/// jobs/s (1 s warm-up + a 5 s window; the phase notes it otherwise); 2,000 for a single device.
fn queue_len(devices: usize, window_s: f64) -> i64 {
    if devices == 1 {
        2_000
    } else {
        ((window_s + 2.0) * 14_000.0).max(60_000.0) as i64
    }
}

/// Drains a preloaded queue with `devices` simulated devices.
pub async fn dispatch_phase(
    farm: Farm,
    devices: usize,
    window_s: f64,
    with_plan: bool,
) -> anyhow::Result<Dispatch> {
    let jobs = queue_len(devices, window_s);
    preload(&farm, jobs).await?;
    let plan = if with_plan {
        Some(explain(&farm).await?)
    } else {
        None
    };
    let tally = sim::Shared::default();
    let tasks = sim::start_workers(&farm, devices, &tally).await?;
    let result = async {
        let (jobs_per_s, events_per_s, cpu_us) = window(&farm, jobs, window_s).await?;
        let outcome = drain(&farm.pool, jobs, &tally).await?;
        Ok(Dispatch {
            jobs_per_s,
            events_per_s,
            cpu_us,
            plan,
            outcome,
        })
    }
    .await;
    tasks.iter().for_each(|t| t.abort());
    result
}

/// Waits for the first applied event, 1 s more, then measures `(jobs/s, events/s, CPU µs
/// per job of [`Dispatch::cpu_us`]'s processes)` over `window_s`.
async fn window(farm: &Farm, jobs: i64, window_s: f64) -> anyhow::Result<(f64, f64, [f64; 4])> {
    let pool = &farm.pool;
    let deadline = Instant::now() + Duration::from_secs(30);
    // the first applied event (a run's end follows within the same batch or the next);
    // `exists` stops at the first row
    while !sqlx::query_scalar!(r#"select exists (select 1 from run_events) as "any!""#)
        .fetch_one(pool)
        .await?
    {
        if Instant::now() > deadline {
            bail!("no run finished within 30 s");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (j0, e0) = counts(pool).await?;
    let c0 = cpu_ticks(farm);
    let t0 = Instant::now();
    tokio::time::sleep(Duration::from_secs_f64(window_s)).await;
    let (j1, e1) = counts(pool).await?;
    let c1 = cpu_ticks(farm);
    let dt = t0.elapsed().as_secs_f64();
    if j1 >= jobs {
        eprintln!("note: queue drained inside the window; figure is a lower bound");
    }
    let done = ((j1 - j0) as f64).max(1.0);
    let cpu_us =
        std::array::from_fn(|i| c1[i].saturating_sub(c0[i]) as f64 / ticks_per_s() / done * 1e6);
    Ok(((j1 - j0) as f64 / dt, (e1 - e0) as f64 / dt, cpu_us))
}

/// CPU ticks so far of PostgreSQL, `nats-server`, the coordinators and this process.
fn cpu_ticks(farm: &Farm) -> [u64; 4] {
    [
        ticks_of_named("postgres"),
        ticks_of_named("nats-server"),
        farm.pids.iter().map(|&p| ticks_of_pid(p)).sum(),
        ticks_of_pid(std::process::id()),
    ]
}

/// Waits until every run succeeded or the count stops moving for 10 s; then tells what
/// became of the runs.
pub async fn drain(pool: &PgPool, jobs: i64, tally: &sim::Shared) -> anyhow::Result<Outcome> {
    let mut last = (-1, Instant::now());
    loop {
        let done = counts(pool).await?.0;
        if done >= jobs || last.1.elapsed() > Duration::from_secs(10) {
            break;
        }
        if done != last.0 {
            last = (done, Instant::now());
        }
        tokio::time::sleep(POLL).await;
    }
    let r = sqlx::query!(
        r#"select count(*) filter (where status = 'succeeded') as "succeeded!",
                  count(*) filter (where attempts > 1) as "retried!"
             from runs"#
    )
    .fetch_one(pool)
    .await?;
    let (succeeded, retried) = (r.succeeded, r.retried);
    let duplicates = tally.lock().map(|t| t.duplicates).unwrap_or(0);
    Ok(Outcome {
        jobs,
        lost: jobs - succeeded,
        duplicates,
        retried,
    })
}
