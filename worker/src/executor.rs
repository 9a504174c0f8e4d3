//! Runs one script-mode job on one device: the run lifecycle (start → steps → teardown →
//! finish) and, per step, one action: screenshot before → observe → resolve target → act →
//! observe again to verify → screenshot after → `action_finished` event.
//!
//! Verdicts: a step that fails on the app's side (assertion false, target missing or
//! ambiguous, checkbox did not change) ends the run `failed`; a device or storage failure
//! ends it `errored`; `timeout_s` ends it `timed_out`; a cancel flag ends it `cancelled` at
//! the next step boundary. Teardown ([`Device::end`]) always runs.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use argus_perception::Observation;
use argus_protocol::script::{Script, Step};
use argus_protocol::{Action, ActionTimings, EventBody, JobSpec, Mode, RunStatus};
use chrono::Utc;
use uuid::Uuid;

use crate::device::prelude::*;
use crate::device::Shot;
use crate::events::{Emitter, EventSink};
use crate::model::{AgentEnv, ModelClient};
use crate::perceive::{Perceiver, PixelChannel};
use crate::run::outcome::{ms, Outcome, StepFail};
use crate::run::record::{Record, RecordKind};
use crate::secrets::mask;
use crate::uploads::{Limits, Uploads};
use argus_infra::ArtifactStore;

/// What the executor needs to know about a run.
#[derive(Debug, Clone)]
pub struct RunInput {
    /// Run id.
    pub run_id: Uuid,
    /// Fencing token.
    pub attempt_id: Uuid,
    /// Device id reported in `run_started`.
    pub device_id: String,
    /// The job.
    pub spec: JobSpec,
    /// The worker's model settings and secret source.
    pub agent: AgentEnv,
    /// The worker's pixel channel (OCR models loaded once per worker).
    pub pixel: PixelChannel,
    /// The stored replay script the assignment carried (learned replay; `llm` / `vlm` jobs
    /// that read the cache), replayed before any model call.
    pub replay: Option<String>,
}

pub(crate) struct Exec<'a> {
    pub(crate) dev: &'a mut dyn Device,
    /// The run's screenshot upload queue.
    pub(crate) uploads: &'a mut Uploads,
    pub(crate) em: Emitter,
    pub(crate) run_id: Uuid,
    pub(crate) serial: u64,
    /// The job.
    pub(crate) spec: &'a JobSpec,
    /// Worker agent settings and secrets.
    pub(crate) agent: &'a AgentEnv,
    /// The job's model client, made on first use.
    pub(crate) model: Option<ModelClient>,
    /// Next step index.
    pub(crate) next_step: u32,
    /// Actions taken so far (counted against `max_steps` in model modes).
    pub(crate) actions_taken: u32,
    /// Set when the run is cancelled; polled at action boundaries and during model calls.
    pub(crate) cancel: Arc<AtomicBool>,
    /// The run's perception stage (every observation goes through it).
    pub(crate) perceiver: Perceiver,
    /// The stored script still to replay (taken by the first model task).
    pub(crate) replay: Option<String>,
    /// What the replay did before it handed over, for the planner.
    pub(crate) replay_note: Option<String>,
    /// The script this run leaves for the next (when its job writes the cache).
    pub(crate) learned: crate::agent::learn::Learned,
    /// The run's expectations (see [`crate::verdict`]).
    pub(crate) expected: Vec<crate::verdict::Expected>,
    /// Checkable clauses of the instruction nobody has turned into a check yet.
    pub(crate) unmapped: Vec<String>,
    /// The model's last claim that the job (or its last step) is done.
    pub(crate) claim: Option<String>,
    /// Check steps the planner added that did not hold (`plan[i]: why`): they cap the
    /// verdict at `unverified` (see `verdict::Exec::with_planner_checks`).
    pub(crate) planner_checks_failed: Vec<String>,
    /// How many expectations the last `expectations` event carried.
    pub(crate) expectations_sent: usize,
    /// The observation the last recorded script-line action ran on.
    pub(crate) last_observation: Option<u64>,
    /// Texts this run's delivered typings entered (a re-plan does not type them again).
    pub(crate) typed: Vec<String>,
    /// The source a script-line action's record carries (`model` while a model's planned
    /// step runs as a step-language line; none for the job's own script).
    pub(crate) line_source: Option<argus_protocol::ActionSource>,
    /// The screen the first plan was made on: early stop asks what held there, a "does not
    /// contain" expectation and the judge's evidence are judged against its texts (see
    /// [`crate::verdict`]).
    pub(crate) start_obs: Option<Observation>,
    /// Whether a model-chosen action of this run went back or opened a page.
    pub(crate) left_the_screen: bool,
    /// Whether the last plan's shaping dropped an acting step (see `agent::run`).
    pub(crate) plan_dropped_acting: bool,
}

impl Exec<'_> {
    pub(crate) async fn observe(&mut self) -> Result<Observation, String> {
        self.serial += 1;
        self.perceiver
            .observe(&mut *self.dev, self.serial)
            .await
            .map_err(|e| e.to_string())
    }

    /// Screenshot for the record, handed to the run's upload queue (which masks `mask`,
    /// boxes to blank in device px, before anything is stored); returns the frame's key, or
    /// `None` (logged) when the screen could not be captured. The upload itself runs in the
    /// background: `upload_ms` counts only the wait for room in the queue.
    pub(crate) async fn shot(
        &mut self,
        step: u32,
        action: u32,
        phase: &str,
        mask: &[argus_perception::Rect],
        t: &mut ActionTimings,
    ) -> Option<String> {
        let start = Instant::now();
        // A frame with boxes to blank is taken as the device-px PNG: the masks are in its
        // pixels, not in a driver's scaled JPEG.
        let limits = Limits::default();
        let shot = if mask.is_empty() {
            self.dev
                .record_shot(limits.max_side_px, limits.jpeg_quality)
                .await
        } else {
            self.dev.screenshot().await.map(Shot::Png)
        };
        t.screenshot_ms += ms(start);
        let shot = match shot {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(run_id = %self.run_id, step, action, phase, error = %e, "screenshot failed");
                return None;
            }
        };
        let start = Instant::now();
        let res = self.uploads.submit(shot, mask).await;
        t.upload_ms += ms(start);
        match res {
            Ok(key) => Some(key),
            Err(e) => {
                tracing::error!(run_id = %self.run_id, step, action, phase, error = %e, "screenshot not queued");
                None
            }
        }
    }

    /// Boxes to blank in a screenshot of `obs`.
    pub(crate) fn mask_for(&self, obs: &Observation) -> Vec<argus_perception::Rect> {
        mask::boxes(obs, &self.agent.secrets)
    }

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
        let mut obs = self.observe().await;
        let mut observe_ms = ms(start);
        // The popup pass records its dismissal as the step's action 0.
        if let (Ok(o), 0) = (&obs, first) {
            if self.popup_pass(index, o).await? {
                idx = 1;
                let start = Instant::now();
                obs = self.observe().await;
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
        let mut masks = obs.as_ref().map(|o| self.mask_for(o)).unwrap_or_default();
        let before_key = self.shot(index, idx, "before", &masks, &mut t).await;
        let (out, geometry) = match &obs {
            Ok(obs) => {
                let acted = self.act(action, obs, &mut t).await;
                if let Some(after) = &acted.after {
                    masks.extend(self.mask_for(after));
                }
                let (point, swipe) = acted.geometry();
                let screen = obs.screen.device_size();
                (acted.out, (point, swipe, Some([screen.0, screen.1])))
            }
            Err(e) => (
                Outcome::new(action.describe())
                    .fail_infra(format!("cannot observe the screen: {e}")),
                (None, None, None),
            ),
        };
        let after_key = self.shot(index, idx, "after", &masks, &mut t).await;
        let obs = obs.as_ref().ok();
        self.last_observation = obs.map(|o| o.serial);
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
        .source(self.line_source)
        .geometry(geometry.0, geometry.1, geometry.2)
        .done();
        tracing::info!(run_id = %self.run_id, step = index, kind = rec.kind, ok = rec.ok,
            perceive_ms = rec.timings.perceive_ms, act_ms = rec.timings.act_ms,
            screenshot_ms = rec.timings.screenshot_ms,
            upload_ms = rec.timings.upload_ms, "action finished");
        self.em
            .emit(EventBody::ActionFinished(Box::new(rec)))
            .await
            .map_err(StepFail::Infra)?;
        out.result.map(|()| Some(idx + 1)).map_err(StepFail::from)
    }
}

/// The steps of a job: `open start_url` (if any) then the parsed script (its `repeat` / `if`
/// blocks walked by [`crate::blocks`]); in `llm` / `vlm` mode the whole instruction, its
/// `${var.NAME}`s filled in, is one [`Step::Ai`] the agent loop plans and carries out.
pub fn plan(spec: &JobSpec) -> Result<Vec<(String, Step)>, String> {
    let script: Script = spec.validate().map_err(|e| e.to_string())?;
    let mut steps = Vec::new();
    if let Some(url) = &spec.start_url {
        steps.push((
            format!("open {url}"),
            Step::Act(Action::Open { url: url.clone() }),
        ));
    }
    if spec.mode == Mode::Script {
        steps.extend(script.steps.into_iter().map(|s| (s.text, s.step)));
    } else {
        let instruction = spec.instruction_with_vars().map_err(|e| e.to_string())?;
        steps.push((
            format!("{}: {}", spec.mode.as_str(), instruction.trim()),
            Step::Ai {
                instruction: instruction.trim().to_string(),
            },
        ));
    }
    Ok(steps)
}

/// Every text of the job (steps, instruction, variables, …) as one string, to find the
/// secrets it references; `None` if it cannot be serialized.
fn job_text(spec: &JobSpec) -> Option<String> {
    serde_json::to_string(spec).ok()
}

/// The job's steps ([`plan`]), refused when it names a secret the job's team has no value
/// for (another team's): the run fails before any action, not when the step that types it
/// comes.
fn checked_plan(input: &RunInput) -> Result<Vec<(String, Step)>, String> {
    let steps = plan(&input.spec)?;
    match job_text(&input.spec).and_then(|t| input.agent.secrets.unresolvable(&t)) {
        Some(e) => Err(e),
        None => Ok(steps),
    }
}

impl<'a> Exec<'a> {
    /// A fresh run engine for `input` on `dev`: nothing acted yet, the job's expectations
    /// (see [`crate::verdict::initial`]) not yet checked.
    fn start(
        dev: &'a mut dyn Device,
        uploads: &'a mut Uploads,
        em: Emitter,
        input: &'a RunInput,
        cancel: Arc<AtomicBool>,
    ) -> Exec<'a> {
        let (expected, unmapped) = crate::verdict::initial(&input.spec);
        Exec {
            dev,
            uploads,
            em,
            run_id: input.run_id,
            serial: 0,
            spec: &input.spec,
            agent: &input.agent,
            model: None,
            next_step: 0,
            actions_taken: 0,
            cancel,
            perceiver: Perceiver::new(input.pixel.clone()),
            replay: input
                .replay
                .clone()
                .filter(|_| input.spec.cache_mode().reads()),
            replay_note: None,
            learned: Default::default(),
            expected,
            unmapped,
            claim: None,
            planner_checks_failed: Vec::new(),
            expectations_sent: 0,
            last_observation: None,
            typed: Vec::new(),
            line_source: None,
            start_obs: None,
            left_the_screen: false,
            plan_dropped_acting: false,
        }
    }
}

/// Runs the job to a terminal status; every event goes through `sink`, every screenshot
/// through the run's upload queue into `store`.
///
/// Never panics on device failures: they end the run `errored`. Before `run_finished` the
/// run waits for its screenshot uploads (while the device tears down); a screenshot that
/// could not be stored makes a run that would have passed `errored`, and is added to any
/// other run's error (see [`with_uploads`]). Returns the final status (also sent as
/// `run_finished`).
pub async fn execute(
    input: &RunInput,
    dev: &mut dyn Device,
    store: Arc<dyn ArtifactStore>,
    sink: Arc<dyn EventSink>,
    cancel: Arc<AtomicBool>,
) -> RunStatus {
    let mut uploads = Uploads::start(store, input.run_id, Limits::default());
    let mut em = Emitter::new(sink, input.run_id, input.attempt_id)
        .with_secrets(input.agent.secrets.clone());
    let (w, h) = dev.screen_px();
    if let Err(e) = em
        .emit(EventBody::RunStarted {
            device_id: input.device_id.clone(),
            screen_w_px: w,
            screen_h_px: h,
        })
        .await
    {
        tracing::error!(run_id = %input.run_id, error = %e, "cannot report run start");
    }
    let mut learned = None;
    let (status, error, verdict) = match checked_plan(input) {
        Err(e) => (RunStatus::Failed, Some(format!("invalid job: {e}")), None),
        Ok(steps) => match dev.begin().await {
            Err(e) => (
                RunStatus::Errored,
                Some(format!("cannot prepare the device: {e}")),
                None,
            ),
            Ok(()) => {
                let mut exec = Exec::start(&mut *dev, &mut uploads, em, input, cancel.clone());
                let limit = Duration::from_secs(input.spec.timeout_s);
                let res = tokio::time::timeout(limit, exec.run_to_verdict(&steps, &cancel)).await;
                learned = exec
                    .learned
                    .script_with(&exec.expected)
                    .filter(|_| input.spec.mode != Mode::Script);
                em = exec.em;
                match res {
                    Ok(r) => r,
                    Err(_) => (
                        RunStatus::TimedOut,
                        Some(format!(
                            "the run exceeded timeout_s = {} s",
                            input.spec.timeout_s
                        )),
                        None,
                    ),
                }
            }
        },
    };
    let (ended, stored) = tokio::join!(dev.end(), uploads.finish());
    if let Err(e) = ended {
        tracing::warn!(run_id = %input.run_id, error = %e, "teardown failed");
    }
    let (status, error) = with_uploads(status, error, stored, input.run_id);
    if let (RunStatus::Succeeded, Some(script)) = (status, learned) {
        if let Err(err) = em.emit(EventBody::ReplayLearned { script }).await {
            tracing::warn!(run_id = %input.run_id, error = %err, "cannot report the learned replay script");
        }
    }
    if let Err(e) = em
        .emit(EventBody::RunFinished {
            status,
            error,
            verdict,
        })
        .await
    {
        tracing::error!(run_id = %input.run_id, error = %e, "cannot report run end");
    }
    status
}

/// The run's status and error once its uploads are done: a screenshot that could not be
/// stored turns `succeeded` / `unverified` into `errored` (the run's evidence is
/// incomplete) and is appended to any other status's error.
fn with_uploads(
    status: RunStatus,
    error: Option<String>,
    stored: Result<crate::uploads::UploadSummary, crate::uploads::UploadError>,
    run_id: Uuid,
) -> (RunStatus, Option<String>) {
    match stored {
        Ok(s) => {
            tracing::info!(run_id = %run_id, stored = s.stored, reused = s.reused,
                bytes = s.bytes, put_ms = s.put_ms, "screenshots stored");
            (status, error)
        }
        Err(e) => {
            tracing::error!(run_id = %run_id, error = %e, "screenshots lost");
            let lost = format!("screenshots lost: {e}");
            match (status, error) {
                (RunStatus::Succeeded | RunStatus::Unverified, _) => {
                    (RunStatus::Errored, Some(lost))
                }
                (s, Some(e)) => (s, Some(format!("{e}; {lost}"))),
                (s, None) => (s, Some(lost)),
            }
        }
    }
}

impl Exec<'_> {
    /// Reports the expectations known up front, runs the steps and, when they all passed,
    /// decides the verdict on the expectations.
    async fn run_to_verdict(
        &mut self,
        steps: &[(String, Step)],
        cancel: &AtomicBool,
    ) -> (RunStatus, Option<String>, Option<argus_protocol::Verdict>) {
        // Expectations the planner need not map are reported before anything runs.
        if self.unmapped.is_empty() || self.spec.mode == Mode::Script {
            if let Err(e) = self.send_expectations().await {
                return (RunStatus::Errored, Some(e.message()), None);
            }
        }
        match crate::blocks::run_steps(self, steps, cancel).await {
            (RunStatus::Succeeded, _) => {
                let (s, e, v) = self.verdict().await;
                (s, e, Some(v))
            }
            (s, e) => (s, e, None),
        }
    }

    /// Emits `step_started` for the next step index and returns it.
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

    /// One script line as one step with one action.
    pub(crate) async fn script_step(
        &mut self,
        text: &str,
        action: &Action,
    ) -> Result<(), StepFail> {
        let i = self.begin_step(text).await?;
        let start = Instant::now();
        let res = self.run_step(i, action).await;
        let err = res.as_ref().err().map(StepFail::message);
        self.end_step(i, err, start).await;
        res.map_err(|e| e.context(&format!("step {} ({text})", i + 1)))
    }
}
