//! The executor's tool set and the strict check of one call.
//!
//! `llm` mode names elements by id (`"element": "e7"`) from the observation the call names
//! (`"observation": 12`); `vlm` mode names a point (`"x"`, `"y"`) in the declared coordinate
//! space of the screenshot of that observation. Every acting tool names its observation so a
//! call made against an older screen is refused as stale instead of applied to whatever is
//! now at that id.

use argus_protocol::{Key, Mode};
use serde_json::{json, Value};

use super::model::RawCall;

/// Where an acting tool points.
#[derive(Debug, Clone, PartialEq)]
pub enum Aim {
    /// An element id of the named observation (`llm`).
    Element(String),
    /// A point in the model's coordinate space (`vlm`).
    Point(f64, f64),
}

/// One checked tool call.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolCall {
    /// Tap the target.
    Tap { observation: u64, aim: Aim },
    /// Press the target for `duration_ms`.
    LongPress {
        observation: u64,
        aim: Aim,
        duration_ms: u64,
    },
    /// Focus the target and type (may contain `${secret.NAME}`).
    Type {
        observation: u64,
        aim: Aim,
        text: String,
    },
    /// Scroll the content `up` or `down` (a swipe, or PageUp/PageDown).
    Scroll { down: bool },
    /// Swipe between two points (model coordinates in `vlm`, device px in `llm`).
    Swipe { from: (f64, f64), to: (f64, f64) },
    /// Press a key.
    Key(Key),
    /// Open a URL.
    Open(String),
    /// Wait until the text is on screen.
    WaitFor { text: String, timeout_ms: u64 },
    /// Assert the text is on screen.
    AssertContains(String),
    /// Assert the text is not on screen.
    AssertNotContains(String),
    /// The step is done.
    Finish(String),
    /// The step cannot be done.
    Fail(String),
}

impl ToolCall {
    /// The tool name (`ActionRecord::kind`).
    pub fn kind(&self) -> &'static str {
        match self {
            ToolCall::Tap { .. } => "tap",
            ToolCall::LongPress { .. } => "long_press",
            ToolCall::Type { .. } => "type",
            ToolCall::Scroll { .. } => "scroll",
            ToolCall::Swipe { .. } => "swipe",
            ToolCall::Key(_) => "key",
            ToolCall::Open(_) => "open",
            ToolCall::WaitFor { .. } => "wait_for",
            ToolCall::AssertContains(_) => "assert_contains",
            ToolCall::AssertNotContains(_) => "assert_not_contains",
            ToolCall::Finish(_) => "finish",
            ToolCall::Fail(_) => "fail",
        }
    }

    /// The observation an acting call names.
    pub fn observation(&self) -> Option<u64> {
        match self {
            ToolCall::Tap { observation, .. }
            | ToolCall::LongPress { observation, .. }
            | ToolCall::Type { observation, .. } => Some(*observation),
            _ => None,
        }
    }

    /// Whether it changes the screen (and so gets a reflection).
    pub fn acts(&self) -> bool {
        !matches!(
            self,
            ToolCall::WaitFor { .. }
                | ToolCall::AssertContains(_)
                | ToolCall::AssertNotContains(_)
                | ToolCall::Finish(_)
                | ToolCall::Fail(_)
        )
    }
}

fn obs_prop() -> Value {
    json!({"type": "integer", "description": "the observation number the element ids / screenshot come from"})
}

fn aim_props(mode: Mode) -> (Value, Vec<&'static str>) {
    if mode == Mode::Vlm {
        (
            json!({"x": {"type": "number"}, "y": {"type": "number"}, "observation": obs_prop()}),
            vec!["x", "y", "observation"],
        )
    } else {
        (
            json!({"element": {"type": "string", "description": "element id, e.g. e7"}, "observation": obs_prop()}),
            vec!["element", "observation"],
        )
    }
}

fn func(name: &str, desc: &str, props: Value, required: &[&str]) -> Value {
    json!({"type": "function", "function": {"name": name, "description": desc,
        "parameters": {"type": "object", "properties": props, "required": required,
            "additionalProperties": false}}})
}

/// The `tools` array for `mode`.
pub fn tools(mode: Mode) -> Value {
    let (aim, req) = aim_props(mode);
    let with = |extra: Value, more: &[&'static str]| {
        let mut p = aim.clone();
        if let (Some(o), Value::Object(x)) = (p.as_object_mut(), extra) {
            o.extend(x);
        }
        let mut r = req.clone();
        r.extend_from_slice(more);
        (p, r)
    };
    let (type_p, type_r) = with(json!({"text": {"type": "string"}}), &["text"]);
    let (lp_p, lp_r) = with(json!({"duration_ms": {"type": "integer"}}), &[]);
    let text = json!({"text": {"type": "string"}});
    let keys: Vec<&str> = vec![
        "Enter",
        "Tab",
        "Escape",
        "Backspace",
        "Delete",
        "Space",
        "ArrowUp",
        "ArrowDown",
        "ArrowLeft",
        "ArrowRight",
        "Home",
        "End",
        "PageUp",
        "PageDown",
    ];
    json!([
        func("tap", "Tap (click) an element.", aim.clone(), &req),
        func("long_press", "Press and hold an element.", lp_p, &lp_r),
        func(
            "type",
            "Focus a text field and type text. Write secrets as ${secret.NAME}.",
            type_p,
            &type_r
        ),
        func(
            "scroll",
            "Scroll the content.",
            json!({"direction": {"type": "string", "enum": ["up", "down"]}}),
            &["direction"]
        ),
        func(
            "key",
            "Press one key.",
            json!({"key": {"type": "string", "enum": keys}}),
            &["key"]
        ),
        func(
            "open",
            "Open a URL or deep link.",
            json!({"url": {"type": "string"}}),
            &["url"]
        ),
        func(
            "wait_for",
            "Wait until a text appears on screen.",
            json!({"text": {"type": "string"}, "timeout_ms": {"type": "integer"}}),
            &["text"]
        ),
        func(
            "assert_contains",
            "Check the screen shows a text.",
            text.clone(),
            &["text"]
        ),
        func(
            "assert_not_contains",
            "Check the screen does not show a text.",
            text,
            &["text"]
        ),
        func(
            "finish",
            "The current step is done.",
            json!({"summary": {"type": "string"}}),
            &[]
        ),
        func(
            "fail",
            "The current step cannot be done; say why.",
            json!({"reason": {"type": "string"}}),
            &["reason"]
        ),
    ])
}

fn s<'a>(a: &'a Value, k: &str) -> Result<&'a str, String> {
    a.get(k)
        .and_then(Value::as_str)
        .filter(|x| !x.is_empty())
        .ok_or_else(|| format!("argument `{k}` (a non-empty string) is missing"))
}

fn num(a: &Value, k: &str) -> Result<f64, String> {
    a.get(k)
        .and_then(|v| {
            v.as_f64()
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        })
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("argument `{k}` (a number) is missing"))
}

fn aim(mode: Mode, a: &Value) -> Result<(u64, Aim), String> {
    let obs = num(a, "observation")?;
    if obs < 0.0 || obs.fract() != 0.0 {
        return Err("`observation` must be a whole number".into());
    }
    let aim = if mode == Mode::Vlm {
        Aim::Point(num(a, "x")?, num(a, "y")?)
    } else {
        Aim::Element(s(a, "element")?.to_string())
    };
    Ok((obs as u64, aim))
}

fn parse_key(k: &str) -> Option<Key> {
    use Key::*;
    [
        Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp, ArrowDown, ArrowLeft, ArrowRight,
        Home, End, PageUp, PageDown,
    ]
    .into_iter()
    .find(|x| {
        x.as_str().eq_ignore_ascii_case(k) || (k.eq_ignore_ascii_case("space") && *x == Space)
    })
}

/// Checks one raw call against the tool set of `mode`.
pub fn check(mode: Mode, c: &RawCall) -> Result<ToolCall, String> {
    let a = if c.arguments.is_null() {
        &json!({})
    } else {
        &c.arguments
    };
    if !a.is_object() {
        return Err("arguments must be a JSON object".into());
    }
    Ok(match c.name.as_str() {
        "tap" => {
            let (observation, aim) = aim(mode, a)?;
            ToolCall::Tap { observation, aim }
        }
        "long_press" => {
            let (observation, aim) = aim(mode, a)?;
            let duration_ms = num(a, "duration_ms")
                .unwrap_or(800.0)
                .clamp(100.0, 10_000.0) as u64;
            ToolCall::LongPress {
                observation,
                aim,
                duration_ms,
            }
        }
        "type" => {
            let (observation, aim) = aim(mode, a)?;
            ToolCall::Type {
                observation,
                aim,
                text: s(a, "text")?.to_string(),
            }
        }
        "scroll" => match s(a, "direction")? {
            "down" => ToolCall::Scroll { down: true },
            "up" => ToolCall::Scroll { down: false },
            d => return Err(format!("direction {d:?} is not up or down")),
        },
        "key" => {
            let k = s(a, "key")?;
            ToolCall::Key(parse_key(k).ok_or_else(|| format!("unknown key {k:?}"))?)
        }
        "open" => ToolCall::Open(s(a, "url")?.to_string()),
        "wait_for" => ToolCall::WaitFor {
            text: s(a, "text")?.to_string(),
            timeout_ms: num(a, "timeout_ms").unwrap_or(5000.0).clamp(0.0, 60_000.0) as u64,
        },
        "assert_contains" => ToolCall::AssertContains(s(a, "text")?.to_string()),
        "assert_not_contains" => ToolCall::AssertNotContains(s(a, "text")?.to_string()),
        "finish" => ToolCall::Finish(a["summary"].as_str().unwrap_or_default().to_string()),
        "fail" => ToolCall::Fail(s(a, "reason")?.to_string()),
        other => return Err(format!("there is no tool {other:?}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, a: Value) -> RawCall {
        RawCall {
            name: name.into(),
            arguments: a,
        }
    }

    #[test]
    fn checks_calls_strictly() {
        let t = check(
            Mode::Llm,
            &call("tap", json!({"element": "e3", "observation": 4})),
        )
        .unwrap();
        assert_eq!(
            t,
            ToolCall::Tap {
                observation: 4,
                aim: Aim::Element("e3".into())
            }
        );
        assert!(check(Mode::Llm, &call("tap", json!({"element": "e3"}))).is_err());
        assert!(check(Mode::Llm, &call("launch_missiles", json!({}))).is_err());
        let t = check(
            Mode::Vlm,
            &call("tap", json!({"x": 500, "y": "250", "observation": 1})),
        )
        .unwrap();
        assert_eq!(
            t,
            ToolCall::Tap {
                observation: 1,
                aim: Aim::Point(500.0, 250.0)
            }
        );
        assert_eq!(
            check(Mode::Llm, &call("key", json!({"key": "enter"}))).unwrap(),
            ToolCall::Key(Key::Enter)
        );
        assert_eq!(tools(Mode::Llm).as_array().map(Vec::len), Some(11));
    }
}
