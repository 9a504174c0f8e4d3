//! [`Recorder`]: the run's side of the report — step numbering, the run's event emitter,
//! and the records of actions (built by [`super::record::Record`]) on their way out.

use std::time::Instant;

use argus_protocol::{ActionRecord, ActionSource, EventBody, FailureClass};
use uuid::Uuid;

use super::outcome::{ms, StepFail};
use crate::run::events::Emitter;

/// Numbers a run's steps and emits its step and action events.
pub(crate) struct Recorder {
    /// The run's event emitter (numbers, redacts and publishes).
    pub(crate) em: Emitter,
    /// Run id (for the log).
    pub(crate) run_id: Uuid,
    /// Next step index.
    pub(crate) next_step: u32,
    /// The observation the last recorded script-line action ran on.
    pub(crate) last_observation: Option<u64>,
    /// The source a script-line action's record carries (`model` while a model's planned
    /// step runs as a step-language line; none for the job's own script).
    pub(crate) line_source: Option<ActionSource>,
    /// The class (`device` / `infra`) of the failure that ends the run `errored` where the
    /// status is decided without one (the verdict's expectation checks); `None` until then.
    pub(crate) ended_by: Option<FailureClass>,
}

impl Recorder {
    /// A recorder whose first step is 0.
    pub(crate) fn new(em: Emitter, run_id: Uuid) -> Recorder {
        Recorder {
            em,
            run_id,
            next_step: 0,
            last_observation: None,
            line_source: None,
            ended_by: None,
        }
    }

    /// Emits `step_started` for the next step index and returns it.
    ///
    /// Errors: [`StepFail::Infra`] when the event could not be published.
    pub(crate) async fn begin_step(&mut self, text: &str) -> Result<u32, StepFail> {
        let i = self.next_step;
        self.next_step += 1;
        self.em
            .emit(EventBody::StepStarted {
                step: i,
                text: text.to_string(),
            })
            .await
            .map_err(StepFail::Infra)?;
        Ok(i)
    }

    /// Emits `step_finished` (best effort: the run's end event says what matters).
    pub(crate) async fn end_step(&mut self, i: u32, error: Option<String>, start: Instant) {
        let _ = self
            .em
            .emit(EventBody::StepFinished {
                step: i,
                ok: error.is_none(),
                error,
                duration_ms: ms(start),
            })
            .await;
    }

    /// Logs and emits one action record.
    ///
    /// Errors: [`StepFail::Infra`] when the event could not be published.
    pub(crate) async fn emit_action(&mut self, rec: ActionRecord) -> Result<(), StepFail> {
        tracing::info!(run_id = %self.run_id, step = rec.step, action = rec.action, kind = rec.kind,
            ok = rec.ok, disposition = rec.disposition.as_str(), "action finished");
        self.em
            .emit(EventBody::ActionFinished(Box::new(rec)))
            .await
            .map_err(StepFail::Infra)
    }
}
