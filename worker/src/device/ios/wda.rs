//! A small WebDriverAgent client over `reqwest`: JSON in, `{"value": …}` out, errors as
//! WDA reports them (`value.error` / `value.message`).

use std::time::Duration;

use serde_json::{json, Value};

use crate::device::DeviceError;

/// Longest time one WDA request may take (a `/source` of a busy screen takes seconds).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// A WDA endpoint and, once created, its session.
#[derive(Debug, Clone)]
pub struct Wda {
    http: reqwest::Client,
    base: String,
    /// The current session id.
    pub session: Option<String>,
}

impl Wda {
    /// A client for `base` (e.g. `http://127.0.0.1:8100`).
    pub fn new(base: &str) -> Result<Wda, DeviceError> {
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| DeviceError::Failed(format!("HTTP client: {e}")))?;
        Ok(Wda {
            http,
            base: base.trim_end_matches('/').to_string(),
            session: None,
        })
    }

    /// `/session/<id><path>`, or an error when no session is open.
    pub fn session_path(&self, path: &str) -> Result<String, DeviceError> {
        let id = self
            .session
            .as_deref()
            .ok_or_else(|| DeviceError::Failed("no WDA session (begin() not called)".into()))?;
        Ok(format!("/session/{id}{path}"))
    }

    /// Sends one request; returns `value`.
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, DeviceError> {
        let url = format!("{}{path}", self.base);
        let mut req = self.http.request(method.clone(), &url);
        if let Some(b) = body {
            req = req.json(&b);
        } else if method == reqwest::Method::POST {
            req = req.json(&json!({}));
        }
        let resp = req
            .send()
            .await
            .map_err(|e| DeviceError::Failed(format!("WDA {method} {path}: {e}")))?;
        let status = resp.status();
        let v: Value = resp
            .json()
            .await
            .map_err(|e| DeviceError::Failed(format!("WDA {method} {path}: not JSON: {e}")))?;
        let value = v.get("value").cloned().unwrap_or(Value::Null);
        if !status.is_success() || value.get("error").is_some() {
            let msg = value["message"]
                .as_str()
                .or(value["error"].as_str())
                .unwrap_or("error");
            return Err(DeviceError::Failed(format!(
                "WDA {method} {path}: {status}: {msg}"
            )));
        }
        Ok(value)
    }
}
