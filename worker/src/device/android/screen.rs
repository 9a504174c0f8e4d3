//! Screen geometry and screenshots: `wm size` / `wm density` (override values win over
//! physical ones) and `screencap -p` (PNG, device px, in the current rotation).

use super::adb::Adb;
use crate::device::DeviceError;

/// Display geometry in the natural (portrait) orientation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// Width, device px.
    pub width_px: u32,
    /// Height, device px.
    pub height_px: u32,
    /// Density ratio (dpi / 160).
    pub density: f64,
}

impl Geometry {
    /// Size in device px for a display rotated by `rotation` degrees.
    pub fn rotated(&self, rotation: u16) -> (u32, u32) {
        if rotation % 180 == 90 {
            (self.height_px, self.width_px)
        } else {
            (self.width_px, self.height_px)
        }
    }
}

/// The value after `<prefix>` on the last matching line (`Override …` lines come after
/// `Physical …`).
fn field<'a>(out: &'a str, key: &str) -> Option<&'a str> {
    out.lines()
        .filter_map(|l| l.split_once(':'))
        .filter(|(k, _)| k.trim().ends_with(key))
        .map(|(_, v)| v.trim())
        .next_back()
}

/// Parses `wm size` (`Physical size: 1080x2400`) and `wm density` (`Physical density: 420`).
pub fn parse_geometry(size: &str, density: &str) -> Option<Geometry> {
    let (w, h) = field(size, "size")?.split_once('x')?;
    let dpi: f64 = field(density, "density")?.parse().ok()?;
    Some(Geometry {
        width_px: w.trim().parse().ok()?,
        height_px: h.trim().parse().ok()?,
        density: dpi / 160.0,
    })
}

/// Reads the geometry with two shell calls.
pub(super) async fn geometry(adb: &Adb) -> Result<Geometry, DeviceError> {
    let size = adb.shell("wm size").await?.text();
    let density = adb.shell("wm density").await?.text();
    parse_geometry(&size, &density).ok_or_else(|| {
        DeviceError::Failed(format!(
            "cannot read the Android screen geometry from `wm size` / `wm density`: {:?} / {:?}",
            size.trim(),
            density.trim()
        ))
    })
}

/// A PNG of the screen (`screencap -p`).
pub(super) async fn screenshot(adb: &Adb) -> Result<Vec<u8>, DeviceError> {
    let out = adb.shell("screencap -p").await?;
    if !out.stdout.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Err(DeviceError::Failed(format!(
            "screencap did not return a PNG: {:?}",
            String::from_utf8_lossy(&out.stdout[..out.stdout.len().min(120)])
        )));
    }
    Ok(out.stdout)
}
