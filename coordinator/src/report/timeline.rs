//! The step timeline at the top of a report: one row per step (status, duration, a bar
//! scaled to the slowest step) and one chip per action (status, duration, the perception
//! channel its observation was read with, and who decided it), each linking to the action
//! below. Also finds the failure a failing run opens on.

use argus_protocol::{ActionRecord, Mode, RunDetail, StepView};

/// One action chip.
#[derive(Debug, Clone, PartialEq)]
pub struct Chip {
    /// Fragment of the action's section (`a-2-0`).
    pub anchor: String,
    /// Tool name (`tap`, `plan`, …).
    pub kind: String,
    /// `ok` or `fail`.
    pub class: &'static str,
    /// Wall time, ms.
    pub ms: f64,
    /// Perception channel of its observation (`tree`, `tree+regions`, `pixel`), or empty.
    pub channel: String,
    /// Who chose it: see [`decided_by`].
    pub by: &'static str,
    /// Hover text: duration, decider and channel.
    pub title: String,
}

/// One step row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub index: u32,
    pub text: String,
    /// `ok`, `fail` or `pending`.
    pub class: &'static str,
    /// `1.2 s`, or empty while running.
    pub duration: String,
    /// Bar width, percent of the slowest step.
    pub bar_pct: f64,
    pub chips: Vec<Chip>,
}

/// Who decided an action: `script` (a step line), `model` (planner or executor calls),
/// `policy` (the popup policy), or `cache` for a replayed action. A record says nothing of
/// its decider yet, so it follows from the job's mode and whether model calls were spent.
pub fn decided_by(mode: Mode, a: &ActionRecord) -> &'static str {
    if a.source == Some(argus_protocol::ActionSource::Cache) {
        "cache"
    } else if a.kind == "popup" {
        "policy"
    } else if a.usage.is_some_and(|u| u.calls > 0) || a.plan.is_some() {
        "model"
    } else if mode == Mode::Script {
        "script"
    } else {
        // A model-mode action that cost no call (`ai:` lines resolved without a call).
        "model"
    }
}

/// Wall time of an action, ms.
pub fn action_ms(a: &ActionRecord) -> f64 {
    (a.finished_at - a.started_at).num_milliseconds().max(0) as f64
}

/// Step class: `ok`, `fail` or `pending`.
pub fn step_class(s: &StepView) -> &'static str {
    match s.ok {
        Some(true) => "ok",
        Some(false) => "fail",
        None => "pending",
    }
}

/// The rows of the timeline.
pub fn rows(run: &RunDetail) -> Vec<Row> {
    let slowest = run
        .steps
        .iter()
        .filter_map(|s| s.duration_ms)
        .fold(0.0_f64, f64::max);
    run.steps
        .iter()
        .map(|s| Row {
            index: s.index,
            text: s.text.clone(),
            class: step_class(s),
            duration: s
                .duration_ms
                .map(|d| format!("{:.1} s", d / 1000.0))
                .unwrap_or_default(),
            bar_pct: match (s.duration_ms, slowest > 0.0) {
                (Some(d), true) => (d / slowest * 100.0).max(1.0),
                _ => 0.0,
            },
            chips: s
                .actions
                .iter()
                .map(|a| {
                    let ms = action_ms(a);
                    let channel = a
                        .perception
                        .as_ref()
                        .map(|p| p.channel.clone())
                        .unwrap_or_default();
                    let by = decided_by(run.spec.mode, a);
                    // Short: one chip per action, hundreds in a long run.
                    let mut title = format!("{ms:.0} ms · {by}");
                    if !channel.is_empty() {
                        title.push_str(&format!(" · {channel}"));
                    }
                    Chip {
                        anchor: format!("a-{}-{}", a.step, a.action),
                        kind: a.kind.clone(),
                        class: if a.ok { "ok" } else { "fail" },
                        ms,
                        channel,
                        by,
                        title,
                    }
                })
                .collect(),
        })
        .collect()
}

/// The failure a failing run opens on: `(step, Some(action))` for the first failed action
/// of the first failed step, `(step, None)` when that step has no failed action; `None` for
/// a run that did not fail (or failed before any step).
pub fn first_failure(run: &RunDetail) -> Option<(u32, Option<u32>)> {
    use argus_protocol::RunStatus::*;
    if !matches!(run.status, Failed | Errored | TimedOut | Lost) {
        return None;
    }
    let s = run.steps.iter().find(|s| s.ok == Some(false)).or_else(|| {
        run.steps
            .iter()
            .rev()
            .find(|s| s.actions.iter().any(|a| !a.ok))
    })?;
    Some((s.index, s.actions.iter().find(|a| !a.ok).map(|a| a.action)))
}
