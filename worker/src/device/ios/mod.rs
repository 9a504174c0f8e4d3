//! iOS driver over WebDriverAgent (HTTP, `reqwest`): one worker drives one WDA endpoint.
//!
//! `wda` is the client, `tree` observes (`/source`), `actions` acts (W3C touch actions in
//! points, `/wda/keys`), `screen` reads the window size (points) and scale, and takes
//! screenshots (pixels). Each run gets its own WDA session (launching `--bundle-id` when
//! set), deleted at teardown.

mod actions;
mod screen;
mod tree;
pub mod wda;

use argus_perception::Element;
use argus_protocol::{Key, Platform};
use async_trait::async_trait;
use reqwest::Method;
use serde_json::json;

pub use actions::{key_char, touch_actions};
pub use screen::Geometry;

use super::periodic::{Grab, PeriodicCast, EVERY};
use super::{Act, ActError, Capture, DeviceError, Input, Observe, Screencast, System};
use wda::Wda;

/// One iPhone / iPad behind WDA.
pub struct IosDevice {
    wda: Wda,
    bundle_id: Option<String>,
    geometry: Option<Geometry>,
}

/// What `/status` and the first session say about the device.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// `value.os.version` of `/status`.
    pub os_version: String,
    /// `value.device` of `/status` (`iphone`, `ipad`), when reported.
    pub model: String,
    /// Screen in pixels, as the first session reads it.
    pub screen_px: (u32, u32),
}

impl IosDevice {
    /// Checks WDA answers (`/status`), reads the geometry in a throwaway session.
    pub async fn connect(
        base: &str,
        bundle_id: Option<String>,
    ) -> Result<(IosDevice, Facts), DeviceError> {
        let wda = Wda::new(base)?;
        let status = wda.call(Method::GET, "/status", None).await?;
        let mut dev = IosDevice {
            wda,
            bundle_id: None,
            geometry: None,
        };
        dev.begin().await?;
        let g = screen::geometry(&dev.wda).await;
        dev.end().await?;
        let g = g?;
        dev.geometry = Some(g);
        dev.bundle_id = bundle_id;
        let facts = Facts {
            os_version: status["os"]["version"].as_str().unwrap_or("").to_string(),
            model: status["device"].as_str().unwrap_or("").to_string(),
            screen_px: g.px(),
        };
        Ok((dev, facts))
    }
}

#[async_trait]
impl System for IosDevice {
    fn platform(&self) -> Platform {
        Platform::Ios
    }

    /// A screenshot a second (WDA `GET /screenshot` over a clone of the client).
    fn screencast(&self) -> Option<Box<dyn Screencast>> {
        let wda = self.wda.clone();
        let grab: Grab = std::sync::Arc::new(move || {
            let wda = wda.clone();
            Box::pin(async move { screen::screenshot(&wda).await })
        });
        Some(Box::new(PeriodicCast::new(grab, EVERY)))
    }

    async fn begin(&mut self) -> Result<(), DeviceError> {
        self.end().await?;
        let mut always = json!({});
        if let Some(b) = &self.bundle_id {
            always["bundleId"] = json!(b);
        }
        let v = self
            .wda
            .call(
                Method::POST,
                "/session",
                Some(json!({"capabilities": {"alwaysMatch": always}})),
            )
            .await?;
        let id = v["sessionId"]
            .as_str()
            .ok_or_else(|| DeviceError::Failed("WDA created no session id".into()))?;
        self.wda.session = Some(id.to_string());
        Ok(())
    }

    async fn end(&mut self) -> Result<(), DeviceError> {
        if self.wda.session.is_some() {
            let p = self.wda.session_path("")?;
            self.wda.session = None;
            self.wda.call(Method::DELETE, &p, None).await?;
        }
        Ok(())
    }

    async fn open(&mut self, url: &str) -> Result<(), ActError> {
        actions::open(self, url).await
    }
}

#[async_trait]
impl Observe for IosDevice {
    fn screen_px(&self) -> (u32, u32) {
        self.geometry.map(|g| g.px()).unwrap_or((0, 0))
    }

    async fn capture(&mut self) -> Result<Capture, DeviceError> {
        tree::capture(self).await
    }

    async fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        screen::screenshot(&self.wda).await
    }
}

#[async_trait]
impl Act for IosDevice {
    async fn tap(&mut self, el: &Element) -> Result<(), ActError> {
        actions::tap(self, el).await
    }

    async fn double_tap(&mut self, el: &Element) -> Result<(), ActError> {
        actions::double_tap(self, el).await
    }

    async fn type_text(&mut self, el: &Element, text: &str) -> Result<(), ActError> {
        actions::type_text(self, el, text).await
    }

    async fn long_press(&mut self, el: &Element, duration_ms: u64) -> Result<(), ActError> {
        actions::long_press(self, el, duration_ms).await
    }
}

#[async_trait]
impl Input for IosDevice {
    async fn key(&mut self, key: Key) -> Result<(), ActError> {
        actions::key(self, key).await
    }

    async fn swipe(
        &mut self,
        from: (f64, f64),
        to: (f64, f64),
        duration_ms: u64,
    ) -> Result<(), ActError> {
        actions::swipe(self, from, to, duration_ms).await
    }
}
