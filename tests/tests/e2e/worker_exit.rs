//! Pins that every way a real `argus worker` process ends takes the processes it started
//! with it: SIGTERM, SIGINT and SIGKILL (the `PR_SET_PDEATHSIG` backstop) once it served a
//! job, SIGTERM while it still waits for an
//! unreachable coordinator, a fatal start-up error (NATS unreachable after its devices
//! opened), and SIGTERM to a desktop worker (Xvfb, session D-Bus). Each case waits
//! until the worker's own Chromium (or Xvfb) is running, ends the worker, then lists /proc:
//! no live process carrying the worker's environment may be left.

use std::time::{Duration, Instant};

use argus_tests::proc_list::{has_live, live_of_uid, live_with_env};
use argus_tests::procs::{free_port, Proc, ProcFarm, ProcFarmOptions};
use argus_tests::require::{require, require_programs};

/// The environment entry every child of worker `id` inherits.
fn marker(farm: &ProcFarm, id: &str) -> String {
    format!("ARGUS_WORKER_DATA_DIR={}", farm.worker_dir(id).display())
}

async fn wait_for_child(entry: &str, name: &str, worker: &Proc) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !has_live(entry, name) {
        assert!(
            Instant::now() < deadline,
            "no {name} started by {} in 60 s:\n{}",
            worker.name,
            worker.tail(20)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// After the worker exited: within 5 s no process it started is alive.
async fn assert_nothing_left(entry: &str, worker: &Proc) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = live_with_env(entry);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{} left processes behind: {left:#?}\n{}",
            worker.name,
            worker.tail(20)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A served worker that ran a job, ended by `sig`, exits 0 and leaves nothing.
async fn served_worker_ends_clean(sig: &str) {
    let mut farm = ProcFarm::start(ProcFarmOptions::default()).await;
    farm.start_coordinator().await;
    let url = farm.coordinator_url(0);
    let id = format!("exit{}", &sig[1..].to_lowercase());
    farm.start_worker(&id, 2, &url, None).await;
    let entry = marker(&farm, &id);
    wait_for_child(&entry, "chromium", &farm.workers[&id]).await;
    // As after `deploy/quickstart.sh`: the worker has run a job before it is stopped.
    let (_, run) = farm
        .submit_to(
            &url,
            &serde_json::json!({"platform": "web", "instruction": "wait 10ms"}),
        )
        .await;
    let end = farm.wait_terminal(run, Duration::from_secs(60)).await;
    assert_eq!(end, "succeeded", "{}", farm.logs(20));
    let mut w = farm.workers.remove(&id).expect("worker");
    w.signal(sig);
    let code = w.wait_exit(Duration::from_secs(20)).await;
    // SIGKILL runs no code of the worker: only PR_SET_PDEATHSIG can take Chromium along.
    let want = if sig == "-KILL" { None } else { Some(0) };
    assert_eq!(code, want, "{sig}: {}", w.tail(20));
    assert_nothing_left(&entry, &w).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_takes_chromium_along() {
    served_worker_ends_clean("-TERM").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_takes_chromium_along() {
    served_worker_ends_clean("-INT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_takes_chromium_along() {
    served_worker_ends_clean("-KILL").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_while_waiting_for_the_coordinator_takes_chromium_along() {
    let farm = ProcFarm::start(ProcFarmOptions::default()).await;
    let id = "exitwait";
    // Nothing listens there: the worker opens its browser, then retries registration.
    let nowhere = format!("http://127.0.0.1:{}", free_port());
    let cmd = farm.worker_command(id, 1, &nowhere, None);
    let mut w = Proc::spawn(id, cmd, &farm.dir.join("worker-exitwait.log"));
    let entry = marker(&farm, id);
    wait_for_child(&entry, "chromium", &w).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !w.log_text().contains("coordinator not reachable yet") {
        assert!(Instant::now() < deadline, "never retried:\n{}", w.tail(20));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    w.signal("-TERM");
    let code = w.wait_exit(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{}", w.tail(20));
    assert_nothing_left(&entry, &w).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fatal_startup_error_takes_chromium_along() {
    let farm = ProcFarm::start(ProcFarmOptions::default()).await;
    let id = "exitfatal";
    let mut cmd = farm.worker_command(id, 1, "http://127.0.0.1:9", None);
    // NATS is dialled after the devices opened: refusing it is fatal.
    cmd.env(
        "ARGUS_NATS_URL",
        format!("nats://127.0.0.1:{}", free_port()),
    );
    let mut w = Proc::spawn(id, cmd, &farm.dir.join("worker-exitfatal.log"));
    let entry = marker(&farm, id);
    let code = w.wait_exit(Duration::from_secs(60)).await;
    assert_eq!(code, Some(2), "a fatal error exits 2:\n{}", w.tail(20));
    assert!(
        w.log_text().contains("chromium started"),
        "the browser was up before the error:\n{}",
        w.tail(20)
    );
    assert!(
        w.log_text().contains("cannot connect to NATS"),
        "{}",
        w.tail(20)
    );
    assert_nothing_left(&entry, &w).await;
}

/// How to install the desktop test stack.
const DESKTOP_TOOLS: &str =
    "deploy/dev-up.sh installs them (apt-get install -y xvfb dbus mousepad)";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_takes_xvfb_dbus_and_the_app_along() {
    if !require_programs(&["Xvfb", "dbus-daemon", "mousepad"], DESKTOP_TOOLS) {
        return;
    }
    // Its own slot user (the other desktop tests use argus-slot0..3, 6 and 7): the session
    // bus and the app run as that user from a cleared environment, so they are found by
    // their owner, not by the worker's environment marker.
    let slot = "argus-slot5";
    let user = match argus_worker::device::desktop::slot_user::SlotUser::resolve(slot) {
        Ok(user) => user,
        Err(e) => {
            require(&format!("desktop slot user {slot}"), false, &e.to_string());
            return;
        }
    };
    let mut farm = ProcFarm::start(ProcFarmOptions::default()).await;
    farm.start_coordinator().await;
    let url = farm.coordinator_url(0);
    let id = "exitdesk";
    let mut cmd = farm.worker_command(id, 1, &url, None);
    cmd.env("ARGUS_PLATFORM", "desktop")
        .env("ARGUS_LAUNCH", "mousepad")
        .env("ARGUS_SCREEN", "800x600")
        .env("ARGUS_DESKTOP_SLOT_USER", slot);
    farm.start_worker_cmd(id, 1, cmd).await;
    let entry = marker(&farm, id);
    let mut w = farm.workers.remove(id).expect("worker");
    wait_for_child(&entry, "Xvfb", &w).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    let bus = |l: &[(u32, char, String)]| l.iter().any(|(_, _, c)| c.contains("dbus-daemon"));
    while !bus(&live_of_uid(user.uid)) {
        assert!(
            Instant::now() < deadline,
            "no dbus-daemon of {slot} in 60 s:\n{}",
            w.tail(20)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    w.signal("-TERM");
    let code = w.wait_exit(Duration::from_secs(20)).await;
    assert_eq!(code, Some(0), "{}", w.tail(20));
    assert_nothing_left(&entry, &w).await;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = live_of_uid(user.uid);
        if left.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{slot} processes left behind: {left:#?}\n{}",
            w.tail(20)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
