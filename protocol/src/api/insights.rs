//! The answer of `GET /api/v1/insights/builds`: how a job (by name) or a suite (by name)
//! fared per app build, and the build each job started failing on.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The runs of one app build.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BuildPassRate {
    /// The build (a job's `app_build`).
    pub app_build: String,
    /// Runs that succeeded.
    pub passed: u64,
    /// Runs with a verdict: succeeded, unverified (never a pass), failed, timed out. Each
    /// attempt counts, a retry too.
    pub total: u64,
    /// `passed / total`, 0 to 1.
    pub pass_rate: f64,
    /// When the build's first counted run ended; builds are listed in this order.
    pub first_run_at: DateTime<Utc>,
}

/// Where one job turned from passing to failing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobFirstFailing {
    /// The job's name.
    pub job: String,
    /// The earliest build after which every run of the job failed (runs ordered by when
    /// they ended): the build of the first run after its last pass, or of its first run
    /// when it never passed. Absent when its latest run passed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_failing_build: Option<String>,
    /// Runs that failed in a row, up to the latest.
    pub failing_runs: u64,
    /// The build of its latest run.
    pub latest_build: String,
}

/// The answer to `GET /api/v1/insights/builds`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BuildInsights {
    /// The job name asked about, when it was a job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    /// The suite name asked about, when it was a suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    /// Pass rate per build, in the order the builds first ran. Runs of jobs without an
    /// `app_build` are left out; at most the latest 5,000 runs are read.
    pub builds: Vec<BuildPassRate>,
    /// Per job (a suite has several), in the order they first ran.
    pub jobs: Vec<JobFirstFailing>,
}
