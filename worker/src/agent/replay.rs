//! Replaying a stored script (learned replay, `argus_protocol::replay`) before any model
//! call: one step per line, each carried out like a script line (the target resolved by name
//! in a fresh observation, waited for until it is uniquely actionable, bounded by the job's
//! auto-wait), recorded with `source: cache`. A line holds when its action succeeded and,
//! for an acting line, the reflector saw progress (class A: neither no change nor the screen
//! replaced by an unrelated one) — learned scripts hold only actions that changed the screen
//! — and the learned `wait for` lines check texts the model's run saw appear. At the first line that does not
//! hold, replay stops and the model takes over from the current screen: the planner is told
//! which lines were done and why the replay stopped.

use std::time::Instant;

use argus_protocol::script::{Script, Step};
use argus_protocol::{Action, ActionSource, ActionTimings, ReflectClass, Reflection};
use chrono::Utc;

use super::reflect::classify;
use super::state::AgentState;
use crate::run::exec::Exec;
use crate::run::outcome::{ms, StepFail};
use crate::run::record::{Record, RecordKind};

/// How a replay ended.
pub(crate) enum Replayed {
    /// Every line held: the task is done with no model call.
    All,
    /// It stopped; the note for the planner says what was done and why.
    HandedOver(String),
}

impl Exec<'_, AgentState> {
    /// Replays `script`; see the module docs. Lines that held are added to the run's
    /// learned lines.
    pub(crate) async fn replay_script(&mut self, script: &str) -> Result<Replayed, StepFail> {
        let parsed = match Script::parse(script) {
            Ok(s) => s,
            Err(e) => {
                return Ok(Replayed::HandedOver(format!(
                    "The stored replay script could not be read ({e}); nothing was replayed."
                )))
            }
        };
        // A stored line is text no one in this job wrote: its secrets follow `crate::secrets::rules`.
        let named = crate::secrets::rules::named_by(self.ctx.spec);
        for st in &parsed.steps {
            if let Step::Act(action) = &st.step {
                crate::secrets::rules::check(action, &named).map_err(|e| {
                    StepFail::Verdict(format!("the stored replay line {:?}: {e}", st.text))
                })?;
            }
        }
        let total = parsed.steps.len();
        let mut done: Vec<String> = Vec::new();
        for (n, st) in parsed.steps.iter().enumerate() {
            let Step::Act(action) = &st.step else {
                return Ok(self.hand_over(&done, n, total, &st.text, "it is not an action"));
            };
            match self.replay_line(n, total, &st.text, action).await? {
                None => {
                    self.st.learned.push(st.text.clone());
                    done.push(st.text.clone());
                }
                Some(why) => return Ok(self.hand_over(&done, n, total, &st.text, &why)),
            }
        }
        tracing::info!(run_id = %self.ctx.run_id, lines = total, "replayed the stored script; no model call");
        Ok(Replayed::All)
    }

    fn hand_over(
        &mut self,
        done: &[String],
        n: usize,
        total: usize,
        line: &str,
        why: &str,
    ) -> Replayed {
        tracing::info!(run_id = %self.ctx.run_id, line = n + 1, total, reason = %why, "replay handed over to the model");
        let done_text = if done.is_empty() {
            "nothing".to_string()
        } else {
            done.iter()
                .enumerate()
                .map(|(i, l)| format!("{}. {l}", i + 1))
                .collect::<Vec<_>>()
                .join("\n")
        };
        Replayed::HandedOver(format!(
            "Part of this job was already done by replaying the steps a previous run stored (no model involved). Done:\n{done_text}\nThe replay stopped at stored step {} of {total} ({line}): {why}. Plan only what remains, from the current screen.",
            n + 1
        ))
    }

    /// One line as one step; `None` when it held, else why not.
    async fn replay_line(
        &mut self,
        n: usize,
        total: usize,
        text: &str,
        action: &Action,
    ) -> Result<Option<String>, StepFail> {
        if self.st.actions_taken >= self.ctx.spec.max_steps && action.kind().acts() {
            return Ok(Some(format!(
                "the step budget is spent (max_steps = {})",
                self.ctx.spec.max_steps
            )));
        }
        let step = self
            .rec
            .begin_step(&format!("replay {}/{total}: {text}", n + 1))
            .await?;
        let start = Instant::now();
        let mut idx = 0;
        let started_at = Utc::now();
        let mut t = ActionTimings::default();
        let s0 = Instant::now();
        let mut obs = self
            .ctx
            .observe()
            .await
            .map_err(|e| StepFail::Device(format!("cannot observe the screen: {e}")))?;
        if self.popup_pass(step, &obs).await? {
            idx = 1;
            obs = self
                .ctx
                .observe()
                .await
                .map_err(|e| StepFail::Device(format!("cannot observe the screen: {e}")))?;
        }
        t.perceive_ms += ms(s0);
        let mut mask = self.ctx.mask_for(&obs);
        let before_key = self.ctx.shot(step, idx, "before", &mask, &mut t).await;
        let acted = self.ctx.act(action, &obs, &mut t).await;
        let (out, after) = (acted.out, acted.after);
        let reflection: Option<Reflection> = match &after {
            Some(a) if action.kind().acts() && out.ok() => Some(classify(&obs, a, text, None)),
            _ => None,
        };
        if let Some(a) = &after {
            mask.extend(self.ctx.mask_for(a));
        }
        let after_key = self.ctx.shot(step, idx, "after", &mask, &mut t).await;
        if let Some(f) = out.argus_failure() {
            end_with(self, step, start, &out.error()).await;
            return Err(f);
        }
        let why = if out.ok() {
            no_progress(reflection.as_ref())
        } else {
            Some(out.error().unwrap_or_else(|| "the step failed".into()))
        };
        let error = why
            .as_ref()
            .map(|w| format!("replay stopped here, the model takes over: {w}"));
        let rec = Record::new(
            step,
            idx,
            RecordKind::Action(action.kind()),
            out.detail.clone(),
            started_at,
        )
        .result(error.clone(), out.disposition)
        .target(out.target.clone())
        .shots(before_key, after_key)
        .timings(t)
        .on(Some(&obs))
        .reflection(reflection)
        .source(Some(ActionSource::Cache));
        self.rec.emit_action(rec.done()).await?;
        if action.kind().acts() {
            self.st.actions_taken += 1;
        }
        end_with(self, step, start, &error).await;
        Ok(why)
    }
}

/// Why an acting line's reflection does not show progress (class B or C), if it does not.
fn no_progress(reflection: Option<&Reflection>) -> Option<String> {
    let r = reflection?;
    match r.class {
        ReflectClass::A => None,
        ReflectClass::B => Some(format!(
            "the screen was replaced by an unrelated one ({})",
            r.note
        )),
        ReflectClass::C => Some(format!("no progress: {}", r.note)),
    }
}

async fn end_with(
    exec: &mut Exec<'_, AgentState>,
    step: u32,
    start: Instant,
    error: &Option<String>,
) {
    exec.rec.end_step(step, error.clone(), start).await;
}
