//! Acting on HarmonyOS with `uitest uiInput` (device px) and `aa start`.
//!
//! Text goes through `uitest uiInput inputText <x> <y> '<text>'` at the field's centre: one
//! command, single-quoted for the device shell, so spaces, quotes and non-ASCII (Chinese)
//! arrive as written. Keys are `uitest uiInput keyEvent <name or keycode>`.

use argus_perception::Element;
use argus_protocol::Key;

use super::hdc::sh_quote;
use super::HarmonyDevice;
use crate::device::ActError;

/// The `keyEvent` argument for a key: `Back`/`Home` are names, the rest OpenHarmony keycodes.
pub fn key_arg(key: Key) -> &'static str {
    match key {
        Key::Enter => "2054",
        Key::Tab => "2049",
        Key::Escape => "2070",
        Key::Backspace => "2055",
        Key::Delete => "2071",
        Key::Space => "2050",
        Key::ArrowUp => "2012",
        Key::ArrowDown => "2013",
        Key::ArrowLeft => "2014",
        Key::ArrowRight => "2015",
        Key::Home => "2081",
        Key::End => "2082",
        Key::PageUp => "2068",
        Key::PageDown => "2069",
    }
}

/// The command that opens `target`: a URI (`scheme:…`) with `aa start -U`, else
/// `bundle/ability` (or a bare bundle, ability `EntryAbility`) with `aa start -b … -a …`.
pub fn open_command(target: &str) -> String {
    let t = target.trim();
    if t.contains(':') {
        format!("aa start -U {}", sh_quote(t))
    } else {
        let (bundle, ability) = t.split_once('/').unwrap_or((t, "EntryAbility"));
        format!("aa start -b {} -a {}", sh_quote(bundle), sh_quote(ability))
    }
}

fn px(v: f64) -> i64 {
    v.round() as i64
}

async fn run(dev: &HarmonyDevice, cmd: &str) -> Result<(), ActError> {
    let out = dev
        .hdc
        .shell(cmd)
        .await
        .map_err(|e| ActError::uncertain(e.to_string()))?;
    let low = out.to_ascii_lowercase();
    if low.contains("error") || low.contains("fail") {
        return Err(ActError::uncertain(format!(
            "`{}` failed: {}",
            cmd.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
            out.lines().next().unwrap_or("").trim()
        )));
    }
    Ok(())
}

pub(super) async fn open(dev: &HarmonyDevice, target: &str) -> Result<(), ActError> {
    run(dev, &open_command(target)).await
}

pub(super) async fn tap(dev: &HarmonyDevice, el: &Element) -> Result<(), ActError> {
    let (x, y) = el.bbox_px.center();
    run(dev, &format!("uitest uiInput click {} {}", px(x), px(y))).await
}

pub(super) async fn double_tap(dev: &HarmonyDevice, el: &Element) -> Result<(), ActError> {
    let (x, y) = el.bbox_px.center();
    run(
        dev,
        &format!("uitest uiInput doubleClick {} {}", px(x), px(y)),
    )
    .await
}

pub(super) async fn long_press(dev: &HarmonyDevice, el: &Element) -> Result<(), ActError> {
    let (x, y) = el.bbox_px.center();
    run(
        dev,
        &format!("uitest uiInput longClick {} {}", px(x), px(y)),
    )
    .await
}

/// Swipe; `uitest` takes a velocity (px/s, 200–40000) rather than a duration.
pub(super) async fn swipe(
    dev: &HarmonyDevice,
    from: (f64, f64),
    to: (f64, f64),
    ms: u64,
) -> Result<(), ActError> {
    let dist = ((to.0 - from.0).powi(2) + (to.1 - from.1).powi(2)).sqrt();
    let velocity = (dist / (ms.max(1) as f64 / 1000.0))
        .clamp(200.0, 40000.0)
        .round() as i64;
    let cmd = format!(
        "uitest uiInput swipe {} {} {} {} {velocity}",
        px(from.0),
        px(from.1),
        px(to.0),
        px(to.1)
    );
    run(dev, &cmd).await
}

pub(super) async fn key(dev: &HarmonyDevice, key: Key) -> Result<(), ActError> {
    run(dev, &format!("uitest uiInput keyEvent {}", key_arg(key))).await
}

pub(super) async fn type_text(
    dev: &HarmonyDevice,
    el: &Element,
    text: &str,
) -> Result<(), ActError> {
    let (x, y) = el.bbox_px.center();
    run(
        dev,
        &format!(
            "uitest uiInput inputText {} {} {}",
            px(x),
            px(y),
            sh_quote(text)
        ),
    )
    .await
}
