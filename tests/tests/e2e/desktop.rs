//! Pins the Linux desktop driver end to end on a real GTK app from Debian: a coordinator
//! dispatches over NATS to a `--platform desktop --launch mousepad` worker, which runs the app
//! in its own Xvfb + session D-Bus, types two lines through AT-SPI (EditableText at the caret,
//! a real Return key in between) and reads them back through the accessibility tree. Each
//! `type` is verified by re-reading the text view's content (`delivered_verified`), the final
//! assertion reads the tree again, and every screenshot is a JPEG of the whole X screen.
//!
//! Skipped (with a message) when Xvfb or mousepad is missing: `deploy/dev-up.sh` installs them.

use std::time::Duration;

use argus_protocol::Platform;
use argus_tests::require::require_programs;
use argus_tests::{jpeg_size, Farm, FarmOptions};
use argus_worker::DriverConfig;
use serde_json::json;

/// How to install the desktop test stack.
const DESKTOP_TOOLS: &str =
    "deploy/dev-up.sh installs them (apt-get install -y xvfb dbus mousepad)";

const SCRIPT: &str = r#"type "first line" into the textfield below "File"
press Enter
type "second line, 你好" into the textfield below "File"
assert screen contains "first line"
assert screen contains "second line, 你好""#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn mousepad_types_two_lines_and_reads_them_back() {
    if !require_programs(&["Xvfb", "dbus-daemon", "mousepad"], DESKTOP_TOOLS) {
        return;
    }
    let farm = Farm::start(FarmOptions {
        platform: Platform::Desktop,
        drivers: DriverConfig {
            launch: Some("mousepad".into()),
            screen: (1024, 768),
            // Its own slot user: tests run side by side, and a run's end kills every
            // process of its slot user.
            desktop_slot_user: "argus-slot0".into(),
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
    assert_eq!(labels.0["platform"], "desktop", "{}", labels.0);
    assert_eq!(labels.0["app"], "mousepad", "{}", labels.0);
    assert_eq!(labels.0["screen"], "1024x768", "{}", labels.0);

    let run_id = farm
        .submit(&json!({"platform": "desktop", "instruction": SCRIPT}))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(120)).await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:#?}",
        d.error,
        d.steps
    );
    assert_eq!(d.steps.len(), 5);
    for i in [0, 2] {
        let a = &d.steps[i].actions[0];
        assert_eq!(
            a.disposition.as_str(),
            "delivered_verified",
            "step {} was not read back: {a:?}",
            i + 1
        );
        let t = a.target.as_ref().expect("typed into an element");
        assert_eq!(t.role, "textfield", "{t:?}");
    }
    for s in &d.steps {
        for a in &s.actions {
            for key in [&a.before_key, &a.after_key] {
                let key = key.as_ref().expect("screenshot key");
                let shot = farm.s3_get(key).await.expect("screenshot in S3");
                assert_eq!(jpeg_size(&shot), Some((1024, 768)), "{key}");
            }
        }
    }
}

/// Every accessible's `(role name, text)` under the registry, read with plain AT-SPI calls
/// written here (not the driver's walker): the independent observation.
async fn texts_on_bus(dbus_address: &str) -> Vec<(String, String)> {
    use argus_worker::device::desktop::atspi::proxy::accessible::{AccessibleProxy, ObjectRefExt};
    use argus_worker::device::desktop::atspi::proxy::text::TextProxy;
    use argus_worker::device::desktop::atspi::zbus;
    let conn = argus_worker::device::desktop::connect_a11y(dbus_address)
        .await
        .expect("a11y bus");
    let root = AccessibleProxy::builder(&conn)
        .destination("org.a11y.atspi.Registry")
        .expect("dest")
        .path("/org/a11y/atspi/accessible/root")
        .expect("path")
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .expect("registry root");
    let mut out = Vec::new();
    let mut stack = root.get_children().await.expect("apps");
    while let Some(obj) = stack.pop() {
        let Ok(acc) = obj.as_accessible_proxy(&conn).await else {
            continue;
        };
        let role = acc.get_role_name().await.unwrap_or_default();
        if role == "text" {
            let t = TextProxy::builder(&conn)
                .destination(obj.name().expect("bus name").clone())
                .expect("dest")
                .path(obj.path().clone())
                .expect("path")
                .build()
                .await
                .expect("text proxy");
            out.push((role.clone(), t.get_text(0, -1).await.unwrap_or_default()));
        }
        if out.len() > 2000 {
            break;
        }
        stack.extend(acc.get_children().await.unwrap_or_default());
    }
    out
}

/// Pins the driver's own contract without the farm: the text typed (two lines, a real Return
/// key between them, Chinese included) is what an independent AT-SPI reader finds in the
/// text view; a tap on a menu runs the menu's own `click` action (its items appear); `end`
/// stops the launched app (it leaves the bus) and `shutdown` stops Xvfb (its socket goes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn desktop_driver_types_taps_and_tears_down() {
    use argus_worker::device::desktop::session::Session;
    use argus_worker::device::desktop::DesktopDevice;
    use argus_worker::device::prelude::*;
    if !require_programs(&["Xvfb", "dbus-daemon", "mousepad"], DESKTOP_TOOLS) {
        return;
    }
    let dir = std::env::temp_dir().join(format!("argus-desktop-{}", uuid::Uuid::new_v4().simple()));
    // As a slot user where the test can (root, user present): accessibility across uids.
    let user = argus_worker::device::desktop::slot_user::SlotUser::resolve("argus-slot7").ok();
    let session = Session::start_as(&dir, 800, 600, user)
        .await
        .expect("session");
    let mut dev = DesktopDevice::new(session, (800, 600), Some("mousepad".into()));
    dev.begin().await.expect("mousepad starts");
    // Every run has its own session bus: read this run's.
    let env = dev.session_env().clone();
    let mut tree_only = argus_worker::perceive::Perceiver::new(Default::default());

    let obs = tree_only.observe(&mut dev, 1).await.expect("observe");
    let field = obs
        .elements
        .iter()
        .find(|e| e.role.as_str() == "textfield")
        .expect("the text view is a textfield")
        .clone();
    assert!(
        field.bbox_px.w > 100.0 && field.bbox_px.h > 100.0,
        "{field:?}"
    );
    dev.type_text(&field, "alpha").await.expect("type");
    dev.key(argus_protocol::Key::Enter).await.expect("Return");
    let obs = tree_only.observe(&mut dev, 2).await.expect("observe");
    let field = obs
        .elements
        .iter()
        .find(|e| e.role.as_str() == "textfield")
        .expect("textfield")
        .clone();
    dev.type_text(&field, "beta 你好").await.expect("type");
    let texts = texts_on_bus(&env.dbus_address).await;
    assert!(
        texts.iter().any(|(_, t)| t == "alpha\nbeta 你好"),
        "the text view does not hold the two lines: {texts:?}"
    );

    let obs = tree_only.observe(&mut dev, 3).await.expect("observe");
    let help = obs
        .elements
        .iter()
        .find(|e| e.name == "Help")
        .expect("Help menu")
        .clone();
    dev.tap(&help).await.expect("tap Help");
    let mut opened = false;
    for i in 0..30 {
        let o = tree_only.observe(&mut dev, 10 + i).await.expect("observe");
        if o.elements.iter().any(|e| e.name.contains("About")) {
            opened = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(opened, "the Help menu did not open after the tap");
    dev.key(argus_protocol::Key::Escape).await.expect("Escape");

    dev.end().await.expect("end");
    let mut gone = false;
    for _ in 0..50 {
        // The run's bus goes with the run: gone, or no text view left on it.
        let bus = argus_worker::device::desktop::connect_a11y(&env.dbus_address).await;
        if bus.is_err() || texts_on_bus(&env.dbus_address).await.is_empty() {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        gone,
        "mousepad is still on the accessibility bus after end()"
    );
    let n = env.display.trim_start_matches(':');
    let socket = std::path::PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
    assert!(
        socket.exists(),
        "Xvfb socket {socket:?} missing while the session runs"
    );
    dev.shutdown().await;
    assert!(!socket.exists(), "Xvfb still runs after shutdown");
    assert!(!dir.exists(), "the session folder was not removed");
}
