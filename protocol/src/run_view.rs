//! The run detail: the `GET /api/v1/runs/{id}` body and the model the HTML report renders.
//!
//! The coordinator fills it from PostgreSQL; `argus run` (no services) folds it from the
//! events with [`RunDetail::apply`], so both render the same report.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::events::{ActionRecord, EventBody, ModelUsage, RunEvent, RunStatus};
use crate::job::JobSpec;

/// One action as shown in the report.
pub type ActionView = ActionRecord;

/// One step as shown in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct StepView {
    /// 0-based index.
    pub index: u32,
    /// The step as written.
    pub text: String,
    /// `None` while running.
    pub ok: Option<bool>,
    /// Why it failed.
    pub error: Option<String>,
    /// Wall time, ms.
    pub duration_ms: Option<f64>,
    /// Actions in order (`ActionRecord`: kind, detail, target, ok, error, disposition,
    /// screenshot keys, timings, model usage; described field by field in the Rust docs).
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub actions: Vec<ActionView>,
}

/// Everything known about one run: the answer to `GET /api/v1/runs/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunDetail {
    /// Run id.
    pub run_id: Uuid,
    /// Job id.
    pub job_id: Uuid,
    /// The job.
    pub spec: JobSpec,
    /// Current state.
    pub status: RunStatus,
    /// Why it ended badly.
    pub error: Option<String>,
    /// Device that ran it.
    pub device_id: Option<String>,
    /// Worker that ran it.
    pub worker_id: Option<String>,
    /// Screen size in device px, once started.
    pub screen_px: Option<[u32; 2]>,
    /// Queued at.
    pub created_at: DateTime<Utc>,
    /// Started on the device at.
    pub started_at: Option<DateTime<Utc>>,
    /// Ended at.
    pub finished_at: Option<DateTime<Utc>>,
    /// Steps in order.
    pub steps: Vec<StepView>,
    /// The run's expectations, as the worker reported them before its first action.
    #[serde(default)]
    pub expectations: Vec<crate::expect::Expectation>,
    /// What decided the status, once finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::expect::Verdict>,
    /// Who is to blame, for a `failed`, `errored` or `lost` run (`app`, `device`, `infra`;
    /// see the protocol's `failure` module); absent for every other status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<crate::FailureClass>,
    /// Set only on a health probe (the short built-in job the coordinator runs on a device
    /// its health evaluation quarantined; its success releases the device): the device it
    /// checks. Probes belong to team `argus-system`, which only admins see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_device: Option<String>,
    /// Its place in the job's attempt chain (earlier and later attempts, devices avoided,
    /// flaky).
    #[serde(default)]
    pub attempts: crate::api::RunAttempts,
}

impl RunDetail {
    /// A fresh, queued run.
    pub fn new(run_id: Uuid, job_id: Uuid, spec: JobSpec, created_at: DateTime<Utc>) -> Self {
        RunDetail {
            run_id,
            job_id,
            spec,
            status: RunStatus::Queued,
            error: None,
            device_id: None,
            worker_id: None,
            screen_px: None,
            created_at,
            started_at: None,
            finished_at: None,
            steps: Vec::new(),
            expectations: Vec::new(),
            verdict: None,
            failure_class: None,
            probe_device: None,
            attempts: Default::default(),
        }
    }

    /// Wall time from start to end (or to now if running), ms.
    pub fn duration_ms(&self) -> Option<i64> {
        let start = self.started_at?;
        let end = self.finished_at.unwrap_or_else(Utc::now);
        Some((end - start).num_milliseconds())
    }

    /// Number of actions across all steps.
    pub fn action_count(&self) -> usize {
        self.steps.iter().map(|s| s.actions.len()).sum()
    }

    /// Every plan the planner made (the first, then each re-plan), in order.
    pub fn plans(&self) -> Vec<&ActionRecord> {
        self.steps
            .iter()
            .flat_map(|s| s.actions.iter())
            .filter(|a| a.plan.is_some())
            .collect()
    }

    /// Model usage summed over every plan and action of the run.
    pub fn model_usage(&self) -> ModelUsage {
        let mut total = ModelUsage::default();
        for a in self.steps.iter().flat_map(|s| s.actions.iter()) {
            if let Some(u) = &a.usage {
                total.add(u);
            }
        }
        total
    }

    fn step_mut(&mut self, index: u32) -> &mut StepView {
        if let Some(pos) = self.steps.iter().position(|s| s.index == index) {
            return &mut self.steps[pos];
        }
        self.steps.push(StepView {
            index,
            text: String::new(),
            ok: None,
            error: None,
            duration_ms: None,
            actions: Vec::new(),
        });
        self.steps.sort_by_key(|s| s.index);
        let pos = self
            .steps
            .iter()
            .position(|s| s.index == index)
            .unwrap_or(0);
        &mut self.steps[pos]
    }

    /// Folds one event in. Applying the same event twice leaves the detail unchanged, and
    /// a terminal status is never overwritten.
    pub fn apply(&mut self, ev: &RunEvent) {
        match &ev.body {
            EventBody::RunStarted {
                device_id,
                screen_w_px,
                screen_h_px,
            } => {
                if !self.status.is_terminal() {
                    self.status = RunStatus::Running;
                }
                self.device_id = Some(device_id.clone());
                self.screen_px = Some([*screen_w_px, *screen_h_px]);
                self.started_at.get_or_insert(ev.at);
            }
            EventBody::StepStarted { step, text } => {
                self.step_mut(*step).text = text.clone();
            }
            EventBody::ActionFinished(a) => {
                let s = self.step_mut(a.step);
                match s.actions.iter().position(|x| x.action == a.action) {
                    Some(i) => s.actions[i] = (**a).clone(),
                    None => {
                        s.actions.push((**a).clone());
                        s.actions.sort_by_key(|x| x.action);
                    }
                }
            }
            EventBody::StepFinished {
                step,
                ok,
                error,
                duration_ms,
            } => {
                let s = self.step_mut(*step);
                s.ok = Some(*ok);
                s.error = error.clone();
                s.duration_ms = Some(*duration_ms);
            }
            // Stored by the coordinator (the replay cache), not part of the run's view.
            EventBody::ReplayLearned { .. } => {}
            EventBody::Expectations { items } => self.expectations = items.clone(),
            EventBody::RunFinished {
                status,
                error,
                verdict,
                failure_class,
            } => {
                if !self.status.is_terminal() {
                    let (status, error) = crate::events::run_end(*status, error.as_deref());
                    self.status = status;
                    self.error = error.map(str::to_string);
                    self.finished_at = Some(ev.at);
                    self.verdict = verdict.clone();
                    self.failure_class = crate::failure_class(status, *failure_class);
                }
            }
        }
    }
}
