//! Pins the Android driver at the protocol level: a `--platform android` worker in the farm
//! talks to a loopback ADB server stand-in (`argus_tests::adb_peer`, the real smart-socket
//! protocol, shell v2 packets) with two phones attached, selects the one named by `--serial`,
//! registers its model / OS / screen labels, and runs a job whose every device command is
//! asserted verbatim: taps at element centres in device px, `input text` quoting (spaces as
//! `%s`, `'` as `'\''`), the ADB Keyboard route for Chinese (base64 broadcast, input method
//! switched and restored), key events, and the bounded `uiautomator dump` retry on
//! "could not get idle state". Also pins device selection (never the first of several)
//! and, when Debian's `adb` is installed, the real server's answers with no phone attached
//! (required under `ARGUS_REQUIRE_ALL=1`, as in CI).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use argus_protocol::Platform;
use argus_tests::adb_peer::{solid_png, AdbPeer, Responder};
use argus_tests::require::require;
use argus_tests::{jpeg_size, stored_size, Farm, FarmOptions};
use argus_worker::DriverConfig;
use serde_json::json;

const LATIN_IME: &str = "com.android.inputmethod.latin/.LatinIME";

fn fixture() -> String {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../perception/tests/fixtures/android_inbox.xml"
    );
    std::fs::read_to_string(p).expect("android fixture")
}

/// A Pixel-like phone: 1080×2400 px at 420 dpi, the inbox dump, ADB Keyboard installed.
/// A tap opens the draft: the dump's "Compose" button then reads "Compose draft" (a tap's
/// effect must be seen, see `argus_worker::effect`).
fn phone() -> Responder {
    let xml = fixture();
    let drafted = xml.replace(r#"text="Compose""#, r#"text="Compose draft""#);
    let png = solid_png(1080, 2400);
    let dumps = Arc::new(AtomicU32::new(0));
    let tapped = Arc::new(AtomicU32::new(0));
    Arc::new(move |cmd: &str| -> (Vec<u8>, u8) {
        if cmd.starts_with("input tap") {
            tapped.fetch_add(1, Ordering::SeqCst);
        }
        let out: Vec<u8> = match cmd {
            "wm size" => b"Physical size: 1080x2400\n".to_vec(),
            "wm density" => b"Physical density: 420\n".to_vec(),
            "getprop ro.product.model" => b"Pixel 7\n".to_vec(),
            "getprop ro.build.version.release" => b"14\n".to_vec(),
            "uiautomator dump /data/local/tmp/argus-window.xml" => {
                // The first dump meets an animating screen, like real devices do.
                if dumps.fetch_add(1, Ordering::SeqCst) == 0 {
                    b"ERROR: could not get idle state.\n".to_vec()
                } else {
                    b"UI hierchary dumped to: /data/local/tmp/argus-window.xml\n".to_vec()
                }
            }
            "cat /data/local/tmp/argus-window.xml" if tapped.load(Ordering::SeqCst) > 0 => {
                drafted.clone().into_bytes()
            }
            "cat /data/local/tmp/argus-window.xml" => xml.clone().into_bytes(),
            "screencap -p" => png.clone(),
            "ime list -s" => format!("{LATIN_IME}\ncom.android.adbkeyboard/.AdbIME\n").into_bytes(),
            "settings get secure default_input_method" => format!("{LATIN_IME}\n").into_bytes(),
            c if c.starts_with("am broadcast") => {
                b"Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n".to_vec()
            }
            _ => Vec::new(),
        };
        (out, 0)
    })
}

/// Commands that observe (asked before and after every step) are left out; what remains is
/// what the job did to the phone.
fn actions(cmds: &[String]) -> Vec<String> {
    cmds.iter()
        .filter(|c| {
            !(c.starts_with("wm ")
                || c.starts_with("getprop ")
                || c.starts_with("uiautomator dump")
                || c.starts_with("cat /data/local/tmp/")
                || c.as_str() == "screencap -p")
        })
        .cloned()
        .collect()
}

const SCRIPT: &str = r#"tap "Compose"
type "it's 5 o'clock" into "Search in mail"
type "hello world 你好" into "Search in mail"
press Enter"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn android_job_sends_exact_adb_commands() {
    let peer = AdbPeer::start(&["emulator-5554", "R58M123ABC"], true, phone()).await;
    let farm = Farm::start(FarmOptions {
        platform: Platform::Android,
        drivers: DriverConfig {
            serial: Some("R58M123ABC".into()),
            adb_server: peer.addr,
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
    assert_eq!(
        (
            &l["platform"],
            &l["serial"],
            &l["model"],
            &l["os_version"],
            &l["screen"]
        ),
        (
            &json!("android"),
            &json!("R58M123ABC"),
            &json!("Pixel 7"),
            &json!("14"),
            &json!("1080x2400")
        ),
        "{l}"
    );

    let run_id = farm
        .submit(&json!({"platform": "android", "instruction": SCRIPT}))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(60)).await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:#?}",
        d.error,
        d.steps
    );

    // Search field bounds [168,84][850,189] → centre (509, 136.5) → 509 137; Compose
    // [647,1937][1038,2105] → (842.5, 2021), which the px → dp → px round trip leaves at
    // 842.4999… → 842: device px, rounded.
    let expected = [
        "input tap 842 2021",
        "input tap 509 137",
        r"input text 'it'\''s%s5%so'\''clock'",
        "ime list -s",
        "settings get secure default_input_method",
        "input tap 509 137",
        "ime enable com.android.adbkeyboard/.AdbIME",
        "ime set com.android.adbkeyboard/.AdbIME",
        // base64("hello world 你好")
        "am broadcast -a ADB_INPUT_B64 --es msg aGVsbG8gd29ybGQg5L2g5aW9",
        "ime set 'com.android.inputmethod.latin/.LatinIME'",
        "input keyevent KEYCODE_ENTER",
    ];
    let all = peer.commands();
    assert_eq!(actions(&all), expected, "all commands: {all:#?}");
    let dumps = all
        .iter()
        .filter(|c| c.starts_with("uiautomator dump"))
        .count();
    let cats = all.iter().filter(|c| c.starts_with("cat ")).count();
    assert_eq!(
        dumps,
        cats + 1,
        "the failed first dump was retried once: {all:#?}"
    );

    let shot = d.steps[0].actions[0].after_key.clone().expect("screenshot");
    let stored = farm.s3_get(&shot).await.expect("screenshot in S3");
    // Stored as a JPEG, scaled to the bound.
    assert_eq!(jpeg_size(&stored), Some(stored_size(1080, 2400)));
    let target = d.steps[1].actions[0].target.clone().expect("target");
    let want = [168.0, 84.0, 682.0, 105.0];
    assert!(
        target
            .bbox_px
            .iter()
            .zip(want)
            .all(|(a, b)| (a - b).abs() < 0.01),
        "boxes come back in device px: {:?}",
        target.bbox_px
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn android_device_selection_never_guesses() {
    use argus_worker::slots::open_device;
    let peer = AdbPeer::start(&["emulator-5554", "R58M123ABC"], false, phone()).await;
    let dir = std::env::temp_dir();
    let two = DriverConfig {
        adb_server: peer.addr,
        ..DriverConfig::default()
    };
    let err = open_device(Platform::Android, &two, &dir)
        .await
        .err()
        .expect("two phones and no --serial must fail");
    let msg = format!("{err:#}");
    assert!(
        msg.contains("--serial") && msg.contains("emulator-5554"),
        "{msg}"
    );
    let missing = DriverConfig {
        serial: Some("nope".into()),
        ..two.clone()
    };
    let msg = format!(
        "{:#}",
        open_device(Platform::Android, &missing, &dir)
            .await
            .err()
            .expect("unknown serial")
    );
    assert!(msg.contains("nope is not attached"), "{msg}");

    // Shell protocol v1 (older devices) works the same way for observing.
    let one = DriverConfig {
        serial: Some("emulator-5554".into()),
        ..two
    };
    let mut opened = open_device(Platform::Android, &one, &dir)
        .await
        .expect("open v1");
    assert_eq!(opened.screen_px, (1080, 2400));
    let obs = argus_worker::perceive::Perceiver::new(Default::default())
        .observe(opened.device.as_mut(), 1)
        .await
        .expect("observe");
    assert!(obs.contains_text("Invitation: Standup 09:30"));
    let search = obs
        .elements
        .iter()
        .find(|e| e.placeholder.as_deref() == Some("Search in mail") || e.name == "Search in mail")
        .expect("search field");
    assert!(
        (search.bbox_logical.w - 682.0 / 2.625).abs() < 0.01,
        "dp = px / density"
    );
    let err = opened.device.type_text(search, "100%").await.err();
    assert!(err.is_none(), "`%` goes the IME route: {err:?}");
    assert!(peer
        .commands()
        .iter()
        .any(|c| c == "am broadcast -a ADB_INPUT_B64 --es msg MTAwJQ=="));
}

/// Debian's real `adb` server on a private port: it starts, lists no devices, and the
/// driver says so instead of picking anything; then it is stopped again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn android_against_real_adb_server_with_no_phone() {
    use argus_worker::device::android::adb::{ensure_server, list_devices};
    use argus_worker::slots::open_device;
    let adb = std::process::Command::new("adb").arg("version").output();
    if !require(
        "adb",
        adb.is_ok(),
        "deploy/dev-up.sh installs Debian's adb (apt-get install -y adb)",
    ) {
        return;
    }
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
        l.local_addr().expect("addr").port()
    };
    let addr = std::net::SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, port);
    tokio::task::spawn_blocking(move || ensure_server(addr))
        .await
        .expect("join")
        .expect("adb start-server");
    let listed = tokio::task::spawn_blocking(move || list_devices(addr))
        .await
        .expect("join")
        .expect("host:devices");
    let cfg = DriverConfig {
        adb_server: addr,
        ..DriverConfig::default()
    };
    let err = open_device(Platform::Android, &cfg, &std::env::temp_dir())
        .await
        .err()
        .map(|e| format!("{e:#}"));
    let stop = std::process::Command::new("adb")
        .args(["-P", &port.to_string(), "kill-server"])
        .output()
        .expect("adb kill-server");
    assert!(
        listed.is_empty(),
        "no phone can be attached here: {listed:?}"
    );
    let err = err.expect("no device must fail");
    assert!(err.contains("no Android device is attached"), "{err}");
    assert!(stop.status.success());
    let after = tokio::task::spawn_blocking(move || list_devices(addr))
        .await
        .expect("join");
    assert!(after.is_err(), "the server still answers after kill-server");
}
