//! Android driver over ADB (`adb_client`, blocking, on blocking threads): one worker drives
//! one phone, chosen by serial (or the only one online — never the first of several).
//!
//! `adb` holds the link (listing, selection, shell), `tree` observes (`uiautomator dump`),
//! `actions` acts (`input`, `am`, ADB Keyboard for non-ASCII text), `screen` reads the
//! geometry (`wm size`, `wm density`, dump rotation) and takes screenshots (`screencap -p`).
//! Acting is by coordinates: the element list's `bbox_px` is device px.

mod actions;
pub mod adb;
mod screen;
mod tree;

use argus_perception::Element;
use argus_protocol::{Key, Platform};
use async_trait::async_trait;

pub use actions::{input_text_arg, keycode, open_command, ADB_IME};
pub use screen::{parse_geometry, Geometry};
pub use tree::{cat_command, dump_command, DUMP_PATH, DUMP_TRIES};

use super::periodic::{Grab, PeriodicCast, EVERY};
use super::{Act, ActError, Capture, DeviceError, Input, Observe, Screencast, System};
use adb::Adb;

/// One Android phone.
pub struct AndroidDevice {
    adb: Adb,
    geometry: Option<Geometry>,
    rotation: u16,
}

/// What a phone says about itself, for its labels.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// `ro.product.model`.
    pub model: String,
    /// `ro.build.version.release`.
    pub os_version: String,
    /// Screen, device px, natural orientation.
    pub screen_px: (u32, u32),
}

impl AndroidDevice {
    /// Connects to `adb` (already selected) and reads its geometry and facts.
    pub async fn connect(adb: Adb) -> Result<(AndroidDevice, Facts), DeviceError> {
        let g = screen::geometry(&adb).await?;
        let prop = |k: &'static str| {
            let adb = adb.clone();
            async move {
                adb.shell(&format!("getprop {k}"))
                    .await
                    .map(|o| o.text().trim().to_string())
                    .unwrap_or_default()
            }
        };
        let facts = Facts {
            model: prop("ro.product.model").await,
            os_version: prop("ro.build.version.release").await,
            screen_px: (g.width_px, g.height_px),
        };
        Ok((
            AndroidDevice {
                adb,
                geometry: Some(g),
                rotation: 0,
            },
            facts,
        ))
    }

    fn geometry(&self) -> Result<Geometry, DeviceError> {
        self.geometry
            .ok_or_else(|| DeviceError::Failed("Android screen geometry unknown".into()))
    }
}

#[async_trait]
impl System for AndroidDevice {
    fn platform(&self) -> Platform {
        Platform::Android
    }

    /// A screenshot a second (`screencap -p` over a clone of the ADB connection).
    fn screencast(&self) -> Option<Box<dyn Screencast>> {
        let adb = self.adb.clone();
        let grab: Grab = std::sync::Arc::new(move || {
            let adb = adb.clone();
            Box::pin(async move { screen::screenshot(&adb).await })
        });
        Some(Box::new(PeriodicCast::new(grab, EVERY)))
    }

    async fn begin(&mut self) -> Result<(), DeviceError> {
        self.geometry = Some(screen::geometry(&self.adb).await?);
        Ok(())
    }

    async fn end(&mut self) -> Result<(), DeviceError> {
        Ok(())
    }

    async fn open(&mut self, url: &str) -> Result<(), ActError> {
        actions::open(self, url).await
    }

    async fn back(&mut self) -> Result<(), ActError> {
        actions::back(self).await
    }
}

#[async_trait]
impl Observe for AndroidDevice {
    fn screen_px(&self) -> (u32, u32) {
        self.geometry
            .map(|g| g.rotated(self.rotation))
            .unwrap_or((0, 0))
    }

    async fn capture(&mut self) -> Result<Capture, DeviceError> {
        tree::capture(self).await
    }

    async fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        screen::screenshot(&self.adb).await
    }
}

#[async_trait]
impl Act for AndroidDevice {
    async fn tap(&mut self, el: &Element) -> Result<(), ActError> {
        actions::tap(self, el).await
    }

    async fn type_text(&mut self, el: &Element, text: &str) -> Result<(), ActError> {
        actions::type_text(self, el, text).await
    }

    async fn long_press(&mut self, el: &Element, duration_ms: u64) -> Result<(), ActError> {
        actions::long_press(self, el, duration_ms).await
    }
}

#[async_trait]
impl Input for AndroidDevice {
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
