//! Observing an Android screen: `uiautomator dump` to a file on the device, read back with
//! `cat`, normalized by `argus_perception::android` with the display density (boxes in dp;
//! the element list's `bbox_px` is device px, what `input tap` takes).
//!
//! `uiautomator dump` fails with "ERROR: could not get idle state." while the screen keeps
//! animating; it is retried [`DUMP_TRIES`] times, [`DUMP_RETRY_DELAY`] apart, then the error
//! is reported.

use std::time::Duration;

use argus_perception::Screen;

use super::AndroidDevice;
use crate::device::{Capture, DeviceError};

/// Where the dump is written on the device.
pub const DUMP_PATH: &str = "/data/local/tmp/argus-window.xml";
/// Attempts of `uiautomator dump` per observation.
pub const DUMP_TRIES: u32 = 3;
/// Pause between attempts.
const DUMP_RETRY_DELAY: Duration = Duration::from_millis(500);

/// The dump command.
pub fn dump_command() -> String {
    format!("uiautomator dump {DUMP_PATH}")
}

/// The read-back command.
pub fn cat_command() -> String {
    format!("cat {DUMP_PATH}")
}

/// Dumps the window hierarchy and returns its XML.
pub(super) async fn dump(dev: &AndroidDevice) -> Result<String, DeviceError> {
    let mut last = String::new();
    for attempt in 0..DUMP_TRIES {
        if attempt > 0 {
            tokio::time::sleep(DUMP_RETRY_DELAY).await;
        }
        let out = dev.adb.shell(&dump_command()).await?.text();
        if out.contains("ERROR") || !out.contains("dumped to") {
            tracing::debug!(attempt, output = %out.trim(), "uiautomator dump failed");
            last = out.trim().to_string();
            continue;
        }
        let xml = dev.adb.shell(&cat_command()).await?.text();
        if xml.contains("<hierarchy") {
            return Ok(xml);
        }
        last = "the dump file holds no <hierarchy>".into();
    }
    Err(DeviceError::Failed(format!(
        "uiautomator dump failed {DUMP_TRIES} times: {last}"
    )))
}

pub(super) async fn capture(dev: &mut AndroidDevice) -> Result<Capture, DeviceError> {
    let xml = dump(dev).await?;
    let g = dev.geometry()?;
    let parsed = argus_perception::android::normalize(&xml, g.density)
        .map_err(|e| DeviceError::Failed(e.to_string()))?;
    let rotation = parsed.rotation.unwrap_or(0);
    dev.rotation = rotation;
    let (w, h) = g.rotated(rotation);
    let screen = Screen::from_device_px(w as f64, h as f64, g.density);
    Ok(Capture {
        tree: parsed.tree,
        screen,
        blank: false,
    })
}
