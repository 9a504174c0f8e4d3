//! Real pointer clicks through the X server's XTest extension (x11rb, pure Rust): the
//! second delivery channel of a desktop tap. The events enter the server's input queue as if
//! a mouse made them, so an app that ignores its accessibility action (or reacts only to
//! button events) still sees a click. Independent of the AT-SPI registry daemon.

use x11rb::connection::Connection;
use x11rb::protocol::xproto::ConnectionExt as _;
use x11rb::protocol::xproto::{BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT, MOTION_NOTIFY_EVENT};
use x11rb::protocol::xtest::ConnectionExt as _;

use crate::device::ActError;

/// The left mouse button.
const LEFT: u8 = 1;

/// Moves the pointer to screen px `(x, y)` of `display`, then presses and releases the left
/// button there; returns once the server has processed all three. Blocking: call it on a
/// blocking thread. An error before the press is `not_delivered`, after it `uncertain`.
pub(super) fn click(display: &str, x: f64, y: f64) -> Result<(), ActError> {
    let fail = |what: &str, e: &dyn std::fmt::Display| format!("XTest on {display}: {what}: {e}");
    let (conn, n) =
        x11rb::connect(Some(display)).map_err(|e| ActError::not_delivered(fail("connect", &e)))?;
    let root = conn
        .setup()
        .roots
        .get(n)
        .map(|s| s.root)
        .ok_or_else(|| ActError::not_delivered(format!("X display {display} has no screen")))?;
    conn.xtest_get_version(2, 2)
        .map_err(|e| ActError::not_delivered(fail("version", &e)))?
        .reply()
        .map_err(|e| ActError::not_delivered(fail("the server has no XTest", &e)))?;
    let (x, y) = (clamp_px(x), clamp_px(y));
    conn.xtest_fake_input(MOTION_NOTIFY_EVENT, 0, 0, root, x, y, 0)
        .map_err(|e| ActError::not_delivered(fail("pointer move", &e)))?;
    for kind in [BUTTON_PRESS_EVENT, BUTTON_RELEASE_EVENT] {
        conn.xtest_fake_input(kind, LEFT, 0, root, x, y, 0)
            .map_err(|e| ActError::uncertain(fail("button", &e)))?;
    }
    // A round trip: every request before it has been processed.
    conn.get_input_focus()
        .map_err(|e| ActError::uncertain(fail("sync", &e)))?
        .reply()
        .map_err(|e| ActError::uncertain(fail("sync", &e)))?;
    Ok(())
}

/// A screen coordinate as X's 16-bit signed px.
fn clamp_px(v: f64) -> i16 {
    v.round().clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
}
