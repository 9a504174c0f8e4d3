//! Run events: what a worker streams back while it runs a job.
//!
//! Each event carries the run id, the attempt id that fences it (an event from a stale
//! attempt is ignored by the coordinator) and a per-run sequence number starting at 1; the
//! coordinator applies each `(run_id, seq)` exactly once. Events are published to
//! [`crate::subjects::Subjects::events`]: one event with `Nats-Msg-Id` = [`RunEvent::msg_id`],
//! or a worker's group of events (a JSON array of them, on the first one's run subject,
//! `Nats-Msg-Id = "group:<uuid>"`; `argus_worker::run::event_groups`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// State of a run. `queued → assigned → running → succeeded | unverified | failed | errored |
/// cancelled | timed_out | lost`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum RunStatus {
    /// Waiting for a free matching device slot.
    Queued,
    /// Claimed for a device; the assignment is on its way to the worker.
    Assigned,
    /// The worker has started it.
    Running,
    /// Every step passed and the run's expectations held on a fresh observation
    /// (see `argus_protocol::expect`).
    Succeeded,
    /// A natural-language run carried out its plan but had nothing to check: no expectation
    /// from the job and no checkable clause in the instruction. Never counted as a pass
    /// (suites, JUnit, insights, patrols); a judge may move it to `failed`, never further.
    Unverified,
    /// A step failed (assertion, missing target, app error): the job's verdict is "no".
    Failed,
    /// Argus itself could not run it (browser crashed, storage down): no verdict.
    Errored,
    /// Cancelled by a person or the API.
    Cancelled,
    /// Hit `timeout_s` or waited in the queue past its deadline.
    TimedOut,
    /// The worker vanished mid-run after delivering actions; needs a person to judge.
    Lost,
}

impl RunStatus {
    /// The snake_case wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Queued => "queued",
            RunStatus::Assigned => "assigned",
            RunStatus::Running => "running",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Unverified => "unverified",
            RunStatus::Failed => "failed",
            RunStatus::Errored => "errored",
            RunStatus::Cancelled => "cancelled",
            RunStatus::TimedOut => "timed_out",
            RunStatus::Lost => "lost",
        }
    }

    /// Parses a wire name.
    pub fn parse(s: &str) -> Option<RunStatus> {
        use RunStatus::*;
        [
            Queued, Assigned, Running, Succeeded, Unverified, Failed, Errored, Cancelled, TimedOut,
            Lost,
        ]
        .into_iter()
        .find(|st| st.as_str() == s)
    }

    /// True for states a run never leaves.
    pub fn is_terminal(self) -> bool {
        !matches!(
            self,
            RunStatus::Queued | RunStatus::Assigned | RunStatus::Running
        )
    }
}

/// The error a run gets when its worker reported `run_finished` with a non-terminal status.
pub const NON_TERMINAL_END: &str =
    "the worker reported the run finished with a non-terminal status; treated as errored";

/// The status and error a `run_finished { status, error }` leaves a run with: as reported
/// when `status` is terminal; otherwise (a broken worker reporting `queued`, `assigned` or
/// `running`) `errored` with [`NON_TERMINAL_END`], so the run never goes back to the queue
/// under a stale attempt. The one rule both folds use: the coordinator's SQL effects and
/// [`crate::RunDetail::apply`].
pub fn run_end(status: RunStatus, error: Option<&str>) -> (RunStatus, Option<&str>) {
    if status.is_terminal() {
        (status, error)
    } else {
        (RunStatus::Errored, Some(NON_TERMINAL_END))
    }
}

/// Whether an action reached the device. Only `NotDelivered` is safe to repeat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Disposition {
    /// Nothing was sent to the device (failed before dispatch, e.g. target not found).
    NotDelivered,
    /// Sent, but the outcome is unknown (timeout after dispatch, connection lost).
    DeliveryUncertain,
    /// Sent and acknowledged by the device; the effect was not checked.
    DeliveredUnverified,
    /// Sent and its effect was observed.
    DeliveredVerified,
}

impl Disposition {
    /// The snake_case wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Disposition::NotDelivered => "not_delivered",
            Disposition::DeliveryUncertain => "delivery_uncertain",
            Disposition::DeliveredUnverified => "delivered_unverified",
            Disposition::DeliveredVerified => "delivered_verified",
        }
    }

    /// Retry advice that follows from the disposition.
    pub fn retry(self) -> RetryAdvice {
        if self == Disposition::NotDelivered {
            RetryAdvice::Safe
        } else {
            RetryAdvice::Unsafe
        }
    }
}

/// Whether repeating an action is safe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryAdvice {
    /// Nothing landed; repeat freely.
    Safe,
    /// It may have landed; observe and reflect before doing anything again. The default
    /// for records written before this field existed.
    #[default]
    Unsafe,
}

impl RetryAdvice {
    /// The snake_case wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            RetryAdvice::Safe => "safe",
            RetryAdvice::Unsafe => "unsafe",
        }
    }
}

/// Token and latency accounting of the model calls behind one action or plan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelUsage {
    /// Chat-completion requests made (format retries and re-asks included).
    pub calls: u32,
    /// Prompt tokens, as the endpoint's `usage` block reported them.
    pub prompt_tokens: u64,
    /// Completion tokens, as reported.
    pub completion_tokens: u64,
    /// Wall time spent waiting for the endpoint, ms.
    pub latency_ms: f64,
    /// Prompt tokens the endpoint served from its prefix cache (llama.cpp `timings.cache_n`,
    /// OpenAI `usage.prompt_tokens_details.cached_tokens`); 0 when it does not say.
    #[serde(default)]
    pub cached_tokens: u64,
}

impl ModelUsage {
    /// Adds another usage to this one.
    pub fn add(&mut self, o: &ModelUsage) {
        self.calls += o.calls;
        self.cached_tokens += o.cached_tokens;
        self.prompt_tokens += o.prompt_tokens;
        self.completion_tokens += o.completion_tokens;
        self.latency_ms += o.latency_ms;
    }
}

/// The reflector's verdict on one action, from its before/after observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReflectClass {
    /// Progressed: the screen changed in a way consistent with the step.
    A,
    /// Wrong page: the screen was replaced by one unrelated to the step.
    B,
    /// No change.
    C,
}

impl ReflectClass {
    /// `"A"`, `"B"` or `"C"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReflectClass::A => "A",
            ReflectClass::B => "B",
            ReflectClass::C => "C",
        }
    }
}

/// A reflection: class and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reflection {
    /// A / B / C.
    pub class: ReflectClass,
    /// What the diff showed, for a person (`3 elements changed`, `screen replaced`, …).
    pub note: String,
}

/// The element an action targeted, as perceived in the observation it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetedElement {
    /// Per-observation element id (`e12`).
    pub id: String,
    /// Canonical role.
    pub role: String,
    /// Accessible name or visible text.
    pub name: String,
    /// Bounding box in device px: `[x, y, width, height]`.
    pub bbox_px: [f64; 4],
    /// Which perception channel found it: `tree`, `ocr` or `vision` (absent in records
    /// written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Detector confidence 0..=1 of a pixel-channel element (`ocr`, `vision`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
}

/// How the observation an action was aimed on was perceived: which channel the worker's
/// arbiter trusted for that frame, why, and what the pixel channel added.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PerceptionNote {
    /// `tree`, `tree+regions` or `pixel`.
    pub channel: String,
    /// The arbiter's reason, then what the pixel channel did or why it was off.
    pub reason: String,
    /// Elements read by OCR in that observation.
    #[serde(default)]
    pub ocr_elements: u32,
    /// Elements found by vision anchors in that observation.
    #[serde(default)]
    pub vision_elements: u32,
    /// Time the pixel channel took for that observation, ms (0 when it did not run).
    #[serde(default)]
    pub pixel_ms: f64,
}

/// Time spent in each phase of one action, in ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ActionTimings {
    /// Observing and perceiving (tree + geometry → element list), ms.
    pub perceive_ms: f64,
    /// Sending the input and waiting for the page to settle, ms.
    pub act_ms: f64,
    /// Capturing the before/after screenshots, ms.
    pub screenshot_ms: f64,
    /// Handing the screenshots to the run's upload queue, ms: naming each by its content
    /// and, when the queue is full, waiting for room. The uploads themselves run in the
    /// background (before issue 25 this was the uploads' own time).
    pub upload_ms: f64,
}

/// One finished action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionRecord {
    /// 0-based step index.
    pub step: u32,
    /// 0-based action index within the step.
    pub action: u32,
    /// Tool name: `open`, `tap`, `type`, `key`, `wait_for`, `sleep`, `assert_contains`, …
    pub kind: String,
    /// Human description, e.g. `tap "Clear completed"`. Never holds secret values.
    pub detail: String,
    /// The element acted on, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetedElement>,
    /// Did the action do what it was asked (including assertions)?
    pub ok: bool,
    /// Why not, for a person: what failed and the candidates seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whether the input reached the device.
    pub disposition: Disposition,
    /// Object key of the screenshot taken before acting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_key: Option<String>,
    /// Object key of the screenshot taken after acting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_key: Option<String>,
    /// When the action started.
    pub started_at: DateTime<Utc>,
    /// When it finished (after the last upload).
    pub finished_at: DateTime<Utc>,
    /// Phase split.
    pub timings: ActionTimings,
    /// Whether repeating it is safe (follows from `disposition`).
    #[serde(default)]
    pub retry: RetryAdvice,
    /// Serial of the observation the action named (model modes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observation: Option<u64>,
    /// The tool call as the model sent it (`${secret.NAME}` unresolved), model modes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// Token and latency accounting of the model calls that chose this action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<ModelUsage>,
    /// The planned steps, for a `plan` record (the planner's answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Vec<String>>,
    /// The reflector's class of this action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reflection: Option<Reflection>,
    /// The point a tap, double tap, long press or check aimed at, device px `[x, y]`: a
    /// model's point (`vlm` mode, after mapping its coordinates) or the target's centre
    /// (absent in records written before it was recorded for every aimed action).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point_px: Option<[f64; 2]>,
    /// A swipe's start and end in device px, `[from_x, from_y, to_x, to_y]` (the last swipe
    /// of a `scroll until`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swipe_px: Option<[f64; 4]>,
    /// Size of the screen the action was aimed on, device px `[width, height]`: the space of
    /// `target.bbox_px`, `point_px` and `swipe_px`, and what the before-screenshot shows
    /// (the report scales its overlay by it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen_px: Option<[u32; 2]>,
    /// How the observation the action was aimed on was perceived (channel and reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perception: Option<PerceptionNote>,
    /// Who chose the action in a model-mode run: the model or the replay cache (absent for
    /// script lines and records written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ActionSource>,
}

/// Who chose an action of an `llm` / `vlm` run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionSource {
    /// A model's tool call (or its plan).
    Model,
    /// A line of the stored replay script (no model call).
    Cache,
}

impl ActionSource {
    /// The snake_case wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionSource::Model => "model",
            ActionSource::Cache => "cache",
        }
    }
}

impl ActionRecord {
    /// A record with the required fields set and every optional one empty; `retry` follows
    /// `disposition`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        step: u32,
        action: u32,
        kind: &str,
        detail: String,
        ok: bool,
        error: Option<String>,
        disposition: Disposition,
        started_at: DateTime<Utc>,
    ) -> ActionRecord {
        ActionRecord {
            step,
            action,
            kind: kind.to_string(),
            detail,
            target: None,
            ok,
            error,
            disposition,
            before_key: None,
            after_key: None,
            started_at,
            finished_at: Utc::now(),
            timings: ActionTimings::default(),
            retry: disposition.retry(),
            observation: None,
            call: None,
            usage: None,
            plan: None,
            reflection: None,
            point_px: None,
            swipe_px: None,
            screen_px: None,
            perception: None,
            source: None,
        }
    }
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventBody {
    /// The worker accepted the assignment and prepared the device.
    RunStarted {
        /// Device the run is on.
        device_id: String,
        /// Viewport / screen size in device px.
        screen_w_px: u32,
        /// Viewport / screen height in device px.
        screen_h_px: u32,
    },
    /// A step began.
    StepStarted {
        /// 0-based index.
        step: u32,
        /// The step as written.
        text: String,
    },
    /// An action ended.
    ActionFinished(Box<ActionRecord>),
    /// A step ended.
    StepFinished {
        /// 0-based index.
        step: u32,
        /// Passed?
        ok: bool,
        /// Why not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Wall time of the step, ms.
        duration_ms: f64,
    },
    /// A model-mode run succeeded and its job writes the replay cache: the script that
    /// replays what it did (see [`crate::replay`]). Sent just before `run_finished`.
    ReplayLearned {
        /// Step-language lines, one action each.
        script: String,
    },
    /// The run's expectations, reported once before its first action (job-level ones and
    /// those read from the instruction's checkable clauses; see [`crate::expect`]).
    Expectations {
        /// In the order they are checked.
        items: Vec<crate::expect::Expectation>,
    },
    /// The run ended; teardown has run.
    RunFinished {
        /// Terminal status.
        status: RunStatus,
        /// Why, when not succeeded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// What decided the status (the expectation, its observation, the model's claim);
        /// absent from workers older than expectations and for runs that ended before a
        /// verdict could be reached (errored, cancelled, timed out).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        verdict: Option<crate::expect::Verdict>,
        /// Who is to blame when `status` is `failed` or `errored` (see
        /// [`crate::failure`]); absent otherwise and from workers older than failure
        /// classes (then [`crate::failure_class`] fills it in).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure_class: Option<crate::FailureClass>,
    },
}

/// One event on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEvent {
    /// Run the event belongs to.
    pub run_id: Uuid,
    /// Attempt that produced it (fencing token from the claim).
    pub attempt_id: Uuid,
    /// Per-run sequence number, from 1, gap-free within one attempt.
    pub seq: u64,
    /// Worker clock when the event was made.
    pub at: DateTime<Utc>,
    /// Payload.
    pub body: EventBody,
}

impl RunEvent {
    /// The JetStream dedupe id: `"<run_id>:<attempt_id>:<seq>"`.
    pub fn msg_id(&self) -> String {
        format!("{}:{}:{}", self.run_id, self.attempt_id, self.seq)
    }
}

/// The class a run that ended with `status` is stored with: `None` for every status but
/// `failed`, `errored` and `lost` (timeouts and cancels keep their own statuses); for
/// `failed` / `errored` the class the worker reported, or for a worker that reported none,
/// `app` for `failed` and `infra` for `errored`; `lost` (the reaper's: the worker stopped
/// heartbeating mid-run) is always `device` — the host driving the device vanished, while
/// the coordinator and the database were up (an outage of theirs starts the reaper's grace
/// instead, `coordinator::store::reaper`).
pub fn failure_class(
    status: RunStatus,
    reported: Option<crate::FailureClass>,
) -> Option<crate::FailureClass> {
    match status {
        RunStatus::Failed => Some(reported.unwrap_or(crate::FailureClass::App)),
        RunStatus::Errored => Some(reported.unwrap_or(crate::FailureClass::Infra)),
        RunStatus::Lost => Some(crate::FailureClass::Device),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_action_records_still_parse() {
        let old = r#"{"step":0,"action":0,"kind":"tap","detail":"tap","ok":true,
            "disposition":"delivered_unverified","started_at":"2024-01-01T00:00:00Z",
            "finished_at":"2024-01-01T00:00:01Z","timings":{"perceive_ms":1.0,"act_ms":2.0,
            "screenshot_ms":3.0,"upload_ms":4.0}}"#;
        let r: ActionRecord = serde_json::from_str(old).unwrap();
        assert_eq!(r.retry, RetryAdvice::Unsafe);
        assert!(r.usage.is_none() && r.plan.is_none() && r.reflection.is_none());
        let mut n = ActionRecord::new(
            1,
            2,
            "plan",
            "p".into(),
            true,
            None,
            Disposition::NotDelivered,
            Utc::now(),
        );
        assert_eq!(n.retry, RetryAdvice::Safe);
        n.reflection = Some(Reflection {
            class: ReflectClass::C,
            note: "same".into(),
        });
        let back: ActionRecord = serde_json::from_str(&serde_json::to_string(&n).unwrap()).unwrap();
        assert_eq!(back, n);
    }
}

#[cfg(test)]
mod failure_class_tests {
    use super::*;
    use crate::FailureClass;

    #[test]
    fn only_failures_are_classed() {
        assert_eq!(
            failure_class(RunStatus::Failed, None),
            Some(FailureClass::App)
        );
        assert_eq!(
            failure_class(RunStatus::Errored, Some(FailureClass::Device)),
            Some(FailureClass::Device)
        );
        assert_eq!(
            failure_class(RunStatus::Errored, None),
            Some(FailureClass::Infra)
        );
        assert_eq!(
            failure_class(RunStatus::Lost, None),
            Some(FailureClass::Device)
        );
        for s in [
            RunStatus::TimedOut,
            RunStatus::Cancelled,
            RunStatus::Succeeded,
        ] {
            assert_eq!(failure_class(s, Some(FailureClass::Device)), None);
        }
    }
}
