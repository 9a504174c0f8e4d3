//! `dispatch-bench`: measures the orchestrator alone. Coordinators run as real child
//! processes (this same binary, `coordinator` subcommand) against the shared PostgreSQL and
//! NATS, each phase on a private database (`argus_bench_<rand>`), NATS prefix and S3 bucket,
//! all removed afterwards. Devices are simulated in this process: each simulated worker
//! heartbeats over HTTP like a real one, pulls its assignments in batches, acks them and
//! answers every run at once with `run_started` and `run_finished` (succeeded) events.
//!
//! Phases:
//! - **memory**: coordinator RSS with 0 and with 1,000 registered idle device slots;
//! - **dispatch**: a preloaded queue drained by 1 / 100 / 1,000 devices with 1 and 2
//!   coordinators; jobs/s from the first completion, over a fixed window, counting the
//!   applier's completion UPDATEs (claim → JetStream assignment → worker fetch + ack →
//!   events → apply), and events applied/s;
//! - **latency**: 500 jobs/s submitted over HTTP to 1,000 idle devices, the first second
//!   not measured (warm-up); submit→start is submit time (carried in the job name) to the
//!   worker receiving the assignment.
//!
//! It also prints the `EXPLAIN` of the claim's per-class candidate query and checks that it walks the
//! `runs_queued` index with no Sort. The last line is machine-readable.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use argus_coordinator::store::claim::class_candidates_sql;
use argus_coordinator::CoordinatorConfig;
use argus_protocol::subjects::Subjects;
use argus_protocol::{
    Assignment, DeviceInfo, EventBody, Heartbeat, JobSpec, Platform, RunEvent, RunStatus,
};
use async_nats::jetstream::{self, consumer::pull};
use clap::{Parser, Subcommand};
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

/// Dispatch benchmark of the Argus orchestrator with simulated devices.
#[derive(Parser)]
#[command(name = "dispatch-bench")]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    /// Length of each dispatch measuring window, s (after 1 s of warm-up). Default 5.
    #[arg(long, default_value_t = 5.0)]
    window_s: f64,
    /// Length of the 500 jobs/s latency run, s. Default 6.
    #[arg(long, default_value_t = 6.0)]
    latency_s: f64,
    /// Warm-up before the latency window, s, at the same rate and not measured (0: measure
    /// from a cold start). Default 1.
    #[arg(long, default_value_t = 1.0)]
    warmup_s: f64,
    /// Run only the latency phase (1 and 2 coordinators) and print its rows; no table
    /// headline. For looking at submit→start alone.
    #[arg(long)]
    latency_only: bool,
}

#[derive(Subcommand)]
enum Cmd {
    /// Internal: run one coordinator (the bench starts these as child processes).
    #[command(hide = true)]
    Coordinator {
        #[command(flatten)]
        cfg: Box<CoordinatorConfig>,
    },
}

/// Simulated devices per simulated worker.
const DEVICES_PER_WORKER: usize = 100;
/// Offered load of the latency phase, jobs/s.
const OFFERED_JOBS_PER_S: u64 = 500;

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("tokio runtime")?;
    match cli.cmd {
        Some(Cmd::Coordinator { cfg }) => {
            tracing_subscriber::fmt()
                .with_env_filter(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
                )
                .with_writer(std::io::stderr)
                .init();
            rt.block_on(argus_coordinator::run(*cfg))
        }
        None => {
            let lat = LatencyRun {
                secs: cli.latency_s,
                warmup_s: cli.warmup_s,
            };
            if cli.latency_only {
                rt.block_on(latency_only(lat))
            } else {
                rt.block_on(bench(cli.window_s, lat))
            }
        }
    }
}

/// Where the shared services are, and this bench run's private names.
struct Env {
    admin_url: String,
    db_base: String,
    nats_url: String,
    bucket: String,
    token: String,
    nats: async_nats::Client,
}

fn rand_tag() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..10].to_string()
}

/// `--latency-only`: the latency phase with 1 and 2 coordinators.
async fn latency_only(latency_s: LatencyRun) -> anyhow::Result<()> {
    let env = env().await?;
    let mut result = Ok(());
    for coords in [1usize, 2] {
        match with_farm(&env, coords, move |f| latency_phase(f, latency_s)).await {
            Ok(r) => println!(
                "latency @{OFFERED_JOBS_PER_S}/s offered devices=1000 coordinators={coords}: \
                 started {:.0}/s p50 {:.2} ms p99 {:.2} ms",
                r.started_per_s, r.p50_ms, r.p99_ms
            ),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    drop_bucket(&env).await;
    result
}

async fn drop_bucket(env: &Env) {
    let s3 = argus_infra::s3_client(&s3_settings(&env.bucket));
    if let Err(e) = s3.delete_bucket().bucket(&env.bucket).send().await {
        eprintln!("note: could not delete bucket {}: {e}", env.bucket);
    }
}

/// Reads the shared services' addresses and picks this run's private names.
async fn env() -> anyhow::Result<Env> {
    let db_url = std::env::var("ARGUS_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/argus".into());
    let db_base = match db_url.rfind('/') {
        Some(i) if i > "postgres://".len() => db_url[..i].to_string(),
        _ => bail!("ARGUS_DATABASE_URL {db_url:?} has no database name"),
    };
    let nats_url =
        std::env::var("ARGUS_NATS_URL").unwrap_or_else(|_| "nats://127.0.0.1:4222".into());
    let nats = async_nats::connect(&nats_url)
        .await
        .with_context(|| format!("cannot connect to NATS at {nats_url}"))?;
    Ok(Env {
        admin_url: format!("{db_base}/postgres"),
        db_base,
        nats_url,
        bucket: format!("argus-bench-{}", rand_tag()),
        token: format!("bench-{}", rand_tag()),
        nats,
    })
}

async fn bench(window_s: f64, latency_s: LatencyRun) -> anyhow::Result<()> {
    let env = env().await?;
    let result = phases(&env, window_s, latency_s).await;
    drop_bucket(&env).await;
    let (rows, checks_ok) = result?;
    for line in rows {
        println!("{line}");
    }
    if !checks_ok {
        std::process::exit(2);
    }
    Ok(())
}

fn s3_settings(bucket: &str) -> argus_infra::S3Settings {
    let var = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    argus_infra::S3Settings {
        endpoint: var("ARGUS_S3_ENDPOINT", "http://127.0.0.1:8333"),
        region: var("ARGUS_S3_REGION", "us-east-1"),
        bucket: bucket.to_string(),
        access_key: var("ARGUS_S3_ACCESS_KEY", "argus"),
        secret_key: var("ARGUS_S3_SECRET_KEY", "argus-secret-key"),
    }
}

/// Runs every phase; returns the table lines (last one machine-readable) and whether the
/// plan check passed.
async fn phases(
    env: &Env,
    window_s: f64,
    latency_s: LatencyRun,
) -> anyhow::Result<(Vec<String>, bool)> {
    let mut out = Vec::new();
    // memory
    let (rss0, rss1) = with_farm(env, 1, memory_phase).await?;
    let per_slot_b = (rss1 as f64 - rss0 as f64) * 1024.0 / 1000.0;
    eprintln!("memory: {rss0} kB idle, {rss1} kB with 1000 idle slots");
    // dispatch matrix
    let mut plan_ok = true;
    let mut plan_text = String::new();
    let mut dispatch = BTreeMap::new();
    for coords in [1usize, 2] {
        for devices in [1usize, 100, 1000] {
            let first = coords == 1 && devices == 1000;
            let r = with_farm(env, coords, move |f| {
                dispatch_phase(f, devices, window_s, first)
            })
            .await?;
            eprintln!(
                "dispatch devices={devices} coordinators={coords}: {:.0} jobs/s",
                r.jobs_per_s
            );
            if let Some(p) = &r.plan {
                plan_text = p.clone();
                plan_ok =
                    p.contains("Index Scan") && p.contains("runs_queued") && !p.contains("Sort");
            }
            dispatch.insert((devices, coords), r);
        }
    }
    // latency at 500 jobs/s offered
    let mut latency = BTreeMap::new();
    for coords in [1usize, 2] {
        let r = with_farm(env, coords, move |f| latency_phase(f, latency_s)).await?;
        eprintln!(
            "latency coordinators={coords}: p50 {:.1} ms p99 {:.1} ms",
            r.p50_ms, r.p99_ms
        );
        latency.insert(coords, r);
    }

    out.push(
        "EXPLAIN of the claim's candidate query, one per class of identical free slots \
         (migrations/0011_worker_teams.sql via class_candidates_sql, 256 slots, 60,000 queued):"
            .into(),
    );
    for l in plan_text.lines() {
        out.push(format!("    {l}"));
    }
    out.push(format!(
        "claim_plan_check={} (expects an Index Scan on runs_queued and no Sort)",
        if plan_ok { "ok" } else { "FAILED" }
    ));
    out.push(String::new());
    out.push(format!(
        "memory: coordinator RSS {rss0} kB with 0 devices, {rss1} kB with 1000 idle devices -> {per_slot_b:.0} B per idle slot (target <= 51200 B)"
    ));
    out.push(String::new());
    out.push(format!(
        "{:<22} {:>7} {:>6} {:>10} {:>11} {:>9} {:>9}",
        "phase", "devices", "coord", "jobs/s", "events/s", "p50_ms", "p99_ms"
    ));
    for ((devices, coords), r) in &dispatch {
        out.push(format!(
            "{:<22} {:>7} {:>6} {:>10.0} {:>11.0} {:>9} {:>9}",
            "dispatch (queue full)", devices, coords, r.jobs_per_s, r.events_per_s, "-", "-"
        ));
    }
    for (coords, r) in &latency {
        out.push(format!(
            "{:<22} {:>7} {:>6} {:>10.0} {:>11} {:>9.2} {:>9.2}",
            format!("latency @{OFFERED_JOBS_PER_S}/s offered"),
            1000,
            coords,
            r.started_per_s,
            "-",
            r.p50_ms,
            r.p99_ms
        ));
    }
    // The headline: the coordinator count that dispatched most with 1,000 devices.
    let best = [1usize, 2]
        .into_iter()
        .max_by(|a, b| {
            let ja = dispatch
                .get(&(1000, *a))
                .map(|r| r.jobs_per_s)
                .unwrap_or(0.0);
            let jb = dispatch
                .get(&(1000, *b))
                .map(|r| r.jobs_per_s)
                .unwrap_or(0.0);
            ja.total_cmp(&jb)
        })
        .unwrap_or(1);
    let d = dispatch
        .get(&(1000, best))
        .map(|r| r.jobs_per_s)
        .unwrap_or(0.0);
    let (p50, p99) = latency
        .get(&best)
        .map(|r| (r.p50_ms, r.p99_ms))
        .unwrap_or((f64::NAN, f64::NAN));
    out.push(format!(
        "dispatch_jobs_per_s={d:.0} p50_submit_to_start_ms={p50:.2} p99_submit_to_start_ms={p99:.2} at_jobs_per_s={OFFERED_JOBS_PER_S} devices=1000 coordinators={best}"
    ));
    Ok((out, plan_ok))
}

/// One phase's private farm: a database, a NATS prefix, `n` coordinator processes (their
/// pids here; [`with_farm`] owns the processes).
#[derive(Clone)]
struct Farm {
    pool: PgPool,
    subjects: Subjects,
    js: jetstream::Context,
    base_urls: Vec<String>,
    pids: Vec<u32>,
    token: String,
    http: reqwest::Client,
}

/// Starts a farm, runs `body`, and removes the farm whatever `body` returned.
async fn with_farm<T, F, Fut>(env: &Env, coords: usize, body: F) -> anyhow::Result<T>
where
    F: FnOnce(Farm) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let db = format!("argus_bench_{}", rand_tag());
    let prefix = format!("bench{}", rand_tag());
    let admin = PgPoolOptions::new()
        .max_connections(1)
        .connect(&env.admin_url)
        .await
        .with_context(|| format!("cannot connect to {}", env.admin_url))?;
    // A database name cannot be bound; this one is generated above (letters, digits, `_`).
    sqlx::query(&format!("create database {db}"))
        .execute(&admin)
        .await?;
    let db_url = format!("{}/{db}", env.db_base);
    let mut children = Vec::new();
    let started = start_farm(env, &db_url, &prefix, coords, &mut children).await;
    let result = match &started {
        Ok(farm) => body(farm.clone()).await,
        Err(e) => Err(anyhow::anyhow!("farm did not start: {e:#}")),
    };
    for c in &mut children {
        let _ = c.start_kill();
        let _ = c.wait().await;
    }
    if let Ok(farm) = started {
        for s in [farm.subjects.assign_stream(), farm.subjects.events_stream()] {
            let _ = farm.js.delete_stream(&s).await;
        }
        farm.pool.close().await;
    }
    sqlx::query(&format!("drop database if exists {db} with (force)"))
        .execute(&admin)
        .await?;
    admin.close().await;
    result
}

async fn start_farm(
    env: &Env,
    db_url: &str,
    prefix: &str,
    coords: usize,
    children: &mut Vec<Child>,
) -> anyhow::Result<Farm> {
    let exe = std::env::current_exe().context("own path")?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .build()?;
    let mut base_urls = Vec::new();
    let mut pids = Vec::new();
    for _ in 0..coords {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let child = Command::new(&exe)
            .arg("coordinator")
            .env("ARGUS_LISTEN", format!("127.0.0.1:{port}"))
            .env("ARGUS_DATABASE_URL", db_url)
            .env("ARGUS_NATS_URL", &env.nats_url)
            .env("ARGUS_NATS_PREFIX", prefix)
            .env("ARGUS_AUTH", "on")
            .env("ARGUS_BOOTSTRAP_TOKEN", &env.token)
            // a bench measures the farm, not the per-token limits
            .env("ARGUS_RATE_PER_MIN", "0")
            .env("ARGUS_MAX_STREAMS_PER_TOKEN", "0")
            .env("ARGUS_S3_BUCKET", &env.bucket)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("cannot start a coordinator process")?;
        pids.push(child.id().context("coordinator exited at once")?);
        children.push(child);
        let base = format!("http://127.0.0.1:{port}");
        // Started one after the other: the first one migrates the database.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(r) = http.get(format!("{base}/healthz")).send().await {
                if r.status().is_success() {
                    break;
                }
            }
            if Instant::now() > deadline {
                bail!("coordinator at {base} not healthy after 60 s");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        base_urls.push(base);
    }
    let pool = PgPoolOptions::new()
        .max_connections(4)
        .connect(db_url)
        .await?;
    Ok(Farm {
        pool,
        subjects: Subjects::new(prefix).map_err(|e| anyhow::anyhow!(e))?,
        js: jetstream::new(env.nats.clone()),
        base_urls,
        pids,
        token: env.token.clone(),
        http,
    })
}

/// Samples of submit→start, ms, recorded by the simulated workers.
type Samples = Arc<Mutex<Vec<f64>>>;

/// Starts simulated workers serving `devices` slots; returns their tasks.
async fn start_workers(
    farm: &Farm,
    devices: usize,
    samples: &Samples,
) -> anyhow::Result<Vec<JoinHandle<()>>> {
    let mut tasks = Vec::new();
    let workers = devices.div_ceil(DEVICES_PER_WORKER);
    for w in 0..workers {
        let n = DEVICES_PER_WORKER.min(devices - w * DEVICES_PER_WORKER);
        let worker_id = format!("bw{w}");
        let devs: Vec<DeviceInfo> = (0..n)
            .map(|d| DeviceInfo {
                device_id: format!("{worker_id}-d{d}"),
                platform: Platform::Web,
                labels: BTreeMap::from([("browser".to_string(), "chromium".to_string())]),
                screen_w_px: 1280,
                screen_h_px: 800,
            })
            .collect();
        let stream = farm.js.get_stream(farm.subjects.assign_stream()).await?;
        let name = farm.subjects.worker_consumer(&worker_id);
        let consumer: jetstream::consumer::PullConsumer = stream
            .get_or_create_consumer(
                &name,
                pull::Config {
                    durable_name: Some(name.clone()),
                    filter_subject: farm.subjects.assign(&worker_id),
                    ack_policy: jetstream::consumer::AckPolicy::Explicit,
                    max_ack_pending: 10_000,
                    ..Default::default()
                },
            )
            .await?;
        let hb = Heartbeat {
            worker_id: worker_id.clone(),
            hostname: "dispatch-bench".into(),
            devices: devs,
            running: Vec::new(),
        };
        let url = format!(
            "{}/api/v1/workers/heartbeat",
            farm.base_urls[w % farm.base_urls.len()]
        );
        heartbeat(&farm.http, &url, &farm.token, &hb).await?;
        let (http, token) = (farm.http.clone(), farm.token.clone());
        tasks.push(tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(2)).await;
                if let Err(e) = heartbeat(&http, &url, &token, &hb).await {
                    eprintln!("heartbeat failed: {e:#}");
                }
            }
        }));
        let (js, subjects, samples) = (farm.js.clone(), farm.subjects.clone(), samples.clone());
        tasks.push(tokio::spawn(async move {
            if let Err(e) = serve_assignments(consumer, js, subjects, samples).await {
                eprintln!("simulated worker stopped: {e:#}");
            }
        }));
    }
    Ok(tasks)
}

async fn heartbeat(
    http: &reqwest::Client,
    url: &str,
    token: &str,
    hb: &Heartbeat,
) -> anyhow::Result<()> {
    let r = http.post(url).bearer_auth(token).json(hb).send().await?;
    if !r.status().is_success() {
        bail!(
            "heartbeat: {} {}",
            r.status(),
            r.text().await.unwrap_or_default()
        );
    }
    Ok(())
}

/// The simulated devices: every assignment is acked and answered at once with
/// `run_started` and `run_finished` (succeeded), all publishes of a fetched batch pipelined.
async fn serve_assignments(
    consumer: jetstream::consumer::PullConsumer,
    js: jetstream::Context,
    subjects: Subjects,
    samples: Samples,
) -> anyhow::Result<()> {
    let mut messages = consumer
        .stream()
        .max_messages_per_batch(256)
        .heartbeat(Duration::from_secs(5))
        .expires(Duration::from_secs(30))
        .messages()
        .await?;
    while let Some(batch) = argus_infra::nats::next_batch(&mut messages, 256).await {
        let batch = batch?;
        let mut acks = Vec::with_capacity(batch.len() * 2);
        for msg in batch {
            let a: Assignment = serde_json::from_slice(&msg.payload)?;
            msg.ack().await.map_err(|e| anyhow::anyhow!(e))?;
            let now = chrono::Utc::now();
            if let Some(submitted) = a
                .spec
                .name
                .as_deref()
                .and_then(|n| n.strip_prefix("bench-"))
                .and_then(|us| us.parse::<i64>().ok())
            {
                let ms = (now.timestamp_micros() - submitted) as f64 / 1000.0;
                if let Ok(mut s) = samples.lock() {
                    s.push(ms);
                }
            }
            let bodies = [
                EventBody::RunStarted {
                    device_id: a.device_id.clone(),
                    screen_w_px: 1280,
                    screen_h_px: 800,
                },
                EventBody::RunFinished {
                    status: RunStatus::Succeeded,
                    error: None,
                    verdict: None,
                },
            ];
            for (i, body) in bodies.into_iter().enumerate() {
                let ev = RunEvent {
                    run_id: a.run_id,
                    attempt_id: a.attempt_id,
                    seq: i as u64 + 1,
                    at: now,
                    body,
                };
                let mut headers = async_nats::HeaderMap::new();
                headers.insert("Nats-Msg-Id", ev.msg_id().as_str());
                let payload = serde_json::to_vec(&ev)?;
                acks.push(
                    js.publish_with_headers(subjects.events(&a.run_id), headers, payload.into())
                        .await?,
                );
            }
        }
        for ack in acks {
            ack.await?;
        }
    }
    Ok(())
}

fn rss_kb(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .context("no VmRSS")
}

/// Coordinator RSS with no device, then with 1,000 registered idle slots.
async fn memory_phase(farm: Farm) -> anyhow::Result<(u64, u64)> {
    tokio::time::sleep(Duration::from_secs(3)).await;
    let pid = *farm.pids.first().context("no coordinator")?;
    let rss0 = rss_kb(pid)?;
    let samples = Samples::default();
    let tasks = start_workers(&farm, 1000, &samples).await?;
    // a few heartbeats and dispatcher passes over the idle slots
    tokio::time::sleep(Duration::from_secs(7)).await;
    let rss1 = rss_kb(pid)?;
    tasks.iter().for_each(|t| t.abort());
    Ok((rss0, rss1))
}

/// Result of one dispatch phase.
struct Dispatch {
    jobs_per_s: f64,
    events_per_s: f64,
    plan: Option<String>,
}

fn job_spec(name: &str) -> anyhow::Result<JobSpec> {
    Ok(serde_json::from_value(serde_json::json!({
        "platform": "web",
        "instruction": "wait 1ms",
        "name": name,
        "selector": {"labels": {"browser": "chromium"}},
    }))?)
}

/// Counts `(succeeded runs, applied events)`.
async fn counts(pool: &PgPool) -> anyhow::Result<(i64, i64)> {
    Ok(sqlx::query_as(
        "select (select count(*) from runs where status = 'succeeded'),
                (select count(*) from run_events)",
    )
    .fetch_one(pool)
    .await?)
}

/// Drains a preloaded queue with `devices` simulated devices.
async fn dispatch_phase(
    farm: Farm,
    devices: usize,
    window_s: f64,
    explain: bool,
) -> anyhow::Result<Dispatch> {
    let jobs: i64 = if devices == 1 { 5_000 } else { 60_000 };
    let spec = serde_json::to_value(job_spec("bench-queue")?)?;
    sqlx::query(
        "with j as (
            insert into jobs (id, spec, platform, selector_labels, name)
            select gen_random_uuid(), $1, 'web', $2, 'bench' from generate_series(1, $3)
            returning id)
         insert into runs (id, job_id, status) select gen_random_uuid(), j.id, 'queued' from j",
    )
    .bind(&spec)
    .bind(serde_json::json!({"browser": "chromium"}))
    .bind(jobs)
    .execute(&farm.pool)
    .await?;
    sqlx::query("vacuum analyze runs")
        .execute(&farm.pool)
        .await?;
    sqlx::query("analyze jobs").execute(&farm.pool).await?;
    let plan = if explain {
        let query = class_candidates_sql().context("candidate query in migration 0011")?;
        let rows: Vec<(String,)> = sqlx::query_as(&format!("explain {query}"))
            .bind("web")
            .bind(serde_json::json!({"browser": "chromium"}))
            .bind(Vec::<String>::new())
            .bind(256_i64)
            .bind(true)
            .bind(None::<String>)
            .fetch_all(&farm.pool)
            .await?;
        Some(rows.into_iter().map(|r| r.0 + "\n").collect())
    } else {
        None
    };
    let samples = Samples::default();
    let tasks = start_workers(&farm, devices, &samples).await?;
    let result = async {
        let deadline = Instant::now() + Duration::from_secs(30);
        while counts(&farm.pool).await?.0 == 0 {
            if Instant::now() > deadline {
                bail!("no run finished within 30 s");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let (j0, e0) = counts(&farm.pool).await?;
        let t0 = Instant::now();
        tokio::time::sleep(Duration::from_secs_f64(window_s)).await;
        let (j1, e1) = counts(&farm.pool).await?;
        let dt = t0.elapsed().as_secs_f64();
        if j1 >= jobs {
            eprintln!("note: queue drained inside the window; figure is a lower bound");
        }
        Ok(Dispatch {
            jobs_per_s: (j1 - j0) as f64 / dt,
            events_per_s: (e1 - e0) as f64 / dt,
            plan,
        })
    }
    .await;
    tasks.iter().for_each(|t| t.abort());
    result
}

/// How the latency phase runs: `secs` measured after `warmup_s` not measured, both at
/// the offered rate.
#[derive(Debug, Clone, Copy)]
struct LatencyRun {
    secs: f64,
    warmup_s: f64,
}

/// Result of one latency phase.
struct Latency {
    started_per_s: f64,
    p50_ms: f64,
    p99_ms: f64,
}

/// Submits 500 jobs/s over HTTP to 1,000 idle devices and records submit→start.
async fn latency_phase(farm: Farm, run: LatencyRun) -> anyhow::Result<Latency> {
    let samples = Samples::default();
    let tasks = start_workers(&farm, 1000, &samples).await?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let total = (run.secs * OFFERED_JOBS_PER_S as f64) as usize;
    // The first `warmup_s` at the same rate are not measured: HTTP connections opened,
    // statements prepared, plpgsql compiled per PostgreSQL backend (measured without the
    // warm pool connections: the worst sample of the first second was 80-210 ms, of later
    // ones 20-50).
    let warm = (run.warmup_s * OFFERED_JOBS_PER_S as f64) as usize;
    let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / OFFERED_JOBS_PER_S));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let mut submits = Vec::with_capacity(warm + total);
    let mut t0 = Instant::now();
    for i in 0..warm + total {
        tick.tick().await;
        if i == warm {
            t0 = Instant::now();
        }
        let url = format!("{}/api/v1/jobs", farm.base_urls[i % farm.base_urls.len()]);
        let (http, token) = (farm.http.clone(), farm.token.clone());
        submits.push(tokio::spawn(async move {
            // only `bench-<µs>` names are timed by the simulated workers
            let name = if i < warm {
                "warm-up".to_string()
            } else {
                format!("bench-{}", chrono::Utc::now().timestamp_micros())
            };
            let spec = job_spec(&name)?;
            let r = http.post(url).bearer_auth(token).json(&spec).send().await?;
            if !r.status().is_success() {
                bail!(
                    "submit: {} {}",
                    r.status(),
                    r.text().await.unwrap_or_default()
                );
            }
            anyhow::Ok(())
        }));
    }
    for s in submits {
        s.await??;
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while samples.lock().map(|s| s.len()).unwrap_or(0) < total && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let dt = t0.elapsed().as_secs_f64();
    tasks.iter().for_each(|t| t.abort());
    let mut s = samples.lock().map(|s| s.clone()).unwrap_or_default();
    if s.len() < total {
        eprintln!(
            "note: only {} of {total} submitted runs started within 20 s",
            s.len()
        );
    }
    if s.is_empty() {
        bail!("no submitted run started");
    }
    // arrival order ~ time: the worst sample of each second shows a stall from noise
    let worst: Vec<String> = s
        .chunks(OFFERED_JOBS_PER_S as usize)
        .map(|c| format!("{:.0}", c.iter().copied().fold(0.0, f64::max)))
        .collect();
    eprintln!(
        "latency: worst submit→start per second of arrivals, ms: {}",
        worst.join(" ")
    );
    s.sort_by(f64::total_cmp);
    let pct = |p: f64| s[((s.len() as f64 * p) as usize).min(s.len() - 1)];
    Ok(Latency {
        started_per_s: s.len() as f64 / dt,
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
    })
}
