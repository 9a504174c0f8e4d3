//! Pins input validation at the API: malformed jobs get a 4xx envelope
//! `{code, message, hint}` that names the field, and nothing is stored.

use argus_tests::{Farm, FarmOptions};
use serde_json::{json, Value};

async fn job_rows(farm: &Farm) -> i64 {
    let n: (i64,) =
        sqlx::query_as("select (select count(*) from jobs) + (select count(*) from runs)")
            .fetch_one(&farm.pool)
            .await
            .expect("count");
    n.0
}

pub(crate) async fn raw_post(farm: &Farm, path: &str, body: &[u8]) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = farm.base_url.trim_start_matches("http://");
    let mut sock = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        farm.admin_token,
        body.len()
    );
    sock.write_all(head.as_bytes()).await.expect("head");
    let _ = sock.write_all(body).await; // may fail once the server has answered
    let mut resp = Vec::new();
    let _ = sock.read_to_end(&mut resp).await;
    let text = String::from_utf8_lossy(&resp);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn assert_envelope(body: &Value, field: Option<&str>) {
    for k in ["code", "message", "hint"] {
        assert!(body[k].is_string(), "envelope lacks {k}: {body}");
    }
    if let Some(f) = field {
        assert_eq!(body["field"].as_str(), Some(f), "{body}");
        assert!(body["message"]
            .as_str()
            .unwrap_or("")
            .contains(f.split('[').next().unwrap_or(f)));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_jobs_are_refused_and_nothing_is_stored() {
    let farm = Farm::start(FarmOptions {
        worker_slots: None,
        ..Default::default()
    })
    .await;
    let cases: Vec<(Value, u16, Option<&str>)> = vec![
        (
            json!({"platform": "symbian", "instruction": "tap \"OK\""}),
            422,
            Some("platform"),
        ),
        (json!({"platform": "web"}), 422, Some("instruction")),
        (
            json!({"platform": "web", "instruction": "   "}),
            422,
            Some("instruction"),
        ),
        (
            json!({"platform": "web", "instruction": "tap \"OK\"\nfrobnicate the page"}),
            422,
            Some("instruction[line 2]"),
        ),
        (
            json!({"platform": "web", "instruction": "tap \"OK\"", "colour": "red"}),
            422,
            Some("colour"),
        ),
        (
            json!({"platform": "web", "instruction": "tap \"OK\"", "max_steps": 0}),
            422,
            Some("max_steps"),
        ),
        (
            json!({"platform": "web", "instruction": "tap \"OK\"", "selector": {"labels": {"bad key!": "x"}}}),
            422,
            Some("selector.labels"),
        ),
        (
            json!({"platform": "web", "instruction": "tap \"OK\"", "start_url": "javascript:alert(1)"}),
            422,
            Some("start_url"),
        ),
        (
            json!({"platform": "web", "instruction": "tap \"OK\"", "mode": "telepathy"}),
            422,
            Some("mode"),
        ),
    ];
    for (body, status, field) in cases {
        let (got, env) = farm.post_job_raw(body.to_string()).await;
        assert_eq!(got, status, "{body} → {env}");
        assert_envelope(&env, field);
    }
    let (got, env) = farm.post_job_raw("{not json").await;
    assert_eq!(got, 400);
    assert_envelope(&env, None);
    // 10 MB: written over a raw socket, since the server answers 413 and may close before
    // the client has finished sending (a normal client then sees a broken pipe).
    let big = format!(
        "{{\"platform\":\"web\",\"instruction\":\"{}\"}}",
        "a".repeat(10 * 1024 * 1024)
    );
    let (got, env) = raw_post(&farm, "/api/v1/jobs", big.as_bytes()).await;
    assert_eq!(got, 413);
    assert_eq!(env["code"], "body_too_large");
    assert_eq!(job_rows(&farm).await, 0, "nothing may be stored");

    // Unknown ids are 404 envelopes, not 500s or plain text.
    for path in [
        "/api/v1/runs/nope",
        "/api/v1/jobs/00000000-0000-0000-0000-000000000000",
        "/runs/x",
        "/artifacts/runs/x/0-0-before.png",
    ] {
        let r = farm
            .http
            .get(format!("{}{path}", farm.base_url))
            .send()
            .await
            .expect("get");
        assert_eq!(r.status().as_u16(), 404, "{path}");
        assert_envelope(&r.json().await.expect("json"), None);
    }
    // A malformed selector is still refused, naming it, and nothing is stored.
    let (got, env) = farm
        .post_job_raw(
            json!({"platform": "web", "instruction": "wait 1ms",
                   "selector": {"require": ["os_version>>=14"]}})
            .to_string(),
        )
        .await;
    assert_eq!(got, 422, "{env}");
    assert!(
        env["field"].as_str().unwrap_or("").starts_with("selector"),
        "{env}"
    );
    assert_eq!(job_rows(&farm).await, 0, "nothing may be stored");
    // A valid job no registered device matches yet is queued, with a warning saying so.
    let (got, body) = farm
        .post_job_raw(
            json!({"platform": "web", "instruction": "assert screen contains \"x\""}).to_string(),
        )
        .await;
    assert_eq!(got, 201, "{body}");
    assert!(
        body["warning"]
            .as_str()
            .unwrap_or("")
            .starts_with("no registered device matches platform web"),
        "{body}"
    );
    assert_eq!(job_rows(&farm).await, 2, "job and run stored");
    // With a (busy, offline) matching device registered, a valid job is stored without a
    // warning and waits.
    farm.register_sim_device("sim-web", "web", json!({"browser": "chromium"}), 3600)
        .await;
    let (got, body) = farm
        .post_job_raw(
            json!({"platform": "web", "instruction": "assert screen contains \"x\""}).to_string(),
        )
        .await;
    assert_eq!(got, 201, "{body}");
    assert!(body.get("warning").is_none(), "{body}");
    let run: uuid::Uuid = body["run_id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("run_id");
    assert_eq!(job_rows(&farm).await, 4);
    let d: Value = farm
        .http
        .get(format!("{}/api/v1/runs/{run}", farm.base_url))
        .send()
        .await
        .expect("get")
        .json()
        .await
        .expect("json");
    assert_eq!(d["status"], "queued", "no live device, so it waits");
    // Without a token: 401 envelope on the API, redirect to /login for a browser.
    let anon = reqwest::Client::new();
    let r = anon
        .get(format!("{}/api/v1/runs/{run}", farm.base_url))
        .send()
        .await
        .expect("get");
    assert_eq!(r.status().as_u16(), 401);
    assert_envelope(&r.json().await.expect("json"), None);
    let r = anon
        .get(format!("{}/healthz", farm.base_url))
        .send()
        .await
        .expect("health");
    assert_eq!(r.status().as_u16(), 200, "health needs no token");
}

/// The submit path's label-set cache may answer "yes" from memory, but a "no" is asked of
/// the database again: a device registered a moment after an "unmatched" warning is seen at
/// once (the next submit carries no warning).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unmatched_selector_is_rechecked_in_the_database() {
    let farm = crate::bare_farm().await;
    farm.register_sim_device("rk-1", "web", json!({"rack": "r1"}), 3600)
        .await;
    let ok = json!({"platform": "web", "instruction": "wait 1ms",
        "selector": {"labels": {"rack": "r1"}}});
    farm.submit(&ok).await; // caches web's label sets
    let r9 = json!({"platform": "web", "instruction": "wait 1ms",
        "selector": {"labels": {"rack": "r9"}}});
    let (code, body) = farm.post_job_raw(r9.to_string()).await;
    assert_eq!(code, 201, "{body}");
    assert!(
        body["warning"].as_str().unwrap_or("").contains("rack=r1"),
        "{body}"
    );
    farm.register_sim_device("rk-9", "web", json!({"rack": "r9"}), 3600)
        .await;
    let (code, body) = farm.post_job_raw(r9.to_string()).await;
    assert_eq!(code, 201, "{body}");
    assert!(body.get("warning").is_none(), "{body}");
}
