//! Element ids in a plan, turned into targets that outlive the observation.
//!
//! The planner sees the compact element list (`e2 textfield D:e3`), and a small model names
//! an element it cannot quote by what it sees on the line: its id (`"e2"`) or a neighbour
//! marker (`"D:e3"`). Measured with Qwen2.5-Coder-1.5B on MiniWoB++ `enter-text`: the plan
//! `type 'Myron' into "D:e3"` for an unnamed text field, which no later observation can
//! resolve (ids are per observation) — the run then failed.
//!
//! Rule: a quoted (or bare) token `eN` means element `eN` of the observation the plan was made
//! on; a marker `L:eN` / `R:eN` / `U:eN` / `D:eN` means the one element whose line carries it
//! (whose neighbour on that side is `eN`). The token is replaced by a step-language target
//! that [`crate::resolve`] resolves to that very element on the same observation: its quoted
//! name when that is unique, else `the <role> above/below/left of/right of "<neighbour>"`
//! anchored on a named neighbour, or the bare role of the only element of that role. A token
//! with no such target is left as written. A typing step into a name the screen lacks, on a
//! screen with one text field, types into that field (see [`into_the_one_field`]).

use argus_perception::{Element, Observation};
use argus_protocol::{Action, Aim, Relation, Target};

use crate::resolve::{resolve, takes_text, Purpose};

/// Steps whose quoted text is a text to look for, not an element.
const CHECK_LEADS: &[&str] = &[
    "check that",
    "verify",
    "assert",
    "confirm",
    "ensure",
    "make sure",
    "wait",
];
/// Steps whose first quoted text is the text to type.
const TYPE_LEADS: &[&str] = &["type ", "enter ", "input ", "fill ", "write "];

/// Side of a neighbour marker: `L`, `R`, `U`, `D`.
fn marker_side(e: &Element, side: char) -> Option<&String> {
    let n = &e.neighbours;
    match side {
        'L' => n.left.as_ref(),
        'R' => n.right.as_ref(),
        'U' => n.top.as_ref(),
        'D' => n.bottom.as_ref(),
        _ => None,
    }
}

/// The element a token names, if it is an id or a neighbour marker that names exactly one.
fn element_of<'a>(token: &str, obs: &'a Observation) -> Option<&'a Element> {
    let (side, id) = match token.split_once(':') {
        Some((s, id)) if s.len() == 1 => (s.chars().next(), id),
        Some(_) => return None,
        None => (None, token),
    };
    let digits = id.strip_prefix('e')?;
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    match side {
        None => obs.element(id),
        Some(side) => {
            let mut carriers = obs
                .elements
                .iter()
                .filter(|e| marker_side(e, side).is_some_and(|n| n == id));
            match (carriers.next(), carriers.next()) {
                (Some(e), None) => Some(e),
                _ => None,
            }
        }
    }
}

/// A step-language target for `e` that resolves to it on `obs`.
fn target_for(e: &Element, obs: &Observation) -> Option<Target> {
    let purpose = if takes_text(e) {
        Purpose::Type
    } else {
        Purpose::Tap
    };
    let hits = |t: &Target| resolve(obs, t, purpose).is_ok_and(|x| x.id == e.id);
    if !e.name.trim().is_empty() {
        let t = Target::named(&e.name);
        if hits(&t) {
            return Some(t);
        }
    }
    let n = &e.neighbours;
    // The anchor's side, and where the element is relative to it.
    let sides = [
        (&n.bottom, Relation::Above),
        (&n.top, Relation::Below),
        (&n.right, Relation::LeftOf),
        (&n.left, Relation::RightOf),
    ];
    sides
        .into_iter()
        .find_map(|(anchor, relation)| {
            let a = obs.element(anchor.as_deref()?)?;
            if a.name.trim().is_empty() {
                return None;
            }
            let t = Target {
                role: Some(e.role.as_str().to_string()),
                name: a.name.clone(),
                relation,
                label: None,
            };
            hits(&t).then_some(t)
        })
        // The only element of its role, named by the role (`"textfield"`, see
        // `crate::resolve`): a lone unnamed field with no named neighbour.
        .or_else(|| {
            let t = Target::named(e.role.as_str());
            hits(&t).then_some(t)
        })
}

/// Replaces each id / neighbour-marker token of one step (see the module docs); the step
/// and whether anything was replaced.
fn step_with_targets(step: &str, obs: &Observation) -> (String, bool) {
    let lower = step.trim_start().to_lowercase();
    // A check's text is text, not an element; neither is the text a step types.
    if CHECK_LEADS.iter().any(|l| lower.starts_with(l)) {
        return (step.to_string(), false);
    }
    let mut skip_text = TYPE_LEADS.iter().any(|l| lower.starts_with(l));
    let mut out = String::with_capacity(step.len());
    let mut changed = false;
    let mut rest = step;
    while !rest.is_empty() {
        // The next token: a quoted run or a bare word.
        let Some(start) = rest.find(|c: char| !c.is_whitespace()) else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let quote = rest.chars().next().filter(|c| matches!(c, '"' | '\''));
        let (token, len) = match quote {
            Some(q) => match rest[1..].find(q) {
                Some(end) => (&rest[1..1 + end], end + 2),
                None => (rest, rest.len()),
            },
            None => {
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                let word = rest[..end].trim_end_matches(['.', ',', ';']);
                (word, word.len().max(1))
            }
        };
        if skip_text && quote.is_some() {
            skip_text = false;
            out.push_str(&rest[..len]);
            rest = &rest[len..];
            continue;
        }
        match element_of(token.trim(), obs)
            .and_then(|e| target_for(e, obs))
            .map(|t| t.to_string())
        {
            Some(t) => {
                out.push_str(&t);
                changed = true;
            }
            None => out.push_str(&rest[..len]),
        }
        rest = &rest[len..];
    }
    (out, changed)
}

/// The plan with element ids and neighbour markers replaced by targets (module docs), and
/// how many steps changed.
pub fn name_elements(plan: Vec<String>, obs: &Observation) -> (Vec<String>, usize) {
    let mut changed = 0;
    // Only steps still on the plan's screen: before the first step that may change it.
    let mut same_screen = true;
    let plan = plan
        .into_iter()
        .map(|s| {
            let (s, c) = step_with_targets(&s, obs);
            let parsed = super::plan_fix::as_script_line(&s);
            // A typing (rewritten or not) leaves the plan's screen as it was.
            let is_typing = matches!(parsed, Some(Action::Type { .. }));
            let typed = match parsed {
                Some(Action::Type {
                    text,
                    target: Aim::Target(t),
                }) => Some((text, t)),
                _ => None,
            };
            let one_field = typed
                .as_ref()
                .filter(|(text, t)| same_screen || names_its_own_text(text, t))
                .and_then(|(text, t)| into_the_one_field(text, t, obs));
            let f = one_field.is_some();
            same_screen &= is_typing;
            let s = one_field.unwrap_or(s);
            changed += usize::from(c || f);
            s
        })
        .collect();
    (plan, changed)
}

/// Whether a typing of `text` names that same text as its target `t` (`type "buy milk" into
/// "buy milk"`): a small model's typed step with the text in both fields, seen on the
/// paraphrase held-out splits (a new list item's text given as its own target). Such a
/// target is no field the step can mean, whatever the screen shows by then, so
/// [`into_the_one_field`] applies to it even after a step that may change the screen.
fn names_its_own_text(text: &str, t: &Target) -> bool {
    let norm = |s: &str| s.trim().to_lowercase();
    t.relation == Relation::Named && t.role.is_none() && norm(&t.name) == norm(text)
}

/// A typing of `text` into a target `t` nothing on the plan's screen carries (measured:
/// Qwen2.5-Coder-1.5B planned `type '02/04/2012' into "m/dd/y"` for a bare date field), on a
/// screen with exactly one text field: the same typing into that field, as a step-language
/// line. Decided on the plan's own observation, and (unless [`names_its_own_text`]) only for
/// steps before the first one that may change the screen (anything but a typing), so a field
/// that appears later is not guessed at.
fn into_the_one_field(text: &str, t: &Target, obs: &Observation) -> Option<String> {
    if resolve(obs, t, Purpose::Type).is_ok() {
        return None;
    }
    let mut fields = obs.elements.iter().filter(|e| takes_text(e));
    let (Some(field), None) = (fields.next(), fields.next()) else {
        return None;
    };
    let target = target_for(field, obs)?;
    let action = Action::Type {
        text: text.to_string(),
        target: Aim::Target(target),
    };
    argus_protocol::replay::render(&action)
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_perception::{build, Node, Rect, Role, Screen, Tree};

    /// MiniWoB++ enter-text's shape: the task text, then an area with an unnamed field and a
    /// Submit button.
    fn form() -> Observation {
        let mut tree = Tree::default();
        for (role, name, y, parent) in [
            (Role::Other, "", 0.0, None),
            (
                Role::Text,
                "Enter \"Myron\" into the text field and press Submit.",
                10.0,
                Some(0),
            ),
            (Role::Other, "", 50.0, Some(0)),
            (Role::Textfield, "", 60.0, Some(2)),
            (Role::Button, "Submit", 100.0, Some(2)),
        ] {
            let mut n = Node::new(role, role.as_str(), name);
            n.bounds = Some(Rect::new(10.0, y, 120.0, 24.0));
            n.parent = parent;
            tree.nodes.push(n);
        }
        tree.nodes[0].bounds = Some(Rect::new(0.0, 0.0, 160.0, 210.0));
        tree.nodes[0].children = vec![1, 2];
        tree.nodes[2].children = vec![3, 4];
        build(
            &tree,
            Screen {
                width: 160.0,
                height: 210.0,
                dpr: 1.0,
            },
            1,
        )
    }

    #[test]
    fn ids_and_markers_become_targets_that_resolve_to_the_same_element() {
        let obs = form();
        let field = obs
            .elements
            .iter()
            .find(|e| e.role == Role::Textfield)
            .map(|e| e.id.clone())
            .unwrap_or_default();
        let button = obs
            .elements
            .iter()
            .find(|e| e.role == Role::Button)
            .map(|e| e.id.clone())
            .unwrap_or_default();
        let plan = vec![
            format!("type 'Myron' into \"D:{button}\""),
            format!("tap {button}"),
            format!("type 'x' into '{field}'"),
            "press Enter".to_string(),
        ];
        let (plan, changed) = name_elements(plan, &obs);
        assert_eq!(changed, 3);
        assert_eq!(
            plan,
            vec![
                "type 'Myron' into the textfield above \"Submit\"".to_string(),
                "tap \"Submit\"".to_string(),
                "type 'x' into the textfield above \"Submit\"".to_string(),
                "press Enter".to_string(),
            ]
        );
        // The step language reads the rewritten steps.
        assert!(super::super::plan_fix::as_script_line(&plan[0]).is_some());
    }

    #[test]
    fn a_lone_unnamed_field_is_named_by_its_role() {
        let mut tree = Tree::default();
        for (role, y, parent) in [(Role::Other, 0.0, None), (Role::Textfield, 60.0, Some(0))] {
            let mut n = Node::new(role, role.as_str(), "");
            n.bounds = Some(Rect::new(10.0, y, 120.0, 24.0));
            n.parent = parent;
            tree.nodes.push(n);
        }
        tree.nodes[0].bounds = Some(Rect::new(0.0, 0.0, 160.0, 210.0));
        tree.nodes[0].children = vec![1];
        let screen = Screen {
            width: 160.0,
            height: 210.0,
            dpr: 1.0,
        };
        let obs = build(&tree, screen, 1);
        let id = obs.elements[0].id.clone();
        let (plan, changed) = name_elements(vec![format!("tap \"{id}\"")], &obs);
        assert_eq!((plan, changed), (vec!["tap \"textfield\"".to_string()], 1));
    }

    #[test]
    fn typing_into_a_name_nothing_carries_goes_to_the_one_field() {
        let obs = form();
        let (plan, changed) = name_elements(
            vec![
                "type '02/04/2012' into \"m/dd/y\"".to_string(),
                "type 'x' into \"Submit\"".to_string(),
            ],
            &obs,
        );
        assert_eq!(changed, 1);
        assert_eq!(
            plan[0],
            "type \"02/04/2012\" into the textfield above \"Submit\""
        );
        // A name the screen carries is left to the step (it fails there if it is no field).
        assert_eq!(plan[1], "type 'x' into \"Submit\"");
        // After a tap the screen may have changed: a later field is not guessed at.
        let later = vec![
            "tap \"Submit\"".to_string(),
            "type ${secret.PW} into \"Password\"".to_string(),
        ];
        assert_eq!(name_elements(later.clone(), &obs), (later, 0));
        // …unless the typing names its own text as its target: no field can be meant by it.
        let own = vec![
            "tap \"Submit\"".to_string(),
            "type \"buy milk\" into \"Buy milk\"".to_string(),
        ];
        let (plan, changed) = name_elements(own, &obs);
        assert_eq!(changed, 1);
        assert_eq!(
            plan[1],
            "type \"buy milk\" into the textfield above \"Submit\""
        );
    }

    #[test]
    fn other_tokens_are_left_alone() {
        let obs = form();
        let plan = vec![
            "type 'e2' into \"Submit\"".to_string(),
            "tap \"e99\"".to_string(),
            "tap \"X:e2\"".to_string(),
            "check that the screen shows \"e3\"".to_string(),
        ];
        let (out, changed) = name_elements(plan.clone(), &obs);
        // The typed text, an id of no element, no marker, a check's text.
        assert_eq!(changed, 0);
        assert_eq!(out, plan);
    }
}
