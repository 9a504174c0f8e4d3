//! Acting on an Android device with `input` and `am`, in device px (the element list's
//! `bbox_px`, which `input tap` takes as is).
//!
//! Text: printable ASCII without `%` goes through `input text`, single-quoted for the
//! device shell with spaces written `%s` (the only escape `input text` knows — which is why
//! `%` itself cannot go this way). Anything else (non-ASCII such as Chinese, `%`, newlines)
//! goes through the ADB Keyboard IME (`com.android.adbkeyboard/.AdbIME`, open source,
//! installed separately): the text is sent base64-encoded in an `ADB_INPUT_B64` broadcast, so
//! it arrives byte-exact; the previous input method is switched back afterwards. Without
//! that IME such text fails closed (`not_delivered`) with the install hint — `input text`
//! would silently drop or mangle it.

use std::time::Duration;

use argus_perception::Element;
use argus_protocol::Key;
use base64::Engine;

use super::adb::sh_quote;
use super::AndroidDevice;
use crate::device::ActError;

/// The ADB Keyboard input method id.
pub const ADB_IME: &str = "com.android.adbkeyboard/.AdbIME";
/// Time the new input method gets to attach to the focused field.
const IME_SWITCH_SETTLE: Duration = Duration::from_millis(300);

/// `input text` argument for printable ASCII without `%`, or `None` when the text needs the
/// IME route.
pub fn input_text_arg(text: &str) -> Option<String> {
    if text.is_empty()
        || !text.chars().all(|c| c.is_ascii_graphic() || c == ' ')
        || text.contains('%')
    {
        return None;
    }
    Some(sh_quote(&text.replace(' ', "%s")))
}

/// The `input keyevent` name of a key.
pub fn keycode(key: Key) -> &'static str {
    match key {
        Key::Enter => "KEYCODE_ENTER",
        Key::Tab => "KEYCODE_TAB",
        Key::Escape => "KEYCODE_ESCAPE",
        Key::Backspace => "KEYCODE_DEL",
        Key::Delete => "KEYCODE_FORWARD_DEL",
        Key::Space => "KEYCODE_SPACE",
        Key::ArrowUp => "KEYCODE_DPAD_UP",
        Key::ArrowDown => "KEYCODE_DPAD_DOWN",
        Key::ArrowLeft => "KEYCODE_DPAD_LEFT",
        Key::ArrowRight => "KEYCODE_DPAD_RIGHT",
        Key::Home => "KEYCODE_MOVE_HOME",
        Key::End => "KEYCODE_MOVE_END",
        Key::PageUp => "KEYCODE_PAGE_UP",
        Key::PageDown => "KEYCODE_PAGE_DOWN",
    }
}

/// The command that opens `target`: a URL or deep link (`scheme:…`) through a VIEW intent,
/// a component (`pkg/.Activity`) with `am start -n`, a bare package through its launcher
/// activity (`monkey -p … -c android.intent.category.LAUNCHER 1`).
pub fn open_command(target: &str) -> String {
    let t = target.trim();
    if t.contains(':') {
        format!(
            "am start -W -a android.intent.action.VIEW -d {}",
            sh_quote(t)
        )
    } else if t.contains('/') {
        format!("am start -W -n {}", sh_quote(t))
    } else {
        format!(
            "monkey -p {} -c android.intent.category.LAUNCHER 1",
            sh_quote(t)
        )
    }
}

/// Runs an input command; any failure leaves the delivery uncertain (the command may have
/// reached the device).
async fn run(dev: &AndroidDevice, cmd: &str) -> Result<String, ActError> {
    let out = dev
        .adb
        .shell(cmd)
        .await
        .map_err(|e| ActError::uncertain(e.to_string()))?;
    let text = out.text();
    if out.exit.is_some_and(|c| c != 0) || text.contains("Exception") || text.starts_with("Error") {
        return Err(ActError::uncertain(format!(
            "`{}` failed: {}",
            cmd.split_whitespace().take(2).collect::<Vec<_>>().join(" "),
            text.lines().next().unwrap_or("").trim()
        )));
    }
    Ok(text)
}

fn px(v: f64) -> i64 {
    v.round() as i64
}

pub(super) async fn open(dev: &AndroidDevice, target: &str) -> Result<(), ActError> {
    run(dev, &open_command(target)).await.map(|_| ())
}

pub(super) async fn tap(dev: &AndroidDevice, el: &Element) -> Result<(), ActError> {
    let (x, y) = el.bbox_px.center();
    run(dev, &format!("input tap {} {}", px(x), px(y)))
        .await
        .map(|_| ())
}

pub(super) async fn long_press(dev: &AndroidDevice, el: &Element, ms: u64) -> Result<(), ActError> {
    let (x, y) = el.bbox_px.center();
    let (x, y) = (px(x), px(y));
    run(dev, &format!("input swipe {x} {y} {x} {y} {ms}"))
        .await
        .map(|_| ())
}

pub(super) async fn swipe(
    dev: &AndroidDevice,
    from: (f64, f64),
    to: (f64, f64),
    ms: u64,
) -> Result<(), ActError> {
    let cmd = format!(
        "input swipe {} {} {} {} {ms}",
        px(from.0),
        px(from.1),
        px(to.0),
        px(to.1)
    );
    run(dev, &cmd).await.map(|_| ())
}

/// The system back button (`KEYCODE_BACK`).
pub(super) async fn back(dev: &AndroidDevice) -> Result<(), ActError> {
    run(dev, "input keyevent KEYCODE_BACK").await.map(|_| ())
}

pub(super) async fn key(dev: &AndroidDevice, key: Key) -> Result<(), ActError> {
    run(dev, &format!("input keyevent {}", keycode(key)))
        .await
        .map(|_| ())
}

/// Taps the field to focus it, then types (see the module docs for the two routes).
pub(super) async fn type_text(
    dev: &AndroidDevice,
    el: &Element,
    text: &str,
) -> Result<(), ActError> {
    if let Some(arg) = input_text_arg(text) {
        tap(dev, el)
            .await
            .map_err(|e| ActError::not_delivered(e.message))?;
        return run(dev, &format!("input text {arg}")).await.map(|_| ());
    }
    let imes = dev
        .adb
        .shell("ime list -s")
        .await
        .map_err(|e| ActError::not_delivered(e.to_string()))?
        .text();
    if !imes.lines().any(|l| l.trim() == ADB_IME) {
        return Err(ActError::not_delivered(format!(
            "typing non-ASCII text (or `%`) on Android needs the ADB Keyboard IME ({ADB_IME}) \
             installed on the device; `input text` cannot deliver it"
        )));
    }
    let previous = dev
        .adb
        .shell("settings get secure default_input_method")
        .await
        .map_err(|e| ActError::not_delivered(e.to_string()))?
        .text()
        .trim()
        .to_string();
    tap(dev, el)
        .await
        .map_err(|e| ActError::not_delivered(e.message))?;
    let switched = previous != ADB_IME;
    if switched {
        run(dev, &format!("ime enable {ADB_IME}")).await?;
        run(dev, &format!("ime set {ADB_IME}")).await?;
        tokio::time::sleep(IME_SWITCH_SETTLE).await;
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    let sent = run(
        dev,
        &format!("am broadcast -a ADB_INPUT_B64 --es msg {b64}"),
    )
    .await;
    if switched && !previous.is_empty() && previous != "null" {
        let _ = run(dev, &format!("ime set {}", sh_quote(&previous))).await;
    }
    sent.map(|_| ())
}
