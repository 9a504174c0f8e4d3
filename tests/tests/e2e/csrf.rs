//! Pins the dashboard's defences against cross-site request forgery (issue 12):
//!
//! - the reproduction in real Chromium: a page served on *another port of the same host*
//!   (same-site, so `SameSite=Strict` cookies ride along) auto-submits a `/login` form, a
//!   `text/plain` form shaped as JSON to `/api/v1/jobs` and a cancel form to
//!   `/runs/{id}/cancel` while the victim is signed in — no job is created, the run is not
//!   cancelled and no session is opened (checked in PostgreSQL, not by the answers);
//! - the same requests sent by hand: a foreign `Origin` or `Sec-Fetch-Site: same-site` is a
//!   403 envelope; a same-origin post without the session's CSRF token is a 403; the API
//!   refuses the dashboard cookie (401); with the token, the dashboard's cancel works (303);
//! - `/logout` ends the session: the old cookie no longer opens pages;
//! - the schedules page's pause, run now, edit and delete forms without the token are 403s
//!   that change nothing; with it, pause works;
//! - the Devices page's quarantine and release forms: 403 without the token or from a user's
//!   session, the reason's refusal at its field, 404 for an unknown device, nothing changed;
//!   an admin with the token quarantines and releases.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use argus_coordinator::auth::session;
use argus_tests::Farm;
use argus_worker::device::web::browser::Browser;
use argus_worker::device::web::guard::DialogPolicy;
use argus_worker::device::web::policy::{parse_rules, HostPolicy};
use axum::routing::get;
use serde_json::{json, Value};

const JOB: &str = r#"{"platform":"web","instruction":"open https://example.invalid"}"#;

async fn count(farm: &Farm, sql: &str) -> i64 {
    let n: (i64,) = sqlx::query_as(sql)
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    n.0
}

async fn queued_run(farm: &Farm) -> uuid::Uuid {
    farm.register_sim_device("csrf-dev", "web", json!({}), 0)
        .await;
    farm.submit(&json!({"platform": "web", "instruction": "open https://example.invalid"}))
        .await
}

async fn cancel_requested(farm: &Farm, run: uuid::Uuid) -> bool {
    let r: (bool,) = sqlx::query_as("select cancel_requested from runs where id = $1")
        .bind(run)
        .fetch_one(&farm.pool)
        .await
        .expect("run row");
    r.0
}

/// The admin token's id, for opening a session the way `/login` does.
async fn admin_token_id(farm: &Farm) -> uuid::Uuid {
    let r: (uuid::Uuid,) = sqlx::query_as("select id from api_tokens where token_sha256 = $1")
        .bind(argus_coordinator::auth::digest(&farm.admin_token))
        .fetch_one(&farm.pool)
        .await
        .expect("admin token row");
    r.0
}

/// The attacker: a page on another port of 127.0.0.1 that fires three forms at the
/// coordinator on load, then calls home at `/done`.
async fn attacker(base: &str, run: uuid::Uuid, token: &str) -> (String, Arc<Mutex<bool>>) {
    let page = format!(
        r#"<!doctype html><html><body>
<iframe name="f1"></iframe><iframe name="f2"></iframe><iframe name="f3"></iframe>
<form id="login" method="post" action="{base}/login" target="f1">
  <input name="token" value="{token}"></form>
<form id="job" method="post" action="{base}/api/v1/jobs" enctype="text/plain" target="f2">
  <input name='{{"platform":"web","instruction":"open https://evil.invalid","name":"' value='x"}}'></form>
<form id="cancel" method="post" action="{base}/runs/{run}/cancel" target="f3">
  <input name="csrf" value=""></form>
<script>
document.getElementById('login').submit();
document.getElementById('job').submit();
document.getElementById('cancel').submit();
setTimeout(() => {{ new Image().src = '/done'; }}, 2000);
</script></body></html>"#
    );
    let done = Arc::new(Mutex::new(false));
    let flag = done.clone();
    let app = axum::Router::new()
        .route("/", get(move || async move { axum::response::Html(page) }))
        .route(
            "/done",
            get(move || async move {
                if let Ok(mut d) = flag.lock() {
                    *d = true;
                }
                ""
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind attacker");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}/"), done)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cross_port_forms_in_chromium_change_nothing() {
    let farm = crate::bare_farm().await;
    let run = queued_run(&farm).await;
    let jobs_before = count(&farm, "select count(*) from jobs").await;

    // The victim is signed in to the dashboard.
    let victim = session::create(&farm.pool, admin_token_id(&farm).await)
        .await
        .expect("session");
    // A person's browser, not a farm's: it may reach every loopback port.
    let browser = Browser::launch(
        &farm.services.chromium,
        &farm.worker_dir.with_extension("victim"),
        HostPolicy::new(parse_rules("127.0.0.0/8").expect("rule")),
        DialogPolicy::Dismiss,
    )
    .await
    .expect("chromium");
    browser
        .cdp
        .call(
            None,
            "Storage.setCookies",
            json!({"cookies": [{
                "name": session::COOKIE, "value": victim.cookie, "domain": "127.0.0.1",
                "path": "/", "httpOnly": true, "sameSite": "Strict",
            }]}),
        )
        .await
        .expect("set cookie");
    let sessions_before = count(&farm, "select count(*) from dashboard_sessions").await;

    // The victim opens the attacker's page (same host, another port).
    let (url, done) = attacker(&farm.base_url, run, &farm.admin_token).await;
    browser
        .cdp
        .call(None, "Target.createTarget", json!({"url": url}))
        .await
        .expect("open attacker page");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done.lock().map(|d| *d).unwrap_or(false) {
        assert!(
            Instant::now() < deadline,
            "the attacker page never ran its script"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    assert_eq!(
        count(&farm, "select count(*) from jobs").await,
        jobs_before,
        "a cross-port text/plain form created a job"
    );
    assert!(
        !cancel_requested(&farm, run).await,
        "a cross-port form cancelled a run"
    );
    assert_eq!(
        count(&farm, "select count(*) from dashboard_sessions").await,
        sessions_before,
        "a cross-port /login form opened a session"
    );
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

fn assert_forbidden(status: u16, body: &Value) {
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["code"], "forbidden", "{body}");
    assert!(
        body["hint"].as_str().is_some_and(|h| !h.is_empty()),
        "{body}"
    );
    assert_eq!(body["retry"], false, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_origin_missing_token_and_cookie_on_the_api_are_refused() {
    let farm = crate::bare_farm().await;
    let run = queued_run(&farm).await;
    let s = session::create(&farm.pool, admin_token_id(&farm).await)
        .await
        .expect("session");
    let cookie = format!("{}={}", session::COOKIE, s.cookie);
    let base = &farm.base_url;
    let host = base.trim_start_matches("http://");
    let c = client();
    let cancel = format!("{base}/runs/{run}/cancel");
    let form = |csrf: &str| format!("csrf={csrf}");

    // A foreign Origin (another port of the same host), even with the right CSRF token.
    let r = c
        .post(&cancel)
        .header("cookie", &cookie)
        .header("origin", "http://127.0.0.1:1")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&s.csrf))
        .send()
        .await
        .expect("post");
    let status = r.status().as_u16();
    assert_forbidden(status, &r.json().await.unwrap_or(Value::Null));
    // Sec-Fetch-Site: same-site (what Chromium sends across ports) is not same-origin.
    let r = c
        .post(&cancel)
        .header("cookie", &cookie)
        .header("sec-fetch-site", "same-site")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&s.csrf))
        .send()
        .await
        .expect("post");
    let status = r.status().as_u16();
    assert_forbidden(status, &r.json().await.unwrap_or(Value::Null));
    // Same origin but no (or a wrong) CSRF token.
    for body in [String::new(), form("0123456789abcdef")] {
        let r = c
            .post(&cancel)
            .header("cookie", &cookie)
            .header("origin", base.as_str())
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("post");
        let status = r.status().as_u16();
        assert_forbidden(status, &r.json().await.unwrap_or(Value::Null));
    }
    // A cross-port /login post opens no session.
    let r = c
        .post(format!("{base}/login"))
        .header("origin", "http://127.0.0.1:1")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={}", farm.admin_token))
        .send()
        .await
        .expect("login");
    assert_eq!(r.status().as_u16(), 403);
    assert!(r.headers().get("set-cookie").is_none());
    // The API never takes the dashboard cookie: a text/plain job post is a 401.
    let r = c
        .post(format!("{base}/api/v1/jobs"))
        .header("cookie", &cookie)
        .header("content-type", "text/plain")
        .body(JOB)
        .send()
        .await
        .expect("api post");
    assert_eq!(r.status().as_u16(), 401);
    let body: Value = r.json().await.unwrap_or(Value::Null);
    assert_eq!(body["code"], "unauthorized", "{body}");
    assert!(!cancel_requested(&farm, run).await);
    assert_eq!(count(&farm, "select count(*) from jobs").await, 1);

    // The dashboard's own form (same origin, session token) still cancels.
    let r = c
        .post(&cancel)
        .header("cookie", &cookie)
        .header("origin", base.as_str())
        .header("host", host)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&s.csrf))
        .send()
        .await
        .expect("post");
    assert_eq!(r.status().as_u16(), 303);
    assert!(cancel_requested(&farm, run).await);

    // Pages render the session's token into their forms (here the sign-out form).
    let html = c
        .get(format!("{base}/devices"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("page")
        .text()
        .await
        .expect("html");
    assert!(html.contains(&format!("value=\"{}\"", s.csrf)), "{html}");

    // Sign-out ends the session and clears the cookie.
    let r = c
        .post(format!("{base}/logout"))
        .header("cookie", &cookie)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(&s.csrf))
        .send()
        .await
        .expect("logout");
    assert_eq!(r.status().as_u16(), 303);
    let set = r
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    assert!(set.contains("Max-Age=0"), "{set}");
    let r = c
        .get(format!("{base}/"))
        .header("cookie", &cookie)
        .header("accept", "text/html")
        .send()
        .await
        .expect("page");
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(
        r.headers().get("location").and_then(|v| v.to_str().ok()),
        Some("/login")
    );
}

/// The schedules page's forms (pause, resume, run now, edit, delete) are refused without
/// the session's CSRF token and leave the schedule as it was; with it, pause works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schedule_forms_need_the_csrf_token() {
    let farm = crate::bare_farm().await;
    let r = farm
        .http
        .post(format!("{}/api/v1/schedules", farm.base_url))
        .json(
            &json!({"name": "guarded", "cron": "0 9 * * *", "timezone": "UTC",
            "template": {"platform": "web", "instruction": "wait 1s"}}),
        )
        .send()
        .await
        .expect("create");
    assert_eq!(r.status().as_u16(), 201);
    let id = r.json::<Value>().await.expect("json")["schedule_id"]
        .as_str()
        .expect("id")
        .to_string();
    let s = session::create(&farm.pool, admin_token_id(&farm).await)
        .await
        .expect("session");
    let cookie = format!("{}={}", session::COOKIE, s.cookie);
    let base = &farm.base_url;
    let post = |action: &str, body: String| {
        client()
            .post(format!("{base}/schedules/{id}/{action}"))
            .header("cookie", &cookie)
            .header("origin", base.as_str())
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
    };
    let edit = "name=renamed&cron=0+10+*+*+*&timezone=UTC&platform=web&instruction=wait+1s";
    for (action, body) in [
        ("pause", String::new()),
        ("run", String::new()),
        ("edit", edit.to_string()),
        ("delete", "csrf=0123456789abcdef".to_string()),
    ] {
        let r = post(action, body).send().await.expect("post");
        let status = r.status().as_u16();
        assert_forbidden(status, &r.json().await.unwrap_or(Value::Null));
    }
    let row = format!(
        "select count(*) from schedules where id = '{id}' and name = 'guarded' and not paused"
    );
    assert_eq!(count(&farm, &row).await, 1, "unchanged");
    assert_eq!(
        count(&farm, "select count(*) from jobs").await,
        0,
        "no run now"
    );
    let r = post("pause", format!("csrf={}", s.csrf))
        .send()
        .await
        .expect("post");
    assert_eq!(r.status().as_u16(), 303);
    let paused = format!("select count(*) from schedules where id = '{id}' and paused");
    assert_eq!(count(&farm, &paused).await, 1);
}

/// The Devices page's admin forms (issue 27): without the CSRF token, from a user's session,
/// with an empty reason or for an unknown device they are refused and nothing changes; an
/// admin with the token quarantines with a reason and releases.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn device_forms_need_the_csrf_token_an_admin_and_a_reason() {
    let farm = crate::bare_farm().await;
    let dev = "csrf-rack-1";
    farm.register_sim_device(dev, "ios", json!({}), 0).await;
    let admin = session::create(&farm.pool, admin_token_id(&farm).await)
        .await
        .expect("session");
    let user_id = argus_coordinator::auth::create_token(
        &farm.pool,
        "qa",
        "user".parse().expect("role"),
        "csrf user",
        &argus_coordinator::auth::generate(),
    )
    .await
    .expect("user token");
    let user = session::create(&farm.pool, user_id)
        .await
        .expect("user session");
    let base = &farm.base_url;
    let post = |s: &session::Session, path: String, body: String| {
        client()
            .post(format!("{base}{path}"))
            .header("cookie", format!("{}={}", session::COOKIE, s.cookie))
            .header("origin", base.as_str())
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
    };
    let events = "select count(*) from device_health_events";
    let quarantine = format!("/devices/{dev}/quarantine");
    // No token; a user's session with its token: 403 envelopes.
    let r = post(&admin, quarantine.clone(), "reason=x".into())
        .send()
        .await
        .expect("post");
    assert_forbidden(r.status().as_u16(), &r.json().await.unwrap_or(Value::Null));
    let r = post(
        &user,
        quarantine.clone(),
        format!("csrf={}&reason=x", user.csrf),
    )
    .send()
    .await
    .expect("post");
    assert_forbidden(r.status().as_u16(), &r.json().await.unwrap_or(Value::Null));
    // An empty reason: the form again, the API's message at the field.
    let r = post(
        &admin,
        quarantine.clone(),
        format!("csrf={}&reason=+", admin.csrf),
    )
    .send()
    .await
    .expect("post");
    assert_eq!(r.status().as_u16(), 422);
    let page = r.text().await.expect("page");
    assert!(
        page.contains("id=\"error-reason\"") && page.contains("reason has 0 characters"),
        "{page}"
    );
    // An unknown device: 404, its message on the page.
    let r = post(
        &admin,
        "/devices/no-such-device/quarantine".into(),
        format!("csrf={}&reason=gone", admin.csrf),
    )
    .send()
    .await
    .expect("post");
    assert_eq!(r.status().as_u16(), 404);
    let r = client()
        .get(format!("{base}/devices/no-such-device/quarantine"))
        .header("cookie", format!("{}={}", session::COOKIE, admin.cookie))
        .send()
        .await
        .expect("get");
    assert_eq!(r.status().as_u16(), 404, "no form for an unknown device");
    // Releasing a healthy device: 409, the refusal shown above the table, and the page
    // does not reload itself (a reload would GET the post's URL).
    let r = post(
        &admin,
        format!("/devices/{dev}/release"),
        format!("csrf={}", admin.csrf),
    )
    .send()
    .await
    .expect("post");
    assert_eq!(r.status().as_u16(), 409);
    let page = r.text().await.expect("page");
    assert!(
        page.contains("id=\"action-error\"") && !page.contains("http-equiv=\"refresh\""),
        "{page}"
    );
    assert_eq!(count(&farm, events).await, 0, "nothing changed");
    // An admin with the token: quarantined with the reason, then released.
    let r = post(
        &admin,
        quarantine,
        format!("csrf={}&reason=rack+power+check", admin.csrf),
    )
    .send()
    .await
    .expect("post");
    assert_eq!(r.status().as_u16(), 303);
    let held = format!(
        "select count(*) from device_health where device_id = '{dev}' and state = 'quarantined'"
    );
    assert_eq!(count(&farm, &held).await, 1);
    let r = post(
        &admin,
        format!("/devices/{dev}/release"),
        format!("csrf={}", admin.csrf),
    )
    .send()
    .await
    .expect("post");
    assert_eq!(r.status().as_u16(), 303);
    assert_eq!(count(&farm, &held).await, 0);
    assert_eq!(count(&farm, events).await, 2);
}
