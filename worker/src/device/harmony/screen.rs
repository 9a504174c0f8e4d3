//! Screen size and screenshots: `hidumper -s RenderService -a screen` (`activeMode: WxH`),
//! and `snapshot_display -f <file>.png` on the device, fetched with `hdc file recv`.
//!
//! Density is not read (HarmonyOS has no stable shell source for it); boxes stay device px
//! with ratio 1, which changes no tap coordinate.

use std::path::Path;

use super::hdc::Hdc;
use crate::device::DeviceError;

/// The screenshot file on the device.
pub const SHOT_PATH: &str = "/data/local/tmp/argus-shot.png";

/// `WxH` after `activeMode:` (or the first `WxH` in the output).
pub fn parse_size(out: &str) -> Option<(u32, u32)> {
    let from = out
        .find("activeMode:")
        .map(|i| &out[i + 11..])
        .unwrap_or(out);
    from.split(|c: char| !(c.is_ascii_digit() || c == 'x'))
        .filter_map(|t| t.split_once('x'))
        .find_map(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
}

pub(super) async fn size(hdc: &Hdc) -> Result<(u32, u32), DeviceError> {
    let out = hdc.shell("hidumper -s RenderService -a screen").await?;
    parse_size(&out).ok_or_else(|| {
        DeviceError::Failed("cannot read the HarmonyOS screen size from hidumper".into())
    })
}

pub(super) async fn screenshot(hdc: &Hdc, dir: &Path) -> Result<Vec<u8>, DeviceError> {
    hdc.shell(&format!("snapshot_display -f {SHOT_PATH}"))
        .await?;
    let local = dir.join("argus-shot.png");
    hdc.recv(SHOT_PATH, &local).await?;
    let png = tokio::fs::read(&local)
        .await
        .map_err(|e| DeviceError::Failed(format!("screenshot file: {e}")))?;
    let _ = tokio::fs::remove_file(&local).await;
    if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Err(DeviceError::Failed(
            "snapshot_display did not produce a PNG".into(),
        ));
    }
    Ok(png)
}
