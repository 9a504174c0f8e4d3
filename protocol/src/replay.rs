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

use crate::action::{Action, Aim};
use crate::job::JobSpec;
use crate::script::{Relation, Script, Step, Target};

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
        Action::Finish { .. } | Action::Fail { .. } => return None,
    })
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
    use crate::job::{Mode, Platform};
    use crate::script::Key;
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
