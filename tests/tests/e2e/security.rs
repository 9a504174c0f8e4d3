//! Security of the HTTP surface and of what the farm listens on:
//!
//! - every route except `/healthz` (and the public `/login` form and OpenAPI document)
//!   needs an API token: the JSON API answers a 401 envelope, HTML pages redirect to
//!   `/login`; an unknown token is the same as none;
//! - team isolation: a token of team B gets 404 for team A's job, run, report, live
//!   stream, screenshots (real and guessed keys), suite and schedule, and never sees them
//!   in lists; team A (and an admin) sees them;
//! - the report and dashboard escape page and job text (`<script>` stays text);
//! - tokens are stored as sha256 digests only;
//! - Chromium's DevTools port listens on loopback only (from `/proc/net/tcp*`), and the
//!   shipped configs bind NATS, S3 and the CDP port to loopback.

use std::time::Duration;

use argus_tests::{authed_client, Farm, FarmOptions};
use serde_json::{json, Value};

const XSS: &str = "<script>alert(1)</script>";

/// Every route of `coordinator/src/api/*.rs`, with a sample id where it takes one.
fn all_routes(id: &str) -> Vec<(&'static str, String)> {
    vec![
        ("POST", "/api/v1/jobs".into()),
        ("GET", format!("/api/v1/jobs/{id}")),
        ("POST", format!("/api/v1/jobs/{id}/cancel")),
        ("GET", "/api/v1/runs".into()),
        ("GET", format!("/api/v1/runs/{id}")),
        ("GET", format!("/api/v1/runs/{id}/steps")),
        ("POST", format!("/api/v1/runs/{id}/cancel")),
        ("POST", "/api/v1/workers/heartbeat".into()),
        ("POST", "/api/v1/schedules".into()),
        ("GET", "/api/v1/schedules".into()),
        ("GET", format!("/api/v1/schedules/{id}")),
        ("DELETE", format!("/api/v1/schedules/{id}")),
        ("POST", format!("/api/v1/schedules/{id}/pause")),
        ("POST", format!("/api/v1/schedules/{id}/resume")),
        ("PUT", format!("/api/v1/schedules/{id}")),
        ("POST", format!("/api/v1/schedules/{id}/run")),
        ("POST", "/api/v1/suites".into()),
        ("GET", format!("/api/v1/suites/{id}")),
        ("GET", format!("/api/v1/suites/{id}/junit.xml")),
        ("GET", format!("/artifacts/runs/{id}/0-0-before.png")),
        ("GET", "/".into()),
        ("GET", "/devices".into()),
        ("GET", "/jobs/new".into()),
        ("POST", "/jobs/new".into()),
        ("GET", "/schedules".into()),
        ("POST", "/schedules".into()),
        ("POST", format!("/schedules/{id}/pause")),
        ("POST", format!("/schedules/{id}/resume")),
        ("GET", format!("/schedules/{id}/edit")),
        ("POST", format!("/schedules/{id}/edit")),
        ("POST", format!("/schedules/{id}/run")),
        ("POST", format!("/schedules/{id}/delete")),
        ("GET", "/suites".into()),
        ("GET", format!("/suites/{id}")),
        ("GET", format!("/suites/{id}/junit.xml")),
        ("POST", format!("/runs/{id}/cancel")),
        ("GET", format!("/runs/{id}/live")),
        ("GET", format!("/runs/{id}")),
        ("GET", "/no/such/route".into()),
    ]
}

fn no_redirects(token: Option<&str>) -> reqwest::Client {
    let mut b = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none());
    if let Some(t) = token {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert(
            reqwest::header::AUTHORIZATION,
            format!("Bearer {t}").parse().expect("header"),
        );
        b = b.default_headers(h);
    }
    b.build().expect("client")
}

async fn send(c: &reqwest::Client, method: &str, url: &str, html: bool) -> reqwest::Response {
    let m: reqwest::Method = method.parse().expect("method");
    let mut r = c
        .request(m, url)
        .header("content-type", "application/json")
        .body("{}");
    if html {
        r = r.header("accept", "text/html,application/xhtml+xml");
    }
    r.send().await.expect("request")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_route_but_health_needs_a_token() {
    let farm = Farm::start(FarmOptions {
        worker_slots: None,
        ..Default::default()
    })
    .await;
    let id = uuid::Uuid::new_v4().to_string();
    for token in [None, Some("argus_not-a-real-token"), Some("")] {
        let c = no_redirects(token);
        for (method, path) in all_routes(&id) {
            let url = format!("{}{path}", farm.base_url);
            // API clients: a 401 envelope, never the resource, never a 404 that leaks
            // whether the id exists.
            let r = send(&c, method, &url, false).await;
            assert_eq!(r.status().as_u16(), 401, "{method} {path} token={token:?}");
            let v: Value = r.json().await.expect("401 envelope is JSON");
            assert_eq!(v["code"], "unauthorized", "{method} {path}: {v}");
            assert!(
                v["hint"].as_str().is_some_and(|h| !h.is_empty()),
                "{method} {path}: {v}"
            );
            // Browsers on pages: a redirect to the login form.
            if !path.starts_with("/api/") {
                let r = send(&c, method, &url, true).await;
                assert!(
                    r.status().is_redirection(),
                    "{method} {path} (html): {}",
                    r.status()
                );
                assert_eq!(
                    r.headers().get("location").and_then(|l| l.to_str().ok()),
                    Some("/login"),
                    "{method} {path}"
                );
            }
        }
    }
    // The only public routes: health, the login form and the OpenAPI document.
    let c = no_redirects(None);
    for path in ["/healthz", "/login", "/api/v1/openapi.json"] {
        let r = send(&c, "GET", &format!("{}{path}", farm.base_url), false).await;
        assert_eq!(r.status().as_u16(), 200, "{path}");
    }
    // Nothing was stored by the refused requests.
    let (jobs,): (i64,) = sqlx::query_as("select count(*) from jobs")
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(jobs, 0);
}

/// A tiny site whose title, button and text carry markup.
async fn xss_site() -> (String, tokio::sync::oneshot::Sender<()>) {
    let page = "<!doctype html><html><head><title>&lt;script&gt;alert(1)&lt;/script&gt;</title></head>\
        <body><h1>&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;</h1>\
        <button onclick=\"document.getElementById('s').textContent='clicked &lt;b&gt;'\">&lt;script&gt;alert(1)&lt;/script&gt;</button>\
        <p id=\"s\" role=\"status\">idle</p></body></html>";
    let app = axum::Router::new().route(
        "/",
        axum::routing::get(move || async move { axum::response::Html(page) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind site");
    let addr = listener.local_addr().expect("addr");
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = rx.await;
            })
            .await;
    });
    (format!("http://{addr}/"), tx)
}

async fn status_of(c: &reqwest::Client, method: &str, url: &str) -> u16 {
    send(c, method, url, false).await.status().as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn teams_are_isolated_reports_escape_and_cdp_is_loopback() {
    let (url, _stop_site) = xss_site().await;
    let farm = Farm::start(FarmOptions::default().allowing(&url)).await;
    let a_token = argus_coordinator::auth::generate();
    argus_coordinator::auth::create_token(
        &farm.pool,
        "team-a",
        argus_coordinator::auth::Role::User,
        "a",
        &a_token,
    )
    .await
    .expect("token a");
    let a = authed_client(&a_token);
    let b = farm.client_for("team-b", "user").await;

    // Team A runs a job on a page full of markup, named with markup.
    let r = a
        .post(format!("{}/api/v1/jobs", farm.base_url))
        .json(&json!({
            "platform": "web", "start_url": url, "name": format!("job {XSS}"),
            "instruction": format!("assert screen contains \"{XSS}\"\ntap \"{XSS}\"\nwait for \"clicked <b>\""),
        }))
        .send()
        .await
        .expect("submit");
    assert_eq!(r.status().as_u16(), 201);
    let created: Value = r.json().await.expect("json");
    let job = created["job_id"].as_str().expect("job id").to_string();
    let run: uuid::Uuid = created["run_id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("run id");
    let d = farm.wait_run(run, Duration::from_secs(60)).await;
    assert_eq!(d.status.as_str(), "succeeded", "{:?}", d.error);

    // A suite and a schedule of team A.
    let r = a
        .post(format!("{}/api/v1/suites", farm.base_url))
        .json(&json!({"name": "sec", "jobs": [{"platform": "web", "name": "s", "instruction": "wait 1ms"}]}))
        .send()
        .await
        .expect("suite");
    assert_eq!(r.status().as_u16(), 201);
    let suite = r.json::<Value>().await.expect("json")["suite_id"]
        .as_str()
        .expect("suite id")
        .to_string();
    let r = a
        .post(format!("{}/api/v1/schedules", farm.base_url))
        .json(
            &json!({"name": "nightly", "cron": "0 3 1 1 *", "timezone": "UTC",
            "template": {"platform": "web", "instruction": "wait 1ms"}}),
        )
        .send()
        .await
        .expect("schedule");
    assert_eq!(r.status().as_u16(), 201);
    let schedule = r.json::<Value>().await.expect("json")["schedule_id"]
        .as_str()
        .expect("schedule id")
        .to_string();

    let base = &farm.base_url;
    let shot = d.steps[0].actions[0]
        .before_key
        .clone()
        .expect("before screenshot");
    let shot_file = shot.rsplit('/').next().expect("file").to_string();
    let readable = [
        format!("{base}/api/v1/jobs/{job}"),
        format!("{base}/api/v1/runs/{run}"),
        format!("{base}/runs/{run}"),
        format!("{base}/artifacts/runs/{run}/{shot_file}"),
        format!("{base}/api/v1/suites/{suite}"),
        format!("{base}/api/v1/suites/{suite}/junit.xml"),
        format!("{base}/suites/{suite}"),
        format!("{base}/api/v1/schedules/{schedule}"),
    ];
    // Team A and the admin see everything; team B gets 404 for each, like a missing id.
    for u in &readable {
        assert_eq!(status_of(&a, "GET", u).await, 200, "team A: {u}");
        assert_eq!(status_of(&farm.http, "GET", u).await, 200, "admin: {u}");
        assert_eq!(status_of(&b, "GET", u).await, 404, "team B: {u}");
    }
    let guessed = [
        "0-0-after.png",
        "1-0-before.png",
        "1-0-after.png",
        "2-0-after.png",
        "0-0-som.png",
        "999-9-before.png",
        "0123456789abcdef0123456789abcdef.jpg",
        "..%2F..%2Fruns%2Fx.png",
        "0-0-before.png%00.txt",
    ];
    for f in guessed {
        let u = format!("{base}/artifacts/runs/{run}/{f}");
        assert_eq!(status_of(&b, "GET", &u).await, 404, "team B guessed {f}");
    }
    // A key that exists in S3 for no run, through the coordinator: 404 for everyone.
    let u = format!(
        "{base}/artifacts/runs/{}/0-0-before.png",
        uuid::Uuid::new_v4()
    );
    assert_eq!(status_of(&farm.http, "GET", &u).await, 404);
    // Writes and the live stream of another team's resources are refused the same way.
    for (m, u) in [
        ("GET", format!("{base}/runs/{run}/live")),
        ("GET", format!("{base}/api/v1/runs/{run}/steps")),
        ("POST", format!("{base}/api/v1/runs/{run}/cancel")),
        ("POST", format!("{base}/api/v1/jobs/{job}/cancel")),
        ("POST", format!("{base}/runs/{run}/cancel")),
        ("POST", format!("{base}/api/v1/schedules/{schedule}/pause")),
        ("POST", format!("{base}/api/v1/schedules/{schedule}/resume")),
        ("DELETE", format!("{base}/api/v1/schedules/{schedule}")),
        ("PUT", format!("{base}/api/v1/schedules/{schedule}")),
        ("POST", format!("{base}/api/v1/schedules/{schedule}/run")),
    ] {
        assert_eq!(status_of(&b, m, &u).await, 404, "team B: {m} {u}");
    }
    let r = a
        .get(format!("{base}/runs/{run}/live"))
        .send()
        .await
        .expect("live");
    assert_eq!(r.status().as_u16(), 200, "team A's live stream");
    drop(r);
    // Lists: team B sees none of A's runs, schedules or (dashboard) jobs.
    let list = b
        .get(format!("{base}/api/v1/runs"))
        .send()
        .await
        .expect("runs")
        .text()
        .await
        .expect("text");
    assert!(!list.contains(&run.to_string()), "team B lists A's run");
    let list = b
        .get(format!("{base}/api/v1/schedules"))
        .send()
        .await
        .expect("schedules")
        .text()
        .await
        .expect("text");
    assert!(!list.contains(&schedule), "team B lists A's schedule");
    let page = b
        .get(format!("{base}/"))
        .send()
        .await
        .expect("dashboard")
        .text()
        .await
        .expect("text");
    assert!(
        !page.contains(&run.to_string()),
        "team B's dashboard shows A's run"
    );

    // The report and the dashboard render the markup as text.
    for u in [format!("{base}/runs/{run}"), format!("{base}/")] {
        let html = a
            .get(&u)
            .send()
            .await
            .expect("page")
            .text()
            .await
            .expect("text");
        assert!(
            !html.contains(XSS),
            "{u} has a raw <script> from the page/job"
        );
        assert!(
            !html.contains("clicked <b>"),
            "{u} has raw markup from the page"
        );
        // The text is still there, as entities (askama writes `&#60;`; `&lt;` is fine too).
        let decoded = ["&#60;", "&lt;", "&#62;", "&gt;", "&#47;", "&#x2f;"]
            .iter()
            .zip(["<", "<", ">", ">", "/", "/"])
            .fold(html.clone(), |h, (e, c)| h.replace(e, c));
        assert!(decoded.contains(XSS), "{u} lost the escaped text");
    }

    // Tokens are stored as sha256 digests: no column of any token row holds a clear token.
    let rows: Vec<(String,)> = sqlx::query_as("select t::text from api_tokens t")
        .fetch_all(&farm.pool)
        .await
        .expect("tokens");
    assert!(rows.len() >= 3);
    for (row,) in &rows {
        for clear in [&a_token, &farm.admin_token] {
            assert!(!row.contains(clear.as_str()), "clear token stored: {row}");
            let hex: String = clear.bytes().map(|b| format!("{b:02x}")).collect();
            assert!(!row.contains(&hex), "token stored as hex: {row}");
        }
    }
    let (n,): (i64,) = sqlx::query_as(
        "select count(*) from api_tokens where token_sha256 = $1 and team_id = 'team-a'",
    )
    .bind(argus_coordinator::auth::digest(&a_token))
    .fetch_one(&farm.pool)
    .await
    .expect("digest");
    assert_eq!(n, 1);

    // Chromium's DevTools port listens on loopback only.
    let port_file = farm.worker_dir.join("chromium").join("DevToolsActivePort");
    let port: u16 = std::fs::read_to_string(port_file)
        .expect("DevToolsActivePort")
        .lines()
        .next()
        .and_then(|l| l.trim().parse().ok())
        .expect("port");
    let binds = listening_addrs(port);
    assert!(
        !binds.is_empty(),
        "no listener found for DevTools port {port}"
    );
    for a in &binds {
        assert!(
            a == "0100007F" || a == "00000000000000000000000001000000",
            "DevTools port {port} listens on {a} (not loopback)"
        );
    }
}

/// Local addresses (kernel hex) of sockets listening on `port`, from `/proc/net/tcp{,6}`.
fn listening_addrs(port: u16) -> Vec<String> {
    let want = format!("{port:04X}");
    let mut out = Vec::new();
    for f in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            if cols.len() < 4 || cols[3] != "0A" {
                continue;
            }
            if let Some((addr, p)) = cols[1].split_once(':') {
                if p == want {
                    out.push(addr.to_string());
                }
            }
        }
    }
    out
}

/// The shipped configs keep NATS, S3 and the CDP port on loopback: dev-up binds NATS with
/// `-a 127.0.0.1` and SeaweedFS with `-ip.bind=127.0.0.1`; the worker starts Chromium with
/// `--remote-debugging-address=127.0.0.1`; the multi-host layouts in `deploy/` publish no
/// port beyond loopback except the load balancer, and keep NATS/S3 on internal networks.
#[test]
fn shipped_configs_bind_loopback() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let read =
        |p: &str| std::fs::read_to_string(root.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    let dev_up = read("deploy/dev-up.sh");
    assert!(dev_up.contains("NATS_HOST=127.0.0.1") && dev_up.contains("-a \"$NATS_HOST\""));
    assert!(dev_up.contains("-ip.bind=127.0.0.1"));
    assert!(dev_up.contains("listen_addresses = '127.0.0.1'"));
    let binds_any = |text: &str| {
        text.lines()
            .any(|l| !l.trim_start().starts_with('#') && l.contains("0.0.0.0"))
    };
    assert!(!binds_any(&dev_up), "dev-up.sh binds 0.0.0.0");
    let quick = read("deploy/quickstart.sh");
    assert!(!binds_any(&quick), "quickstart.sh binds 0.0.0.0");
    assert!(quick.contains("ARGUS_LISTEN=127.0.0.1"));
    let browser = read("worker/src/device/web/browser.rs");
    assert!(browser.contains("\"--remote-debugging-address=127.0.0.1\""));
    assert!(!browser.contains("--remote-debugging-address=0.0.0.0"));

    // compose: every published port is bound to 127.0.0.1 (the load balancer's included;
    // change it deliberately to expose the farm).
    let compose = read("deploy/compose.yaml");
    let mut in_ports = false;
    for line in compose.lines() {
        let t = line.trim();
        if t.starts_with("ports:") {
            in_ports = true;
            continue;
        }
        if in_ports && t.starts_with("- ") {
            let spec = t.trim_start_matches("- ").trim_matches('"');
            assert!(
                spec.starts_with("127.0.0.1:"),
                "compose publishes {spec:?} beyond loopback"
            );
        } else if !t.is_empty() && !t.starts_with('#') {
            in_ports = false;
        }
    }
    // Kubernetes: no Service leaves the cluster; NATS and S3 are ClusterIP only.
    for f in std::fs::read_dir(root.join("deploy/k8s")).expect("deploy/k8s") {
        let p = f.expect("entry").path();
        let text = std::fs::read_to_string(&p).expect("manifest");
        for bad in [
            "type: NodePort",
            "type: LoadBalancer",
            "hostNetwork: true",
            "hostPort:",
        ] {
            assert!(!text.contains(bad), "{}: {bad}", p.display());
        }
    }
    // systemd: the worker's Chromium is local; the units bind the coordinator to loopback
    // unless the environment file says otherwise.
    let env = read("deploy/systemd/argus.env.example");
    assert!(env.contains("ARGUS_LISTEN=127.0.0.1:8080"));
}
