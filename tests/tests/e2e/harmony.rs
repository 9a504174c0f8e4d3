//! Pins the HarmonyOS driver at the protocol level: a `--platform harmony --hdc <stand-in>`
//! worker in the farm registers the device's model / OS / screen, observes through
//! `uitest dumpLayout` (a real-format layout fixture) and `snapshot_display` + `file recv`,
//! and runs a job whose every hdc invocation is asserted verbatim — each one through the
//! configured hdc executable, the device command as one argument, so typing
//! "hello world 你好" is one `uitest uiInput inputText` with the text single-quoted, a double
//! tap one `uitest uiInput doubleClick`, and a tap on the dump's disabled Connect button fails
//! without sending anything.
//! Also pins target selection (never the first of several).

use std::time::Duration;

use argus_protocol::Platform;
use argus_tests::adb_peer::solid_png;
use argus_tests::hdc_stub::HdcStub;
use argus_tests::{jpeg_size, stored_size, Farm, FarmOptions};
use argus_worker::DriverConfig;
use serde_json::json;

const KEY: &str = "FMR0223C13000649";

fn stub(dir: &std::path::Path, targets: &[&str]) -> HdcStub {
    let layout = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../perception/tests/fixtures/harmony_wlan.json"
    ));
    let png = dir.join("screen.png");
    std::fs::create_dir_all(dir).expect("dir");
    std::fs::write(&png, solid_png(1260, 2720)).expect("png");
    HdcStub::create(dir, targets, &layout, &png)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn harmony_job_sends_exact_hdc_commands() {
    let dir = std::env::temp_dir().join(format!("argus-hdc-{}", uuid::Uuid::new_v4().simple()));
    let hdc = stub(&dir, &[KEY]);
    let farm = Farm::start(FarmOptions {
        platform: Platform::Harmony,
        drivers: DriverConfig {
            hdc: hdc.path.clone(),
            ..DriverConfig::default()
        },
        ..Default::default()
    })
    .await;
    let labels: (serde_json::Value,) =
        sqlx::query_as("select to_jsonb(labels) from devices limit 1")
            .fetch_one(&farm.pool)
            .await
            .expect("device row");
    let l = &labels.0;
    assert_eq!(l["platform"], "harmony", "{l}");
    assert_eq!(l["serial"], KEY, "{l}");
    assert_eq!(l["model"], "ALN-AL00", "{l}");
    assert_eq!(l["screen"], "1260x2720", "{l}");

    let run_id = farm
        .submit(&json!({"platform": "harmony", "instruction":
            "type \"hello world 你好\" into \"Network name (SSID)\"\ndouble tap \"Cafe Guest\"\npress Enter"}))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(60)).await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:#?}",
        d.error,
        d.steps
    );

    let calls = hdc.calls();
    let exe = hdc.path.to_string_lossy().to_string();
    assert!(
        calls.iter().all(|c| c[0] == exe),
        "every command runs the configured hdc: {calls:#?}"
    );
    let acts: Vec<Vec<String>> = calls
        .iter()
        .map(|c| c[1..].to_vec())
        .filter(|a| {
            a.get(3)
                .is_some_and(|cmd| cmd.starts_with("uitest uiInput"))
        })
        .collect();
    // SSID field [84,1149][1176,1269] → (630, 1209); the "Cafe Guest" row
    // [36,765][1224,933] → (630, 849).
    let want: Vec<Vec<String>> = [
        "uitest uiInput inputText 630 1209 'hello world 你好'",
        "uitest uiInput doubleClick 630 849",
        "uitest uiInput keyEvent 2054",
    ]
    .iter()
    .map(|cmd| vec!["-t".into(), KEY.into(), "shell".into(), cmd.to_string()])
    .collect();
    assert_eq!(acts, want, "all calls: {calls:#?}");
    assert!(
        calls.iter().any(|c| c.len() == 7
            && c[1..6] == ["-t", KEY, "file", "recv", "/data/local/tmp/argus-shot.png"]),
        "screenshots are fetched with hdc file recv: {calls:#?}"
    );
    let shot = d.steps[0].actions[0]
        .before_key
        .clone()
        .expect("screenshot");
    let stored = farm.s3_get(&shot).await.expect("in S3");
    // Stored as a JPEG, scaled to the bound.
    assert_eq!(jpeg_size(&stored), Some(stored_size(1260, 2720)));

    // The dump's Connect button is disabled (`enabled: false`): the tap waits, then fails
    // saying so, and no click reaches the device.
    let before = hdc.calls().len();
    let run_id = farm
        .submit(
            &json!({"platform": "harmony", "instruction": "tap \"Connect\"",
            "auto_wait_ms": 300}),
        )
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(60)).await;
    assert_eq!(d.status.as_str(), "failed");
    assert!(
        d.error.as_deref().is_some_and(|e| e.contains("disabled")),
        "{:?}",
        d.error
    );
    assert!(
        !hdc.calls()[before..]
            .iter()
            .any(|c| c.iter().any(|a| a.contains("uiInput click"))),
        "no click was sent"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn harmony_target_selection_never_guesses() {
    use argus_worker::slots::open_device;
    let dir = std::env::temp_dir().join(format!("argus-hdc-{}", uuid::Uuid::new_v4().simple()));
    let two = stub(&dir.join("two"), &[KEY, "127.0.0.1:5555"]);
    let cfg = DriverConfig {
        hdc: two.path.clone(),
        ..DriverConfig::default()
    };
    let msg = format!(
        "{:#}",
        open_device(Platform::Harmony, &cfg, &dir)
            .await
            .err()
            .expect("two targets")
    );
    assert!(msg.contains("--serial") && msg.contains(KEY), "{msg}");
    let none = stub(&dir.join("none"), &[]);
    let cfg = DriverConfig {
        hdc: none.path.clone(),
        ..DriverConfig::default()
    };
    let msg = format!(
        "{:#}",
        open_device(Platform::Harmony, &cfg, &dir)
            .await
            .err()
            .expect("no target")
    );
    assert!(msg.contains("no HarmonyOS device"), "{msg}");
    let cfg = DriverConfig {
        hdc: dir.join("missing-hdc"),
        ..DriverConfig::default()
    };
    let msg = format!(
        "{:#}",
        open_device(Platform::Harmony, &cfg, &dir)
            .await
            .err()
            .expect("no hdc")
    );
    assert!(
        msg.contains("missing-hdc") && msg.contains("--hdc"),
        "{msg}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
