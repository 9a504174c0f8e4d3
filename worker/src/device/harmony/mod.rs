//! HarmonyOS NEXT driver over `hdc` (the configured binary for every command): one worker
//! drives one device, chosen by connect key (or the only one connected).
//!
//! `hdc` runs commands, `tree` observes (`uitest dumpLayout`), `actions` acts
//! (`uitest uiInput`, `aa start`), `screen` reads the size (`hidumper`) and takes screenshots
//! (`snapshot_display` + `file recv`).

mod actions;
pub mod hdc;
mod screen;
mod tree;

use std::path::PathBuf;

use argus_perception::Element;
use argus_protocol::{Key, Platform};
use async_trait::async_trait;

pub use actions::{key_arg, open_command};
pub use screen::{parse_size, SHOT_PATH};
pub use tree::LAYOUT_PATH;

use super::{Act, ActError, Capture, DeviceError, Input, Observe, System};
use hdc::Hdc;

/// One HarmonyOS device.
pub struct HarmonyDevice {
    hdc: Hdc,
    screen: (u32, u32),
    dir: PathBuf,
}

impl HarmonyDevice {
    /// Connects (reads the screen size); `dir` holds fetched screenshots.
    pub async fn connect(hdc: Hdc, dir: PathBuf) -> Result<(HarmonyDevice, Facts), DeviceError> {
        let screen = screen::size(&hdc).await?;
        std::fs::create_dir_all(&dir)
            .map_err(|e| DeviceError::Failed(format!("{}: {e}", dir.display())))?;
        let param = |k: &'static str| {
            let hdc = hdc.clone();
            async move {
                hdc.shell(&format!("param get {k}"))
                    .await
                    .map(|s| s.trim().to_string())
                    .unwrap_or_default()
            }
        };
        let facts = Facts {
            model: param("const.product.model").await,
            os_version: param("const.product.software.version").await,
        };
        Ok((HarmonyDevice { hdc, screen, dir }, facts))
    }
}

/// What the device says about itself.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// `const.product.model`.
    pub model: String,
    /// `const.product.software.version`.
    pub os_version: String,
}

#[async_trait]
impl System for HarmonyDevice {
    fn platform(&self) -> Platform {
        Platform::Harmony
    }

    async fn begin(&mut self) -> Result<(), DeviceError> {
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
impl Observe for HarmonyDevice {
    fn screen_px(&self) -> (u32, u32) {
        self.screen
    }

    async fn capture(&mut self) -> Result<Capture, DeviceError> {
        tree::capture(self).await
    }

    async fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        screen::screenshot(&self.hdc, &self.dir).await
    }
}

#[async_trait]
impl Act for HarmonyDevice {
    async fn tap(&mut self, el: &Element) -> Result<(), ActError> {
        actions::tap(self, el).await
    }

    async fn double_tap(&mut self, el: &Element) -> Result<(), ActError> {
        actions::double_tap(self, el).await
    }

    async fn type_text(&mut self, el: &Element, text: &str) -> Result<(), ActError> {
        actions::type_text(self, el, text).await
    }

    async fn long_press(&mut self, el: &Element, _duration_ms: u64) -> Result<(), ActError> {
        actions::long_press(self, el).await
    }
}

#[async_trait]
impl Input for HarmonyDevice {
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
