//! Answers of `/api/v1/jobs/{id}…` and `/api/v1/runs…` other than the run detail
//! ([`crate::RunDetail`]): a job with its runs, what a cancel did, the learned replay
//! script of a job's key, and the run list's rows.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::events::RunStatus;
use crate::job::{Cache, JobSpec};

/// One run of a job, as `GET /api/v1/jobs/{id}` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobRun {
    /// The run.
    pub run_id: Uuid,
    /// Its status now.
    pub status: RunStatus,
    /// When it was queued.
    pub created_at: DateTime<Utc>,
}

/// The answer to `GET /api/v1/jobs/{id}`: the job as submitted and its runs, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobView {
    /// The job.
    pub job_id: Uuid,
    /// The spec as stored (defaults filled).
    pub spec: JobSpec,
    /// When it was submitted.
    pub created_at: DateTime<Utc>,
    /// Its runs (the first one and retries).
    pub runs: Vec<JobRun>,
}

/// A run a cancel reached, with the status it is in now: `cancelled` (it was queued) or
/// its running status (it stops at its next action boundary).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunCancelled {
    /// The run.
    pub run_id: Uuid,
    /// Its status after the cancel.
    pub status: RunStatus,
}

/// The answer to `POST /api/v1/jobs/{id}/cancel`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobCancelled {
    /// The job.
    pub job_id: Uuid,
    /// Its runs that had not ended; empty when all had.
    pub cancelled: Vec<RunCancelled>,
}

/// The answer to `POST /api/v1/runs/{id}/cancel` (a run that already ended is a 409).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunCancelRequested {
    /// The run.
    pub run_id: Uuid,
    /// `cancelled` (it was queued) or its running status (it stops at its next action
    /// boundary).
    pub status: RunStatus,
    /// Always `true`.
    pub cancel_requested: bool,
}

/// A replay script stored under a job key (learned replay, see the `replay` module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReplayEntry {
    /// The job key (sha256 hex).
    pub key: String,
    /// The script, in the step language.
    pub script: String,
    /// The run it was learned from.
    pub source_run_id: Uuid,
    /// First stored.
    pub created_at: DateTime<Utc>,
    /// Last stored or updated.
    pub updated_at: DateTime<Utc>,
    /// Runs that replayed it.
    pub hits: i64,
    /// The last of them; `None` before the first.
    pub last_hit_at: Option<DateTime<Utc>>,
}

/// The answer to `GET /api/v1/jobs/{id}/replay`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobReplay {
    /// The job.
    pub job_id: Uuid,
    /// Its key (sha256 hex); `None` for a script job (it has none).
    pub key: Option<String>,
    /// What the job does with stored scripts.
    pub cache: Cache,
    /// The script stored under the key; `None` when there is none.
    pub entry: Option<ReplayEntry>,
}

/// The answer to `DELETE /api/v1/jobs/{id}/replay`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReplayCleared {
    /// The job.
    pub job_id: Uuid,
    /// Whether a script was stored (and is now gone).
    pub cleared: bool,
}

/// One row of `GET /api/v1/runs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunSummary {
    /// The run.
    pub id: Uuid,
    /// Its job.
    pub job_id: Uuid,
    /// Its status now.
    pub status: RunStatus,
    /// The job's platform (`web`, `android`, …).
    pub platform: String,
    /// The job's name, if it has one.
    pub name: Option<String>,
    /// The device it ran on, once assigned.
    pub device_id: Option<String>,
    /// Why it did not succeed.
    pub error: Option<String>,
    /// Who is to blame, for a `failed`, `errored` or `lost` run (`app`, `device`, `infra`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<crate::FailureClass>,
    /// Set only on a health probe: the quarantined device it checks (see the run detail's
    /// `probe_device`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_device: Option<String>,
    /// The team it belongs to.
    pub team_id: String,
    /// The suite it is part of.
    pub suite_id: Option<Uuid>,
    /// The schedule that fired it.
    pub schedule_id: Option<Uuid>,
    /// Its matrix cell (`model=Pixel 7`), in a suite or schedule.
    pub matrix_cell: Option<String>,
    /// The run it retries.
    pub retry_of: Option<Uuid>,
    /// When it was queued.
    pub created_at: DateTime<Utc>,
    /// When it ended.
    pub finished_at: Option<DateTime<Utc>>,
}

/// Where a run stands in its job's chain of attempts (`retries`, `retry_elsewhere`): part of
/// the run detail (`GET /api/v1/runs/{id}`, field `attempts`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunAttempts {
    /// The earlier attempt this run retries; absent for a job's first run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_of: Option<Uuid>,
    /// The attempt that retried this run, once one was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_attempt: Option<Uuid>,
    /// Devices this run may not run on: those of the earlier attempts it retries elsewhere
    /// (`retry_elsewhere`); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub avoid_devices: Vec<String>,
    /// A failed attempt of a job that a later attempt passed (on another device or on a
    /// plain retry).
    #[serde(default)]
    pub flaky: bool,
}
