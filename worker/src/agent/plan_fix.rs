//! Repairs one shape of plan that small models write and that can only fail: typing into the
//! same field more than once with nothing that submits it in between (the second typing
//! replaces the first). Measured with Qwen2.5-Coder-1.5B: "Add the todos 'buy milk' and
//! 'walk dog'" planned as two typings into "What needs to be done?" and no Enter, even with
//! an example of `type …` + `press Enter` in the prompt.
//!
//! Rule: a field is *submitted by Enter* when the plan types into it twice or more, or
//! presses Enter right after typing into it once. Every typing into such a field that is not
//! followed by `press Enter` gets one inserted after it. Steps are otherwise left as written.

use argus_protocol::{Action, ActionKind, Aim, Script, Step};

/// The action of a planned step written as one line of the step language (`press Enter`,
/// `tap "Save"`, `type 'ann' into "Username"` — single quotes around a text are read as
/// double quotes), which the worker then carries out without a model call; `None` for any
/// other step, and for `open` (a plan never navigates by itself).
pub fn as_script_line(step: &str) -> Option<Action> {
    let line = as_sleep(&as_tap(&as_assert(&super::plan_verbs::by_meaning(
        &requote(step.trim().trim_end_matches('.')),
    ))));
    let script = Script::parse(&line).ok()?;
    match script.steps.as_slice() {
        [one] => match &one.step {
            Step::Act(a) if a.kind() != ActionKind::Open => Some(a.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `check that the screen shows "X"` (also `verify`, `confirm`, `ensure`, `make sure`, with
/// or without `that`) → `assert the screen shows "X"`, the step language's assertion; a plain
/// `check "X"` (tick a checkbox) is left alone.
fn as_assert(line: &str) -> String {
    for lead in [
        "check that ",
        "verify that ",
        "confirm that ",
        "ensure that ",
        "make sure that ",
        "make sure ",
    ] {
        if let Some(rest) = line
            .get(..lead.len())
            .filter(|head| head.eq_ignore_ascii_case(lead))
            .and_then(|_| line.get(lead.len()..))
        {
            return format!("assert {rest}");
        }
    }
    line.to_string()
}

/// Role words a small model writes in place of the verb: `tab "Section #2"`, `link "et"`,
/// `button "OK"` (measured: Qwen2.5-Coder-1.5B planned `tab "Section #11"` for "expand the
/// section"; the line failed as the step language and the model re-tapped it ten times).
const ROLE_WORDS: &[&str] = &[
    "tab", "button", "link", "checkbox", "radio", "switch", "option", "menuitem", "treeitem",
];

/// `<role word> "X"` and nothing else → `tap "X"` (`check "X"` for a checkbox, radio or
/// switch: setting it is safe to repeat, a tap would undo it); any other line is returned
/// as is.
fn as_tap(line: &str) -> String {
    let Some((head, rest)) = line.split_once(char::is_whitespace) else {
        return line.to_string();
    };
    let rest = rest.trim();
    let one_quoted = rest.len() >= 3
        && rest.starts_with('"')
        && rest.ends_with('"')
        && rest[1..rest.len() - 1].find('"').is_none();
    if !one_quoted || !ROLE_WORDS.iter().any(|w| head.eq_ignore_ascii_case(w)) {
        return line.to_string();
    }
    if ["checkbox", "radio", "switch"]
        .iter()
        .any(|w| head.eq_ignore_ascii_case(w))
    {
        format!("check {rest}")
    } else {
        format!("tap {rest}")
    }
}

/// `wait for 2 seconds` → `wait 2 seconds` (the step language's `wait for` waits for a
/// text); any other line is returned as is. Measured: a planned `wait for 2 seconds` went to
/// the model, which answered with unusable calls until the run errored.
fn as_sleep(line: &str) -> String {
    let lead = "wait for ";
    match line.get(..lead.len()).zip(line.get(lead.len()..)) {
        Some((head, rest))
            if head.eq_ignore_ascii_case(lead)
                && rest.starts_with(|c: char| c.is_ascii_digit()) =>
        {
            format!("wait {rest}")
        }
        _ => line.to_string(),
    }
}

/// `'text'` → `"text"` where the single quotes open after a space (or at the start) and close
/// before a space (or at the end); apostrophes inside words are left alone.
fn requote(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut k = 0;
    while k < chars.len() {
        let opens = chars[k] == '\'' && (k == 0 || chars[k - 1].is_whitespace());
        if opens {
            let close = (k + 1..chars.len()).find(|&j| {
                chars[j] == '\''
                    && chars
                        .get(j + 1)
                        .is_none_or(|c| c.is_whitespace() || *c == '.')
            });
            if let Some(j) = close.filter(|&j| j > k + 1) {
                out.push('"');
                out.extend(&chars[k + 1..j]);
                out.push('"');
                k = j + 1;
                continue;
            }
        }
        out.push(chars[k]);
        k += 1;
    }
    out
}

/// `next` without the leading steps that repeat `done` (the steps carried out before the
/// re-plan) in order; `next` unchanged when it does not start with them, or when nothing
/// would be left.
pub fn without_done(next: Vec<String>, done: &[String]) -> Vec<String> {
    let norm = |s: &str| requote(s.trim()).to_lowercase();
    let same = done.len() <= next.len()
        && done
            .iter()
            .zip(next.iter())
            .all(|(a, b)| norm(a) == norm(b));
    if same && next.len() > done.len() {
        next[done.len()..].to_vec()
    } else {
        next
    }
}

/// The field a typing step names: the quoted text after ` into ` / ` in ` (`"…"`, `'…'`,
/// `“…”`), lower case; `None` for a step that is not a typing.
fn typed_field(step: &str) -> Option<String> {
    let s = step.to_lowercase();
    let verb = ["type ", "enter ", "input ", "fill ", "write "]
        .iter()
        .any(|v| s.trim_start().starts_with(v));
    if !verb {
        return None;
    }
    let at = s
        .rfind(" into ")
        .map(|i| i + 6)
        .or_else(|| s.rfind(" in ").map(|i| i + 4))?;
    let rest = s[at..].trim();
    let rest = rest.strip_prefix("the ").unwrap_or(rest);
    let name = rest
        .trim_matches(|c: char| matches!(c, '"' | '\'' | '“' | '”' | '.' | ' '))
        .to_string();
    (!name.is_empty()).then_some(name)
}

/// The element a tap step names (lower case), if the step is a plain tap.
fn tapped(step: &str) -> Option<String> {
    match as_script_line(step)? {
        Action::Tap {
            target: argus_protocol::Aim::Target(t),
        } if t.relation == argus_protocol::Relation::Named => Some(t.name.to_lowercase()),
        _ => None,
    }
}

/// The target a tap-like gesture (tap, double tap, long press) names, lower-cased, with its
/// relation written out (`"delete" in the row of "x"` stays apart from `"x"`).
fn gestured(step: &str) -> Option<String> {
    match as_script_line(step)? {
        Action::Tap {
            target: Aim::Target(t),
        }
        | Action::DoubleTap {
            target: Aim::Target(t),
        }
        | Action::LongPress {
            target: Aim::Target(t),
            ..
        } => Some(t.to_string().to_lowercase()),
        _ => None,
    }
}

fn is_enter(step: &str) -> bool {
    let s = step.to_lowercase();
    (s.contains("press") || s.contains("hit")) && (s.contains("enter") || s.contains("return"))
}

/// The plan with `press Enter` inserted where the rule above asks; the number inserted.
pub fn repair(plan: Vec<String>) -> (Vec<String>, usize) {
    let fields: Vec<Option<String>> = plan.iter().map(|s| typed_field(s)).collect();
    let submitted = |f: &str| {
        let typed = fields.iter().filter(|x| x.as_deref() == Some(f)).count();
        let entered = fields
            .iter()
            .zip(plan.iter().skip(1))
            .any(|(x, next)| x.as_deref() == Some(f) && is_enter(next));
        typed >= 2 || entered
    };
    let mut out = Vec::with_capacity(plan.len() + 2);
    let mut added = 0;
    for (k, step) in plan.iter().enumerate() {
        // A tap on the field just typed into changes nothing: what the plan means is to
        // submit it (measured: a small model typed a new item, then tapped its box).
        // A step repeated right after itself is a runaway answer, not the job (measured: a
        // small model's plan tapped the same field 17 times).
        if k > 0 && plan[k - 1].trim() == step.trim() && fields[k].is_none() {
            continue;
        }
        // So is a second gesture on the control just tapped (measured: `tap "Clear completed
        // (1)"` then `double tap "Clear completed (1)"`; the first removed it, the second
        // sent the model hunting and it ticked an item the job never named).
        if k > 0 && gestured(step).is_some() && gestured(step) == gestured(&plan[k - 1]) {
            continue;
        }
        let prev = k.checked_sub(1).and_then(|p| fields[p].as_deref());
        if prev.is_some() && prev == tapped(step).as_deref() {
            if !plan.get(k + 1).is_some_and(|n| is_enter(n)) {
                out.push("press Enter".to_string());
                added += 1;
            }
            continue;
        }
        out.push(step.clone());
        if let Some(f) = &fields[k] {
            let next_is_enter = plan.get(k + 1).is_some_and(|n| is_enter(n));
            if submitted(f) && !next_is_enter {
                out.push("press Enter".to_string());
                added += 1;
            }
        }
    }
    (out, added)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn two_typings_into_one_field_are_each_submitted() {
        let (p, n) = repair(v(&[
            "type 'buy milk' into \"What needs to be done?\"",
            "type 'walk dog' into \"What needs to be done?\"",
            "tap \"Mark as completed\"",
        ]));
        assert_eq!(n, 2);
        assert_eq!(p[1], "press Enter");
        assert_eq!(p[3], "press Enter");
        assert_eq!(p[4], "tap \"Mark as completed\"");
    }

    #[test]
    fn a_second_gesture_on_the_control_just_tapped_is_dropped() {
        let (p, _) = repair(v(&[
            "tap \"Clear completed (1)\"",
            "double tap \"Clear completed (1)\"",
            "tap \"Delete\" in the row of \"a\"",
            "tap \"Delete\" in the row of \"b\"",
            "tap \"a\"",
        ]));
        assert_eq!(
            p,
            v(&[
                "tap \"Clear completed (1)\"",
                "tap \"Delete\" in the row of \"a\"",
                "tap \"Delete\" in the row of \"b\"",
                "tap \"a\"",
            ])
        );
    }

    #[test]
    fn step_language_lines_are_read_as_actions() {
        let a = as_script_line("type 'buy milk' into \"What needs to be done?\"");
        assert!(
            matches!(a, Some(Action::Type { ref text, .. }) if text == "buy milk"),
            "{a:?}"
        );
        assert!(matches!(
            as_script_line("press Enter."),
            Some(Action::Key { .. })
        ));
        assert!(matches!(
            as_script_line("tap \"Sign in\""),
            Some(Action::Tap { .. })
        ));
        for role_word in ["tab \"Section #11\"", "Link 'et'.", "button \"OK\""] {
            assert!(
                matches!(as_script_line(role_word), Some(Action::Tap { .. })),
                "{role_word}"
            );
        }
        assert!(matches!(
            as_script_line("checkbox \"Remember me\""),
            Some(Action::SetChecked { checked: true, .. })
        ));
        assert_eq!(as_tap("tab \"a\" and \"b\""), "tab \"a\" and \"b\"");
        assert!(as_script_line("press Tab").is_some_and(|a| matches!(a, Action::Key { .. })));
        assert!(matches!(
            as_script_line("wait for 2 seconds"),
            Some(Action::Sleep { ms: 2000 })
        ));
        assert!(matches!(
            as_script_line("wait for \"Done\""),
            Some(Action::WaitFor { .. })
        ));
        assert!(as_script_line("open https://example.com").is_none());
        assert!(as_script_line("Navigate to the todos page and look around").is_none());
        assert_eq!(requote("don't tap 'Save'"), "don't tap \"Save\"");
    }

    #[test]
    fn a_replan_that_repeats_the_done_steps_keeps_only_the_rest() {
        let done = v(&["type 'a' into \"X\"", "press Enter"]);
        let next = v(&["type \"a\" into \"X\"", "press Enter", "check \"a\""]);
        assert_eq!(without_done(next, &done), v(&["check \"a\""]));
        let other = v(&["tap \"Y\"", "press Enter"]);
        assert_eq!(without_done(other.clone(), &done), other);
    }

    #[test]
    fn a_tap_on_the_field_just_typed_into_submits_it() {
        let (p, n) = repair(v(&[
            "type \"call Bob\" into \"New note\"",
            "tap \"New note\"",
            "check \"call Bob\"",
        ]));
        assert_eq!(n, 1);
        assert_eq!(
            p,
            v(&[
                "type \"call Bob\" into \"New note\"",
                "press Enter",
                "check \"call Bob\""
            ])
        );
        // A runaway repeat of one step is one step.
        let (p, _) = repair(v(&[
            "type \"a\" into \"N\"",
            "press Enter",
            "tap \"N\"",
            "tap \"N\"",
            "tap \"N\"",
        ]));
        assert_eq!(p, v(&["type \"a\" into \"N\"", "press Enter", "tap \"N\""]));
        // A tap on another element stays.
        let plan = v(&["type \"a\" into \"Name\"", "tap \"Save\""]);
        assert_eq!(repair(plan.clone()), (plan, 0));
    }

    #[test]
    fn a_form_is_left_alone() {
        let plan = v(&[
            "type 'ann' into \"Username\"",
            "type 'pw' into \"Password\"",
            "tap \"Sign in\"",
        ]);
        assert_eq!(repair(plan.clone()), (plan, 0));
        let plan = v(&["type 'a' into \"Search\"", "press Enter"]);
        assert_eq!(repair(plan.clone()), (plan, 0));
    }
}
