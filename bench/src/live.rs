//! `live-bench`: measures the live screen of a running web job on a real farm — the e2e
//! harness's in-process coordinator and web worker with a real Chromium
//! (`argus_tests::Farm`, private database / NATS prefix / bucket) — watching a page that
//! redraws every 40 ms while the job waits. One viewer reads `GET /runs/{id}/screen` for
//! `--seconds` after its first frame and prints
//! `live_fps=… live_delay_ms_p50=… live_delay_ms_p95=… bytes_per_s=… frames=…`: delay is the
//! viewer's receive time minus the frame's capture time (Chromium's, same machine clock);
//! bytes are the SSE events on the wire (base64 JPEG + JSON). Needs the dev services and
//! Chromium (`source /tmp/argus-dev/env` or `deploy/dev-up.sh`).

use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use argus_tests::live_view::{clock_site, slow_script, Seen, Viewer};
use argus_tests::{Farm, FarmOptions};
use clap::Parser;
use serde_json::json;

/// Live-screen benchmark.
#[derive(Parser)]
#[command(name = "live-bench")]
struct Cli {
    /// How long the viewer measures, s (after its first frame). Default 10.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let page = clock_site().await;
    let farm = Farm::start(FarmOptions::default().allowing(&page)).await;
    let waits = usize::try_from(cli.seconds).unwrap_or(10) + 8;
    let run = farm
        .submit(&json!({"platform": "web", "start_url": page, "instruction": slow_script(waits)}))
        .await;
    let mut viewer = Viewer::open(&farm.http, &farm.base_url, run)
        .await
        .map_err(|s| anyhow::anyhow!("viewer refused: {s}"))?;
    // The first frame comes once the run has started and the worker got the first lease.
    let first = tokio::time::timeout(Duration::from_secs(60), viewer.next())
        .await
        .context("no frame within 60 s")?;
    if !matches!(first, Some(Seen::Frame(_))) {
        bail!("the stream ended before a frame: {first:?}");
    }
    let window = Duration::from_secs(cli.seconds);
    let start = Instant::now();
    let (mut delays, mut bytes) = (Vec::new(), 0usize);
    while let Some(left) = window.checked_sub(start.elapsed()) {
        match tokio::time::timeout(left, viewer.next()).await {
            Ok(Some(Seen::Frame(f))) => {
                delays.push(f.received_at_ms - f.meta.captured_at_ms);
                bytes += f.wire_bytes;
            }
            Ok(other) => bail!("the stream ended during the window: {other:?}"),
            Err(_) => break,
        }
    }
    let secs = start.elapsed().as_secs_f64();
    drop(viewer);
    delays.sort_unstable();
    let pct = |p: f64| {
        let i = ((delays.len() as f64 - 1.0) * p).round() as usize;
        delays.get(i).copied().unwrap_or(-1)
    };
    println!(
        "live_fps={:.1} live_delay_ms_p50={} live_delay_ms_p95={} live_delay_ms_max={} bytes_per_s={:.0} frames={} window_s={:.1}",
        delays.len() as f64 / secs,
        pct(0.5),
        pct(0.95),
        delays.last().copied().unwrap_or(-1),
        bytes as f64 / secs,
        delays.len(),
        secs
    );
    let d = farm.wait_run(run, Duration::from_secs(120)).await;
    eprintln!("run {run} ended {}", d.status.as_str());
    Ok(())
}
