//! Pins `argus run` (one job in-process, no services) as a user runs it: the real debug
//! binary as a child process, on TodoMVC served locally with `examples/todomvc.steps`, and
//! on a desktop app (mousepad under its own Xvfb + D-Bus, as `desktop.rs` uses). Each run
//! must exit 0, write `report.html`, and every image the report references must exist in
//! the run folder and decode as a JPEG (an unchanged frame is one file, shown by several
//! actions). The web run's effect is also read independently:
//! the page's injected probe reports the final todo list. Ctrl-C (SIGINT) or SIGTERM in the
//! middle of a run exits 130 and leaves none of the processes it started (a /proc listing).

use std::path::{Path, PathBuf};
use std::time::Duration;

use argus_tests::procs::argus_bin;
use argus_tests::require::require_programs;
use argus_tests::site::{Item, Site};
use argus_tests::{jpeg_size, Services};

/// Runs `argus run` with `args` (output under `out`); returns (exit code, stdout, stderr).
async fn argus_run(args: &[&str], out: &Path) -> (Option<i32>, String, String) {
    let mut cmd = tokio::process::Command::new(argus_bin());
    for (k, _) in std::env::vars() {
        if k.starts_with("ARGUS_") && k != "ARGUS_CHROMIUM" {
            cmd.env_remove(k);
        }
    }
    cmd.arg("run")
        .args(args)
        .arg("--out")
        .arg(out)
        .env("RUST_LOG", "warn")
        .kill_on_drop(true);
    let o = tokio::time::timeout(Duration::from_secs(180), cmd.output())
        .await
        .expect("argus run finished within 180 s")
        .expect("start argus run");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The `report.html` path `argus run` printed.
fn report_path(stdout: &str) -> PathBuf {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("report: "))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no report line in {stdout}"))
}

/// Every `src="…"` / `href="…"` of the report that names a screenshot, resolved against
/// its folder; asserts each exists and decodes. Returns how many `<img>` showed a screenshot
/// and how many distinct files they were.
fn assert_report_images(report: &Path) -> (usize, usize) {
    let html = std::fs::read_to_string(report).expect("read report.html");
    let dir = report.parent().expect("run folder");
    let mut seen = std::collections::BTreeSet::new();
    let mut shown = 0;
    for attr in ["src=\"", "href=\""] {
        for part in html.split(attr).skip(1) {
            let Some(target) = part.split('"').next() else {
                continue;
            };
            if !target.ends_with(".jpg") {
                continue;
            }
            if attr == "src=\"" {
                shown += 1;
            }
            assert!(
                !target.starts_with('/') && !target.contains("://"),
                "a local report links images relative to its folder: {target}"
            );
            seen.insert(target.to_string());
        }
    }
    for target in &seen {
        let bytes = std::fs::read(dir.join(target))
            .unwrap_or_else(|e| panic!("{target} referenced by the report: {e}"));
        let (w, h) =
            jpeg_size(&bytes).unwrap_or_else(|| panic!("{target} does not decode as a JPEG"));
        assert!(w > 0 && h > 0, "{target}: {w}x{h}");
    }
    (shown, seen.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn argus_run_todomvc_writes_a_report_with_real_screenshots() {
    let services = Services::from_env();
    let site = Site::start(services.todomvc_dir.clone()).await;
    let token = format!("run-{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
    let url = site.example_url("vanillajs", &token);
    let steps = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/todomvc.steps");
    let out = std::env::temp_dir().join(format!("argus-run-{token}"));
    let chromium = services.chromium.display().to_string();
    let (code, stdout, stderr) = argus_run(
        &[
            "--steps",
            &steps.display().to_string(),
            "--url",
            &url,
            "--chromium",
            &chromium,
        ],
        &out,
    )
    .await;
    assert_eq!(code, Some(0), "argus run failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains(" succeeded"), "{stdout}");
    let report = report_path(&stdout);
    assert!(report.starts_with(std::fs::canonicalize(&out).expect("out")));
    let (images, files) = assert_report_images(&report);
    // open + 9 steps (comments skipped), each action with a before and after screenshot.
    assert!(images >= 20, "only {images} images in the report");
    assert!(
        files < images,
        "unchanged frames are stored once: {files} files for {images} images"
    );
    let state = site.state(&token).expect("the page reported its state");
    assert_eq!(
        state.items,
        vec![Item {
            text: "walk the dog".into(),
            completed: false
        }],
        "the todo list as the page sees it"
    );
    let _ = std::fs::remove_dir_all(&out);
}

/// `argus run --steps FILE --var …` reads the files FILE includes from disk, each next to the
/// file that includes it, and fills `${var.…}`; a missing include is refused before any
/// browser starts, naming the including file and line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn argus_run_reads_includes_from_disk_and_fills_vars() {
    let services = Services::from_env();
    let site = Site::start(services.todomvc_dir.clone()).await;
    let token = format!("inc-{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
    let dir = std::env::temp_dir().join(format!("argus-inc-{token}"));
    std::fs::create_dir_all(dir.join("lib")).expect("dir");
    std::fs::write(
        dir.join("main.steps"),
        "repeat 2 times:\n  include lib/add.steps\nwait for \"2 items left\"",
    )
    .expect("main");
    std::fs::write(
        dir.join("lib/add.steps"),
        "type \"${var.ITEM}\" into \"What needs to be done?\"\ninclude ../enter.steps",
    )
    .expect("lib");
    std::fs::write(dir.join("enter.steps"), "press Enter").expect("enter");
    let url = site.example_url("vanillajs", &token);
    let chromium = services.chromium.display().to_string();
    let main = dir.join("main.steps").display().to_string();
    let out = dir.join("out");
    let args = [
        "--steps",
        &main,
        "--var",
        "ITEM=from disk",
        "--url",
        &url,
        "--chromium",
        &chromium,
    ];
    let (code, stdout, stderr) = argus_run(&args, &out).await;
    assert_eq!(code, Some(0), "argus run failed:\n{stdout}\n{stderr}");
    let state = site.state(&token).expect("the page reported its state");
    let texts: Vec<&str> = state.items.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(texts, ["from disk", "from disk"]);

    std::fs::write(dir.join("enter.steps"), "press Enter\ninclude gone.steps").expect("gone");
    let (code, stdout, stderr) = argus_run(&args, &out).await;
    assert_eq!(code, Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("enter.steps line 2: include gone.steps"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// How to install the desktop test stack.
const DESKTOP_TOOLS: &str =
    "deploy/dev-up.sh installs them (apt-get install -y xvfb dbus mousepad)";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn argus_run_desktop_mousepad_writes_a_report_with_real_screenshots() {
    if !require_programs(&["Xvfb", "dbus-daemon", "mousepad"], DESKTOP_TOOLS) {
        return;
    }
    let token = uuid::Uuid::new_v4().simple().to_string()[..10].to_string();
    let out = std::env::temp_dir().join(format!("argus-run-desk-{token}"));
    let steps = "type \"hello from argus run\" into the textfield below \"File\"\n\
                 assert screen contains \"hello from argus run\"";
    let (code, stdout, stderr) = argus_run(
        &[
            "--platform",
            "desktop",
            "--launch",
            "mousepad",
            // A slot user of its own: the end of a run kills every process of its user.
            "--desktop-slot-user",
            "argus-slot8",
            "--screen",
            "1024x768",
            "--steps",
            steps,
        ],
        &out,
    )
    .await;
    assert_eq!(code, Some(0), "argus run failed:\n{stdout}\n{stderr}");
    let report = report_path(&stdout);
    let (images, _) = assert_report_images(&report);
    assert!(images >= 4, "only {images} images in the report");
    // Screenshots are of the whole X screen.
    let dir = report.parent().expect("run folder").join("shots");
    let first = std::fs::read_dir(&dir)
        .expect("shots folder")
        .flatten()
        .next()
        .expect("a screenshot");
    let bytes = std::fs::read(first.path()).expect("read screenshot");
    assert_eq!(jpeg_size(&bytes), Some((1024, 768)));
    let _ = std::fs::remove_dir_all(&out);
}

/// Starts `argus run <args>` on a 60 s wait, waits until its `child` process (`chromium`,
/// `Xvfb`) runs, sends `sig`: it must exit 130 and leave no process it started.
async fn interrupted_run_leaves_nothing(args: &[&str], child: &str, sig: &str) {
    let token = uuid::Uuid::new_v4().simple().to_string()[..10].to_string();
    let entry = format!("ARGUS_TEST_RUN_MARK={token}");
    let out = std::env::temp_dir().join(format!("argus-run-int-{token}"));
    let mut cmd = tokio::process::Command::new(argus_bin());
    cmd.arg("run")
        .args(args)
        .args(["--steps", "wait 60s", "--out"])
        .arg(&out)
        .env("ARGUS_TEST_RUN_MARK", &token)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    let proc = cmd.spawn().expect("start argus run");
    let pid = proc.id().expect("pid");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !argus_tests::proc_list::has_live(&entry, child) {
        assert!(
            std::time::Instant::now() < deadline,
            "no {child} within 60 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let status = std::process::Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let o = tokio::time::timeout(Duration::from_secs(20), proc.wait_with_output())
        .await
        .expect("argus run exits within 20 s of the signal")
        .expect("wait");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{stderr}");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let left = argus_tests::proc_list::live_with_env(&entry);
        if left.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "argus run left processes behind: {left:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_argus_run_stops_chromium() {
    interrupted_run_leaves_nothing(&["--url", "about:blank"], "chromium", "-INT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_desktop_argus_run_stops_xvfb_and_dbus() {
    if !require_programs(&["Xvfb", "dbus-daemon", "mousepad"], DESKTOP_TOOLS) {
        return;
    }
    interrupted_run_leaves_nothing(
        &[
            "--platform",
            "desktop",
            "--launch",
            "mousepad",
            "--desktop-slot-user",
            "argus-slot9",
        ],
        "Xvfb",
        "-TERM",
    )
    .await;
}
