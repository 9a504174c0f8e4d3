//! Pins what each token may do (issue 12):
//!
//! - a `worker` token may heartbeat and nothing else: listing runs or submitting a job is a
//!   403 envelope;
//! - a device id (and a worker id) belongs to the token that first registered it: a
//!   heartbeat from another token naming it is refused with a 403 envelope and the device
//!   row keeps its owner; revoking the owner frees the id;
//! - a revoked or expired token is refused (401) everywhere; a used token records its
//!   last use;
//! - sign-in is throttled per client address: after five failures even a good token is
//!   refused with a 429 envelope and `Retry-After`.

use argus_coordinator::auth::{self, tokens};
use argus_tests::{authed_client, Farm};
use serde_json::{json, Value};

async fn mint(farm: &Farm, team: &str, role: &str) -> (String, uuid::Uuid) {
    let t = auth::generate();
    let id = auth::create_token(&farm.pool, team, role.parse().expect("a role"), "test", &t)
        .await
        .expect("token");
    (t, id)
}

fn heartbeat(worker: &str, device: &str) -> Value {
    json!({
        "worker_id": worker, "hostname": "h", "running": [],
        "devices": [{"device_id": device, "platform": "web", "labels": {},
                     "screen_w_px": 100, "screen_h_px": 100}],
    })
}

async fn post(c: &reqwest::Client, url: String, body: &Value) -> (u16, Value) {
    let r = c.post(url).json(body).send().await.expect("post");
    let s = r.status().as_u16();
    (s, r.json().await.unwrap_or(Value::Null))
}

async fn get(c: &reqwest::Client, url: String) -> (u16, Value) {
    let r = c.get(url).send().await.expect("get");
    let s = r.status().as_u16();
    (s, r.json().await.unwrap_or(Value::Null))
}

fn assert_code(got: &(u16, Value), status: u16, code: &str) {
    assert_eq!(got.0, status, "{}", got.1);
    assert_eq!(got.1["code"], code, "{}", got.1);
    assert!(got.1["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(got.1["hint"].as_str().is_some_and(|m| !m.is_empty()));
    assert!(got.1["retry"].is_boolean());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_tokens_only_heartbeat_and_own_their_devices() {
    let farm = crate::bare_farm().await;
    let base = &farm.base_url;
    let (wa, wa_id) = mint(&farm, "default", "worker").await;
    let (wb, _) = mint(&farm, "default", "worker").await;
    let (a, b) = (authed_client(&wa), authed_client(&wb));

    let hb = post(
        &a,
        format!("{base}/api/v1/workers/heartbeat"),
        &heartbeat("wa", "dev-1"),
    )
    .await;
    assert_eq!(hb.0, 200, "{}", hb.1);
    // Worker tokens can no longer list runs or submit jobs.
    assert_code(
        &get(&a, format!("{base}/api/v1/runs")).await,
        403,
        "forbidden",
    );
    let job = json!({"platform": "web", "instruction": "open https://example.invalid"});
    assert_code(
        &post(&a, format!("{base}/api/v1/jobs"), &job).await,
        403,
        "forbidden",
    );
    let jobs: (i64,) = sqlx::query_as("select count(*) from jobs")
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(jobs.0, 0);

    // Another identity heartbeating the same device id (or worker id) is refused.
    let takeover = post(
        &b,
        format!("{base}/api/v1/workers/heartbeat"),
        &heartbeat("wb", "dev-1"),
    )
    .await;
    assert_code(&takeover, 403, "forbidden");
    assert!(takeover.1["message"]
        .as_str()
        .unwrap_or("")
        .contains("dev-1"));
    let same_worker = post(
        &b,
        format!("{base}/api/v1/workers/heartbeat"),
        &heartbeat("wa", "dev-2"),
    )
    .await;
    assert_code(&same_worker, 403, "forbidden");
    let owner: (String,) = sqlx::query_as("select worker_id from devices where id = 'dev-1'")
        .fetch_one(&farm.pool)
        .await
        .expect("device row");
    assert_eq!(owner.0, "wa");
    let dev2: (i64,) = sqlx::query_as("select count(*) from devices where id = 'dev-2'")
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(dev2.0, 0, "a refused heartbeat registered its devices");

    // Revoking the owner frees the id for the replacement token.
    assert!(tokens::revoke(&farm.pool, wa_id).await.expect("revoke"));
    let hb = post(
        &b,
        format!("{base}/api/v1/workers/heartbeat"),
        &heartbeat("wb", "dev-1"),
    )
    .await;
    assert_eq!(hb.0, 200, "{}", hb.1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revoked_and_expired_tokens_are_refused_and_use_is_recorded() {
    let farm = crate::bare_farm().await;
    let base = &farm.base_url;
    let (t, id) = mint(&farm, "team-r", "user").await;
    let c = authed_client(&t);
    assert_eq!(get(&c, format!("{base}/api/v1/runs")).await.0, 200);
    let team_r = auth::Caller {
        team_id: "team-r".into(),
        role: auth::Role::User,
        token_id: None,
        shared_pool: false,
    }
    .scope();
    let listed = tokens::list(&farm.pool, &team_r).await.expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, id);
    assert!(listed[0].last_used_at.is_some(), "last use not recorded");

    assert!(tokens::revoke(&farm.pool, id).await.expect("revoke"));
    assert_code(
        &get(&c, format!("{base}/api/v1/runs")).await,
        401,
        "unauthorized",
    );
    assert!(tokens::list(&farm.pool, &team_r)
        .await
        .expect("list")
        .is_empty());

    let expired = auth::generate();
    auth::create_token_expiring(
        &farm.pool,
        "team-r",
        auth::Role::User,
        "old",
        &expired,
        Some(chrono::Utc::now() - chrono::Duration::seconds(1)),
    )
    .await
    .expect("token");
    let c = authed_client(&expired);
    assert_code(
        &get(&c, format!("{base}/api/v1/runs")).await,
        401,
        "unauthorized",
    );
    let job = json!({"platform": "web", "instruction": "open https://example.invalid"});
    assert_code(
        &post(&c, format!("{base}/api/v1/jobs"), &job).await,
        401,
        "unauthorized",
    );
    // An expired token cannot sign in to the dashboard either.
    let r = reqwest::Client::new()
        .post(format!("{base}/login"))
        .form(&[("token", expired.as_str())])
        .send()
        .await
        .expect("login");
    assert_eq!(r.status().as_u16(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_is_throttled_per_address() {
    let farm = crate::bare_farm().await;
    let c = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let login = |token: String| {
        c.post(format!("{}/login", farm.base_url))
            .form(&[("token", token)])
            .send()
    };
    for _ in 0..5 {
        let r = login("wrong".into()).await.expect("login");
        assert_eq!(r.status().as_u16(), 401);
    }
    let r = login(farm.admin_token.clone()).await.expect("login");
    assert_eq!(r.status().as_u16(), 429);
    let retry_after: u64 = r
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After");
    assert!((1..=60).contains(&retry_after));
    assert!(r.headers().get("set-cookie").is_none());
    let body: Value = r.json().await.expect("envelope");
    assert_eq!(body["code"], "rate_limited", "{body}");
    assert_eq!(body["retry"], true);
    // Bearer tokens from the same address are not throttled (only sign-in is).
    let (s, _) = get(&farm.http, format!("{}/api/v1/runs", farm.base_url)).await;
    assert_eq!(s, 200);
}
