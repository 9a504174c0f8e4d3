//! Pins that a worker secret belongs to one team (issue 24, item 1): the assignment carries
//! the job's team and the worker resolves only that team's `${secret.NAME}`s.
//!
//! One worker holds `ARGUS_SECRET_PW` (team `default`) and `ARGUS_SECRET_a__PW` (team `a`).
//! The same job, typing `${secret.PW}` into a sign-in form, is submitted by each team: team
//! `default`'s page receives its value and team `a`'s page its own; team `b`'s run fails
//! before its first action with an error naming `PW` and never a value, and its page
//! receives nothing (read from the page's own log, not the worker's answer).

use std::time::Duration;

use argus_protocol::RunDetail;
use argus_tests::site::Site;
use argus_tests::{Farm, FarmOptions};
use serde_json::{json, Value};

/// Submits `spec` as `client`'s team and waits for the run to end.
async fn run_as(farm: &Farm, client: &reqwest::Client, spec: &Value) -> RunDetail {
    let r = client
        .post(format!("{}/api/v1/jobs", farm.base_url))
        .json(spec)
        .send()
        .await
        .expect("POST job");
    assert_eq!(r.status().as_u16(), 201, "submit refused");
    let body: Value = r.json().await.expect("job JSON");
    let run_id = body["run_id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("run_id");
    farm.wait_run(run_id, Duration::from_secs(120)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_team_types_only_its_own_secrets() {
    let of_default = format!("dflt-{}", uuid::Uuid::new_v4().simple());
    let of_a = format!("alpha-{}", uuid::Uuid::new_v4().simple());
    let site = Site::todomvc().await;
    let mut opts = FarmOptions::default().allowing(&site.base_url);
    opts.model.env_secrets = vec![
        ("PW".into(), of_default.clone()),
        ("a__PW".into(), of_a.clone()),
    ];
    let farm = Farm::start(opts).await;
    let team_a = farm.client_for("a", "user").await;
    let team_b = farm.client_for("b", "user").await;
    let spec = json!({"platform": "web",
        "start_url": format!("{}/login.html", site.base_url),
        "instruction": "type \"alice\" into \"Username\"\n\
                        type \"${secret.PW}\" into \"Password\"\n\
                        tap \"Sign in\"\n\
                        assert screen contains \"Welcome, alice\"",
        "timeout_s": 90});
    let login = |pw: &str| json!({"user": "alice", "password": pw});

    // The farm's admin token is team `default`'s.
    let d = run_as(&farm, &farm.http, &spec).await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "team default: {:?}",
        d.error
    );
    assert_eq!(site.logins(), vec![login(&of_default)]);

    let b = run_as(&farm, &team_b, &spec).await;
    assert_eq!(
        b.status.as_str(),
        "failed",
        "team b typed another team's secret: {:?}",
        b.error
    );
    let e = b.error.clone().unwrap_or_default();
    assert!(
        e.contains("\"PW\"") && e.contains("team \"b\""),
        "the error names the secret and the team: {e}"
    );
    assert!(
        !e.contains(&of_default) && !e.contains(&of_a),
        "the error holds a value: {e}"
    );
    assert!(b.steps.is_empty(), "team b's run acted: {:#?}", b.steps);
    assert_eq!(site.logins().len(), 1, "team b's run reached the page");

    let a = run_as(&farm, &team_a, &spec).await;
    assert_eq!(a.status.as_str(), "succeeded", "team a: {:?}", a.error);
    assert_eq!(
        site.logins(),
        vec![login(&of_default), login(&of_a)],
        "team a typed its own value"
    );
}
