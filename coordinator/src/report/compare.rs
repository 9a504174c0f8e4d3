//! Comparing two runs of the same job: walk both runs' actions in order and stop at the
//! first one that differs in kind, target (role and name, never the per-observation id or a
//! box that moved by a pixel) or outcome. Plans are compared by their steps.

use argus_protocol::{ActionRecord, RunDetail};
use askama::Template;

use super::overlay::{overlay, Overlay};

/// An action as the comparison sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub kind: String,
    /// `button "Add"`, empty without a target.
    pub target: String,
    pub ok: bool,
    /// The plan's steps for a `plan` record.
    pub plan: Option<Vec<String>>,
}

impl Key {
    fn of(a: &ActionRecord) -> Key {
        Key {
            kind: a.kind.clone(),
            target: a
                .target
                .as_ref()
                .map(|t| format!("{} {:?}", t.role, t.name))
                .unwrap_or_default(),
            ok: a.ok,
            plan: a.plan.clone(),
        }
    }

    /// What differs between `self` and `other`, for a person: `kind tap ≠ type`, …
    pub fn differences(&self, other: &Key) -> Vec<String> {
        let mut d = Vec::new();
        if self.kind != other.kind {
            d.push(format!("action {} ≠ {}", self.kind, other.kind));
        }
        if self.target != other.target {
            d.push(format!(
                "target {} ≠ {}",
                or_none(&self.target),
                or_none(&other.target)
            ));
        }
        if self.ok != other.ok {
            d.push(format!(
                "outcome {} ≠ {}",
                outcome(self.ok),
                outcome(other.ok)
            ));
        }
        if self.plan != other.plan {
            d.push("the plans differ".into());
        }
        d
    }
}

fn or_none(s: &str) -> &str {
    if s.is_empty() {
        "none"
    } else {
        s
    }
}

fn outcome(ok: bool) -> &'static str {
    if ok {
        "ok"
    } else {
        "failed"
    }
}

/// Every action of a run in order, with the text of its step.
pub fn actions(run: &RunDetail) -> Vec<(&str, &ActionRecord)> {
    run.steps
        .iter()
        .flat_map(|s| s.actions.iter().map(move |a| (s.text.as_str(), a)))
        .collect()
}

/// Where two runs first part.
#[derive(Debug, Clone, PartialEq)]
pub enum Divergence {
    /// Same kinds, targets and outcomes for all `n` actions.
    Same { n: usize },
    /// Position `at` (0-based, over all actions) differs; `what` says how. A run that ran
    /// out of actions there differs by `only one run has an action here`.
    At { at: usize, what: Vec<String> },
}

/// The first position where `a` and `b` differ (step text included: a script that was
/// edited differs at its first changed line).
pub fn first_difference(a: &RunDetail, b: &RunDetail) -> Divergence {
    let (xs, ys) = (actions(a), actions(b));
    for i in 0..xs.len().max(ys.len()) {
        match (xs.get(i), ys.get(i)) {
            (Some((ta, x)), Some((tb, y))) => {
                let mut what = Key::of(x).differences(&Key::of(y));
                if ta != tb {
                    what.insert(0, format!("step “{ta}” ≠ “{tb}”"));
                }
                if !what.is_empty() {
                    return Divergence::At { at: i, what };
                }
            }
            _ => {
                return Divergence::At {
                    at: i,
                    what: vec!["only one run has an action here".into()],
                }
            }
        }
    }
    Divergence::Same { n: xs.len() }
}

/// Actions listed around the first difference, each side.
const CONTEXT: usize = 3;

/// One line of the aligned action list.
pub struct Line {
    /// 1-based position over all actions.
    pub n: usize,
    pub a: String,
    pub b: String,
    pub differs: bool,
}

/// One run's action at the difference: what it did and its screenshots.
pub struct Shot {
    pub run_id: uuid::Uuid,
    /// `/runs/{id}#a-2-0`.
    pub link: String,
    pub step: String,
    pub summary: String,
    pub error: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    pub overlay: Option<Overlay>,
}

/// `/runs/{a}/compare/{b}`.
#[derive(Template)]
#[template(path = "compare.html")]
struct ComparePage<'a> {
    /// The session's CSRF token (for the page header's sign-out form).
    csrf: &'a str,
    a: &'a RunDetail,
    b: &'a RunDetail,
    same_job: bool,
    /// `first difference at action 12 of 40: target … ≠ …`, or `no difference in …`.
    verdict: String,
    /// Actions before the listed window.
    skipped: usize,
    lines: Vec<Line>,
    /// `("A", …)` and `("B", …)`: both runs' action at the difference (or their last one
    /// when none); empty when neither run has an action.
    shots: Vec<(&'static str, Option<Shot>)>,
}

fn line(x: Option<&(&str, &ActionRecord)>) -> String {
    match x {
        None => "—".into(),
        Some((_, a)) => format!("{} · {}", a.detail, outcome(a.ok)),
    }
}

fn shot(run: &RunDetail, x: Option<&(&str, &ActionRecord)>, img_base: &str) -> Option<Shot> {
    let (step, a) = x?;
    let img = |k: &Option<String>| k.as_ref().map(|k| format!("{img_base}{k}"));
    Some(Shot {
        run_id: run.run_id,
        link: format!("/runs/{}#a-{}-{}", run.run_id, a.step, a.action),
        step: step.to_string(),
        summary: line(x),
        error: a.error.clone(),
        before: img(&a.before_key),
        after: img(&a.after_key),
        overlay: overlay(a, run.screen_px),
    })
}

/// Renders the comparison of run `a` (the earlier) with run `b`.
pub fn render_compare(
    a: &RunDetail,
    b: &RunDetail,
    img_base: &str,
    csrf: &str,
) -> Result<String, askama::Error> {
    let (xs, ys) = (actions(a), actions(b));
    let (at, verdict) = match first_difference(a, b) {
        Divergence::Same { n } => (
            n.saturating_sub(1),
            format!("no difference in kind, target or outcome over {n} actions"),
        ),
        Divergence::At { at, what } => (
            at,
            format!(
                "first difference at action {}{}: {}",
                at + 1,
                xs.get(at)
                    .or(ys.get(at))
                    .map(|(text, a)| format!(" (step {}, {text})", a.step + 1))
                    .unwrap_or_default(),
                what.join("; ")
            ),
        ),
    };
    let differs = matches!(first_difference(a, b), Divergence::At { .. });
    let from = at.saturating_sub(CONTEXT);
    let to = (at + CONTEXT + 1).min(xs.len().max(ys.len()));
    let lines = (from..to)
        .map(|i| Line {
            n: i + 1,
            a: line(xs.get(i)),
            b: line(ys.get(i)),
            differs: differs && i == at,
        })
        .collect();
    let shots = if xs.is_empty() && ys.is_empty() {
        Vec::new()
    } else {
        vec![
            ("A", shot(a, xs.get(at), img_base)),
            ("B", shot(b, ys.get(at), img_base)),
        ]
    };
    ComparePage {
        csrf,
        a,
        b,
        same_job: a.job_id == b.job_id
            || (a.spec.platform == b.spec.platform && a.spec.instruction == b.spec.instruction),
        verdict,
        skipped: from,
        lines,
        shots,
    }
    .render()
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_protocol::{Disposition, JobSpec, Platform, StepView, TargetedElement};
    use uuid::Uuid;

    fn act(kind: &str, name: &str, ok: bool) -> ActionRecord {
        let mut a = ActionRecord::new(
            0,
            0,
            kind,
            kind.into(),
            ok,
            None,
            Disposition::DeliveredUnverified,
            chrono::Utc::now(),
        );
        a.target = (!name.is_empty()).then(|| TargetedElement {
            id: format!("e{}", name.len()),
            role: "button".into(),
            name: name.into(),
            bbox_px: [0.0, 0.0, 10.0, 10.0],
            source: None,
            confidence: None,
        });
        a
    }

    fn run(steps: Vec<(&str, Vec<ActionRecord>)>) -> RunDetail {
        let spec = JobSpec::script(Platform::Web, None, "x".into());
        let mut d = RunDetail::new(Uuid::new_v4(), Uuid::new_v4(), spec, chrono::Utc::now());
        d.steps = steps
            .into_iter()
            .enumerate()
            .map(|(i, (t, actions))| StepView {
                index: i as u32,
                text: t.into(),
                ok: Some(actions.iter().all(|a| a.ok)),
                error: None,
                duration_ms: Some(10.0),
                actions,
            })
            .collect();
        d
    }

    #[test]
    fn finds_the_first_action_that_differs() {
        let a = run(vec![
            ("open", vec![act("open", "", true)]),
            ("tap Add", vec![act("tap", "Add", true)]),
            ("tap Save", vec![act("tap", "Save", true)]),
        ]);
        let mut b = a.clone();
        assert_eq!(first_difference(&a, &b), Divergence::Same { n: 3 });
        // A different element id or box is the same target.
        b.steps[1].actions[0].target.as_mut().unwrap().id = "e99".into();
        assert_eq!(first_difference(&a, &b), Divergence::Same { n: 3 });
        b.steps[2].actions[0] = act("tap", "Save", false);
        assert_eq!(
            first_difference(&a, &b),
            Divergence::At {
                at: 2,
                what: vec!["outcome ok ≠ failed".into()]
            }
        );
        b.steps[1].actions[0] = act("tap", "Cancel", true);
        let Divergence::At { at, what } = first_difference(&a, &b) else {
            panic!("differs")
        };
        assert_eq!(at, 1);
        assert_eq!(what, vec![r#"target button "Add" ≠ button "Cancel""#]);
        // One run stopped early.
        let short = run(vec![("open", vec![act("open", "", true)])]);
        assert_eq!(
            first_difference(&a, &short),
            Divergence::At {
                at: 1,
                what: vec!["only one run has an action here".into()]
            }
        );
    }
}
