//! What the "try a step" page ([`super::try_page`]) makes of a try's run: the form it came
//! from (the run's spec is the whole state: its last line is the tried step, the lines before
//! it the steps so far), the tried line's action as the report shows it, and the two
//! follow-up links ("Add to steps so far", "New job from these steps").

use argus_protocol::RunDetail;

use crate::views::{TriedAction, TryForm, TryResult};

/// Where the report serves screenshots (`api/artifacts.rs`).
const IMG_BASE: &str = "/artifacts/";

/// The job's `instruction` for a try: the steps so far (trailing blank lines dropped), then
/// the tried line; and how many lines come before the tried one.
pub(super) fn instruction(form: &TryForm) -> (String, usize) {
    let prior = form.steps.trim_end();
    let step = form.step.trim();
    if prior.is_empty() {
        (step.to_string(), 0)
    } else {
        (format!("{prior}\n{step}"), prior.lines().count())
    }
}

/// The form field a refusal of the try's spec is about: `instruction[line N]` is the tried
/// line's (`step`) when N is past the steps so far, else `steps`; `start_url` stays; a
/// refusal of the whole instruction is the step's; anything else is the form's (`""`).
pub(super) fn field_of(api_field: &str, prior_lines: usize) -> String {
    if let Some(n) = api_field
        .strip_prefix("instruction[line ")
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|n| n.parse::<usize>().ok())
    {
        return if n > prior_lines { "step" } else { "steps" }.to_string();
    }
    match api_field {
        "instruction" => "step".to_string(),
        "start_url" => "start_url".to_string(),
        _ => String::new(),
    }
}

/// The form a try's run came from.
pub(super) fn form_of(run: &RunDetail) -> TryForm {
    let lines: Vec<&str> = run.spec.instruction.lines().collect();
    let (step, prior) = lines.split_last().map_or(("", &[][..]), |(s, p)| (*s, p));
    TryForm {
        start_url: run.spec.start_url.clone().unwrap_or_default(),
        steps: prior.join("\n"),
        step: step.to_string(),
    }
}

/// The outcome of the tried line (`form.step`) in `run`.
pub(super) fn result_of(run: &RunDetail, form: &TryForm) -> TryResult {
    let live = !run.status.is_terminal();
    let tried = form.step.trim();
    let last = run.steps.iter().max_by_key(|s| s.index);
    let step = run
        .steps
        .iter()
        .filter(|s| s.text.trim() == tried)
        .max_by_key(|s| s.index)
        .filter(|s| last.is_some_and(|l| l.index == s.index));
    let stopped_at = match (step, last) {
        (None, Some(l)) if !live => Some(l.text.clone()),
        _ => None,
    };
    let action = step
        .and_then(|s| s.actions.iter().rev().find(|a| a.plan.is_none()))
        .map(|a| TriedAction {
            kind: a.kind.clone(),
            detail: a.detail.clone(),
            ok: a.ok,
            error: a.error.clone(),
            disposition: a.disposition.as_str().to_string(),
            target: a.target.as_ref().map(|t| {
                let [x, y, w, h] = t.bbox_px;
                (
                    t.role.clone(),
                    t.name.clone(),
                    format!("{x:.0},{y:.0} {w:.0}×{h:.0}"),
                )
            }),
            after: a.after_key.as_ref().map(|k| format!("{IMG_BASE}{k}")),
        });
    TryResult {
        run: run.run_id.to_string(),
        status: run.status.as_str().to_string(),
        live,
        error: run.error.clone(),
        stopped_at,
        action,
    }
}

/// Query of "Add to steps so far": the same start URL, the tried line appended to the steps
/// so far, no step.
pub(super) fn add_query(form: &TryForm) -> String {
    let (all, _) = instruction(form);
    encode(&[("start_url", &form.start_url), ("steps", &all)])
}

/// Query of "New job from these steps": the New job form with the platform, the start URL
/// and every line (the steps so far and the tried one).
pub(super) fn job_query(form: &TryForm, platform: &str) -> String {
    let (all, _) = instruction(form);
    encode(&[
        ("platform", platform),
        ("mode", "script"),
        ("start_url", &form.start_url),
        ("instruction", &all),
    ])
}

fn encode(pairs: &[(&str, &str)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(steps: &str, step: &str) -> TryForm {
        TryForm {
            start_url: "http://x/".into(),
            steps: steps.into(),
            step: step.into(),
        }
    }

    #[test]
    fn the_tried_line_comes_last_and_refusals_name_their_field() {
        assert_eq!(
            instruction(&form("", " tap \"A\" ")),
            ("tap \"A\"".into(), 0)
        );
        let (all, n) = instruction(&form("tap \"A\"\ntap \"B\"\n\n", "tap \"C\""));
        assert_eq!((all.as_str(), n), ("tap \"A\"\ntap \"B\"\ntap \"C\"", 2));
        assert_eq!(field_of("instruction[line 3]", 2), "step");
        assert_eq!(field_of("instruction[line 2]", 2), "steps");
        assert_eq!(field_of("instruction", 2), "step");
        assert_eq!(field_of("start_url", 0), "start_url");
        assert_eq!(field_of("timeout_s", 0), "");
        assert_eq!(
            add_query(&form("tap \"A\"", "tap \"B\"")),
            "start_url=http%3A%2F%2Fx%2F&steps=tap+%22A%22%0Atap+%22B%22"
        );
    }
}
