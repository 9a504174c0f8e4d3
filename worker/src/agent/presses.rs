//! The controls an instruction says to press ("…, then hit Submit", "before pressing Login"):
//! a natural-language run that never pressed one of them is not done, whatever its
//! expectations say.
//!
//! Why: measured with Qwen2.5-Coder-1.5B on form pages, plans that typed every field and
//! dropped the press ("check that the Year box reads 1994, then hit Submit" planned as three
//! typings; "Before pressing Login, make sure the Username box says kwame" as one typing)
//! ended `succeeded` on a check of a typed value while nothing was submitted.
//!
//! Rule: after a press verb (press, click, hit, tap, push, and their -ing forms), skipping
//! `on` / `the`, the longest run of one to four words that equals (case and white space
//! ignored) the label of an element on the screen the first plan saw is a named press. A run
//! pressed it when one of its delivered taps went to an element with that label; one that
//! pressed Enter instead, with no tap, tick or typing after it, is `unverified` (a form may
//! submit on Enter, or may not: keys are not effect-checked); an Enter followed by more input
//! (the Enter that added a todo before a tick) stood for no press.

use argus_perception::elements::collapse_ws;
use argus_perception::Observation;

/// Press verbs (lower case, whole words).
const VERBS: &[&str] = &[
    "press", "pressing", "click", "clicking", "hit", "hitting", "tap", "tapping", "push", "pushing",
];

/// Most words of a control's name read after a verb.
const MAX_WORDS: usize = 4;

/// The labels (as `start` writes them) of the controls `instruction` says to press.
pub fn named(instruction: &str, start: &Observation) -> Vec<String> {
    let words: Vec<String> = instruction
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !VERBS.contains(&w.to_lowercase().as_str()) {
            continue;
        }
        let mut k = i + 1;
        while words
            .get(k)
            .is_some_and(|x| ["on", "the"].contains(&x.to_lowercase().as_str()))
        {
            k += 1;
        }
        for n in (1..=MAX_WORDS).rev() {
            let Some(name) = words.get(k..k + n).map(|s| s.join(" ")) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let want = collapse_ws(&name).to_lowercase();
            let label = start.elements.iter().find_map(|e| {
                e.labels()
                    .find(|l| collapse_ws(l).to_lowercase() == want)
                    .map(collapse_ws)
            });
            if let Some(l) = label {
                if !out.contains(&l) {
                    out.push(l);
                }
                break;
            }
        }
    }
    out
}

/// The first of `named` the run never pressed: `tapped` are the labels of the elements its
/// delivered taps went to. An Enter is no press of a named control here (the verdict tells
/// it apart: `unverified`, not `failed`).
pub fn missed<'a>(named: &'a [String], tapped: &[String]) -> Option<&'a String> {
    named.iter().find(|n| {
        !tapped
            .iter()
            .any(|t| collapse_ws(t).to_lowercase() == n.to_lowercase())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_perception::Role;

    fn screen(items: &[(Role, &str)]) -> Observation {
        crate::agent::test_screen(items)
    }

    #[test]
    fn presses_the_instruction_names_on_the_screen() {
        let s = screen(&[
            (Role::Textfield, "Username"),
            (Role::Button, "Login"),
            (Role::Text, "Submit"),
            (Role::Button, "Clear completed"),
        ]);
        assert_eq!(
            named(
                "Log in as kwame. Before pressing Login, make sure it says kwame.",
                &s
            ),
            vec!["Login"]
        );
        assert_eq!(named("Fill it in, then hit Submit.", &s), vec!["Submit"]);
        assert_eq!(
            named("then click on the Clear completed button", &s),
            vec!["Clear completed"]
        );
        assert!(named("Press Enter to add it", &s).is_empty());
        assert!(named("Sign in with the password", &s).is_empty());
    }

    #[test]
    fn a_press_counts_by_a_tap_on_its_label() {
        let n = vec!["Login".to_string()];
        assert_eq!(missed(&n, &[]), Some(&n[0]));
        assert_eq!(missed(&n, &["login".into()]), None);
    }
}
