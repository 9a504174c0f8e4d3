//! Request and answer bodies of the coordinator's HTTP API: the submit answer, suite and
//! schedule specs, the suite verdict and the missed-tick policy here; the answers about
//! jobs and runs in [`jobs`], schedules in [`schedules`], suites in [`suites`], devices,
//! parked events and health in [`farm`], device health in [`health`], runs by app build in
//! [`insights`] (the run detail is [`crate::RunDetail`]). Every
//! `/api/v1` operation answers one of these, the coordinator builds them and `argus`
//! reads them, so the JSON shapes are written once. With the `openapi` feature they derive
//! `utoipa::ToSchema`, and the coordinator's generated OpenAPI document describes them from
//! these definitions.

pub mod farm;
pub mod health;
pub mod insights;
pub mod jobs;
pub mod schedules;
pub mod suites;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use farm::{DeadEvent, DeadEventList, DeviceList, DeviceSlot, Health};
pub use health::{
    DeviceHealth, DeviceHealthChanged, HealthChange, HealthEvent, HealthEventList, HealthState,
    HealthWindow,
};
pub use insights::{BuildInsights, BuildPassRate, JobFirstFailing};
pub use jobs::{
    JobCancelled, JobReplay, JobRun, JobView, ReplayCleared, ReplayEntry, RunAttempts,
    RunCancelRequested, RunCancelled, RunSummary,
};
pub use schedules::{ScheduleCreated, ScheduleRun, ScheduleRunJob, ScheduleView};
pub use suites::{FailingStep, SuiteJob, SuiteView};

use crate::events::RunStatus;
use crate::job::{JobSpec, Selector};

/// The answer to `POST /api/v1/jobs` (201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobCreated {
    /// The stored job.
    pub job_id: Uuid,
    /// Its first run.
    pub run_id: Uuid,
    /// The run's status: `queued`.
    pub status: RunStatus,
    /// `GET` this for the run's detail (JSON).
    pub run_url: String,
    /// The run's HTML report.
    pub report_url: String,
    /// Something the submitter should know that did not stop the job; absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// `POST /api/v1/suites` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SuiteSpec {
    /// Suite name (history and pass-rate are kept per name).
    pub name: String,
    /// The jobs; give each a `name`.
    pub jobs: Vec<JobSpec>,
    /// Device matrix: every job runs once per cell. Default: each job's own selector.
    #[serde(default)]
    pub matrix: Vec<Selector>,
    /// Data rows (data-driven tests): every job runs once per row (and per device cell),
    /// its `vars` the job's own with the row's on top, its name followed by the row
    /// (`login [user=alice]`), so the verdict and JUnit list each row as its own test case.
    /// At most 100 rows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vars_matrix: Vec<std::collections::BTreeMap<String, String>>,
    /// `retry_elsewhere` of every job that does not set its own (0 to 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(maximum = 5))]
    pub retry_elsewhere: Option<u32>,
}

impl SuiteSpec {
    /// The suite's jobs, one per job × data row (all jobs as given when there are no rows),
    /// each with the row's vars laid over its own and its name suffixed with the row; with
    /// the index of the job it came from and the row's label (`None` without rows).
    pub fn rows_expanded(&self) -> Vec<(usize, JobSpec, Option<String>)> {
        let mut out = Vec::new();
        for (i, job) in self.jobs.iter().enumerate() {
            let mut job = job.clone();
            if job.retry_elsewhere == 0 {
                job.retry_elsewhere = self.retry_elsewhere.unwrap_or(0);
            }
            if self.vars_matrix.is_empty() {
                out.push((i, job, None));
                continue;
            }
            for row in &self.vars_matrix {
                let mut spec = job.clone();
                spec.vars
                    .extend(row.iter().map(|(k, v)| (k.clone(), v.clone())));
                let label: String = row
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
                    .chars()
                    .take(80)
                    .collect();
                let name = job.name.clone().unwrap_or_else(|| format!("job {}", i + 1));
                let name: String = name.chars().take(110).collect();
                spec.name = Some(format!("{name} [{label}]"));
                out.push((i, spec, Some(label)));
            }
        }
        out
    }
}

/// One job of a created suite: a job × matrix cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SuiteJobCreated {
    /// The job.
    pub job_id: Uuid,
    /// Its first run.
    pub run_id: Uuid,
    /// The cell, e.g. `model=Pixel 7`.
    pub cell: String,
}

/// The answer to `POST /api/v1/suites` (201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SuiteCreated {
    /// The suite.
    pub suite_id: Uuid,
    /// `GET` this for its verdict (JSON).
    pub suite_url: String,
    /// Its JUnit XML.
    pub junit_url: String,
    /// One entry per job × cell.
    pub jobs: Vec<SuiteJobCreated>,
    /// One line per job no registered device matches yet (queued anyway), e.g.
    /// `jobs[2] (os=ios): no registered device matches …`; left out when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A suite's verdict over the latest run of each of its jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum SuiteVerdict {
    /// Some latest run has not ended.
    Running,
    /// Every latest run succeeded.
    Passed,
    /// All ended, not all succeeded.
    Failed,
}

impl SuiteVerdict {
    /// The wire name: `running`, `passed`, `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            SuiteVerdict::Running => "running",
            SuiteVerdict::Passed => "passed",
            SuiteVerdict::Failed => "failed",
        }
    }
}

impl std::fmt::Display for SuiteVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a schedule does about ticks that passed while no coordinator ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum MissedTicks {
    /// Fire nothing for ticks older than the latest due one (the default).
    #[default]
    Skip,
    /// Fire once for the missed ticks.
    RunOnce,
}

impl MissedTicks {
    /// The wire and database name: `skip`, `run_once`.
    pub fn as_str(self) -> &'static str {
        match self {
            MissedTicks::Skip => "skip",
            MissedTicks::RunOnce => "run_once",
        }
    }

    /// Parses the wire name; `None` for anything else.
    pub fn parse(s: &str) -> Option<MissedTicks> {
        match s {
            "skip" => Some(MissedTicks::Skip),
            "run_once" => Some(MissedTicks::RunOnce),
            _ => None,
        }
    }
}

/// A schedule as submitted to `POST /api/v1/schedules`, stored, and shown.
/// Unknown fields are refused (a misspelt `timezone` must not silently mean UTC).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScheduleSpec {
    /// Display name.
    pub name: String,
    /// Five-field cron expression.
    pub cron: String,
    /// IANA timezone. Default `UTC`.
    #[serde(default = "utc")]
    #[cfg_attr(feature = "openapi", schema(default = "UTC"))]
    pub timezone: String,
    /// The job each cell runs; its own selector is replaced by the cell's.
    pub template: JobSpec,
    /// Device matrix: one selector per cell. Default: one cell, the template's selector.
    #[serde(default)]
    pub matrix: Vec<Selector>,
    /// Missed-tick policy. Default `skip`.
    #[serde(default)]
    pub missed: MissedTicks,
    /// Start paused.
    #[serde(default)]
    pub paused: bool,
}

fn utc() -> String {
    "UTC".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_stay_as_they_were() {
        let id = Uuid::nil();
        let created = JobCreated {
            job_id: id,
            run_id: id,
            status: RunStatus::Queued,
            run_url: "u".into(),
            report_url: "r".into(),
            warning: None,
        };
        let v = serde_json::to_value(&created).expect("json");
        assert_eq!(
            v,
            serde_json::json!({"job_id": id, "run_id": id, "status": "queued",
                "run_url": "u", "report_url": "r"})
        );
        let back: JobCreated = serde_json::from_value(v).expect("read back");
        assert_eq!(back, created);
        assert_eq!(
            serde_json::to_value(MissedTicks::RunOnce).expect("json"),
            "run_once"
        );
        assert_eq!(MissedTicks::parse("skip"), Some(MissedTicks::Skip));
        assert_eq!(
            serde_json::to_value(SuiteVerdict::Passed).expect("json"),
            "passed"
        );
        let s: ScheduleSpec = serde_json::from_value(serde_json::json!({
            "name": "n", "cron": "* * * * *",
            "template": {"platform": "web", "instruction": "wait 1ms"}}))
        .expect("defaults");
        assert_eq!((s.missed, s.timezone.as_str()), (MissedTicks::Skip, "UTC"));
    }
}
