//! Learning a replay script from a model's actions: each action the model took (an element
//! id or a point of one observation) is rewritten as a step line whose target the step
//! language resolves to the same element in that observation — role and name, the name
//! alone, a named element narrowed by an anchor (`button "Edit" in the row of "Alice"`) or a
//! role placed by an anchor (`the checkbox left of "buy milk"`) — never an id or a pixel.
//! Each candidate is checked by resolving it against the observation the model acted on
//! and by parsing the written line back ([`argus_protocol::replay::parses_to`]); an action
//! no candidate describes makes the run unlearnable (nothing is stored), which is safer than
//! a script that would act somewhere else.

use argus_perception::{Element, Observation, Role};
use argus_protocol::replay::{parses_to, render};
use argus_protocol::script::canonical_role;
use argus_protocol::{Action, Aim, Relation, Target};

use crate::resolve::{resolve, Purpose};

/// Longest text a `wait for` line of a learned script waits for, chars.
const MAX_EXPECT_CHARS: usize = 60;
/// Anchors tried per element, nearest first.
const MAX_ANCHORS: usize = 24;

/// The lines learned so far in a run, or why it cannot be learned.
#[derive(Debug, Default)]
pub(crate) struct Learned {
    /// Step lines in order.
    pub(crate) lines: Vec<String>,
    /// Set once an action could not be written: nothing is stored for the run.
    pub(crate) broken: Option<String>,
}

impl Learned {
    /// Adds a line (ignored once broken).
    pub(crate) fn push(&mut self, line: String) {
        if self.broken.is_none() {
            self.lines.push(line);
        }
    }

    /// Marks the run unlearnable (the first reason is kept).
    pub(crate) fn fail(&mut self, why: String) {
        if self.broken.is_none() {
            tracing::info!(reason = %why, "run not learnable for replay");
            self.broken = Some(why);
        }
    }

    /// The script to store: `None` when broken or empty.
    pub(crate) fn script(&self) -> Option<String> {
        if self.broken.is_some() || self.lines.is_empty() {
            return None;
        }
        let mut s = self.lines.join("\n");
        s.push('\n');
        Some(s)
    }

    /// The script with the run's expectations appended as its closing assertions (each once;
    /// a line the script already ends with is not repeated), so a replay or an exported step
    /// file cannot pass where they no longer hold.
    pub(crate) fn script_with(&self, expected: &[super::expect::Expected]) -> Option<String> {
        let mut s = self.script()?;
        for e in expected {
            if !self.lines.iter().any(|l| l == &e.exp.line) {
                s.push_str(&e.exp.line);
                s.push('\n');
            }
        }
        Some(s)
    }
}

/// The step line for a model's `call` made on `obs` (`point`: where a `vlm` call landed,
/// device px). Err: why it cannot be written.
pub(crate) fn line_for(
    call: &Action,
    obs: &Observation,
    point: Option<(f64, f64)>,
) -> Result<String, String> {
    let action = retarget(call, obs, point)?;
    let line = render(&action).ok_or_else(|| format!("{} has no step line", call.describe()))?;
    if !parses_to(&line, &action) {
        return Err(format!("the line {line:?} does not parse back"));
    }
    Ok(line)
}

/// `call` with its element id or point replaced by a [`Target`] that resolves to the same
/// element of `obs`.
fn retarget(call: &Action, obs: &Observation, point: Option<(f64, f64)>) -> Result<Action, String> {
    let purpose = match call {
        Action::Type { .. } | Action::AssertValue { .. } => Purpose::Type,
        Action::AssertChecked { .. } => Purpose::Check,
        _ => Purpose::Tap,
    };
    let aim_of = |aim: &Aim| -> Result<Aim, String> {
        let el = match aim {
            Aim::Target(_) | Aim::Focused => return Ok(aim.clone()),
            Aim::Element { id, .. } => obs
                .element(id)
                .ok_or_else(|| format!("{id} is not in observation {}", obs.serial))?,
            Aim::Point { .. } => {
                let (x, y) = point.ok_or("the point was not mapped")?;
                under(obs, x, y).ok_or("no element under the point")?
            }
        };
        let check = matches!(
            call,
            Action::SetChecked { .. } | Action::AssertChecked { .. }
        );
        describe(el, obs, purpose, check)
            .map(Aim::Target)
            .ok_or_else(|| format!("no step-language target names {} uniquely", el.describe()))
    };
    Ok(match call {
        Action::Tap { target } => Action::Tap {
            target: aim_of(target)?,
        },
        Action::DoubleTap { target } => Action::DoubleTap {
            target: aim_of(target)?,
        },
        Action::LongPress {
            target,
            duration_ms,
        } => Action::LongPress {
            target: aim_of(target)?,
            duration_ms: *duration_ms,
        },
        Action::SetChecked { target, checked } => Action::SetChecked {
            target: aim_of(target)?,
            checked: *checked,
        },
        Action::Type { text, target } => Action::Type {
            text: text.clone(),
            target: aim_of(target)?,
        },
        Action::Swipe { direction, on } => Action::Swipe {
            direction: *direction,
            on: on.as_ref().map(aim_of).transpose()?,
        },
        Action::AssertChecked { target, checked } => Action::AssertChecked {
            target: aim_of(target)?,
            checked: *checked,
        },
        Action::AssertValue { target, value } => Action::AssertValue {
            target: aim_of(target)?,
            value: value.clone(),
        },
        other => other.clone(),
    })
}

/// The smallest element whose box holds the point (device px), actionable ones first.
fn under(obs: &Observation, x: f64, y: f64) -> Option<&Element> {
    obs.elements
        .iter()
        .filter(|e| e.bbox_px.contains_point(x, y))
        .min_by(|a, b| {
            (!a.role.is_actionable(), a.bbox_px.area())
                .partial_cmp(&(!b.role.is_actionable(), b.bbox_px.area()))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
}

/// The role word of `el` the grammar accepts, if any.
fn role_word(el: &Element) -> Option<String> {
    let r = el.role.as_str();
    (canonical_role(r) == Some(r)).then(|| r.to_string())
}

/// Names of `el` a target may use: its accessible name and placeholder (never its value,
/// which the run itself may change).
fn names(el: &Element) -> Vec<&str> {
    std::iter::once(el.name.as_str())
        .chain(el.placeholder.as_deref())
        .map(str::trim)
        .filter(|s| !s.is_empty() && s.chars().count() <= 200)
        .collect()
}

/// The first target (simplest first) that resolves to `el` in `obs`. `check`: the target
/// is for `check` / `uncheck`, which read a bare name as "the checkbox in its row", so a
/// named target needs its role there.
pub(crate) fn describe(
    el: &Element,
    obs: &Observation,
    purpose: Purpose,
    check: bool,
) -> Option<Target> {
    let role = role_word(el);
    let is_el = |t: &Target| {
        resolve(obs, t, purpose)
            .map(|found| found.id == el.id)
            .unwrap_or(false)
    };
    let own = names(el);
    for name in &own {
        let mut cands = Vec::new();
        if role.is_some() {
            cands.push(Target {
                role: role.clone(),
                name: name.to_string(),
                relation: Relation::Named,
                label: None,
            });
        }
        if !check {
            cands.push(Target::named(name));
        }
        if let Some(t) = cands.into_iter().find(|t| is_el(t)) {
            return Some(t);
        }
    }
    // Anchored: a uniquely named neighbour, nearest first.
    let (cx, cy) = el.bbox_px.center();
    let mut anchors: Vec<(&Element, &str)> = obs
        .elements
        .iter()
        .filter(|a| a.id != el.id)
        .filter_map(|a| names(a).first().map(|n| (a, *n)))
        .filter(|(a, n)| {
            resolve(obs, &Target::named(n), Purpose::Tap)
                .map(|f| f.id == a.id)
                .unwrap_or(false)
                || obs
                    .elements
                    .iter()
                    .filter(|o| o.labels().any(|l| l.eq_ignore_ascii_case(n)))
                    .count()
                    == 1
        })
        .collect();
    anchors.sort_by(|(a, _), (b, _)| {
        let d = |e: &Element| {
            let (x, y) = e.bbox_px.center();
            (x - cx).powi(2) + (y - cy).powi(2)
        };
        d(a).partial_cmp(&d(b)).unwrap_or(std::cmp::Ordering::Equal)
    });
    let relations = [
        Relation::InRowOf,
        Relation::Below,
        Relation::Above,
        Relation::LeftOf,
        Relation::RightOf,
    ];
    for (_, anchor) in anchors.into_iter().take(MAX_ANCHORS) {
        for rel in relations {
            let mut cands = Vec::new();
            for name in &own {
                cands.push(Target {
                    role: role.clone(),
                    name: anchor.to_string(),
                    relation: rel,
                    label: Some(name.to_string()),
                });
            }
            if role.is_some() {
                cands.push(Target {
                    role: role.clone(),
                    name: anchor.to_string(),
                    relation: rel,
                    label: None,
                });
            }
            if let Some(t) = cands.into_iter().find(|t| is_el(t)) {
                return Some(t);
            }
        }
    }
    None
}

/// A text the action made appear that the job's instruction quotes (`task`: `add "buy
/// milk"`): the progress a replay waits for after the line (`wait for "…"`). Only texts the
/// job quotes are used — any other new text may be incidental (a counter, a filter bar that
/// shows up with the first item) or differ between versions of a page that does the job
/// equally well.
pub(crate) fn expected_text(
    before: &Observation,
    after: &Observation,
    task: &str,
) -> Option<String> {
    let quoted = quoted_texts(task);
    after
        .elements
        .iter()
        .filter(|e| e.role != Role::Textfield && !e.editable.is_yes())
        .map(|e| e.name.trim())
        .filter(|n| !n.is_empty() && n.chars().count() <= MAX_EXPECT_CHARS)
        .find(|n| {
            quoted.iter().any(|q| q.eq_ignore_ascii_case(n))
                && !before.contains_text(n)
                && after.contains_text(n)
        })
        .map(str::to_string)
}

/// The texts `task` puts in quotes (`"…"`, `“…”`, `「…」`), trimmed, non-empty.
fn quoted_texts(task: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<(char, String)> = None;
    for c in task.chars() {
        match &mut open {
            None => {
                let close = match c {
                    '"' => '"',
                    '“' => '”',
                    '「' => '」',
                    _ => continue,
                };
                open = Some((close, String::new()));
            }
            Some((close, buf)) if c == *close => {
                let t = buf.trim().to_string();
                if !t.is_empty() {
                    out.push(t);
                }
                open = None;
            }
            Some((_, buf)) => buf.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{line_for, quoted_texts};
    use argus_perception::{build, Node, Observation, Rect, Role, Screen, Tree};
    use argus_protocol::{Action, Aim};

    fn obs(nodes: &[(Role, &str, Rect)]) -> Observation {
        let mut tree = Tree::default();
        tree.nodes.push(Node::new(Role::Other, "root", ""));
        tree.nodes[0].bounds = Some(Rect::new(0.0, 0.0, 500.0, 500.0));
        for (r, name, b) in nodes {
            let mut n = Node::new(*r, r.as_str(), name);
            n.bounds = Some(*b);
            n.parent = Some(0);
            tree.nodes.push(n);
        }
        let screen = Screen {
            width: 500.0,
            height: 500.0,
            dpr: 1.0,
        };
        build(&tree, screen, 3)
    }

    #[test]
    fn a_models_element_checks_become_step_lines() {
        let o = obs(&[
            (
                Role::Checkbox,
                "Remember me",
                Rect::new(0.0, 0.0, 20.0, 20.0),
            ),
            (Role::Text, "Remember me", Rect::new(30.0, 0.0, 90.0, 20.0)),
            (Role::Textfield, "Email:", Rect::new(0.0, 40.0, 150.0, 20.0)),
        ]);
        let id = |role: Role| Aim::Element {
            observation: 3,
            id: o
                .elements
                .iter()
                .find(|e| e.role == role)
                .unwrap()
                .id
                .clone(),
        };
        let checked = Action::AssertChecked {
            target: id(Role::Checkbox),
            checked: false,
        };
        assert_eq!(
            line_for(&checked, &o, None).unwrap(),
            r#"assert checkbox "Remember me" is not checked"#
        );
        let value = Action::AssertValue {
            target: id(Role::Textfield),
            value: String::new(),
        };
        assert_eq!(
            line_for(&value, &o, None).unwrap(),
            r#"assert textfield "Email:" is empty"#
        );
    }

    /// Secrets are resolved only when the device types (`act.rs`), so the model's call still
    /// holds the placeholder: the learned line, hence the exported step file, keeps
    /// `${secret.NAME}` and never the value.
    #[test]
    fn a_typed_secret_stays_a_placeholder() {
        let o = obs(&[(
            Role::Textfield,
            "Password",
            Rect::new(0.0, 0.0, 150.0, 20.0),
        )]);
        let id = o.elements.iter().find(|e| e.role == Role::Textfield);
        let typed = Action::Type {
            text: "${secret.PASSWORD}".into(),
            target: Aim::Element {
                observation: 3,
                id: id.map(|e| e.id.clone()).unwrap_or_default(),
            },
        };
        assert_eq!(
            line_for(&typed, &o, None).unwrap(),
            r#"type "${secret.PASSWORD}" into textfield "Password""#
        );
    }

    #[test]
    fn quoted_texts_are_found() {
        assert_eq!(
            quoted_texts(r#"Add "buy milk" and “walk the dog”, then 「完成」 and "" "#),
            vec!["buy milk", "walk the dog", "完成"]
        );
        assert!(quoted_texts("show the active ones").is_empty());
    }
}
