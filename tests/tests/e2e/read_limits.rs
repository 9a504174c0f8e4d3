//! Pins the per-token limits on reading (issue 24, item 11), against a real coordinator:
//!
//! - a user token past its burst is answered 429 `rate_limited` with the shared envelope
//!   (`retry: true`, a hint saying how long to wait) and a `Retry-After` header; another
//!   user token is not slowed by it; a worker token heartbeating far faster is never
//!   throttled (worker tokens are not, by default);
//! - one token holds at most N live run streams (`GET /runs/{id}/live`): the first N stream
//!   (each sends the run's live key at once), the N+1th is refused with a 429 envelope and
//!   `Retry-After`, and closing one lets the next one in.

use std::time::{Duration, Instant};

use argus_coordinator::config::ReadLimits;
use argus_tests::{authed_client, Farm, FarmOptions};
use serde_json::{json, Value};

async fn farm_with(limits: ReadLimits) -> Farm {
    Farm::start(FarmOptions {
        worker_slots: None,
        limits,
        ..Default::default()
    })
    .await
}

fn assert_rate_limited(status: u16, retry_after: Option<u64>, body: &Value) {
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["code"], "rate_limited", "{body}");
    assert_eq!(body["retry"], true, "{body}");
    assert!(
        body["hint"].as_str().is_some_and(|h| h.contains("wait")),
        "{body}"
    );
    assert!(
        retry_after.is_some_and(|s| s >= 1),
        "Retry-After missing: {retry_after:?}"
    );
}

async fn get(c: &reqwest::Client, url: &str) -> (u16, Option<u64>, Value) {
    let r = c.get(url).send().await.expect("GET");
    let status = r.status().as_u16();
    let retry_after = r
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok());
    // A stream that was let in never ends: read its body only for a while.
    let body = tokio::time::timeout(Duration::from_secs(3), r.json::<Value>()).await;
    (
        status,
        retry_after,
        body.ok().and_then(|b| b.ok()).unwrap_or(Value::Null),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_token_past_its_rate_gets_429_and_a_worker_token_is_not_throttled() {
    let farm = farm_with(ReadLimits {
        rate_per_min: 6,
        worker_rate_per_min: 0,
        rate_burst: 5,
        max_streams_per_token: 0,
    })
    .await;
    let url = format!("{}/api/v1/runs", farm.base_url);
    let user = farm.client_for("a", "user").await;
    for i in 0..5 {
        let (s, _, body) = get(&user, &url).await;
        assert_eq!(s, 200, "request {i} inside the burst: {body}");
    }
    let (s, retry_after, body) = get(&user, &url).await;
    assert_rate_limited(s, retry_after, &body);
    // 6 a minute: the next request is allowed in about 10 s, and the header says so.
    assert!(retry_after.is_some_and(|s| s <= 11), "{retry_after:?}");

    // Another token has its own bucket.
    let other = farm.client_for("a", "user").await;
    assert_eq!(get(&other, &url).await.0, 200);

    // A worker token heartbeats 40 times in a row, far past any user's burst.
    let worker = farm.client_for("a", "worker").await;
    let hb = json!({"worker_id": "w-rate", "hostname": "h", "running": [],
                    "devices": [{"device_id": "d-rate", "platform": "web", "labels": {},
                                 "screen_w_px": 100, "screen_h_px": 100}]});
    for i in 0..40 {
        let r = worker
            .post(format!("{}/api/v1/workers/heartbeat", farm.base_url))
            .json(&hb)
            .send()
            .await
            .expect("heartbeat");
        assert_eq!(r.status().as_u16(), 200, "heartbeat {i} throttled");
    }
}

/// Opens the live stream of `run` and reads its first event's data.
async fn open_stream(token: &str, base: &str, run: &str) -> (reqwest::Response, String) {
    let mut r = authed_client(token)
        .get(format!("{base}/runs/{run}/live"))
        .send()
        .await
        .expect("GET live");
    assert_eq!(r.status().as_u16(), 200, "stream refused");
    let mut text = String::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !text.contains("\n\n") {
        assert!(Instant::now() < deadline, "no first event: {text:?}");
        let chunk = tokio::time::timeout(Duration::from_secs(10), r.chunk())
            .await
            .expect("first event in time")
            .expect("stream chunk")
            .expect("stream open");
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    let data = text
        .lines()
        .find_map(|l| l.strip_prefix("data:"))
        .unwrap_or_default()
        .trim()
        .to_string();
    (r, data)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_holds_at_most_n_live_streams() {
    let farm = farm_with(ReadLimits {
        rate_per_min: 0,
        worker_rate_per_min: 0,
        rate_burst: 0,
        max_streams_per_token: 2,
    })
    .await;
    let base = farm.base_url.clone();
    let token = argus_coordinator::auth::generate();
    argus_coordinator::auth::create_token(
        &farm.pool,
        "a",
        argus_coordinator::auth::Role::User,
        "test",
        &token,
    )
    .await
    .expect("token");
    // No worker: the run stays queued and its stream stays open.
    let r = authed_client(&token)
        .post(format!("{base}/api/v1/jobs"))
        .json(&json!({"platform": "web", "start_url": "about:blank",
                      "instruction": "wait 10ms"}))
        .send()
        .await
        .expect("submit");
    assert_eq!(r.status().as_u16(), 201);
    let run = r.json::<Value>().await.expect("job JSON")["run_id"]
        .as_str()
        .expect("run_id")
        .to_string();

    let (first, data) = open_stream(&token, &base, &run).await;
    assert_eq!(data, "queued:0:0", "the live key");
    let (_second, data) = open_stream(&token, &base, &run).await;
    assert_eq!(data, "queued:0:0");
    let (s, retry_after, body) =
        get(&authed_client(&token), &format!("{base}/runs/{run}/live")).await;
    assert_rate_limited(s, retry_after, &body);
    assert!(
        body["message"].as_str().is_some_and(|m| m.contains('2')),
        "the message names the limit: {body}"
    );

    // Closing a stream frees its place.
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = authed_client(&token)
            .get(format!("{base}/runs/{run}/live"))
            .send()
            .await
            .expect("GET live");
        if r.status().as_u16() == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "a closed stream kept its place");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
