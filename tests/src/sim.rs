//! A simulated worker for farm tests: real HTTP heartbeats and a real JetStream assignment
//! consumer, but devices that "run" a job by waiting and then reporting the verdict chosen
//! by [`Behavior`]. Records every assignment it receives (run, device, time) so tests can
//! check order, concurrency and exclusivity.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use argus_protocol::subjects::Subjects;
use argus_protocol::{
    Assignment, DeviceInfo, EventBody, Heartbeat, HeartbeatReply, LeaseRef, Platform, RunStatus,
};
use argus_worker::run::events::{Emitter, EventSink, NatsSink};
use async_nats::jetstream::{self, consumer::pull};
use futures::StreamExt;
use serde_json::Value;

use crate::Farm;

/// How a simulated device ends a run: by a substring of the instruction.
#[derive(Debug, Clone)]
pub struct Behavior {
    /// How long a run takes.
    pub hold: Duration,
}

/// One assignment as received.
#[derive(Debug, Clone)]
pub struct Received {
    pub run_id: uuid::Uuid,
    pub device_id: String,
    pub at: Instant,
    pub instruction: String,
}

/// A running simulated worker; stops when dropped.
pub struct SimWorker {
    /// Assignments in arrival order.
    pub received: Arc<Mutex<Vec<Received>>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for SimWorker {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

type Held = Arc<Mutex<HashMap<uuid::Uuid, (uuid::Uuid, bool)>>>;

impl SimWorker {
    /// Registers `devices` (`(device_id, labels)`) as worker `worker_id` and starts serving.
    ///
    /// A run's verdict: instruction containing `FAIL` → failed; `FLAKY` → failed on its
    /// first run and succeeded on a retry; otherwise succeeded. A cancel from the
    /// coordinator ends it `cancelled`.
    pub async fn start(
        farm: &Farm,
        worker_id: &str,
        devices: Vec<(String, Value)>,
        behavior: Behavior,
    ) -> SimWorker {
        let infos: Vec<DeviceInfo> = devices
            .into_iter()
            .map(|(id, labels)| DeviceInfo {
                device_id: id,
                platform: Platform::Web,
                labels: serde_json::from_value(labels).expect("labels object of strings"),
                screen_w_px: 100,
                screen_h_px: 100,
            })
            .collect();
        let hb = Heartbeat {
            worker_id: worker_id.to_string(),
            hostname: "sim".into(),
            devices: infos,
            running: vec![],
            reads_assignment_groups: true,
        };
        let held: Held = Arc::new(Mutex::new(HashMap::new()));
        let http = farm.http.clone();
        let url = format!("{}/api/v1/workers/heartbeat", farm.base_url);
        beat(&http, &url, &hb, &held).await;
        let hb_task = {
            let (http, url, hb, held) = (http.clone(), url.clone(), hb.clone(), held.clone());
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    beat(&http, &url, &hb, &held).await;
                }
            })
        };
        let nc = async_nats::connect(&farm.services.nats_url)
            .await
            .expect("nats");
        let js = jetstream::new(nc);
        let subjects: Subjects = farm.subjects.clone();
        let stream = js
            .get_stream(subjects.assign_stream())
            .await
            .expect("assign stream");
        let name = subjects.worker_consumer(worker_id);
        let mut msgs = stream
            .get_or_create_consumer(
                &name,
                pull::Config {
                    durable_name: Some(name.clone()),
                    filter_subject: subjects.assign(worker_id),
                    ack_policy: jetstream::consumer::AckPolicy::Explicit,
                    ..Default::default()
                },
            )
            .await
            .expect("consumer")
            .messages()
            .await
            .expect("messages");
        let sink: Arc<dyn EventSink> = Arc::new(NatsSink::new(js.clone(), subjects));
        let received = Arc::new(Mutex::new(Vec::new()));
        let rec = received.clone();
        let consume = tokio::spawn(async move {
            while let Some(Ok(msg)) = msgs.next().await {
                let _ = msg.ack().await;
                // one assignment or a group of them, as a real worker reads them
                let Ok(items) = argus_protocol::assignment_group::decode(&msg.payload) else {
                    continue;
                };
                for a in items.into_iter().flatten() {
                    if let Ok(mut r) = rec.lock() {
                        r.push(Received {
                            run_id: a.run_id,
                            device_id: a.device_id.clone(),
                            at: Instant::now(),
                            instruction: a.spec.instruction.clone(),
                        });
                    }
                    if let Ok(mut h) = held.lock() {
                        h.insert(a.run_id, (a.attempt_id, false));
                    }
                    let (sink, held, behavior) = (sink.clone(), held.clone(), behavior.clone());
                    tokio::spawn(async move { play(a, sink, held, behavior).await });
                }
            }
        });
        SimWorker {
            received,
            tasks: vec![hb_task, consume],
        }
    }

    /// Run ids in the order they were assigned.
    pub fn order(&self) -> Vec<uuid::Uuid> {
        self.received
            .lock()
            .map(|r| r.iter().map(|x| x.run_id).collect())
            .unwrap_or_default()
    }
}

async fn beat(http: &reqwest::Client, url: &str, hb: &Heartbeat, held: &Held) {
    let mut hb = hb.clone();
    hb.running = held
        .lock()
        .map(|h| {
            h.iter()
                .map(|(r, (a, _))| LeaseRef {
                    run_id: *r,
                    attempt_id: *a,
                })
                .collect()
        })
        .unwrap_or_default();
    let Ok(resp) = http.post(url).json(&hb).send().await else {
        return;
    };
    let Ok(reply) = resp.json::<HeartbeatReply>().await else {
        return;
    };
    if let Ok(mut h) = held.lock() {
        for l in reply.cancel.iter().chain(reply.fenced.iter()) {
            if let Some(e) = h.get_mut(&l.run_id) {
                e.1 = true;
            }
        }
    }
}

async fn play(a: Assignment, sink: Arc<dyn EventSink>, held: Held, behavior: Behavior) {
    let mut em = Emitter::new(sink, a.run_id, a.attempt_id);
    let _ = em
        .emit(EventBody::RunStarted {
            device_id: a.device_id.clone(),
            screen_w_px: 100,
            screen_h_px: 100,
        })
        .await;
    let deadline = Instant::now() + behavior.hold;
    let mut cancelled = false;
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
        if held
            .lock()
            .map(|h| h.get(&a.run_id).is_some_and(|e| e.1))
            .unwrap_or(false)
        {
            cancelled = true;
            break;
        }
    }
    let status = if cancelled {
        RunStatus::Cancelled
    } else if a.spec.instruction.contains("FAIL")
        || (a.spec.instruction.contains("FLAKY") && flaky_first(a.job_id))
    {
        RunStatus::Failed
    } else {
        RunStatus::Succeeded
    };
    let error = (status != RunStatus::Succeeded).then(|| format!("simulated {}", status.as_str()));
    let _ = em
        .emit(EventBody::RunFinished {
            status,
            error,
            verdict: None,
            failure_class: None,
        })
        .await;
    if let Ok(mut h) = held.lock() {
        h.remove(&a.run_id);
    }
}

/// True the first time it is asked about `job` (its first run fails).
fn flaky_first(job: uuid::Uuid) -> bool {
    static SEEN: Mutex<Vec<uuid::Uuid>> = Mutex::new(Vec::new());
    let Ok(mut seen) = SEEN.lock() else {
        return false;
    };
    if seen.contains(&job) {
        false
    } else {
        seen.push(job);
        true
    }
}
