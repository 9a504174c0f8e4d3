//! Pins the coordinator's side of "verdicts you can trust" (issue 23): an expectation that
//! does not parse is a 4xx naming `expectations[i]` and nothing is stored; a succeeded
//! `llm` run's learned script is its exported step file (`GET /api/v1/runs/{id}/steps`,
//! `argus runs steps`) whatever its cache mode, while the replay cache is written only for
//! jobs that write it; other runs answer a 404 envelope; an `unverified` case fails its
//! suite and is a `<failure type="unverified">` in JUnit whose message is the verdict's
//! basis.

use argus_coordinator::store::claim::claim_batch;
use argus_coordinator::store::events::apply_batch;
use argus_protocol::expect::{Expectation, ExpectationSource, Verdict};
use argus_protocol::{EventBody, RunEvent, RunStatus};
use argus_tests::Farm;
use chrono::Utc;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::bare_farm;

async fn stored_rows(farm: &Farm) -> i64 {
    let n: (i64,) = sqlx::query_as(
        "select (select count(*) from jobs) + (select count(*) from runs)
                + (select count(*) from suites)",
    )
    .fetch_one(&farm.pool)
    .await
    .expect("count");
    n.0
}

async fn post(farm: &Farm, path: &str, body: &Value) -> (u16, Value) {
    let r = farm
        .http
        .post(format!("{}{path}", farm.base_url))
        .json(body)
        .send()
        .await
        .expect("post");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn get(farm: &Farm, path: &str) -> (u16, String, String) {
    let r = farm
        .http
        .get(format!("{}{path}", farm.base_url))
        .send()
        .await
        .expect("get");
    let status = r.status().as_u16();
    let ctype = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    (status, ctype, r.text().await.expect("body"))
}

fn assert_envelope(body: &Value, field: &str) {
    for k in ["code", "message", "hint"] {
        assert!(body[k].is_string(), "envelope lacks {k}: {body}");
    }
    assert!(body["retry"].is_boolean(), "{body}");
    assert_eq!(body["field"].as_str(), Some(field), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expectation_that_does_not_parse_is_refused_naming_it_and_nothing_is_stored() {
    let farm = bare_farm().await;
    let before = stored_rows(&farm).await;
    for bad in ["tap \"Confirm\"", "assert the moon"] {
        let job = json!({"platform": "web", "mode": "llm",
            "instruction": "add a todo, then confirm the counter reads 1 item left",
            "expectations": ["assert screen contains \"1 item left\"", bad]});
        let (status, body) = post(&farm, "/api/v1/jobs", &job).await;
        assert!((400..500).contains(&status), "{bad}: {status} {body}");
        assert_envelope(&body, "expectations[1]");
        let (status, body) = post(
            &farm,
            "/api/v1/suites",
            &json!({"name": "bad expectation", "jobs": [job]}),
        )
        .await;
        assert!(
            (400..500).contains(&status),
            "suite, {bad}: {status} {body}"
        );
        assert_envelope(&body, "jobs[0].expectations[1]");
    }
    assert_eq!(stored_rows(&farm).await, before, "nothing stored");
    // the same job with good expectations is taken
    let run = farm
        .submit(
            &json!({"platform": "web", "mode": "llm", "instruction": "add a todo",
            "expectations": ["assert screen contains \"1 item left\"",
                             "assert screen does not contain \"Error\""]}),
        )
        .await;
    let (status, _, body) = get(&farm, &format!("/api/v1/runs/{run}")).await;
    assert_eq!(status, 200, "{body}");
}

fn ev(run: Uuid, att: Uuid, seq: u64, body: EventBody) -> RunEvent {
    RunEvent {
        run_id: run,
        attempt_id: att,
        seq,
        at: Utc::now(),
        body,
    }
}

fn expectation(line: &str) -> Expectation {
    Expectation {
        line: line.into(),
        source: ExpectationSource::Instruction,
        clause: Some("confirm 1 item left".into()),
    }
}

fn verdict(basis: &str) -> Verdict {
    Verdict {
        basis: basis.into(),
        expectation: Some("assert screen contains \"1 item left\"".into()),
        step: Some(1),
        action: Some(0),
        observation: Some(7),
        claim: Some("done".into()),
    }
}

/// Claims every queued run onto `pool`-labelled sim devices; `(run, attempt)` per run.
async fn claim_all(farm: &Farm, pool_label: &str, runs: &[Uuid]) -> Vec<(Uuid, Uuid)> {
    for i in 0..runs.len() {
        farm.register_sim_device(
            &format!("{pool_label}-{i}"),
            "web",
            json!({"pool": pool_label}),
            60,
        )
        .await;
    }
    let claimed = claim_batch(&farm.pool, 600, 30, 256).await.expect("claim");
    runs.iter()
        .map(|r| {
            let c = claimed.iter().find(|c| c.run_id == *r).expect("claimed");
            (*r, c.attempt_id)
        })
        .collect()
}

/// A worker's events of a run that reported `expectations`, learned `script` (if any) and
/// ended `status` with `verdict`.
fn run_events(
    run: Uuid,
    att: Uuid,
    script: Option<&str>,
    status: RunStatus,
    verdict: Option<Verdict>,
) -> Vec<RunEvent> {
    let mut bodies = vec![
        EventBody::RunStarted {
            device_id: "d".into(),
            screen_w_px: 800,
            screen_h_px: 600,
        },
        EventBody::Expectations {
            items: vec![expectation("assert screen contains \"1 item left\"")],
        },
    ];
    if let Some(s) = script {
        bodies.push(EventBody::ReplayLearned { script: s.into() });
    }
    bodies.push(EventBody::RunFinished {
        status,
        error: None,
        verdict,
        failure_class: None,
    });
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, b)| ev(run, att, i as u64 + 1, b))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_succeeded_llm_run_exports_its_steps_and_other_runs_answer_a_404_envelope() {
    let farm = bare_farm().await;
    let sel = json!({"labels": {"pool": "exp"}});
    let script = "open \"http://127.0.0.1:1/\"\ntype \"milk\" into \"What needs to be done?\"\n\
                  press Enter\nassert screen contains \"1 item left\"\n";
    let llm = |cache: &str| {
        json!({"platform": "web", "mode": "llm", "name": format!("todo {cache}"),
            "instruction": "add milk, then confirm 1 item left", "cache": cache,
            "selector": sel})
    };
    let off = farm.submit(&llm("off")).await;
    let rw = farm.submit(&llm("read_write")).await;
    let scripted = farm
        .submit(&json!({"platform": "web", "instruction": "wait 1ms", "selector": sel}))
        .await;
    let claimed = claim_all(&farm, "exp", &[off, rw, scripted]).await;
    // before it ends, the run has no step file
    let (status, ctype, body) = get(&farm, &format!("/api/v1/runs/{off}/steps")).await;
    assert_eq!(status, 404, "{body}");
    assert!(ctype.starts_with("application/json"), "{ctype}");
    let env: Value = serde_json::from_str(&body).expect("envelope");
    for k in ["code", "message", "hint"] {
        assert!(env[k].is_string(), "{env}");
    }
    assert_eq!(env["retry"], false);
    assert!(
        env["hint"]
            .as_str()
            .unwrap_or("")
            .contains("only a succeeded llm or vlm run"),
        "{env}"
    );
    let mut evs = Vec::new();
    for (run, att) in &claimed {
        let (s, st) = if *run == scripted {
            (None, RunStatus::Succeeded)
        } else {
            (Some(script), RunStatus::Succeeded)
        };
        evs.extend(run_events(*run, *att, s, st, Some(verdict("1 of 1 held"))));
    }
    apply_batch(&farm.pool, &evs).await.expect("apply");
    // the step file: a header naming the run and the job, then the learned script
    for (run, job) in [(off, "todo off"), (rw, "todo read_write")] {
        let (status, ctype, body) = get(&farm, &format!("/api/v1/runs/{run}/steps")).await;
        assert_eq!(status, 200, "{body}");
        assert!(ctype.starts_with("text/plain"), "{ctype}");
        assert_eq!(body, format!("# run {run} of job {job}\n{script}"));
    }
    // the replay cache only for the job that writes it; the step file for both
    let cached: Vec<(Uuid,)> = sqlx::query_as("select source_run_id from replay_cache")
        .fetch_all(&farm.pool)
        .await
        .expect("cache");
    assert_eq!(cached, vec![(rw,)]);
    // a script run has none; neither has an unknown run
    let (status, _, body) = get(&farm, &format!("/api/v1/runs/{scripted}/steps")).await;
    assert_eq!(status, 404, "{body}");
    let (status, _, body) = get(&farm, &format!("/api/v1/runs/{}/steps", Uuid::new_v4())).await;
    assert_eq!(status, 404, "{body}");
    // the detail carries the expectations and the verdict
    let (_, _, body) = get(&farm, &format!("/api/v1/runs/{off}")).await;
    let d: Value = serde_json::from_str(&body).expect("detail");
    assert_eq!(
        d["expectations"][0]["line"],
        "assert screen contains \"1 item left\""
    );
    assert_eq!(d["verdict"]["basis"], "1 of 1 held");
    // the report links the download; `argus runs steps` prints the same file
    let (_, _, html) = get(&farm, &format!("/runs/{off}")).await;
    assert!(html.contains("id=\"download-steps\""), "download link");
    let (_, _, html) = get(&farm, &format!("/runs/{scripted}")).await;
    assert!(
        !html.contains("id=\"download-steps\""),
        "no link without a file"
    );
    let cli = |run: Uuid| {
        std::process::Command::new(argus_tests::procs::argus_bin())
            .args([
                "runs",
                "steps",
                &run.to_string(),
                "--server",
                &farm.base_url,
            ])
            .env("ARGUS_API_TOKEN", &farm.admin_token)
            .output()
            .expect("argus runs steps")
    };
    let out = cli(off);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("# run {off} of job todo off\n{script}")
    );
    let out = cli(scripted);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("only a succeeded llm or vlm run"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unverified_case_fails_its_suite_and_is_a_junit_failure_of_its_own_type() {
    let farm = bare_farm().await;
    let sel = json!({"labels": {"pool": "uv"}});
    let (status, body) = post(
        &farm,
        "/api/v1/suites",
        &json!({"name": "nightly", "jobs": [
            {"platform": "web", "mode": "llm", "name": "checked", "instruction": "add milk",
             "expectations": ["assert screen contains \"milk\""], "selector": sel},
            {"platform": "web", "mode": "llm", "name": "unchecked", "instruction": "add milk",
             "selector": sel}]}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let suite = body["suite_id"].as_str().expect("suite id").to_string();
    let runs: Vec<Uuid> = body["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| j["run_id"].as_str().expect("run").parse().expect("uuid"))
        .collect();
    let claimed = claim_all(&farm, "uv", &runs).await;
    let basis = "no expectation to check: the instruction has no checkable clause";
    let mut evs = run_events(
        claimed[0].0,
        claimed[0].1,
        None,
        RunStatus::Succeeded,
        Some(verdict("1 of 1 expectations held on observation 7")),
    );
    let unverified = Verdict {
        basis: basis.into(),
        claim: Some("I added milk".into()),
        ..Default::default()
    };
    evs.extend(run_events(
        claimed[1].0,
        claimed[1].1,
        None,
        RunStatus::Unverified,
        Some(unverified),
    ));
    apply_batch(&farm.pool, &evs).await.expect("apply");
    let (status, _, body) = get(&farm, &format!("/api/v1/suites/{suite}")).await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("suite");
    assert_eq!(v["verdict"], "failed", "{v}");
    assert_eq!(
        (v["passed"].as_u64(), v["unverified"].as_u64()),
        (Some(1), Some(1))
    );
    let (status, _, xml) = get(&farm, &format!("/api/v1/suites/{suite}/junit.xml")).await;
    assert_eq!(status, 200, "{xml}");
    assert!(xml.contains(r#"tests="2" failures="1""#), "{xml}");
    let case = &xml[xml.find("name=\"unchecked\"").expect("case")..];
    let case = &case[..case.find("</testcase>").expect("end")];
    assert!(
        case.contains(&format!(
            "<failure message=\"{basis}\" type=\"unverified\">"
        )),
        "{case}"
    );
    let checked = &xml[xml.find("name=\"checked\"").expect("case")..];
    let checked = &checked[..checked.find("</testcase>").expect("end")];
    assert!(!checked.contains("<failure"), "{checked}");
    // the report: its own status style, the basis, the claim labelled as a claim
    let (_, _, html) = get(&farm, &format!("/runs/{}", claimed[1].0)).await;
    assert!(html.contains("class=\"badge unverified\""), "status style");
    assert!(html.contains(basis), "basis");
    assert!(html.contains("id=\"verdict-claim\""), "claim");
    // the dashboard filters by it
    let (_, _, page) = get(&farm, "/?status=unverified").await;
    assert!(page.contains(&claimed[1].0.to_string()), "filtered list");
    assert!(!page.contains(&claimed[0].0.to_string()), "filtered list");
}
