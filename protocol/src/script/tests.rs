//! Grammar tests: every step kind in English and Chinese, errors named by line.
use super::*;
use crate::action::{Aim, Direction, DEFAULT_LONG_PRESS_MS, DEFAULT_SCROLL_SWIPES};

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
