//! One planned step carried out by the model, action by action: the step's state (a
//! [`Turn`]) and the pure decisions over it, testable without a device or a model. The I/O
//! around them (observe, ask, act, record) lives in `run.rs`.
//!
//! The rules, in the order they apply to each call:
//! - before asking: a cancel, a spent `max_steps` or the step's action budget end the step
//!   ([`Turn::before`]);
//! - a call that already failed or changed nothing [`MAX_FRUITLESS_REPEATS`] times, or a
//!   second tap on a toggle this step already tapped, is not sent ([`refusal`]); two refusals
//!   or bad outcomes in a row, or a repeat, escalate to a re-plan ([`Turn::refused`]);
//! - after acting: `finish`, `fail` and failed checks the step asks for end it
//!   ([`step_end`]); a check the model chose on its own that failed, and B/C reflections,
//!   count as bad outcomes; a progress answer (or the step's own rule) ends it as done
//!   ([`Turn::next`]).

use argus_protocol::{Action, ReflectClass};

use crate::run::outcome::{Outcome, StepFail};

/// How often the same action on the same target may fail or change nothing before it is
/// refused.
pub const MAX_FRUITLESS_REPEATS: u32 = 2;

/// How a planned step ended (when it did not fail the run).
#[derive(Debug, PartialEq)]
pub(crate) enum StepEnd {
    Done,
    /// The progress check says the whole job is done: the rest of the plan is skipped.
    JobDone,
    /// Two consecutive B/C outcomes or the step's action budget: re-plan with these.
    Escalate(Vec<String>),
}

/// The progress check's answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Progress {
    pub(crate) step_done: bool,
    pub(crate) job_done: bool,
}

impl Progress {
    pub(crate) fn describe(self) -> &'static str {
        match (self.step_done, self.job_done) {
            (true, true) => "step done, job done",
            (true, false) => "step done",
            (false, true) => "job done but not the step (ignored)",
            (false, false) => "step not done yet",
        }
    }
}

/// One planned step in progress.
pub(crate) struct Turn<'p> {
    /// The step's index in the run.
    pub(crate) step: u32,
    /// The job's instruction.
    pub(crate) task: &'p str,
    /// The plan and this step's place in it.
    pub(crate) plan: &'p [String],
    pub(crate) i: usize,
    /// The first action index the model's calls take (after a script line's attempt).
    pub(crate) first_action: u32,
    /// Most actions this step may take.
    pub(crate) budget: u32,
    /// The next action index.
    pub(crate) action: u32,
    /// One line per call so far, for the next prompt.
    pub(crate) history: Vec<String>,
    /// Failed attempts, for a re-plan.
    pub(crate) failures: Vec<String>,
    /// Bad outcomes (refusals, B/C, stray failed checks) in a row.
    pub(crate) bad_in_a_row: u32,
    /// Toggles (by tree path and role) this step already tapped: a second tap would undo it.
    pub(crate) toggled: Vec<String>,
}

/// What one sent call's outcome says, for [`Turn::next`].
pub(crate) struct Facts {
    /// The history line of the call.
    pub(crate) summary: String,
    /// The step (and job) done, by rule or by the progress check.
    pub(crate) progress: Option<Progress>,
    /// A check the model chose on its own failed.
    pub(crate) stray_check_failed: bool,
    /// The reflector's class, when the call acted and was delivered.
    pub(crate) class: Option<ReflectClass>,
}

impl<'p> Turn<'p> {
    pub(crate) fn new(
        step: u32,
        task: &'p str,
        plan: &'p [String],
        i: usize,
        first_action: u32,
        step_actions: u32,
    ) -> Turn<'p> {
        Turn {
            step,
            task,
            plan,
            i,
            first_action,
            budget: step_actions.max(1) + first_action,
            action: first_action,
            history: Vec::new(),
            failures: Vec::new(),
            bad_in_a_row: 0,
            toggled: Vec::new(),
        }
    }

    /// The planned step's text.
    pub(crate) fn text(&self) -> &str {
        &self.plan[self.i]
    }

    /// What ends the step before the next call is asked for.
    pub(crate) fn before(
        &mut self,
        cancelled: bool,
        actions_taken: u32,
        max_steps: u32,
    ) -> Option<Result<StepEnd, StepFail>> {
        if cancelled {
            return Some(Err(StepFail::Cancelled));
        }
        if actions_taken >= max_steps {
            return Some(Err(StepFail::Verdict(format!(
                "the step budget is spent: max_steps = {max_steps} actions"
            ))));
        }
        if self.action >= self.budget {
            self.failures.push(format!(
                "step {:?} took {} actions without finishing",
                self.text(),
                self.budget
            ));
            return Some(Ok(StepEnd::Escalate(std::mem::take(&mut self.failures))));
        }
        None
    }

    /// A call that was not sent (`why`): recorded as a failed attempt; a repeat or a second
    /// bad outcome in a row escalates.
    pub(crate) fn refused(&mut self, why: String, repeated: bool) -> Option<StepEnd> {
        self.failures.push(why.clone());
        self.history.push(format!("- {why}"));
        self.action += 1;
        self.bad_in_a_row += 1;
        (repeated || self.bad_in_a_row >= 2)
            .then(|| StepEnd::Escalate(std::mem::take(&mut self.failures)))
    }

    /// After a sent call that did not end the step by [`step_end`]: done by progress, or
    /// escalate after a second bad outcome in a row; `None` to go on.
    pub(crate) fn next(&mut self, f: Facts) -> Option<StepEnd> {
        if f.stray_check_failed {
            return self.bad(f.summary);
        }
        match f.progress {
            Some(Progress {
                step_done: true,
                job_done: true,
            }) => return Some(StepEnd::JobDone),
            Some(Progress {
                step_done: true, ..
            }) => return Some(StepEnd::Done),
            _ => {}
        }
        match f.class {
            Some(ReflectClass::B) | Some(ReflectClass::C) => self.bad(f.summary),
            Some(ReflectClass::A) => {
                self.bad_in_a_row = 0;
                None
            }
            None => None,
        }
    }

    fn bad(&mut self, summary: String) -> Option<StepEnd> {
        self.bad_in_a_row += 1;
        self.failures.push(summary);
        (self.bad_in_a_row >= 2).then(|| StepEnd::Escalate(std::mem::take(&mut self.failures)))
    }
}

/// Why a call is not sent: it already failed or changed nothing `count` ≥
/// [`MAX_FRUITLESS_REPEATS`] times (`true`: a repeat), or it taps a toggle (`toggle`) this
/// step already tapped.
pub(crate) fn refusal(
    signature: &str,
    count: u32,
    toggle: Option<&String>,
    toggled: &[String],
) -> Option<(String, bool)> {
    if count >= MAX_FRUITLESS_REPEATS {
        // Never a third time: record the refusal and re-plan with it.
        return Some((
            format!(
                "not sent: {signature} already failed or changed nothing {MAX_FRUITLESS_REPEATS} times"
            ),
            true,
        ));
    }
    toggle.filter(|k| toggled.contains(k)).map(|k| {
        let why = if k == DELETE_KEY {
            "a delete control was already pressed in this step; another press would delete another item"
        } else {
            "was already toggled in this step; a second tap would undo it"
        };
        (format!("not sent: {signature}: {why}"), false)
    })
}

/// The key [`refusal`] keeps for any delete control pressed in a step ([`deletes_one`]).
pub(crate) const DELETE_KEY: &str = "delete control";

/// Whether a press on an element of `role` named `name` deletes one thing, in a step
/// (`step_text`) that does not speak of several ("all", "every", "both", "them", 全部, 都):
/// such a step presses a delete control once.
pub(crate) fn deletes_one(role: argus_perception::Role, name: &str, step_text: &str) -> bool {
    let n = name.trim().to_lowercase();
    let control = role == argus_perception::Role::Button
        && ([
            "✖", "×", "✕", "x", "delete", "remove", "destroy", "删除", "删掉",
        ]
        .contains(&n.as_str())
            || n.starts_with("delete ")
            || n.starts_with("remove "));
    let lower = step_text.to_lowercase();
    let several = lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| SEVERAL_EN.contains(&w) || w.parse::<u32>().is_ok_and(|n| n > 1))
        || ["全部", "都", "所有", "和", "、"]
            .iter()
            .any(|w| step_text.contains(w))
        || zh_count(step_text);
    control && !several
}

/// English words of a step that speak of several things: quantifiers, plural row nouns, a
/// count ("the last two items"), two objects joined ("the eggs and the milk").
const SEVERAL_EN: &[&str] = &[
    "all",
    "every",
    "both",
    "them",
    "those",
    "these",
    "each",
    "everything",
    "and",
    "items",
    "ones",
    "lines",
    "entries",
    "rows",
    "tasks",
    "todos",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
];

/// Whether a Chinese step counts more than one row ("最后三条", "这两个", "几项").
fn zh_count(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars
        .windows(2)
        .any(|w| "两二三四五六七八九十几".contains(w[0]) && "条个项行".contains(w[1]))
}

/// Whether this call ends the step: `finish` (done), `fail` and failed checks the step asks
/// for (`asked_check`: the run fails), an infrastructure failure (the run errors).
pub(crate) fn step_end(
    call: &Action,
    out: &Outcome,
    asked_check: bool,
) -> Result<Option<StepEnd>, StepFail> {
    if let Some(f) = out.argus_failure() {
        return Err(f);
    }
    match call {
        Action::Finish { .. } => Ok(Some(StepEnd::Done)),
        Action::Fail { reason } => Err(StepFail::Verdict(format!("the model gave up: {reason}"))),
        _ if call.kind().checks() && !out.ok() && asked_check => {
            Err(StepFail::Verdict(out.error().unwrap_or_default()))
        }
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_presses_one_delete_control_unless_it_speaks_of_several() {
        use argus_perception::Role;
        assert!(deletes_one(Role::Button, "✖", "take that line off"));
        assert!(deletes_one(Role::Button, "Delete", "remove the eggs"));
        assert!(!deletes_one(Role::Button, "✖", "remove all of them"));
        // A count, a plural, two objects: several presses asked for.
        for step in [
            "get rid of the bottom two",
            "bin the finished ones",
            "remove the stamps and the envelopes",
            "delete 3 of the entries",
            "把最后三条删掉",
            "删掉邮票和信封",
        ] {
            assert!(!deletes_one(Role::Button, "✖", step), "{step}");
        }
        assert!(!deletes_one(Role::Button, "Save", "take that line off"));
        assert!(!deletes_one(Role::Link, "Delete", "take that line off"));
        let key = DELETE_KEY.to_string();
        let second = refusal("double_tap e15", 0, Some(&key), std::slice::from_ref(&key));
        assert!(
            second.is_some_and(|(why, repeated)| why.contains("delete another item") && !repeated)
        );
        assert!(refusal("double_tap e15", 0, Some(&key), &[]).is_none());
    }

    fn plan() -> Vec<String> {
        vec!["tap \"Save\"".to_string()]
    }

    fn facts(class: Option<ReflectClass>) -> Facts {
        Facts {
            summary: "tap → ok".into(),
            progress: None,
            stray_check_failed: false,
            class,
        }
    }

    #[test]
    fn two_bad_outcomes_in_a_row_escalate_and_progress_resets_them() {
        let p = plan();
        let mut t = Turn::new(0, "save", &p, 0, 0, 8);
        assert_eq!(t.next(facts(Some(ReflectClass::C))), None);
        assert_eq!(t.next(facts(Some(ReflectClass::A))), None);
        assert_eq!(t.next(facts(Some(ReflectClass::B))), None);
        let end = t.next(facts(Some(ReflectClass::C)));
        assert!(matches!(end, Some(StepEnd::Escalate(f)) if f.len() == 3));
        let mut t = Turn::new(0, "save", &p, 0, 0, 8);
        let mut f = facts(Some(ReflectClass::C));
        f.progress = Some(Progress {
            step_done: true,
            job_done: true,
        });
        assert_eq!(t.next(f), Some(StepEnd::JobDone));
    }

    #[test]
    fn budgets_and_refusals() {
        let p = plan();
        let mut t = Turn::new(0, "save", &p, 0, 2, 1);
        assert!(t.before(false, 0, 50).is_none());
        t.action = 3;
        assert!(matches!(
            t.before(false, 0, 50),
            Some(Ok(StepEnd::Escalate(_)))
        ));
        assert!(matches!(
            t.before(false, 50, 50),
            Some(Err(StepFail::Verdict(_)))
        ));
        assert!(matches!(
            t.before(true, 0, 50),
            Some(Err(StepFail::Cancelled))
        ));
        let (why, repeated) = refusal("tap Save", 2, None, &[]).expect("refused");
        assert!(repeated && why.contains("2 times"));
        let k = "checkbox [1]".to_string();
        assert!(refusal("tap x", 0, Some(&k), std::slice::from_ref(&k)).is_some());
        assert!(refusal("tap x", 1, Some(&k), &[]).is_none());
        let mut t = Turn::new(0, "save", &p, 0, 0, 8);
        assert_eq!(t.refused("no".into(), false), None);
        assert!(matches!(
            t.refused("no".into(), false),
            Some(StepEnd::Escalate(_))
        ));
    }
}
