//! The reflector: classifies one action from its before/after observations.
//!
//! - **C, no change**: the element list (role, name, value, checked, focused and selected
//!   states — what the model's element list shows) and the visible text are the same. When both trees are empty (a canvas, a game), the screenshots'
//!   hashes decide instead (the pixel fallback).
//! - **B, wrong page**: the screen was replaced — fewer than [`REPLACED_JACCARD`] of the
//!   labels survive — and none of the step's key words, which the old screen showed, is on
//!   the new one.
//! - **A, progressed**: anything else that changed; the note names up to three elements that
//!   changed (as they are now), e.g. focus moving to a text field.

use std::collections::BTreeSet;

use argus_perception::elements::collapse_ws;
use argus_perception::Observation;
use argus_protocol::{ReflectClass, Reflection};

/// Below this label-set Jaccard similarity the screen counts as replaced.
pub const REPLACED_JACCARD: f64 = 0.25;

/// Per-element key lines used by the diff.
fn keys(o: &Observation) -> Vec<String> {
    o.elements
        .iter()
        .map(|e| {
            format!(
                "{}|{}|{}|{:?}|{:?}|{:?}",
                e.role.as_str(),
                collapse_ws(&e.name),
                e.value.as_deref().map(collapse_ws).unwrap_or_default(),
                e.checked,
                e.focused,
                e.selected
            )
        })
        .collect()
}

/// What the diff compares, as one string: the element keys and the visible text. Two
/// observations with equal state keys count as the same screen state.
pub fn state_key(o: &Observation) -> String {
    let mut k = keys(o).join("\n");
    k.push_str("\n--\n");
    k.push_str(&o.text);
    k
}

/// Up to three elements of `after` whose key is not in `before`, as `role "label" states`.
fn changed_elements(after: &Observation, before_keys: &BTreeSet<&String>) -> String {
    let ka = keys(after);
    let mut out: Vec<String> = Vec::new();
    for (e, k) in after.elements.iter().zip(ka.iter()) {
        if before_keys.contains(k) {
            continue;
        }
        let label = e.labels().next().unwrap_or_default();
        let label: String = collapse_ws(label).chars().take(30).collect();
        let mut d = format!("{} {label:?}", e.role.as_str());
        if let Some(v) = e.value.as_deref().filter(|v| !v.trim().is_empty()) {
            if !e.password.is_yes() {
                d.push_str(&format!(
                    " ={:?}",
                    collapse_ws(v).chars().take(30).collect::<String>()
                ));
            }
        }
        for (on, w) in [
            (e.checked.is_yes(), "on"),
            (e.focused.is_yes(), "focused"),
            (e.selected.is_yes(), "selected"),
        ] {
            if on {
                d.push(' ');
                d.push_str(w);
            }
        }
        out.push(d);
        if out.len() == 3 {
            break;
        }
    }
    out.join("; ")
}

/// Fingerprint for "stable across two observations": keys plus boxes rounded to 2 px and
/// the enabled / covered states.
pub fn fingerprint(o: &Observation) -> String {
    o.elements
        .iter()
        .map(|e| {
            let b = e.bbox_px;
            format!(
                "{}|{}|{}|{:?}|{:?}|{:?}|{:?}|{}|{}|{}",
                e.id,
                e.role.as_str(),
                collapse_ws(&e.name),
                e.value,
                e.checked,
                e.enabled,
                e.covered,
                (b.x / 2.0).round(),
                (b.y / 2.0).round(),
                (b.w / 2.0).round()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Key words of a step: quoted phrases, else words of 4+ letters, lowercased.
fn step_words(step: &str) -> Vec<String> {
    let quoted: Vec<String> = step
        .split(['"', '“', '”'])
        .skip(1)
        .step_by(2)
        .map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty())
        .collect();
    if !quoted.is_empty() {
        return quoted;
    }
    step.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .collect()
}

/// Classifies an action. `shots` are hashes of the before/after screenshots, when taken.
pub fn classify(
    before: &Observation,
    after: &Observation,
    step: &str,
    shots: Option<(u64, u64)>,
) -> Reflection {
    let (kb, ka) = (keys(before), keys(after));
    if kb.is_empty() && ka.is_empty() {
        return match shots {
            Some((x, y)) if x != y => Reflection {
                class: ReflectClass::A,
                note: "no tree; the screenshot changed".into(),
            },
            _ => Reflection {
                class: ReflectClass::C,
                note: "no tree; the screenshot did not change".into(),
            },
        };
    }
    if kb == ka && before.text == after.text {
        return Reflection {
            class: ReflectClass::C,
            note: "no change in the element list or the visible text".into(),
        };
    }
    let sb: BTreeSet<&String> = kb.iter().collect();
    let sa: BTreeSet<&String> = ka.iter().collect();
    let inter = sb.intersection(&sa).count() as f64;
    let union = sb.union(&sa).count().max(1) as f64;
    let jaccard = inter / union;
    let changed = sb.symmetric_difference(&sa).count();
    if jaccard < REPLACED_JACCARD {
        let words = step_words(step);
        let hay = |o: &Observation| {
            let names: Vec<&str> = o.elements.iter().map(|e| e.name.as_str()).collect();
            format!("{} {}", o.text, names.join(" ")).to_lowercase()
        };
        let (lower_before, lower_after) = (hay(before), hay(after));
        let was = words.iter().any(|w| lower_before.contains(w.as_str()));
        let is = words.iter().any(|w| lower_after.contains(w.as_str()));
        if was && !is {
            return Reflection {
                class: ReflectClass::B,
                note: format!(
                    "the screen was replaced (similarity {jaccard:.2}) by one without the step's words"
                ),
            };
        }
        return Reflection {
            class: ReflectClass::A,
            note: format!("the screen was replaced (similarity {jaccard:.2})"),
        };
    }
    let what = changed_elements(after, &sb);
    Reflection {
        class: ReflectClass::A,
        note: if what.is_empty() {
            format!("{changed} element(s) changed")
        } else {
            format!("{changed} element(s) changed, now: {what}")
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_perception::tree::{Node, Tree};
    use argus_perception::{build, Rect, Role, Screen};

    fn obs(items: &[(&str, &str)]) -> Observation {
        let mut nodes = vec![{
            let mut n = Node::new(Role::Other, "root", "");
            n.bounds = Some(Rect::new(0.0, 0.0, 400.0, 400.0));
            n
        }];
        for (i, (role, name)) in items.iter().enumerate() {
            let r = Role::parse(role).unwrap_or(Role::Text);
            let mut n = Node::new(r, role, name);
            n.bounds = Some(Rect::new(10.0, 10.0 + 30.0 * i as f64, 100.0, 20.0));
            n.parent = Some(0);
            nodes.push(n);
        }
        build(
            &Tree { nodes },
            Screen {
                width: 400.0,
                height: 400.0,
                dpr: 1.0,
            },
            1,
        )
    }

    #[test]
    fn a_b_c() {
        let login = obs(&[
            ("text", "Sign in"),
            ("button", "Continue"),
            ("text", "Help"),
        ]);
        assert_eq!(
            classify(&login, &login.clone(), "tap \"Continue\"", None).class,
            ReflectClass::C
        );
        let more = obs(&[
            ("text", "Sign in"),
            ("button", "Continue"),
            ("text", "Help"),
            ("text", "Wrong password"),
        ]);
        assert_eq!(
            classify(&login, &more, "tap \"Continue\"", None).class,
            ReflectClass::A
        );
        let ad = obs(&[("text", "Buy shoes now"), ("button", "Shop")]);
        assert_eq!(
            classify(&login, &ad, "tap \"Continue\" to sign in", None).class,
            ReflectClass::B
        );
        // Focus moving to a field is a change the model's list shows ("focused"), so it is A.
        let mut focused = login.clone();
        focused.elements[1].focused = argus_perception::tree::Tri::Yes;
        let r = classify(&login, &focused, "tap \"Continue\"", None);
        assert_eq!(r.class, ReflectClass::A);
        assert!(r.note.contains("button \"Continue\" focused"), "{}", r.note);
        let empty = obs(&[]);
        assert_eq!(
            classify(&empty, &empty, "x", Some((1, 2))).class,
            ReflectClass::A
        );
        assert_eq!(
            classify(&empty, &empty, "x", Some((1, 1))).class,
            ReflectClass::C
        );
    }
}
