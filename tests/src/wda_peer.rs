//! A loopback stand-in for WebDriverAgent: the HTTP routes the iOS driver uses, with
//! WDA-format JSON (`{"value": …, "sessionId": …}`, errors as `value.error/message`):
//! `/status`, `POST /session`, `DELETE /session/{id}`, `/session/{id}/window/size`,
//! `/session/{id}/wda/screen`, `/session/{id}/source`, `/screenshot`, and the acting routes
//! (`/actions`, `/wda/keys`, `/url`, `/wda/apps/launch`), whose bodies are recorded.

use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

/// What the peer shows: window size in points, scale, source XML, screenshot PNG.
#[derive(Clone)]
pub struct Screen {
    /// Window size, points (landscape: width > height).
    pub size_pt: (f64, f64),
    /// Pixels per point.
    pub scale: f64,
    /// `/source` XML.
    pub source: String,
    /// `/screenshot` PNG.
    pub png: Vec<u8>,
}

/// One recorded request: method, path after `/session/{id}` (or the full path), body.
pub type Call = (String, String, Value);

struct Inner {
    screen: Screen,
    sessions: Mutex<Vec<String>>,
    calls: Mutex<Vec<Call>>,
}

/// A running peer.
pub struct WdaPeer {
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    inner: Arc<Inner>,
    task: tokio::task::JoinHandle<()>,
}

type St = State<Arc<Inner>>;

fn no_session(id: &str) -> (StatusCode, Json<Value>) {
    (
        StatusCode::NOT_FOUND,
        Json(json!({"value": {"error": "invalid session id",
            "message": format!("Session does not exist: {id}"), "traceback": ""},
            "sessionId": id})),
    )
}

fn known(st: &Inner, id: &str) -> bool {
    st.sessions
        .lock()
        .map(|s| s.iter().any(|x| x == id))
        .unwrap_or(false)
}

fn record(st: &Inner, method: &str, path: &str, body: Value) {
    if let Ok(mut c) = st.calls.lock() {
        c.push((method.into(), path.into(), body));
    }
}

async fn status() -> Json<Value> {
    Json(
        json!({"value": {"ready": true, "message": "WebDriverAgent is ready to accept commands",
        "state": "success", "os": {"name": "iOS", "version": "17.4", "sdkVersion": "17.4",
        "testmanagerdVersion": 28}, "ios": {"ip": "192.168.1.20"}, "device": "iphone",
        "build": {"time": "Mar 12 2024 10:00:00", "productBundleIdentifier":
        "com.facebook.WebDriverAgentRunner"}}, "sessionId": null}),
    )
}

async fn create(State(st): St, Json(body): Json<Value>) -> Json<Value> {
    let id = uuid::Uuid::new_v4().to_string().to_uppercase();
    if let Ok(mut s) = st.sessions.lock() {
        s.push(id.clone());
    }
    record(&st, "POST", "/session", body);
    Json(
        json!({"value": {"sessionId": id, "capabilities": {"device": "iphone",
        "browserName": "Shop", "sdkVersion": "17.4", "CFBundleIdentifier": "com.example.shop"}},
        "sessionId": id}),
    )
}

async fn remove(State(st): St, Path(id): Path<String>) -> (StatusCode, Json<Value>) {
    if !known(&st, &id) {
        return no_session(&id);
    }
    if let Ok(mut s) = st.sessions.lock() {
        s.retain(|x| x != &id);
    }
    record(&st, "DELETE", "", Value::Null);
    (
        StatusCode::OK,
        Json(json!({"value": null, "sessionId": id})),
    )
}

async fn read(
    State(st): St,
    Path((id, what)): Path<(String, String)>,
) -> (StatusCode, Json<Value>) {
    if !known(&st, &id) {
        return no_session(&id);
    }
    let s = &st.screen;
    let value = match what.as_str() {
        "source" => json!(s.source),
        "window/size" => json!({"width": s.size_pt.0, "height": s.size_pt.1}),
        "wda/screen" => json!({"statusBarSize": {"width": s.size_pt.0, "height": 0},
            "scale": s.scale, "screenSize": {"width": s.size_pt.0, "height": s.size_pt.1}}),
        _ => {
            return (
                StatusCode::NOT_FOUND,
                Json(json!({"value": {"error": "unknown command",
            "message": format!("Unhandled endpoint: /session/{id}/{what}")}})),
            )
        }
    };
    (
        StatusCode::OK,
        Json(json!({"value": value, "sessionId": id})),
    )
}

async fn act(
    State(st): St,
    Path((id, what)): Path<(String, String)>,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    if !known(&st, &id) {
        return no_session(&id);
    }
    record(&st, "POST", &format!("/{what}"), body);
    (
        StatusCode::OK,
        Json(json!({"value": null, "sessionId": id})),
    )
}

/// Standard base64 with padding (what WDA sends; this crate has no base64 dependency).
fn b64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= c.len() {
                out.push(A[((n >> shift) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

async fn screenshot(State(st): St) -> Json<Value> {
    Json(json!({"value": b64(&st.screen.png), "sessionId": null}))
}

impl WdaPeer {
    /// Starts the peer on a loopback port.
    pub async fn start(screen: Screen) -> WdaPeer {
        let inner = Arc::new(Inner {
            screen,
            sessions: Mutex::new(Vec::new()),
            calls: Mutex::new(Vec::new()),
        });
        let app = Router::new()
            .route("/status", get(status))
            .route("/session", post(create))
            .route("/session/{id}", delete(remove))
            .route("/session/{id}/{*what}", get(read).post(act))
            .route("/screenshot", get(screenshot))
            .with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind wda peer");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        WdaPeer { url, inner, task }
    }

    /// Recorded calls, in order.
    pub fn calls(&self) -> Vec<Call> {
        self.inner
            .calls
            .lock()
            .map(|c| c.clone())
            .unwrap_or_default()
    }

    /// Sessions still open.
    pub fn open_sessions(&self) -> usize {
        self.inner.sessions.lock().map(|s| s.len()).unwrap_or(0)
    }
}

impl Drop for WdaPeer {
    fn drop(&mut self) {
        self.task.abort();
    }
}
