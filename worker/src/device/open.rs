//! Opening a worker's devices for its platform: one entry per device slot, with the
//! `DeviceInfo` (id, labels, screen) it registers under.

use std::sync::Arc;

use anyhow::anyhow;
use argus_protocol::{DeviceInfo, Platform};

use super::web::browser::Browser;
use super::web::{Viewport, WebDevice};
use super::Device;
use crate::config::WorkerConfig;

/// Starts the platform's devices. Errors name the platform and what is missing.
pub async fn open_devices(
    cfg: &WorkerConfig,
    worker_id: &str,
) -> anyhow::Result<Vec<(DeviceInfo, Box<dyn Device>)>> {
    match cfg.platform {
        Platform::Web => open_web(cfg, worker_id).await,
        other => Err(anyhow!(
            "platform {other} is not supported by this build's worker yet; use --platform web"
        )),
    }
}

async fn open_web(
    cfg: &WorkerConfig,
    worker_id: &str,
) -> anyhow::Result<Vec<(DeviceInfo, Box<dyn Device>)>> {
    let dir = cfg
        .data_dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("argus-worker-{worker_id}")));
    let browser = Arc::new(
        Browser::launch(&cfg.browser.chromium, &dir.join("chromium"))
            .await
            .map_err(|e| anyhow!(e.to_string()))?,
    );
    let version = browser
        .cdp
        .call(None, "Browser.getVersion", serde_json::json!({}))
        .await
        .ok()
        .and_then(|v| v["product"].as_str().map(String::from))
        .unwrap_or_default();
    let viewport = Viewport {
        width: cfg.browser.viewport.0,
        height: cfg.browser.viewport.1,
        dpr: cfg.browser.dpr,
    };
    let mut out: Vec<(DeviceInfo, Box<dyn Device>)> = Vec::new();
    for i in 0..cfg.slots.max(1) {
        let dev = WebDevice::new(browser.clone(), viewport);
        let (w, h) = dev.screen_px();
        let mut labels = cfg.labels.clone();
        labels.insert("platform".into(), "web".into());
        labels.insert("browser".into(), "chromium".into());
        if let Some(v) = version.split('/').nth(1) {
            labels.insert(
                "browser_version".into(),
                v.split('.').next().unwrap_or(v).to_string(),
            );
        }
        let info = DeviceInfo {
            device_id: format!("{worker_id}-{i}"),
            platform: cfg.platform,
            labels,
            screen_w_px: w,
            screen_h_px: h,
        };
        out.push((info, Box::new(dev)));
    }
    Ok(out)
}
