//! Web driver: one headless Chromium, one device slot per [`WebDevice`]; each run gets its
//! own browser context (cookies, storage) and page, disposed at teardown.
//!
//! `tree` observes (AX tree + DOM snapshot → perception), `actions` acts (CDP Input events
//! in CSS px), `screen` takes screenshots (device px).

mod actions;
pub mod browser;
pub mod cdp;
mod screen;
mod tree;

use std::sync::Arc;

use argus_perception::{Element, Observation};
use argus_protocol::{Key, Platform};
use async_trait::async_trait;
use serde_json::json;

use super::{ActError, Device, DeviceError};
use browser::Browser;
use cdp::Cdp;

/// Viewport of a web device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    /// Width, CSS px.
    pub width: u32,
    /// Height, CSS px.
    pub height: u32,
    /// Device pixel ratio (screenshots are `width*dpr × height*dpr` px).
    pub dpr: f64,
}

/// The page of one run.
struct Session {
    context_id: String,
    session_id: String,
}

/// One slot of a Chromium browser.
pub struct WebDevice {
    browser: Arc<Browser>,
    viewport: Viewport,
    session: Option<Session>,
}

impl WebDevice {
    /// A slot on `browser` with the given viewport.
    pub fn new(browser: Arc<Browser>, viewport: Viewport) -> WebDevice {
        WebDevice {
            browser,
            viewport,
            session: None,
        }
    }

    fn cdp(&self) -> &Cdp {
        &self.browser.cdp
    }

    fn session_id(&self) -> Result<&str, DeviceError> {
        self.session
            .as_ref()
            .map(|s| s.session_id.as_str())
            .ok_or_else(|| DeviceError::Failed("no page is open (begin() not called)".into()))
    }

    async fn call(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, DeviceError> {
        let sid = self.session_id()?;
        self.cdp()
            .call(Some(sid), method, params)
            .await
            .map_err(|e| DeviceError::Failed(e.to_string()))
    }
}

#[async_trait]
impl Device for WebDevice {
    fn platform(&self) -> Platform {
        Platform::Web
    }

    fn screen_px(&self) -> (u32, u32) {
        (
            (self.viewport.width as f64 * self.viewport.dpr).round() as u32,
            (self.viewport.height as f64 * self.viewport.dpr).round() as u32,
        )
    }

    async fn begin(&mut self) -> Result<(), DeviceError> {
        self.end().await?;
        let fail = |e: cdp::CdpError| DeviceError::Failed(e.to_string());
        let ctx = self
            .cdp()
            .call(
                None,
                "Target.createBrowserContext",
                json!({"disposeOnDetach": true}),
            )
            .await
            .map_err(fail)?;
        let context_id = ctx["browserContextId"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let target = self
            .cdp()
            .call(
                None,
                "Target.createTarget",
                json!({"url": "about:blank", "browserContextId": context_id}),
            )
            .await
            .map_err(fail)?;
        let target_id = target["targetId"].as_str().unwrap_or_default().to_string();
        let att = self
            .cdp()
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target_id, "flatten": true}),
            )
            .await
            .map_err(fail)?;
        let session_id = att["sessionId"].as_str().unwrap_or_default().to_string();
        self.session = Some(Session {
            context_id,
            session_id,
        });
        self.call("Page.enable", json!({})).await?;
        self.call("DOM.enable", json!({})).await?;
        self.call("Accessibility.enable", json!({})).await?;
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({
                "width": self.viewport.width,
                "height": self.viewport.height,
                "deviceScaleFactor": self.viewport.dpr,
                "mobile": false
            }),
        )
        .await?;
        Ok(())
    }

    async fn end(&mut self) -> Result<(), DeviceError> {
        if let Some(s) = self.session.take() {
            self.cdp()
                .call(
                    None,
                    "Target.disposeBrowserContext",
                    json!({"browserContextId": s.context_id}),
                )
                .await
                .map_err(|e| DeviceError::Failed(e.to_string()))?;
        }
        Ok(())
    }

    async fn observe(&mut self, serial: u64) -> Result<Observation, DeviceError> {
        tree::observe(self, serial).await
    }

    async fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        screen::screenshot(self).await
    }

    async fn open(&mut self, url: &str) -> Result<(), ActError> {
        actions::open(self, url).await
    }

    async fn tap(&mut self, el: &Element) -> Result<(), ActError> {
        actions::tap(self, el).await
    }

    async fn type_text(&mut self, el: &Element, text: &str) -> Result<(), ActError> {
        actions::type_text(self, el, text).await
    }

    async fn key(&mut self, key: Key) -> Result<(), ActError> {
        actions::key(self, key).await
    }
}
