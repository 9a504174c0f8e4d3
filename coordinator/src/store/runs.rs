//! Reading runs back: the full [`RunDetail`] of one run and the recent-runs list.

use argus_protocol::expect::{Expectation, Verdict};
use argus_protocol::{ActionRecord, JobSpec, RunDetail, RunStatus, StepView};
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

type RunRow = (
    Uuid,
    Uuid,
    sqlx::types::Json<JobSpec>,
    String,
    Option<Uuid>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<i32>,
    Option<i32>,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    String,
    sqlx::types::Json<Vec<Expectation>>,
    Option<sqlx::types::Json<Verdict>>,
);

/// `(step, text, ok, error, duration_ms)`.
type StepRow = (i32, String, Option<bool>, Option<String>, Option<f64>);

/// The run with the steps and actions of its current attempt, and its team; `None` if
/// absent.
pub async fn detail(pool: &PgPool, id: Uuid) -> Result<Option<(RunDetail, String)>, sqlx::Error> {
    let row: Option<RunRow> = sqlx::query_as(
        "select r.id, r.job_id, j.spec, r.status, r.attempt_id, r.error, r.device_id, r.worker_id,
                r.screen_w_px, r.screen_h_px, r.created_at, r.started_at, r.finished_at, r.team_id,
                r.expectations, r.verdict
           from runs r join jobs j on j.id = r.job_id where r.id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?;
    let Some((
        run_id,
        job_id,
        spec,
        status,
        attempt,
        error,
        device,
        worker,
        w,
        h,
        created,
        started,
        finished,
        team,
        expectations,
        verdict,
    )) = row
    else {
        return Ok(None);
    };
    let mut d = RunDetail::new(run_id, job_id, spec.0, created);
    d.status = RunStatus::parse(&status).unwrap_or(RunStatus::Errored);
    d.error = error;
    d.device_id = device;
    d.worker_id = worker;
    d.screen_px = w.zip(h).map(|(w, h)| [w as u32, h as u32]);
    d.started_at = started;
    d.finished_at = finished;
    d.expectations = expectations.0;
    d.verdict = verdict.map(|v| v.0);
    if let Some(attempt) = attempt {
        let steps: Vec<StepRow> = sqlx::query_as(
            "select step, text, ok, error, duration_ms from steps
              where run_id = $1 and attempt_id = $2 order by step",
        )
        .bind(run_id)
        .bind(attempt)
        .fetch_all(pool)
        .await?;
        let actions: Vec<(sqlx::types::Json<ActionRecord>,)> = sqlx::query_as(
            "select record from actions where run_id = $1 and attempt_id = $2 order by step, action",
        )
        .bind(run_id)
        .bind(attempt)
        .fetch_all(pool)
        .await?;
        d.steps = steps
            .into_iter()
            .map(|(step, text, ok, error, duration_ms)| StepView {
                index: step as u32,
                text,
                ok,
                error,
                duration_ms,
                actions: actions
                    .iter()
                    .filter(|a| a.0.step == step as u32)
                    .map(|a| a.0 .0.clone())
                    .collect(),
            })
            .collect();
    }
    Ok(Some((d, team)))
}

/// The run's live key ([`crate::report::verdict::live_key`]: status, actions, expectations)
/// read with one small query instead of loading the whole run: counted the way
/// [`detail`] builds the run (the current attempt's actions of steps that exist), so the
/// key matches the one the report page was rendered with. Returns the run's status and the
/// key; `None` when there is no such run.
///
/// Errors: the database's.
pub async fn live_key(pool: &PgPool, id: Uuid) -> Result<Option<(RunStatus, String)>, sqlx::Error> {
    let row: Option<(String, i64, i32)> = sqlx::query_as(
        "select r.status,
                (select count(*) from actions a
                  where a.run_id = r.id and a.attempt_id = r.attempt_id
                    and exists (select 1 from steps s
                                 where s.run_id = a.run_id and s.attempt_id = a.attempt_id
                                   and s.step = a.step)),
                jsonb_array_length(r.expectations)
           from runs r where r.id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(status, actions, expectations)| {
        let status = RunStatus::parse(&status).unwrap_or(RunStatus::Errored);
        let key = crate::report::verdict::live_key_of(
            status,
            usize::try_from(actions).unwrap_or(0),
            usize::try_from(expectations).unwrap_or(0),
        );
        (status, key)
    }))
}

/// One line of the runs list.
#[derive(Debug, Clone, serde::Serialize, sqlx::FromRow)]
pub struct RunSummary {
    pub id: Uuid,
    pub job_id: Uuid,
    pub status: String,
    pub platform: String,
    pub name: Option<String>,
    pub device_id: Option<String>,
    pub error: Option<String>,
    pub team_id: String,
    pub suite_id: Option<Uuid>,
    pub schedule_id: Option<Uuid>,
    pub matrix_cell: Option<String>,
    pub retry_of: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// Filters of the runs list; every field optional.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct RunFilter {
    pub status: Option<String>,
    pub platform: Option<String>,
    /// A device label `key=value` the run's device must carry.
    pub label: Option<String>,
    pub suite: Option<Uuid>,
    pub schedule: Option<Uuid>,
    /// Only runs queued at or after this instant (RFC 3339).
    pub since: Option<DateTime<Utc>>,
    /// At most this many rows (default 100, max 1000).
    pub limit: Option<i64>,
}

/// Runs matching `f`, newest first, limited to `team` unless `None` (admin).
pub async fn list(
    pool: &PgPool,
    team: Option<&str>,
    f: &RunFilter,
) -> Result<Vec<RunSummary>, sqlx::Error> {
    let (lk, lv) = match f.label.as_deref().and_then(|l| l.split_once('=')) {
        Some((k, v)) => (Some(k.to_string()), Some(v.to_string())),
        None => (None, None),
    };
    sqlx::query_as(
        "select r.id, r.job_id, r.status, j.platform, j.name, r.device_id, r.error, r.team_id,
                j.suite_id, j.schedule_id, j.matrix_cell, r.retry_of, r.created_at, r.finished_at
           from runs r join jobs j on j.id = r.job_id
          where ($1::text is null or r.team_id = $1)
            and ($2::text is null or r.status = $2)
            and ($3::text is null or j.platform = $3)
            and ($4::uuid is null or j.suite_id = $4)
            and ($5::uuid is null or j.schedule_id = $5)
            and ($6::timestamptz is null or r.created_at >= $6)
            and ($7::text is null or exists (select 1 from devices d where d.id = r.device_id
                                               and d.labels ->> $7 = $8))
          order by r.created_at desc, r.id limit $9",
    )
    .bind(team)
    .bind(f.status.as_deref())
    .bind(f.platform.as_deref())
    .bind(f.suite)
    .bind(f.schedule)
    .bind(f.since)
    .bind(lk)
    .bind(lv)
    .bind(f.limit.unwrap_or(100).clamp(1, 1000))
    .fetch_all(pool)
    .await
}

/// The most recent runs of `team` (all teams for `None`), newest first.
pub async fn recent(
    pool: &PgPool,
    team: Option<&str>,
    limit: i64,
) -> Result<Vec<RunSummary>, sqlx::Error> {
    list(
        pool,
        team,
        &RunFilter {
            limit: Some(limit),
            ..Default::default()
        },
    )
    .await
}

/// Whether a run exists and `team` may see it (`None` = any team).
pub async fn visible(pool: &PgPool, id: Uuid, team: Option<&str>) -> Result<bool, sqlx::Error> {
    let n: Option<(i32,)> =
        sqlx::query_as("select 1 from runs where id = $1 and ($2::text is null or team_id = $2)")
            .bind(id)
            .bind(team)
            .fetch_optional(pool)
            .await?;
    Ok(n.is_some())
}

/// Which of `ids` the team may see (all of them for `None`, an admin).
pub async fn visible_ids(
    pool: &PgPool,
    ids: &[Uuid],
    team: Option<&str>,
) -> Result<std::collections::HashSet<Uuid>, sqlx::Error> {
    let rows: Vec<(Uuid,)> = sqlx::query_as(
        "select id from runs where id = any($1) and ($2::text is null or team_id = $2)",
    )
    .bind(ids)
    .bind(team)
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}

/// The run before `id` of the same job, for the report's "compare with the previous run"
/// link: the newest earlier run of the same team whose job has the same platform, mode,
/// instruction, start URL and matrix cell (a nightly schedule makes a new job each night;
/// a retry shares its job), within 90 days. `None` when there is none.
pub async fn previous(pool: &PgPool, id: Uuid) -> Result<Option<Uuid>, sqlx::Error> {
    let row: Option<(Uuid,)> = sqlx::query_as(
        "select r2.id
           from runs r
           join jobs j on j.id = r.job_id
           join runs r2 on r2.team_id = r.team_id and r2.created_at < r.created_at
                       and r2.created_at > r.created_at - interval '90 days'
           join jobs j2 on j2.id = r2.job_id
          where r.id = $1
            and j2.platform = j.platform
            and j2.spec ->> 'mode' is not distinct from j.spec ->> 'mode'
            and j2.spec ->> 'instruction' = j.spec ->> 'instruction'
            and j2.spec ->> 'start_url' is not distinct from j.spec ->> 'start_url'
            and j2.matrix_cell is not distinct from j.matrix_cell
          order by r2.created_at desc, r2.id desc
          limit 1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| r.0))
}
