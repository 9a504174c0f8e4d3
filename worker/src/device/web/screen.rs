//! Screenshots of the page in device px (`Page.captureScreenshot`): PNG for perception and
//! the model, a bounded JPEG for the run's record.

use base64::Engine;
use serde_json::json;

use super::WebDevice;
use crate::device::{DeviceError, Observe};

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

/// A JPEG of the viewport for the run's record, encoded by Chromium (quality
/// `jpeg_quality`, 1–100), at most `max_side_px` on its longer side: a larger screen is
/// captured scaled down, the viewport's place in the page (`Page.getLayoutMetrics`, CSS px)
/// given as the clip. Where the metrics cannot be read the JPEG comes at full size (the
/// upload queue shrinks it).
pub(super) async fn record_shot(
    dev: &WebDevice,
    max_side_px: u32,
    jpeg_quality: u8,
) -> Result<Vec<u8>, DeviceError> {
    let _ = dev.call("Page.bringToFront", json!({})).await;
    let mut params = json!({"format": "jpeg", "quality": jpeg_quality.clamp(1, 100)});
    let (w, h) = dev.screen_px();
    let longer = w.max(h);
    if longer > max_side_px && max_side_px > 0 {
        let m = dev.call("Page.getLayoutMetrics", json!({})).await?;
        let v = &m["cssVisualViewport"];
        let clip = (
            v["pageX"].as_f64(),
            v["pageY"].as_f64(),
            v["clientWidth"].as_f64(),
            v["clientHeight"].as_f64(),
        );
        if let (Some(x), Some(y), Some(cw), Some(ch)) = clip {
            params["clip"] = json!({"x": x, "y": y, "width": cw, "height": ch,
                                    "scale": f64::from(max_side_px) / f64::from(longer)});
        }
    }
    let v = dev.call("Page.captureScreenshot", params).await?;
    let data = v["data"]
        .as_str()
        .ok_or_else(|| DeviceError::Failed("screenshot answer has no data".into()))?;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| DeviceError::Failed(format!("screenshot is not base64: {e}")))
}
