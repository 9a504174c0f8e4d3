//! One step as one action: observe → the popup policy → pick the action on that
//! observation → screenshot → act (`super::act`) → screenshot → one record; and a script
//! line as a step of its own.

use std::time::Instant;

use argus_perception::Observation;
use argus_protocol::{Action, ActionTimings, EventBody};
use chrono::Utc;

use super::exec::Exec;
use super::outcome::{ms, Outcome, StepFail};
use super::record::{Record, RecordKind};

impl<S> Exec<'_, S> {
    /// One script line as one step with one action.
    pub(crate) async fn script_step(
        &mut self,
        text: &str,
        action: &Action,
    ) -> Result<(), StepFail> {
        let i = self.rec.begin_step(text).await?;
        let start = Instant::now();
        let res = self.run_step(i, action).await;
        let err = res.as_ref().err().map(StepFail::message);
        self.rec.end_step(i, err, start).await;
        res.map_err(|e| e.context(&format!("step {} ({text})", i + 1)))
    }

    /// `action` as the one action of step `index` (after the popup policy), recorded.
    ///
    /// Errors: the action's failure (`Verdict` / `Infra`), or a record that could not be sent.
    pub(crate) async fn run_step(&mut self, index: u32, action: &Action) -> Result<(), StepFail> {
        self.run_step_picked(index, 0, action, |_| Some(action.clone()))
            .await
            .map(|_| ())
    }

    /// [`Self::run_step`] for an action chosen on the step's own fresh observation (an
    /// element id is valid for that observation only): `pick` gets it and answers the
    /// action, or `None` when there is nothing to do (then nothing is recorded and the
    /// answer is `Ok(None)`). `shown` describes the action where the screen could not be
    /// observed. `first` is the action's index within the step (a popup dismissed first
    /// takes it); the answer is the index the next action of the step takes.
    pub(crate) async fn run_step_picked(
        &mut self,
        index: u32,
        first: u32,
        shown: &Action,
        pick: impl FnOnce(&Observation) -> Option<Action>,
    ) -> Result<Option<u32>, StepFail> {
        let mut idx = first;
        let start = Instant::now();
        let mut obs = self.ctx.observe().await;
        let mut observe_ms = ms(start);
        // The popup pass records its dismissal as the step's action 0.
        if let (Ok(o), 0) = (&obs, first) {
            if self.popup_pass(index, o).await? {
                idx = 1;
                let start = Instant::now();
                obs = self.ctx.observe().await;
                observe_ms = ms(start);
            }
        }
        let action = match &obs {
            Ok(o) => match pick(o) {
                Some(a) => a,
                None => return Ok(None),
            },
            Err(_) => shown.clone(),
        };
        let action = &action;
        let started_at = Utc::now();
        let mut t = ActionTimings {
            perceive_ms: observe_ms,
            ..Default::default()
        };
        let mut masks = obs
            .as_ref()
            .map(|o| self.ctx.mask_for(o))
            .unwrap_or_default();
        let before_key = self.ctx.shot(index, idx, "before", &masks, &mut t).await;
        let (out, geometry) = match &obs {
            Ok(obs) => {
                let acted = self.ctx.act(action, obs, &mut t).await;
                if let Some(after) = &acted.after {
                    masks.extend(self.ctx.mask_for(after));
                }
                let (point, swipe) = acted.geometry();
                let screen = obs.screen.device_size();
                (acted.out, (point, swipe, Some([screen.0, screen.1])))
            }
            Err(e) => (
                Outcome::new(action.describe())
                    .fail_device(format!("cannot observe the screen: {e}")),
                (None, None, None),
            ),
        };
        let after_key = self.ctx.shot(index, idx, "after", &masks, &mut t).await;
        let obs = obs.as_ref().ok();
        self.rec.last_observation = obs.map(|o| o.serial);
        let rec = Record::new(
            index,
            idx,
            RecordKind::Action(action.kind()),
            out.detail.clone(),
            started_at,
        )
        .outcome(&out)
        .shots(before_key, after_key)
        .timings(t)
        .on(obs)
        .source(self.rec.line_source)
        .geometry(geometry.0, geometry.1, geometry.2)
        .done();
        tracing::info!(run_id = %self.ctx.run_id, step = index, kind = rec.kind, ok = rec.ok,
            perceive_ms = rec.timings.perceive_ms, act_ms = rec.timings.act_ms,
            screenshot_ms = rec.timings.screenshot_ms,
            upload_ms = rec.timings.upload_ms, "action finished");
        self.rec
            .em
            .emit(EventBody::ActionFinished(Box::new(rec)))
            .await
            .map_err(StepFail::Infra)?;
        out.result.map(|()| Some(idx + 1)).map_err(StepFail::from)
    }
}
