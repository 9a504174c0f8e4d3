//! Pins the live screen (`GET /runs/{id}/screen`) on a real farm (coordinator, web worker,
//! Chromium): a running web job nobody watches publishes no frame at all on the NATS frame
//! subject; a user of another team gets 404; a viewer receives JPEG frames (≥ 2 within
//! 1.5 s) whose metadata names the step running; after the viewer leaves, no frame is
//! published from one lease + 1 s later until the run ends; a viewer of an ended run gets
//! `end` and the stream closes; a job that uses a secret is never streamed (`off`). In real
//! Chromium, the run's report page plays the frames
//! with the step, keeps the same live image while its timeline updates in place, the device
//! page shows the same stream and the device's runs, and once the page is closed no frame is
//! published from one lease + 1 s later until the run ends. Frames are counted on NATS by the
//! test's own subscription, not by the coordinator. Android and iOS runs (device stand-ins)
//! are watched through a screenshot a second, with the same guarantees.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use argus_tests::live_view::{clock_site, slow_script, Seen, Viewer};
use argus_tests::{Farm, FarmOptions};

use crate::dashboard::Page;
use futures::StreamExt;
use serde_json::json;

/// Arrival times of the frames published for the farm's runs.
type Arrivals = Arc<Mutex<Vec<Instant>>>;

async fn count_frames(farm: &Farm, run: uuid::Uuid) -> Arrivals {
    let nats = async_nats::connect(&farm.services.nats_url)
        .await
        .expect("nats");
    let mut sub = nats
        .subscribe(farm.subjects.live_frame("*", &run))
        .await
        .expect("subscribe");
    nats.flush().await.expect("flush");
    let seen: Arrivals = Arc::default();
    let s = seen.clone();
    tokio::spawn(async move {
        let _keep = nats;
        while sub.next().await.is_some() {
            s.lock().unwrap().push(Instant::now());
        }
    });
    seen
}

async fn wait_running(farm: &Farm, run: uuid::Uuid) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let d: serde_json::Value = farm
            .http
            .get(format!("{}/api/v1/runs/{run}", farm.base_url))
            .send()
            .await
            .expect("GET run")
            .json()
            .await
            .expect("json");
        if d["status"] == "running" && d["steps"].as_array().is_some_and(|s| s.len() >= 2) {
            return;
        }
        assert!(Instant::now() < deadline, "run never got going: {d}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn frames_flow_only_while_watched_and_only_to_the_team() {
    let page = clock_site().await;
    let farm = Farm::start(FarmOptions::default().allowing(&page)).await;
    let run = farm
        .submit(&json!({
            "platform": "web",
            "start_url": page,
            "instruction": slow_script(14),
        }))
        .await;
    let frames = count_frames(&farm, run).await;
    wait_running(&farm, run).await;

    // Nobody watches: nothing is published.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        frames.lock().unwrap().len(),
        0,
        "frames sent with no viewer"
    );

    // Another team's user does not see the run, live or not.
    let other = farm.client_for("other-team", "user").await;
    assert_eq!(
        Viewer::open(&other, &farm.base_url, run).await.err(),
        Some(404)
    );

    // A viewer gets frames of the running step.
    let mut viewer = Viewer::open(&farm.http, &farm.base_url, run)
        .await
        .expect("viewer");
    let first = tokio::time::timeout(Duration::from_secs(5), viewer.next())
        .await
        .expect("a first frame within 5 s");
    assert!(matches!(first, Some(Seen::Frame(_))), "{first:?}");
    let window = Instant::now();
    let mut got = Vec::new();
    while window.elapsed() < Duration::from_millis(1500) {
        let left = Duration::from_millis(1500).saturating_sub(window.elapsed());
        match tokio::time::timeout(left, viewer.next()).await {
            Ok(Some(Seen::Frame(f))) => got.push(f),
            Ok(other) => panic!("stream ended early: {other:?}"),
            Err(_) => break,
        }
    }
    assert!(got.len() >= 2, "{} frames in 1.5 s", got.len());
    for f in &got {
        assert_eq!(&f.jpeg[..3], b"\xff\xd8\xff", "not a JPEG");
        assert_eq!(f.meta.screen_px, [1280, 800]);
        let step = f.meta.step.expect("the step running");
        assert!(step >= 2, "step {step}");
        assert_eq!(f.meta.text.as_deref(), Some("wait 1s"));
        let t = f.meta.target_px.expect("the Go button, the last target");
        assert!(t[2] > 0.0 && t[3] > 0.0, "{t:?}");
    }

    // The viewer leaves: from one lease + 1 s on, nothing more until the run ends.
    drop(viewer);
    quiet_after(&farm, run, &frames, Instant::now()).await;
    assert!(
        frames.lock().unwrap().len() >= 3,
        "the viewer's frames were on NATS"
    );

    // A job that uses a secret has no live screen: the viewer is told why, and that is all.
    let secret_run = farm
        .submit(&json!({
            "platform": "web",
            "start_url": page,
            "instruction": "type \"${secret.LIVE_PW}\" into \"Name\"",
        }))
        .await;
    let mut viewer = Viewer::open(&farm.http, &farm.base_url, secret_run)
        .await
        .expect("viewer");
    let off = tokio::time::timeout(Duration::from_secs(5), viewer.next()).await;
    assert!(
        matches!(&off, Ok(Some(Seen::Off(why))) if why.contains("secrets")),
        "{off:?}"
    );
    let closed = tokio::time::timeout(Duration::from_secs(5), viewer.next()).await;
    assert!(matches!(closed, Ok(None)), "{closed:?}");

    // A viewer of an ended run is told so, and the stream closes.
    let mut viewer = Viewer::open(&farm.http, &farm.base_url, run)
        .await
        .expect("viewer");
    let end = tokio::time::timeout(Duration::from_secs(5), viewer.next()).await;
    assert!(matches!(end, Ok(Some(Seen::End))), "{end:?}");
    let closed = tokio::time::timeout(Duration::from_secs(5), viewer.next()).await;
    assert!(matches!(closed, Ok(None)), "{closed:?}");
}

/// Asserts that no frame arrived from one lease + 1 s after `left` until the run ended
/// (the run must last 2 s beyond that).
async fn quiet_after(farm: &Farm, run: uuid::Uuid, frames: &Arrivals, left: Instant) {
    let quiet_from = left + argus_worker::live::LEASE + Duration::from_secs(1);
    let d = farm.wait_run(run, Duration::from_secs(60)).await;
    assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
    assert!(
        Instant::now() > quiet_from + Duration::from_secs(2),
        "the run ended too soon after the viewer left to show anything"
    );
    let late: Vec<_> = frames
        .lock()
        .unwrap()
        .iter()
        .filter(|t| **t >= quiet_from)
        .map(|t| t.duration_since(left))
        .collect();
    assert!(late.is_empty(), "frames after the viewer left: {late:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_report_page_plays_the_screen_until_it_is_closed() {
    let site = clock_site().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site)).await;
    let run = farm
        .submit(&json!({"platform": "web", "start_url": site, "instruction": slow_script(16)}))
        .await;
    let frames = count_frames(&farm, run).await;
    let page = Page::open(
        &farm.services.chromium,
        &farm.worker_dir.with_extension("viewer"),
    )
    .await;
    page.goto(&format!("{}/login", farm.base_url)).await;
    page.submit_form("form", &[("token", &farm.admin_token)])
        .await;
    wait_running(&farm, run).await;
    page.goto(&format!("{}/runs/{run}", farm.base_url)).await;
    page.wait_for(
        "document.getElementById('live-img').src.startsWith('data:image/jpeg') && \
         document.getElementById('live-img').naturalWidth > 0 && \
         document.getElementById('live-step').textContent.includes('wait 1s') && \
         !document.getElementById('live-box').hidden",
        Duration::from_secs(10),
    )
    .await;
    page.shot("live-screen").await;
    // The timeline moves on in place; the live image is the same element, still playing.
    page.eval("window.__live = document.getElementById('live-img'); window.__step = document.getElementById('live-step').textContent; window.__steps = document.querySelectorAll('details.step').length; true").await;
    page.wait_for(
        "document.querySelectorAll('details.step').length > window.__steps && \
         document.getElementById('live-step').textContent !== window.__step",
        Duration::from_secs(6),
    )
    .await;
    let same = page
        .eval("document.getElementById('live-img') === window.__live && document.getElementById('run-status').textContent === 'running'")
        .await;
    assert_eq!(
        same,
        json!(true),
        "the live screen was rebuilt or the page left"
    );

    // The device page shows the same stream and the device's runs.
    let device = farm
        .http
        .get(format!("{}/api/v1/runs/{run}", farm.base_url))
        .send()
        .await
        .expect("run")
        .json::<serde_json::Value>()
        .await
        .expect("json")["device_id"]
        .as_str()
        .expect("device")
        .to_string();
    let html = farm
        .http
        .get(format!("{}/devices/{device}", farm.base_url))
        .send()
        .await
        .expect("device page")
        .text()
        .await
        .expect("body");
    assert!(
        html.contains(&format!("data-src=\"/runs/{run}/screen\"")),
        "{html}"
    );
    assert!(html.contains(&format!("href=\"/runs/{run}\"")), "{html}");

    page.close().await;
    let closed = Instant::now();
    quiet_after(&farm, run, &frames, closed).await;
    let before_close = frames
        .lock()
        .unwrap()
        .iter()
        .filter(|t| **t < closed)
        .count();
    assert!(
        before_close >= 5,
        "{before_close} frames while the page was open"
    );
}

/// A phone behind the ADB stand-in: the inbox fixture's tree, a solid 1080 × 2400 screen.
fn phone() -> argus_tests::adb_peer::Responder {
    let xml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../perception/tests/fixtures/android_inbox.xml"
    ))
    .expect("android fixture");
    let png = argus_tests::adb_peer::solid_png(1080, 2400);
    Arc::new(move |cmd: &str| -> (Vec<u8>, u8) {
        let out = match cmd {
            "wm size" => b"Physical size: 1080x2400\n".to_vec(),
            "wm density" => b"Physical density: 420\n".to_vec(),
            "getprop ro.product.model" => b"Pixel 7\n".to_vec(),
            "getprop ro.build.version.release" => b"14\n".to_vec(),
            c if c.starts_with("uiautomator dump") => {
                b"UI hierchary dumped to: /data/local/tmp/argus-window.xml\n".to_vec()
            }
            c if c.starts_with("cat /data/local/tmp/") => xml.clone().into_bytes(),
            "screencap -p" => png.clone(),
            _ => Vec::new(),
        };
        (out, 0)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_android_run_is_watched_through_periodic_screenshots() {
    let peer = argus_tests::adb_peer::AdbPeer::start(&["emulator-5554"], true, phone()).await;
    let farm = Farm::start(FarmOptions {
        platform: argus_protocol::Platform::Android,
        drivers: argus_worker::DriverConfig {
            serial: Some("emulator-5554".into()),
            adb_server: peer.addr,
            ..argus_worker::DriverConfig::default()
        },
        ..Default::default()
    })
    .await;
    watched_by_screenshots(&farm, "android", [1080, 2400], (346, 768)).await;
}

/// A `platform` run of 17 `wait 1s` steps: no frame without a viewer, then ≥ 2 frames of
/// `screen_px` as JPEGs of `jpeg_px` within 8 s for one (1 a second is asked; a debug build
/// decodes and shrinks a phone's PNG in about a second, and tests run side by side), none
/// after it leaves.
async fn watched_by_screenshots(
    farm: &Farm,
    platform: &str,
    screen_px: [u32; 2],
    jpeg_px: (u32, u32),
) {
    let mut script = String::from("wait 1s");
    for _ in 0..16 {
        script.push_str("\nwait 1s");
    }
    let run = farm
        .submit(&json!({"platform": platform, "instruction": script}))
        .await;
    let frames = count_frames(farm, run).await;
    wait_running(farm, run).await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(
        frames.lock().unwrap().len(),
        0,
        "frames sent with no viewer"
    );

    let mut viewer = Viewer::open(&farm.http, &farm.base_url, run)
        .await
        .expect("viewer");
    let mut got = Vec::new();
    let window = Instant::now();
    while got.len() < 2 && window.elapsed() < Duration::from_secs(8) {
        let left = Duration::from_secs(8).saturating_sub(window.elapsed());
        if let Ok(Some(Seen::Frame(f))) = tokio::time::timeout(left, viewer.next()).await {
            got.push(f);
        }
    }
    assert!(got.len() >= 2, "{} frames in 8 s", got.len());
    for f in &got {
        assert_eq!(&f.jpeg[..3], b"\xff\xd8\xff", "not a JPEG");
        assert_eq!(f.meta.screen_px, screen_px);
        assert_eq!(f.meta.text.as_deref(), Some("wait 1s"));
        assert_eq!(argus_tests::jpeg_size(&f.jpeg), Some(jpeg_px));
    }
    drop(viewer);
    quiet_after(farm, run, &frames, Instant::now()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_ios_run_is_watched_through_periodic_screenshots() {
    let wda = argus_tests::wda_peer::WdaPeer::start(argus_tests::wda_peer::Screen {
        size_pt: (390.0, 844.0),
        scale: 3.0,
        source: r#"<?xml version="1.0" encoding="UTF-8"?>
<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Shop" label="Shop" enabled="true" visible="true" accessible="false" x="0" y="0" width="390" height="844" index="0">
  <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" value="Welcome" name="Welcome" label="Welcome" enabled="true" visible="true" accessible="true" x="100" y="40" width="200" height="24" index="0"/>
</XCUIElementTypeApplication>"#
            .into(),
        png: argus_tests::adb_peer::solid_png(1170, 2532),
    })
    .await;
    let farm = Farm::start(FarmOptions {
        platform: argus_protocol::Platform::Ios,
        drivers: argus_worker::DriverConfig {
            wda_url: wda.url.clone(),
            bundle_id: Some("com.example.shop".into()),
            ..argus_worker::DriverConfig::default()
        },
        ..Default::default()
    })
    .await;
    watched_by_screenshots(&farm, "ios", [1170, 2532], (355, 768)).await;
}
