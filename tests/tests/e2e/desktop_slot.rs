//! Issue 24 item 3: a desktop job's app runs as the slot's unprivileged user
//! (`argus-slot<n>`, created by `deploy/dev-up.sh`) with a cleared environment and a
//! private home, and leaves no process behind. The app here is a real `xterm` whose start
//! command first tries to steal what a job could reach: the worker's environment (its own
//! and `/proc/<worker>/environ`), a file only the worker's uid can read, a file in another
//! slot's private home (a 0700 folder of `argus-slot7`, as a run's home is made), and it
//! leaves a `sleep` behind (one in its group, one in a new session).
//!
//! Skipped (with a message) when Xvfb, xterm or the slot user is missing, or when the test
//! does not run as root (the worker needs root to switch users) — failed instead under
//! `ARGUS_REQUIRE_ALL=1` (CI).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use argus_tests::require::{require, require_programs};
use argus_worker::device::desktop::session::Session;
use argus_worker::device::desktop::slot_user::SlotUser;
use argus_worker::device::desktop::DesktopDevice;
use argus_worker::device::prelude::*;

/// The slot user this test runs its app as (a distinct one: tests run side by side, and a
/// run's end kills every process of its slot user).
const SLOT_USER: &str = "argus-slot6";
/// A token the worker holds in its environment.
const TOKEN: &str = "t24f-worker-token-3f9a";

/// Every live process whose real uid is `uid` (zombies, already dead and waiting for a
/// reaper, are not counted).
fn pids_of(uid: u32) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let status = std::fs::read_to_string(e.path().join("status")).unwrap_or_default();
        let real = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|l| l.split_whitespace().next().map(str::to_string));
        let zombie = status
            .lines()
            .any(|l| l.starts_with("State:") && l.contains('Z'));
        if !zombie && real.as_deref() == Some(uid.to_string().as_str()) {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            out.push(format!(
                "{} {}",
                e.file_name().to_string_lossy(),
                String::from_utf8_lossy(&cmd).replace('\0', " ")
            ));
        }
    }
    out
}

fn uid_of(user: &str) -> Option<u32> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        (f.first() == Some(&user)).then(|| f.get(2)?.parse().ok())?
    })
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn desktop_app_runs_as_the_slot_user_without_the_workers_secrets() {
    let root = std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    let slot_uid = uid_of(SLOT_USER);
    if !(require(
        &format!("desktop slot user {SLOT_USER}"),
        slot_uid.is_some(),
        "deploy/dev-up.sh creates argus-slot0..9",
    ) && require(
        "root",
        root,
        "run the tests as root, as deploy/test.sh does (the worker switches to slot users)",
    ) && require_programs(
        &["Xvfb", "dbus-daemon", "xterm"],
        "deploy/dev-up.sh installs them (apt-get install -y xvfb dbus xterm)",
    )) {
        return;
    }
    let slot_uid = slot_uid.expect("checked above");
    std::env::set_var("ARGUS_T24F_TOKEN", TOKEN);
    let id = uuid::Uuid::new_v4().simple().to_string();
    // What the app writes: a world-writable drop box.
    let out = std::env::temp_dir().join(format!("argus-t24f-out-{}", &id[..12]));
    std::fs::create_dir_all(&out).expect("out dir");
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    // A file only the worker's uid can read.
    let private = std::env::temp_dir().join(format!("argus-t24f-private-{}", &id[..12]));
    std::fs::create_dir_all(&private).expect("private dir");
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    // Another slot's private home, made as the worker makes a run's home (0700, its owner).
    let other_home = std::env::temp_dir().join(format!("argus-t24f-slot7-{}", &id[..12]));
    std::fs::create_dir_all(&other_home).expect("other home");
    let other_file = other_home.join("notes.txt");
    std::fs::write(&other_file, "slot7-private-5e2a\n").expect("other file");
    if let Some(u7) = uid_of("argus-slot7") {
        std::os::unix::fs::chown(&other_home, Some(u7), Some(u7)).expect("chown");
        std::os::unix::fs::chown(&other_file, Some(u7), Some(u7)).expect("chown");
    }
    std::fs::set_permissions(&other_home, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let secret = private.join("worker.conf");
    std::fs::write(&secret, "ARGUS_API_TOKEN=file-secret-77c1\n").expect("secret");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).expect("chmod");

    let o = out.display();
    let launch = format!(
        "sh -c 'id -u > {o}/uid; env > {o}/env; cat /proc/{pid}/environ > {o}/environ; \
         cat {s} > {o}/secret; cat {f} > {o}/other; echo $HOME > {o}/home; sleep 1000 & setsid sleep 1001 & \
         exec xterm -geometry 80x20+0+0'",
        pid = std::process::id(),
        s = secret.display(),
        f = other_file.display(),
    );
    let dir = std::env::temp_dir().join(format!("argus-t24f-{}", &id[..12]));
    let session = start_session(&dir).await;
    let mut dev = DesktopDevice::new(session, (800, 600), Some(launch));
    dev.begin().await.expect("xterm starts");
    let app_uid = read(&out.join("uid")).trim().to_string();
    let env = read(&out.join("env"));
    let environ = read(&out.join("environ"));
    let stolen = read(&out.join("secret"));
    let other = read(&out.join("other"));
    let home = read(&out.join("home")).trim().to_string();
    let during = pids_of(slot_uid);
    dev.end().await.expect("end");
    let after = pids_of(slot_uid);
    let worker_pids: Vec<String> = pids_of(0)
        .into_iter()
        .filter(|p| p.contains("sleep 100"))
        .collect();
    dev.shutdown().await;
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_dir_all(&private);
    let _ = std::fs::remove_dir_all(&other_home);

    eprintln!("app uid={app_uid} home={home}\napp env:\n{env}");
    assert_eq!(
        app_uid,
        slot_uid.to_string(),
        "the app does not run as {SLOT_USER}"
    );
    assert!(
        !env.contains(TOKEN),
        "the app got the worker's token: {env}"
    );
    assert!(
        !environ.contains(TOKEN) && environ.is_empty(),
        "the app read /proc/<worker>/environ ({} bytes)",
        environ.len()
    );
    assert!(
        stolen.is_empty(),
        "the app read the worker's file: {stolen}"
    );
    assert!(
        other.is_empty() && uid_of("argus-slot7").is_some(),
        "the app read another slot's private home (or argus-slot7 is missing): {other}"
    );
    let allowed = [
        "DISPLAY",
        "DBUS_SESSION_BUS_ADDRESS",
        "HOME",
        "PATH",
        "LANG",
        "LC_ALL",
        "TZ",
        "USER",
        "LOGNAME",
        "SHELL",
        "XDG_RUNTIME_DIR",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "XDG_DATA_HOME",
        "PWD",
        "SHLVL",
        "_",
        "OLDPWD",
    ];
    for line in env.lines() {
        let key = line.split('=').next().unwrap_or_default();
        assert!(
            allowed.contains(&key),
            "unexpected variable in the app's env: {line}"
        );
    }
    assert!(
        !home.is_empty() && !home.starts_with("/root"),
        "home {home}"
    );
    assert!(
        during.iter().any(|p| p.contains("xterm")),
        "xterm is not among {SLOT_USER}'s processes: {during:?}"
    );
    assert!(after.is_empty(), "left behind after the run: {after:?}");
    assert!(
        worker_pids.is_empty(),
        "left behind as root: {worker_pids:?}"
    );
}

/// The session under test, its apps running as [`SLOT_USER`].
async fn start_session(dir: &Path) -> Session {
    let user = SlotUser::resolve(SLOT_USER).expect("slot user");
    Session::start_as(dir, 800, 600, Some(user))
        .await
        .expect("session")
}
