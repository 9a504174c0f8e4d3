//! Reading the farm's history for the insights page: pass rate per day grouped by suite,
//! platform or device; runs that passed on retry (flaky); the slowest steps. Every query is
//! limited to one team unless the caller is an admin (`team = None`). Health probes (the
//! coordinator's own jobs, `store/probes.rs`) are left out of pass rates and slow steps: a
//! device quarantined for a day would otherwise add a probe a minute to its platform's.

use super::TeamScope;
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// What a pass-rate series is grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// The suite's name (runs outside a suite are left out).
    Suite,
    /// The job's platform.
    Platform,
    /// The device that ran it.
    Device,
}

impl GroupBy {
    /// `suite`, `platform` or `device`.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Suite => "suite",
            GroupBy::Platform => "platform",
            GroupBy::Device => "device",
        }
    }
}

/// Results of one group on one UTC day.
#[derive(Debug, Clone, PartialEq)]
pub struct DayRate {
    /// Suite name, platform or device id.
    pub grp: String,
    /// Midnight UTC of the day.
    pub day: DateTime<Utc>,
    /// Runs that succeeded.
    pub passed: i64,
    /// Runs with a verdict: succeeded, unverified (counted, never as passed), failed or
    /// timed out (errored, cancelled and lost runs have none). Each attempt counts: a retry
    /// is a run of its own.
    pub total: i64,
}

/// Pass rate per group and day for `scope`'s runs finished since `since`, oldest day first.
pub async fn pass_rates(
    pool: &PgPool,
    scope: &TeamScope,
    since: DateTime<Utc>,
    by: GroupBy,
) -> Result<Vec<DayRate>, sqlx::Error> {
    sqlx::query_as!(
        DayRate,
        r#"select g.grp as "grp!", date_trunc('day', r.finished_at, 'UTC') as "day!",
                count(*) filter (where r.status = 'succeeded') as "passed!",
                count(*) as "total!"
           from runs r
           join jobs j on j.id = r.job_id
           left join suites s on s.id = j.suite_id
          cross join lateral (select case $3 when 'suite' then s.name
                                             when 'platform' then j.platform
                                             else r.device_id end as grp) g
          where ($1::text is null or r.team_id = $1)
            and r.finished_at >= $2
            and r.status in ('succeeded', 'unverified', 'failed', 'timed_out')
            and r.probe_device is null
            and g.grp is not null
          group by 1, 2
          order by 2, 1"#,
        scope.team(),
        since,
        by.as_str()
    )
    .fetch_all(pool)
    .await
}

/// A run that passed on retry.
#[derive(Debug, Clone, PartialEq)]
pub struct Flaky {
    /// The passing run.
    pub run_id: Uuid,
    /// The run it retried (failed, errored, timed out or lost).
    pub retry_of: Uuid,
    /// The job's name, else the start of its instruction.
    pub job: String,
    pub platform: String,
    pub device_id: Option<String>,
    pub finished_at: DateTime<Utc>,
    /// Runs of the job up to and including the passing one.
    pub attempts: i64,
}

/// `scope`'s runs finished since `since` that succeeded as a retry, newest first, at most
/// `limit`.
pub async fn flaky(
    pool: &PgPool,
    scope: &TeamScope,
    since: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<Flaky>, sqlx::Error> {
    sqlx::query_as!(
        Flaky,
        r#"select r.id as run_id, r.retry_of as "retry_of!",
                coalesce(j.name, left(j.spec ->> 'instruction', 80)) as "job!",
                j.platform, r.device_id, r.finished_at as "finished_at!",
                (select count(*) from runs x where x.job_id = r.job_id and x.created_at <= r.created_at)
                    as "attempts!"
           from runs r join jobs j on j.id = r.job_id
          where ($1::text is null or r.team_id = $1)
            and r.status = 'succeeded' and r.retry_of is not null and r.finished_at >= $2
          order by r.finished_at desc
          limit $3"#,
        scope.team(),
        since,
        limit
    )
    .fetch_all(pool)
    .await
}

/// One step as written, over the runs of one job that ran it.
#[derive(Debug, Clone, PartialEq)]
pub struct SlowStep {
    /// The job's name, else the start of its instruction.
    pub job: String,
    pub platform: String,
    /// The step as written.
    pub text: String,
    /// Runs that ran it.
    pub n: i64,
    /// Mean and longest wall time, ms.
    pub avg_ms: f64,
    pub max_ms: f64,
    /// The run where it took longest (its step index in `step`).
    pub slowest_run: Uuid,
    pub step: i32,
}

/// The steps with the longest mean wall time in `scope`'s runs queued since `since`, at
/// most `limit`.
pub async fn slowest_steps(
    pool: &PgPool,
    scope: &TeamScope,
    since: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<SlowStep>, sqlx::Error> {
    sqlx::query_as!(
        SlowStep,
        r#"select coalesce(j.name, left(j.spec ->> 'instruction', 80)) as "job!", j.platform,
                s.text, count(*) as "n!", avg(s.duration_ms) as "avg_ms!",
                max(s.duration_ms) as "max_ms!",
                (array_agg(s.run_id order by s.duration_ms desc))[1] as "slowest_run!",
                (array_agg(s.step order by s.duration_ms desc))[1] as "step!"
           from steps s
           join runs r on r.id = s.run_id and r.attempt_id = s.attempt_id
           join jobs j on j.id = r.job_id
          where ($1::text is null or r.team_id = $1)
            and r.created_at >= $2 and s.duration_ms is not null and r.probe_device is null
          group by 1, 2, 3
          order by 5 desc
          limit $3"#,
        scope.team(),
        since,
        limit
    )
    .fetch_all(pool)
    .await
}
