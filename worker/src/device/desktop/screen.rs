//! Screenshots of the session's X display: one core-protocol `GetImage` of the root window
//! (x11rb, pure Rust; no external tool), converted from the 32-bit BGRX `ZPixmap` to RGB: as
//! a PNG for the report ([`capture`]), as raw pixels for the pixel channel ([`grab`], no PNG
//! round trip). On X11 the AT-SPI extents and the image share one unit: device px.

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt, ImageFormat};

use crate::device::DeviceError;

/// A PNG of the whole screen of `display` and its size in px. Blocking: call it on a
/// blocking thread.
pub(super) fn capture(display: &str) -> Result<(Vec<u8>, u32, u32), DeviceError> {
    let img = grab(display)?;
    let (w, h) = img.dimensions();
    Ok((encode_png(img.as_raw(), w, h)?, w, h))
}

/// The whole screen of `display` as RGB pixels, device px. Blocking: call it on a blocking
/// thread.
pub(super) fn grab(display: &str) -> Result<image::RgbImage, DeviceError> {
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        DeviceError::Failed(format!("screenshot of X display {display}: {what}: {e}"))
    };
    let (conn, screen_num) = x11rb::connect(Some(display)).map_err(|e| fail("connect", &e))?;
    let screen = conn
        .setup()
        .roots
        .get(screen_num)
        .ok_or_else(|| DeviceError::Failed(format!("X display {display} has no screen")))?;
    let (w, h) = (screen.width_in_pixels, screen.height_in_pixels);
    let root = screen.root;
    let reply = conn
        .get_image(ImageFormat::Z_PIXMAP, root, 0, 0, w, h, u32::MAX)
        .map_err(|e| fail("GetImage", &e))?
        .reply()
        .map_err(|e| fail("GetImage", &e))?;
    let (w, h) = (u32::from(w), u32::from(h));
    let px = (w * h) as usize;
    if reply.depth != 24 && reply.depth != 32 || reply.data.len() < px * 4 {
        return Err(DeviceError::Failed(format!(
            "screenshot of X display {display}: unsupported depth {} ({} bytes for {w}x{h})",
            reply.depth,
            reply.data.len()
        )));
    }
    // Indexed writes into a sized buffer (not a push per pixel): the compiler vectorizes it.
    let mut rgb = vec![0u8; px * 3];
    for (o, p) in rgb.chunks_exact_mut(3).zip(reply.data.chunks_exact(4)) {
        o[0] = p[2];
        o[1] = p[1];
        o[2] = p[0];
    }
    image::RgbImage::from_raw(w, h, rgb).ok_or_else(|| {
        DeviceError::Failed(format!("screenshot of X display {display}: short image"))
    })
}

/// The screen size of `display`, px (connection setup only). Blocking.
pub(super) fn size(display: &str) -> Result<(u32, u32), DeviceError> {
    let (conn, n) = x11rb::connect(Some(display))
        .map_err(|e| DeviceError::Failed(format!("X display {display}: {e}")))?;
    let s = conn
        .setup()
        .roots
        .get(n)
        .ok_or_else(|| DeviceError::Failed(format!("X display {display} has no screen")))?;
    Ok((u32::from(s.width_in_pixels), u32::from(s.height_in_pixels)))
}

/// Encodes 8-bit RGB as PNG (fast compression).
pub(crate) fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, DeviceError> {
    let mut out = Vec::new();
    let fail = |e: png::EncodingError| DeviceError::Failed(format!("PNG encoding: {e}"));
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut writer = enc.write_header().map_err(fail)?;
        writer.write_image_data(rgb).map_err(fail)?;
    }
    Ok(out)
}
