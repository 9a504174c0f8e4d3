//! Observing an iOS screen: `GET /session/<id>/source` (XML), normalized by
//! `argus_perception::wda` (points), with the screen in points and its scale, so the element
//! list's `bbox_px` is pixels and `bbox_logical` points — what WDA's actions take.

use argus_perception::Screen;
use reqwest::Method;

use super::IosDevice;
use crate::device::{Capture, DeviceError};

pub(super) async fn capture(dev: &mut IosDevice) -> Result<Capture, DeviceError> {
    let g = super::screen::geometry(&dev.wda).await?;
    dev.geometry = Some(g);
    let src = dev
        .wda
        .call(Method::GET, &dev.wda.session_path("/source")?, None)
        .await?;
    let xml = src
        .as_str()
        .ok_or_else(|| DeviceError::Failed("WDA source is not a string".into()))?;
    let tree =
        argus_perception::wda::normalize(xml).map_err(|e| DeviceError::Failed(e.to_string()))?;
    let screen = Screen {
        width: g.width_pt,
        height: g.height_pt,
        dpr: g.scale,
    };
    Ok(Capture {
        tree,
        screen,
        blank: false,
    })
}
