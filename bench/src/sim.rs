//! Simulated workers: each owns [`DEVICES_PER_WORKER`] device slots, heartbeats over HTTP
//! like a real worker (every [`HEARTBEAT_PERIOD`], its first beat at a random point of the
//! first period so a large farm's beats are spread out), pulls its assignments in batches,
//! acks them and answers every run at once with `run_started` and `run_finished`
//! (succeeded). What they receive is tallied in a [`Tally`]: submit→start samples and every
//! run id, so a run handed out twice is counted.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::bail;
use argus_protocol::subjects::Subjects;
use argus_protocol::{Assignment, DeviceInfo, EventBody, Heartbeat, Platform, RunEvent, RunStatus};
use argus_worker::run::event_groups::GroupingSink;
use argus_worker::run::events::EventSink;
use async_nats::jetstream::{self, consumer::pull};
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::farm::Farm;

/// Simulated devices per simulated worker.
pub const DEVICES_PER_WORKER: usize = 100;

/// How often a simulated worker heartbeats: the real worker's default (`ARGUS_HEARTBEAT_MS`,
/// 2,000 ms).
pub const HEARTBEAT_PERIOD: Duration = Duration::from_secs(2);

/// What the simulated workers saw.
#[derive(Default)]
pub struct Tally {
    /// Submit→start, ms, of runs whose job name carries its submit time (`bench-<µs>`).
    pub samples: Vec<f64>,
    /// Every run id assigned so far.
    pub runs: HashSet<Uuid>,
    /// Assignments of a run id already assigned (a run handed out twice).
    pub duplicates: u64,
}

/// The simulated workers' shared tally.
pub type Shared = Arc<Mutex<Tally>>;

/// Starts simulated workers serving `devices` slots; returns their tasks (abort them to
/// stop the workers).
pub async fn start_workers(
    farm: &Farm,
    devices: usize,
    tally: &Shared,
) -> anyhow::Result<Vec<JoinHandle<()>>> {
    let mut tasks = Vec::new();
    let workers = devices.div_ceil(DEVICES_PER_WORKER);
    for w in 0..workers {
        let n = DEVICES_PER_WORKER.min(devices - w * DEVICES_PER_WORKER);
        let worker_id = format!("bw{w}");
        let consumer = consumer(farm, &worker_id).await?;
        let hb = Heartbeat {
            worker_id: worker_id.clone(),
            hostname: "dispatch-bench".into(),
            devices: (0..n).map(|d| device(&worker_id, d)).collect(),
            running: Vec::new(),
            reads_assignment_groups: true,
        };
        let url = format!(
            "{}/api/v1/workers/heartbeat",
            farm.base_urls[w % farm.base_urls.len()]
        );
        register(&farm.http, &url, &farm.token, &hb).await?;
        let (http, token) = (farm.http.clone(), farm.token.clone());
        // Spread the beats over the period, as independent workers' would be.
        let phase = HEARTBEAT_PERIOD.mul_f64((w as f64 * 0.618_034).fract());
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep(phase).await;
            loop {
                tokio::time::sleep(HEARTBEAT_PERIOD).await;
                if let Err(e) = heartbeat(&http, &url, &token, &hb).await {
                    eprintln!("heartbeat failed: {e:#}");
                }
            }
        }));
        let (js, subjects, tally) = (farm.js.clone(), farm.subjects.clone(), tally.clone());
        tasks.push(tokio::spawn(async move {
            // A pull stream that fails (a missed idle heartbeat on an overloaded machine) is
            // opened again, as a real worker's is; what it held comes back after the ack wait.
            loop {
                if let Err(e) = serve_assignments(consumer.clone(), &js, &subjects, &tally).await {
                    eprintln!("simulated worker's pull stream failed, reopening: {e:#}");
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
    }
    Ok(tasks)
}

fn device(worker_id: &str, d: usize) -> DeviceInfo {
    DeviceInfo {
        device_id: format!("{worker_id}-d{d}"),
        platform: Platform::Web,
        labels: BTreeMap::from([("browser".to_string(), "chromium".to_string())]),
        screen_w_px: 1280,
        screen_h_px: 800,
    }
}

/// The worker's durable pull consumer on the assignment stream, as a real worker makes it.
pub async fn consumer(
    farm: &Farm,
    worker_id: &str,
) -> anyhow::Result<jetstream::consumer::PullConsumer> {
    let stream = farm.js.get_stream(farm.subjects.assign_stream()).await?;
    let name = farm.subjects.worker_consumer(worker_id);
    Ok(stream
        .get_or_create_consumer(
            &name,
            pull::Config {
                durable_name: Some(name.clone()),
                filter_subject: farm.subjects.assign(worker_id),
                ack_policy: jetstream::consumer::AckPolicy::Explicit,
                max_ack_pending: 10_000,
                ..Default::default()
            },
        )
        .await?)
}

/// The first heartbeat, retried (10 tries, 500 ms apart) while a coordinator answers
/// 503 or cannot be reached: on a loaded machine its database pool can time out, and a
/// real worker retries too.
async fn register(
    http: &reqwest::Client,
    url: &str,
    token: &str,
    hb: &Heartbeat,
) -> anyhow::Result<()> {
    let mut tries = 0;
    loop {
        match heartbeat(http, url, token, hb).await {
            Ok(()) => return Ok(()),
            Err(e) if tries < 9 => {
                tries += 1;
                eprintln!("registration heartbeat failed, retrying: {e:#}");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => return Err(e),
        }
    }
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
/// `run_started` and `run_finished` (succeeded), each device's two events emitted one after
/// the other through one [`GroupingSink`] per simulated worker — the publisher a real
/// worker's runs share (`argus_worker::run::event_groups`), so what queues up while a
/// publish is in flight goes out as one message — and the devices of a fetched batch
/// concurrently, as a worker's runs are.
pub async fn serve_assignments(
    consumer: jetstream::consumer::PullConsumer,
    js: &jetstream::Context,
    subjects: &Subjects,
    tally: &Shared,
) -> anyhow::Result<()> {
    let sink = Arc::new(GroupingSink::new(js.clone(), subjects.clone()));
    let mut messages = pull(&consumer).await?;
    while let Some(batch) = argus_infra::nats::next_batch(&mut messages, 256).await {
        let mut set = tokio::task::JoinSet::new();
        for evs in received(batch?, tally).await? {
            let sink = sink.clone();
            set.spawn(async move {
                for ev in &evs {
                    sink.publish(ev).await.map_err(|e| anyhow::anyhow!(e))?;
                }
                anyhow::Ok(())
            });
        }
        while let Some(r) = set.join_next().await {
            r??;
        }
    }
    Ok(())
}

/// `--floor`'s comparison ([`crate::floor::Events::OnePerMessage`]): as
/// [`serve_assignments`], but every event is published as its own message (`Nats-Msg-Id` =
/// [`RunEvent::msg_id`]), all of a fetched batch pipelined — how Argus's workers sent events
/// before their runs shared a grouping publisher.
pub async fn serve_assignments_one_per_message(
    consumer: jetstream::consumer::PullConsumer,
    js: &jetstream::Context,
    subjects: &Subjects,
    tally: &Shared,
) -> anyhow::Result<()> {
    let mut messages = pull(&consumer).await?;
    while let Some(batch) = argus_infra::nats::next_batch(&mut messages, 256).await {
        let mut acks = Vec::new();
        for ev in received(batch?, tally).await?.iter().flatten() {
            let mut headers = async_nats::HeaderMap::new();
            headers.insert("Nats-Msg-Id", ev.msg_id().as_str());
            let payload = serde_json::to_vec(ev)?;
            acks.push(
                js.publish_with_headers(subjects.events(&ev.run_id), headers, payload.into())
                    .await?,
            );
        }
        for ack in acks {
            ack.await?;
        }
    }
    Ok(())
}

/// A simulated worker's pull of its assignments, batches of up to 256.
async fn pull(
    consumer: &jetstream::consumer::PullConsumer,
) -> anyhow::Result<jetstream::consumer::pull::Stream> {
    Ok(consumer
        .stream()
        .max_messages_per_batch(256)
        .heartbeat(Duration::from_secs(5))
        .expires(Duration::from_secs(30))
        .messages()
        .await?)
}

/// Acks and tallies a fetched batch of assignments; returns each one's answer, its two
/// events.
async fn received(
    batch: Vec<jetstream::Message>,
    tally: &Shared,
) -> anyhow::Result<Vec<[RunEvent; 2]>> {
    let mut out = Vec::with_capacity(batch.len());
    for msg in batch {
        // one assignment or a group of them, as a real worker reads them
        let items = argus_protocol::assignment_group::decode(&msg.payload)?;
        msg.ack().await.map_err(|e| anyhow::anyhow!(e))?;
        let now = chrono::Utc::now();
        for a in items {
            let a = a?;
            record(tally, &a, now);
            let [started, finished] = answer(&a);
            let ev = |seq: u64, body: EventBody| RunEvent {
                run_id: a.run_id,
                attempt_id: a.attempt_id,
                seq,
                at: now,
                body,
            };
            out.push([ev(1, started), ev(2, finished)]);
        }
    }
    Ok(out)
}

/// A simulated device's whole run: started, then finished (succeeded).
fn answer(a: &Assignment) -> [EventBody; 2] {
    [
        EventBody::RunStarted {
            device_id: a.device_id.clone(),
            screen_w_px: 1280,
            screen_h_px: 800,
        },
        EventBody::RunFinished {
            status: RunStatus::Succeeded,
            error: None,
            verdict: None,
            failure_class: None,
        },
    ]
}

/// Tallies one received assignment: its run id, and its submit→start when its job name
/// carries the submit time.
fn record(tally: &Shared, a: &Assignment, now: chrono::DateTime<chrono::Utc>) {
    let submitted = a
        .spec
        .name
        .as_deref()
        .and_then(|n| n.strip_prefix("bench-"))
        .and_then(|us| us.parse::<i64>().ok());
    if let Ok(mut t) = tally.lock() {
        if !t.runs.insert(a.run_id) {
            t.duplicates += 1;
        }
        if let Some(submitted) = submitted {
            t.samples
                .push((now.timestamp_micros() - submitted) as f64 / 1000.0);
        }
    }
}
