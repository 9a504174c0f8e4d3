//! Expectations and verdicts: what a run's `succeeded` rests on.
//!
//! An **expectation** is one check line of the step language (`assert screen contains "X"`,
//! `assert screen does not contain "X"`, `wait for "X"`, and any later check kind for which
//! [`crate::ActionKind::checks`] holds), EN or ZH. A job may carry them
//! ([`crate::JobSpec::expectations`]); for `llm` / `vlm` jobs the worker also turns every
//! checkable clause of the instruction ("confirm…", "make sure…", "确认…") into one. The
//! worker reports them all in one [`crate::EventBody::Expectations`] event before the run's
//! first action, checks them with the deterministic matcher on a fresh observation at the
//! end, and reports a [`Verdict`] with `run_finished`:
//!
//! - `succeeded` only when at least one expectation was checked and every one held;
//! - `failed` when one did not (the verdict names it);
//! - `unverified` when a model-mode run finished its plan with nothing to check: the
//!   model's "done" is a claim, recorded in the verdict, never the verdict itself.
//!
//! `script` jobs keep their step-by-step verdict (every step is a deterministic resolution or
//! check); their job-level expectations are checked at the end as well.

use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::script::{Script, Step};

/// Most expectations a job may carry (and the worker adds from an instruction).
pub const MAX_EXPECTATIONS: usize = 32;
/// Longest expectation line, bytes.
pub const MAX_EXPECTATION_BYTES: usize = 1024;

/// Where an expectation came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ExpectationSource {
    /// The job's `expectations` field.
    Job,
    /// A checkable clause of a natural-language instruction.
    Instruction,
    /// An end state an action clause of the instruction names (`tick off 'X'` → `assert "X"
    /// is checked`): it can fail a run, never earn `succeeded` on its own.
    Effect,
}

/// One expectation of a run, as reported before its first action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Expectation {
    /// The step-language check line (`assert screen contains "1 item left"`).
    pub line: String,
    /// Where it came from.
    pub source: ExpectationSource,
    /// The instruction's clause it was read from (`source = instruction`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clause: Option<String>,
}

/// What decided a run's terminal status, reported with `run_finished`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Verdict {
    /// One line for a person: "2 of 2 expectations held on observation 14",
    /// "expectation `assert screen contains \"Saved\"` did not hold on observation 9",
    /// "no expectation to check: the instruction has no checkable clause".
    pub basis: String,
    /// The expectation that decided it (the failed one, or the last one that held).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expectation: Option<String>,
    /// Step and action index of the check that decided it (0-based; the report links it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// Action index within `step`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<u32>,
    /// Observation serial the check ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observation: Option<u64>,
    /// The model's own claim of completion (its `finish` summary), recorded, never trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
}

/// Parses one expectation line into its check action.
///
/// Errors (a message and a hint) when the line is not one step-language line, or is a line
/// that acts rather than checks (`tap "Confirm"`).
pub fn parse_expectation(line: &str) -> Result<Action, (String, String)> {
    let hint = "write a check such as `assert screen contains \"Saved\"`, `assert screen does not contain \"Error\"` or `断言 页面包含 \"欢迎\"`".to_string();
    if line.trim().is_empty() || line.len() > MAX_EXPECTATION_BYTES || line.contains('\n') {
        return Err((
            format!("an expectation must be one non-empty line of at most {MAX_EXPECTATION_BYTES} bytes"),
            hint,
        ));
    }
    let script = Script::parse(line).map_err(|e| (e.message, hint.clone()))?;
    match script.steps.as_slice() {
        [one] => match &one.step {
            Step::Act(a) if a.kind().checks() => Ok(a.clone()),
            _ => Err((
                format!(
                    "{:?} acts on the screen instead of checking it",
                    line.trim()
                ),
                hint,
            )),
        },
        _ => Err(("an expectation is exactly one check line".into(), hint)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_parse_and_actions_are_refused() {
        assert!(matches!(
            parse_expectation("assert screen contains \"1 item left\""),
            Ok(Action::AssertContains { .. })
        ));
        assert!(matches!(
            parse_expectation("断言 页面不包含 \"错误\""),
            Ok(Action::AssertNotContains { .. })
        ));
        let (m, _) = parse_expectation("tap \"Confirm\"").unwrap_err();
        assert!(m.contains("acts on the screen"), "{m}");
        assert!(parse_expectation("assert the moon").is_err());
        assert!(parse_expectation("").is_err());
        assert!(parse_expectation("assert screen contains \"a\"\ntap \"b\"").is_err());
    }
}
