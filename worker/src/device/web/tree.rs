//! Observing a page: the accessibility tree (`Accessibility.getFullAXTree`) and layout boxes
//! (`DOMSnapshot.captureSnapshot`) in two calls, normalized by `argus_perception::cdp`.

use argus_perception::Screen;
use serde_json::json;

use super::WebDevice;
use crate::device::{Capture, DeviceError};

/// Raw CDP payloads of one observation.
pub(super) struct RawTree {
    pub ax: serde_json::Value,
    pub snapshot: serde_json::Value,
    pub screen: Screen,
}

pub(super) async fn raw(dev: &WebDevice) -> Result<RawTree, DeviceError> {
    let ax = dev.call("Accessibility.getFullAXTree", json!({})).await?;
    let snapshot = dev
        .call(
            "DOMSnapshot.captureSnapshot",
            json!({"computedStyles": [], "includeDOMRects": false}),
        )
        .await?;
    let metrics = dev.call("Page.getLayoutMetrics", json!({})).await?;
    let vv = &metrics["cssVisualViewport"];
    let screen = Screen {
        width: vv["clientWidth"]
            .as_f64()
            .unwrap_or(dev.viewport.width as f64),
        height: vv["clientHeight"]
            .as_f64()
            .unwrap_or(dev.viewport.height as f64),
        dpr: dev.viewport.dpr,
    };
    Ok(RawTree {
        ax,
        snapshot,
        screen,
    })
}

pub(super) async fn capture(dev: &WebDevice) -> Result<Capture, DeviceError> {
    let raw = raw(dev).await?;
    let tree = argus_perception::cdp::normalize(&raw.ax, &raw.snapshot)
        .map_err(|e| DeviceError::Failed(e.to_string()))?;
    // The snapshot names its document: a page that has not navigated yet is `about:blank`.
    let blank = argus_perception::cdp::document_url(&raw.snapshot)
        .is_some_and(argus_perception::cdp::is_blank_url);
    Ok(Capture {
        tree,
        screen: raw.screen,
        blank,
    })
}
