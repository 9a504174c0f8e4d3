//! Pins issue 27, telling a broken app from a sick device, on real services and real
//! Chromium: two web workers of one slot each, the second one's Chromium killed (now and
//! every 250 ms, found through `/proc`) once its device is registered. Its runs end `errored` with
//! failure class `device`; within 5 of them the device is `quarantined` with a reason and
//! an event, and later jobs all run on the healthy worker and pass. An admin release brings
//! it back (it receives a run again). A job whose check fails on the healthy device is an
//! `app` failure in the API and in JUnit, and three of them in a row quarantine nothing.
//! And bad input to the admin endpoints (unknown device, user token, empty reason,
//! malformed body) answers the error envelope and changes nothing.

use std::time::{Duration, Instant};

use argus_tests::proc_list::live_with_env;
use argus_tests::site::Site;
use argus_tests::{Farm, FarmOptions};
use serde_json::{json, Value};

/// Kills (SIGKILL) every live process whose environment names `dir` (a worker's Chromium
/// and its children: their `HOME` is the profile folder inside it); returns how many.
fn kill_marked(dir: &str) -> usize {
    let procs = live_with_env(&format!("MARK={dir}"));
    for (pid, _, _) in &procs {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    procs.len()
}

/// Suite `suite_id`'s JUnit XML as the API serves it.
pub(crate) async fn junit_xml(farm: &Farm, suite_id: &str) -> String {
    farm.http
        .get(format!(
            "{}/api/v1/suites/{suite_id}/junit.xml",
            farm.base_url
        ))
        .send()
        .await
        .expect("junit")
        .text()
        .await
        .expect("xml")
}

/// `GET path` on the farm's coordinator, as JSON.
pub(crate) async fn get_json(farm: &Farm, path: &str) -> Value {
    farm.http
        .get(format!("{}{path}", farm.base_url))
        .send()
        .await
        .expect("get")
        .json()
        .await
        .expect("json")
}

/// The `devices` entry of `id` in `GET /api/v1/devices`.
pub(crate) async fn device(farm: &Farm, id: &str) -> Value {
    let list = get_json(farm, "/api/v1/devices").await;
    list["devices"]
        .as_array()
        .expect("devices")
        .iter()
        .find(|d| d["device_id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("no device {id} in {list}"))
}

/// Waits (at most `limit`) until device `id`'s health state is `want`.
pub(crate) async fn wait_health(farm: &Farm, id: &str, want: &str, limit: Duration) -> Value {
    let deadline = Instant::now() + limit;
    loop {
        let d = device(farm, id).await;
        if d["health"]["state"] == want {
            return d;
        }
        assert!(Instant::now() < deadline, "device {id} is not {want}: {d}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

pub(crate) async fn post(
    client: &reqwest::Client,
    url: String,
    body: Option<&str>,
) -> (u16, Value) {
    let mut r = client.post(url);
    if let Some(b) = body {
        r = r
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    let r = r.send().await.expect("post");
    let code = r.status().as_u16();
    (code, r.json().await.unwrap_or(Value::Null))
}

/// Web job `n`: open a TodoMVC of its own and assert the screen shows `check`.
pub(crate) fn job(site: &Site, farm: &Farm, n: usize, check: &str) -> Value {
    json!({
        "platform": "web",
        "name": format!("job {n}"),
        "start_url": site.example_url("vanillajs", &format!("h{n}-{}", farm.token)),
        "instruction": format!("assert screen contains \"{check}\""),
        "timeout_s": 60,
    })
}

/// Starts a second worker whose Chromium dies now and every [`KILL_EVERY`] after (a browser
/// that keeps crashing); returns its device id and the task that keeps killing it (abort it
/// to make the device well again: its worker starts a dead browser again before a run).
/// How often the sick worker's Chromium is killed: shorter than any run takes, so a browser
/// its worker starts again before a run never lives to the run's end (at 2 s, a short run
/// sometimes passed between two kills).
const KILL_EVERY: Duration = Duration::from_millis(250);

pub(crate) async fn start_sick_worker(farm: &mut Farm) -> (String, tokio::task::JoinHandle<()>) {
    let admin = farm.admin_token.clone();
    let sick_worker = farm.start_worker("sick", &admin).await;
    let sick_dir = std::env::temp_dir()
        .join(format!("argus-test-worker-{sick_worker}"))
        .join("chromium")
        .display()
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    while kill_marked(&sick_dir) == 0 {
        assert!(
            Instant::now() < deadline,
            "no Chromium of {sick_worker} found in /proc"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let killer = tokio::spawn(async move {
        loop {
            tokio::time::sleep(KILL_EVERY).await;
            kill_marked(&sick_dir);
        }
    });
    (format!("{sick_worker}-0"), killer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sick_device_is_quarantined_released_and_app_failures_blame_the_app() {
    let site = Site::todomvc().await;
    let mut farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let healthy = format!("{}-0", farm.worker_id);
    let (sick, killer) = start_sick_worker(&mut farm).await;

    // (a) Jobs that pass on a healthy device: the sick one (first in id order) eats some,
    // each a `device` failure, until it is quarantined; the rest pass on the healthy one.
    let mut runs = Vec::new();
    for n in 0..8 {
        runs.push(farm.submit(&job(&site, &farm, n, "todos")).await);
    }
    let mut on_sick = 0;
    for run in &runs {
        let d = farm.wait_run(*run, Duration::from_secs(120)).await;
        let v = get_json(&farm, &format!("/api/v1/runs/{run}")).await;
        if d.device_id.as_deref() == Some(sick.as_str()) {
            on_sick += 1;
            assert_eq!(d.status.as_str(), "errored", "{:?}", d.error);
            assert_eq!(v["failure_class"], "device", "{v}");
        } else {
            assert_eq!(d.device_id.as_deref(), Some(healthy.as_str()));
            assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
            assert!(v.get("failure_class").is_none(), "{v}");
        }
    }
    let rows: Vec<(String, String, Option<String>, Option<String>)> = sqlx::query_as(
        "select coalesce(device_id, ''), status, error,
                to_char(finished_at - assigned_at, 'SS.MS') from runs order by created_at",
    )
    .fetch_all(&farm.pool)
    .await
    .expect("runs");
    assert!(
        (3..=5).contains(&on_sick),
        "{on_sick} runs went to the sick device: {rows:#?}"
    );
    let d = wait_health(&farm, &sick, "quarantined", Duration::from_secs(10)).await;
    let reason = d["health"]["reason"].as_str().unwrap_or("");
    assert!(reason.contains("device failures in a row"), "{d}");
    assert!(d["health"]["since"].is_string(), "{d}");
    assert!(
        d["health"]["window"]["device_failures"].as_u64() >= Some(3),
        "{d}"
    );
    let events = get_json(&farm, "/api/v1/device-health-events").await;
    let ev = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["device_id"] == sick.as_str() && e["to"] == "quarantined")
        .cloned()
        .unwrap_or_else(|| panic!("no quarantine event: {events}"));
    assert_eq!(ev["actor"], "health", "{ev}");
    // On its way: suspect after its second device failure in a row (its class, the healthy
    // device, had none), quarantined on the third.
    let path: Vec<&str> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .rev()
        .filter(|e| e["device_id"] == sick.as_str())
        .filter_map(|e| e["to"].as_str())
        .collect();
    assert_eq!(path, ["suspect", "quarantined"], "{events}");
    let page = farm
        .http
        .get(format!("{}/devices", farm.base_url))
        .send()
        .await
        .expect("devices page")
        .text()
        .await
        .expect("html");
    assert!(
        page.contains("id=\"health-events\"") && page.contains(reason),
        "{page}"
    );

    // Quarantined: every later job runs on the healthy worker and passes.
    for n in 8..11 {
        let run = farm.submit(&job(&site, &farm, n, "todos")).await;
        let d = farm.wait_run(run, Duration::from_secs(60)).await;
        assert_eq!(d.device_id.as_deref(), Some(healthy.as_str()));
        assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);
    }

    // (c) An app failure on the healthy device: class `app` in the API and in JUnit; three
    // in a row quarantine nothing.
    let suite = json!({
        "name": "broken app",
        "jobs": (0..3).map(|n| job(&site, &farm, 20 + n, "no such text")).collect::<Vec<_>>(),
    });
    let (code, created) = post(
        &farm.http,
        format!("{}/api/v1/suites", farm.base_url),
        Some(&suite.to_string()),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    let suite_id = created["suite_id"].as_str().expect("suite_id").to_string();
    for j in created["jobs"].as_array().expect("jobs") {
        let run: uuid::Uuid = j["run_id"].as_str().expect("run_id").parse().expect("uuid");
        let d = farm.wait_run(run, Duration::from_secs(60)).await;
        assert_eq!(d.status.as_str(), "failed", "{:?}", d.error);
        assert_eq!(d.device_id.as_deref(), Some(healthy.as_str()));
        let v = get_json(&farm, &format!("/api/v1/runs/{run}")).await;
        assert_eq!(v["failure_class"], "app", "{v}");
        let report = farm.report_html(run).await;
        assert!(
            report.contains("id=\"failure-class\""),
            "the report names the blame"
        );
    }
    let xml = junit_xml(&farm, &suite_id).await;
    assert_eq!(xml.matches("type=\"app\"").count(), 3, "{xml}");
    let h = device(&farm, &healthy).await;
    assert_eq!(h["health"]["state"], "healthy", "{h}");
    assert!(
        h["health"]["window"]["app_failures"].as_u64() >= Some(3),
        "{h}"
    );
    let listed = get_json(&farm, "/api/v1/runs?status=failed").await;
    assert!(
        listed
            .as_array()
            .is_some_and(|a| a.iter().all(|r| r["failure_class"] == "app")),
        "{listed}"
    );

    // (b) An admin release brings the sick device back: it receives a run again (and, still
    // sick, fails it as a `device` failure).
    let (code, rel) = post(
        &farm.http,
        format!("{}/api/v1/devices/{sick}/release", farm.base_url),
        Some(r#"{"reason": "new browser build"}"#),
    )
    .await;
    assert_eq!(code, 200, "{rel}");
    assert_eq!(rel["health"]["state"], "healthy", "{rel}");
    assert_eq!(
        rel["health"]["window"]["runs"], 0,
        "a release starts a clean window: {rel}"
    );
    let run = farm.submit(&job(&site, &farm, 30, "todos")).await;
    let d = farm.wait_run(run, Duration::from_secs(60)).await;
    assert_eq!(d.device_id.as_deref(), Some(sick.as_str()), "{:?}", d.error);
    assert_eq!(d.status.as_str(), "errored");
    let events = get_json(&farm, "/api/v1/device-health-events").await;
    let first = &events["events"][0];
    assert_eq!(
        (&first["device_id"], &first["to"], &first["reason"]),
        (&json!(sick), &json!("healthy"), &json!("new browser build")),
        "{events}"
    );
    killer.abort();
}

/// Bad input to the admin endpoints answers the API's error envelope and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_health_requests_answer_envelopes_and_change_nothing() {
    let farm = Farm::start(FarmOptions {
        worker_slots: None,
        ..Default::default()
    })
    .await;
    farm.register_sim_device("sim-h", "web", json!({}), 0).await;
    let url = |id: &str, what: &str| format!("{}/api/v1/devices/{id}/{what}", farm.base_url);
    let user = farm.client_for("default", "user").await;
    let reason = Some(r#"{"reason": "flaky USB"}"#);
    let cases: Vec<(&reqwest::Client, String, Option<&str>, u16, &str)> = vec![
        (
            &farm.http,
            url("nope", "quarantine"),
            reason,
            404,
            "not_found",
        ),
        (&farm.http, url("nope", "release"), None, 404, "not_found"),
        (&user, url("sim-h", "quarantine"), reason, 403, "forbidden"),
        (&user, url("sim-h", "release"), None, 403, "forbidden"),
        (
            &farm.http,
            url("sim-h", "quarantine"),
            Some(r#"{"reason": "  "}"#),
            422,
            "invalid_field",
        ),
        (
            &farm.http,
            url("sim-h", "quarantine"),
            None,
            400,
            "malformed_body",
        ),
        (
            &farm.http,
            url("sim-h", "quarantine"),
            Some(r#"{"reason": "x", "y": 1}"#),
            422,
            "invalid_field",
        ),
        (&farm.http, url("sim-h", "release"), None, 409, "conflict"),
    ];
    for (client, u, body, want, code) in cases {
        let (got, env) = post(client, u.clone(), body).await;
        assert_eq!(got, want, "{u} {body:?}: {env}");
        assert_eq!(env["code"], code, "{u}: {env}");
        assert!(
            env["message"].is_string() && env["hint"].is_string(),
            "{env}"
        );
    }
    let d = device(&farm, "sim-h").await;
    assert_eq!(d["health"]["state"], "healthy", "{d}");
    let (n,): (i64,) = sqlx::query_as("select count(*) from device_health_events")
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(n, 0, "nothing was recorded");
    // By hand, with a reason: quarantined (twice is a conflict), then released.
    let (got, v) = post(&farm.http, url("sim-h", "quarantine"), reason).await;
    assert_eq!(got, 200, "{v}");
    assert_eq!(
        (&v["health"]["state"], &v["health"]["reason"]),
        (&json!("quarantined"), &json!("flaky USB"))
    );
    let (got, v) = post(&farm.http, url("sim-h", "quarantine"), reason).await;
    assert_eq!((got, &v["code"]), (409, &json!("conflict")), "{v}");
    // The reason is optional for a release: `{}` releases with the default reason.
    let (got, v) = post(&farm.http, url("sim-h", "release"), Some("{}")).await;
    assert_eq!(
        (got, &v["health"]["state"]),
        (200, &json!("healthy")),
        "{v}"
    );
    let events = get_json(&farm, "/api/v1/device-health-events").await;
    assert_eq!(
        events["events"].as_array().map(Vec::len),
        Some(2),
        "{events}"
    );
    assert_eq!(
        events["events"][0]["reason"], "released by an admin",
        "{events}"
    );
}
