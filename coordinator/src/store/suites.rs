//! Suites: a named batch of jobs (job × device-matrix cell) stored in one transaction, and
//! their aggregate verdict computed from each job's runs.

use argus_protocol::SuiteVerdict;
use argus_protocol::{JobSpec, SuiteSpec};
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use super::jobs::{self, JobMeta};
use super::TeamScope;

/// Creates the suite (keeping `def`, the definition it was made from, for "run again" and
/// "edit") and one job per `(spec, cell)`, all in one transaction; returns the suite id and
/// `(job_id, run_id, cell)` per job.
pub async fn insert(
    pool: &PgPool,
    team: &str,
    def: &SuiteSpec,
    jobs: &[(JobSpec, String)],
) -> Result<(Uuid, Vec<(Uuid, Uuid, String)>), sqlx::Error> {
    let id = Uuid::new_v4();
    let spec = serde_json::to_value(def).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
    let mut tx = pool.begin().await?;
    sqlx::query!(
        "insert into suites (id, team_id, name, spec) values ($1, $2, $3, $4)",
        id,
        team,
        def.name,
        spec
    )
    .execute(&mut *tx)
    .await?;
    let mut out = Vec::new();
    for (pos, (spec, cell)) in jobs.iter().enumerate() {
        let meta = JobMeta {
            team_id: team.to_string(),
            suite_id: Some(id),
            matrix_cell: Some(cell.clone()),
            suite_position: i32::try_from(pos).ok(),
            ..Default::default()
        };
        let (job, run) = jobs::insert(&mut *tx, spec, &meta).await?;
        out.push((job, run, cell.clone()));
    }
    tx.commit().await?;
    Ok((id, out))
}

/// One job of a suite with its runs' outcome.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SuiteJob {
    pub job_id: Uuid,
    pub name: String,
    pub cell: String,
    /// Status of the latest run.
    pub status: String,
    /// Run ids oldest first; the last is the latest.
    pub runs: Vec<Uuid>,
    /// Error of the latest run.
    pub error: Option<String>,
    /// The latest run's failure class (`app`, `device`, `infra`), when it has one.
    pub failure_class: Option<String>,
    /// Seconds the latest run took.
    pub duration_s: Option<f64>,
    /// Passed only on a retry.
    pub flaky: bool,
    /// The latest run's device.
    pub device_id: Option<String>,
    /// What decided the latest run's status (its verdict's `basis`), once it has one.
    pub verdict_basis: Option<String>,
    /// The job's platform (`web`, `android`, …).
    pub platform: String,
    /// The latest run's failing step, when one failed.
    pub failing_step: Option<FailingStep>,
}

/// The first step of a run that failed, as the report shows it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FailingStep {
    /// 0-based step index (the report's anchor is `#step-<index>`; people read index + 1).
    pub index: i32,
    /// The step as written.
    pub text: String,
    /// Object key of the latest screenshot taken after acting, up to and including this
    /// step (served at `/artifacts/<key>`); `None` when there is none.
    pub after_key: Option<String>,
}

/// A suite and its verdict.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SuiteView {
    pub suite_id: Uuid,
    pub name: String,
    pub team_id: String,
    pub created_at: DateTime<Utc>,
    /// The definition it was made from; `None` for suites made before definitions were
    /// kept (migration 0018).
    pub spec: Option<SuiteSpec>,
    /// `running` while any latest run is not terminal, else `passed` when all succeeded,
    /// else `failed` (an `unverified` case is not a pass: the suite fails).
    pub verdict: SuiteVerdict,
    /// Cases whose latest run succeeded.
    pub passed: usize,
    /// Ended cases that neither passed nor are unverified (failed, errored, timed out, …).
    pub failed: usize,
    /// Cases whose latest run ended `unverified`: nothing was checked, so not a pass.
    pub unverified: usize,
    pub flaky: usize,
    pub jobs: Vec<SuiteJob>,
}

/// One run of a suite's job, as [`view`] reads them (job order, then run order).
struct JobRunRow {
    job_id: Uuid,
    name: Option<String>,
    matrix_cell: Option<String>,
    run_id: Uuid,
    status: String,
    error: Option<String>,
    failure_class: Option<String>,
    /// Seconds from start to finish; `None` until both are set.
    duration_s: Option<f64>,
    device_id: Option<String>,
    verdict_basis: Option<String>,
    platform: String,
    step_index: Option<i32>,
    step_text: Option<String>,
    after_key: Option<String>,
}

/// Loads a suite in `scope`.
pub async fn view(
    pool: &PgPool,
    id: Uuid,
    scope: &TeamScope,
) -> Result<Option<SuiteView>, sqlx::Error> {
    let head = sqlx::query!(
        "select name, team_id, created_at, spec from suites
          where id = $1 and ($2::text is null or team_id = $2)",
        id,
        scope.team()
    )
    .fetch_optional(pool)
    .await?;
    let Some(head) = head else {
        return Ok(None);
    };
    let (name, team_id, created_at) = (head.name, head.team_id, head.created_at);
    // A definition that no longer parses (a field since removed) only loses "run again".
    let spec = head.spec.and_then(|v| serde_json::from_value(v).ok());
    let rows = sqlx::query_as!(
        JobRunRow,
        r#"select j.id as job_id, j.name, j.matrix_cell, r.id as run_id, r.status, r.error,
                  r.failure_class,
                  extract(epoch from r.finished_at - r.started_at)::float8 as duration_s,
                  r.device_id, r.verdict ->> 'basis' as verdict_basis, j.platform,
                  f.step as "step_index?", f.text as "step_text?", f.after_key
             from jobs j join runs r on r.job_id = j.id
             left join lateral (
                  select s.step, s.text,
                         (select a.record ->> 'after_key' from actions a
                           where a.run_id = s.run_id and a.attempt_id = s.attempt_id
                             and a.step <= s.step and a.record ? 'after_key'
                           order by a.step desc, a.action desc limit 1) as after_key
                    from steps s
                   where s.run_id = r.id and s.attempt_id = r.attempt_id and s.ok = false
                   order by s.step limit 1) f on true
            where j.suite_id = $1
            order by j.suite_position nulls last, j.created_at, j.id, r.created_at, r.id"#,
        id
    )
    .fetch_all(pool)
    .await?;
    let jobs = fold(rows);
    let terminal = |s: &str| !matches!(s, "queued" | "assigned" | "running");
    let passed = jobs.iter().filter(|j| j.status == "succeeded").count();
    let unverified = jobs.iter().filter(|j| j.status == "unverified").count();
    let done = jobs.iter().filter(|j| terminal(&j.status)).count();
    let verdict = if done < jobs.len() {
        SuiteVerdict::Running
    } else if passed == jobs.len() {
        SuiteVerdict::Passed
    } else {
        SuiteVerdict::Failed
    };
    Ok(Some(SuiteView {
        suite_id: id,
        name,
        team_id,
        created_at,
        spec,
        verdict,
        passed,
        failed: done - passed - unverified,
        unverified,
        flaky: jobs.iter().filter(|j| j.flaky).count(),
        jobs,
    }))
}

/// Folds the runs (job order, then run order) into one case per job: the latest run's
/// outcome, flaky when it succeeded after an earlier run did not.
fn fold(rows: Vec<JobRunRow>) -> Vec<SuiteJob> {
    let mut jobs: Vec<SuiteJob> = Vec::new();
    let mut failed_before: Vec<bool> = Vec::new();
    for row in rows {
        let failing_step = match (row.step_index, row.step_text) {
            (Some(index), Some(text)) => Some(FailingStep {
                index,
                text,
                after_key: row.after_key,
            }),
            _ => None,
        };
        let job = SuiteJob {
            job_id: row.job_id,
            name: row.name.unwrap_or_else(|| row.job_id.to_string()),
            cell: row.matrix_cell.unwrap_or_else(|| "any".into()),
            status: row.status,
            runs: vec![row.run_id],
            error: row.error,
            failure_class: row.failure_class,
            duration_s: row.duration_s,
            flaky: false,
            device_id: row.device_id,
            verdict_basis: row.verdict_basis,
            platform: row.platform,
            failing_step,
        };
        match jobs.last_mut() {
            Some(j) if j.job_id == job.job_id => {
                if let Some(fb) = failed_before.last_mut() {
                    *fb |= j.status != "succeeded";
                }
                let mut runs = std::mem::take(&mut j.runs);
                runs.push(row.run_id);
                *j = SuiteJob { runs, ..job };
            }
            _ => {
                jobs.push(job);
                failed_before.push(false);
            }
        }
    }
    for (j, fb) in jobs.iter_mut().zip(failed_before) {
        j.flaky = fb && j.status == "succeeded";
    }
    jobs
}

/// `(suite_id, created_at)` of the last `n` suites named `name` in `team`, newest first.
pub async fn history(
    pool: &PgPool,
    team: &str,
    name: &str,
    n: i64,
) -> Result<Vec<(Uuid, DateTime<Utc>)>, sqlx::Error> {
    let rows = sqlx::query!(
        "select id, created_at from suites where team_id = $1 and name = $2
          order by created_at desc limit $3",
        team,
        name,
        n
    )
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(|r| (r.id, r.created_at)).collect())
}

/// Recent suites in `scope`: `(id, name, created_at)`.
pub async fn recent(
    pool: &PgPool,
    scope: &TeamScope,
    n: i64,
) -> Result<Vec<(Uuid, String, DateTime<Utc>)>, sqlx::Error> {
    let rows = sqlx::query!(
        "select id, name, created_at from suites where ($1::text is null or team_id = $1)
          order by created_at desc limit $2",
        scope.team(),
        n
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| (r.id, r.name, r.created_at))
        .collect())
}
