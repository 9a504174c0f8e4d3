//! The answer of `GET /api/v1/suites/{id}`: a suite's verdict over the latest run of each
//! of its cases, and the cases.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::SuiteVerdict;
use crate::events::RunStatus;

/// One case of a suite (a job × data row × device cell) and its runs' outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SuiteJob {
    /// The job.
    pub job_id: Uuid,
    /// Its name (`job N` when it has none; a data row's label follows it).
    pub name: String,
    /// Its device cell, e.g. `model=Pixel 7`.
    pub cell: String,
    /// Status of the latest run.
    pub status: RunStatus,
    /// Run ids oldest first; the last is the latest.
    pub runs: Vec<Uuid>,
    /// Error of the latest run.
    pub error: Option<String>,
    /// Who is to blame for the latest run, when it ended `failed`, `errored` or `lost`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<crate::FailureClass>,
    /// Seconds the latest run took.
    pub duration_s: Option<f64>,
    /// Passed only on a retry.
    pub flaky: bool,
    /// The latest run's device.
    pub device_id: Option<String>,
    /// What decided the latest run's status (its verdict's `basis`), once it has one.
    pub verdict_basis: Option<String>,
    /// The latest run's first failed step, when one failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failing_step: Option<FailingStep>,
}

/// The first step of a run that failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FailingStep {
    /// 0-based step index: the report's anchor is `/runs/{run}#step-{index}` and people read
    /// it as step `index + 1` (a run with a start URL opens it as its first step).
    pub index: u32,
    /// The step as written.
    pub text: String,
    /// The screenshot taken after acting, at or before this step (dashboard path
    /// `/artifacts/runs/…`, served to callers who may see the run); absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot_url: Option<String>,
}

/// The answer to `GET /api/v1/suites/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SuiteView {
    /// The suite.
    pub suite_id: Uuid,
    /// Its name.
    pub name: String,
    /// Its team.
    pub team_id: String,
    /// When it was submitted.
    pub created_at: DateTime<Utc>,
    /// The definition it was made from (the `POST /api/v1/suites` body); absent for suites
    /// made before definitions were kept. `POST /api/v1/suites/{id}/run` runs it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<super::SuiteSpec>,
    /// `running` while any latest run has not ended, else `passed` when all succeeded,
    /// else `failed` (an `unverified` case is not a pass).
    pub verdict: SuiteVerdict,
    /// Cases whose latest run succeeded.
    pub passed: u64,
    /// Ended cases that neither passed nor are unverified (failed, errored, timed out, …).
    pub failed: u64,
    /// Cases whose latest run ended `unverified`: nothing was checked, so not a pass.
    pub unverified: u64,
    /// Cases that passed only on a retry.
    pub flaky: u64,
    /// The cases, in submission order.
    pub jobs: Vec<SuiteJob>,
}
