//! Learned replay: what a successful `llm` / `vlm` run did, stored as a step-language script
//! and replayed by the next run of the same job with no model calls.
//!
//! **The key** ([`key_material`]): a stored script belongs to one team and one
//! `(platform, app, instruction)`:
//! - the instruction with its whitespace collapsed (runs of spaces, tabs and line breaks
//!   become one space; case is kept — typed text is case-sensitive). The mode is not part of
//!   it: an `llm` and a `vlm` job with the same instruction share the script;
//! - the platform (`web`, `android`, …);
//! - the app: `start_url` without its query and fragment (`http://shop/cart?id=7#x` →
//!   `http://shop/cart`), else the job's `app` selector label (a desktop or phone job names
//!   its app that way), else nothing (the instruction says what to open).
//!
//! The coordinator hashes `team`, a newline and this material with SHA-256 (hex) and
//! never lets one team read another's entry.
//!
//! **The script** is plain step language ([`render`]), one action per line, each target
//! described the way the grammar resolves it (role + name, or a named element narrowed by an
//! anchor) — never an element id or a pixel — so a person can read, and the dashboard show,
//! what will be replayed.
//!
//! **Chinese** ([`render_zh`], [`file_to_zh`]): the same actions as Chinese step lines
//! (`点击 "登录"`, `在 "用户名" 输入 "alice"`), for exporting a run's step file in Chinese;
//! every line parses back to the same action as its English twin.

use serde::{Deserialize, Serialize};

use crate::action::{Action, Aim, Direction};
use crate::job::JobSpec;
use crate::script::{role_word_zh, Script, Step};
use crate::target::{Relation, Target};

/// What the replay key hashes besides the team (see the module docs); `None` in `script`
/// mode. A `cache: off` job has a key too (its page shows the entry, and can clear it); it
/// only never reads or writes it.
pub fn key_material(spec: &JobSpec) -> Option<String> {
    if spec.mode == crate::job::Mode::Script {
        return None;
    }
    let instruction = spec
        .instruction
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let app = match (&spec.start_url, spec.selector.labels.get("app")) {
        (Some(u), _) => strip_query(u).to_string(),
        (None, Some(app)) => format!("app:{app}"),
        (None, None) => String::new(),
    };
    Some(format!("v1\n{}\n{app}\n{instruction}", spec.platform))
}

/// `url` without its query and fragment.
pub fn strip_query(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    &url[..end]
}

/// Text in double quotes as the grammar reads it (`\"` and `\\` escaped); `None` for text the
/// grammar cannot hold on one line (line breaks, other control characters) or empty text.
pub fn quote(s: &str) -> Option<String> {
    if s.is_empty() || s.chars().any(char::is_control) {
        return None;
    }
    Some(format!(
        "\"{}\"",
        s.replace('\\', "\\\\").replace('"', "\\\"")
    ))
}

/// A target as the grammar writes it; `None` when it cannot be written (a bare relation with
/// no role, unwritable text).
pub fn render_target(t: &Target) -> Option<String> {
    let name = quote(&t.name)?;
    if let (Some(label), Some(words)) = (&t.label, t.relation.words()) {
        let label = quote(label)?;
        return Some(match &t.role {
            Some(r) => format!("{r} {label} {words} {name}"),
            None => format!("{label} {words} {name}"),
        });
    }
    match (t.relation, &t.role) {
        (Relation::Named, Some(r)) => Some(format!("{r} {name}")),
        (Relation::Named, None) => Some(name),
        (rel, Some(r)) => Some(format!("the {r} {} {name}", rel.words()?)),
        (_, None) => None,
    }
}

/// The step line that performs `action`, or `None` when it has none: a model's element id
/// or point (resolve it to a [`Target`] first), `finish` / `fail`, unwritable text. Every
/// line this returns parses back to `action` (pinned by a property test); callers that build
/// targets themselves should still check with [`parses_to`].
pub fn render(action: &Action) -> Option<String> {
    let target = |aim: &Aim| match aim {
        Aim::Target(t) => render_target(t),
        _ => None,
    };
    Some(match action {
        Action::Open { url } => {
            if url.is_empty() || url.contains(char::is_whitespace) {
                return None;
            }
            format!("open {url}")
        }
        Action::Tap { target: a } => format!("tap {}", target(a)?),
        Action::DoubleTap { target: a } => format!("double tap {}", target(a)?),
        Action::LongPress {
            target: a,
            duration_ms,
        } => format!("long press {} for {duration_ms}ms", target(a)?),
        Action::SetChecked { target: a, checked } => {
            let Aim::Target(t) = a else { return None };
            // `check "X"` means the checkbox in X's row; a named target needs its role.
            if t.relation == Relation::Named && t.role.is_none() {
                return None;
            }
            format!(
                "{} {}",
                if *checked { "check" } else { "uncheck" },
                render_target(t)?
            )
        }
        Action::Type {
            text,
            target: Aim::Focused,
        } => format!("type {}", quote(text)?),
        Action::Type { text, target: a } => format!("type {} into {}", quote(text)?, target(a)?),
        Action::Key { key } => format!("press {}", key.name()),
        Action::Back => "go back".into(),
        Action::Swipe { direction, on } => match on {
            None => format!("swipe {}", direction.as_str()),
            Some(a) => format!("swipe {} on {}", direction.as_str(), target(a)?),
        },
        Action::ScrollUntil {
            text,
            direction,
            max_swipes,
        } => format!(
            "swipe {} until {} is visible up to {max_swipes} swipes",
            direction.as_str(),
            quote(text)?
        ),
        Action::WaitFor { text, timeout_ms } => {
            format!("wait for {} up to {timeout_ms}ms", quote(text)?)
        }
        Action::Sleep { ms } => format!("wait {ms}ms"),
        Action::AssertContains { text } => format!("assert screen contains {}", quote(text)?),
        Action::AssertNotContains { text } => {
            format!("assert screen does not contain {}", quote(text)?)
        }
        Action::AssertChecked { target: a, checked } => {
            let Aim::Target(t) = a else { return None };
            // Like `check "X"`: a bare name means the toggle in X's row; it needs its role.
            if t.relation == Relation::Named && t.role.is_none() {
                return None;
            }
            format!(
                "assert {} is {}",
                render_target(t)?,
                if *checked { "checked" } else { "not checked" }
            )
        }
        Action::AssertValue { target: a, value } if value.is_empty() => {
            format!("assert {} is empty", target(a)?)
        }
        Action::AssertValue { target: a, value } => {
            format!("assert {} has value {}", target(a)?, quote(value)?)
        }
        Action::AssertCount { text, count } => format!(
            "assert screen contains {} {count} {}",
            quote(text)?,
            if *count == 1 { "time" } else { "times" }
        ),
        Action::AssertItems { checked, count } => crate::action::items_line(*checked, *count),
        Action::Finish { .. } | Action::Fail { .. } => return None,
    })
}

/// The language a step file is written in (`GET /api/v1/runs/{id}/steps?lang=…`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum StepsLang {
    /// English step lines, as stored ([`render`]).
    #[default]
    En,
    /// Chinese step lines ([`render_zh`], via [`file_to_zh`]).
    Zh,
}

impl StepsLang {
    /// The language's query value (`en`, `zh`).
    pub fn as_str(self) -> &'static str {
        match self {
            StepsLang::En => "en",
            StepsLang::Zh => "zh",
        }
    }
}

/// A target as a Chinese line writes it (`"X"`, `"X" 按钮`, `"X" 左边的 复选框`,
/// `"Users" 同一行的 "Add" 按钮`); `None` where [`render_target`] has none. A role with no
/// Chinese word keeps its English one (`"X" listitem`).
pub fn render_target_zh(t: &Target) -> Option<String> {
    let name = quote(&t.name)?;
    if let (Some(label), Some(words)) = (&t.label, t.relation.words_zh()) {
        // The anchor first, then the element's own name: `"Users" 同一行的 "Add"`.
        let label = quote(label)?;
        return Some(match &t.role {
            Some(r) => format!("{name} {words} {label} {}", role(r)),
            None => format!("{name} {words} {label}"),
        });
    }
    match (t.relation, &t.role) {
        (Relation::Named, Some(r)) => Some(format!("{name} {}", role(r))),
        (Relation::Named, None) => Some(name),
        (rel, Some(r)) => Some(format!("{name} {} {}", rel.words_zh()?, role(r))),
        (_, None) => None,
    }
}

/// A role as a Chinese line names it: its Chinese word, else the canonical role itself.
fn role(r: &str) -> &str {
    role_word_zh(r).unwrap_or(r)
}

/// The target of a `勾选` / `断言 … 已勾选` line: `"X"` alone where the grammar reads a bare
/// name as the checkbox in X's row (as the parser does), else [`render_target_zh`].
fn toggle_target_zh(t: &Target) -> Option<String> {
    if t.relation == Relation::InRowOf && t.role.as_deref() == Some("checkbox") && t.label.is_none()
    {
        return quote(&t.name);
    }
    render_target_zh(t)
}

/// A direction as a Chinese swipe writes it (`上`, `下`, `左`, `右`: where the finger goes).
fn direction_zh(d: Direction) -> &'static str {
    match d {
        Direction::Up => "上",
        Direction::Down => "下",
        Direction::Left => "左",
        Direction::Right => "右",
    }
}

/// The Chinese step line that performs `action` (`点击 "登录"`, `在 "用户名" 输入 "alice"`,
/// `断言 页面包含 "欢迎"`): every kind [`render`] writes, `None` in the same cases. Every
/// line this returns parses back to `action` (pinned by a property test).
pub fn render_zh(action: &Action) -> Option<String> {
    let target = |aim: &Aim| match aim {
        Aim::Target(t) => render_target_zh(t),
        _ => None,
    };
    // A bare name means the toggle in its row; a named target needs its role (as `render`).
    let toggle = |aim: &Aim| match aim {
        Aim::Target(t) if !(t.relation == Relation::Named && t.role.is_none()) => {
            toggle_target_zh(t)
        }
        _ => None,
    };
    Some(match action {
        Action::Open { url } => {
            if url.is_empty() || url.contains(char::is_whitespace) {
                return None;
            }
            format!("打开 {url}")
        }
        Action::Tap { target: a } => format!("点击 {}", target(a)?),
        Action::DoubleTap { target: a } => format!("双击 {}", target(a)?),
        Action::LongPress {
            target: a,
            duration_ms,
        } => format!("长按 {} {duration_ms}毫秒", target(a)?),
        Action::SetChecked { target: a, checked } => format!(
            "{} {}",
            if *checked { "勾选" } else { "取消勾选" },
            toggle(a)?
        ),
        Action::Type {
            text,
            target: Aim::Focused,
        } => format!("输入 {}", quote(text)?),
        Action::Type { text, target: a } => format!("在 {} 输入 {}", target(a)?, quote(text)?),
        Action::Key { key } => format!("按 {}", key.name_zh()),
        Action::Back => "返回".into(),
        Action::Swipe { direction, on } => match on {
            None => format!("{}滑", direction_zh(*direction)),
            Some(a) => format!("向{}滑动 {}", direction_zh(*direction), target(a)?),
        },
        Action::ScrollUntil {
            text,
            direction,
            max_swipes,
        } => format!(
            "向{}滑动直到 {} 出现 最多 {max_swipes} 次",
            direction_zh(*direction),
            quote(text)?
        ),
        Action::WaitFor { text, timeout_ms } => {
            format!("等待 {} 出现 最多 {timeout_ms}毫秒", quote(text)?)
        }
        Action::Sleep { ms } => format!("等待 {ms}毫秒"),
        Action::AssertContains { text } => format!("断言 页面包含 {}", quote(text)?),
        Action::AssertNotContains { text } => format!("断言 页面不包含 {}", quote(text)?),
        Action::AssertChecked { target: a, checked } => format!(
            "断言 {} {}",
            toggle(a)?,
            if *checked { "已勾选" } else { "未勾选" }
        ),
        Action::AssertValue { target: a, value } if value.is_empty() => {
            format!("断言 {} 为空", target(a)?)
        }
        Action::AssertValue { target: a, value } => {
            format!("断言 {} 的值为 {}", target(a)?, quote(value)?)
        }
        Action::AssertCount { text, count } => {
            format!("断言 页面包含 {} {count} 次", quote(text)?)
        }
        Action::AssertItems { checked, count } => crate::action::items_line_zh(*checked, *count),
        Action::Finish { .. } | Action::Fail { .. } => return None,
    })
}

/// One line of a step file in Chinese: a line that is one action (in either language) is
/// rewritten with [`render_zh`], keeping its indentation; anything else — blank lines,
/// comments, `ai:` steps, block headers, a line with `${var.…}`, a line that does not parse,
/// an action with no Chinese line that parses back — is kept as it is. Text is re-quoted,
/// never changed, so a `${secret.NAME}` placeholder stays exactly as written.
pub fn line_to_zh(line: &str) -> String {
    let body = line.trim();
    if body.is_empty() || body.starts_with('#') || body.starts_with("//") {
        return line.to_string();
    }
    let Ok(script) = Script::parse(body) else {
        return line.to_string();
    };
    let [one] = script.steps.as_slice() else {
        return line.to_string();
    };
    let Step::Act(action) = &one.step else {
        return line.to_string();
    };
    match render_zh(action).filter(|zh| parses_to(zh, action)) {
        Some(zh) => {
            let indent = &line[..line.len() - line.trim_start().len()];
            format!("{indent}{zh}")
        }
        None => line.to_string(),
    }
}

/// A step file with each line rewritten by [`line_to_zh`]: same lines in the same order
/// (a trailing newline and `\r\n` endings kept), so it runs the same actions.
pub fn file_to_zh(text: &str) -> String {
    text.split('\n')
        .map(|l| match l.strip_suffix('\r') {
            Some(l) => format!("{}\r", line_to_zh(l)),
            None => line_to_zh(l),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `line` parses to exactly `action` (one step).
pub fn parses_to(line: &str, action: &Action) -> bool {
    match Script::parse(line) {
        Ok(s) => matches!(s.steps.as_slice(), [one] if one.step == Step::Act(action.clone())),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::Direction;
    use crate::job::Mode;
    use crate::key::Key;
    use crate::platform::Platform;
    use proptest::prelude::*;

    #[test]
    fn key_material_collapses_whitespace_and_drops_the_query() {
        let mut a = JobSpec::script(
            Platform::Web,
            Some("http://h/app/index.html?probe=1#x".into()),
            "Add  \"milk\"\n then check".into(),
        );
        assert_eq!(key_material(&a), None, "script mode never replays");
        a.mode = Mode::Llm;
        let mut b = a.clone();
        b.mode = Mode::Vlm;
        b.start_url = Some("http://h/app/index.html?probe=2".into());
        b.instruction = " Add \"milk\" then\tcheck ".into();
        assert_eq!(key_material(&a), key_material(&b));
        assert_eq!(
            key_material(&a).as_deref(),
            Some("v1\nweb\nhttp://h/app/index.html\nAdd \"milk\" then check")
        );
        b.instruction = "add \"milk\" then check".into();
        assert_ne!(key_material(&a), key_material(&b), "case is kept");
        b.cache = Some(crate::job::Cache::Off);
        assert!(key_material(&b).is_some(), "off still names its entry");
    }

    fn text() -> impl Strategy<Value = String> + Clone {
        prop_oneof![
            "[a-zA-Z0-9 ]{1,12}",
            "[a-z\"\\\\ ]{1,8}",
            "[用户名登录 ]{1,4}",
        ]
        .prop_filter("not blank", |s| !s.trim().is_empty() && s.trim() == s)
    }

    fn target() -> impl Strategy<Value = Target> + Clone {
        let role = prop_oneof![
            Just(None),
            Just(Some("button".to_string())),
            Just(Some("checkbox".to_string())),
            Just(Some("textfield".to_string())),
            Just(Some("link".to_string())),
        ];
        let rel = prop_oneof![
            Just(Relation::Named),
            Just(Relation::InRowOf),
            Just(Relation::Below),
            Just(Relation::Above),
            Just(Relation::LeftOf),
            Just(Relation::RightOf),
        ];
        (role, text(), rel, proptest::option::of(text())).prop_map(
            |(role, name, relation, label)| Target {
                role,
                name,
                relation,
                label: if relation == Relation::Named {
                    None
                } else {
                    label
                },
            },
        )
    }

    fn action() -> impl Strategy<Value = Action> {
        let aim = target().prop_map(Aim::Target);
        let dir = prop_oneof![
            Just(Direction::Up),
            Just(Direction::Down),
            Just(Direction::Left),
            Just(Direction::Right)
        ];
        prop_oneof![
            "https?://[a-z0-9.:/?=&#-]{1,24}".prop_map(|url| Action::Open { url }),
            aim.clone().prop_map(|target| Action::Tap { target }),
            aim.clone().prop_map(|target| Action::DoubleTap { target }),
            (aim.clone(), 100u64..10_000).prop_map(|(target, duration_ms)| Action::LongPress {
                target,
                duration_ms
            }),
            (aim.clone(), any::<bool>())
                .prop_map(|(target, checked)| Action::SetChecked { target, checked }),
            (aim.clone(), text()).prop_map(|(target, text)| Action::Type { text, target }),
            text().prop_map(|text| Action::Type {
                text,
                target: Aim::Focused
            }),
            (0..Key::ALL.len()).prop_map(|i| Action::Key { key: Key::ALL[i] }),
            Just(Action::Back),
            (dir.clone(), proptest::option::of(aim.clone()))
                .prop_map(|(direction, on)| Action::Swipe { direction, on }),
            (text(), dir, 1u32..50).prop_map(|(text, direction, max_swipes)| {
                Action::ScrollUntil {
                    text,
                    direction,
                    max_swipes,
                }
            }),
            (text(), 0u64..600_000)
                .prop_map(|(text, timeout_ms)| Action::WaitFor { text, timeout_ms }),
            (0u64..600_000).prop_map(|ms| Action::Sleep { ms }),
            text().prop_map(|text| Action::AssertContains { text }),
            text().prop_map(|text| Action::AssertNotContains { text }),
            (aim.clone(), any::<bool>())
                .prop_map(|(target, checked)| Action::AssertChecked { target, checked }),
            (aim.clone(), prop_oneof![Just(String::new()), text()])
                .prop_map(|(target, value)| Action::AssertValue { target, value }),
            (text(), 0u32..1000).prop_map(|(text, count)| Action::AssertCount { text, count }),
            (
                prop_oneof![Just(None), any::<bool>().prop_map(Some)],
                0u32..1000
            )
                .prop_map(|(checked, count)| Action::AssertItems { checked, count }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Every line `render` writes parses back to the same action.
        #[test]
        fn rendered_lines_parse_back(a in action()) {
            if let Some(line) = render(&a) {
                prop_assert!(parses_to(&line, &a), "{line:?} does not parse back to {a:?}: {:?}", Script::parse(&line));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Every line `render_zh` writes parses back to the same action; it writes one exactly
        /// where `render` does, and the file conversion turns the English line into it.
        #[test]
        fn rendered_zh_lines_parse_back(a in action()) {
            let en = render(&a);
            let zh = render_zh(&a);
            prop_assert_eq!(zh.is_some(), en.is_some(), "{:?} / {:?} for {:?}", zh, en, a);
            if let (Some(zh), Some(en)) = (zh, en) {
                prop_assert!(parses_to(&zh, &a), "{zh:?} does not parse back to {a:?}: {:?}", Script::parse(&zh));
                prop_assert_eq!(line_to_zh(&en), zh);
            }
        }
    }

    #[test]
    fn common_zh_lines_render() {
        let cases: Vec<(Action, &str)> = vec![
            (
                Action::Type {
                    text: "alice".into(),
                    target: Target {
                        role: Some("textfield".into()),
                        name: "用户名".into(),
                        relation: Relation::Named,
                        label: None,
                    }
                    .into(),
                },
                r#"在 "用户名" 输入框 输入 "alice""#,
            ),
            (
                Action::Type {
                    text: "echo hi".into(),
                    target: Aim::Focused,
                },
                r#"输入 "echo hi""#,
            ),
            (
                Action::SetChecked {
                    target: Target {
                        role: Some("checkbox".into()),
                        name: "buy milk".into(),
                        relation: Relation::InRowOf,
                        label: None,
                    }
                    .into(),
                    checked: true,
                },
                r#"勾选 "buy milk""#,
            ),
            (
                Action::Tap {
                    target: Target {
                        role: Some("button".into()),
                        name: "Users".into(),
                        relation: Relation::InRowOf,
                        label: Some("Add".into()),
                    }
                    .into(),
                },
                r#"点击 "Users" 同一行的 "Add" 按钮"#,
            ),
            (
                Action::Tap {
                    target: Target {
                        role: Some("checkbox".into()),
                        name: "buy milk".into(),
                        relation: Relation::LeftOf,
                        label: None,
                    }
                    .into(),
                },
                r#"点击 "buy milk" 左边的 复选框"#,
            ),
            (
                Action::AssertValue {
                    target: Target::named("邮箱").into(),
                    value: "a@b.c".into(),
                },
                r#"断言 "邮箱" 的值为 "a@b.c""#,
            ),
            (
                Action::Key {
                    key: crate::key::Key::Enter,
                },
                "按 回车",
            ),
            (
                Action::AssertContains {
                    text: "欢迎".into(),
                },
                r#"断言 页面包含 "欢迎""#,
            ),
            (
                Action::AssertCount {
                    text: "删除".into(),
                    count: 2,
                },
                r#"断言 页面包含 "删除" 2 次"#,
            ),
            (
                Action::ScrollUntil {
                    text: "条款".into(),
                    direction: Direction::Down,
                    max_swipes: 20,
                },
                r#"向下滑动直到 "条款" 出现 最多 20 次"#,
            ),
        ];
        for (a, want) in cases {
            assert_eq!(render_zh(&a).as_deref(), Some(want), "{a:?}");
            assert!(parses_to(want, &a), "{want:?}");
        }
        let el = Action::Tap {
            target: Aim::Element {
                observation: 1,
                id: "e1".into(),
            },
        };
        assert_eq!(render_zh(&el), None, "ids are never written");
        assert_eq!(render_zh(&Action::Fail { reason: "x".into() }), None);
    }

    /// The Chinese file keeps the header, blank lines, comments, `ai:` lines, lines it cannot
    /// parse alone and every `${secret.NAME}` placeholder as written, and runs the same
    /// actions as the English one.
    #[test]
    fn a_step_file_converts_line_by_line() {
        let en = "# run 1 of job login\n\
                  open http://127.0.0.1:8080/\n\
                  type \"alice\" into textfield \"Username\"\n\
                  type \"${secret.PW}\" into textfield \"Password\"\n\
                  \n\
                  // a comment\n\
                  tap button \"Sign in\"\n\
                  ai: close the tour if one opens\n\
                  check \"Remember me\"\n\
                  assert screen contains \"Welcome\"\n";
        let zh = file_to_zh(en);
        assert_eq!(
            zh,
            "# run 1 of job login\n\
             打开 http://127.0.0.1:8080/\n\
             在 \"Username\" 输入框 输入 \"alice\"\n\
             在 \"Password\" 输入框 输入 \"${secret.PW}\"\n\
             \n\
             // a comment\n\
             点击 \"Sign in\" 按钮\n\
             ai: close the tour if one opens\n\
             勾选 \"Remember me\"\n\
             断言 页面包含 \"Welcome\"\n"
        );
        let steps = |t: &str| -> Vec<Step> {
            Script::parse(t)
                .expect("parses")
                .steps
                .into_iter()
                .map(|s| s.step)
                .collect()
        };
        assert_eq!(steps(&zh), steps(en));
        assert_eq!(zh.matches("${secret.PW}").count(), 1);
        // Indentation, CRLF, a variable line (not parseable alone) and a line that does not
        // parse are kept as they are.
        assert_eq!(line_to_zh("  press Enter"), "  按 回车");
        assert_eq!(
            file_to_zh("press Tab\r\nwait 2s\r\n"),
            "按 Tab\r\n等待 2000毫秒\r\n"
        );
        for kept in [
            "type \"${var.USER}\" into \"Username\"",
            "repeat 3 times:",
            "frobnicate \"X\"",
            "   ",
        ] {
            assert_eq!(line_to_zh(kept), kept);
        }
    }

    #[test]
    fn common_lines_render() {
        let field = Target {
            role: Some("textfield".into()),
            name: "What needs to be done?".into(),
            relation: Relation::Named,
            label: None,
        };
        let t = Action::Type {
            text: "buy \"milk\"".into(),
            target: field.into(),
        };
        assert_eq!(
            render(&t).as_deref(),
            Some(r#"type "buy \"milk\"" into textfield "What needs to be done?""#)
        );
        let c = Action::SetChecked {
            target: Target {
                role: Some("checkbox".into()),
                name: "buy milk".into(),
                relation: Relation::InRowOf,
                label: None,
            }
            .into(),
            checked: true,
        };
        assert_eq!(
            render(&c).as_deref(),
            Some(r#"check the checkbox in the row of "buy milk""#)
        );
        for a in [&t, &c] {
            assert!(parses_to(&render(a).unwrap_or_default(), a));
        }
        let el = Action::Tap {
            target: Aim::Element {
                observation: 1,
                id: "e1".into(),
            },
        };
        assert_eq!(render(&el), None, "ids are never written");
        assert_eq!(
            render(&Action::Finish {
                summary: "x".into()
            }),
            None
        );
        assert_eq!(quote("a\nb"), None);
    }
}
