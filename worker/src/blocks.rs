//! Walks a planned script through its blocks: each step in order, a `repeat` block's body
//! once per iteration, an `if` block's branch chosen by its condition on the screen the run
//! sees when it reaches it.
//!
//! What the report shows: an `if` is a step of its own (`if screen contains "X"`) with one
//! action of kind `if` whose detail says whether the text was on screen and which branch
//! runs; a step inside a block carries its place in its text — `repeat 2/3 › press Enter`,
//! `then › tap "Accept"`, `else › wait 1s` (nested: `repeat 1/2 › then › …`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use argus_protocol::script::{Condition, ScriptStep, Step};
use argus_protocol::{ActionTimings, EventBody, FailureClass, RunStatus};
use chrono::Utc;

use crate::agent::state::AgentState;
use crate::run::exec::Exec;
use crate::run::outcome::{ms, StepFail};
use crate::run::record::{Record, RecordKind};

/// One block being walked: its steps, the next one, the text its steps carry in front, and
/// for a `repeat` which iteration this is.
struct Frame<'s> {
    steps: Vec<(&'s str, &'s Step)>,
    next: usize,
    prefix: String,
    repeat: Option<Repeat>,
}

struct Repeat {
    done: u32,
    times: u32,
    outer: String,
}

impl<'s> Frame<'s> {
    fn of(body: &'s [ScriptStep], prefix: String, repeat: Option<Repeat>) -> Frame<'s> {
        Frame {
            steps: body.iter().map(|s| (s.text.as_str(), &s.step)).collect(),
            next: 0,
            prefix,
            repeat,
        }
    }
}

fn iteration(outer: &str, done: u32, times: u32) -> String {
    format!("{outer}repeat {done}/{times} › ")
}

/// Runs `steps` (a plan's top level) to a status, its error and failure class (see
/// [`StepFail::ends_run`]); stops at the first failing step.
pub(crate) async fn run_steps(
    exec: &mut Exec<'_, AgentState>,
    steps: &[(String, Step)],
    cancel: &AtomicBool,
) -> (RunStatus, Option<String>, Option<FailureClass>) {
    let mut stack = vec![Frame {
        steps: steps.iter().map(|(t, s)| (t.as_str(), s)).collect(),
        next: 0,
        prefix: String::new(),
        repeat: None,
    }];
    while let Some(top) = stack.last_mut() {
        let Some(&(text, step)) = top.steps.get(top.next) else {
            match &mut top.repeat {
                Some(r) if r.done < r.times => {
                    r.done += 1;
                    top.prefix = iteration(&r.outer, r.done, r.times);
                    top.next = 0;
                }
                _ => {
                    stack.pop();
                }
            }
            continue;
        };
        top.next += 1;
        let prefix = top.prefix.clone();
        if cancel.load(Ordering::Relaxed) {
            return (
                RunStatus::Cancelled,
                Some("cancelled before step".into()),
                None,
            );
        }
        let res = match step {
            Step::Ai { instruction } => exec.agent_task(instruction).await,
            Step::Act(action) => exec.script_step(&format!("{prefix}{text}"), action).await,
            Step::Repeat { times, body } => {
                stack.push(Frame::of(
                    body,
                    iteration(&prefix, 1, *times),
                    Some(Repeat {
                        done: 1,
                        times: *times,
                        outer: prefix,
                    }),
                ));
                Ok(())
            }
            Step::If {
                condition,
                then,
                otherwise,
            } => match exec
                .condition(&format!("{prefix}{text}"), condition, !otherwise.is_empty())
                .await
            {
                Ok(true) => {
                    stack.push(Frame::of(then, format!("{prefix}then › "), None));
                    Ok(())
                }
                Ok(false) => {
                    stack.push(Frame::of(otherwise, format!("{prefix}else › "), None));
                    Ok(())
                }
                Err(e) => Err(e),
            },
        };
        match res {
            Ok(()) => {}
            Err(StepFail::Cancelled) => {
                return (
                    RunStatus::Cancelled,
                    Some("cancelled during the step".into()),
                    None,
                )
            }
            Err(f) => {
                let (status, class) = f.ends_run();
                return (status, Some(f.message()), class);
            }
        }
    }
    (RunStatus::Succeeded, None, None)
}

impl Exec<'_, AgentState> {
    /// An `if` block's check as one step with one `if` action: observes the screen (after
    /// the popup policy), screenshots it, and answers whether the condition holds.
    async fn condition(
        &mut self,
        text: &str,
        cond: &Condition,
        has_else: bool,
    ) -> Result<bool, StepFail> {
        let i = self.rec.begin_step(text).await?;
        let start = Instant::now();
        let res = self.check(i, cond, has_else).await;
        let err = res.as_ref().err().map(StepFail::message);
        self.rec.end_step(i, err, start).await;
        res.map_err(|e| e.context(&format!("step {} ({text})", i + 1)))
    }

    async fn check(
        &mut self,
        index: u32,
        cond: &Condition,
        has_else: bool,
    ) -> Result<bool, StepFail> {
        let mut idx = 0;
        let start = Instant::now();
        let mut obs = self.ctx.observe().await;
        if let Ok(o) = &obs {
            if self.popup_pass(index, o).await? {
                idx = 1;
                obs = self.ctx.observe().await;
            }
        }
        let obs = obs.map_err(|e| StepFail::Device(format!("cannot observe the screen: {e}")))?;
        let mut t = ActionTimings {
            perceive_ms: ms(start),
            ..Default::default()
        };
        let started_at = Utc::now();
        let mask = self.ctx.mask_for(&obs);
        let before_key = self.ctx.shot(index, idx, "before", &mask, &mut t).await;
        let shown = obs.contains_text(&cond.text);
        let holds = cond.holds(shown);
        let branch = match (holds, has_else) {
            (true, _) => "the then-block runs",
            (false, true) => "the else-block runs",
            (false, false) => "the block is skipped",
        };
        let detail = format!(
            "{cond}: {} → {branch}",
            if shown { "shown" } else { "not shown" }
        );
        // The check changes nothing: the screen after it is the one it read.
        let rec = Record::new(index, idx, RecordKind::If, detail, started_at)
            .shots(before_key.clone(), before_key)
            .timings(t)
            .on(Some(&obs))
            .done();
        tracing::info!(run_id = %self.ctx.run_id, step = index, holds, "if condition checked");
        self.rec
            .em
            .emit(EventBody::ActionFinished(Box::new(rec)))
            .await
            .map_err(StepFail::Infra)?;
        Ok(holds)
    }
}
