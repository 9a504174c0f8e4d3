//! Pins the Electron driver with Debian's Chromium standing in for an Electron app (same
//! DevTools protocol): the app is started by the test with `--remote-debugging-port` and a
//! device pixel ratio of 2, and has two windows; a `--platform electron --cdp-url …` worker
//! attaches, acts on the newest window (types, taps, reads the result back), takes
//! screenshots in device px (CSS size × 2, stored scaled to the bound), and after the run the app and both windows are
//! still there — Argus never closes what it did not start.

use std::process::Stdio;
use std::time::{Duration, Instant};

use argus_protocol::Platform;
use argus_tests::require::require;
use argus_tests::{jpeg_size, stored_size, Farm, FarmOptions};
use argus_worker::DriverConfig;
use serde_json::{json, Value};

const PAGE: &str = r#"<!doctype html><title>Greeter</title>
<input placeholder="Name" aria-label="Name">
<button onclick="document.getElementById('out').textContent = 'Hello, ' + document.querySelector('input').value">Greet</button>
<p id="out"></p>"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn electron_attach_drives_newest_window_and_leaves_the_app_running() {
    let chromium = std::env::var("ARGUS_CHROMIUM").unwrap_or("/usr/lib/chromium/chromium".into());
    if !require(
        &format!("Chromium at {chromium}"),
        std::path::Path::new(&chromium).exists(),
        "deploy/dev-up.sh installs it (apt-get install -y chromium), or set ARGUS_CHROMIUM",
    ) {
        return;
    }
    let dir =
        std::env::temp_dir().join(format!("argus-electron-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("dir");
    let page = dir.join("greeter.html");
    std::fs::write(&page, PAGE).expect("page");
    let profile = dir.join("profile");
    let mut app = tokio::process::Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--force-device-scale-factor=2",
            "--window-size=900,700",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("data:text/html,<title>Old window</title><p>old</p>")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the stand-in app");
    let deadline = Instant::now() + Duration::from_secs(30);
    let port = loop {
        if let Ok(s) = std::fs::read_to_string(profile.join("DevToolsActivePort")) {
            if let Some(p) = s.lines().next().and_then(|l| l.trim().parse::<u16>().ok()) {
                break p;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the stand-in app opened no DevTools port"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    // A second, newer window: the one the worker must drive.
    http.put(format!("{base}/json/new?file://{}", page.display()))
        .send()
        .await
        .expect("open the second window");
    tokio::time::sleep(Duration::from_millis(500)).await;

    let farm = Farm::start(FarmOptions {
        platform: Platform::Electron,
        drivers: DriverConfig {
            cdp_url: Some(base.clone()),
            ..DriverConfig::default()
        },
        ..Default::default()
    })
    .await;
    let labels: (Value,) = sqlx::query_as("select to_jsonb(labels) from devices limit 1")
        .fetch_one(&farm.pool)
        .await
        .expect("device row");
    assert_eq!(labels.0["platform"], "electron", "{}", labels.0);
    // The window is 900 CSS px wide (its height loses the headless window frame): ×2.
    let screen: Vec<u32> = labels.0["screen"]
        .as_str()
        .unwrap_or("")
        .split('x')
        .filter_map(|v| v.parse().ok())
        .collect();
    assert!(
        screen.len() == 2 && screen[0] == 1800 && screen[1] > 1000,
        "{}",
        labels.0
    );

    let run_id = farm
        .submit(&json!({"platform": "electron", "instruction":
            "type \"Ada\" into \"Name\"\ntap \"Greet\"\nassert screen contains \"Hello, Ada\""}))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(60)).await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:#?}",
        d.error,
        d.steps
    );
    assert_eq!(
        d.steps[0].actions[0].disposition.as_str(),
        "delivered_verified"
    );
    let shot = d.steps[2].actions[0].after_key.clone().expect("screenshot");
    let jpeg = farm.s3_get(&shot).await.expect("in S3");
    // Device px (CSS px × DPR 2), scaled by Chromium to the stored bound: its rounding of
    // the short side may differ from ours by a pixel.
    let (w, h) = jpeg_size(&jpeg).expect("a JPEG");
    let want = stored_size(screen[0], screen[1]);
    assert!(
        w == want.0 && h.abs_diff(want.1) <= 1,
        "screenshots are CSS px × DPR 2 within the stored bound: {w}x{h}, want {want:?}"
    );

    drop(farm);
    assert!(
        matches!(app.try_wait(), Ok(None)),
        "the app Argus attached to must still run"
    );
    let pages: Vec<Value> = http
        .get(format!("{base}/json/list"))
        .send()
        .await
        .expect("json/list")
        .json()
        .await
        .expect("json");
    let urls: Vec<&str> = pages
        .iter()
        .filter(|p| p["type"] == "page")
        .filter_map(|p| p["url"].as_str())
        .collect();
    assert_eq!(urls.len(), 2, "both windows are still open: {urls:?}");
    let _ = app.kill().await;
    let _ = std::fs::remove_dir_all(&dir);
}
