//! Pins input hygiene and the error envelope (issue 12):
//!
//! - NUL and other control characters in a job's name, instruction (line breaks and tabs
//!   excepted) or labels are a 422 naming the field — not a 500 — and nothing is stored;
//!   the same in suites and schedules; a job name is at most 200 characters;
//! - every rejection is the JSON envelope `{code, message, hint, retry}`: a bad query value
//!   (422 naming the parameter), an oversized suite body (413), a malformed heartbeat
//!   (422), a wrong method (405);
//! - schedules refuse unknown fields;
//! - `/devices` links a busy device's run only for the run's own team.

use argus_tests::{authed_client, Farm};
use serde_json::{json, Value};

async fn rows(farm: &Farm) -> i64 {
    let n: (i64,) = sqlx::query_as(
        "select (select count(*) from jobs) + (select count(*) from runs)
              + (select count(*) from schedules)",
    )
    .fetch_one(&farm.pool)
    .await
    .expect("count");
    n.0
}

fn assert_envelope(got: &(u16, Value), status: u16, code: &str, field: Option<&str>) {
    let (s, body) = got;
    assert_eq!(*s, status, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert!(
        body["hint"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert!(body["retry"].is_boolean(), "{body}");
    if let Some(f) = field {
        assert_eq!(body["field"].as_str(), Some(f), "{body}");
    }
}

async fn send(farm: &Farm, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let m: reqwest::Method = method.parse().expect("method");
    let mut r = farm.http.request(m, format!("{}{path}", farm.base_url));
    if let Some(b) = body {
        r = r.json(b);
    }
    let r = r.send().await.expect("request");
    let s = r.status().as_u16();
    let ct = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let text = r.text().await.unwrap_or_default();
    assert!(
        ct.starts_with("application/json"),
        "{method} {path}: {s} answered {ct:?}: {text}"
    );
    (s, serde_json::from_str(&text).unwrap_or(Value::Null))
}

fn job(extra: Value) -> Value {
    let mut j = json!({"platform": "web", "instruction": "open https://example.invalid"});
    if let (Some(j), Some(e)) = (j.as_object_mut(), extra.as_object()) {
        j.extend(e.clone());
    }
    j
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_characters_and_long_names_are_422s_naming_the_field() {
    let farm = crate::bare_farm().await;
    farm.register_sim_device("hy-1", "web", json!({"os": "linux"}), 0)
        .await;
    let cases = [
        (job(json!({"name": "a\u{0}b"})), "name"),
        (
            job(json!({"instruction": "open https://example.invalid\u{0}"})),
            "instruction",
        ),
        (
            job(json!({"instruction": "open https://example.invalid\u{1b}[2J"})),
            "instruction",
        ),
        (
            job(json!({"selector": {"labels": {"os": "li\u{0}nux"}}})),
            "selector.labels.os",
        ),
        (job(json!({"name": "x".repeat(201)})), "name"),
    ];
    for (body, field) in &cases {
        let got = send(&farm, "POST", "/api/v1/jobs", Some(body)).await;
        assert_envelope(&got, 422, "invalid_field", Some(field));
    }
    let suite = json!({"name": "s\u{0}", "jobs": [job(json!({"name": "j"}))]});
    let got = send(&farm, "POST", "/api/v1/suites", Some(&suite)).await;
    assert_envelope(&got, 422, "invalid_field", Some("name"));
    let suite = json!({"name": "s", "jobs": [job(json!({"name": "j\u{7}"}))]});
    let got = send(&farm, "POST", "/api/v1/suites", Some(&suite)).await;
    assert_envelope(&got, 422, "invalid_field", Some("jobs[0].name"));
    let sched = json!({"name": "p", "cron": "*/5 * * * *",
        "template": job(json!({"instruction": "open https://example.invalid\u{0}"}))});
    let got = send(&farm, "POST", "/api/v1/schedules", Some(&sched)).await;
    assert_envelope(&got, 422, "invalid_field", Some("template.instruction"));
    assert_eq!(rows(&farm).await, 0, "nothing may be stored");

    // Line breaks and tabs in the instruction and 200-character names are fine.
    farm.submit(&job(json!({
        "name": "é".repeat(200),
        "instruction": "open https://example.invalid\n\twait 1ms",
    })))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rejection_is_a_json_envelope() {
    let farm = crate::bare_farm().await;
    // Bad query-string values name the parameter.
    for (q, field) in [
        ("limit=lots", "limit"),
        ("since=yesterday", "since"),
        ("suite=not-a-uuid", "suite"),
        ("label=os%3Dli%00nux", "label"),
    ] {
        let got = send(&farm, "GET", &format!("/api/v1/runs?{q}"), None).await;
        assert_envelope(&got, 422, "invalid_field", Some(field));
    }
    // A suite body over the limit (1 MiB in tests), over a raw socket.
    let big = format!(
        "{{\"name\":\"s\",\"jobs\":[{{\"platform\":\"web\",\"instruction\":\"{}\"}}]}}",
        "a".repeat(2 * 1024 * 1024)
    );
    let (s, body) = crate::bad_input::raw_post(&farm, "/api/v1/suites", big.as_bytes()).await;
    assert_envelope(&(s, body), 413, "body_too_large", None);
    // A heartbeat of the wrong shape.
    let hb = json!({"worker_id": "w1", "hostname": "h", "devices": "none", "running": []});
    let got = send(&farm, "POST", "/api/v1/workers/heartbeat", Some(&hb)).await;
    assert_envelope(&got, 422, "invalid_field", Some("devices"));
    let hb = json!({"worker_id": "w1", "hostname": "h\u{0}", "devices": [], "running": []});
    let got = send(&farm, "POST", "/api/v1/workers/heartbeat", Some(&hb)).await;
    assert_envelope(&got, 422, "invalid_field", Some("hostname"));
    // A wrong method.
    let (s, body) = send(&farm, "PUT", "/api/v1/jobs", Some(&json!({}))).await;
    assert_eq!(s, 405, "{body}");
    assert!(
        body["code"].is_string() && body["hint"].is_string(),
        "{body}"
    );
    // Schedules refuse unknown fields (a misspelt `timezone` must not mean UTC).
    farm.register_sim_device("hy-2", "web", json!({}), 0).await;
    let sched = json!({"name": "p", "cron": "*/5 * * * *", "time_zone": "Europe/Paris",
        "template": job(json!({}))});
    let got = send(&farm, "POST", "/api/v1/schedules", Some(&sched)).await;
    assert_envelope(&got, 422, "invalid_field", Some("time_zone"));
    assert_eq!(rows(&farm).await, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devices_page_links_a_run_only_for_its_team() {
    let farm = crate::bare_farm().await;
    farm.register_sim_device("shared-1", "web", json!({}), 0)
        .await;
    let a = farm.client_for("team-a", "user").await;
    let r = a
        .post(format!("{}/api/v1/jobs", farm.base_url))
        .json(&job(json!({})))
        .send()
        .await
        .expect("submit");
    assert_eq!(r.status().as_u16(), 201);
    let run: Value = r.json().await.expect("json");
    let run_id = run["run_id"].as_str().expect("run id").to_string();
    sqlx::query("update devices set current_run_id = $1::uuid where id = 'shared-1'")
        .bind(&run_id)
        .execute(&farm.pool)
        .await
        .expect("occupy");
    let page = |c: reqwest::Client| {
        let url = format!("{}/devices", farm.base_url);
        async move {
            c.get(url)
                .send()
                .await
                .expect("page")
                .text()
                .await
                .expect("html")
        }
    };
    let b_token = argus_coordinator::auth::generate();
    argus_coordinator::auth::create_token(
        &farm.pool,
        "team-b",
        argus_coordinator::auth::Role::User,
        "b",
        &b_token,
    )
    .await
    .expect("token");
    let seen_by_b = page(authed_client(&b_token)).await;
    assert!(seen_by_b.contains("shared-1") && seen_by_b.contains("busy"));
    assert!(!seen_by_b.contains(&run_id), "team B sees team A's run id");
    assert!(page(a).await.contains(&run_id), "team A must see its run");
    assert!(
        page(farm.http.clone()).await.contains(&run_id),
        "admins see all"
    );
}
