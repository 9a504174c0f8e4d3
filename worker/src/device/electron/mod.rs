//! Electron driver: attaches over CDP to an app that is already running with
//! `--remote-debugging-port` (loopback), and drives its newest window with the web driver's
//! own `tree`, `actions` and `screen` (an Electron window is a Chromium page; nothing here
//! would differ). The newest window is the first page of the endpoint's `/json/list`
//! (Chromium sorts it by last activity). See [`WebDevice::attached`]: the window's real size and device pixel ratio
//! are measured per run (screenshots come back in device px), and teardown only detaches —
//! Argus never closes a window or stops an app it did not start.

use std::sync::Arc;

use super::web::cdp::Cdp;
use super::web::{Viewport, WebDevice};
use super::DeviceError;

/// What the app's DevTools endpoint says about itself.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// `Browser` of `/json/version`, e.g. `Chrome/156.0.7000.0` or `Electron/…`'s Chrome.
    pub product: String,
    /// `User-Agent`, which names the Electron version for Electron apps.
    pub user_agent: String,
}

/// Resolves the browser-level WebSocket of `cdp_url` (`http://host:port`, via
/// `/json/version`; a `ws://…` URL is used as is) and connects.
pub async fn attach(cdp_url: &str) -> Result<(WebDevice, Facts), DeviceError> {
    let url = cdp_url.trim_end_matches('/');
    let (ws, http, facts) = if url.starts_with("ws://") || url.starts_with("wss://") {
        (url.to_string(), None, Facts::default())
    } else {
        let v: serde_json::Value = reqwest::get(format!("{url}/json/version"))
            .await
            .map_err(|e| DeviceError::Failed(format!("no DevTools endpoint at {url}: {e}")))?
            .json()
            .await
            .map_err(|e| DeviceError::Failed(format!("{url}/json/version is not JSON: {e}")))?;
        let ws = v["webSocketDebuggerUrl"]
            .as_str()
            .ok_or_else(|| {
                DeviceError::Failed(format!("{url}/json/version has no webSocketDebuggerUrl"))
            })?
            .to_string();
        let facts = Facts {
            product: v["Browser"].as_str().unwrap_or("").to_string(),
            user_agent: v["User-Agent"].as_str().unwrap_or("").to_string(),
        };
        (ws, Some(url.to_string()), facts)
    };
    let cdp: Arc<Cdp> = Cdp::connect(&ws)
        .await
        .map_err(|e| DeviceError::Failed(e.to_string()))?;
    let guess = Viewport {
        width: 0,
        height: 0,
        dpr: 1.0,
    };
    Ok((WebDevice::attached(cdp, http, guess), facts))
}
