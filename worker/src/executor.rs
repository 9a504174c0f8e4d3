//! Runs one job on one device: the run lifecycle (start → steps → verdict → teardown →
//! finish). The steps are walked by [`crate::blocks`] over the run engine
//! ([`crate::run`]: one step as one action, observe → act → verify → record); `llm` /
//! `vlm` tasks go to the agent ([`crate::agent`]); the verdict is [`crate::verdict`]'s.
//!
//! Verdicts: a step that fails on the app's side (assertion false, target missing or
//! ambiguous, checkbox did not change) ends the run `failed`; a device or storage failure
//! ends it `errored`; `timeout_s` ends it `timed_out`; a cancel flag ends it `cancelled` at
//! the next step boundary. Teardown ([`Device::end`]) always runs.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use argus_protocol::script::{Script, Step};
use argus_protocol::{Action, EventBody, FailureClass, JobSpec, Mode, RunStatus};
use uuid::Uuid;

use crate::agent::expect::initial;
use crate::agent::state::AgentState;
use crate::device::prelude::*;
use crate::model::AgentEnv;
use crate::perceive::{Perceiver, PixelChannel};
use crate::run::ctx::RunCtx;
use crate::run::events::{Emitter, EventSink};
use crate::run::exec::Exec;
use crate::run::recorder::Recorder;
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
    /// Where the run's live screen goes while someone watches ([`crate::live`]); `None`
    /// for local runs.
    pub live: Option<crate::live::Link>,
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

/// A fresh run engine for `input` on `dev`: nothing acted yet, the job's expectations
/// (see [`crate::agent::expect::initial`]) not yet checked.
fn start<'a>(
    dev: &'a mut dyn Device,
    uploads: &'a mut Uploads,
    em: Emitter,
    input: &'a RunInput,
    cancel: Arc<AtomicBool>,
) -> Exec<'a, AgentState> {
    let (expected, unmapped) = initial(&input.spec);
    let replay = input
        .replay
        .clone()
        .filter(|_| input.spec.cache_mode().reads());
    Exec {
        ctx: RunCtx {
            dev,
            uploads,
            perceiver: Perceiver::new(input.pixel.clone()),
            env: &input.agent,
            spec: &input.spec,
            run_id: input.run_id,
            serial: 0,
            cancel,
            start_obs: None,
            left_the_screen: false,
        },
        rec: Recorder::new(em, input.run_id),
        st: AgentState::new(expected, unmapped, replay),
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
    let (status, error, class, verdict) = match checked_plan(input) {
        Err(e) => (
            RunStatus::Failed,
            Some(format!("invalid job: {e}")),
            None,
            None,
        ),
        Ok(steps) => match dev.begin().await {
            Err(e) => (
                RunStatus::Errored,
                Some(format!("cannot prepare the device: {e}")),
                Some(FailureClass::Device),
                None,
            ),
            Ok(()) => {
                let watched = argus_protocol::live::withheld(&input.spec).is_none();
                let _live = input.live.as_ref().filter(|_| watched).and_then(|link| {
                    let cast = dev.screencast()?;
                    let (sw, sh) = dev.screen_px();
                    Some(crate::live::spawn(link, input.run_id, cast, [sw, sh]))
                });
                let mut exec = start(&mut *dev, &mut uploads, em, input, cancel.clone());
                let limit = Duration::from_secs(input.spec.timeout_s);
                let res = tokio::time::timeout(limit, exec.run_to_verdict(&steps, &cancel)).await;
                learned = exec
                    .st
                    .learned
                    .script_with(&exec.st.expected)
                    .filter(|_| input.spec.mode != Mode::Script);
                em = exec.rec.em;
                match res {
                    Ok(r) => r,
                    Err(_) => (
                        RunStatus::TimedOut,
                        Some(format!(
                            "the run exceeded timeout_s = {} s",
                            input.spec.timeout_s
                        )),
                        None,
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
    let (status, error, class) = with_uploads(status, error, class, stored, input.run_id);
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
            failure_class: argus_protocol::failure_class(status, class),
        })
        .await
    {
        tracing::error!(run_id = %input.run_id, error = %e, "cannot report run end");
    }
    status
}

/// The run's status, error and failure class once its uploads are done: a screenshot that
/// could not be stored turns `succeeded` / `unverified` into `errored` with class `infra`
/// (the artifact store failed; the run's evidence is incomplete) and is appended to any
/// other status's error, whose class stays.
fn with_uploads(
    status: RunStatus,
    error: Option<String>,
    class: Option<FailureClass>,
    stored: Result<crate::uploads::UploadSummary, crate::uploads::UploadError>,
    run_id: Uuid,
) -> (RunStatus, Option<String>, Option<FailureClass>) {
    match stored {
        Ok(s) => {
            tracing::info!(run_id = %run_id, stored = s.stored, reused = s.reused,
                bytes = s.bytes, put_ms = s.put_ms, "screenshots stored");
            (status, error, class)
        }
        Err(e) => {
            tracing::error!(run_id = %run_id, error = %e, "screenshots lost");
            let lost = format!("screenshots lost: {e}");
            match (status, error) {
                (RunStatus::Succeeded | RunStatus::Unverified, _) => {
                    (RunStatus::Errored, Some(lost), Some(FailureClass::Infra))
                }
                (s, Some(e)) => (s, Some(format!("{e}; {lost}")), class),
                (s, None) => (s, Some(lost), class),
            }
        }
    }
}

/// How a run ended: its status, error, failure class (see [`argus_protocol::failure`]) and
/// verdict.
type Ended = (
    RunStatus,
    Option<String>,
    Option<FailureClass>,
    Option<argus_protocol::Verdict>,
);

impl Exec<'_, AgentState> {
    /// Reports the expectations known up front, runs the steps and, when they all passed,
    /// decides the verdict on the expectations.
    async fn run_to_verdict(&mut self, steps: &[(String, Step)], cancel: &AtomicBool) -> Ended {
        // Expectations the planner need not map are reported before anything runs.
        if self.st.unmapped.is_empty() || self.ctx.spec.mode == Mode::Script {
            if let Err(e) = self.send_expectations().await {
                let (s, class) = e.ends_run();
                return (s, Some(e.message()), class, None);
            }
        }
        match crate::blocks::run_steps(self, steps, cancel).await {
            (RunStatus::Succeeded, _, _) => {
                let (s, e, v) = self.verdict().await;
                let class = match s {
                    RunStatus::Failed => Some(FailureClass::App),
                    RunStatus::Errored => self.rec.ended_by.or(Some(FailureClass::Infra)),
                    _ => None,
                };
                (s, e, class, Some(v))
            }
            (s, e, class) => (s, e, class, None),
        }
    }
}
