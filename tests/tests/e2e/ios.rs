//! Pins the iOS driver at the protocol level against a loopback WebDriverAgent stand-in
//! (`argus_tests::wda_peer`, WDA-format JSON) showing a **landscape** iPhone screen: window
//! 844×390 points at scale 3, screenshots 2532×1170 px. The worker registers the pixel size,
//! element boxes come back in pixels, and every action is sent in points (the W3C touch
//! pointer lands on the element's centre in points, not pixels); text (Chinese included)
//! goes through `/wda/keys`, Enter as `"\n"`; each run has its own WDA session, launched
//! with `--bundle-id` and deleted at teardown. A key XCTest cannot type fails closed.

use std::time::Duration;

use argus_protocol::Platform;
use argus_tests::adb_peer::solid_png;
use argus_tests::wda_peer::{Screen, WdaPeer};
use argus_tests::{jpeg_size, stored_size, Farm, FarmOptions};
use argus_worker::DriverConfig;
use serde_json::{json, Value};

const SOURCE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Shop" label="Shop" enabled="true" visible="true" accessible="false" x="0" y="0" width="844" height="390" index="0">
  <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true" accessible="false" x="0" y="0" width="844" height="390" index="0">
    <XCUIElementTypeOther type="XCUIElementTypeOther" enabled="true" visible="true" accessible="false" x="0" y="0" width="844" height="390" index="0">
      <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" value="Welcome back" name="Welcome back" label="Welcome back" enabled="true" visible="true" accessible="true" x="322" y="40" width="200" height="24" index="0"/>
      <XCUIElementTypeTextField type="XCUIElementTypeTextField" value="Email" name="email" placeholderValue="Email" enabled="true" visible="true" accessible="true" x="222" y="100" width="400" height="44" index="1"/>
      <XCUIElementTypeButton type="XCUIElementTypeButton" name="signIn" label="Sign In" enabled="true" visible="true" accessible="true" x="322" y="200" width="200" height="50" index="2"/>
    </XCUIElementTypeOther>
  </XCUIElementTypeWindow>
</XCUIElementTypeApplication>"#;

async fn peer() -> WdaPeer {
    WdaPeer::start(Screen {
        size_pt: (844.0, 390.0),
        scale: 3.0,
        source: SOURCE.into(),
        png: solid_png(2532, 1170),
    })
    .await
}

fn touch_at(body: &Value) -> (f64, f64) {
    let a = &body["actions"][0]["actions"][0];
    assert_eq!(a["type"], "pointerMove", "{body}");
    assert_eq!(
        body["actions"][0]["parameters"]["pointerType"], "touch",
        "{body}"
    );
    (
        a["x"].as_f64().unwrap_or(-1.0),
        a["y"].as_f64().unwrap_or(-1.0),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ios_landscape_job_acts_in_points() {
    let wda = peer().await;
    let farm = Farm::start(FarmOptions {
        platform: Platform::Ios,
        drivers: DriverConfig {
            wda_url: wda.url.clone(),
            bundle_id: Some("com.example.shop".into()),
            ..DriverConfig::default()
        },
        ..Default::default()
    })
    .await;
    let labels: (Value,) = sqlx::query_as("select to_jsonb(labels) from devices limit 1")
        .fetch_one(&farm.pool)
        .await
        .expect("device row");
    assert_eq!(labels.0["screen"], "2532x1170", "{}", labels.0);
    assert_eq!(labels.0["os_version"], "17.4", "{}", labels.0);

    let run_id = farm
        .submit(&json!({"platform": "ios", "instruction":
            "type \"hello 你好\" into \"Email\"\ntap \"Sign In\"\npress Enter"}))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(60)).await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:#?}",
        d.error,
        d.steps
    );

    let calls = wda.calls();
    let start = calls
        .iter()
        .position(|(m, p, b)| {
            m == "POST"
                && p == "/session"
                && b["capabilities"]["alwaysMatch"]["bundleId"] == "com.example.shop"
        })
        .expect("the run's session launched the bundle");
    let run: Vec<&(String, String, Value)> = calls[start + 1..].iter().collect();
    let paths: Vec<&str> = run.iter().map(|(_, p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        ["/actions", "/wda/keys", "/actions", "/wda/keys", ""],
        "{run:#?}"
    );
    // Email field: (222, 100, 400×44) pt → centre (422, 122) pt; Sign In (322, 200, 200×50)
    // → (422, 225) pt. Pixels would be three times that.
    assert_eq!(touch_at(&run[0].2), (422.0, 122.0));
    assert_eq!(
        run[1].2,
        json!({"value": ["h", "e", "l", "l", "o", " ", "你", "好"]})
    );
    assert_eq!(touch_at(&run[2].2), (422.0, 225.0));
    assert_eq!(run[3].2, json!({"value": ["\n"]}));
    assert_eq!(run[4].0, "DELETE", "teardown deletes the session");
    assert_eq!(wda.open_sessions(), 0);

    let t = d.steps[1].actions[0].target.clone().expect("target");
    assert_eq!(
        t.bbox_px,
        [966.0, 600.0, 600.0, 150.0],
        "boxes are reported in pixels"
    );
    let shot = d.steps[0].actions[0].before_key.clone().expect("shot");
    let stored = farm.s3_get(&shot).await.expect("in S3");
    // Stored as a JPEG, scaled to the bound.
    assert_eq!(jpeg_size(&stored), Some(stored_size(2532, 1170)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ios_unsupported_key_fails_closed() {
    use argus_worker::slots::open_device;
    let wda = peer().await;
    let cfg = DriverConfig {
        wda_url: wda.url.clone(),
        ..DriverConfig::default()
    };
    let mut o = open_device(Platform::Ios, &cfg, &std::env::temp_dir())
        .await
        .expect("open");
    o.device.begin().await.expect("session");
    let e = o
        .device
        .key(argus_protocol::Key::ArrowUp)
        .await
        .expect_err("arrow keys cannot be typed by XCTest");
    assert!(e.message.contains("not supported on ios"), "{}", e.message);
    assert_eq!(e.disposition.as_str(), "not_delivered");
    let before = wda.calls().len();
    o.device.end().await.expect("end");
    assert_eq!(wda.calls().len(), before + 1);
    assert_eq!(wda.open_sessions(), 0);
    let bad = DriverConfig {
        wda_url: "http://127.0.0.1:9".into(),
        ..DriverConfig::default()
    };
    let msg = format!(
        "{:#}",
        open_device(Platform::Ios, &bad, &std::env::temp_dir())
            .await
            .err()
            .expect("no WDA")
    );
    assert!(msg.contains("127.0.0.1:9"), "{msg}");
}
