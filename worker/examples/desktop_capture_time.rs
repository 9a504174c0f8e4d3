//! Times the desktop driver's tree-only observation of a real app, for the perception bench
//! (`perception/tests/fixtures/desktop/mousepad_capture.json`): mousepad with the Apache-2.0
//! text under a private 1280×800 Xvfb, as `pixels::capture_bench_frames` captured the
//! bench's frames. After a 2 s settle and one warm-up each, [`RUNS`] runs of
//!
//! - `capture`: [`Observe::capture`] — the AT-SPI walk over D-Bus and the normalization to a
//!   tree, what every observation of a desktop worker costs;
//! - `screenshot`: [`Observe::screenshot`] — a grab of the root window (MIT-SHM
//!   `ShmGetImage` into a kept segment; core `GetImage` where the server lacks it) + PNG
//!   encoding, what the worker takes every step for the report;
//! - `frame`: [`Observe::frame`] — the same grab to RGB pixels, no PNG: the screenshot the
//!   pixel channel takes for itself whenever it runs (on top of the report's);
//!
//! wall ms each; medians and all runs are written as JSON to the path in the first argument.
//! Build and run in release (as the worker runs), where Xvfb, dbus-daemon, at-spi2-core and
//! mousepad are installed (`deploy/dev-up.sh`):
//! `cargo run --release -p argus-worker --example desktop_capture_time --
//! perception/tests/fixtures/desktop/mousepad_capture.json`.

use std::time::{Duration, Instant};

use argus_worker::device::desktop::session::Session;
use argus_worker::device::desktop::DesktopDevice;
use argus_worker::device::prelude::*;

/// Timed runs of each measurement.
const RUNS: usize = 9;

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .ok_or("usage: desktop_capture_time OUT.json")?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async {
        let dir = std::env::temp_dir().join(format!("argus-cap-time-{}", std::process::id()));
        let session = Session::start(&dir, 1280, 800).await?;
        let cmd = "mousepad /usr/share/common-licenses/Apache-2.0";
        let mut dev = DesktopDevice::new(session, (1280, 800), Some(cmd.into()));
        dev.begin().await?;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let nodes = dev.capture().await?.tree.nodes.len();
        dev.screenshot().await?;
        dev.frame().await?;
        let (mut cap, mut shot, mut frame) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let t = Instant::now();
            dev.capture().await?;
            cap.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            dev.screenshot().await?;
            shot.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            dev.frame().await?;
            frame.push(t.elapsed().as_secs_f64() * 1e3);
        }
        dev.shutdown().await;
        let _ = std::fs::remove_dir_all(&dir);
        let json = serde_json::json!({
            "what": "desktop driver, mousepad Apache-2.0 under Xvfb 1280x800, release build",
            "tree_nodes": nodes,
            "runs": RUNS,
            "capture_ms_median": median(&cap),
            "screenshot_ms_median": median(&shot),
            "frame_ms_median": median(&frame),
            "capture_ms": cap,
            "screenshot_ms": shot,
            "frame_ms": frame,
        });
        std::fs::write(&out, serde_json::to_string_pretty(&json)?)?;
        println!("{json}");
        Ok::<(), Box<dyn std::error::Error>>(())
    })
}
