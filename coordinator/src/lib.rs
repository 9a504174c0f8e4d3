//! Argus coordinator: the HTTP API and dashboard, the PostgreSQL store (the truth), the
//! dispatcher that claims queued runs for free device slots and publishes assignments over
//! NATS JetStream, the applier that applies run events exactly once, the lease reaper, and
//! report rendering.
//!
//! Task ownership: [`run`] starts the HTTP server (axum), the dispatcher
//! ([`dispatcher::run`], with its assignment publisher), the lease reaper
//! ([`reaper_task::run`], also ends queued runs past their deadline), the event appliers
//! ([`applier::run`], [`applier::APPLIERS`] of them) and the scheduler
//! ([`scheduler::run`], fires due schedules) and the health prober ([`health_probe::run`],
//! queues a probe for each device the health evaluation quarantined). They share only [`AppState`]; all coordination between several
//! coordinators happens in SQL (`FOR UPDATE SKIP LOCKED`, attempt-id fencing) and in
//! JetStream (one shared durable consumer, deduplicated publishes). On SIGTERM/SIGINT the
//! tasks finish their current pass and stop, and the server drains ([`drain`]).

pub mod api;
pub mod applier;
pub mod auth;
pub mod bus;
pub mod config;
pub mod dispatcher;
pub mod drain;
pub mod error;
pub mod health_probe;
pub mod ingest;
pub mod junit;
pub mod label_sets;
pub mod plot;
pub mod reaper_task;
pub mod report;
pub mod scheduler;
pub mod store;
pub mod views;

use std::future::Future;
use std::sync::Arc;

use anyhow::Context;
use argus_infra::S3Store;
use argus_protocol::subjects::Subjects;
use sqlx::PgPool;
use tokio::sync::Notify;

pub use config::CoordinatorConfig;

/// What every request handler and task shares.
#[derive(Clone)]
pub struct AppState {
    /// PostgreSQL pool.
    pub pool: PgPool,
    /// JetStream context.
    pub js: async_nats::jetstream::Context,
    /// Subject names.
    pub subjects: Subjects,
    /// Configuration.
    pub cfg: Arc<CoordinatorConfig>,
    /// Screenshot store (read side).
    pub s3: Arc<S3Store>,
    /// Wakes the dispatcher (new job, freed slot).
    pub wake: Arc<Notify>,
    /// Registered label sets per platform, for refusing unmatchable selectors.
    pub label_sets: Arc<label_sets::LabelSets>,
    /// Per-token request buckets ([`auth::rate`]).
    pub rate: Arc<auth::rate::RateLimits>,
    /// Live streams open per token ([`auth::streams`]).
    pub streams: Arc<auth::streams::StreamSlots>,
}

/// Refuses placeholder secrets, then connects to PostgreSQL (migrating), NATS (creating
/// streams) and S3 (creating the bucket).
pub async fn connect(cfg: CoordinatorConfig) -> anyhow::Result<AppState> {
    cfg.refuse_placeholders()?;
    let subjects = Subjects::new(&cfg.nats_prefix).map_err(|e| anyhow::anyhow!(e))?;
    let pool = store::connect(&cfg.database_url, cfg.db_max_connections).await?;
    let nats = cfg
        .nats_auth
        .connect(&cfg.nats_url, "argus-coordinator")
        .await?;
    let js = async_nats::jetstream::new(nats);
    bus::ensure_streams(&js, &subjects, cfg.nats_replicas).await?;
    if let Some(t) = &cfg.bootstrap_token {
        match auth::tokens::bootstrap(&pool, t).await? {
            auth::tokens::Bootstrap::Created => {
                tracing::info!("stored ARGUS_BOOTSTRAP_TOKEN as an admin token of team default")
            }
            auth::tokens::Bootstrap::Present => {}
            auth::tokens::Bootstrap::Revoked => tracing::warn!(
                "ARGUS_BOOTSTRAP_TOKEN was revoked and is not re-created; remove it from \
                 this coordinator's environment"
            ),
        }
    }
    let s3 = S3Store::connect(&cfg.s3)
        .await
        .map_err(|e| anyhow::anyhow!(e))
        .context("object storage (ARGUS_S3_*)")?;
    Ok(AppState {
        pool,
        js,
        subjects,
        rate: Arc::new(auth::rate::RateLimits::new(&cfg.limits)),
        streams: Arc::new(auth::streams::StreamSlots::new(&cfg.limits)),
        cfg: Arc::new(cfg),
        s3: Arc::new(s3),
        wake: Arc::new(Notify::new()),
        label_sets: Arc::default(),
    })
}

/// Serves on `listener` until `shutdown` completes, then drains (see [`drain`]): stops
/// accepting, lets in-flight requests and the tasks' current passes finish (at most
/// [`drain::DRAIN_LIMIT`]), flushes NATS and returns.
pub async fn serve(
    state: AppState,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let (stop_tx, stop) = drain::channel();
    let mut tasks = vec![
        tokio::spawn(dispatcher::run(
            state.clone(),
            state.wake.clone(),
            stop.clone(),
        )),
        tokio::spawn(reaper_task::run(
            state.clone(),
            state.wake.clone(),
            stop.clone(),
        )),
        tokio::spawn(scheduler::run(state.clone(), stop.clone())),
        tokio::spawn(health_probe::run(state.clone(), stop.clone())),
    ];
    for _ in 0..applier::APPLIERS {
        tasks.push(tokio::spawn(applier::run(
            state.clone(),
            state.wake.clone(),
            stop.clone(),
        )));
    }
    let app = api::router(state.clone());
    // The peer address feeds sign-in throttling (`auth::throttle`).
    let server = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown.await;
        stop_tx.stop();
    });
    let mut draining = stop.clone();
    let res = tokio::select! {
        res = server => res.context("HTTP server failed"),
        _ = async {
            draining.wait().await;
            tokio::time::sleep(drain::DRAIN_LIMIT).await;
        } => {
            tracing::warn!(limit_s = drain::DRAIN_LIMIT.as_secs(), "requests still open after the drain limit; closing them");
            Ok(())
        }
    };
    let deadline = tokio::time::Instant::now() + drain::DRAIN_LIMIT;
    for t in &mut tasks {
        if tokio::time::timeout_at(deadline, t).await.is_err() {
            tracing::warn!("a task did not finish its pass within the drain limit; stopping it");
        }
    }
    for t in &tasks {
        t.abort();
    }
    if let Err(e) = state.js.client().flush().await {
        tracing::warn!(error = %e, "NATS flush at shutdown failed (unacked events come back)");
    }
    tracing::info!("coordinator drained");
    res
}

/// `argus coordinator`: connect, bind `cfg.listen`, serve until SIGTERM or SIGINT, drain,
/// return.
pub async fn run(cfg: CoordinatorConfig) -> anyhow::Result<()> {
    let listen = cfg.listen;
    let state = connect(cfg).await?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    tracing::info!(%listen, "coordinator listening");
    serve(state, listener, drain::signal()).await
}
