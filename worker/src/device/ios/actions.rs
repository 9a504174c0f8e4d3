//! Acting on iOS through WDA, in points: taps, long presses and swipes as W3C pointer
//! actions (`POST /session/<id>/actions`, one touch pointer), text as `POST /wda/keys`
//! after a tap on the field (XCTest types any Unicode), keys as the characters XCTest knows
//! (`\n`, `\t`, backspace, delete); other keys fail closed. `open` launches a bundle id
//! (`/wda/apps/launch`) or opens a URL (`/url`).

use argus_perception::Element;
use argus_protocol::Key;
use reqwest::Method;
use serde_json::{json, Value};

use super::IosDevice;
use crate::device::ActError;

/// The character XCTest types for a key, if it has one.
pub fn key_char(key: Key) -> Option<&'static str> {
    match key {
        Key::Enter => Some("\n"),
        Key::Tab => Some("\t"),
        Key::Backspace => Some("\u{8}"),
        Key::Delete => Some("\u{7f}"),
        Key::Space => Some(" "),
        _ => None,
    }
}

/// One touch pointer: move to (x, y) pt, press, hold `hold_ms`, move to `to` over
/// `move_ms`, release.
pub fn touch_actions(at: (f64, f64), hold_ms: u64, to: Option<((f64, f64), u64)>) -> Value {
    let mut steps = vec![
        json!({"type": "pointerMove", "duration": 0, "x": at.0.round(), "y": at.1.round()}),
        json!({"type": "pointerDown", "button": 0}),
        json!({"type": "pause", "duration": hold_ms}),
    ];
    if let Some(((x, y), ms)) = to {
        steps.push(json!({"type": "pointerMove", "duration": ms, "x": x.round(), "y": y.round()}));
    }
    steps.push(json!({"type": "pointerUp", "button": 0}));
    json!({"actions": [{
        "type": "pointer",
        "id": "finger1",
        "parameters": {"pointerType": "touch"},
        "actions": steps
    }]})
}

async fn post(dev: &IosDevice, path: &str, body: Value) -> Result<(), ActError> {
    let p = dev.wda.session_path(path).map_err(ActError::from)?;
    dev.wda
        .call(Method::POST, &p, Some(body))
        .await
        .map(|_| ())
        .map_err(|e| ActError::uncertain(e.to_string()))
}

/// Tap point of an element, in points.
fn centre_pt(el: &Element) -> (f64, f64) {
    el.bbox_logical.center()
}

pub(super) async fn tap(dev: &IosDevice, el: &Element) -> Result<(), ActError> {
    post(dev, "/actions", touch_actions(centre_pt(el), 50, None)).await
}

pub(super) async fn long_press(dev: &IosDevice, el: &Element, ms: u64) -> Result<(), ActError> {
    post(dev, "/actions", touch_actions(centre_pt(el), ms, None)).await
}

/// Two touches at the element's centre, 50 ms each, 80 ms apart (inside UIKit's double-tap
/// interval), as one W3C actions sequence.
pub fn double_tap_actions(at: (f64, f64)) -> Value {
    let (x, y) = (at.0.round(), at.1.round());
    json!({"actions": [{
        "type": "pointer",
        "id": "finger1",
        "parameters": {"pointerType": "touch"},
        "actions": [
            {"type": "pointerMove", "duration": 0, "x": x, "y": y},
            {"type": "pointerDown", "button": 0},
            {"type": "pause", "duration": 50},
            {"type": "pointerUp", "button": 0},
            {"type": "pause", "duration": 80},
            {"type": "pointerDown", "button": 0},
            {"type": "pause", "duration": 50},
            {"type": "pointerUp", "button": 0}
        ]
    }]})
}

pub(super) async fn double_tap(dev: &IosDevice, el: &Element) -> Result<(), ActError> {
    post(dev, "/actions", double_tap_actions(centre_pt(el))).await
}

/// `from`/`to` in pixels (the trait's unit), sent in points.
pub(super) async fn swipe(
    dev: &IosDevice,
    from: (f64, f64),
    to: (f64, f64),
    ms: u64,
) -> Result<(), ActError> {
    let k = dev.geometry.map(|g| g.scale).unwrap_or(1.0);
    let body = touch_actions(
        (from.0 / k, from.1 / k),
        50,
        Some(((to.0 / k, to.1 / k), ms)),
    );
    post(dev, "/actions", body).await
}

pub(super) async fn type_text(dev: &IosDevice, el: &Element, text: &str) -> Result<(), ActError> {
    tap(dev, el)
        .await
        .map_err(|e| ActError::not_delivered(e.message))?;
    let chars: Vec<String> = text.chars().map(String::from).collect();
    post(dev, "/wda/keys", json!({"value": chars})).await
}

pub(super) async fn key(dev: &IosDevice, key: Key) -> Result<(), ActError> {
    match key_char(key) {
        Some(c) => post(dev, "/wda/keys", json!({"value": [c]})).await,
        None => Err(ActError::not_delivered(format!(
            "key {} is not supported on ios",
            key.as_str()
        ))),
    }
}

pub(super) async fn open(dev: &IosDevice, target: &str) -> Result<(), ActError> {
    let t = target.trim();
    if t.contains(':') {
        post(dev, "/url", json!({"url": t})).await
    } else {
        post(dev, "/wda/apps/launch", json!({"bundleId": t})).await
    }
}
