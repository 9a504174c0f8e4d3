//! Pins "an action is ok only when its effect is seen" on a real desktop (Xvfb + session
//! D-Bus + AT-SPI, a coordinator dispatching over NATS to a `--platform desktop` worker):
//!
//! 1. a GTK 3 button that ignores its accessibility action (it computes only on a real
//!    button event) is pressed through the fallback — a pointer click through XTest — and
//!    the app's own effect is read back independently (a file the app writes, never
//!    Argus's word); the action record is `delivered_verified` and names the channel;
//! 2. a button that ignores both channels fails the step "no visible effect", naming both,
//!    `delivered_unverified`, with both screenshots on the record — never "ok" with an
//!    unchanged screen.
//!
//! Not skipped when the tools are missing: CI installs them (`deploy/dev-up.sh`:
//! xvfb, at-spi2-core, dbus, python3-gi, gir1.2-gtk-3.0).

use std::path::{Path, PathBuf};
use std::time::Duration;

use argus_protocol::run_view::RunDetail;
use argus_protocol::Platform;
use argus_tests::require::on_path;
use argus_tests::{Farm, FarmOptions};
use argus_worker::DriverConfig;
use serde_json::json;

/// The fixture app: a label and two buttons. "Compute" acts only on a real pointer
/// release (an app wired to raw button events: its accessibility action, which carries no
/// event, does nothing); it appends `computed` to the file named by argv[1] and shows
/// "Result: 42". "Inert" does nothing at all.
const APP: &str = r#"
import sys
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, Gdk

out = sys.argv[1]
win = Gtk.Window(title="Effect fixture")
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8)
label = Gtk.Label(label="Result: none")
compute = Gtk.Button(label="Compute")
inert = Gtk.Button(label="Inert")

def on_compute(_button):
    ev = Gtk.get_current_event()
    if ev is None or ev.type not in (Gdk.EventType.BUTTON_PRESS, Gdk.EventType.BUTTON_RELEASE):
        return
    with open(out, "a") as f:
        f.write("computed\n")
    label.set_text("Result: 42")

compute.connect("clicked", on_compute)
for w in (label, compute, inert):
    box.pack_start(w, False, False, 0)
win.add(box)
win.set_default_size(300, 200)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
"#;

/// Fails (never skips) when the desktop tools are missing.
fn require_desktop_tools() {
    for bin in ["Xvfb", "dbus-daemon"] {
        assert!(on_path(bin), "{bin} is missing: run deploy/dev-up.sh");
    }
    let gi = std::process::Command::new("/usr/bin/python3")
        .args([
            "-c",
            "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk",
        ])
        .status()
        .expect("/usr/bin/python3 runs");
    assert!(
        gi.success(),
        "python3-gi / gir1.2-gtk-3.0 missing: run deploy/dev-up.sh"
    );
}

/// Writes the fixture into a fresh folder; returns (script, the file the app writes).
fn fixture() -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("argus-effect-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("fixture dir");
    // The app runs as the slot user: it must be able to write its effects here.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let app = dir.join("app.py");
    std::fs::write(&app, APP).expect("fixture app");
    (app, dir.join("effects.txt"))
}

/// Both tests run their app as the one slot user: one at a time (run side by side, the
/// second slot's setup ended the first one's app: "the launched app exited at start").
static ONE_SLOT: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Runs `script` on a desktop farm whose worker launches the fixture app.
async fn run_on_fixture(app: &Path, effects: &Path, script: &str) -> (Farm, RunDetail) {
    let _slot = ONE_SLOT.lock().await;
    let farm = Farm::start(FarmOptions {
        platform: Platform::Desktop,
        drivers: DriverConfig {
            launch: Some(format!(
                "/usr/bin/python3 {} {}",
                app.display(),
                effects.display()
            )),
            screen: (800, 600),
            desktop_slot_user: "argus-slot1".into(),
            ..DriverConfig::default()
        },
        ..Default::default()
    })
    .await;
    let run_id = farm
        .submit(&json!({"platform": "desktop", "instruction": script}))
        .await;
    let d = farm.wait_run(run_id, Duration::from_secs(120)).await;
    (farm, d)
}

fn effects_written(effects: &Path) -> usize {
    std::fs::read_to_string(effects)
        .map(|s| s.lines().filter(|l| *l == "computed").count())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn effect_a_button_deaf_to_its_accessibility_action_is_pressed_by_pointer() {
    require_desktop_tools();
    let (app, effects) = fixture();
    let (_farm, d) = run_on_fixture(&app, &effects, "tap \"Compute\"").await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?} {:#?}",
        d.error,
        d.steps
    );
    // Independent observation: the app itself says it computed, exactly once.
    assert_eq!(
        effects_written(&effects),
        1,
        "the app did not compute exactly once"
    );
    let a = &d.steps[0].actions[0];
    assert_eq!(a.disposition.as_str(), "delivered_verified", "{a:?}");
    assert!(
        a.detail
            .contains("effect seen after the pointer click (XTest)"),
        "the record does not name the channel that worked: {}",
        a.detail
    );
    assert!(
        a.detail.contains("the accessibility action showed none"),
        "{}",
        a.detail
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn effect_a_control_deaf_to_every_channel_fails_no_visible_effect() {
    require_desktop_tools();
    let (app, effects) = fixture();
    let (farm, d) = run_on_fixture(&app, &effects, "tap \"Inert\"").await;
    assert_eq!(d.status.as_str(), "failed", "{:?} {:#?}", d.error, d.steps);
    let a = &d.steps[0].actions[0];
    assert!(!a.ok, "an unchanged screen was reported ok: {a:?}");
    let err = a.error.as_deref().unwrap_or_default();
    assert!(err.starts_with("no visible effect"), "{err}");
    assert!(
        err.contains("accessibility action, then pointer click (XTest)"),
        "the failure does not name both channels: {err}"
    );
    assert_eq!(a.disposition.as_str(), "delivered_unverified", "{a:?}");
    for key in [&a.before_key, &a.after_key] {
        let key = key.as_ref().expect("screenshot key on the record");
        assert!(farm.s3_get(key).await.is_some(), "{key} not in S3");
    }
    assert_eq!(effects_written(&effects), 0);
}
