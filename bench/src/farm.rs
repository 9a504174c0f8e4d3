//! One phase's private farm: a database (`argus_bench_<rand>`), a NATS prefix and the
//! coordinator processes (this same binary, `coordinator` subcommand), all removed when the
//! phase ends, whatever it returned.

use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use argus_protocol::subjects::Subjects;
use async_nats::jetstream;
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;
use tokio::process::{Child, Command};

/// Where the shared services are, and this bench run's private names.
pub struct Env {
    admin_url: String,
    db_base: String,
    nats_url: String,
    bucket: String,
    token: String,
    nats: async_nats::Client,
}

/// Ten random hex digits, for private names.
fn rand_tag() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..10].to_string()
}

/// Reads the shared services' addresses (`ARGUS_DATABASE_URL`, `ARGUS_NATS_URL`) and picks
/// this run's private names.
pub async fn env() -> anyhow::Result<Env> {
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

/// Removes the run's S3 bucket (the coordinators created it); a failure is only noted.
pub async fn drop_bucket(env: &Env) {
    let s3 = argus_infra::s3_client(&s3_settings(&env.bucket));
    if let Err(e) = s3.delete_bucket().bucket(&env.bucket).send().await {
        eprintln!("note: could not delete bucket {}: {e}", env.bucket);
    }
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

/// One phase's private farm: a database, a NATS prefix, `n` coordinator processes (their
/// pids here; [`with_farm`] owns the processes).
#[derive(Clone)]
pub struct Farm {
    /// The phase's private database (4 connections, the bench's own).
    pub pool: PgPool,
    /// The phase's NATS subjects (private prefix).
    pub subjects: Subjects,
    /// JetStream, for the simulated workers.
    pub js: jetstream::Context,
    /// Each coordinator's `http://127.0.0.1:<port>`.
    pub base_urls: Vec<String>,
    /// Each coordinator's process id, for `/proc`.
    pub pids: Vec<u32>,
    /// The admin token every coordinator bootstrapped.
    pub token: String,
    /// One HTTP client (256 idle connections per host).
    pub http: reqwest::Client,
}

/// Starts a farm, runs `body`, and removes the farm whatever `body` returned.
pub async fn with_farm<T, F, Fut>(env: &Env, coords: usize, body: F) -> anyhow::Result<T>
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
    // `ARGUS_BENCH_COORDINATOR_EXE`: another build of this bench whose coordinators to run
    // (an A/B comparison against an older commit on the same loaded machine).
    let exe = match std::env::var_os("ARGUS_BENCH_COORDINATOR_EXE") {
        Some(p) => std::path::PathBuf::from(p),
        None => std::env::current_exe().context("own path")?,
    };
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
        wait_healthy(&http, &base).await?;
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

/// Waits (at most 60 s) for `GET {base}/healthz` to answer 2xx.
async fn wait_healthy(http: &reqwest::Client, base: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = http.get(format!("{base}/healthz")).send().await {
            if r.status().is_success() {
                return Ok(());
            }
        }
        if Instant::now() > deadline {
            bail!("coordinator at {base} not healthy after 60 s");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
