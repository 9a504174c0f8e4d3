//! Run events: what a worker streams back while it runs a job.
//!
//! Each event carries the run id, the attempt id that fences it (an event from a stale
//! attempt is ignored by the coordinator) and a per-run sequence number starting at 1; the
//! coordinator applies each `(run_id, seq)` exactly once. Events are published to
//! [`crate::subjects::Subjects::events`] with `Nats-Msg-Id = "<run_id>:<seq>"`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// State of a run. `queued → assigned → running → succeeded | failed | errored | cancelled |
/// timed_out | lost`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Waiting for a free matching device slot.
    Queued,
    /// Claimed for a device; the assignment is on its way to the worker.
    Assigned,
    /// The worker has started it.
    Running,
    /// Every step passed.
    Succeeded,
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
            Queued, Assigned, Running, Succeeded, Failed, Errored, Cancelled, TimedOut, Lost,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryAdvice {
    /// Nothing landed; repeat freely.
    Safe,
    /// It may have landed; observe and reflect before doing anything again.
    Unsafe,
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
    /// Uploading the screenshots to storage, ms.
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
    /// The run ended; teardown has run.
    RunFinished {
        /// Terminal status.
        status: RunStatus,
        /// Why, when not succeeded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
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
