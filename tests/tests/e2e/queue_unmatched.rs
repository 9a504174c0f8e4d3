//! Pins that a job no registered device matches *yet* is queued, not refused (as a Selenium
//! Grid queues a session request): `argus submit` gets a 201 and prints the coordinator's
//! warning, the run's page and its dashboard line say what it waits for, its queue deadline is the server default
//! (900 s), and once a matching worker registers the run is assigned and succeeds.

use std::process::Command;
use std::time::Duration;

use argus_tests::procs::{argus_bin, ProcFarm, ProcFarmOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unmatched_job_waits_for_a_worker_then_succeeds() {
    let mut farm = ProcFarm::start(ProcFarmOptions::default()).await;
    farm.start_coordinator().await;
    let url = farm.coordinator_url(0);

    // The real CLI, against a farm with no device at all.
    let out = Command::new(argus_bin())
        .args(["submit", "--server", &url, "--platform", "web"])
        .args(["--steps", "wait 10ms"])
        .env("ARGUS_API_TOKEN", &farm.admin_token)
        .env_remove("ARGUS_COORDINATOR_URL")
        .output()
        .expect("run argus submit");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("warning: no registered device matches platform web"),
        "the warning is printed: {stderr}"
    );
    let run: uuid::Uuid = stdout
        .split_whitespace()
        .skip_while(|w| *w != "run")
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no run id in {stdout:?}"));
    assert_eq!(farm.status(run).await, "queued");

    // The server-side default queue timeout applies.
    let (wait_s,): (f64,) = sqlx::query_as(
        "select extract(epoch from queue_deadline - created_at)::float8 from runs where id = $1",
    )
    .bind(run)
    .fetch_one(&farm.pool)
    .await
    .expect("queue deadline");
    assert!((wait_s - 900.0).abs() < 5.0, "queue deadline {wait_s} s");

    // The run's page says what it waits for.
    let page = farm
        .http
        .get(format!("{url}/runs/{run}"))
        .send()
        .await
        .expect("report page")
        .text()
        .await
        .expect("html");
    assert!(
        page.contains("waiting for a device matching platform web"),
        "{page}"
    );

    // So does its line on the dashboard.
    let dash = farm
        .http
        .get(format!("{url}/"))
        .send()
        .await
        .expect("dashboard")
        .text()
        .await
        .expect("html");
    assert!(dash.contains("waiting for a web device"), "{dash}");

    // A matching worker registers: the queued run is assigned and succeeds.
    farm.start_worker("late-web", 1, &url, None).await;
    let end = farm.wait_terminal(run, Duration::from_secs(60)).await;
    assert_eq!(end, "succeeded", "{}", farm.logs(30));
    let (device,): (Option<String>,) = sqlx::query_as("select device_id from runs where id = $1")
        .bind(run)
        .fetch_one(&farm.pool)
        .await
        .expect("device");
    assert!(
        device.as_deref().is_some_and(|d| d.starts_with("late-web")),
        "{device:?}"
    );
}
