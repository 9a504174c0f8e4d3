//! Grammar tests: every step kind in English and Chinese, errors named by line.
use super::*;
use crate::action::{Aim, Direction, DEFAULT_LONG_PRESS_MS, DEFAULT_SCROLL_SWIPES};
use std::collections::BTreeMap;

fn one(line: &str) -> Step {
    Script::parse(line).unwrap().steps.remove(0).step
}

#[test]
fn ai_lines_mix_with_script_lines() {
    let s = Script::parse("tap \"OK\"\nai: add a todo called milk\nAI： 完成登录").unwrap();
    assert_eq!(
        s.steps[1].step,
        Step::Ai {
            instruction: "add a todo called milk".into()
        }
    );
    assert_eq!(
        s.steps[2].step,
        Step::Ai {
            instruction: "完成登录".into()
        }
    );
    assert_eq!(Script::parse("ai:   ").unwrap_err().line, 1);
}

#[test]
fn type_without_a_field_goes_to_the_focused_window() {
    assert_eq!(
        one(r#"type "echo hello-argus""#),
        Step::Act(Action::Type {
            text: "echo hello-argus".into(),
            target: Aim::Focused
        })
    );
    assert!(Script::parse(r#"type "x" onto "F""#).is_err());
    assert_eq!(
        one(r#"输入 "echo hi""#),
        Step::Act(Action::Type {
            text: "echo hi".into(),
            target: Aim::Focused
        })
    );
    assert!(Script::parse(r#"输入 "x" 从 "F""#).is_err());
}

#[test]
fn english_steps() {
    assert_eq!(
        one("open http://127.0.0.1:8080/"),
        Step::Act(Action::Open {
            url: "http://127.0.0.1:8080/".into()
        })
    );
    assert_eq!(
        one(r#"type "buy milk" into "What needs to be done?""#),
        Step::Act(Action::Type {
            text: "buy milk".into(),
            target: Target::named("What needs to be done?").into()
        })
    );
    assert_eq!(
        one("press Enter"),
        Step::Act(Action::Key { key: Key::Enter })
    );
    assert_eq!(
        one(r#"tap "Clear completed""#),
        Step::Act(Action::Tap {
            target: Target::named("Clear completed").into()
        })
    );
    assert_eq!(
        one(r#"wait for "1 item left""#),
        Step::Act(Action::WaitFor {
            text: "1 item left".into(),
            timeout_ms: DEFAULT_WAIT_FOR_MS
        })
    );
    assert_eq!(
        one(r#"wait for "done" up to 10s"#),
        Step::Act(Action::WaitFor {
            text: "done".into(),
            timeout_ms: 10_000
        })
    );
    assert_eq!(
        one(r#"assert screen contains "buy milk""#),
        Step::Act(Action::AssertContains {
            text: "buy milk".into()
        })
    );
    assert_eq!(
        one(r#"assert screen does not contain "error""#),
        Step::Act(Action::AssertNotContains {
            text: "error".into()
        })
    );
    assert_eq!(one("wait 500ms"), Step::Act(Action::Sleep { ms: 500 }));
}

#[test]
fn relations_and_roles() {
    assert_eq!(
        one(r#"tap the checkbox left of "buy milk""#),
        Step::Act(Action::Tap {
            target: Aim::Target(Target {
                role: Some("checkbox".into()),
                name: "buy milk".into(),
                relation: Relation::LeftOf,
                label: None,
            })
        })
    );
    assert_eq!(
        one(r#"check "buy milk""#),
        Step::Act(Action::SetChecked {
            target: Aim::Target(Target {
                role: Some("checkbox".into()),
                name: "buy milk".into(),
                relation: Relation::InRowOf,
                label: None,
            }),
            checked: true
        })
    );
    assert_eq!(
        one(r#"tap button "Save""#),
        Step::Act(Action::Tap {
            target: Aim::Target(Target {
                role: Some("button".into()),
                name: "Save".into(),
                relation: Relation::Named,
                label: None,
            })
        })
    );
}

#[test]
fn chinese_steps() {
    assert_eq!(
        one(r#"点击 "登录""#),
        Step::Act(Action::Tap {
            target: Target::named("登录").into()
        })
    );
    assert_eq!(
        one(r#"在 "用户名" 输入 "alice""#),
        Step::Act(Action::Type {
            text: "alice".into(),
            target: Target::named("用户名").into()
        })
    );
    assert_eq!(
        one(r#"断言 页面包含 "欢迎""#),
        Step::Act(Action::AssertContains {
            text: "欢迎".into()
        })
    );
    assert_eq!(
        one("断言 页面不包含 “错误”"),
        Step::Act(Action::AssertNotContains {
            text: "错误".into()
        })
    );
    assert_eq!(one("按 回车"), Step::Act(Action::Key { key: Key::Enter }));
    assert_eq!(
        one(r#"点击 "buy milk" 左边的 复选框"#),
        Step::Act(Action::Tap {
            target: Aim::Target(Target {
                role: Some("checkbox".into()),
                name: "buy milk".into(),
                relation: Relation::LeftOf,
                label: None,
            })
        })
    );
}

#[test]
fn errors_name_the_line_and_never_panic() {
    let e = Script::parse("open http://x\n\nfly to the moon").unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.message.contains("fly"), "{e:?}");
    assert!(Script::parse(r#"tap "unclosed"#).is_err());
    assert!(Script::parse("press Hyper").is_err());
    assert!(Script::parse("tap the gizmo left of \"x\"").is_err());
    assert!(Script::parse("# only a comment").is_err());
    assert!(Script::parse("wait 99999999s").is_err());
    for junk in [
        "\"",
        "“",
        "在",
        "断言",
        "tap",
        "type \"x\"",
        "「",
        "wait for",
        "é",
    ] {
        let _ = Script::parse(junk);
    }
}

#[test]
fn gestures_in_english_and_chinese() {
    let row = || -> Aim { Target::named("Row").into() };
    for line in [
        r#"double tap "Row""#,
        r#"double-click "Row""#,
        r#"double click on "Row""#,
        r#"双击 "Row""#,
    ] {
        assert_eq!(
            one(line),
            Step::Act(Action::DoubleTap { target: row() }),
            "{line}"
        );
    }
    assert_eq!(
        one(r#"long press "Row""#),
        Step::Act(Action::LongPress {
            target: row(),
            duration_ms: DEFAULT_LONG_PRESS_MS
        })
    );
    assert_eq!(
        one(r#"长按 "Row" 2秒"#),
        Step::Act(Action::LongPress {
            target: row(),
            duration_ms: 2000
        })
    );
    assert!(Script::parse(r#"long press "Row" for 20 min"#).is_err());
    assert_eq!(
        one("swipe up"),
        Step::Act(Action::Swipe {
            direction: Direction::Up,
            on: None
        })
    );
    assert_eq!(
        one("scroll down"),
        Step::Act(Action::Swipe {
            direction: Direction::Up,
            on: None
        })
    );
    assert_eq!(
        one(r#"swipe left on "Row""#),
        Step::Act(Action::Swipe {
            direction: Direction::Left,
            on: Some(row())
        })
    );
    assert_eq!(
        one(r#"向右滑动 "Row""#),
        Step::Act(Action::Swipe {
            direction: Direction::Right,
            on: Some(row())
        })
    );
    assert_eq!(
        one("下滑"),
        Step::Act(Action::Swipe {
            direction: Direction::Down,
            on: None
        })
    );
    assert!(Script::parse("swipe sideways").is_err());
    // `press and hold` is a gesture, not a key.
    assert!(matches!(
        one(r#"press and hold "Row""#),
        Step::Act(Action::LongPress { .. })
    ));
}

#[test]
fn back_and_scroll_until() {
    assert_eq!(one("go back"), Step::Act(Action::Back));
    assert_eq!(one("返回"), Step::Act(Action::Back));
    assert_eq!(
        one(r#"scroll until "Terms" is visible"#),
        Step::Act(Action::ScrollUntil {
            text: "Terms".into(),
            direction: Direction::Up,
            max_swipes: DEFAULT_SCROLL_SWIPES
        })
    );
    assert_eq!(
        one(r#"scroll up until "Top" appears up to 3 swipes"#),
        Step::Act(Action::ScrollUntil {
            text: "Top".into(),
            direction: Direction::Down,
            max_swipes: 3
        })
    );
    assert_eq!(
        one(r#"滑动直到 "条款" 出现"#),
        Step::Act(Action::ScrollUntil {
            text: "条款".into(),
            direction: Direction::Up,
            max_swipes: DEFAULT_SCROLL_SWIPES
        })
    );
    for (line, direction) in [
        (r#"向下滑动直到 "条款" 出现 最多 7 次"#, Direction::Down),
        (r#"左滑直到 "条款" 出现 最多 7 次"#, Direction::Left),
        (r#"向上滑动直到 "条款""#, Direction::Up),
    ] {
        let max_swipes = if line.contains('7') {
            7
        } else {
            DEFAULT_SCROLL_SWIPES
        };
        assert_eq!(
            one(line),
            Step::Act(Action::ScrollUntil {
                text: "条款".into(),
                direction,
                max_swipes
            }),
            "{line}"
        );
    }
    let e = Script::parse(r#"scroll until "X" is visible up to 999 swipes"#).unwrap_err();
    assert!(e.message.contains("up to N swipes"), "{e:?}");
    // Plain swipes are untouched.
    assert!(matches!(
        one("scroll down"),
        Step::Act(Action::Swipe { .. })
    ));
}

#[test]
fn named_targets_narrowed_by_an_anchor() {
    let want = |role: Option<&str>, rel: Relation| {
        Step::Act(Action::Tap {
            target: Aim::Target(Target {
                role: role.map(str::to_string),
                name: "Users".into(),
                relation: rel,
                label: Some("Add".into()),
            }),
        })
    };
    assert_eq!(
        one(r#"tap "Add" in the row of "Users""#),
        want(None, Relation::InRowOf)
    );
    assert_eq!(
        one(r#"tap button "Add" below "Users""#),
        want(Some("button"), Relation::Below)
    );
    assert_eq!(
        one(r#"点击 "Users" 同一行的 "Add""#),
        want(None, Relation::InRowOf)
    );
    assert_eq!(
        one(r#"点击 "Users" 同一行的 "Add" 按钮"#),
        want(Some("button"), Relation::InRowOf)
    );
    assert_eq!(
        one(r#"点击 "Users" 下面的 "Add" button"#),
        want(Some("button"), Relation::Below)
    );
    // What follows the name and is no kind is the rest of the line.
    assert!(matches!(
        one(r#"在 "Users" 同一行的 "Add" 输入 "x""#),
        Step::Act(Action::Type {
            target: Aim::Target(Target { role: None, .. }),
            ..
        })
    ));
    assert!(Script::parse(r#"点击 "Users" 同一行的 "Add" 船"#).is_err());
    // The display round-trips through the parser.
    let Step::Act(Action::Tap {
        target: Aim::Target(t),
    }) = want(Some("button"), Relation::Below)
    else {
        unreachable!()
    };
    assert_eq!(
        one(&format!("tap {t}")),
        want(Some("button"), Relation::Below)
    );
    // `for` followed by a duration is still a long press's hold.
    assert!(matches!(
        one(r#"long press "Add" for 2s"#),
        Step::Act(Action::LongPress {
            duration_ms: 2000,
            ..
        })
    ));
}

#[test]
fn escapes_inside_quotes() {
    assert_eq!(
        one(r#"type "say \"hi\"" into "Message""#),
        Step::Act(Action::Type {
            text: "say \"hi\"".into(),
            target: Target::named("Message").into()
        })
    );
}

fn files(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn press() -> Step {
    Step::Act(Action::Key { key: Key::Enter })
}

fn bodies(s: &ScriptStep) -> Vec<Step> {
    match &s.step {
        Step::Repeat { body, .. } => body.iter().map(|b| b.step.clone()).collect(),
        Step::If { then, .. } => then.iter().map(|b| b.step.clone()).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn repeat_and_if_blocks_nest_in_english_and_chinese() {
    let s = Script::parse(
        "repeat 3 times:\n  press Enter\n  if screen contains \"More\":\n    press Enter\n  else:\n    wait 1s\nwait 2s",
    )
    .unwrap();
    assert_eq!(s.steps.len(), 2);
    let Step::Repeat { times: 3, body } = &s.steps[0].step else {
        panic!("{:?}", s.steps[0]);
    };
    assert_eq!(body[0].step, press());
    let Step::If {
        condition,
        then,
        otherwise,
    } = &body[1].step
    else {
        panic!("{body:?}");
    };
    assert_eq!(
        condition,
        &Condition {
            text: "More".into(),
            present: true
        }
    );
    assert_eq!(then[0].line, 4);
    assert_eq!(otherwise[0].step, Step::Act(Action::Sleep { ms: 1000 }));
    assert_eq!(s.steps[1].line, 7);
    // 3 × (1 + 1 + max(1, 1)) + 1
    assert_eq!(s.max_steps(), 10);
    assert_eq!(s.all_steps().len(), 6);

    let zh = Script::parse(
        "重复 2 次：\n  按 回车\n如果 页面不包含 “欢迎”:\n  点击 \"登录\"\n否则：\n  等待 1秒",
    )
    .unwrap();
    assert!(matches!(zh.steps[0].step, Step::Repeat { times: 2, .. }));
    assert_eq!(bodies(&zh.steps[0]), vec![press()]);
    let Step::If {
        condition,
        otherwise,
        ..
    } = &zh.steps[1].step
    else {
        panic!("{zh:?}");
    };
    assert!(!condition.present && condition.text == "欢迎");
    assert_eq!(otherwise.len(), 1);
    // Forms without colons, with `then`, and `if page does not contain`.
    for line in [
        "if screen contains \"X\"",
        "if page shows \"X\" then:",
        "如果页面包含 \"X\" 则：",
    ] {
        let s = Script::parse(&format!("{line}\n press Enter")).unwrap();
        assert!(
            matches!(&s.steps[0].step, Step::If { condition, .. } if condition.present),
            "{line}"
        );
    }
    let s = Script::parse("if screen does not contain \"a:b\":\n  press Enter").unwrap();
    assert!(
        matches!(&s.steps[0].step, Step::If { condition, .. } if !condition.present && condition.text == "a:b")
    );
}

#[test]
fn indentation_outside_blocks_means_nothing_and_blocks_end_on_dedent() {
    // As before blocks existed: a stray indent is just a step.
    let s = Script::parse("open http://x/\n\twait 1ms\n   press Enter").unwrap();
    assert_eq!(s.steps.len(), 3);
    // The block is every line deeper than its header, however deep.
    let s = Script::parse("repeat 2 times:\n    press Enter\n  press Enter\npress Tab").unwrap();
    assert_eq!(bodies(&s.steps[0]).len(), 2);
    assert_eq!(s.steps[1].step, Step::Act(Action::Key { key: Key::Tab }));
}

#[test]
fn block_errors_name_the_line() {
    let cases: &[(&str, usize, &str)] = &[
        (
            "press Enter\nrepeat 3 times:\npress Enter",
            2,
            "indented block",
        ),
        ("repeat 0 times:\n press Enter", 1, "out of range"),
        ("repeat 101 times:\n press Enter", 1, "out of range"),
        ("repeat lots times:\n press Enter", 1, "count"),
        ("repeat 3 weeks:\n press Enter", 1, "times"),
        ("else:\n press Enter", 1, "without an `if"),
        (
            "if screen contains \"x\":\n press Enter\nelse:\npress Tab",
            3,
            "indented block",
        ),
        ("if screen glows \"x\":\n press Enter", 1, "contains"),
        ("if screen contains \"x\" twice:\n press Enter", 1, "twice"),
        ("repeat 2 times:\n\tpress Enter", 2, "tab"),
        ("repeat 2 times:\n  fly away", 2, "fly"),
        ("重复 3 周:\n 按 回车", 1, "次"),
        ("include login.steps", 1, "not sent"),
        ("include", 1, "file path"),
    ];
    for (text, line, needle) in cases {
        let e = Script::parse(text).unwrap_err();
        assert_eq!(e.line, *line, "{text:?}: {e}");
        assert!(
            e.message.contains(needle) || e.hint.contains(needle),
            "{text:?}: {e} / {}",
            e.hint
        );
    }
    let deep: String = (0..=MAX_BLOCK_DEPTH)
        .map(|d| format!("{}repeat 2 times:\n", " ".repeat(d)))
        .collect::<String>()
        + &" ".repeat(MAX_BLOCK_DEPTH + 1)
        + "press Enter";
    let e = Script::parse(&deep).unwrap_err();
    assert!(e.message.contains("nest"), "{e}");
}

#[test]
fn includes_splice_files_relative_to_the_includer() {
    let f = files(&[
        (
            "login.steps",
            "type \"a\" into \"User\"\ninclude sub/press.steps",
        ),
        ("sub/press.steps", "press Enter\ninclude ../tab.steps"),
        ("tab.steps", "press Tab"),
    ]);
    let s = Script::parse_with(
        "repeat 2 times:\n  include login.steps\n引入 tab.steps",
        &f,
        &BTreeMap::new(),
    )
    .unwrap();
    let body = match &s.steps[0].step {
        Step::Repeat { body, .. } => body,
        other => panic!("{other:?}"),
    };
    assert_eq!(body.len(), 3);
    assert_eq!(body[1].file.as_deref(), Some("sub/press.steps"));
    assert_eq!(body[2].file.as_deref(), Some("tab.steps"));
    assert_eq!(s.steps[1].step, Step::Act(Action::Key { key: Key::Tab }));
    assert_eq!(
        resolve_include(Some("a/b/c.steps"), "../../d.steps"),
        "d.steps"
    );
    assert_eq!(resolve_include(None, "./x/../y.steps"), "y.steps");
    assert_eq!(resolve_include(None, "../up.steps"), "../up.steps");
    assert_eq!(resolve_include(Some("../up.steps"), "../z"), "../../z");
    assert_eq!(
        resolve_include(Some("/abs/a.steps"), "b.steps"),
        "/abs/b.steps"
    );

    // Errors name the file and line.
    let f = files(&[("a.steps", "press Enter\nfly away")]);
    let e = Script::parse_with("include a.steps", &f, &BTreeMap::new()).unwrap_err();
    assert_eq!((e.file.as_deref(), e.line), (Some("a.steps"), 2));
    assert!(e.to_string().starts_with("a.steps line 2:"), "{e}");
    let f = files(&[
        ("a.steps", "include b.steps"),
        ("b.steps", "\n\ninclude a.steps"),
    ]);
    let e = Script::parse_with("include a.steps", &f, &BTreeMap::new()).unwrap_err();
    assert_eq!((e.file.as_deref(), e.line), (Some("b.steps"), 3));
    assert!(e.message.contains("a.steps → b.steps → a.steps"), "{e}");
    let chain: BTreeMap<String, String> = (0..20)
        .map(|i| (format!("{i}.steps"), format!("include {}.steps", i + 1)))
        .collect();
    let e = Script::parse_with("include 0.steps", &chain, &BTreeMap::new()).unwrap_err();
    assert!(e.message.contains("nest"), "{e}");
}

/// Expansion stops at the first line past the step budget (counted as `max_steps` counts:
/// repeats over, an `if` its longer branch) or past the hard cap, naming where.
#[test]
fn expansion_stops_at_the_step_budget() {
    let lines = |f: &str, n: usize| format!("include {f}\n").repeat(n);
    let f = files(&[
        ("a.steps", &lines("b.steps", 4000)),
        ("b.steps", &lines("c.steps", 4000)),
        ("c.steps", "press Enter"),
    ]);
    let e = Script::parse_bounded("include a.steps", &f, &BTreeMap::new(), 50).unwrap_err();
    assert!(e.over_max_steps, "{e}");
    assert_eq!((e.file.as_deref(), e.line), (Some("b.steps"), 51));
    assert!(e.message.contains("max_steps is 50"), "{e}");
    // A script within the budget parses as before, counted the same way.
    let ok = "repeat 3 times:\n  press Enter\nif screen contains \"x\":\n  press Tab\n  press Tab";
    let s = Script::parse_bounded(ok, &BTreeMap::new(), &BTreeMap::new(), 6).unwrap();
    assert_eq!(s.max_steps(), 6);
    let e = Script::parse_bounded(ok, &BTreeMap::new(), &BTreeMap::new(), 5).unwrap_err();
    assert_eq!((e.line, e.over_max_steps), (3, true), "{e}");
    // Both branches of an if spell out steps a run takes only one of: the hard cap.
    let fork = |n: &str| format!("if screen contains \"x\":\n  include {n}\nelse:\n  include {n}");
    let mut pairs: Vec<(String, String)> = (1..7)
        .map(|k| (format!("l{k}.steps"), fork(&format!("l{}.steps", k + 1))))
        .collect();
    pairs.push(("l7.steps".into(), "press Enter\n".repeat(900)));
    let f: BTreeMap<String, String> = pairs.into_iter().collect();
    let e = Script::parse_bounded(&fork("l1.steps"), &f, &BTreeMap::new(), 1000).unwrap_err();
    assert!(!e.over_max_steps && e.message.contains("10000"), "{e}");
}

#[test]
fn variables_fill_lines_before_parsing() {
    let v = files(&[
        ("N", "2"),
        ("ITEM", "say \"hi\""),
        ("URL", "http://127.0.0.1:9/"),
    ]);
    let s = Script::parse_with(
        "open ${var.URL}\nrepeat ${var.N} times:\n  type \"${var.ITEM}\" into \"New\"",
        &BTreeMap::new(),
        &v,
    )
    .unwrap();
    assert_eq!(
        s.steps[0].step,
        Step::Act(Action::Open {
            url: "http://127.0.0.1:9/".into()
        })
    );
    assert_eq!(
        bodies(&s.steps[1]),
        vec![Step::Act(Action::Type {
            text: "say \"hi\"".into(),
            target: Target::named("New").into()
        })]
    );
    let e =
        Script::parse_with("press Enter\ntap \"${var.NOPE}\"", &BTreeMap::new(), &v).unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("NOPE"), "{e}");
    // Comments are not filled in.
    Script::parse("# ${var.NOPE}\npress Enter").unwrap();
}

/// The toggle a bare name means in `check "X"` and `assert "X" is checked`.
fn toggle_of(name: &str) -> Aim {
    Target {
        role: Some("checkbox".into()),
        name: name.into(),
        relation: Relation::InRowOf,
        label: None,
    }
    .into()
}

#[test]
fn element_state_checks_in_english_and_chinese() {
    for (line, checked) in [
        (r#"assert "Remember me" is checked"#, true),
        (r#"verify "Remember me" is not checked"#, false),
        (r#"assert "Remember me" is unchecked"#, false),
        (r#"assert "Remember me" isn't checked"#, false),
        (r#"断言 "Remember me" 已勾选"#, true),
        (r#"断言 "Remember me" 未勾选"#, false),
        (r#"检查 "Remember me" 已选中"#, true),
        (r#"断言 "Remember me"未选中"#, false),
    ] {
        assert_eq!(
            one(line),
            Step::Act(Action::AssertChecked {
                target: toggle_of("Remember me"),
                checked
            }),
            "{line}"
        );
    }
    // A role or a relation is kept as written.
    assert_eq!(
        one(r#"assert switch "Wi-Fi" is checked"#),
        Step::Act(Action::AssertChecked {
            target: Target {
                role: Some("switch".into()),
                ..Target::named("Wi-Fi")
            }
            .into(),
            checked: true
        })
    );
    assert_eq!(
        one(r#"assert the checkbox left of "buy milk" is not checked"#),
        Step::Act(Action::AssertChecked {
            target: Target {
                role: Some("checkbox".into()),
                name: "buy milk".into(),
                relation: Relation::LeftOf,
                label: None,
            }
            .into(),
            checked: false
        })
    );
    for line in [
        r#"assert "Email" has value "a@b.c""#,
        r#"assert "Email" has the value "a@b.c""#,
        r#"断言 "Email" 的值为 "a@b.c""#,
        r#"断言 "Email" 值为 「a@b.c」"#,
    ] {
        assert_eq!(
            one(line),
            Step::Act(Action::AssertValue {
                target: Target::named("Email").into(),
                value: "a@b.c".into()
            }),
            "{line}"
        );
    }
    for line in [r#"assert "Email" is empty"#, r#"断言 "Email" 为空"#] {
        assert_eq!(
            one(line),
            Step::Act(Action::AssertValue {
                target: Target::named("Email").into(),
                value: String::new()
            }),
            "{line}"
        );
    }
    assert_eq!(
        one(r#"assert textfield "Password" below "Email" has value "x""#),
        Step::Act(Action::AssertValue {
            target: Target {
                role: Some("textfield".into()),
                name: "Email".into(),
                relation: Relation::Below,
                label: Some("Password".into()),
            }
            .into(),
            value: "x".into()
        })
    );
}

#[test]
fn counts_in_english_and_chinese() {
    for (line, count) in [
        (r#"assert screen contains "Delete" 2 times"#, 2),
        (r#"assert page shows "Delete" 1 time"#, 1),
        (r#"assert screen contains "Delete" 0 times"#, 0),
        (r#"断言 页面包含 "Delete" 2 次"#, 2),
        (r#"断言 页面包含 "Delete" 3次"#, 3),
    ] {
        assert_eq!(
            one(line),
            Step::Act(Action::AssertCount {
                text: "Delete".into(),
                count
            }),
            "{line}"
        );
    }
    // The plain forms are unchanged.
    assert_eq!(
        one(r#"assert screen contains "Delete""#),
        Step::Act(Action::AssertContains {
            text: "Delete".into()
        })
    );
}

#[test]
fn malformed_checks_say_what_is_wrong() {
    for (line, says) in [
        (r#"assert "Email" has value """#, "empty quoted text"),
        (r#"assert "Email" has value a@b.c"#, "double quotes"),
        (
            r#"assert "Remember me" is checked twice"#,
            "unexpected words",
        ),
        (r#"assert screen contains "X" 2"#, "times"),
        (r#"assert screen contains "X" many times"#, "count"),
        (
            r#"assert screen does not contain "X" 2 times"#,
            "count goes with",
        ),
        (r#"assert "Remember me" is chekced"#, "is checked"),
        ("assert 2 items checked", "expected `are`"),
        (
            "assert 2 items are ticked",
            "`checked`, `not checked` or `listed`",
        ),
        ("assert 2 items are checked now", "unexpected words"),
    ] {
        let e = Script::parse(line).unwrap_err();
        assert!(e.message.contains(says), "{line}: {}", e.message);
        assert_eq!(e.line, 1);
    }
}

#[test]
fn the_new_checks_are_job_expectations() {
    for line in [
        r#"assert "Remember me" is checked"#,
        r#"断言 "记住我" 未勾选"#,
        r#"assert "Email" has value "a@b.c""#,
        r#"断言 "邮箱" 为空"#,
        r#"assert screen contains "Delete" 2 times"#,
        r#"断言 页面包含 "删除" 2 次"#,
        "assert 2 items are checked",
        "断言 共有 3 项未勾选",
    ] {
        let a = crate::expect::parse_expectation(line).unwrap_or_else(|e| panic!("{line}: {e:?}"));
        assert!(
            matches!(
                a,
                Action::AssertChecked { .. }
                    | Action::AssertValue { .. }
                    | Action::AssertCount { .. }
                    | Action::AssertItems { .. }
            ),
            "{line}: {a:?}"
        );
        assert!(a.kind().checks() && !a.kind().acts(), "{line}");
    }
}

#[test]
fn item_counts_parse_in_both_languages() {
    for (line, checked, count) in [
        ("assert 2 items are checked", Some(true), 2),
        ("assert 1 item is not checked", Some(false), 1),
        ("assert 3 items are unchecked", Some(false), 3),
        ("assert 6 items are listed", None, 6),
        ("assert 0 items are checked", Some(true), 0),
        ("断言 共有 2 项已勾选", Some(true), 2),
        ("断言 有 3 条未勾选", Some(false), 3),
        ("断言 共 6 项", None, 6),
        ("断言 4个已选中", Some(true), 4),
    ] {
        assert_eq!(
            one(line),
            Step::Act(Action::AssertItems { checked, count }),
            "{line}"
        );
    }
    // Written back (reports, step files) as they parse.
    for (checked, count) in [(Some(true), 2), (Some(false), 1), (None, 6)] {
        let a = Action::AssertItems { checked, count };
        assert_eq!(
            one(&crate::action::items_line(checked, count)),
            Step::Act(a.clone())
        );
        assert_eq!(
            one(&crate::action::items_line_zh(checked, count)),
            Step::Act(a)
        );
    }
    // A count of a text is still the other check.
    assert!(matches!(
        one(r#"断言 有 "删除" 2 次"#),
        Step::Act(Action::AssertCount { .. })
    ));
}
