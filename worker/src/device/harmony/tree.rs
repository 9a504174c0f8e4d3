//! Observing a HarmonyOS screen: `uitest dumpLayout -p <file>` then `cat <file>`, normalized
//! by `argus_perception::harmony` (ratio 1: boxes in device px, see `screen`).

use argus_perception::Screen;

use super::HarmonyDevice;
use crate::device::{Capture, DeviceError};

/// The layout file on the device.
pub const LAYOUT_PATH: &str = "/data/local/tmp/argus-layout.json";

pub(super) async fn capture(dev: &mut HarmonyDevice) -> Result<Capture, DeviceError> {
    let out = dev
        .hdc
        .shell(&format!("uitest dumpLayout -p {LAYOUT_PATH}"))
        .await?;
    if !out.contains("saved") {
        return Err(DeviceError::Failed(format!(
            "uitest dumpLayout failed: {}",
            out.lines().next().unwrap_or("").trim()
        )));
    }
    let json = dev.hdc.shell(&format!("cat {LAYOUT_PATH}")).await?;
    let v: serde_json::Value = serde_json::from_str(json.trim())
        .map_err(|e| DeviceError::Failed(format!("layout dump is not JSON: {e}")))?;
    let tree = argus_perception::harmony::normalize(&v, 1.0)
        .map_err(|e| DeviceError::Failed(e.to_string()))?;
    let (w, h) = dev.screen;
    Ok(Capture {
        tree,
        screen: Screen::from_device_px(w as f64, h as f64, 1.0),
        blank: false,
    })
}
