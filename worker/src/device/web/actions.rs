//! Acting on a page with CDP Input events (CSS px), then waiting for the page to settle
//! (two animation frames, or 100 ms if frames are throttled).
//!
//! A tap whose mouse events showed no effect may be sent again as a DOM `click()`
//! ([`tap_through`], channel 1; see [`super::dom_click`]).
//!
//! Dispositions: an error before the first input event is sent is `not_delivered`; an error
//! after it is `delivery_uncertain`; success is `delivered_unverified` (the executor verifies).

use std::time::Duration;

use argus_perception::{Element, NodeRef};
use argus_protocol::Key;
use serde_json::{json, Value};

use super::cdp_call::{call_on, object_id, settle};
use super::WebDevice;
use crate::device::{ActError, Channel};

/// Longest wait for a navigation's load event.
const LOAD_TIMEOUT: Duration = Duration::from_secs(30);

/// Sends a navigation command (`Page.navigate`, `Page.navigateToHistoryEntry`) and waits for
/// the page's load event (at most [`LOAD_TIMEOUT`]); a navigation the browser blocks on the
/// way (a redirect to a blocked host) fails with the navigation policy's reason.
async fn navigate(dev: &WebDevice, method: &str, params: Value) -> Result<(), ActError> {
    let sid = dev.session_id().map_err(ActError::from)?.to_string();
    let mut events = dev.cdp().events();
    let res = dev
        .call(method, params)
        .await
        .map_err(|e| ActError::uncertain(e.to_string()))?;
    if let Some(err) = res.get("errorText").and_then(Value::as_str) {
        if err.contains("ERR_BLOCKED_BY_CLIENT") {
            let notes = dev.drain_notes();
            return Err(ActError::refused(format!(
                "open blocked by the navigation policy: {}",
                if notes.is_empty() {
                    err.to_string()
                } else {
                    notes.join("; ")
                }
            )));
        }
        return Err(ActError::not_delivered(format!(
            "cannot open the URL: {err} (is the server up?)"
        )));
    }
    if res.get("loaderId").is_some() || method != "Page.navigate" {
        let wait = async {
            while let Ok(ev) = events.recv().await {
                if ev.method == "Page.loadEventFired" && ev.session_id.as_deref() == Some(&sid) {
                    return true;
                }
            }
            false
        };
        match tokio::time::timeout(LOAD_TIMEOUT, wait).await {
            Ok(true) => {}
            // A history entry restored from the back/forward cache fires no load event.
            _ if method != "Page.navigate" => {}
            _ => {
                return Err(ActError::uncertain(format!(
                    "the page did not finish loading within {} s",
                    LOAD_TIMEOUT.as_secs()
                )))
            }
        }
    }
    settle(dev).await;
    Ok(())
}

/// Navigates and waits for the load event.
///
/// The URL passes the navigation policy first (scheme for every browser; on a launched one
/// also the host), whoever chose it.
pub(super) async fn open(dev: &WebDevice, url: &str) -> Result<(), ActError> {
    if let Some(why) = argus_protocol::nav::refusal(argus_protocol::Platform::Web, url) {
        return Err(ActError::refused(format!(
            "open blocked by the navigation policy: {why}"
        )));
    }
    if let Some(g) = dev.host_guard() {
        if let Err(why) = g.check_url(url).await {
            return Err(ActError::refused(format!(
                "open blocked by the navigation policy: {why}"
            )));
        }
    }
    navigate(dev, "Page.navigate", json!({"url": url})).await
}

/// Goes to the previous history entry (fails `not_delivered` on the first page).
pub(super) async fn back(dev: &WebDevice) -> Result<(), ActError> {
    let h = dev
        .call("Page.getNavigationHistory", json!({}))
        .await
        .map_err(|e| ActError::not_delivered(e.to_string()))?;
    let current = h["currentIndex"].as_i64().unwrap_or(0);
    let Some(entry) = current
        .checked_sub(1)
        .filter(|i| *i >= 0)
        .and_then(|i| h["entries"].get(i as usize))
    else {
        return Err(ActError::not_delivered(
            "there is no page to go back to (this is the first page of the run)",
        ));
    };
    let id = entry["id"].clone();
    tokio::time::timeout(
        Duration::from_secs(5),
        navigate(dev, "Page.navigateToHistoryEntry", json!({"entryId": id})),
    )
    .await
    .unwrap_or(Ok(()))
}

/// Centre of the element in CSS px: from its live border box when the node still exists,
/// else from the observed box.
async fn center(dev: &WebDevice, el: &Element) -> (f64, f64) {
    if let NodeRef::Cdp { backend_node_id } = el.node_ref {
        let _ = dev
            .call(
                "DOM.scrollIntoViewIfNeeded",
                json!({"backendNodeId": backend_node_id}),
            )
            .await;
        if let Ok(m) = dev
            .call("DOM.getBoxModel", json!({"backendNodeId": backend_node_id}))
            .await
        {
            if let Some(q) = m["model"]["border"].as_array() {
                let v: Vec<f64> = q.iter().filter_map(Value::as_f64).collect();
                if v.len() == 8 {
                    let x = (v[0] + v[2] + v[4] + v[6]) / 4.0;
                    let y = (v[1] + v[3] + v[5] + v[7]) / 4.0;
                    return (x, y);
                }
            }
        }
    }
    el.bbox_logical.center()
}

/// One mouse event at CSS px `(x, y)` with the left button.
fn mouse(kind: &str, x: f64, y: f64, clicks: u32) -> Value {
    json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": clicks})
}

/// Moves the pointer to `(x, y)`, then presses and releases the left button `clicks` times
/// (the n-th press carries `clickCount: n`, so two make a `dblclick`), holding each press
/// `hold_ms`.
async fn click_at(
    dev: &WebDevice,
    (x, y): (f64, f64),
    clicks: u32,
    hold_ms: u64,
) -> Result<(), ActError> {
    dev.call(
        "Input.dispatchMouseEvent",
        json!({"type": "mouseMoved", "x": x, "y": y}),
    )
    .await
    .map_err(|e| ActError::not_delivered(e.to_string()))?;
    for n in 1..=clicks {
        dev.call("Input.dispatchMouseEvent", mouse("mousePressed", x, y, n))
            .await
            .map_err(|e| ActError::uncertain(e.to_string()))?;
        if hold_ms > 0 {
            tokio::time::sleep(Duration::from_millis(hold_ms)).await;
        }
        dev.call("Input.dispatchMouseEvent", mouse("mouseReleased", x, y, n))
            .await
            .map_err(|e| ActError::uncertain(e.to_string()))?;
    }
    settle(dev).await;
    Ok(())
}

/// Moves the pointer to the element's centre and leaves it there (CSS `:hover`, `mouseover`).
pub(super) async fn hover(dev: &WebDevice, el: &Element) -> Result<(), ActError> {
    let (x, y) = center(dev, el).await;
    dev.call(
        "Input.dispatchMouseEvent",
        json!({"type": "mouseMoved", "x": x, "y": y}),
    )
    .await
    .map_err(|e| ActError::not_delivered(e.to_string()))?;
    settle(dev).await;
    Ok(())
}

/// Clicks the element's centre with the left button.
pub(super) async fn tap(dev: &WebDevice, el: &Element) -> Result<(), ActError> {
    let at = center(dev, el).await;
    click_at(dev, at, 1, 0).await
}

/// Taps the element through its `n`-th channel: `0` is mouse events at its centre (CDP
/// input, as a person clicks); `1` is its DOM `click()` (see [`super::dom_click`]).
pub(super) async fn tap_through(
    dev: &WebDevice,
    el: &Element,
    n: usize,
) -> Result<Channel, ActError> {
    match n {
        0 => tap(dev, el).await.map(|()| Channel::CdpInput),
        1 => super::dom_click::click(dev, el)
            .await
            .map(|()| Channel::DomClick),
        _ => Err(ActError::not_supported(
            "another delivery channel for a tap",
            argus_protocol::Platform::Web,
        )),
    }
}

/// Double-clicks the element's centre (fires `click`, `click`, `dblclick`).
pub(super) async fn double_tap(dev: &WebDevice, el: &Element) -> Result<(), ActError> {
    let at = center(dev, el).await;
    click_at(dev, at, 2, 0).await
}

/// Presses the element's centre for `hold_ms` (a desktop browser has no touch hold: a long
/// mouse press, which fires `mousedown` … `mouseup` and `contextmenu`-free).
pub(super) async fn long_press(
    dev: &WebDevice,
    el: &Element,
    hold_ms: u64,
) -> Result<(), ActError> {
    let at = center(dev, el).await;
    click_at(dev, at, 1, hold_ms).await
}

/// A swipe as the mouse wheel a desktop browser scrolls with: at `from` (device px), by the
/// opposite of the finger's travel (`swipe up` scrolls the content down). `dpr` converts
/// device px to CSS px.
pub(super) async fn swipe(
    dev: &WebDevice,
    from: (f64, f64),
    to: (f64, f64),
    dpr: f64,
) -> Result<(), ActError> {
    let dpr = if dpr > 0.0 { dpr } else { 1.0 };
    let (x, y) = (from.0 / dpr, from.1 / dpr);
    let (dx, dy) = ((from.0 - to.0) / dpr, (from.1 - to.1) / dpr);
    dev.call(
        "Input.dispatchMouseEvent",
        json!({"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy}),
    )
    .await
    .map_err(|e| ActError::not_delivered(e.to_string()))?;
    // Wheel scrolling is asynchronous: give it a frame or two, then let the page settle.
    tokio::time::sleep(Duration::from_millis(50)).await;
    settle(dev).await;
    Ok(())
}

/// CDP `Input.dispatchKeyEvent` modifier bit of Ctrl.
const CTRL: u32 = 2;

/// Windows virtual key code for a printable ASCII char (letters and digits), else 0.
fn vk_of(c: char) -> u32 {
    match c {
        'a'..='z' => c.to_ascii_uppercase() as u32,
        'A'..='Z' | '0'..='9' | ' ' => c as u32,
        _ => 0,
    }
}

/// The element's node name (lowercase: `input`, `select`, …) and, for an `<input>`, its
/// `type` attribute (lowercase; `None` when absent).
async fn control_kind(dev: &WebDevice, backend_node_id: i64) -> Option<(String, Option<String>)> {
    let v = dev
        .call(
            "DOM.describeNode",
            json!({"backendNodeId": backend_node_id}),
        )
        .await
        .ok()?;
    let node = &v["node"];
    let name = node["nodeName"].as_str()?.to_ascii_lowercase();
    let ty = node["attributes"].as_array().and_then(|attrs| {
        attrs
            .chunks(2)
            .find(|kv| kv[0].as_str() == Some("type"))
            .and_then(|kv| kv.get(1)?.as_str())
            .map(str::to_ascii_lowercase)
    });
    Some((name, ty))
}

/// Sets a date/time field's value in its HTML form and fires `input` and `change` (see
/// [`super::date_value`]); fails when the browser does not take it.
async fn set_field_value(
    dev: &WebDevice,
    backend_node_id: i64,
    value: &str,
) -> Result<(), ActError> {
    let object_id = object_id(dev, backend_node_id).await?;
    let r = call_on(dev, &object_id, SET_VALUE_JS, &[json!(value)])
        .await
        .map_err(|e| ActError::uncertain(e.to_string()))?;
    let took = r.as_str().unwrap_or_default();
    if took != value {
        return Err(ActError::uncertain(format!(
            "the field did not take the value {value:?} (it holds {took:?})"
        )));
    }
    settle(dev).await;
    Ok(())
}

const SET_VALUE_JS: &str = "function (v) { this.value = v; \
    this.dispatchEvent(new Event('input', {bubbles: true})); \
    this.dispatchEvent(new Event('change', {bubbles: true})); return this.value; }";

/// Focuses the element, then types: printable ASCII as real key events (keydown, keypress,
/// input, keyup), everything else with `Input.insertText` (fires `input` only). A date or
/// time written as people write it, into a date/time field, is set as the field's value
/// instead (see [`super::date_value`]); text typed into a `<select>` chooses the option it
/// names (see [`super::select_option`]).
pub(super) async fn type_text(dev: &WebDevice, el: &Element, text: &str) -> Result<(), ActError> {
    let focused = match el.node_ref {
        NodeRef::Cdp { backend_node_id } => {
            let focused = dev
                .call("DOM.focus", json!({"backendNodeId": backend_node_id}))
                .await
                .is_ok();
            match control_kind(dev, backend_node_id).await {
                Some((name, _)) if name == "select" => {
                    super::select_option::choose(dev, backend_node_id, text).await?;
                    settle(dev).await;
                    return Ok(());
                }
                Some((name, Some(ty))) if name == "input" => {
                    if let Some(v) = super::date_value::field_value(&ty, text) {
                        return set_field_value(dev, backend_node_id, &v).await;
                    }
                }
                _ => {}
            }
            focused
        }
        NodeRef::None => false,
    };
    if !focused {
        tap(dev, el).await?;
    }
    if el.value.as_deref().is_some_and(|v| !v.is_empty()) {
        // The typed text replaces what the field holds, as Playwright's `fill` does (typing
        // the same text twice leaves the same value, which the repeat guard can see).
        dev.call(
            "Input.dispatchKeyEvent",
            json!({"type": "rawKeyDown", "key": "a", "code": "KeyA", "modifiers": CTRL,
                   "windowsVirtualKeyCode": 65, "commands": ["selectAll"]}),
        )
        .await
        .map_err(|e| ActError::not_delivered(e.to_string()))?;
        dev.call(
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": "a", "code": "KeyA", "modifiers": CTRL,
                   "windowsVirtualKeyCode": 65}),
        )
        .await
        .map_err(|e| ActError::uncertain(e.to_string()))?;
    }
    let mut sent_any = false;
    let fail = |sent: bool, e: crate::device::DeviceError| {
        if sent {
            ActError::uncertain(e.to_string())
        } else {
            ActError::not_delivered(e.to_string())
        }
    };
    let mut pending = String::new();
    for c in text.chars() {
        if c.is_ascii() && !c.is_ascii_control() {
            if !pending.is_empty() {
                dev.call("Input.insertText", json!({"text": pending}))
                    .await
                    .map_err(|e| fail(sent_any, e))?;
                sent_any = true;
                pending.clear();
            }
            let s = c.to_string();
            let vk = vk_of(c);
            dev.call(
                "Input.dispatchKeyEvent",
                json!({"type": "keyDown", "key": s, "text": s, "unmodifiedText": s,
                       "windowsVirtualKeyCode": vk}),
            )
            .await
            .map_err(|e| fail(sent_any, e))?;
            sent_any = true;
            dev.call(
                "Input.dispatchKeyEvent",
                json!({"type": "keyUp", "key": s, "windowsVirtualKeyCode": vk}),
            )
            .await
            .map_err(|e| fail(true, e))?;
        } else {
            pending.push(c);
        }
    }
    if !pending.is_empty() {
        dev.call("Input.insertText", json!({"text": pending}))
            .await
            .map_err(|e| fail(sent_any, e))?;
    }
    settle(dev).await;
    Ok(())
}

/// `(key, code, windowsVirtualKeyCode, text)` for a named key.
fn key_def(key: Key) -> (&'static str, &'static str, u32, Option<&'static str>) {
    match key {
        Key::Enter => ("Enter", "Enter", 13, Some("\r")),
        Key::Tab => ("Tab", "Tab", 9, None),
        Key::Escape => ("Escape", "Escape", 27, None),
        Key::Backspace => ("Backspace", "Backspace", 8, None),
        Key::Delete => ("Delete", "Delete", 46, None),
        Key::Space => (" ", "Space", 32, Some(" ")),
        Key::ArrowUp => ("ArrowUp", "ArrowUp", 38, None),
        Key::ArrowDown => ("ArrowDown", "ArrowDown", 40, None),
        Key::ArrowLeft => ("ArrowLeft", "ArrowLeft", 37, None),
        Key::ArrowRight => ("ArrowRight", "ArrowRight", 39, None),
        Key::Home => ("Home", "Home", 36, None),
        Key::End => ("End", "End", 35, None),
        Key::PageUp => ("PageUp", "PageUp", 33, None),
        Key::PageDown => ("PageDown", "PageDown", 34, None),
    }
}

/// Presses and releases one key on the focused element.
pub(super) async fn key(dev: &WebDevice, key: Key) -> Result<(), ActError> {
    let (k, code, vk, text) = key_def(key);
    let mut down = json!({"type": if text.is_some() { "keyDown" } else { "rawKeyDown" },
        "key": k, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk});
    if let Some(t) = text {
        down["text"] = json!(t);
        down["unmodifiedText"] = json!(t);
    }
    dev.call("Input.dispatchKeyEvent", down)
        .await
        .map_err(|e| ActError::not_delivered(e.to_string()))?;
    dev.call(
        "Input.dispatchKeyEvent",
        json!({"type": "keyUp", "key": k, "code": code, "windowsVirtualKeyCode": vk,
               "nativeVirtualKeyCode": vk}),
    )
    .await
    .map_err(|e| ActError::uncertain(e.to_string()))?;
    settle(dev).await;
    Ok(())
}
