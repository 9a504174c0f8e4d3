//! Screenshots of the page in device px (`Page.captureScreenshot`, PNG).

use base64::Engine;
use serde_json::json;

use super::WebDevice;
use crate::device::DeviceError;

/// A PNG of the viewport, `width*dpr × height*dpr` px.
///
/// The run's page is brought to the front first: a popup the page opened (`window.open`)
/// takes the foreground, and Chromium never paints a background page, so its screenshot
/// would wait forever.
pub(super) async fn screenshot(dev: &WebDevice) -> Result<Vec<u8>, DeviceError> {
    let _ = dev.call("Page.bringToFront", json!({})).await;
    let v = dev
        .call(
            "Page.captureScreenshot",
            json!({"format": "png", "optimizeForSpeed": true}),
        )
        .await?;
    let data = v["data"]
        .as_str()
        .ok_or_else(|| DeviceError::Failed("screenshot answer has no data".into()))?;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| DeviceError::Failed(format!("screenshot is not base64: {e}")))
}
