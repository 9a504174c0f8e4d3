//! The latency phase: 500 jobs/s submitted over HTTP to 1,000 idle devices, the first
//! `warmup_s` not measured; submit→start is the submit time (carried in the job name) to
//! the simulated worker receiving the assignment. Every submitted run must then succeed
//! exactly once ([`Outcome`]).

use std::time::{Duration, Instant};

use anyhow::bail;

use crate::dispatch::{drain, job_spec, Outcome};
use crate::farm::Farm;
use crate::sim;

/// Offered load of the latency phase, jobs/s.
pub const OFFERED_JOBS_PER_S: u64 = 500;

/// How the latency phase runs: `secs` measured after `warmup_s` not measured, both at
/// the offered rate.
#[derive(Debug, Clone, Copy)]
pub struct LatencyRun {
    /// Measured length, s.
    pub secs: f64,
    /// Unmeasured warm-up before it, s.
    pub warmup_s: f64,
}

/// Result of one latency phase.
pub struct Latency {
    /// Timed runs started per second of the measured window.
    pub started_per_s: f64,
    /// Median submit→start, ms.
    pub p50_ms: f64,
    /// 99th percentile submit→start, ms.
    pub p99_ms: f64,
    /// What became of every submitted run (warm-up included).
    pub outcome: Outcome,
}

/// Submits 500 jobs/s over HTTP to 1,000 idle devices and records submit→start.
pub async fn latency_phase(farm: Farm, run: LatencyRun) -> anyhow::Result<Latency> {
    let tally = sim::Shared::default();
    let tasks = sim::start_workers(&farm, 1000, &tally).await?;
    let result = async {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let total = (run.secs * OFFERED_JOBS_PER_S as f64) as usize;
        // The first `warmup_s` at the same rate are not measured: HTTP connections opened,
        // statements prepared, plpgsql compiled per PostgreSQL backend (measured without the
        // warm pool connections: the worst sample of the first second was 80-210 ms, of later
        // ones 20-50).
        let warm = (run.warmup_s * OFFERED_JOBS_PER_S as f64) as usize;
        let t0 = submit_all(&farm, warm, total).await?;
        let deadline = Instant::now() + Duration::from_secs(20);
        while tally.lock().map(|t| t.samples.len()).unwrap_or(0) < total
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let dt = t0.elapsed().as_secs_f64();
        let outcome = drain(&farm.pool, (warm + total) as i64, &tally).await?;
        let s = tally.lock().map(|t| t.samples.clone()).unwrap_or_default();
        summarize(s, total, dt, outcome)
    }
    .await;
    tasks.iter().for_each(|t| t.abort());
    result
}

/// Submits `warm + total` jobs at the offered rate, round-robin over the coordinators;
/// only the last `total` are timed. Returns when the first timed one was submitted.
async fn submit_all(farm: &Farm, warm: usize, total: usize) -> anyhow::Result<Instant> {
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
    Ok(t0)
}

/// Percentiles of the samples (arrival order ~ time: the worst of each second is printed,
/// to show a stall from noise).
fn summarize(mut s: Vec<f64>, total: usize, dt: f64, outcome: Outcome) -> anyhow::Result<Latency> {
    if s.len() < total {
        eprintln!(
            "note: only {} of {total} submitted runs started within 20 s",
            s.len()
        );
    }
    if s.is_empty() {
        bail!("no submitted run started");
    }
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
        outcome,
    })
}
