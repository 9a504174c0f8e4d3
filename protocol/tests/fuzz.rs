//! Property tests ("fuzzing" with proptest) of the three parsers that take untrusted input:
//! the job spec (serde + [`JobSpec::validate`]), the step language ([`Script::parse`]) and
//! selector constraints ([`Constraint::parse`]).
//!
//! Properties: no input panics; every rejection names where (a field path or a line) and
//! says how to fix it (a non-empty hint); what is accepted survives a serde round trip, and
//! steps rendered from a structure parse back to that structure. Case counts are fixed so
//! the whole binary stays well under 10 s in a debug build.

use std::collections::BTreeMap;

use argus_protocol::job::JobSpec;
use argus_protocol::script::{Condition, Script, ScriptStep, Step, DEFAULT_WAIT_FOR_MS};
use argus_protocol::selector::{compare_values, Constraint, Op};
use argus_protocol::{Action, Aim, Direction, Key, Relation, Target};
use proptest::prelude::*;
use serde_json::Value;

/// Top-level fields a [`argus_protocol::job::SpecError`] may name.
const SPEC_FIELDS: &[&str] = &[
    "platform",
    "start_url",
    "instruction",
    "mode",
    "selector",
    "max_steps",
    "timeout_s",
    "name",
    "priority",
    "retries",
    "backoff_s",
    "idempotent",
    "queue_timeout_s",
    "model",
    "popups",
    "vars",
    "files",
];

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        // Shrunk failures are printed; nothing is written next to the sources.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Words and punctuation the step parser branches on, to reach deep paths quickly.
fn script_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "tap",
            "click",
            "type",
            "into",
            "press",
            "Enter",
            "check",
            "uncheck",
            "wait",
            "wait for",
            "up to",
            "assert",
            "screen",
            "contains",
            "does not contain",
            "is checked",
            "is not checked",
            "has value",
            "is empty",
            "2 times",
            "已勾选",
            "未勾选",
            "的值为",
            "为空",
            "2 次",
            "open",
            "fill",
            "with",
            "the",
            "button",
            "checkbox",
            "left of",
            "right of",
            "above",
            "below",
            "in the row of",
            "of",
            "ai:",
            "ai：",
            "\"",
            "\\",
            "“",
            "”",
            "「",
            "」",
            "点击",
            "输入",
            "在",
            "按",
            "勾选",
            "等待",
            "断言",
            "页面包含",
            "页面不包含",
            "左边的",
            "复选框",
            "按钮",
            "${secret.",
            "}",
            "#",
            "//",
            "10s",
            "500ms",
            "2 s",
            "http://127.0.0.1/",
            "repeat",
            "times:",
            "3",
            "if screen contains",
            "if",
            "else:",
            "include",
            "x.steps",
            "重复",
            "次：",
            "如果",
            "否则:",
            "引入",
            "${var.",
            "${var.X}",
            ":",
            "\n",
            "\n  ",
            "\n    ",
            "\t",
            " ",
            "\r",
        ])
        .prop_map(str::to_string),
        "[a-zA-Z0-9 ]{0,6}",
        any::<char>().prop_map(String::from),
    ]
}

/// A line made of parser-relevant fragments.
fn script_line() -> impl Strategy<Value = String> {
    prop::collection::vec(script_fragment(), 0..10).prop_map(|parts| parts.join(" "))
}

/// A script of such lines.
fn script_text() -> impl Strategy<Value = String> {
    prop::collection::vec(script_line(), 0..6).prop_map(|lines| lines.join("\n"))
}

/// Checks the invariants of one parse result of `text`.
fn check_script_result(text: &str, res: &Result<Script, argus_protocol::script::ScriptError>) {
    let lines = text.lines().count().max(1);
    match res {
        Ok(script) => {
            assert!(!script.steps.is_empty(), "accepted a script with no steps");
            let mut last = 0;
            for s in &script.steps {
                assert!(
                    s.line >= 1 && s.line <= lines,
                    "step line {} of {lines}",
                    s.line
                );
                assert!(s.line > last, "steps out of order");
                last = s.line;
                assert_eq!(s.text, s.text.trim(), "step text is not trimmed");
                assert!(!s.text.is_empty());
            }
            // What was accepted serializes and reads back unchanged.
            let json = serde_json::to_string(script).expect("serialize script");
            let back: Script = serde_json::from_str(&json).expect("script JSON reads back");
            assert_eq!(&back, script);
        }
        Err(e) => {
            assert!(
                e.line >= 1 && e.line <= lines,
                "error line {} of {lines}",
                e.line
            );
            assert!(!e.message.trim().is_empty(), "empty message for {text:?}");
            assert!(!e.hint.trim().is_empty(), "empty hint for {text:?}");
        }
    }
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn script_parse_never_panics_on_arbitrary_text(text in any::<String>()) {
        check_script_result(&text, &Script::parse(&text));
    }

    #[test]
    fn script_parse_never_panics_on_step_like_text(text in script_text()) {
        check_script_result(&text, &Script::parse(&text));
    }
}

/// A quoted-text payload: printable, non-blank at the ends, may hold `"` and `\` (escaped
/// when rendered) and CJK.
fn payload() -> impl Strategy<Value = String> {
    "[A-Za-z0-9一-龥][A-Za-z0-9 \"\\\\:一-龥_.()-]{0,14}[A-Za-z0-9一-龥)]?"
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A step together with one English rendering of it.
fn rendered_step() -> impl Strategy<Value = (String, Step)> {
    let key = prop::sample::select(vec![
        ("Enter", Key::Enter),
        ("Tab", Key::Tab),
        ("Escape", Key::Escape),
        ("Backspace", Key::Backspace),
    ]);
    let relation = prop::sample::select(vec![
        ("left of", Relation::LeftOf),
        ("right of", Relation::RightOf),
        ("above", Relation::Above),
        ("below", Relation::Below),
        ("in the row of", Relation::InRowOf),
    ]);
    prop_oneof![
        payload().prop_map(|n| (
            format!("tap {}", quote(&n)),
            Step::Act(Action::Tap {
                target: Target::named(&n).into()
            })
        )),
        (payload(), relation).prop_map(|(n, (word, rel))| (
            format!("tap the button {word} {}", quote(&n)),
            Step::Act(Action::Tap {
                target: Aim::Target(Target {
                    role: Some("button".into()),
                    name: n,
                    relation: rel,
                    label: None,
                }),
            }),
        )),
        (payload(), payload()).prop_map(|(t, n)| (
            format!("type {} into {}", quote(&t), quote(&n)),
            Step::Act(Action::Type {
                text: t,
                target: Target::named(&n).into()
            }),
        )),
        key.prop_map(|(w, k)| (format!("press {w}"), Step::Act(Action::Key { key: k }))),
        (payload(), any::<bool>()).prop_map(|(n, on)| (
            format!("{} {}", if on { "check" } else { "uncheck" }, quote(&n)),
            Step::Act(Action::SetChecked {
                // `check "X"`: the toggle in X's row (or the checkbox named X).
                target: Aim::Target(Target {
                    role: Some("checkbox".into()),
                    name: n,
                    relation: Relation::InRowOf,
                    label: None,
                }),
                checked: on,
            }),
        )),
        payload().prop_map(|t| (
            format!("wait for {}", quote(&t)),
            Step::Act(Action::WaitFor {
                text: t,
                timeout_ms: DEFAULT_WAIT_FOR_MS
            }),
        )),
        (1u64..600).prop_map(|s| (
            format!("wait {s}s"),
            Step::Act(Action::Sleep { ms: s * 1000 })
        )),
        payload().prop_map(|n| (
            format!("double tap {}", quote(&n)),
            Step::Act(Action::DoubleTap {
                target: Target::named(&n).into()
            })
        )),
        (payload(), prop::sample::select(Direction::ALL.to_vec())).prop_map(|(n, d)| (
            format!("swipe {} on {}", d.as_str(), quote(&n)),
            Step::Act(Action::Swipe {
                direction: d,
                on: Some(Target::named(&n).into())
            })
        )),
        payload().prop_map(|t| (
            format!("assert screen contains {}", quote(&t)),
            Step::Act(Action::AssertContains { text: t }),
        )),
        payload().prop_map(|t| (
            format!("assert screen does not contain {}", quote(&t)),
            Step::Act(Action::AssertNotContains { text: t }),
        )),
        (payload(), any::<bool>(), any::<bool>()).prop_map(|(n, on, zh)| (
            match (zh, on) {
                (false, true) => format!("assert {} is checked", quote(&n)),
                (false, false) => format!("assert {} is not checked", quote(&n)),
                (true, true) => format!("断言 {} 已勾选", quote(&n)),
                (true, false) => format!("断言 {} 未勾选", quote(&n)),
            },
            Step::Act(Action::AssertChecked {
                // Like `check "X"`: the toggle in X's row (or the checkbox named X).
                target: Aim::Target(Target {
                    role: Some("checkbox".into()),
                    name: n,
                    relation: Relation::InRowOf,
                    label: None,
                }),
                checked: on,
            }),
        )),
        (payload(), proptest::option::of(payload()), any::<bool>()).prop_map(|(n, v, zh)| (
            match (&v, zh) {
                (Some(v), false) => format!("assert {} has value {}", quote(&n), quote(v)),
                (Some(v), true) => format!("断言 {} 的值为 {}", quote(&n), quote(v)),
                (None, false) => format!("assert {} is empty", quote(&n)),
                (None, true) => format!("断言 {} 为空", quote(&n)),
            },
            Step::Act(Action::AssertValue {
                target: Target::named(&n).into(),
                value: v.unwrap_or_default(),
            }),
        )),
        (payload(), 0u32..10_000, any::<bool>()).prop_map(|(t, count, zh)| (
            if zh {
                format!("断言 页面包含 {} {count} 次", quote(&t))
            } else {
                format!("assert screen contains {} {count} times", quote(&t))
            },
            Step::Act(Action::AssertCount { text: t, count }),
        )),
    ]
}

proptest! {
    #![proptest_config(config(400))]

    /// Steps rendered from a structure parse back to that structure, in order, with their
    /// line numbers (blank and comment lines in between are skipped).
    #[test]
    fn rendered_steps_round_trip(
        steps in prop::collection::vec(rendered_step(), 1..8),
        gaps in prop::collection::vec(prop::sample::select(vec!["", "# note", "// note", "   "]), 8),
    ) {
        let mut text = String::new();
        let mut want_lines = Vec::new();
        let mut line = 0;
        for (i, (src, _)) in steps.iter().enumerate() {
            text.push_str(gaps[i]);
            text.push('\n');
            line += 2;
            text.push_str(src);
            text.push('\n');
            want_lines.push(line);
        }
        let script = Script::parse(&text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e} ({})", e.hint)))?;
        prop_assert_eq!(script.steps.len(), steps.len());
        for ((s, (src, want)), l) in script.steps.iter().zip(&steps).zip(&want_lines) {
            prop_assert_eq!(&s.step, want, "line {:?}", src);
            prop_assert_eq!(s.line, *l);
            prop_assert_eq!(&s.text, src);
        }
    }
}

/// A script tree: steps with one English rendering each, and `repeat` / `if` blocks.
#[derive(Debug, Clone)]
enum Node {
    Leaf(String, Step),
    Repeat(u32, bool, Vec<Node>),
    If(Condition, bool, Vec<Node>, Vec<Node>),
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = rendered_step().prop_map(|(src, step)| Node::Leaf(src, step));
    leaf.prop_recursive(3, 24, 4, |inner| {
        let body = || prop::collection::vec(inner.clone(), 1..4);
        prop_oneof![
            (1u32..=100, any::<bool>(), body()).prop_map(|(n, zh, b)| Node::Repeat(n, zh, b)),
            (
                payload(),
                any::<bool>(),
                any::<bool>(),
                body(),
                prop::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(text, present, zh, then, otherwise)| Node::If(
                    Condition { text, present },
                    zh,
                    then,
                    otherwise
                )),
        ]
    })
}

/// Renders `nodes` at `indent` (each level `step` spaces deeper), appending lines to `out`,
/// and returns the steps the parser must read back (line numbers included).
fn render(nodes: &[Node], indent: usize, step: usize, out: &mut Vec<String>) -> Vec<ScriptStep> {
    let pad = " ".repeat(indent);
    let mut steps = Vec::new();
    for n in nodes {
        let (text, built) = match n {
            Node::Leaf(src, st) => {
                out.push(format!("{pad}{src}"));
                (src.clone(), st.clone())
            }
            Node::Repeat(times, zh, body) => {
                let head = if *zh {
                    format!("重复 {times} 次：")
                } else {
                    format!("repeat {times} times:")
                };
                out.push(format!("{pad}{head}"));
                let line = out.len();
                let body = render(body, indent + step, step, out);
                steps.push(ScriptStep {
                    line,
                    text: head,
                    file: None,
                    step: Step::Repeat {
                        times: *times,
                        body,
                    },
                });
                continue;
            }
            Node::If(cond, zh, then, otherwise) => {
                let q = quote(&cond.text);
                let head = match (zh, cond.present) {
                    (false, _) => format!("if {cond}:").replace(&format!("{:?}", cond.text), &q),
                    (true, true) => format!("如果 页面包含 {q}:"),
                    (true, false) => format!("如果 页面不包含 {q}:"),
                };
                out.push(format!("{pad}{head}"));
                let line = out.len();
                let then = render(then, indent + step, step, out);
                let otherwise = if otherwise.is_empty() {
                    Vec::new()
                } else {
                    out.push(format!("{pad}{}", if *zh { "否则：" } else { "else:" }));
                    render(otherwise, indent + step, step, out)
                };
                steps.push(ScriptStep {
                    line,
                    text: head,
                    file: None,
                    step: Step::If {
                        condition: cond.clone(),
                        then,
                        otherwise,
                    },
                });
                continue;
            }
        };
        steps.push(ScriptStep {
            line: out.len(),
            text,
            file: None,
            step: built,
        });
    }
    steps
}

proptest! {
    #![proptest_config(config(300))]

    /// Block trees rendered with any indentation width parse back to the same tree, line
    /// numbers and texts included; the step bound counts repeats out.
    #[test]
    fn rendered_blocks_round_trip(
        nodes in prop::collection::vec(node(), 1..4),
        width in 1usize..5,
    ) {
        let mut lines = Vec::new();
        let want = render(&nodes, 0, width, &mut lines);
        let text = lines.join("\n");
        let script = Script::parse(&text)
            .map_err(|e| TestCaseError::fail(format!("{text}\n---\n{e} ({})", e.hint)))?;
        prop_assert_eq!(&script.steps, &want, "{}", text);
        prop_assert_eq!(script.max_steps(), bound(&nodes));
    }

    /// A variable's value reaches the step as given, whatever quotes or backslashes it holds.
    #[test]
    fn variable_values_reach_steps_verbatim(value in payload(), name in "[A-Za-z_][A-Za-z0-9_]{0,8}") {
        let vars: BTreeMap<String, String> = [(name.clone(), value.clone())].into();
        let text = format!("press Enter\ntype \"${{var.{name}}}\" into \"Field\"");
        let script = Script::parse_with(&text, &BTreeMap::new(), &vars)
            .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(
            &script.steps[1].step,
            &Step::Act(Action::Type { text: value, target: Target::named("Field").into() })
        );
        let e = Script::parse_with(&format!("press Enter\ntap \"${{var.{name}_}}\""), &BTreeMap::new(), &vars)
            .expect_err("unknown variable");
        prop_assert_eq!(e.line, 2);
    }
}

/// The most steps a run of `nodes` takes: repeats counted out, an `if` is its check plus
/// its longer branch.
fn bound(nodes: &[Node]) -> u64 {
    nodes
        .iter()
        .map(|n| match n {
            Node::Leaf(..) => 1,
            Node::Repeat(t, _, b) => u64::from(*t) * bound(b),
            Node::If(_, _, a, b) => 1 + bound(a).max(bound(b)),
        })
        .sum()
}

/// Arbitrary JSON, depth ≤ 3.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A value of the right JSON type for `field` most of the time, anything otherwise.
fn field_value(field: &'static str) -> BoxedStrategy<Value> {
    let typed: BoxedStrategy<Value> = match field {
        "platform" => prop::sample::select(vec![
            "web", "electron", "desktop", "android", "harmony", "ios", "Web", "", "plan9",
        ])
        .prop_map(Value::from)
        .boxed(),
        "mode" => prop::sample::select(vec!["script", "llm", "vlm", "LLM", ""])
            .prop_map(Value::from)
            .boxed(),
        "instruction" => prop_oneof![script_text(), ".{0,40}", Just("tap \"OK\"".to_string())]
            .prop_map(Value::from)
            .boxed(),
        "start_url" => prop_oneof![
            Just("http://127.0.0.1:1/".to_string()),
            Just("about:blank".to_string()),
            Just("javascript:alert(1)".to_string()),
            ".{0,20}",
        ]
        .prop_map(Value::from)
        .boxed(),
        "selector" => (
            prop::collection::btree_map("[a-z<>=! ]{0,6}", ".{0,6}", 0..4),
            prop::collection::vec(constraint_like(), 0..4),
        )
            .prop_map(|(labels, require)| serde_json::json!({"labels": labels, "require": require}))
            .boxed(),
        "max_steps" | "timeout_s" | "retries" | "backoff_s" | "queue_timeout_s" => prop_oneof![
            (0u64..2000).prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
        ]
        .boxed(),
        "priority" => prop_oneof![
            (-150i64..150).prop_map(Value::from),
            any::<i64>().prop_map(Value::from)
        ]
        .boxed(),
        "idempotent" | "popups" => any::<bool>().prop_map(Value::Bool).boxed(),
        "vars" => prop::collection::btree_map("[A-Za-z_0-9 -]{0,5}", ".{0,8}", 0..3)
            .prop_map(|m| serde_json::json!(m))
            .boxed(),
        "files" => prop::collection::btree_map("[a-z./]{0,8}", script_text(), 0..3)
            .prop_map(|m| serde_json::json!(m))
            .boxed(),
        "model" => prop_oneof![
            Just(serde_json::json!({"model": "m", "temperature": 0.5})),
            (any::<f64>(), ".{0,10}")
                .prop_map(|(t, u)| serde_json::json!({"temperature": t, "base_url": u})),
        ]
        .boxed(),
        _ => ".{0,16}".prop_map(Value::from).boxed(),
    };
    prop_oneof![8 => typed, 1 => json_value()].boxed()
}

/// A job-spec-shaped object: some known fields (typed mostly right), sometimes an unknown one.
fn spec_like() -> impl Strategy<Value = Value> {
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = SPEC_FIELDS
        .iter()
        .map(|f| prop::option::of(field_value(f).prop_map(move |v| (f.to_string(), v))).boxed())
        .collect();
    (fields, any::<bool>(), any::<bool>()).prop_map(|(pairs, base, unknown)| {
        let mut m = serde_json::Map::new();
        if base {
            m.insert("platform".into(), "web".into());
            m.insert("instruction".into(), "tap \"OK\"".into());
        }
        for (k, v) in pairs.into_iter().flatten() {
            m.insert(k, v);
        }
        if unknown {
            m.insert("colour".into(), "blue".into());
        }
        Value::Object(m)
    })
}

/// Checks the invariants of parsing and validating one JSON body.
fn check_spec_body(body: &str) {
    let Ok(spec) = serde_json::from_str::<JobSpec>(body) else {
        return;
    };
    match spec.validate() {
        Ok(script) => {
            // An accepted spec serializes, reads back equal and validates to the same script.
            let json = serde_json::to_string(&spec).expect("serialize spec");
            let back: JobSpec = serde_json::from_str(&json).expect("spec JSON reads back");
            assert_eq!(back, spec);
            assert_eq!(back.validate().expect("re-validates"), script);
        }
        Err(e) => {
            assert!(
                SPEC_FIELDS.iter().any(|f| e.field.starts_with(f)),
                "rejection names no known field: {e:?}"
            );
            assert!(!e.message.trim().is_empty(), "empty message: {e:?}");
            assert!(!e.hint.trim().is_empty(), "empty hint: {e:?}");
        }
    }
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn spec_never_panics_on_arbitrary_bytes(body in any::<Vec<u8>>()) {
        // The API reads bytes; serde_json must refuse invalid UTF-8 without panicking.
        if let Ok(spec) = serde_json::from_slice::<JobSpec>(&body) {
            let _ = spec.validate();
        }
    }

    #[test]
    fn spec_never_panics_on_arbitrary_json(v in json_value()) {
        check_spec_body(&v.to_string());
    }

    #[test]
    fn spec_like_objects_are_accepted_or_refused_by_field(v in spec_like()) {
        check_spec_body(&v.to_string());
    }
}

/// A string near the constraint grammar.
fn constraint_like() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(vec![
                "=", "==", "!=", ">=", "<=", ">", "<", " in ", "[", "]", ",", " ", "os", "13.1",
                "a.b/c", "-",
            ])
            .prop_map(str::to_string),
            "[a-z0-9]{0,4}",
            any::<char>().prop_map(String::from),
        ],
        0..8,
    )
    .prop_map(|p| p.concat())
}

fn op_token(op: Op) -> &'static str {
    match op {
        Op::Eq => "=",
        Op::Ne => "!=",
        Op::Lt => "<",
        Op::Le => "<=",
        Op::Gt => ">",
        Op::Ge => ">=",
        Op::In => " in ",
    }
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn constraint_parse_never_panics(s in prop_oneof![any::<String>(), constraint_like()]) {
        match Constraint::parse(&s) {
            Ok(c) => {
                prop_assert!(!c.key.is_empty());
                prop_assert!(!c.values.is_empty());
                prop_assert!(c.values.iter().all(|v| !v.trim().is_empty()));
                // Matching an arbitrary label set never panics.
                let labels: BTreeMap<String, String> = [(c.key.clone(), s.clone())].into();
                let _ = c.matches(&labels);
            }
            Err(msg) => prop_assert!(!msg.trim().is_empty()),
        }
    }

    /// Every constraint a job carries is validated with the job: a bad one is refused
    /// naming `selector…` with a hint.
    #[test]
    fn bad_require_is_refused_by_field(require in prop::collection::vec(constraint_like(), 1..4)) {
        let all_ok = require.iter().all(|r| Constraint::parse(r).is_ok());
        let spec = serde_json::json!({
            "platform": "web", "instruction": "tap \"OK\"", "selector": {"require": require},
        });
        let spec: JobSpec = serde_json::from_value(spec).expect("shape is right");
        match spec.validate() {
            Ok(_) => prop_assert!(all_ok, "accepted a bad constraint in {:?}", require),
            Err(e) => {
                prop_assert!(e.field.starts_with("selector"), "{:?}", e);
                prop_assert!(!e.hint.trim().is_empty(), "{:?}", e);
            }
        }
    }

    /// `key<op>value` rendered from parts parses back to those parts.
    #[test]
    fn constraint_round_trips(
        key in "[A-Za-z0-9_./-]{1,24}",
        op in prop::sample::select(vec![Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::In]),
        values in prop::collection::vec("[A-Za-z0-9._]{1,10}", 1..4),
    ) {
        let (text, want) = if op == Op::In {
            (format!("{key} in [{}]", values.join(", ")), values.clone())
        } else {
            (format!("{key}{}{}", op_token(op), values[0]), vec![values[0].clone()])
        };
        let c = Constraint::parse(&text).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&c.key, &key);
        prop_assert_eq!(c.op, op);
        prop_assert_eq!(&c.values, &want);
        let json = serde_json::to_string(&c).expect("serialize");
        let back: Constraint = serde_json::from_str(&json).expect("read back");
        prop_assert_eq!(back, c);
    }

    /// Version comparison is antisymmetric and reflexive, and `>=` is exactly "not `<`".
    #[test]
    fn version_compare_is_consistent(a in "[0-9.a-z]{0,8}", b in "[0-9.a-z]{0,8}") {
        prop_assert_eq!(compare_values(&a, &b), compare_values(&b, &a).reverse());
        prop_assert_eq!(compare_values(&a, &a), std::cmp::Ordering::Equal);
        let labels: BTreeMap<String, String> = [("v".to_string(), a.clone())].into();
        if !b.trim().is_empty() && !b.contains(['=', '<', '>', '!']) {
            let ge = Constraint::parse(&format!("v>={b}")).map_err(TestCaseError::fail)?;
            let lt = Constraint::parse(&format!("v<{b}")).map_err(TestCaseError::fail)?;
            prop_assert_ne!(ge.matches(&labels), lt.matches(&labels));
        }
    }
}
