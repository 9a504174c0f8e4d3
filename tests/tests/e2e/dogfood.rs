//! Argus tested by Argus (issue 28, item 5): the dashboard's own checks are the suite
//! `tests/dogfood/dashboard.suite.json`, script jobs in the step language run by a real web
//! worker (headless Chromium) against this farm's coordinator, auth on. The test starts the
//! coordinator, a second coordinator on the same database (the dashboard under test: a
//! worker's browser never reaches the coordinator the worker itself works for) and one
//! worker whose browser may open exactly that second loopback address and which holds the admin token as the secret `DASH_TOKEN`; creates the schedule
//! "dogfood patrol" and the job "dogfood target" through the API; runs the suite with the
//! real `argus suite run --var DASH=<dashboard> --junit <path>`; and asserts the suite
//! passed, every case with it, and each case's effect through the API: the job made with
//! the New job form carries its two vars and its label and its run succeeded (the case
//! watched it finish on its report), the schedule is paused, the suite made with the
//! New suite form passed with its data row's var on its one case (the worker has two
//! slots: that suite's case runs while the dogfood case waits for its verdict), and a user of
//! team dogfood-try tried one step on its team's own idle device (a second worker, one slot,
//! serving that team alone) from the dashboard: it ran there, succeeded and aimed at its
//! target.

use std::path::Path;
use std::time::Duration;

use argus_coordinator::auth::Role;
use argus_tests::procs::argus_bin;
use argus_tests::{Farm, FarmOptions};
use serde_json::{json, Value};

/// GETs `path` with the farm's admin token; `(status, json)`.
async fn get(farm: &Farm, path: &str) -> (u16, Value) {
    let r = farm
        .http
        .get(format!("{}{path}", farm.base_url))
        .send()
        .await
        .expect("get");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// Creates the schedule the suite pauses (its label matches no device: it never fires a
/// run this test waits for); its id.
async fn create_schedule(farm: &Farm) -> String {
    let r = farm
        .http
        .post(format!("{}/api/v1/schedules", farm.base_url))
        .json(
            &json!({"name": "dogfood patrol", "cron": "0 9 * * 1-5", "timezone": "UTC",
            "template": {"platform": "web", "instruction": "wait 1s",
                         "selector": {"labels": {"rack": "nowhere"}}}}),
        )
        .send()
        .await
        .expect("create schedule");
    assert_eq!(r.status().as_u16(), 201);
    let body: Value = r.json().await.expect("json");
    body["schedule_id"]
        .as_str()
        .expect("schedule_id")
        .to_string()
}

/// Runs `argus suite run` on the dogfood suite, submitted to the farm's coordinator, its
/// jobs given `DASH=<dash>` and `TRY_DEVICE=<case 7's device>`; `(exit code, stdout)`.
async fn run_suite(
    farm: &Farm,
    dash: &str,
    try_device: &str,
    junit: &Path,
) -> (Option<i32>, String) {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("dogfood/dashboard.suite.json");
    let mut cmd = tokio::process::Command::new(argus_bin());
    cmd.args(["suite", "run"])
        .arg(&suite)
        .args(["--server", &farm.base_url, "--junit"])
        .arg(junit)
        .args(["--var", &format!("DASH={dash}")])
        .args(["--var", &format!("TRY_DEVICE={try_device}")])
        .env("ARGUS_API_TOKEN", &farm.admin_token)
        .kill_on_drop(true);
    let out = tokio::time::timeout(Duration::from_secs(600), cmd.output())
        .await
        .expect("the dogfood suite ended within 600 s")
        .expect("start argus suite run");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}{stderr}");
    (out.status.code(), stdout)
}

/// Each case's last run's error, one line per case that has one (for a failure message).
async fn case_errors(farm: &Farm, suite: &Value) -> String {
    let mut out = String::new();
    for c in suite["jobs"].as_array().into_iter().flatten() {
        let Some(run) = c["runs"].as_array().and_then(|r| r.last()?.as_str()) else {
            continue;
        };
        let (_, d) = get(farm, &format!("/api/v1/runs/{run}")).await;
        if !d["error"].is_null() {
            out.push_str(&format!("{}: {}\n", c["name"], d["error"]));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn argus_runs_its_own_dashboard_suite() {
    let started = std::time::Instant::now();
    let mut farm = crate::bare_farm().await;
    // The worker never lets a page reach its own coordinator (its navigation policy), so the
    // dashboard under test is a second coordinator on the same database, as a replica
    // behind a load balancer is; the worker's browser may open exactly that address.
    let dash = farm.start_extra_coordinator().await;
    farm.options = FarmOptions {
        worker_slots: None,
        ..farm.options.clone()
    }
    .allowing(&dash);
    let try_user = argus_coordinator::auth::generate();
    argus_coordinator::auth::create_token(&farm.pool, TRY_TEAM, Role::User, "try", &try_user)
        .await
        .expect("try user token");
    farm.options.model.env_secrets = vec![
        ("DASH_TOKEN".into(), farm.admin_token.clone()),
        ("DASH_TRY_TOKEN".into(), try_user),
    ];
    let admin = farm.admin_token.clone();
    // Three slots: the job the "new job form" case makes and the suite the "create and run
    // a suite" case makes run on another slot while those cases wait for them.
    farm.start_worker_with_slots("dogfood", &admin, 3).await;
    // Case 7's device: one slot serving team dogfood-try alone, so no case runs there and it
    // is idle when that case tries a step on it.
    let try_worker = argus_coordinator::auth::generate();
    argus_coordinator::auth::create_token(&farm.pool, TRY_TEAM, Role::Worker, "try", &try_worker)
        .await
        .expect("try worker token");
    let try_device = format!("{}-0", farm.start_worker("trier", &try_worker).await);
    let schedule = create_schedule(&farm).await;
    // The device the Devices page case quarantines and releases: no worker behind it, on a
    // platform no dogfood job asks for.
    farm.register_sim_device(SIM_DEVICE, "ios", json!({}), 0)
        .await;
    let target = farm
        .submit(&json!({"name": "dogfood target", "platform": "web",
            "instruction": format!("open {dash}/login\nwait 2s\nassert screen contains \"API token\""),
            "timeout_s": 60}))
        .await;

    let junit = std::env::temp_dir().join(format!("argus-dogfood-{}.xml", farm.token));
    let (code, stdout) = run_suite(&farm, &dash, &try_device, &junit).await;
    let suite_id = stdout
        .lines()
        .find_map(|l| l.strip_prefix("suite ")?.split(':').next())
        .expect("argus suite run printed the suite id")
        .to_string();
    let (_, suite) = get(&farm, &format!("/api/v1/suites/{suite_id}")).await;
    let verdict = suite["verdict"].as_str().unwrap_or("?").to_string();
    println!(
        "dogfood suite: {verdict}, JUnit at {} ({:.0} s)",
        junit.display(),
        started.elapsed().as_secs_f64()
    );
    let errors = case_errors(&farm, &suite).await;
    assert_eq!(code, Some(0), "argus suite run failed:\n{stdout}\n{errors}");
    assert_eq!(verdict, "passed", "{suite}");
    let cases = suite["jobs"].as_array().expect("jobs");
    assert_eq!(cases.len(), 7, "{suite}");
    for c in cases {
        assert_eq!(c["status"], json!("succeeded"), "case {c}");
    }
    let xml = std::fs::read_to_string(&junit).expect("JUnit written");
    assert!(
        xml.contains("<testsuite") && xml.contains("new job form"),
        "{xml}"
    );
    assert!(!xml.contains("<failure"), "{xml}");

    // Each case's effect, through the API.
    let (_, run) = get(&farm, &format!("/api/v1/runs/{target}")).await;
    assert_eq!(run["status"], json!("succeeded"), "{run}");
    let (job_id,): (uuid::Uuid,) = sqlx::query_as("select id from jobs where name = $1")
        .bind("dogfood form job")
        .fetch_one(&farm.pool)
        .await
        .expect("exactly one job made with the form");
    let (status, job) = get(&farm, &format!("/api/v1/jobs/{job_id}")).await;
    assert_eq!(status, 200, "{job}");
    assert_eq!(
        job["spec"]["vars"],
        json!({"ITEM": "buy milk", "WHO": "Ann"}),
        "{job}"
    );
    assert_eq!(job["spec"]["instruction"], json!("wait 1s"), "{job}");
    assert_eq!(
        job["spec"]["selector"]["labels"],
        json!({"browser": "chromium"}),
        "{job}"
    );
    assert_eq!(job["runs"][0]["status"], json!("succeeded"), "{job}");
    assert_eq!(job["spec"]["priority"], json!(50), "{job}");
    let (_, s) = get(&farm, &format!("/api/v1/schedules/{schedule}")).await;
    assert_eq!(s["paused"], json!(true), "{s}");
    form_suite_effect(&farm).await;
    device_case_effect(&farm).await;
    try_case_effect(&farm, &try_device).await;
}

/// The team of case 7's user and device.
const TRY_TEAM: &str = "dogfood-try";

/// Case 7's effect through the API: exactly one try, of team dogfood-try, addressed to its
/// device, ran there and succeeded, its one tried action aimed at the "Sign in" button with
/// an after-screenshot stored.
async fn try_case_effect(farm: &Farm, device: &str) {
    let (run, team, only): (uuid::Uuid, String, Option<String>) = sqlx::query_as(
        "select r.id, r.team_id, r.only_device from runs r join jobs j on j.id = r.job_id
          where j.name = $1",
    )
    .bind("try: tap “Sign in”")
    .fetch_one(&farm.pool)
    .await
    .expect("exactly one try made from the page");
    assert_eq!((team.as_str(), only.as_deref()), (TRY_TEAM, Some(device)));
    let (_, d) = get(farm, &format!("/api/v1/runs/{run}")).await;
    assert_eq!(
        (&d["status"], &d["device_id"]),
        (&json!("succeeded"), &json!(device)),
        "{d}"
    );
    let last = d["steps"]
        .as_array()
        .and_then(|s| s.last())
        .and_then(|s| s["actions"].as_array()?.last().cloned())
        .unwrap_or_else(|| panic!("the tried step's action: {d}"));
    assert_eq!(last["target"]["name"], json!("Sign in"), "{last}");
    let key = last["after_key"].as_str().expect("after-screenshot");
    assert!(farm.s3_get(key).await.is_some(), "{key} stored");
}

/// The device case 6 quarantines and releases.
const SIM_DEVICE: &str = "dogfood-rack-7";

/// Case 6's effect through the API: the device was quarantined by an admin with the reason
/// typed, then released, and is healthy now.
async fn device_case_effect(farm: &Farm) {
    let (_, events) = get(farm, "/api/v1/device-health-events").await;
    let mine: Vec<&Value> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["device_id"] == SIM_DEVICE)
        .collect();
    assert_eq!(mine.len(), 2, "{events}");
    assert_eq!(
        (&mine[0]["to"], &mine[0]["reason"]),
        (&json!("healthy"), &json!("released by an admin")),
        "{events}"
    );
    assert_eq!(
        (&mine[1]["to"], &mine[1]["reason"]),
        (&json!("quarantined"), &json!("dogfood: power supply check")),
        "{events}"
    );
    assert!(
        mine.iter()
            .all(|e| e["actor"].as_str().is_some_and(|a| a.starts_with("admin"))),
        "{events}"
    );
    let (_, devices) = get(farm, "/api/v1/devices").await;
    let d = devices["devices"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["device_id"] == SIM_DEVICE))
        .unwrap_or_else(|| panic!("{SIM_DEVICE} listed: {devices}"));
    assert_eq!(d["health"]["state"], json!("healthy"), "{d}");
}

/// The suite made with the New suite form: exactly one, passed, its definition and its
/// one case (the data row's var on the job) as typed, through the API.
async fn form_suite_effect(farm: &Farm) {
    let (id,): (uuid::Uuid,) = sqlx::query_as("select id from suites where name = $1")
        .bind("dogfood form suite")
        .fetch_one(&farm.pool)
        .await
        .expect("exactly one suite made with the form");
    let (status, s) = get(farm, &format!("/api/v1/suites/{id}")).await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["verdict"], json!("passed"), "{s}");
    assert_eq!(s["spec"]["vars_matrix"], json!([{"WHO": "Ann"}]), "{s}");
    let cases = s["jobs"].as_array().expect("jobs");
    assert_eq!(cases.len(), 1, "{s}");
    assert_eq!(cases[0]["name"], json!("ping [WHO=Ann]"), "{s}");
    assert_eq!(cases[0]["status"], json!("succeeded"), "{s}");
    let job_id = cases[0]["job_id"].as_str().expect("job_id");
    let (_, job) = get(farm, &format!("/api/v1/jobs/{job_id}")).await;
    assert_eq!(job["spec"]["vars"], json!({"WHO": "Ann"}), "{job}");
    assert_eq!(job["spec"]["instruction"], json!("wait 1s"), "{job}");
    let r = farm
        .http
        .get(format!("{}/api/v1/suites/{id}/junit.xml", farm.base_url))
        .send()
        .await
        .expect("junit");
    assert_eq!(r.status().as_u16(), 200);
    let xml = r.text().await.expect("xml");
    assert!(
        xml.contains("ping [WHO=Ann]") && !xml.contains("<failure"),
        "{xml}"
    );
}
