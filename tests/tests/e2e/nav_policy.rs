//! Pins what a job can reach from a shared farm's worker (security issue 12), each by an
//! observation the worker does not make: the test's own servers count what arrived, and the
//! page reports its own fetch results to the app server.
//!
//! - `file:`, `chrome:`, `view-source:`, `javascript:` URLs are refused at submit (4xx naming
//!   the field), nothing stored.
//! - With the worker allowing exactly the app's port: a page's fetch / XHR / `<img>` /
//!   `<iframe>` / `window.open` / a dedicated worker's fetch to another loopback port, the S3 filer, the worker's DevTools
//!   port and the coordinator all fail (the other server sees no request); a redirect to a
//!   blocked port and an `open` of one fail the run "blocked by the navigation policy"; a
//!   page's own navigation to `file:` goes nowhere.
//! - With the worker allowing all of 127.0.0.1: the coordinator, the object store and the
//!   DevTools port stay unreachable (the never list beats the allow list).
//! - `alert` / `confirm` on a page, and TodoMVC's `<img src=x onerror=alert(4)>` todo, end
//!   their step quickly with the dialog recorded in the action's detail; `confirm` answers
//!   "cancel" by default (the page says so to the server).
//! - A job naming a model endpoint the worker does not list fails with a clear message and
//!   that endpoint never sees a connection.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use argus_protocol::RunDetail;
use argus_tests::site::Site;
use argus_tests::{Farm, FarmOptions};
use axum::extract::{Path, State};
use axum::response::{Html, IntoResponse, Redirect};
use axum::routing::{any, get, post};
use axum::Router;
use serde_json::{json, Value};

/// A loopback server that counts every request it gets (the "internal service").
struct Other {
    addr: SocketAddr,
    hits: Arc<AtomicU64>,
}

async fn other_server(ip: [u8; 4]) -> Other {
    let hits = Arc::new(AtomicU64::new(0));
    let h = hits.clone();
    let app = Router::new().fallback(any(move || {
        let h = h.clone();
        async move {
            h.fetch_add(1, Ordering::SeqCst);
            Html("<title>Internal</title><p>internal secret</p>")
        }
    }));
    let listener = tokio::net::TcpListener::bind(SocketAddr::from((ip, 0)))
        .await
        .expect("bind other");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Other { addr, hits }
}

/// The app under test: a probe page that fetches `targets` and reports the results, a
/// dialog page, two redirects.
#[derive(Clone, Default)]
struct AppState {
    targets: Arc<Mutex<BTreeMap<String, String>>>,
    other: Arc<Mutex<String>>,
    results: Arc<Mutex<Vec<Value>>>,
}

/// Its "Files" button marks itself tried before the refused navigation: a tap on a button
/// must show an effect (`argus_worker::effect`), and the refusal itself shows none.
const PROBE: &str = r#"<!doctype html><title>Probe</title><h1>Probe</h1><p id="out">running</p>
<img src="OTHER/img" alt=""><iframe src="OTHER/frame" title="frame"></iframe>
<button onclick="window.open('OTHER/popup')">Pop</button>
<button onclick="this.textContent='Files (tried)'; location.href='file:///etc/passwd'">Files</button>
<script>
const targets = TARGETS;
function viaFetch(u) {
  return fetch(u, {mode: 'no-cors'}).then(() => 'reached', () => 'failed');
}
function viaWs(u) {
  return new Promise(r => { const ws = new WebSocket(u);
    ws.onopen = () => { ws.close(); r('reached'); }; ws.onerror = () => r('failed');
    setTimeout(() => r('failed'), 5000); });
}
function viaXhr(u) {
  return new Promise(r => { const x = new XMLHttpRequest(); x.open('GET', u);
    x.onload = () => r('reached'); x.onerror = () => r('failed'); x.send(); });
}
(async () => {
  const out = {};
  for (const [k, u] of Object.entries(targets)) {
    out[k] = await (k.startsWith('xhr') ? viaXhr(u) : k.startsWith('ws') ? viaWs(u) : viaFetch(u));
  }
  out.worker = await new Promise(r => {
    const w = new Worker(URL.createObjectURL(new Blob([
      "fetch('OTHER/worker', {mode: 'no-cors'}).then(() => postMessage('reached'), () => postMessage('failed'))"
    ], {type: 'text/javascript'})));
    w.onmessage = e => r(e.data); w.onerror = () => r('no worker');
  });
  await fetch('/__result', {method: 'POST', body: JSON.stringify(out)});
  document.getElementById('out').textContent = 'done ' +
    Object.entries(out).map(([k, v]) => k + '=' + v).join(' ');
})();
</script>"#;

const DIALOGS: &str = r#"<!doctype html><title>Dialogs</title><h1>Dialogs</h1>
<p id="out">idle</p>
<button onclick="const ok = confirm('Delete everything?');
  document.getElementById('out').textContent = ok ? 'confirmed' : 'cancelled';
  fetch('/__result', {method: 'POST', body: JSON.stringify({confirm: ok})});">Delete</button>
<script>alert('Welcome <b>back</b>');</script>"#;

async fn start_app(state: AppState) -> String {
    let app = Router::new()
        .route(
            "/probe",
            get(|State(st): State<AppState>| async move {
                let targets = st.targets.lock().expect("lock").clone();
                let other = st.other.lock().expect("lock").clone();
                Html(
                    PROBE
                        .replace("TARGETS", &json!(targets).to_string())
                        .replace("OTHER", &other),
                )
            }),
        )
        .route("/dialogs", get(|| async { Html(DIALOGS) }))
        .route("/ok", get(|| async { "ok" }))
        .route(
            "/redirect/{to}",
            get(
                |State(st): State<AppState>, Path(to): Path<String>| async move {
                    match to.as_str() {
                        "file" => Redirect::temporary("file:///etc/passwd").into_response(),
                        _ => {
                            let other = st.other.lock().expect("lock").clone();
                            Redirect::temporary(&format!("{other}/redirected")).into_response()
                        }
                    }
                },
            ),
        )
        .route(
            "/__result",
            post(|State(st): State<AppState>, body: String| async move {
                if let Ok(v) = serde_json::from_str(&body) {
                    st.results.lock().expect("lock").push(v);
                }
                "ok"
            }),
        )
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind app");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

fn devtools_port(farm: &Farm) -> String {
    let s = std::fs::read_to_string(farm.worker_dir.join("chromium").join("DevToolsActivePort"))
        .expect("DevToolsActivePort");
    s.lines().next().unwrap_or_default().trim().to_string()
}

fn details(d: &RunDetail) -> String {
    d.steps
        .iter()
        .flat_map(|s| s.actions.iter())
        .map(|a| a.detail.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Submits `spec` and waits (90 s) for its run to end; on a timeout, fails with what the
/// run did so far.
async fn run(farm: &Farm, spec: Value) -> RunDetail {
    let id = farm.submit(&spec).await;
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let d: RunDetail = farm
            .http
            .get(format!("{}/api/v1/runs/{id}", farm.base_url))
            .send()
            .await
            .expect("GET run")
            .json()
            .await
            .expect("run JSON");
        if d.status.is_terminal() {
            return d;
        }
        assert!(
            Instant::now() < deadline,
            "run still {} after 90 s; steps so far:\n{:#?}",
            d.status.as_str(),
            d.steps
                .iter()
                .map(|s| (&s.text, &s.error, details_of(s)))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn details_of(s: &argus_protocol::StepView) -> Vec<String> {
    s.actions.iter().map(|a| a.detail.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn local_and_script_urls_are_refused_at_submit() {
    let farm = super::bare_farm().await;
    let cases = [
        (json!({"start_url": "file:///etc/passwd"}), "start_url"),
        (json!({"start_url": "chrome://version"}), "start_url"),
        (
            json!({"start_url": "view-source:http://127.0.0.1/"}),
            "start_url",
        ),
        (
            json!({"instruction": "press Enter\nopen file:///etc/passwd"}),
            "instruction[line 2]",
        ),
        (
            json!({"instruction": "open javascript:alert(document.cookie)"}),
            "instruction[line 1]",
        ),
        (
            json!({"instruction": "open devtools://devtools/bundled/inspector.html"}),
            "instruction[line 1]",
        ),
    ];
    for (extra, field) in cases {
        let mut spec = json!({"platform": "web", "instruction": "press Enter"});
        for (k, v) in extra.as_object().expect("object") {
            spec[k] = v.clone();
        }
        let (status, body) = farm.post_job_raw(spec.to_string()).await;
        assert!((400..500).contains(&status), "{spec} → {status} {body}");
        assert_eq!(body["field"], field, "{body}");
        assert!(
            body["message"]
                .as_str()
                .unwrap_or_default()
                .contains("navigation policy"),
            "{body}"
        );
    }
    let jobs: (i64,) = sqlx::query_as("select count(*) from jobs")
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(jobs.0, 0, "nothing refused was stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pages_reach_only_the_allowed_app() {
    let other = other_server([127, 0, 0, 1]).await;
    let state = AppState::default();
    let app = start_app(state.clone()).await;
    let site = Site::todomvc().await;
    // A "model endpoint" the job names but the worker does not list.
    let foreign = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let foreign_addr = foreign.local_addr().expect("addr");
    let foreign_hits = Arc::new(AtomicU64::new(0));
    let fh = foreign_hits.clone();
    tokio::spawn(async move {
        while foreign.accept().await.is_ok() {
            fh.fetch_add(1, Ordering::SeqCst);
        }
    });
    let farm = Farm::start(
        FarmOptions::default()
            .allowing(&app)
            .allowing(&site.base_url),
    )
    .await;
    let other_url = format!("http://{}", other.addr);
    *state.other.lock().expect("lock") = other_url.clone();
    *state.targets.lock().expect("lock") = BTreeMap::from([
        ("self".to_string(), format!("{app}/ok")),
        ("other".to_string(), format!("{other_url}/fetch")),
        ("xhr_other".to_string(), format!("{other_url}/xhr")),
        ("filer".to_string(), "http://127.0.0.1:8888/".to_string()),
        (
            "devtools".to_string(),
            format!("http://127.0.0.1:{}/json/version", devtools_port(&farm)),
        ),
        (
            "coordinator".to_string(),
            format!("{}/healthz", farm.base_url),
        ),
        (
            "localhost_other".to_string(),
            format!("http://localhost:{}/", other.addr.port()),
        ),
    ]);

    // 1. The probe page: only its own origin answers; popups and file: go nowhere.
    let t0 = Instant::now();
    let d = run(
        &farm,
        json!({"platform": "web", "start_url": format!("{app}/probe"),
            "instruction": "wait for \"done\"\ntap \"Pop\"\nwait 500ms\ntap \"Files\"\nwait 500ms\nassert screen contains \"self=reached\""}),
    )
    .await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?}\n{}",
        d.error,
        details(&d)
    );
    let results = state.results.lock().expect("lock").clone();
    let r = results.first().cloned().expect("the page reported");
    assert_eq!(r["self"], "reached", "{r}");
    for k in [
        "other",
        "worker",
        "xhr_other",
        "filer",
        "devtools",
        "coordinator",
        "localhost_other",
    ] {
        assert_eq!(r[k], "failed", "{k} must be unreachable: {r}");
    }
    let all = details(&d);
    assert!(
        all.contains("blocked ") && all.contains("a loopback address"),
        "blocked requests are in the report: {all}"
    );
    assert!(!all.contains("internal secret"));
    eprintln!("probe run: {:.1} s", t0.elapsed().as_secs_f64());

    // 2. A redirect to a blocked port fails the open with the policy's reason.
    let d = run(
        &farm,
        json!({"platform": "web", "start_url": format!("{app}/redirect/other"),
            "instruction": "assert screen contains \"internal secret\""}),
    )
    .await;
    assert_eq!(d.status.as_str(), "failed", "{:?}", d.error);
    let e = d.error.clone().unwrap_or_default();
    assert!(e.contains("navigation policy"), "{e}");
    eprintln!("redirect to a blocked port: {e}");

    // 3. A redirect to file: goes nowhere.
    let d = run(
        &farm,
        json!({"platform": "web", "start_url": format!("{app}/redirect/file"),
            "instruction": "assert screen contains \"root:x:0:0\""}),
    )
    .await;
    assert_eq!(d.status.as_str(), "failed", "{:?}", d.error);

    eprintln!("redirect to file: {:?}", d.error);

    // 4. An `open` of a blocked port is refused before the browser sends anything.
    let d = run(
        &farm,
        json!({"platform": "web", "instruction": format!("open {other_url}/opened")}),
    )
    .await;
    assert_eq!(d.status.as_str(), "failed", "{:?}", d.error);
    let e = d.error.clone().unwrap_or_default();
    assert!(
        e.contains("navigation policy") && e.contains("loopback"),
        "{e}"
    );
    assert_eq!(
        other.hits.load(Ordering::SeqCst),
        0,
        "the internal server must never see a request"
    );

    // 5. Dialogs never hang a step: recorded, dismissed; the page says "cancelled".
    let t0 = Instant::now();
    let d = run(
        &farm,
        json!({"platform": "web", "start_url": format!("{app}/dialogs"), "timeout_s": 120,
            "instruction": "tap \"Delete\"\nwait for \"cancelled\""}),
    )
    .await;
    let took = t0.elapsed();
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?}\n{}",
        d.error,
        details(&d)
    );
    assert!(took < Duration::from_secs(30), "dialogs took {took:?}");
    eprintln!("dialogs run: {took:?}");
    let all = details(&d);
    assert!(
        all.contains("alert dialog \"Welcome <b>back</b>\" dismissed"),
        "{all}"
    );
    assert!(
        all.contains("confirm dialog \"Delete everything?\" dismissed"),
        "{all}"
    );
    assert_eq!(
        all.matches("confirm dialog").count(),
        1,
        "noted once: {all}"
    );
    let results = state.results.lock().expect("lock").clone();
    assert!(
        results.iter().any(|v| v["confirm"] == json!(false)),
        "{results:?}"
    );

    // 6. TodoMVC with a todo that alerts: the step ends, the dialog is on the record.
    let t0 = Instant::now();
    let d = run(
        &farm,
        json!({"platform": "web", "timeout_s": 120,
            "start_url": site.example_url("vanillajs", "alert"),
            "instruction": "type \"<img src=x onerror=alert(4)>\" into \"What needs to be done?\"\npress Enter\nwait 1s\nassert screen contains \"1 item left\""}),
    )
    .await;
    let took = t0.elapsed();
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?}\n{}",
        d.error,
        details(&d)
    );
    assert!(
        took < Duration::from_secs(30),
        "the alert run took {took:?}"
    );
    eprintln!("TodoMVC alert run: {took:?}");
    let all = details(&d);
    assert!(all.contains("alert dialog \"4\" dismissed"), "{all}");

    // 7. A model endpoint the worker does not list: refused, never contacted.
    let d = run(
        &farm,
        json!({"platform": "web", "mode": "llm", "start_url": format!("{app}/ok"),
            "instruction": "check the page",
            "model": {"base_url": format!("http://{foreign_addr}/v1")}}),
    )
    .await;
    assert!(
        matches!(d.status.as_str(), "failed" | "errored"),
        "{:?}",
        d.status
    );
    let e = d.error.clone().unwrap_or_default();
    assert!(e.contains("model endpoints"), "{e}");
    assert_eq!(foreign_hits.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn argus_services_stay_unreachable_even_when_allow_listed() {
    let state = AppState::default();
    let app = start_app(state.clone()).await;
    // Every port of 127.0.0.1 is allowed.
    let farm = Farm::start(FarmOptions {
        allow_hosts: "127.0.0.1".into(),
        ..Default::default()
    })
    .await;
    *state.targets.lock().expect("lock") = BTreeMap::from([
        ("self".to_string(), format!("{app}/ok")),
        (
            "devtools".to_string(),
            format!("http://127.0.0.1:{}/json/version", devtools_port(&farm)),
        ),
        (
            "coordinator".to_string(),
            format!("{}/healthz", farm.base_url),
        ),
        (
            "coordinator_by_other_name".to_string(),
            format!(
                "{}/healthz",
                farm.base_url.replace("127.0.0.1", "127.0.0.2")
            ),
        ),
        ("s3".to_string(), format!("{}/", farm.s3.endpoint)),
    ]);
    *state.other.lock().expect("lock") = app.clone();
    let d = run(
        &farm,
        json!({"platform": "web", "start_url": format!("{app}/probe"),
            "instruction": "wait for \"done\""}),
    )
    .await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?}\n{}",
        d.error,
        details(&d)
    );
    let r = state
        .results
        .lock()
        .expect("lock")
        .first()
        .cloned()
        .expect("the page reported");
    assert_eq!(r["self"], "reached", "{r}");
    for k in ["devtools", "coordinator", "coordinator_by_other_name", "s3"] {
        assert_eq!(r[k], "failed", "{k} must stay unreachable: {r}");
    }
    let all = details(&d);
    assert!(all.contains("never reachable from a page"), "{all}");
}

/// An app Argus attached to (Electron; Chromium stands in, as in `electron.rs`): its dialogs
/// are answered and recorded too, and its own `data:` page is not policed.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn attached_app_dialogs_are_answered_and_recorded() {
    let chromium = std::env::var("ARGUS_CHROMIUM").unwrap_or("/usr/lib/chromium/chromium".into());
    let dir = std::env::temp_dir().join(format!("argus-nav-app-{}", uuid::Uuid::new_v4().simple()));
    let profile = dir.join("profile");
    let _app = tokio::process::Command::new(&chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(
            "data:text/html,<title>App</title><button onclick=\"document.title = \
             confirm('Quit the app?') ? 'yes' : 'no'; \
             document.getElementById('o').textContent = 'answered'\">Quit</button><p id=o>idle</p>",
        )
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the stand-in app");
    let deadline = Instant::now() + Duration::from_secs(30);
    let port = loop {
        if let Ok(s) = std::fs::read_to_string(profile.join("DevToolsActivePort")) {
            if let Some(p) = s.lines().next().and_then(|l| l.trim().parse::<u16>().ok()) {
                break p;
            }
        }
        assert!(Instant::now() < deadline, "no DevTools port");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let base = format!("http://127.0.0.1:{port}");
    let farm = Farm::start(FarmOptions {
        platform: argus_protocol::Platform::Electron,
        drivers: argus_worker::DriverConfig {
            cdp_url: Some(base.clone()),
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let t0 = Instant::now();
    let d = run(
        &farm,
        json!({"platform": "electron", "instruction": "tap \"Quit\"\nwait for \"answered\""}),
    )
    .await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?}\n{}",
        d.error,
        details(&d)
    );
    assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
    let all = details(&d);
    assert!(
        all.contains("confirm dialog \"Quit the app?\" dismissed"),
        "{all}"
    );
    // The app itself says the dialog was cancelled.
    let pages: Vec<Value> = reqwest::get(format!("{base}/json/list"))
        .await
        .expect("json/list")
        .json()
        .await
        .expect("json");
    assert!(pages.iter().any(|p| p["title"] == "no"), "{pages:?}");
    drop(farm);
    let _ = std::fs::remove_dir_all(dir);
}

/// Chromium of a root worker runs as the unprivileged browser user (created by dev-up) with
/// its sandbox on: every process whose command line names the worker's profile has a
/// non-zero uid and no `--no-sandbox` (read from /proc, not from the worker's log).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_runs_unprivileged_with_its_sandbox() {
    let running_as_root = std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
    });
    let user_exists = std::fs::read_to_string("/etc/passwd")
        .is_ok_and(|p| p.lines().any(|l| l.starts_with("argus-browser:")));
    assert!(
        !running_as_root || user_exists,
        "the browser user argus-browser is missing: run deploy/dev-up.sh"
    );
    let farm = argus_tests::Farm::start(argus_tests::FarmOptions::default()).await;
    let profile = farm.worker_dir.join("chromium");
    let profile = profile.to_string_lossy().to_string();
    let mut seen = 0;
    for entry in std::fs::read_dir("/proc").expect("proc").flatten() {
        let pid = entry.file_name().to_string_lossy().to_string();
        if !pid.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmd
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).to_string())
            .collect();
        if !args.iter().any(|a| a.contains(&profile)) {
            continue;
        }
        seen += 1;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let uid = status
            .lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .unwrap_or("?")
            .to_string();
        if running_as_root {
            assert_ne!(uid, "0", "pid {pid} runs as root: {args:?}");
        }
        assert!(
            !args.iter().any(|a| a == "--no-sandbox"),
            "pid {pid} runs without its sandbox: {args:?}"
        );
    }
    assert!(seen > 0, "no Chromium process names the profile {profile}");
}

/// A WebSocket server on `ip` that completes every handshake (an allowed app's socket).
async fn ws_server(ip: [u8; 4]) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from((ip, 0)))
        .await
        .expect("bind ws");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                if let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await {
                    use futures::StreamExt;
                    while let Some(Ok(_)) = ws.next().await {}
                }
            });
        }
    });
    addr
}

/// A TCP listener on `ip` that counts the connections it is offered (an internal service
/// that a WebSocket handshake's bytes must never reach).
async fn counting_listener(ip: [u8; 4]) -> (SocketAddr, Arc<AtomicU64>) {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from((ip, 0)))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let n = Arc::new(AtomicU64::new(0));
    let c = n.clone();
    tokio::spawn(async move {
        while listener.accept().await.is_ok() {
            c.fetch_add(1, Ordering::SeqCst);
        }
    });
    (addr, n)
}

/// Issue 24, item 5, through a whole farm: what the host policy cannot decide is refused.
/// With all of 127.0.0.1 allowed, the object store's other ports (SeaweedFS filer, master,
/// volume — the worker's `--object-store-ports`) stay unreachable like its S3 port; a
/// WebSocket to a private address never reaches its listener (a socket on an allowed host
/// still opens); an `open` of a name that does not resolve fails as a policy refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn what_the_policy_cannot_decide_is_refused() {
    let state = AppState::default();
    let app = start_app(state.clone()).await;
    let ws_ok = ws_server([127, 0, 0, 1]).await;
    let (ws_private, ws_private_hits) = counting_listener([127, 0, 0, 2]).await;
    let farm = Farm::start(FarmOptions {
        allow_hosts: "127.0.0.1".into(),
        ..Default::default()
    })
    .await;
    let store = reqwest::Url::parse(&farm.s3.endpoint).expect("S3 endpoint");
    let store_host = store.host_str().expect("S3 host").to_string();
    let mut targets = BTreeMap::from([
        ("self".to_string(), format!("{app}/ok")),
        ("ws_self".to_string(), format!("ws://{ws_ok}/")),
        ("ws_private".to_string(), format!("ws://{ws_private}/")),
    ]);
    for (what, port) in [("filer", 8888), ("master", 9333), ("volume", 9340)] {
        targets.insert(what.to_string(), format!("http://{store_host}:{port}/"));
    }
    *state.targets.lock().expect("lock") = targets;
    *state.other.lock().expect("lock") = app.clone();
    let d = run(
        &farm,
        json!({"platform": "web", "start_url": format!("{app}/probe"),
            "instruction": "wait for \"done\""}),
    )
    .await;
    assert_eq!(
        d.status.as_str(),
        "succeeded",
        "{:?}\n{}",
        d.error,
        details(&d)
    );
    let r = state
        .results
        .lock()
        .expect("lock")
        .first()
        .cloned()
        .expect("the page reported");
    // Every refusal is checked before any assertion, so a failure names all that leaked.
    let mut leaks = Vec::new();
    for k in ["self", "ws_self"] {
        if r[k] != "reached" {
            leaks.push(format!("{k} must be reachable: {}", r[k]));
        }
    }
    for k in ["filer", "master", "volume", "ws_private"] {
        if r[k] != "failed" {
            leaks.push(format!("{k} must stay unreachable: {}", r[k]));
        }
    }
    let n = ws_private_hits.load(Ordering::SeqCst);
    if n > 0 {
        leaks.push(format!(
            "the private WebSocket listener saw {n} connection(s)"
        ));
    }
    let all = details(&d);
    let d = run(
        &farm,
        json!({"platform": "web", "instruction": "open http://nonexistent.invalid/"}),
    )
    .await;
    let e = d.error.clone().unwrap_or_default();
    if d.status.as_str() != "failed"
        || !(e.contains("navigation policy") && e.contains("could not be resolved"))
    {
        leaks.push(format!(
            "open of a name that does not resolve: {} {e:?}",
            d.status.as_str()
        ));
    }
    assert!(leaks.is_empty(), "{}\npage: {r}", leaks.join("\n"));
    assert!(all.contains("the object store"), "{all}");
}
