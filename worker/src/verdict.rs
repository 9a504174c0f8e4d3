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

use argus_protocol::{Action, ExpectationSource, Mode, RunStatus, Verdict};

use crate::agent::expect::{quick_holds, screen_texts};
use crate::agent::state::AgentState;
use crate::run::exec::Exec;
use crate::run::outcome::StepFail;

/// What the end-of-run checks found, for [`decide`].
#[derive(Debug, Default)]
pub(crate) struct Checked {
    /// Expectations that held: (line, step, action, observation).
    pub(crate) held: Vec<(String, u32, u32, Option<u64>)>,
    /// The first that did not: (line, why, step, action, observation).
    pub(crate) failed: Option<(String, String, u32, u32, Option<u64>)>,
    /// How many of `held` are effects the instruction names (`ExpectationSource::Effect`),
    /// or counts of list items read from it ([`weak_count`]): they do not earn `succeeded`
    /// on their own.
    pub(crate) held_effects: usize,
}

/// Whether `e` is a count of list items read from the instruction ("make sure three are
/// still open"): it can fail a run, never pass one alone — the right count with the wrong
/// items ticked holds too (measured: a run that unticked and ticked the wrong two of five
/// todos kept "没打勾的应该正好三条" true). A job's own count expectation is the user's word
/// and counts in full.
fn weak_count(e: &crate::agent::expect::Expected) -> bool {
    matches!(e.check, argus_protocol::Action::AssertItems { .. })
        && e.exp.source != ExpectationSource::Job
}

/// The verdict of a run whose steps all passed.
///
/// - an expectation failed → `failed`, naming it;
/// - none to check → `unverified` in `llm` / `vlm` mode (the steps were the model's
///   choice; its "done" is only a claim), `succeeded` in `script` mode (every step was a
///   deterministic resolution or check);
/// - a checkable clause nobody could turn into a check → `unverified`, naming it;
/// - only effects the instruction names held (no job expectation, no checkable clause) →
///   `unverified` in `llm` / `vlm` mode: the effects are guards, not the verdict's evidence;
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
    let earned = checked.held.len().saturating_sub(checked.held_effects);
    if earned == 0 && checked.held_effects > 0 && mode != Mode::Script {
        let basis = format!(
            "no expectation to check: the instruction has no checkable clause (confirm…, make sure…, should show…, 确认…) but counts of list items, and the job no `expectations`; the {} effect(s) and count(s) it names held (they can fail a run, never pass one), and the model's \"done\" is only a claim",
            checked.held_effects
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

/// The verdict after the judge (see `agent::judge`): an `unverified` run the judge found
/// not done is `failed` with its reason; one it found done stays `unverified`, the judge's
/// "done" recorded as a claim beside the model's; no answer changes nothing.
pub(crate) fn judged_verdict(
    decided: (RunStatus, Option<String>, Verdict),
    judged: Option<&crate::agent::judge::Judgement>,
    observation: Option<u64>,
) -> (RunStatus, Option<String>, Verdict) {
    let (status, error, mut v) = decided;
    match judged {
        Some(j) if !j.done => {
            let basis = format!(
                "the judge found the job not done{}: {} (evidence on the screen: {:?})",
                observation
                    .map(|o| format!(" on observation {o}"))
                    .unwrap_or_default(),
                j.reason,
                j.evidence
            );
            v.basis = format!("{basis} (and {})", v.basis);
            v.observation = observation;
            (RunStatus::Failed, Some(basis), v)
        }
        Some(j) => {
            let said = format!("the judge said done: {}", j.reason);
            v.claim = Some(match v.claim.take() {
                Some(c) => format!("{c}; {said}"),
                None => said,
            });
            (status, error, v)
        }
        None => (status, error, v),
    }
}

impl Exec<'_, AgentState> {
    /// Checks every expectation on fresh observations and decides the verdict of a run whose
    /// steps all passed.
    pub(crate) async fn verdict(&mut self) -> (RunStatus, Option<String>, Verdict) {
        if let Err(e) = self.send_expectations().await {
            self.rec.ended_by = e.ends_run().1;
            return (RunStatus::Errored, Some(e.message()), Verdict::default());
        }
        let mut checked = Checked::default();
        if !self.st.expected.is_empty() {
            self.settle().await;
        }
        let expected = self.st.expected.clone();
        for (k, e) in expected.iter().enumerate() {
            let text = format!("expectation {}/{}: {}", k + 1, expected.len(), e.exp.line);
            let step = self.rec.next_step;
            match self.script_step(&text, &e.check).await {
                Ok(()) => {
                    checked
                        .held
                        .push((e.exp.line.clone(), step, 0, self.rec.last_observation));
                    if e.exp.source == ExpectationSource::Effect || weak_count(e) {
                        checked.held_effects += 1;
                    }
                }
                Err(StepFail::Verdict(why)) => {
                    checked.failed =
                        Some((e.exp.line.clone(), why, step, 0, self.rec.last_observation));
                    break;
                }
                Err(f @ (StepFail::Device(_) | StepFail::Infra(_))) => {
                    self.rec.ended_by = f.ends_run().1;
                    return (RunStatus::Errored, Some(f.message()), Verdict::default());
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
        if checked.failed.is_none() {
            checked.failed = self.negatives_without_the_app().await;
        }
        let unmapped = self.st.unmapped.clone();
        let decided = decide(
            self.ctx.spec.mode,
            &checked,
            &unmapped,
            self.st.claim.clone(),
        );
        let decided = self.with_unsure(self.with_planner_checks(self.with_named_presses(decided)));
        if decided.0 != RunStatus::Unverified
            || self.ctx.spec.mode == Mode::Script
            || !self.ctx.env.config.judge
        {
            return decided;
        }
        let task = self
            .ctx
            .spec
            .instruction_with_vars()
            .unwrap_or_else(|_| self.ctx.spec.instruction.clone());
        let judged = self.judge(&task).await;
        if self.ctx.cancel.load(std::sync::atomic::Ordering::Relaxed) {
            return (
                RunStatus::Cancelled,
                Some("cancelled while the judge looked at the run".into()),
                decided.2,
            );
        }
        judged_verdict(decided, judged.as_ref(), self.rec.last_observation)
    }

    /// A run that would end `succeeded` while a check step the planner added did not hold
    /// ends `unverified`, naming it: the expectations held, but the run saw something the
    /// model expected otherwise (never a pass on that evidence, never a failure on a check
    /// nobody asked for).
    fn with_planner_checks(
        &self,
        decided: (RunStatus, Option<String>, Verdict),
    ) -> (RunStatus, Option<String>, Verdict) {
        let (status, error, mut v) = decided;
        match self.st.planner_checks_failed.first() {
            Some(why) if status == RunStatus::Succeeded => {
                let basis = format!(
                    "{}, but a check step the planner added did not hold: {why}",
                    v.basis
                );
                v.basis = basis.clone();
                (RunStatus::Unverified, Some(basis), v)
            }
            _ => (status, error, v),
        }
    }

    /// A run that would end `succeeded` on a read plan that left an item as it was though a
    /// description names it (`AgentState::unsure`) ends `unverified`, naming the clause:
    /// whether it asked for a change Argus cannot tell. So does one whose read plan skipped
    /// a free step the model could not carry out (`AgentState::skipped`).
    fn with_unsure(
        &self,
        decided: (RunStatus, Option<String>, Verdict),
    ) -> (RunStatus, Option<String>, Verdict) {
        let (status, error, mut v) = decided;
        if let Some(step) = self
            .st
            .skipped
            .first()
            .filter(|_| status == RunStatus::Succeeded)
        {
            let basis = format!(
                "{}, but the step {step:?} was skipped: the model could not carry it out",
                v.basis
            );
            v.basis = basis.clone();
            return (RunStatus::Unverified, Some(basis), v);
        }
        match self.st.unsure.first() {
            Some((clause, item)) if status == RunStatus::Succeeded => {
                let basis = format!(
                    "{}, but the instruction's clause {clause:?} speaks of {item:?}, which the plan left as it was: whether it asks for a change Argus cannot tell",
                    v.basis
                );
                v.basis = basis.clone();
                (RunStatus::Unverified, Some(basis), v)
            }
            _ => (status, error, v),
        }
    }

    /// A natural-language run that would end `succeeded` but never pressed a control its
    /// instruction says to press (see `agent::presses`) ends `failed`, naming it; one that
    /// pressed Enter instead (its last input) ends `unverified`.
    fn with_named_presses(
        &self,
        decided: (RunStatus, Option<String>, Verdict),
    ) -> (RunStatus, Option<String>, Verdict) {
        let (status, error, mut v) = decided;
        let (Some(start), true) = (
            self.ctx.start_obs.as_ref(),
            status == RunStatus::Succeeded && self.ctx.spec.mode != Mode::Script,
        ) else {
            return (status, error, v);
        };
        let task = self
            .ctx
            .spec
            .instruction_with_vars()
            .unwrap_or_else(|_| self.ctx.spec.instruction.clone());
        // "hold off on clicking Login" names a control the run must NOT press.
        let forbidden = crate::agent::plan_typed::forbidden_presses(&task);
        let mut named = crate::agent::presses::named(&task, start);
        named.retain(|n| !forbidden.contains(&n.to_lowercase()));
        let (tapped, entered) = self.rec.em.presses();
        match crate::agent::presses::missed(&named, tapped) {
            // Enter in place of the control: whether it did the same Argus cannot tell (keys
            // are not effect-checked; measured: Enter in a web form whose Submit is a
            // clickable text submitted nothing, and the run ended `succeeded`).
            Some(m) if entered => {
                let basis = format!(
                    "the instruction says to press {m:?}; the run pressed Enter instead, which may not do the same ({})",
                    v.basis
                );
                v.basis = basis.clone();
                (RunStatus::Unverified, Some(basis), v)
            }
            Some(m) => {
                let basis = format!(
                    "the instruction says to press {m:?} and the run never did ({})",
                    v.basis
                );
                v.basis = basis.clone();
                (RunStatus::Failed, Some(basis), v)
            }
            None => (status, error, v),
        }
    }

    /// A "does not contain" expectation that held on a screen that shows none of the texts
    /// the run's first plan saw, in a run whose model steps went back or opened a page (the
    /// app is gone: a navigation away, a blank page): the absence proves nothing, so it
    /// counts as not held. A run that moved on by the app's own controls (a sign-in that
    /// opens a dashboard) is not judged by this rule. Measured: a small model's plan
    /// ended with `go back`, and "the list no longer shows X" held on the page before.
    async fn negatives_without_the_app(
        &mut self,
    ) -> Option<(String, String, u32, u32, Option<u64>)> {
        let negatives: Vec<(String, String)> = self
            .st
            .expected
            .iter()
            .filter_map(|e| match &e.check {
                Action::AssertNotContains { text } => Some((e.exp.line.clone(), text.clone())),
                _ => None,
            })
            .collect();
        let start = self
            .ctx
            .start_obs
            .as_ref()
            .map(screen_texts)
            .unwrap_or_default();
        if negatives.is_empty() || start.is_empty() || !self.ctx.left_the_screen {
            return None;
        }
        let obs = self.ctx.observe().await.ok()?;
        let now = screen_texts(&obs);
        for (line, text) in negatives {
            let anchored = start
                .iter()
                .any(|t| !t.contains(text.as_str()) && now.contains(t));
            if !anchored {
                return Some((
                    line,
                    "it held only on a screen that shows none of the texts the run started on (the app is no longer on the screen)".into(),
                    self.rec.next_step.saturating_sub(1),
                    0,
                    Some(obs.serial),
                ));
            }
        }
        None
    }

    /// Waits (at most the job's auto-wait) until every text expectation holds on one
    /// observation: the last action's effect may still be rendering.
    async fn settle(&mut self) {
        let limit = Duration::from_millis(self.ctx.spec.auto_wait_ms.unwrap_or(5_000).min(10_000));
        let start = Instant::now();
        loop {
            let Ok(obs) = self.ctx.observe().await else {
                return;
            };
            let all = self
                .st
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
    fn the_judge_can_fail_a_run_but_never_pass_it() {
        use crate::agent::judge::Judgement;
        let unverified = decide(
            Mode::Llm,
            &Checked::default(),
            &[],
            Some("model: done".into()),
        );
        assert_eq!(unverified.0, RunStatus::Unverified);
        let no = Judgement {
            done: false,
            reason: "the list still shows 'a'".into(),
            evidence: "a".into(),
        };
        let (s, e, v) = judged_verdict(unverified.clone(), Some(&no), Some(7));
        assert_eq!(s, RunStatus::Failed);
        assert!(e.unwrap().contains("still shows 'a'"));
        assert!(v
            .basis
            .starts_with("the judge found the job not done on observation 7"));
        assert_eq!(v.observation, Some(7));
        let yes = Judgement {
            done: true,
            reason: "the list is empty".into(),
            evidence: String::new(),
        };
        let (s, _, v) = judged_verdict(unverified.clone(), Some(&yes), Some(7));
        assert_eq!(s, RunStatus::Unverified);
        assert_eq!(
            v.claim.as_deref(),
            Some("model: done; the judge said done: the list is empty")
        );
        assert_eq!(
            judged_verdict(unverified.clone(), None, None).0,
            RunStatus::Unverified
        );
    }

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
            held_effects: 0,
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
            held_effects: 0,
        };
        // Effects alone never earn `succeeded` in llm mode; in script mode nothing adds them.
        let effects_only = Checked {
            held_effects: 1,
            ..Checked {
                held: held.held.clone(),
                ..Default::default()
            }
        };
        let (s, e, _) = decide(Mode::Llm, &effects_only, &[], None);
        assert_eq!(s, RunStatus::Unverified);
        assert!(e
            .unwrap_or_default()
            .contains("1 effect(s) and count(s) it names held"));
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
