//! Screenshots of the session's X display (x11rb, pure Rust; no external tool), converted
//! from the 32-bit BGRX `ZPixmap` to RGB ([`Grabber::grab`]): raw pixels for the pixel
//! channel, encoded as a PNG ([`encode_png`]) for the report. On X11 the AT-SPI extents and
//! the image share one unit: device px.
//!
//! A [`Grabber`] keeps its X connection and, where the server has MIT-SHM (Xvfb and any local
//! X.Org server do), one shared segment sized for the screen (`shm`): the server writes the
//! frame into it with `ShmGetImage` instead of sending 4 bytes a pixel over the socket with
//! core `GetImage`. The segment is kept across grabs and replaced only when the screen's size
//! changes. Without MIT-SHM, or when the attach fails (a remote display), it grabs with core
//! `GetImage`; which of the two it uses is logged once per connection at debug level. Both
//! routes give the same bytes (`screen_tests`).

use x11rb::connection::Connection;
use x11rb::protocol::shm::ConnectionExt as _;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat, Window};
use x11rb::rust_connection::RustConnection;

use super::shm::Segment;
use crate::device::DeviceError;

/// How a [`Grabber`] reads the screen.
enum Route {
    /// `ShmGetImage` into a segment of the screen's size, made at connect and remade when
    /// the size changes (`None` only between the two).
    Shm(Option<Segment>),
    /// Core `GetImage` (the server lacks MIT-SHM, or the attach failed).
    Core,
}

/// An open connection to one X display that grabs its root window. Blocking: use it on a
/// blocking thread.
pub(super) struct Grabber {
    display: String,
    conn: RustConnection,
    root: Window,
    route: Route,
}

impl Grabber {
    /// Connects to `display` and picks the route: MIT-SHM when the server has `ShmAttachFd`
    /// and a segment of the screen's size attaches, else core `GetImage` (logged at debug
    /// level with why).
    /// Errors: the display cannot be reached or has no screen.
    pub(super) fn connect(display: &str) -> Result<Grabber, DeviceError> {
        let mut g = Grabber::connect_core(display)?;
        match g.size().and_then(|(w, h)| g.attach(frame_bytes(w, h))) {
            Ok(seg) => {
                tracing::debug!(display = %g.display, bytes = seg.len(), "X frames through MIT-SHM");
                g.route = Route::Shm(Some(seg));
                Ok(g)
            }
            Err(why) => {
                tracing::debug!(display = %g.display, %why, "X frames through core GetImage");
                // A failed fd send can leave the connection mid-request: start clean.
                drop(g);
                Grabber::connect_core(display)
            }
        }
    }

    /// A connection to `display` that grabs with core `GetImage` only.
    pub(super) fn connect_core(display: &str) -> Result<Grabber, DeviceError> {
        let (conn, root) = connect_root(display)?;
        Ok(Grabber {
            display: display.to_string(),
            conn,
            root,
            route: Route::Core,
        })
    }

    /// The display this grabber is connected to.
    pub(super) fn display(&self) -> &str {
        &self.display
    }

    /// Whether grabs go through MIT-SHM.
    pub(super) fn uses_shm(&self) -> bool {
        matches!(self.route, Route::Shm(_))
    }

    /// The server's id of the kept segment, if any (tests check that it is kept).
    #[cfg(test)]
    pub(super) fn segment_id(&self) -> Option<x11rb::protocol::shm::Seg> {
        match &self.route {
            Route::Shm(Some(seg)) => Some(seg.id()),
            _ => None,
        }
    }

    /// The whole screen as RGB pixels, device px. A failing `ShmGetImage` connects again
    /// (the server may have restarted) and picks the route anew; failing a second time, this
    /// grabber turns to core `GetImage` for good (both logged).
    pub(super) fn grab(&mut self) -> Result<image::RgbImage, DeviceError> {
        if !self.uses_shm() {
            return self.grab_core();
        }
        let why = match self.grab_shm() {
            Ok(img) => return Ok(img),
            Err(why) => why,
        };
        let dpy = self.display.clone();
        tracing::debug!(display = %dpy, %why, "MIT-SHM grab failed; connecting again");
        *self = Grabber::connect(&dpy)?;
        if self.uses_shm() {
            match self.grab_shm() {
                Ok(img) => return Ok(img),
                Err(why) => {
                    tracing::debug!(display = %dpy, %why, "MIT-SHM grab failed again; X frames through core GetImage");
                    *self = Grabber::connect_core(&dpy)?;
                }
            }
        }
        self.grab_core()
    }

    /// The screen through core `GetImage` (4 bytes a pixel over the socket).
    pub(super) fn grab_core(&self) -> Result<image::RgbImage, DeviceError> {
        let (w, h) = self.size().map_err(|e| self.fail(&e))?;
        let reply = self
            .conn
            .get_image(ImageFormat::Z_PIXMAP, self.root, 0, 0, w, h, u32::MAX)
            .map_err(|e| self.fail(&format!("GetImage: {e}")))?
            .reply()
            .map_err(|e| self.fail(&format!("GetImage: {e}")))?;
        self.to_rgb(&reply.data, reply.depth, w, h)
    }

    /// The screen through `ShmGetImage` into the kept segment (made or remade here when the
    /// screen's size needs another one). Errors as text, for the fallback's log line.
    fn grab_shm(&mut self) -> Result<image::RgbImage, String> {
        let (w, h) = self.size()?;
        self.keep_segment(frame_bytes(w, h))?;
        let Route::Shm(Some(seg)) = &self.route else {
            return Err("no MIT-SHM segment".into());
        };
        let format = ImageFormat::Z_PIXMAP.into();
        let reply = self
            .conn
            .shm_get_image(self.root, 0, 0, w, h, u32::MAX, format, seg.id(), 0)
            .map_err(|e| format!("ShmGetImage: {e}"))?
            .reply()
            .map_err(|e| format!("ShmGetImage: {e}"))?;
        let len = (reply.size as usize).min(seg.len());
        self.to_rgb(&seg.bytes()[..len], reply.depth, w, h)
            .map_err(|e| e.to_string())
    }

    /// Makes sure the kept segment holds exactly `len` bytes: the kept one when it does,
    /// else the old one detached and a new one attached.
    fn keep_segment(&mut self, len: usize) -> Result<(), String> {
        if let Route::Shm(slot) = &mut self.route {
            match slot.take() {
                Some(seg) if seg.len() == len => {
                    *slot = Some(seg);
                    return Ok(());
                }
                Some(old) => old.detach(&self.conn),
                None => {}
            }
        }
        let seg = self.attach(len)?;
        self.route = Route::Shm(Some(seg));
        Ok(())
    }

    /// A fresh segment of `len` bytes attached to this connection.
    fn attach(&self, len: usize) -> Result<Segment, String> {
        Segment::attach(&self.conn, len)
    }

    /// The root window's size now (one round trip: it follows RandR resizes, which the
    /// connection's setup does not).
    fn size(&self) -> Result<(u16, u16), String> {
        let g = self
            .conn
            .get_geometry(self.root)
            .map_err(|e| format!("GetGeometry: {e}"))?
            .reply()
            .map_err(|e| format!("GetGeometry: {e}"))?;
        Ok((g.width, g.height))
    }

    /// `data` (a `w`×`h` ZPixmap of `depth`) as RGB; errors on depths other than 24/32 and
    /// on short data.
    fn to_rgb(
        &self,
        data: &[u8],
        depth: u8,
        w: u16,
        h: u16,
    ) -> Result<image::RgbImage, DeviceError> {
        let (w, h) = (u32::from(w), u32::from(h));
        let px = (w * h) as usize;
        if depth != 24 && depth != 32 || data.len() < px * 4 {
            return Err(self.fail(&format!(
                "unsupported depth {depth} ({} bytes for {w}x{h})",
                data.len()
            )));
        }
        image::RgbImage::from_raw(w, h, bgrx_to_rgb(&data[..px * 4]))
            .ok_or_else(|| self.fail("short image"))
    }

    /// A screenshot error naming the display.
    fn fail(&self, what: &str) -> DeviceError {
        DeviceError::Failed(format!("screenshot of X display {}: {what}", self.display))
    }
}

impl Drop for Grabber {
    /// Detaches the segment (the server would also free it when the connection closes).
    fn drop(&mut self) {
        if let Route::Shm(Some(seg)) = std::mem::replace(&mut self.route, Route::Core) {
            seg.detach(&self.conn);
        }
    }
}

/// Bytes of a `w`×`h` frame at 32 bits a pixel (the ZPixmap of a depth-24 screen).
fn frame_bytes(w: u16, h: u16) -> usize {
    usize::from(w) * usize::from(h) * 4
}

/// 32-bit BGRX pixels (the X server's LSB-first ZPixmap) as RGB.
fn bgrx_to_rgb(bgrx: &[u8]) -> Vec<u8> {
    // Indexed writes into a sized buffer (not a push per pixel): the compiler vectorizes it.
    let mut rgb = vec![0u8; bgrx.len() / 4 * 3];
    for (o, p) in rgb.chunks_exact_mut(3).zip(bgrx.chunks_exact(4)) {
        o[0] = p[2];
        o[1] = p[1];
        o[2] = p[0];
    }
    rgb
}

/// A grab of `display` with `cached` when it is connected there (a fresh grabber
/// otherwise, or when the cached connection fails: the display may have restarted). Gives
/// back the grabber to keep for the next grab, if any.
pub(super) fn grab_with(
    cached: Option<Grabber>,
    display: &str,
) -> (Option<Grabber>, Result<image::RgbImage, DeviceError>) {
    if let Some(mut g) = cached.filter(|g| g.display() == display) {
        if let Ok(img) = g.grab() {
            return (Some(g), Ok(img));
        }
    }
    match Grabber::connect(display) {
        Ok(mut g) => {
            let img = g.grab();
            (img.is_ok().then_some(g), img)
        }
        Err(e) => (None, Err(e)),
    }
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

/// A connection to `display` and its first screen's root window (the desktop driver's one way
/// to open the display: grabs, the topmost window).
pub(super) fn connect_root(
    display: &str,
) -> Result<(x11rb::rust_connection::RustConnection, u32), DeviceError> {
    let (conn, n) = x11rb::connect(Some(display))
        .map_err(|e| DeviceError::Failed(format!("X display {display}: connect: {e}")))?;
    let root = conn
        .setup()
        .roots
        .get(n)
        .ok_or_else(|| DeviceError::Failed(format!("X display {display} has no screen")))?
        .root;
    Ok((conn, root))
}
