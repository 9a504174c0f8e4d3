//! Top-level X windows of the session's display (x11rb, core protocol), for apps with no
//! accessibility at all (xterm, plain X11 toolkits): whether one is mapped, and where the
//! topmost one is, so key strokes can be sent to it. With no window manager, X keyboard focus
//! follows the pointer, so "the focused window" is the one under the pointer.

use x11rb::protocol::xproto::{ConnectionExt, MapState};

use crate::device::DeviceError;

/// Smallest side of a window that counts as an app window, px (skips 1×1 helper windows).
const MIN_SIDE_PX: u16 = 20;

/// The topmost mapped (viewable) child of the root at least [`MIN_SIDE_PX`] on each side:
/// `(x, y, width, height)` in screen px, or `None`. Blocking: call it on a blocking thread.
pub(super) fn topmost(display: &str) -> Result<Option<(i32, i32, u32, u32)>, DeviceError> {
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        DeviceError::Failed(format!("X display {display}: {what}: {e}"))
    };
    let (conn, root) = super::screen::connect_root(display)?;
    let tree = conn
        .query_tree(root)
        .map_err(|e| fail("QueryTree", &e))?
        .reply()
        .map_err(|e| fail("QueryTree", &e))?;
    // QueryTree lists children bottom to top.
    for &w in tree.children.iter().rev() {
        let Ok(attrs) = conn.get_window_attributes(w).map_err(|e| e.to_string()) else {
            continue;
        };
        let Ok(attrs) = attrs.reply() else { continue };
        if attrs.map_state != MapState::VIEWABLE {
            continue;
        }
        let Ok(g) = conn.get_geometry(w).map_err(|e| e.to_string()) else {
            continue;
        };
        let Ok(g) = g.reply() else { continue };
        if g.width < MIN_SIDE_PX || g.height < MIN_SIDE_PX {
            continue;
        }
        return Ok(Some((
            i32::from(g.x),
            i32::from(g.y),
            u32::from(g.width),
            u32::from(g.height),
        )));
    }
    Ok(None)
}
