//! Acting on desktop apps through AT-SPI, on the very object an element was observed as.
//!
//! - tap: the object's own action named `click`, `press`, `activate`, `toggle` or `jump`
//!   (matched on `GetName(i)`, never on the localized names); an object without one is clicked
//!   with a synthesized left click at its centre (`DeviceEventController.GenerateMouseEvent`).
//!   When the action showed no effect, the executor asks for the second channel: a real
//!   pointer click at the centre through XTest (`xtest`), which reaches an app that ignores
//!   its accessibility action (measured: a GTK 4 calculator's `=` answered `DoAction` true
//!   and computed nothing).
//! - type: `Component.GrabFocus`, then `EditableText.InsertText` at the caret (length in bytes,
//!   as ATK documents it, so non-ASCII text arrives whole); an object without EditableText gets
//!   the text as synthesized key strokes (`GenerateKeyboardEvent`, `String`).
//! - double tap / long press: synthesized `b1d` / `b1p`…`b1r` at the centre.
//! - key: `GenerateKeyboardEvent` with the X keysym, after the pointer is moved over the last
//!   element acted on (with no window manager, X keyboard focus follows the pointer).
//! - type into the focused window (no element: a terminal): the pointer is moved over the
//!   last element acted on, else the centre of the topmost X window, then the text goes as
//!   synthesized key strokes.
//! - pixel-channel elements (OCR text, vision boxes: no AT-SPI object behind them) are
//!   tapped, double-tapped and pressed with synthesized pointer events at their box centre.
//!
//! `DoAction` answers true even on an insensitive button, so success here is only
//! `delivered_unverified`: the executor re-reads the tree to verify.

use argus_perception::{Element, Source};
use argus_protocol::{Key, Platform};
use atspi::proxy::device_event_controller::{DeviceEventControllerProxy, KeySynthType};
use atspi::zbus;
use atspi::{Interface, ObjectRefOwned};

use super::tree::{action_proxy, component_proxy, dbus_err, editable_proxy, text_proxy};
use super::DesktopDevice;
use crate::device::{ActError, Channel};

/// Action names that mean "activate this", in order of preference.
const TAP_ACTIONS: [&str; 5] = ["click", "press", "activate", "toggle", "jump"];

/// The X keysym of a named key.
pub(super) fn keysym(key: Key) -> i32 {
    match key {
        Key::Enter => 0xff0d,
        Key::Tab => 0xff09,
        Key::Escape => 0xff1b,
        Key::Backspace => 0xff08,
        Key::Delete => 0xffff,
        Key::Space => 0x20,
        Key::ArrowUp => 0xff52,
        Key::ArrowDown => 0xff54,
        Key::ArrowLeft => 0xff51,
        Key::ArrowRight => 0xff53,
        Key::Home => 0xff50,
        Key::End => 0xff57,
        Key::PageUp => 0xff55,
        Key::PageDown => 0xff56,
    }
}

async fn dec(conn: &zbus::Connection) -> Result<DeviceEventControllerProxy<'static>, ActError> {
    DeviceEventControllerProxy::new(conn)
        .await
        .map_err(|e| ActError::not_delivered(format!("AT-SPI device event controller: {e}")))
}

/// The live object behind `el`, checked to still answer.
async fn object(dev: &DesktopDevice, el: &Element) -> Result<ObjectRefOwned, ActError> {
    dev.refs.get(&el.path).cloned().ok_or_else(|| {
        ActError::not_delivered(format!(
            "{} is not in the last observation (observe again)",
            el.describe()
        ))
    })
}

async fn interfaces(
    conn: &zbus::Connection,
    obj: &ObjectRefOwned,
) -> Result<atspi::InterfaceSet, ActError> {
    use atspi::proxy::accessible::ObjectRefExt;
    let acc = obj
        .as_accessible_proxy(conn)
        .await
        .map_err(|e| ActError::not_delivered(e.to_string()))?;
    acc.get_interfaces()
        .await
        .map_err(|e| ActError::not_delivered(format!("the element is gone: {}", dbus_err(e))))
}

/// Left click at a screen point (px).
async fn click_at(conn: &zbus::Connection, x: f64, y: f64) -> Result<(), ActError> {
    let d = dec(conn).await?;
    let (x, y) = (x.round() as i32, y.round() as i32);
    d.generate_mouse_event(x, y, "abs")
        .await
        .map_err(|e| ActError::not_delivered(format!("pointer move: {e}")))?;
    d.generate_mouse_event(x, y, "b1c")
        .await
        .map_err(|e| ActError::uncertain(format!("click: {e}")))
}

/// Whether the element came from the pixel channel (no AT-SPI object behind it).
fn from_pixels(el: &Element) -> bool {
    el.source != Source::Tree
}

/// Activates the element (see the module docs).
pub(super) async fn tap(dev: &mut DesktopDevice, el: &Element) -> Result<(), ActError> {
    tap_through(dev, el, 0).await.map(|_| ())
}

/// The index of the object's own "activate" action (the first of [`TAP_ACTIONS`] it has)
/// and that action's name.
async fn tap_action(
    conn: &zbus::Connection,
    obj: &ObjectRefOwned,
) -> Result<Option<(i32, &'static str)>, ActError> {
    let ifaces = interfaces(conn, obj).await?;
    if !ifaces.contains(Interface::Action) {
        return Ok(None);
    }
    let a = action_proxy(conn, obj).await.map_err(ActError::from)?;
    let n = a.n_actions().await.unwrap_or(0);
    for want in TAP_ACTIONS {
        for i in 0..n {
            if a.get_name(i)
                .await
                .is_ok_and(|name| name.eq_ignore_ascii_case(want))
            {
                return Ok(Some((i, want)));
            }
        }
    }
    Ok(None)
}

/// Taps the element through its `n`-th channel: `0` is its accessibility action, or a
/// synthesized pointer click for an object without one (and for pixel-channel elements);
/// `1`, only after an accessibility action, is a real pointer click through XTest at the
/// element's centre. No further channel.
pub(super) async fn tap_through(
    dev: &mut DesktopDevice,
    el: &Element,
    n: usize,
) -> Result<Channel, ActError> {
    let conn = dev.conn().await.map_err(ActError::from)?;
    let (cx, cy) = el.bbox_px.center();
    let action = if from_pixels(el) {
        None
    } else {
        let obj = object(dev, el).await?;
        tap_action(&conn, &obj).await?.map(|a| (obj, a))
    };
    dev.pointer = Some((cx, cy));
    match (n, action) {
        (0, Some((obj, (i, want)))) => {
            let a = action_proxy(&conn, &obj).await.map_err(ActError::from)?;
            match a.do_action(i).await {
                Ok(_) => Ok(Channel::AccessibilityAction),
                Err(e) => Err(ActError::uncertain(format!("DoAction({want}): {e}"))),
            }
        }
        (0, None) => click_at(&conn, cx, cy)
            .await
            .map(|()| Channel::SynthesizedPointer),
        (1, Some(_)) => {
            let display = dev.session.env.display.clone();
            tokio::task::spawn_blocking(move || super::xtest::click(&display, cx, cy))
                .await
                .map_err(|e| ActError::not_delivered(format!("XTest task: {e}")))??;
            Ok(Channel::XTestPointer)
        }
        _ => Err(ActError::not_supported(
            "another delivery channel for a tap",
            Platform::Desktop,
        )),
    }
}

/// Synthesized pointer events at the element's centre: `b1d` (button 1 double click) for a
/// double tap; `b1p`, a hold of `hold_ms`, `b1r` for a long press. The element must still be
/// in the last observation.
async fn pointer_gesture(
    dev: &mut DesktopDevice,
    el: &Element,
    hold_ms: Option<u64>,
) -> Result<(), ActError> {
    let conn = dev.conn().await.map_err(ActError::from)?;
    if !from_pixels(el) {
        object(dev, el).await?;
    }
    let (cx, cy) = el.bbox_px.center();
    dev.pointer = Some((cx, cy));
    let d = dec(&conn).await?;
    let (x, y) = (cx.round() as i32, cy.round() as i32);
    d.generate_mouse_event(x, y, "abs")
        .await
        .map_err(|e| ActError::not_delivered(format!("pointer move: {e}")))?;
    let Some(hold) = hold_ms else {
        return d
            .generate_mouse_event(x, y, "b1d")
            .await
            .map_err(|e| ActError::uncertain(format!("double click: {e}")));
    };
    d.generate_mouse_event(x, y, "b1p")
        .await
        .map_err(|e| ActError::uncertain(format!("press: {e}")))?;
    tokio::time::sleep(std::time::Duration::from_millis(hold)).await;
    d.generate_mouse_event(x, y, "b1r")
        .await
        .map_err(|e| ActError::uncertain(format!("release: {e}")))
}

/// Double-clicks the element's centre.
pub(super) async fn double_tap(dev: &mut DesktopDevice, el: &Element) -> Result<(), ActError> {
    pointer_gesture(dev, el, None).await
}

/// Presses the element's centre for `hold_ms`.
pub(super) async fn long_press(
    dev: &mut DesktopDevice,
    el: &Element,
    hold_ms: u64,
) -> Result<(), ActError> {
    pointer_gesture(dev, el, Some(hold_ms)).await
}

/// Focuses the element and inserts the text at its caret (see the module docs).
pub(super) async fn type_text(
    dev: &mut DesktopDevice,
    el: &Element,
    text: &str,
) -> Result<(), ActError> {
    let conn = dev.conn().await.map_err(ActError::from)?;
    let obj = object(dev, el).await?;
    let ifaces = interfaces(&conn, &obj).await?;
    let (cx, cy) = el.bbox_px.center();
    dev.pointer = Some((cx, cy));
    if ifaces.contains(Interface::Component) {
        if let Ok(c) = component_proxy(&conn, &obj).await {
            let _ = c.grab_focus().await;
        }
    }
    if ifaces.contains(Interface::EditableText) {
        let caret = match text_proxy(&conn, &obj).await {
            Ok(t) => t.caret_offset().await.unwrap_or(-1),
            Err(_) => -1,
        };
        let e = editable_proxy(&conn, &obj).await.map_err(ActError::from)?;
        let len = i32::try_from(text.len())
            .map_err(|_| ActError::not_delivered("the text is too long to type"))?;
        let pos = if caret < 0 { 0 } else { caret };
        return match e.insert_text(pos, text, len).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(ActError::not_delivered(format!(
                "{} refused the text (read-only?)",
                el.describe()
            ))),
            Err(e) => Err(ActError::uncertain(format!("InsertText: {e}"))),
        };
    }
    let d = dec(&conn).await?;
    let (x, y) = (cx.round() as i32, cy.round() as i32);
    let _ = d.generate_mouse_event(x, y, "abs").await;
    d.generate_keyboard_event(0, text, KeySynthType::String)
        .await
        .map_err(|e| ActError::uncertain(format!("synthesized typing: {e}")))
}

/// Presses one key (see the module docs).
pub(super) async fn key(dev: &mut DesktopDevice, key: Key) -> Result<(), ActError> {
    let conn = dev.conn().await.map_err(ActError::from)?;
    let d = dec(&conn).await?;
    if let Some((x, y)) = dev.pointer {
        d.generate_mouse_event(x.round() as i32, y.round() as i32, "abs")
            .await
            .map_err(|e| ActError::not_delivered(format!("pointer move: {e}")))?;
    }
    d.generate_keyboard_event(keysym(key), "", KeySynthType::Sym)
        .await
        .map_err(|e| ActError::uncertain(format!("key {}: {e}", key.as_str())))
}

/// Types `text` as key strokes into the focused window (see the module docs).
pub(super) async fn type_focused(dev: &mut DesktopDevice, text: &str) -> Result<(), ActError> {
    let conn = dev.conn().await.map_err(ActError::from)?;
    let d = dec(&conn).await?;
    let at = match dev.pointer {
        Some(p) => Some(p),
        None => dev
            .top_window()
            .await
            .map_err(ActError::from)?
            .map(|(x, y, w, h)| {
                (
                    f64::from(x) + f64::from(w) / 2.0,
                    f64::from(y) + f64::from(h) / 2.0,
                )
            }),
    };
    let Some((x, y)) = at else {
        return Err(ActError::not_delivered(
            "no window to type into: nothing was acted on yet and no X window is mapped",
        ));
    };
    dev.pointer = Some((x, y));
    d.generate_mouse_event(x.round() as i32, y.round() as i32, "abs")
        .await
        .map_err(|e| ActError::not_delivered(format!("pointer move: {e}")))?;
    d.generate_keyboard_event(0, text, KeySynthType::String)
        .await
        .map_err(|e| ActError::uncertain(format!("synthesized typing: {e}")))
}
