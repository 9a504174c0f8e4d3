//! A thin Chrome DevTools Protocol client over one WebSocket (tokio-tungstenite).
//!
//! Commands are JSON `{id, method, params, sessionId?}`; the reader task resolves the pending
//! command with the same id and broadcasts everything else as an event. Chosen over
//! chromiumoxide because that crate's generated types parse enums strictly and new Chromium
//! values have broken it before; here we read only the fields we use.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

/// Default time limit of one CDP command.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// A CDP failure.
#[derive(Debug, thiserror::Error)]
pub enum CdpError {
    /// Could not open the WebSocket.
    #[error("cannot connect to the browser's DevTools socket: {0}")]
    Connect(String),
    /// The socket closed (browser gone).
    #[error("the DevTools connection is closed (did the browser exit?)")]
    Closed,
    /// No answer in time.
    #[error("CDP {method} got no answer within {timeout_ms} ms")]
    Timeout { method: String, timeout_ms: u128 },
    /// The browser answered with an error.
    #[error("CDP {method} failed: {message}")]
    Protocol { method: String, message: String },
}

/// An event: `(sessionId, method, params)`.
#[derive(Debug, Clone)]
pub struct CdpEvent {
    pub session_id: Option<String>,
    pub method: String,
    pub params: Value,
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>>;

/// A connection to one browser.
pub struct Cdp {
    out: mpsc::UnboundedSender<Message>,
    pending: Pending,
    /// Set once the socket closed (the browser is gone): every call from then on fails
    /// [`CdpError::Closed`] at once instead of waiting out its timeout.
    closed: Arc<AtomicBool>,
    next_id: AtomicU64,
    events: broadcast::Sender<CdpEvent>,
}

impl Cdp {
    /// Connects to `ws://127.0.0.1:<port>/devtools/browser/<id>`.
    pub async fn connect(ws_url: &str) -> Result<Arc<Cdp>, CdpError> {
        let (ws, _) = tokio_tungstenite::connect_async(ws_url)
            .await
            .map_err(|e| CdpError::Connect(e.to_string()))?;
        let (mut sink, mut stream) = ws.split();
        let (out, mut out_rx) = mpsc::unbounded_channel::<Message>();
        let pending: Pending = Arc::new(Mutex::new(HashMap::new()));
        let (events, _) = broadcast::channel(1024);
        tokio::spawn(async move {
            while let Some(msg) = out_rx.recv().await {
                if sink.send(msg).await.is_err() {
                    break;
                }
            }
        });
        let pending_r = pending.clone();
        let events_r = events.clone();
        let closed = Arc::new(AtomicBool::new(false));
        let closed_r = closed.clone();
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let Message::Text(text) = msg else { continue };
                let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
                    continue;
                };
                if let Some(id) = v.get("id").and_then(Value::as_u64) {
                    let tx = pending_r.lock().ok().and_then(|mut p| p.remove(&id));
                    if let Some(tx) = tx {
                        let res = match v.get("error") {
                            Some(e) => Err(e
                                .get("message")
                                .and_then(Value::as_str)
                                .unwrap_or("unknown error")
                                .to_string()),
                            None => Ok(v.get("result").cloned().unwrap_or(Value::Null)),
                        };
                        let _ = tx.send(res);
                    }
                } else if let Some(method) = v.get("method").and_then(Value::as_str) {
                    let _ = events_r.send(CdpEvent {
                        session_id: v.get("sessionId").and_then(Value::as_str).map(String::from),
                        method: method.to_string(),
                        params: v.get("params").cloned().unwrap_or(Value::Null),
                    });
                }
            }
            // Socket closed: fail everything still waiting, and (flag first, so a call
            // that registers after the clear sees it) every later call.
            closed_r.store(true, Ordering::SeqCst);
            if let Ok(mut p) = pending_r.lock() {
                p.clear();
            }
        });
        Ok(Arc::new(Cdp {
            out,
            pending,
            closed,
            next_id: AtomicU64::new(1),
            events,
        }))
    }

    /// Whether the socket closed (the browser is gone): every call fails from then on.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    /// Subscribes to events from now on.
    pub fn events(&self) -> broadcast::Receiver<CdpEvent> {
        self.events.subscribe()
    }

    /// Sends a command and waits for its result (at most [`COMMAND_TIMEOUT`]).
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, CdpError> {
        self.call_timeout(session, method, params, COMMAND_TIMEOUT)
            .await
    }

    /// Same with an explicit timeout.
    pub async fn call_timeout(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, CdpError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_string());
        }
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            p.insert(id, tx);
        }
        if self.closed.load(Ordering::SeqCst) {
            if let Ok(mut p) = self.pending.lock() {
                p.remove(&id);
            }
            return Err(CdpError::Closed);
        }
        if self
            .out
            .send(Message::Text(msg.to_string().into()))
            .is_err()
        {
            return Err(CdpError::Closed);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(message))) => Err(CdpError::Protocol {
                method: method.to_string(),
                message,
            }),
            Ok(Err(_)) => Err(CdpError::Closed),
            Err(_) => {
                if let Ok(mut p) = self.pending.lock() {
                    p.remove(&id);
                }
                Err(CdpError::Timeout {
                    method: method.to_string(),
                    timeout_ms: timeout.as_millis(),
                })
            }
        }
    }
}
