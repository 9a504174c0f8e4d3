//! Geometry and screenshots. WDA works in points; the screenshot is in pixels (points ×
//! `scale` from `/wda/screen`). The window size is read per observation, so a landscape
//! screen (`/window/size` 844×390 on a 390×844 phone) gives landscape boxes and pixels alike.

use base64::Engine;
use reqwest::Method;

use super::wda::Wda;
use crate::device::DeviceError;

/// Window size in points and the screen scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// Width, points.
    pub width_pt: f64,
    /// Height, points.
    pub height_pt: f64,
    /// Pixels per point.
    pub scale: f64,
}

impl Geometry {
    /// Size in pixels.
    pub fn px(&self) -> (u32, u32) {
        (
            (self.width_pt * self.scale).round() as u32,
            (self.height_pt * self.scale).round() as u32,
        )
    }
}

pub(super) async fn geometry(wda: &Wda) -> Result<Geometry, DeviceError> {
    let size = wda
        .call(Method::GET, &wda.session_path("/window/size")?, None)
        .await?;
    let screen = wda
        .call(Method::GET, &wda.session_path("/wda/screen")?, None)
        .await?;
    let num = |v: &serde_json::Value| v.as_f64().filter(|x| x.is_finite() && *x > 0.0);
    match (num(&size["width"]), num(&size["height"])) {
        (Some(w), Some(h)) => Ok(Geometry {
            width_pt: w,
            height_pt: h,
            scale: num(&screen["scale"]).unwrap_or(1.0),
        }),
        _ => Err(DeviceError::Failed(format!(
            "WDA window size is not {{width, height}}: {size}"
        ))),
    }
}

pub(super) async fn screenshot(wda: &Wda) -> Result<Vec<u8>, DeviceError> {
    let v = wda.call(Method::GET, "/screenshot", None).await?;
    let b64 = v
        .as_str()
        .ok_or_else(|| DeviceError::Failed("WDA screenshot is not a string".into()))?;
    let clean: String = b64.chars().filter(|c| !c.is_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(clean)
        .map_err(|e| DeviceError::Failed(format!("WDA screenshot is not base64: {e}")))
}
