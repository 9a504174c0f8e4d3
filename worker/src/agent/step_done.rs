//! Whether one delivered action is, by itself, what a planned step asks — decided without a
//! model call. A small model rarely calls `finish` and often judges a typed field "not done"
//! (measured with Qwen2.5-Coder-1.5B on TodoMVC: the same `type` nine times over); a step
//! such as `type 'buy milk' into "What needs to be done?"` is done once exactly that text
//! was typed, whatever the model thinks.
//!
//! The rule is deliberately narrow: the step must name the action's verb (English or Chinese
//! synonyms below) **and** its object (the typed text, the key, the element's name, the
//! checked text), and must not chain a second action (`and`, `then`, `,` + verb, `然后`).
//! Anything else is left to the model's progress check.

use argus_perception::Observation;
use argus_protocol::{Action, Aim};

/// The name of the element `aim` points at in `obs` (empty when it names none).
pub fn aimed_name(aim: &Aim, obs: &Observation) -> String {
    match aim {
        Aim::Element { id, .. } => obs.element(id).map(|e| e.name.clone()).unwrap_or_default(),
        Aim::Target(t) => t.to_string(),
        _ => String::new(),
    }
}

/// Verbs that name each kind of action in a step, lower case.
const TYPE_VERBS: &[&str] = &["type", "enter", "input", "fill", "write", "输入", "填写"];
const TAP_VERBS: &[&str] = &[
    "tap", "click", "press", "select", "choose", "open", "点击", "选择",
];
const CHECK_VERBS: &[&str] = &["check", "tick", "mark", "toggle", "complete", "勾选"];
const ASSERT_VERBS: &[&str] = &[
    "check", "verify", "assert", "confirm", "ensure", "wait", "see", "shows", "says", "检查",
    "确认", "等待",
];
/// Words that chain a second action onto the first.
const CHAINS: &[&str] = &[" and ", " then ", "; ", "然后", "并且", "，然后"];

/// Whether `call` completes `step` by itself; `name_of` gives the name of the element an aim
/// points at (see [`aimed_name`]).
pub fn completes(step: &str, call: &Action, name_of: impl Fn(&Aim) -> String) -> bool {
    let s = step.to_lowercase();
    if CHAINS.iter().any(|c| s.contains(c)) {
        return false;
    }
    let has_verb = |verbs: &[&str]| verbs.iter().any(|v| s.contains(v));
    let names = |x: &str| {
        let x = x.trim().to_lowercase();
        !x.is_empty() && s.contains(&x)
    };
    match call {
        Action::Type { text, .. } => has_verb(TYPE_VERBS) && names(text),
        Action::Key { key } => (s.contains("press") || s.contains('按')) && names(key.as_str()),
        Action::Tap { target } => {
            let n = name_of(target);
            n.chars().count() >= 2 && has_verb(TAP_VERBS) && names(&n)
        }
        Action::SetChecked { target, .. } => {
            let n = name_of(target);
            n.chars().count() >= 2 && has_verb(CHECK_VERBS) && names(&n)
        }
        Action::AssertContains { text }
        | Action::AssertNotContains { text }
        | Action::WaitFor { text, .. } => has_verb(ASSERT_VERBS) && names(text),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_protocol::Key;

    fn obs() -> impl Fn(&Aim) -> String {
        |_| String::new()
    }

    fn typed(text: &str) -> Action {
        Action::Type {
            text: text.into(),
            target: Aim::Focused,
        }
    }

    #[test]
    fn a_step_that_names_the_verb_and_the_object_is_done() {
        let o = obs();
        assert!(completes(
            "type 'buy milk' into \"What needs to be done?\"",
            &typed("buy milk"),
            &o
        ));
        assert!(completes(
            "在 \"用户名\" 输入 \"alice\"",
            &typed("alice"),
            &o
        ));
        assert!(completes(
            "press Enter",
            &Action::Key { key: Key::Enter },
            &o
        ));
        assert!(completes(
            "check that the screen shows \"1 item left\"",
            &Action::AssertContains {
                text: "1 item left".into()
            },
            &o
        ));
    }

    #[test]
    fn chained_or_other_steps_are_left_to_the_model() {
        let o = obs();
        // Two actions in one step.
        assert!(!completes(
            "type 'buy milk' and press Enter",
            &typed("buy milk"),
            &o
        ));
        // Another object.
        assert!(!completes(
            "type 'walk dog' into the field",
            &typed("buy milk"),
            &o
        ));
        // No verb for the kind.
        assert!(!completes(
            "add the todo 'buy milk'",
            &typed("buy milk"),
            &o
        ));
        assert!(!completes(
            "press Tab",
            &Action::Key { key: Key::Enter },
            &o
        ));
    }
}

/// The text a planned check step expects on the screen — a step that runs as a step-language
/// check (`check that the screen shows "1 item left"`, `wait for "Saved"`, single quotes
/// allowed; see [`super::plan_fix::as_script_line`]) — or `None` for any other step.
pub fn expected_text(step: &str) -> Option<String> {
    match super::plan_fix::as_script_line(step)? {
        Action::AssertContains { text } | Action::WaitFor { text, .. } => Some(text),
        _ => None,
    }
}

/// Goal-driven completion: whether the action that turned `before` into `after` made the
/// *next* planned step — a check — come true: the text it expects was not on `before` and
/// is on `after`. The step the action belongs to is then done, whatever its wording (a
/// small model's step "tap 'Mark as completed'" names no element, yet ticking the todo makes
/// "1 item left" appear). Only the very next step counts, and only a change the action
/// caused (text already shown proves nothing).
pub fn made_next_check_true(
    next_step: Option<&str>,
    before: &Observation,
    after: &Observation,
) -> bool {
    next_step
        .and_then(expected_text)
        .is_some_and(|t| !before.contains_text(&t) && after.contains_text(&t))
}

#[cfg(test)]
mod goal_tests {
    use super::*;
    use argus_perception::{build, Node, Rect, Role, Screen, Tree};

    fn screen_with(text: &str) -> Observation {
        let mut tree = Tree::default();
        let mut n = Node::new(Role::Text, "text", text);
        n.bounds = Some(Rect::new(0.0, 0.0, 200.0, 20.0));
        tree.nodes.push(n);
        let screen = Screen {
            width: 400.0,
            height: 400.0,
            dpr: 1.0,
        };
        build(&tree, screen, 1)
    }

    #[test]
    fn a_check_step_that_the_action_made_true_completes_the_step_before_it() {
        let two = screen_with("2 items left");
        let one = screen_with("1 item left");
        for check in [
            "check that the screen shows \"1 item left\"",
            "check that the screen shows '1 item left'",
            "wait for \"1 item left\"",
        ] {
            assert_eq!(
                expected_text(check).as_deref(),
                Some("1 item left"),
                "{check}"
            );
            assert!(made_next_check_true(Some(check), &two, &one), "{check}");
            // Already shown before the action: proves nothing.
            assert!(!made_next_check_true(Some(check), &one, &one), "{check}");
            // Not (yet) shown.
            assert!(!made_next_check_true(Some(check), &two, &two), "{check}");
        }
        assert!(!made_next_check_true(
            Some("tap \"1 item left\""),
            &two,
            &one
        ));
        assert!(!made_next_check_true(None, &two, &one));
    }
}
