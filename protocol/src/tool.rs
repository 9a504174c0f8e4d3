//! The model's tool set, generated from [`ActionKind`], and the strict check that turns one
//! tool call (`name` + JSON `arguments`) into an [`Action`].
//!
//! `llm` mode names elements by id (`"element": "e7"`) from the observation the call names
//! (`"observation": 12`); `vlm` mode names a point (`"x"`, `"y"`) in the declared coordinate
//! space of that observation's screenshot. Every aimed tool names its observation so a call
//! made against an older screen is refused as stale instead of applied to whatever is now at
//! that id. Tools are in the OpenAI chat-completions `tools` format. (A request whose
//! decoding the worker constrains with `response_format` — a server without tool calls —
//! leaves `observation` out of the schema and of [`tools_text_pinned`]: it can have one value
//! only, which the worker fills in.)

use serde_json::{json, Map, Value};

use crate::action::{
    Action, ActionKind, Aim, Direction, DEFAULT_LONG_PRESS_MS, LONG_PRESS_RANGE_MS,
};
use crate::job::Mode;
use crate::key::Key;
use crate::script::DEFAULT_WAIT_FOR_MS;

/// Longest `wait_for` a model may ask for, ms.
pub const MAX_MODEL_WAIT_MS: u64 = 60_000;

/// Whether the model may call this kind (script-only kinds are left out: `set_checked` is a
/// tap for a model, `sleep` is never needed by one).
pub fn model_tool(kind: ActionKind) -> bool {
    !matches!(
        kind,
        ActionKind::SetChecked | ActionKind::Sleep | ActionKind::ScrollUntil
    )
}

fn obs_prop() -> Value {
    json!({"type": "integer", "description": "the observation number the element ids / screenshot come from"})
}

/// The aim's JSON-schema properties and required names for `mode`.
fn aim_props(mode: Mode) -> (Map<String, Value>, Vec<&'static str>) {
    let v = if mode == Mode::Vlm {
        json!({"x": {"type": "number"}, "y": {"type": "number"}, "observation": obs_prop()})
    } else {
        json!({"element": {"type": "string", "description": "element id, e.g. e7"}, "observation": obs_prop()})
    };
    let req = if mode == Mode::Vlm {
        vec!["x", "y", "observation"]
    } else {
        vec!["element", "observation"]
    };
    (v.as_object().cloned().unwrap_or_default(), req)
}

/// Properties (other than the aim) and required names of one kind.
fn own_props(kind: ActionKind) -> (Value, Vec<&'static str>) {
    let text = json!({"type": "string"});
    match kind {
        ActionKind::Open => (json!({"url": {"type": "string"}}), vec!["url"]),
        ActionKind::Tap | ActionKind::DoubleTap | ActionKind::Back => (json!({}), vec![]),
        ActionKind::ScrollUntil => (
            json!({"text": text, "direction": {"type": "string"}, "max_swipes": {"type": "integer"}}),
            vec!["text"],
        ),
        ActionKind::LongPress => (json!({"duration_ms": {"type": "integer"}}), vec![]),
        ActionKind::SetChecked => (json!({"checked": {"type": "boolean"}}), vec!["checked"]),
        ActionKind::Type => (json!({ "text": text }), vec!["text"]),
        ActionKind::Key => {
            let keys: Vec<&str> = Key::ALL.iter().map(|k| k.name()).collect();
            (
                json!({"key": {"type": "string", "enum": keys}}),
                vec!["key"],
            )
        }
        ActionKind::Swipe => {
            let dirs: Vec<&str> = Direction::ALL.iter().map(|d| d.as_str()).collect();
            (
                json!({"direction": {"type": "string", "enum": dirs}}),
                vec!["direction"],
            )
        }
        ActionKind::WaitFor => (
            json!({"text": text, "timeout_ms": {"type": "integer"}}),
            vec!["text"],
        ),
        ActionKind::Sleep => (json!({"ms": {"type": "integer"}}), vec!["ms"]),
        ActionKind::AssertContains | ActionKind::AssertNotContains => {
            (json!({ "text": text }), vec!["text"])
        }
        ActionKind::AssertChecked => (json!({"checked": {"type": "boolean"}}), vec!["checked"]),
        ActionKind::AssertValue => (
            json!({"value": {"type": "string", "description": "the whole value; empty: the field is empty"}}),
            vec!["value"],
        ),
        ActionKind::AssertCount => (
            json!({"text": text, "count": {"type": "integer", "minimum": 0}}),
            vec!["text", "count"],
        ),
        ActionKind::AssertItems => (
            json!({"count": {"type": "integer", "minimum": 0},
                   "checked": {"type": "boolean", "description": "true: checked items; false: not checked; leave out: all items"}}),
            vec!["count"],
        ),
        ActionKind::Finish => (json!({"summary": {"type": "string"}}), vec![]),
        ActionKind::Fail => (json!({"reason": {"type": "string"}}), vec!["reason"]),
    }
}

/// The JSON schema of one tool's arguments for `mode`.
pub fn parameters(kind: ActionKind, mode: Mode) -> Value {
    let (own, mut required) = own_props(kind);
    let mut props = Map::new();
    if kind.aimed() {
        let (aim, req) = aim_props(mode);
        props.extend(aim);
        required.extend(req);
    } else if kind == ActionKind::Swipe && mode != Mode::Vlm {
        // Optional: the element to swipe across (its observation is then required too).
        let (aim, _) = aim_props(mode);
        props.extend(aim);
    }
    if let Value::Object(o) = own {
        props.extend(o);
    }
    json!({"type": "object", "properties": props, "required": required,
        "additionalProperties": false})
}

/// The `tools` array for `mode`: one function per model-callable [`ActionKind`].
pub fn tools(mode: Mode) -> Value {
    Value::Array(
        ActionKind::ALL
            .into_iter()
            .filter(|k| model_tool(*k))
            .map(|k| {
                json!({"type": "function", "function": {"name": k.name(),
                    "description": k.description(), "parameters": parameters(k, mode)}})
            })
            .collect(),
    )
}

/// The JSON schema of one call, `{"name": …, "arguments": {…}}`, as the union (`anyOf`) of
/// every tool of `mode`: what a server that answers without `tool_calls` is asked for with
/// `response_format` (llama.cpp, vLLM, Ollama and OpenAI constrain decoding to it).
pub fn call_schema(mode: Mode) -> Value {
    let one_of: Vec<Value> = ActionKind::ALL
        .into_iter()
        .filter(|k| model_tool(*k))
        .map(|k| {
            json!({"type": "object", "additionalProperties": false,
                "required": ["name", "arguments"],
                "properties": {"name": {"type": "string", "enum": [k.name()]},
                    "arguments": parameters(k, mode)}})
        })
        .collect();
    json!({ "anyOf": one_of })
}

/// The tool set as compact text for a prompt sent without `tools` (one line per tool:
/// `name(arg, arg?): description`).
pub fn tools_text(mode: Mode) -> String {
    listing(mode, None)
}

/// [`tools_text`] for a request whose decoding schema names no observation (the worker's
/// `llm` requests with `response_format`: the call answers a request about one
/// observation, whose number the worker fills in): `observation` is not listed.
pub fn tools_text_pinned(mode: Mode) -> String {
    listing(mode, Some("observation"))
}

fn listing(mode: Mode, leave_out: Option<&str>) -> String {
    ActionKind::ALL
        .into_iter()
        .filter(|k| model_tool(*k))
        .map(|k| {
            let p = parameters(k, mode);
            let req: Vec<&str> = p["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let args: Vec<String> = p["properties"]
                .as_object()
                .map(|o| {
                    o.keys()
                        .filter(|a| Some(a.as_str()) != leave_out)
                        .map(|a| {
                            if req.contains(&a.as_str()) {
                                a.clone()
                            } else {
                                format!("{a}?")
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            format!("{}({}): {}", k.name(), args.join(", "), k.description())
        })
        .collect::<Vec<_>>()
        .join("\n")
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

fn aim(mode: Mode, a: &Value) -> Result<Aim, String> {
    let obs = num(a, "observation")?;
    if obs < 0.0 || obs.fract() != 0.0 {
        return Err("`observation` must be a whole number".into());
    }
    let observation = obs as u64;
    Ok(if mode == Mode::Vlm {
        Aim::Point {
            observation,
            x: num(a, "x")?,
            y: num(a, "y")?,
        }
    } else {
        Aim::Element {
            observation,
            id: s(a, "element")?.to_string(),
        }
    })
}

/// Checks one tool call (`name`, `arguments`) against the tool set of `mode`.
///
/// Errors: a message for the model naming the tool or argument at fault.
pub fn parse_call(mode: Mode, name: &str, arguments: &Value) -> Result<Action, String> {
    let empty = json!({});
    let a = if arguments.is_null() {
        &empty
    } else {
        arguments
    };
    if !a.is_object() {
        return Err("arguments must be a JSON object".into());
    }
    let kind = ActionKind::from_name(name)
        .filter(|k| model_tool(*k))
        .ok_or_else(|| format!("there is no tool {name:?}"))?;
    Ok(match kind {
        ActionKind::Tap => Action::Tap {
            target: aim(mode, a)?,
        },
        ActionKind::DoubleTap => Action::DoubleTap {
            target: aim(mode, a)?,
        },
        ActionKind::LongPress => Action::LongPress {
            target: aim(mode, a)?,
            duration_ms: num(a, "duration_ms")
                .unwrap_or(DEFAULT_LONG_PRESS_MS as f64)
                .clamp(LONG_PRESS_RANGE_MS.0 as f64, LONG_PRESS_RANGE_MS.1 as f64)
                as u64,
        },
        ActionKind::Type => Action::Type {
            target: aim(mode, a)?,
            text: s(a, "text")?.to_string(),
        },
        ActionKind::SetChecked => Action::SetChecked {
            target: aim(mode, a)?,
            checked: checked(a)?,
        },
        ActionKind::Swipe => {
            let d = s(a, "direction")?;
            let direction = Direction::parse(d)
                .ok_or_else(|| format!("direction {d:?} is not up, down, left or right"))?;
            let on = if a.get("element").is_some() || a.get("x").is_some() {
                Some(aim(mode, a)?)
            } else {
                None
            };
            Action::Swipe { direction, on }
        }
        ActionKind::Key => {
            let k = s(a, "key")?;
            Action::Key {
                key: Key::from_name(k).ok_or_else(|| format!("unknown key {k:?}"))?,
            }
        }
        ActionKind::Open => Action::Open {
            url: s(a, "url")?.to_string(),
        },
        ActionKind::Back => Action::Back,
        ActionKind::ScrollUntil => return Err("scroll_until is not a model tool".into()),
        ActionKind::WaitFor => Action::WaitFor {
            text: s(a, "text")?.to_string(),
            timeout_ms: num(a, "timeout_ms")
                .unwrap_or(DEFAULT_WAIT_FOR_MS as f64)
                .clamp(0.0, MAX_MODEL_WAIT_MS as f64) as u64,
        },
        ActionKind::Sleep => Action::Sleep {
            ms: num(a, "ms")?.clamp(0.0, MAX_MODEL_WAIT_MS as f64) as u64,
        },
        ActionKind::AssertContains
        | ActionKind::AssertNotContains
        | ActionKind::AssertChecked
        | ActionKind::AssertValue
        | ActionKind::AssertCount
        | ActionKind::AssertItems => assertion(kind, mode, a)?,
        ActionKind::Finish => Action::Finish {
            summary: a["summary"].as_str().unwrap_or_default().to_string(),
        },
        ActionKind::Fail => Action::Fail {
            reason: s(a, "reason")?.to_string(),
        },
    })
}

/// [`parse_call`] for the assertion tools (`kind` one of them).
fn assertion(kind: ActionKind, mode: Mode, a: &Value) -> Result<Action, String> {
    Ok(match kind {
        ActionKind::AssertContains => Action::AssertContains {
            text: s(a, "text")?.to_string(),
        },
        ActionKind::AssertNotContains => Action::AssertNotContains {
            text: s(a, "text")?.to_string(),
        },
        ActionKind::AssertChecked => Action::AssertChecked {
            target: aim(mode, a)?,
            checked: checked(a)?,
        },
        ActionKind::AssertValue => Action::AssertValue {
            target: aim(mode, a)?,
            value: a["value"]
                .as_str()
                .ok_or("argument `value` (a string, empty for an empty field) is missing")?
                .trim()
                .to_string(),
        },
        ActionKind::AssertCount => {
            let count = num(a, "count")?;
            if count < 0.0 || count.fract() != 0.0 || count > f64::from(u32::MAX) {
                return Err("`count` must be a whole number ≥ 0".into());
            }
            Action::AssertCount {
                text: s(a, "text")?.to_string(),
                count: count as u32,
            }
        }
        ActionKind::AssertItems => {
            let count = num(a, "count")?;
            if count < 0.0 || count.fract() != 0.0 || count > f64::from(u32::MAX) {
                return Err("`count` must be a whole number ≥ 0".into());
            }
            Action::AssertItems {
                checked: a["checked"].as_bool(),
                count: count as u32,
            }
        }
        _ => return Err(format!("{} is not an assertion", kind.name())),
    })
}

/// The `checked` argument (true/false).
fn checked(a: &Value) -> Result<bool, String> {
    a["checked"]
        .as_bool()
        .ok_or_else(|| "argument `checked` (true/false) is missing".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_calls_strictly() {
        let t = parse_call(
            Mode::Llm,
            "tap",
            &json!({"element": "e3", "observation": 4}),
        )
        .unwrap();
        assert_eq!(
            t,
            Action::Tap {
                target: Aim::Element {
                    observation: 4,
                    id: "e3".into()
                }
            }
        );
        assert!(parse_call(Mode::Llm, "tap", &json!({"element": "e3"})).is_err());
        assert!(parse_call(Mode::Llm, "launch_missiles", &json!({})).is_err());
        assert!(parse_call(Mode::Llm, "sleep", &json!({"ms": 5})).is_err());
        let t = parse_call(
            Mode::Vlm,
            "double_tap",
            &json!({"x": 500, "y": "250", "observation": 1}),
        )
        .unwrap();
        assert_eq!(
            t,
            Action::DoubleTap {
                target: Aim::Point {
                    observation: 1,
                    x: 500.0,
                    y: 250.0
                }
            }
        );
        assert_eq!(
            parse_call(Mode::Llm, "key", &json!({"key": "enter"})).unwrap(),
            Action::Key { key: Key::Enter }
        );
        assert_eq!(
            parse_call(Mode::Llm, "swipe", &json!({"direction": "up"})).unwrap(),
            Action::Swipe {
                direction: Direction::Up,
                on: None
            }
        );
    }

    #[test]
    fn element_checks_and_counts_are_tools() {
        let e = Aim::Element {
            observation: 2,
            id: "e5".into(),
        };
        assert_eq!(
            parse_call(
                Mode::Llm,
                "assert_checked",
                &json!({"element": "e5", "observation": 2, "checked": false})
            )
            .unwrap(),
            Action::AssertChecked {
                target: e.clone(),
                checked: false
            }
        );
        assert_eq!(
            parse_call(
                Mode::Llm,
                "assert_value",
                &json!({"element": "e5", "observation": 2, "value": ""})
            )
            .unwrap(),
            Action::AssertValue {
                target: e,
                value: String::new()
            }
        );
        assert_eq!(
            parse_call(
                Mode::Llm,
                "assert_count",
                &json!({"text": "Delete", "count": 2})
            )
            .unwrap(),
            Action::AssertCount {
                text: "Delete".into(),
                count: 2
            }
        );
        assert!(parse_call(
            Mode::Llm,
            "assert_count",
            &json!({"text": "Delete", "count": -1})
        )
        .is_err());
        assert!(parse_call(Mode::Llm, "assert_checked", &json!({"checked": true})).is_err());
        let p = parameters(ActionKind::AssertValue, Mode::Vlm);
        assert_eq!(p["required"], json!(["value", "x", "y", "observation"]));
    }

    #[test]
    fn the_tool_list_is_generated_from_the_kinds() {
        let t = tools(Mode::Llm);
        let names: Vec<&str> = t
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["function"]["name"].as_str().unwrap())
            .collect();
        let want: Vec<&str> = ActionKind::ALL
            .into_iter()
            .filter(|k| model_tool(*k))
            .map(ActionKind::name)
            .collect();
        assert_eq!(names, want);
        assert!(names.contains(&"double_tap"));
        // The response_format union has one branch per tool, and the text lists them all.
        assert_eq!(
            call_schema(Mode::Llm)["anyOf"].as_array().map(Vec::len),
            Some(names.len())
        );
        let text = tools_text(Mode::Llm);
        assert_eq!(text.lines().count(), names.len());
        assert!(
            text.contains("type(element, observation, text): "),
            "{text}"
        );
        let pinned = tools_text_pinned(Mode::Llm);
        assert_eq!(pinned.lines().count(), names.len());
        assert!(pinned.contains("type(element, text): "), "{pinned}");
        assert!(pinned.contains("swipe(direction, element?"), "{pinned}");
        assert!(!pinned.contains("observation"), "{pinned}");
        // Every tool's required arguments are among its properties.
        for f in t.as_array().unwrap() {
            let p = &f["function"]["parameters"];
            for r in p["required"].as_array().unwrap() {
                assert!(p["properties"].get(r.as_str().unwrap()).is_some(), "{f}");
            }
        }
    }
}
