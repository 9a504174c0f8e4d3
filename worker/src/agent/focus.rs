//! The element list an acting call sees on a long screen, cut to what the step can need.
//!
//! A screen of up to [`KEEP_ALL`] elements is sent whole (the benchmark pages measured here
//! are under it: see README's performance section). On a longer one (a real site's navigation, a long
//! list) the model gets, in reading order:
//! - every element whose label shares a word with the step or the job (stems compared as in
//!   [`super::clause_plan::words`]), or holds a text the step quotes;
//! - the [`NEIGHBOURHOOD`] elements either side of each of those (a row's checkbox and its
//!   delete button, a field and its label) and of the focused element;
//! - then the other controls a user acts on (buttons, fields, links …) not covered, in
//!   reading order, until [`MAX_SHOWN`] lines in all;
//! - and a last line saying how many were left out.
//!
//! Why: prompt time on a CPU-served model grows with the prompt (issue 25: a 1.5B model took
//! a median 9.0 s per action call on the longer benchmark screens), and long screens send long
//! element lists whose tail no step needs. Ids are the observation's own, so an id the model
//! names still resolves; the full list stays in the run's records.

use super::clause_plan::{same_word, words};
use argus_perception::compact::line;
use argus_perception::{Element, Observation};

/// Screens of at most this many elements are sent whole.
pub const KEEP_ALL: usize = 60;
/// The most element lines sent for a longer screen (the named elements and their
/// neighbourhoods come first and are never cut for it).
pub const MAX_SHOWN: usize = 60;
/// Elements kept either side of a named or focused one, in reading order.
pub const NEIGHBOURHOOD: usize = 3;

/// The compact element list of `obs` for an acting call on `step` of the job `task` (see the
/// module docs): `obs.compact()` itself on a short screen.
pub fn element_list(obs: &Observation, step: &str, task: &str) -> String {
    let n = obs.elements.len();
    if n <= KEEP_ALL {
        return obs.compact();
    }
    let want: Vec<String> = words(step).into_iter().chain(words(task)).collect();
    let quoted = super::clauses::quoted(step);
    let named = |e: &Element| {
        e.labels().any(|l| {
            quoted.iter().any(|q| l.contains(q.as_str()))
                || words(l)
                    .iter()
                    .any(|w| want.iter().any(|x| same_word(x, w)))
        })
    };
    let mut keep = vec![false; n];
    for (i, e) in obs.elements.iter().enumerate() {
        if named(e) || e.focused.is_yes() {
            let from = i.saturating_sub(NEIGHBOURHOOD);
            let to = (i + NEIGHBOURHOOD).min(n - 1);
            keep[from..=to].iter_mut().for_each(|k| *k = true);
        }
    }
    let mut shown = keep.iter().filter(|k| **k).count();
    for (i, e) in obs.elements.iter().enumerate() {
        if shown >= MAX_SHOWN {
            break;
        }
        if !keep[i] && e.role.is_actionable() && !e.covered.is_yes() {
            keep[i] = true;
            shown += 1;
        }
    }
    let mut out: Vec<String> = obs
        .elements
        .iter()
        .enumerate()
        .filter(|(i, _)| keep[*i])
        .map(|(i, e)| line(e, i + 1))
        .collect();
    out.push(format!(
        "({} of {n} elements shown: those the step and job name, their neighbours and the controls; {} more left out)",
        shown,
        n - shown
    ));
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_perception::{build, Node, Rect, Role, Screen, Tree};

    fn page(n_links: usize) -> Observation {
        let mut tree = Tree::default();
        let mut root = Node::new(Role::Other, "main", "");
        root.bounds = Some(Rect::new(0.0, 0.0, 800.0, 8000.0));
        tree.nodes.push(root);
        let mut push = |role: Role, name: &str, y: f64| {
            let mut n = Node::new(role, role.as_str(), name);
            n.bounds = Some(Rect::new(10.0, y, 300.0, 20.0));
            n.parent = Some(0);
            tree.nodes.push(n);
        };
        for i in 0..n_links {
            push(
                Role::Text,
                &format!("paragraph number {i}"),
                30.0 * i as f64,
            );
            push(Role::Link, &format!("link {i}"), 30.0 * i as f64 + 10.0);
        }
        push(Role::Text, "Newsletter", 30.0 * n_links as f64);
        push(
            Role::Textfield,
            "Email address",
            30.0 * n_links as f64 + 10.0,
        );
        push(Role::Button, "Subscribe", 30.0 * n_links as f64 + 20.0);
        let screen = Screen {
            width: 800.0,
            height: 8000.0,
            dpr: 1.0,
        };
        build(&tree, screen, 1)
    }

    #[test]
    fn a_short_screen_is_sent_whole() {
        let obs = page(10);
        assert_eq!(
            element_list(&obs, "tap \"Subscribe\"", "subscribe"),
            obs.compact()
        );
    }

    #[test]
    fn a_long_screen_keeps_what_the_step_names_and_the_controls() {
        let obs = page(80);
        let full = obs.compact();
        let cut = element_list(&obs, "type \"a@b.co\" into \"Email address\"", "sign up");
        assert!(
            cut.len() < full.len() / 2,
            "{} vs {}",
            cut.len(),
            full.len()
        );
        assert!(cut.contains("\"Email address\""), "{cut}");
        // Its neighbours, even past the controls' cap.
        assert!(
            cut.contains("\"Newsletter\"") && cut.contains("\"Subscribe\""),
            "{cut}"
        );
        assert!(cut.lines().count() <= MAX_SHOWN + 1 + 2 * NEIGHBOURHOOD + 1);
        let last = cut.lines().last().unwrap_or_default();
        assert!(
            last.contains(&format!("of {} elements shown", obs.elements.len())),
            "{last}"
        );
        // Ids are the observation's own.
        let id = obs
            .elements
            .iter()
            .find(|e| e.name == "Subscribe")
            .map(|e| e.id.clone())
            .unwrap_or_default();
        assert!(cut.contains(&format!("{id} button")), "{cut}");
    }
}
