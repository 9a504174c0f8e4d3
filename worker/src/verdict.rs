//! The run's verdict: its expectations (the job's, and the checkable clauses of a
//! natural-language instruction), reported before the first action and checked with the
//! deterministic matcher on fresh observations at the end (see `argus_protocol::expect`).
//!
//! [`decide`] is the pure rule; [`Exec::verdict`] runs the checks around it: it waits
//! (bounded by the job's auto-wait) until the text expectations hold on one observation,
//! then runs each expectation as a step of its own (`expectation 1/2: assert screen
//! contains "…"`, with before/after screenshots and the matched element), so the report
//! shows what decided.

use std::time::{Duration, Instant};

use argus_perception::Observation;
use argus_protocol::{Action, EventBody, Expectation, ExpectationSource, Mode, RunStatus, Verdict};

use crate::executor::{Exec, StepFail};

/// One expectation of the run with its check.
#[derive(Debug, Clone)]
pub(crate) struct Expected {
    /// As reported.
    pub(crate) exp: Expectation,
    /// Its parsed check.
    pub(crate) check: Action,
}

/// What the end-of-run checks found, for [`decide`].
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// Expectations that held: (line, step, action, observation).
    pub(crate) held: Vec<(String, u32, u32, Option<u64>)>,
    /// The first that did not: (line, why, step, action, observation).
    pub(crate) failed: Option<(String, String, u32, u32, Option<u64>)>,
}

/// The verdict of a run whose steps all passed.
///
/// - an expectation failed → `failed`, naming it;
/// - none to check → `unverified` in `llm` / `vlm` mode (the steps were the model's
///   choice; its "done" is only a claim), `succeeded` in `script` mode (every step was a
///   deterministic resolution or check);
/// - a checkable clause nobody could turn into a check → `unverified`, naming it;
/// - otherwise `succeeded`.
pub(crate) fn decide(
    mode: Mode,
    checked: &Checked,
    unmapped: &[String],
    claim: Option<String>,
) -> (RunStatus, Option<String>, Verdict) {
    if let Some((line, why, step, action, obs)) = &checked.failed {
        let basis = format!(
            "expectation `{line}` did not hold{}",
            obs.map(|o| format!(" on observation {o}"))
                .unwrap_or_default()
        );
        return (
            RunStatus::Failed,
            Some(format!("{basis}: {why}")),
            Verdict {
                basis,
                expectation: Some(line.clone()),
                step: Some(*step),
                action: Some(*action),
                observation: *obs,
                claim,
            },
        );
    }
    if let Some(clause) = unmapped.first() {
        let basis = format!(
            "the instruction's check {clause:?} could not be turned into an expectation; {} other expectation(s) held",
            checked.held.len()
        );
        return (
            RunStatus::Unverified,
            Some(basis.clone()),
            Verdict {
                basis,
                claim,
                ..Default::default()
            },
        );
    }
    match checked.held.last() {
        None if mode == Mode::Script => (
            RunStatus::Succeeded,
            None,
            Verdict {
                basis: "every step of the script passed (no job expectations)".into(),
                claim,
                ..Default::default()
            },
        ),
        None => {
            let basis = "no expectation to check: the instruction has no checkable clause (confirm…, make sure…, should show…, 确认…) and the job no `expectations`; the model's \"done\" is only a claim".to_string();
            (
                RunStatus::Unverified,
                Some(basis.clone()),
                Verdict {
                    basis,
                    claim,
                    ..Default::default()
                },
            )
        }
        Some((line, step, action, obs)) => (
            RunStatus::Succeeded,
            None,
            Verdict {
                basis: format!(
                    "{n} of {n} expectation(s) held{}",
                    obs.map(|o| format!(" (the last on observation {o})"))
                        .unwrap_or_default(),
                    n = checked.held.len()
                ),
                expectation: Some(line.clone()),
                step: Some(*step),
                action: Some(*action),
                observation: *obs,
                claim,
            },
        ),
    }
}

/// The run's expectations known before it starts: the job's, then (in `llm` / `vlm` mode)
/// the instruction's checkable clauses whose words say what to check. Returns them and the
/// clauses only the planner can map (it sees the screen).
pub(crate) fn initial(spec: &argus_protocol::JobSpec) -> (Vec<Expected>, Vec<String>) {
    let mut out: Vec<Expected> = spec
        .expectation_checks()
        .unwrap_or_default()
        .into_iter()
        .map(|(line, check)| Expected {
            exp: Expectation {
                line,
                source: ExpectationSource::Job,
                clause: None,
            },
            check,
        })
        .collect();
    let mut unmapped = Vec::new();
    if spec.mode != Mode::Script {
        let instruction = spec
            .instruction_with_vars()
            .unwrap_or_else(|_| spec.instruction.clone());
        for c in crate::agent::clauses::checkable(&instruction) {
            let mapped = from_clause(&c.text, &c.checks);
            if mapped.is_empty() {
                unmapped.push(c.text);
            }
            out.extend(mapped);
        }
    }
    (out, unmapped)
}

/// The parseable check lines of one clause as expectations.
pub(crate) fn from_clause(clause: &str, lines: &[String]) -> Vec<Expected> {
    lines
        .iter()
        .filter_map(|l| {
            argus_protocol::expect::parse_expectation(l)
                .ok()
                .map(|check| Expected {
                    exp: Expectation {
                        line: l.clone(),
                        source: ExpectationSource::Instruction,
                        clause: Some(clause.to_string()),
                    },
                    check,
                })
        })
        .collect()
}

/// Whether `check` holds on `obs`, where that can be said from the text alone (`None`:
/// it needs the target resolver; the check's own step says).
fn quick_holds(check: &Action, obs: &Observation) -> Option<bool> {
    match check {
        Action::AssertContains { text } | Action::WaitFor { text, .. } => {
            Some(obs.contains_text(text))
        }
        Action::AssertNotContains { text } => Some(!obs.contains_text(text)),
        _ => None,
    }
}

impl Exec<'_> {
    /// Adds expectations not already in the run's list (by line).
    pub(crate) fn add_expected(&mut self, found: Vec<Expected>) {
        for e in found {
            if !self.expected.iter().any(|x| x.exp.line == e.exp.line) {
                self.expected.push(e);
            }
        }
    }

    /// Reports the run's expectations (again, when the planner added some: the later list
    /// replaces the earlier).
    pub(crate) async fn send_expectations(&mut self) -> Result<(), StepFail> {
        let items: Vec<Expectation> = self.expected.iter().map(|e| e.exp.clone()).collect();
        if items.is_empty() || self.expectations_sent == items.len() {
            return Ok(());
        }
        self.expectations_sent = items.len();
        self.em
            .emit(EventBody::Expectations { items })
            .await
            .map_err(StepFail::Infra)
    }

    /// Checks every expectation on fresh observations and decides the verdict of a run whose
    /// steps all passed.
    pub(crate) async fn verdict(&mut self) -> (RunStatus, Option<String>, Verdict) {
        if let Err(e) = self.send_expectations().await {
            return (RunStatus::Errored, Some(e.message()), Verdict::default());
        }
        let mut checked = Checked::default();
        if !self.expected.is_empty() {
            self.settle().await;
        }
        let expected = self.expected.clone();
        for (k, e) in expected.iter().enumerate() {
            let text = format!("expectation {}/{}: {}", k + 1, expected.len(), e.exp.line);
            let step = self.next_step;
            match self.script_step(&text, &e.check).await {
                Ok(()) => checked
                    .held
                    .push((e.exp.line.clone(), step, 0, self.last_observation)),
                Err(StepFail::Verdict(why)) => {
                    checked.failed =
                        Some((e.exp.line.clone(), why, step, 0, self.last_observation));
                    break;
                }
                Err(StepFail::Infra(m)) => {
                    return (RunStatus::Errored, Some(m), Verdict::default());
                }
                Err(StepFail::Cancelled) => {
                    return (
                        RunStatus::Cancelled,
                        Some("cancelled while checking the expectations".into()),
                        Verdict::default(),
                    );
                }
            }
        }
        let unmapped = self.unmapped.clone();
        decide(self.spec.mode, &checked, &unmapped, self.claim.clone())
    }

    /// Waits (at most the job's auto-wait) until every text expectation holds on one
    /// observation: the last action's effect may still be rendering.
    async fn settle(&mut self) {
        let limit = Duration::from_millis(self.spec.auto_wait_ms.unwrap_or(5_000).min(10_000));
        let start = Instant::now();
        loop {
            let Ok(obs) = self.observe().await else {
                return;
            };
            let all = self
                .expected
                .iter()
                .all(|e| quick_holds(&e.check, &obs).unwrap_or(true));
            if all || start.elapsed() >= limit {
                return;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_is_earned() {
        let none = Checked::default();
        let (s, _, v) = decide(Mode::Llm, &none, &[], Some("all done".into()));
        assert_eq!(s, RunStatus::Unverified);
        assert_eq!(v.claim.as_deref(), Some("all done"));
        assert_eq!(
            decide(Mode::Script, &none, &[], None).0,
            RunStatus::Succeeded
        );
        let held = Checked {
            held: vec![("assert screen contains \"x\"".into(), 3, 0, Some(9))],
            failed: None,
        };
        let (s, e, v) = decide(Mode::Llm, &held, &[], None);
        assert_eq!((s, e), (RunStatus::Succeeded, None));
        assert_eq!((v.step, v.observation), (Some(3), Some(9)));
        let (s, e, _) = decide(Mode::Llm, &held, &["check that it works".into()], None);
        assert_eq!(s, RunStatus::Unverified);
        assert!(e.unwrap_or_default().contains("check that it works"));
        let failed = Checked {
            held: held.held.clone(),
            failed: Some((
                "assert screen contains \"y\"".into(),
                "not shown".into(),
                4,
                0,
                Some(11),
            )),
        };
        let (s, e, v) = decide(Mode::Script, &failed, &[], None);
        assert_eq!(s, RunStatus::Failed);
        assert!(e
            .unwrap_or_default()
            .contains("assert screen contains \"y\""));
        assert_eq!(
            v.expectation.as_deref(),
            Some("assert screen contains \"y\"")
        );
    }
}
