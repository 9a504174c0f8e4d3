//! `argus worker`: register device slots, heartbeat, consume assignments, run them.
//!
//! Assignments arrive on the worker's own durable pull consumer (`worker-<id>`, one filter
//! subject `<prefix>.assign.<id>`, works on NATS 2.9) and are acked on receipt: from then on
//! the run's fate is decided by events and leases, never by redelivery, so a crashed worker
//! never gets the same run replayed blindly (the coordinator's reaper decides, per the
//! delivery rules). The streams themselves are created by the coordinator.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{anyhow, Context};
use argus_infra::{ArtifactStore, S3Store};
use argus_protocol::assignment_group;
use argus_protocol::subjects::{is_valid_worker_id, Subjects};
use argus_protocol::{Assignment, EventBody, Heartbeat, HeartbeatReply, LeaseRef, RunStatus};
use async_nats::jetstream::{self, consumer::pull};
use futures::StreamExt;
use uuid::Uuid;

use crate::config::WorkerConfig;
use crate::device::prelude::*;
use crate::executor::{execute, RunInput};
use crate::run::event_groups::GroupingSink;
use crate::run::events::{Emitter, EventSink};

type Slot = Arc<tokio::sync::Mutex<Box<dyn Device>>>;

struct Held {
    attempt_id: Uuid,
    cancel: Arc<AtomicBool>,
}

type Running = Arc<Mutex<HashMap<Uuid, Held>>>;

/// Runs the worker until SIGINT (Ctrl-C) / SIGTERM. The handlers are installed before
/// anything starts, so a signal during start-up (opening devices, waiting for the
/// coordinator) also ends the worker in order: the devices it opened, with their Chromium,
/// Xvfb and D-Bus, are dropped and killed before it exits.
///
/// Errors when a signal handler cannot be installed, or as [`run_until`].
pub async fn run(cfg: WorkerConfig) -> anyhow::Result<()> {
    let shutdown = shutdown_signal().context("cannot install the SIGINT/SIGTERM handlers")?;
    run_until(cfg, shutdown).await
}

/// Runs the worker until `shutdown` completes; then cancels held runs at their next step
/// boundary and waits up to 10 s for their teardown. `shutdown` is watched from the first
/// instant: completing it during start-up returns `Ok` at once, dropping (and so stopping)
/// every device opened so far.
///
/// Errors when start-up fails (a placeholder secret, a bad worker id, a device that cannot open, the coordinator
/// unreachable for 30 s, NATS or S3 unreachable) or the assignment stream ends.
pub async fn run_until(
    cfg: WorkerConfig,
    shutdown: impl std::future::Future<Output = ()>,
) -> anyhow::Result<()> {
    tokio::pin!(shutdown);
    let startup = start(&cfg);
    let started = tokio::select! {
        r = startup => r?,
        _ = &mut shutdown => {
            tracing::info!("shutting down during start-up");
            return Ok(());
        }
    };
    serve(started, shutdown).await
}

/// What a started worker holds while it serves assignments.
struct Started {
    slots: HashMap<String, Slot>,
    running: Running,
    deps: RunDeps,
    consumer: pull::Stream,
    _hb_guard: AbortOnDrop,
}

/// What every run of this worker shares.
struct RunDeps {
    store: Arc<dyn ArtifactStore>,
    sink: Arc<dyn EventSink>,
    agent: crate::model::AgentEnv,
    /// The pixel channel (OCR models loaded once, shared by the slots).
    pixel: crate::perceive::PixelChannel,
    /// The live screen's connection (each run gets its own [`crate::live::Link::now`]).
    live: crate::live::Link,
}

/// Opens the devices, registers them, and opens the assignment consumer.
async fn start(cfg: &WorkerConfig) -> anyhow::Result<Started> {
    cfg.refuse_placeholders()?;
    let cfg = cfg.clone();
    let worker_id = cfg.worker_id();
    if !is_valid_worker_id(&worker_id) {
        return Err(anyhow!(
            "worker id {worker_id:?} must be 1–64 chars of letters, digits, `_` or `-`"
        ));
    }
    let subjects = Subjects::new(&cfg.nats_prefix).map_err(|e| anyhow!(e))?;
    let mut slots: HashMap<String, Slot> = HashMap::new();
    let mut devices = Vec::new();
    for (info, dev) in crate::slots::open_devices(&cfg, &worker_id).await? {
        slots.insert(
            info.device_id.clone(),
            Arc::new(tokio::sync::Mutex::new(dev)),
        );
        devices.push(info);
    }
    let agent = crate::model::AgentEnv::load(&cfg.model)
        .map_err(|e| anyhow!(e))
        .context("secret source (ARGUS_SECRETS_FILE)")?;
    let pixel = crate::perceive::PixelChannel::load_async(&cfg.drivers).await;
    let store: Arc<dyn ArtifactStore> = Arc::new(
        S3Store::connect_writer(&cfg.s3)
            .await
            .map_err(|e| anyhow!(e))
            .context("object storage (ARGUS_S3_*)")?,
    );
    let nats = cfg
        .nats_auth
        .connect(&cfg.nats_url, &format!("argus-worker-{worker_id}"))
        .await?;
    let live_nats = nats.clone();
    let js = jetstream::new(nats);
    let running: Running = Arc::new(Mutex::new(HashMap::new()));
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()?;
    let hb = Heartbeat {
        worker_id: worker_id.clone(),
        hostname: std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap_or_default()
            .trim()
            .to_string(),
        devices,
        running: vec![],
        reads_assignment_groups: true,
    };
    // Register before consuming so the coordinator knows the slots.
    register(&http, &cfg, &hb, &running).await?;
    let hb_task = tokio::spawn(heartbeat_loop(http, cfg.clone(), hb, running.clone()));
    let _hb_guard = AbortOnDrop(hb_task);

    let stream = wait_for_stream(&js, &subjects.assign_stream()).await?;
    let consumer: pull::Stream = stream
        .get_or_create_consumer(
            &subjects.worker_consumer(&worker_id),
            pull::Config {
                durable_name: Some(subjects.worker_consumer(&worker_id)),
                filter_subject: subjects.assign(&worker_id),
                ack_policy: jetstream::consumer::AckPolicy::Explicit,
                ..Default::default()
            },
        )
        .await
        .context("cannot create the assignment consumer")?
        .stream()
        .max_messages_per_batch(8)
        .heartbeat(Duration::from_secs(5))
        .expires(Duration::from_secs(30))
        .messages()
        .await
        .context("cannot pull assignments")?;
    // one publisher for all the worker's runs: what queues up while a publish is in flight
    // goes out as one message (`run::event_groups`)
    let sink: Arc<dyn EventSink> = Arc::new(GroupingSink::new(js.clone(), subjects.clone()));
    let live = crate::live::Link {
        nats: live_nats,
        subjects: subjects.clone(),
        worker_id: worker_id.clone(),
        now: Default::default(),
    };
    tracing::info!(worker_id, slots = slots.len(), "worker ready");
    Ok(Started {
        slots,
        running,
        deps: RunDeps {
            store,
            sink,
            agent,
            pixel,
            live,
        },
        consumer,
        _hb_guard,
    })
}

/// Sends the first heartbeat, retrying every 500 ms for 30 s while the coordinator is not
/// reachable yet; fails naming its URL after that.
async fn register(
    http: &reqwest::Client,
    cfg: &WorkerConfig,
    hb: &Heartbeat,
    running: &Running,
) -> anyhow::Result<()> {
    for _ in 0..60 {
        match heartbeat(http, cfg, hb, running).await {
            Ok(_) => return Ok(()),
            Err(e) => {
                tracing::warn!(error = %e, "coordinator not reachable yet; retrying");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
    Err(anyhow!(
        "cannot register with the coordinator at {} (is it running?)",
        cfg.coordinator_url
    ))
}

/// Consumes assignments until `shutdown` completes.
async fn serve(
    started: Started,
    shutdown: std::pin::Pin<&mut impl std::future::Future<Output = ()>>,
) -> anyhow::Result<()> {
    let Started {
        slots,
        running,
        deps,
        mut consumer,
        _hb_guard,
    } = started;
    let mut shutdown = shutdown;
    loop {
        tokio::select! {
            _ = &mut shutdown => {
                tracing::info!("shutting down: cancelling runs");
                if let Ok(r) = running.lock() {
                    for h in r.values() { h.cancel.store(true, Ordering::Relaxed); }
                }
                for _ in 0..100 {
                    if running.lock().map(|r| r.is_empty()).unwrap_or(true) { break; }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                return Ok(());
            }
            msg = consumer.next() => {
                let Some(msg) = msg else { return Err(anyhow!("assignment stream ended")) };
                let msg = match msg {
                    Ok(m) => m,
                    Err(e) => { tracing::warn!(error = %e, "assignment pull error"); continue; }
                };
                if let Err(e) = msg.ack().await {
                    tracing::warn!(error = %e, "assignment ack failed");
                }
                // one assignment, or the runs one claim gave this worker's devices
                // (`argus_protocol::assignment_group`); one unreadable element costs itself
                match assignment_group::decode(&msg.payload) {
                    Ok(items) => {
                        for item in items {
                            match item {
                                Ok(a) => accept(a, &slots, &running, &deps),
                                Err(e) => tracing::error!(error = %e, "unreadable assignment dropped"),
                            }
                        }
                    }
                    Err(e) => tracing::error!(error = %e, "unreadable assignment message dropped"),
                }
            }
        }
    }
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// SIGINT or SIGTERM; both handlers are installed when this is called, not when the future
/// is first polled.
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! { _ = int.recv() => {}, _ = term.recv() => {} }
    })
}

async fn wait_for_stream(
    js: &jetstream::Context,
    name: &str,
) -> anyhow::Result<jetstream::stream::Stream> {
    for i in 0.. {
        match js.get_stream(name).await {
            Ok(s) => return Ok(s),
            Err(e) if i < 120 => {
                tracing::info!(stream = name, error = %e, "waiting for the coordinator to create the stream");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => return Err(anyhow!("stream {name} does not exist: {e}")),
        }
    }
    Err(anyhow!("stream {name} does not exist"))
}

fn accept(a: Assignment, slots: &HashMap<String, Slot>, running: &Running, deps: &RunDeps) {
    let cancel = Arc::new(AtomicBool::new(false));
    if let Ok(mut r) = running.lock() {
        r.insert(
            a.run_id,
            Held {
                attempt_id: a.attempt_id,
                cancel: cancel.clone(),
            },
        );
    }
    let slot = slots.get(&a.device_id).cloned();
    let running = running.clone();
    let store = deps.store.clone();
    // The run's live screen reads its step and target off its events.
    let live = crate::live::Link {
        now: Default::default(),
        ..deps.live.clone()
    };
    let sink: Arc<dyn EventSink> = Arc::new(crate::live::now::NowSink::new(
        deps.sink.clone(),
        live.now.clone(),
    ));
    // The run sees its job's team's secrets only.
    let mut agent = deps.agent.clone();
    agent.secrets = Arc::new(agent.secrets.for_team(&a.team));
    let pixel = deps.pixel.clone();
    tokio::spawn(async move {
        let input = RunInput {
            run_id: a.run_id,
            attempt_id: a.attempt_id,
            device_id: a.device_id.clone(),
            spec: a.spec.clone(),
            agent,
            pixel,
            replay: a.replay.clone(),
            live: Some(live),
        };
        match slot {
            Some(slot) => {
                let mut dev = slot.lock().await;
                let status = execute(&input, dev.as_mut(), store.clone(), sink, cancel).await;
                tracing::info!(run_id = %a.run_id, status = status.as_str(), "run finished");
            }
            None => {
                tracing::error!(
                    device_id = a.device_id,
                    "assignment for a device this worker does not have"
                );
                let mut em = Emitter::new(sink, a.run_id, a.attempt_id);
                let _ = em
                    .emit(EventBody::RunFinished {
                        status: RunStatus::Errored,
                        error: Some(format!("worker has no device {:?}", a.device_id)),
                        verdict: None,
                        failure_class: Some(argus_protocol::FailureClass::Device),
                    })
                    .await;
            }
        }
        if let Ok(mut r) = running.lock() {
            r.remove(&a.run_id);
        }
    });
}

async fn heartbeat(
    http: &reqwest::Client,
    cfg: &WorkerConfig,
    hb: &Heartbeat,
    running: &Running,
) -> anyhow::Result<HeartbeatReply> {
    let mut hb = hb.clone();
    hb.running = running
        .lock()
        .map(|r| {
            r.iter()
                .map(|(id, h)| LeaseRef {
                    run_id: *id,
                    attempt_id: h.attempt_id,
                })
                .collect()
        })
        .unwrap_or_default();
    let url = format!(
        "{}/api/v1/workers/heartbeat",
        cfg.coordinator_url.trim_end_matches('/')
    );
    let mut req = http.post(&url).json(&hb);
    if let Some(t) = &cfg.api_token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await?;
    if !resp.status().is_success() {
        let status = resp.status();
        let body = resp.text().await.unwrap_or_default();
        return Err(anyhow!("heartbeat refused: {status} {body}"));
    }
    let reply: HeartbeatReply = resp.json().await?;
    if let Ok(r) = running.lock() {
        let stops = reply
            .fenced
            .iter()
            .map(|l| (l, "lease fenced by the coordinator"))
            .chain(reply.cancel.iter().map(|l| (l, "cancelled by a person")));
        for (l, why) in stops {
            if let Some(h) = r.get(&l.run_id) {
                if h.attempt_id == l.attempt_id && !h.cancel.swap(true, Ordering::Relaxed) {
                    tracing::warn!(run_id = %l.run_id, why, "stopping the run at the next step");
                }
            }
        }
    }
    Ok(reply)
}

async fn heartbeat_loop(http: reqwest::Client, cfg: WorkerConfig, hb: Heartbeat, running: Running) {
    let mut tick = tokio::time::interval(Duration::from_millis(cfg.heartbeat_ms.max(100)));
    loop {
        tick.tick().await;
        if let Err(e) = heartbeat(&http, &cfg, &hb, &running).await {
            tracing::warn!(error = %e, "heartbeat failed");
        }
    }
}
