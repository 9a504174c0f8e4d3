//! Pins the pixel channel of the worker's perception stage on a real app with no
//! accessibility tree at all: Debian's `xterm` under the desktop worker. The script types
//! `echo hello-argus` into the focused window (the tree offers nothing to type into), presses
//! Enter and asserts the screen contains `hello-argus` — which only OCR can see. The effect is
//! read independently from xterm's own output log (`-l -lf`), which the worker never reads:
//! the shell printed `hello-argus` on a line of its own. The records say which channel the
//! arbiter chose and why (`pixel`, "no elements in the tree"), and a `tap "hello-argus"` finds
//! the OCR-only word as its target (`source: ocr`, with its confidence).
//!
//! Also here: GTK 4 (`gnome-text-editor`) read through the tree, and the bench frames'
//! regenerator. Skipped (with a message) when Xvfb, the app or the OCR models are missing —
//! failed instead under `ARGUS_REQUIRE_ALL=1` (CI): `deploy/dev-up.sh` installs the tools,
//! `deploy/models.sh` the models.

use std::path::Path;
use std::time::Duration;

use argus_protocol::Platform;
use argus_tests::require::{require, require_programs};
use argus_tests::{Farm, FarmOptions};
use argus_worker::DriverConfig;
use serde_json::json;

/// Whether the OCR runtime and models are in the worker's default models folder
/// (through [`require`]).
fn ocr_models() -> bool {
    let models = DriverConfig::default().models_dir;
    require(
        &format!("OCR runtime and models in {}", models.display()),
        argus_perception::ocr::models_present(&models),
        "run deploy/models.sh",
    )
}

/// Xvfb, D-Bus, xterm and the OCR models (through [`require`]).
fn ready() -> bool {
    require_programs(
        &["Xvfb", "dbus-daemon", "xterm"],
        "deploy/dev-up.sh installs them (apt-get install -y xvfb dbus xterm)",
    ) && ocr_models()
}

/// xterm with a readable TrueType font, a plain shell, and its output logged to `log`.
fn xterm_command(log: &Path) -> String {
    format!(
        "xterm -geometry 80x20+0+0 -fa 'DejaVu Sans Mono' -fs 14 -l -lf {} -e /bin/sh",
        log.display()
    )
}

/// Lines of xterm's log, carriage returns and escape sequences left in.
fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read(log)
        .map(|b| {
            String::from_utf8_lossy(&b)
                .split(['\n', '\r'])
                .map(|l| l.trim().to_string())
                .collect()
        })
        .unwrap_or_default()
}

const SCRIPT: &str = r#"type "echo hello-argus"
press Enter
assert screen contains "hello-argus"
tap "hello-argus""#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn xterm_echo_is_read_back_through_ocr() {
    if !ready() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("argus-xterm-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // xterm runs as the slot user: it must be able to write its log here.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let log = dir.join("xterm.log");
    let farm = Farm::start(FarmOptions {
        platform: Platform::Desktop,
        drivers: DriverConfig {
            launch: Some(xterm_command(&log)),
            screen: (800, 480),
            desktop_slot_user: "argus-slot2".into(),
            ..DriverConfig::default()
        },
        ..Default::default()
    })
    .await;
    let run_id = farm
        .submit(&json!({"platform": "desktop", "instruction": SCRIPT}))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:#?}",
        d.error,
        d.steps
    );
    assert_eq!(d.steps.len(), 4);
    // The independent read: the shell printed the line (not only echoed the typed input).
    let lines = log_lines(&log);
    assert!(
        lines.iter().any(|l| l == "hello-argus"),
        "xterm's log has no output line hello-argus: {lines:?}"
    );
    // The assertion was answered by the pixel channel, and the record says why.
    let assert_rec = &d.steps[2].actions[0];
    let p = assert_rec.perception.as_ref().expect("perception note");
    assert_eq!(p.channel, "pixel", "{p:?}");
    assert!(p.reason.contains("no elements in the tree"), "{p:?}");
    assert!(p.ocr_elements >= 1, "{p:?}");
    // An OCR-only word is a tap target, tapped at its box centre and marked as OCR's.
    let tap = &d.steps[3].actions[0];
    let t = tap.target.as_ref().expect("tap target");
    assert_eq!(t.source.as_deref(), Some("ocr"), "{t:?}");
    assert!(t.confidence.is_some_and(|c| c > 0.5), "{t:?}");
    assert_eq!(t.name, "hello-argus", "{t:?}");
    let typed = &d.steps[0].actions[0];
    assert_eq!(
        typed.disposition.as_str(),
        "delivered_unverified",
        "{typed:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The stage without the farm: an OCR-only word is a tap target with `source: ocr`, and a
/// worker whose pixel channel is off perceives the same screen as empty and says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xterm_words_are_elements_only_through_the_pixel_channel() {
    use argus_perception::Source;
    use argus_worker::device::desktop::session::Session;
    use argus_worker::device::desktop::DesktopDevice;
    use argus_worker::device::prelude::*;
    use argus_worker::perceive::{Perceiver, PixelChannel};
    if !ready() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("argus-xterm-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let log = dir.join("xterm.log");
    let session = Session::start(&dir, 800, 480).await.expect("session");
    let mut dev = DesktopDevice::new(session, (800, 480), Some(xterm_command(&log)));
    dev.begin().await.expect("xterm starts");
    dev.type_focused("echo Play").await.expect("typed");
    dev.key(argus_protocol::Key::Enter).await.expect("enter");
    tokio::time::sleep(Duration::from_millis(500)).await;

    let mut off = Perceiver::new(PixelChannel::off("test"));
    let t0 = std::time::Instant::now();
    let blind = off.observe(&mut dev, 1).await.expect("observe");
    let tree_ms = t0.elapsed().as_secs_f64() * 1e3;
    assert!(blind.elements.is_empty(), "{:?}", blind.elements);
    assert!(!blind.contains_text("Play"));
    assert_eq!(blind.perceived.pixel_note.as_deref(), Some("test"));

    let pixel = PixelChannel::load_async(&DriverConfig::default()).await;
    assert!(pixel.is_on());
    let mut stage = Perceiver::new(pixel);
    let t0 = std::time::Instant::now();
    let obs = stage.observe(&mut dev, 2).await.expect("observe");
    eprintln!(
        "xterm 800x480 observation: tree only {tree_ms:.0} ms, with the pixel channel {:.0} ms (pixel {:.0} ms, {} elements)",
        t0.elapsed().as_secs_f64() * 1e3,
        obs.perceived.pixel_ms,
        obs.elements.len()
    );
    assert_eq!(obs.perceived.channel, "pixel", "{:?}", obs.perceived);
    assert!(obs.contains_text("Play"), "{}", obs.text);
    let play: Vec<_> = obs
        .elements
        .iter()
        .filter(|e| e.source == Source::Ocr && e.name.trim() == "Play")
        .collect();
    assert_eq!(play.len(), 1, "{:#?}", obs.elements);
    let (cx, cy) = play[0].bbox_px.center();
    assert!(cx > 0.0 && cx < 800.0 && cy > 0.0 && cy < 480.0);
    // Tapping it goes to its box centre (no AT-SPI object behind it).
    dev.tap(play[0]).await.expect("tap an OCR word");
    dev.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Regenerates the perception bench's real desktop frames (`perception/tests/fixtures/desktop/`,
/// 1280×800): a full screen of xterm text (no tree) and mousepad with a document (its AT-SPI
/// tree as JSON beside the screenshot). Run by hand:
/// `CAPTURE_OUT=perception/tests/fixtures/desktop cargo test -p argus-tests --test e2e
/// capture_bench_frames -- --ignored`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn capture_bench_frames() {
    use argus_worker::device::desktop::session::Session;
    use argus_worker::device::desktop::DesktopDevice;
    use argus_worker::device::prelude::*;
    let out = std::path::PathBuf::from(std::env::var("CAPTURE_OUT").expect("CAPTURE_OUT"));
    let xterm = "xterm -geometry 120x40+0+0 -fa 'DejaVu Sans Mono' -fs 12 -e /bin/sh -c \
                 'ls -la /usr/share/doc | head -60; sleep 100'";
    for (name, cmd) in [
        ("xterm", xterm),
        ("mousepad", "mousepad /usr/share/common-licenses/Apache-2.0"),
    ] {
        let dir = std::env::temp_dir().join(format!("argus-cap-{}", uuid::Uuid::new_v4().simple()));
        let session = Session::start(&dir, 1280, 800).await.expect("session");
        let mut dev = DesktopDevice::new(session, (1280, 800), Some(cmd.into()));
        dev.begin().await.expect("starts");
        tokio::time::sleep(Duration::from_secs(2)).await;
        let png = dev.screenshot().await.expect("screenshot");
        std::fs::write(out.join(format!("{name}.png")), png).expect("write png");
        if name == "mousepad" {
            let root = dev.atspi_snapshot().await.expect("snapshot");
            let json = serde_json::to_string(&root).expect("json");
            std::fs::write(out.join(format!("{name}_atspi.json")), json).expect("write json");
        }
        dev.shutdown().await;
    }
}

/// GTK 4 through the tree: `gnome-text-editor` used to read as one empty window (GTK 4 sets
/// no `showing` state inside a shown window, and names its text view `text box`). A line typed
/// into its text view is asserted through the tree, and read back independently by OCR'ing
/// the run's last screenshot in the test.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn gnome_text_editor_reads_through_the_tree() {
    use argus_perception::ocr::{OcrConfig, OcrEngine};
    if !ready() {
        return;
    }
    if !require_programs(
        &["gnome-text-editor"],
        "deploy/dev-up.sh installs it (apt-get install -y gnome-text-editor)",
    ) {
        return;
    }
    let farm = Farm::start(FarmOptions {
        platform: Platform::Desktop,
        drivers: DriverConfig {
            launch: Some("gnome-text-editor".into()),
            screen: (1024, 700),
            desktop_slot_user: "argus-slot3".into(),
            ..DriverConfig::default()
        },
        ..Default::default()
    })
    .await;
    let script = r#"type "hello from gtk four" into the textfield below "New Document"
assert screen contains "hello from gtk four""#;
    let run_id = farm
        .submit(&json!({"platform": "desktop", "instruction": script}))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:#?}",
        d.error,
        d.steps
    );
    let typed = &d.steps[0].actions[0];
    let t = typed.target.as_ref().expect("typed into an element");
    assert_eq!(
        (t.role.as_str(), t.source.as_deref()),
        ("textfield", Some("tree")),
        "{t:?}"
    );
    let check = &d.steps[1].actions[0];
    let p = check.perception.as_ref().expect("perception note");
    assert_eq!(p.channel, "tree", "the tree answered: {p:?}");
    // Independent read: the pixels of the last screenshot show the line.
    let key = check.after_key.as_ref().expect("after screenshot");
    let png = farm.s3_get(key).await.expect("screenshot in S3");
    let img = image::load_from_memory(&png).expect("png").to_rgb8();
    let mut ocr = OcrEngine::open(&DriverConfig::default().models_dir, OcrConfig::default())
        .expect("OCR engine");
    let lines: Vec<String> = ocr
        .recognize(&img)
        .expect("ocr")
        .into_iter()
        .map(|l| l.text)
        .collect();
    assert!(
        lines.iter().any(|l| l.contains("hello from gtk four")),
        "the screenshot shows: {lines:?}"
    );
}

/// A web page whose controls are drawn on a `<canvas>` (npm `chart.js`): the tree has nothing
/// to tap, so the arbiter reads pixels from the first frame; `tap "Pears"` finds the legend
/// label by OCR and clicks its box centre, which hides the dataset. The effect is read from
/// the chart itself (`chart.isDatasetVisible`, reported by the page to the test server), never
/// from the worker's own "ok".
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn chart_legend_on_a_canvas_is_tapped_through_ocr() {
    use argus_tests::site::Site;
    if !ocr_models() {
        return;
    }
    let services = argus_tests::Services::from_env();
    if !require(
        &format!("chart.js at {}", services.chartjs.display()),
        services.chartjs.is_file(),
        "deploy/dev-up.sh installs npm chart.js there (or set ARGUS_CHARTJS)",
    ) {
        return;
    }
    // The site first: the worker's navigation policy allows exactly its port.
    let site = Site::start_with(services.todomvc_dir.clone(), Some(services.chartjs.clone())).await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let token = format!("chart-{}", farm.token);
    let run_id = farm
        .submit(&json!({
            "platform": "web",
            "start_url": site.page_url("chart.html", &token),
            "instruction": "wait for \"Pears\"\ntap \"Pears\"",
        }))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(180)).await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:#?}",
        d.error,
        d.steps
    );
    let tap = d.steps.last().expect("steps").actions.last().expect("tap");
    let t = tap.target.as_ref().expect("tap target");
    assert_eq!(
        (t.name.as_str(), t.source.as_deref()),
        ("Pears", Some("ocr")),
        "{t:?}"
    );
    let p = tap.perception.as_ref().expect("perception note");
    assert_eq!(p.channel, "pixel", "{p:?}");
    // The chart's own state, reported by the page: Pears hidden, Apples untouched.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let count = site.state(&token).and_then(|s| s.count);
        if count.as_deref() == Some("Apples=shown Pears=hidden") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the chart reports {count:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
