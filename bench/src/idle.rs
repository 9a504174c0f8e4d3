//! What idle devices cost a coordinator: its memory with 1,000 registered idle slots, and
//! the CPU the coordinators spend while devices only heartbeat (nothing queued), read from
//! `/proc` over a quiet window.

use std::time::{Duration, Instant};

use anyhow::Context;

use crate::farm::Farm;
use crate::procfs::{cpu_ticks, rss_kb, ticks_per_s};
use crate::sim;

/// Coordinator RSS, kB, with no device, then with 1,000 registered idle slots.
pub async fn memory_phase(farm: Farm) -> anyhow::Result<(u64, u64)> {
    tokio::time::sleep(Duration::from_secs(3)).await;
    let pid = *farm.pids.first().context("no coordinator")?;
    let rss0 = rss_kb(pid)?;
    let tally = sim::Shared::default();
    let tasks = sim::start_workers(&farm, 1000, &tally).await?;
    // a few heartbeats and dispatcher passes over the idle slots
    tokio::time::sleep(Duration::from_secs(7)).await;
    let rss1 = rss_kb(pid);
    tasks.iter().for_each(|t| t.abort());
    Ok((rss0, rss1?))
}

/// Settling time before the idle window: every simulated worker registered and a few
/// heartbeat periods passed.
const SETTLE: Duration = Duration::from_secs(4);

/// CPU the farm's coordinators use together, % of one core, while `devices` simulated
/// devices heartbeat and nothing is queued, over a quiet window of `window_s`.
pub async fn idle_cpu_phase(farm: Farm, devices: usize, window_s: f64) -> anyhow::Result<f64> {
    let tally = sim::Shared::default();
    let tasks = sim::start_workers(&farm, devices, &tally).await?;
    let result = async {
        tokio::time::sleep(SETTLE).await;
        let t0 = total_ticks(&farm.pids)?;
        let start = Instant::now();
        tokio::time::sleep(Duration::from_secs_f64(window_s)).await;
        let t1 = total_ticks(&farm.pids)?;
        let dt = start.elapsed().as_secs_f64();
        Ok((t1 - t0) as f64 / ticks_per_s() / dt * 100.0)
    }
    .await;
    tasks.iter().for_each(|t| t.abort());
    result
}

fn total_ticks(pids: &[u32]) -> anyhow::Result<u64> {
    pids.iter().map(|&p| cpu_ticks(p)).sum()
}
