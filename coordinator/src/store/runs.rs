//! Reading runs back: the full [`RunDetail`] of one run and the recent-runs list.

use super::TeamScope;
use argus_protocol::expect::{Expectation, Verdict};
use argus_protocol::{ActionRecord, FailureClass, JobSpec, RunDetail, RunStatus, StepView};
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use sqlx::PgPool;
use uuid::Uuid;

/// The run row [`detail`] reads (the run joined with its job's spec).
struct RunRow {
    id: Uuid,
    job_id: Uuid,
    spec: Json<JobSpec>,
    status: String,
    attempt_id: Option<Uuid>,
    error: Option<String>,
    device_id: Option<String>,
    worker_id: Option<String>,
    screen_w_px: Option<i32>,
    screen_h_px: Option<i32>,
    created_at: DateTime<Utc>,
    started_at: Option<DateTime<Utc>>,
    finished_at: Option<DateTime<Utc>>,
    team_id: String,
    expectations: Json<Vec<Expectation>>,
    verdict: Option<Json<Verdict>>,
    failure_class: Option<String>,
    probe_device: Option<String>,
}

/// One step of an attempt; `duration_ms` in milliseconds.
struct StepRow {
    step: i32,
    text: String,
    ok: Option<bool>,
    error: Option<String>,
    duration_ms: Option<f64>,
}

/// The run with the steps and actions of its current attempt, and its team; `None` if
/// absent or not in `scope`.
pub async fn detail(
    pool: &PgPool,
    id: Uuid,
    scope: &TeamScope,
) -> Result<Option<(RunDetail, String)>, sqlx::Error> {
    let row = sqlx::query_as!(
        RunRow,
        r#"select r.id, r.job_id, j.spec as "spec: Json<JobSpec>", r.status, r.attempt_id,
                  r.error, r.device_id, r.worker_id, r.screen_w_px, r.screen_h_px, r.created_at,
                  r.started_at, r.finished_at, r.team_id,
                  r.expectations as "expectations: Json<Vec<Expectation>>",
                  r.verdict as "verdict: Json<Verdict>", r.failure_class, r.probe_device
             from runs r join jobs j on j.id = r.job_id where r.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    let Some(row) = row.filter(|r| scope.sees(&r.team_id)) else {
        return Ok(None);
    };
    let mut d = RunDetail::new(row.id, row.job_id, row.spec.0, row.created_at);
    d.status = RunStatus::parse(&row.status).unwrap_or(RunStatus::Errored);
    d.error = row.error;
    d.device_id = row.device_id;
    d.worker_id = row.worker_id;
    d.screen_px = row
        .screen_w_px
        .zip(row.screen_h_px)
        .map(|(w, h)| [w as u32, h as u32]);
    d.started_at = row.started_at;
    d.finished_at = row.finished_at;
    d.expectations = row.expectations.0;
    d.verdict = row.verdict.map(|v| v.0);
    d.failure_class = row.failure_class.as_deref().and_then(FailureClass::parse);
    d.probe_device = row.probe_device;
    d.attempts = crate::store::attempts::of_run(pool, row.id).await?;
    if let Some(attempt) = row.attempt_id {
        let steps = sqlx::query_as!(
            StepRow,
            "select step, text, ok, error, duration_ms from steps
              where run_id = $1 and attempt_id = $2 order by step",
            row.id,
            attempt
        )
        .fetch_all(pool)
        .await?;
        let actions = sqlx::query_scalar!(
            r#"select record as "record: Json<ActionRecord>" from actions
                where run_id = $1 and attempt_id = $2 order by step, action"#,
            row.id,
            attempt
        )
        .fetch_all(pool)
        .await?;
        d.steps = steps
            .into_iter()
            .map(|s| StepView {
                index: s.step as u32,
                text: s.text,
                ok: s.ok,
                error: s.error,
                duration_ms: s.duration_ms,
                actions: actions
                    .iter()
                    .filter(|a| a.step == s.step as u32)
                    .map(|a| a.0.clone())
                    .collect(),
            })
            .collect();
    }
    Ok(Some((d, row.team_id)))
}

/// The run's live key ([`crate::report::verdict::live_key`]: status, actions, expectations)
/// read with one small query instead of loading the whole run: counted the way
/// [`detail`] builds the run (the current attempt's actions of steps that exist), so the
/// key matches the one the report page was rendered with. Returns the run's status and the
/// key; `None` when there is no such run.
///
/// Errors: the database's.
pub async fn live_key(pool: &PgPool, id: Uuid) -> Result<Option<(RunStatus, String)>, sqlx::Error> {
    let row = sqlx::query!(
        r#"select r.status,
                  (select count(*) from actions a
                    where a.run_id = r.id and a.attempt_id = r.attempt_id
                      and exists (select 1 from steps s
                                   where s.run_id = a.run_id and s.attempt_id = a.attempt_id
                                     and s.step = a.step)) as "actions!",
                  jsonb_array_length(r.expectations) as "expectations!"
             from runs r where r.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| {
        let status = RunStatus::parse(&r.status).unwrap_or(RunStatus::Errored);
        let key = crate::report::verdict::live_key_of(
            status,
            usize::try_from(r.actions).unwrap_or(0),
            usize::try_from(r.expectations).unwrap_or(0),
        );
        (status, key)
    }))
}

/// A run's status and the worker it is assigned to (`None` while queued): the live screen
/// relays that worker's frames only. `None` when there is no such run.
pub async fn holder(
    pool: &PgPool,
    id: Uuid,
) -> Result<Option<(RunStatus, Option<String>)>, sqlx::Error> {
    let row = sqlx::query!("select status, worker_id from runs where id = $1", id)
        .fetch_optional(pool)
        .await?;
    Ok(row.map(|r| {
        let status = RunStatus::parse(&r.status).unwrap_or(RunStatus::Errored);
        (status, r.worker_id)
    }))
}

/// One line of the runs list.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunSummary {
    pub id: Uuid,
    pub job_id: Uuid,
    pub status: String,
    pub platform: String,
    pub name: Option<String>,
    pub device_id: Option<String>,
    pub error: Option<String>,
    /// `app`, `device` or `infra` for a failed, errored or lost run.
    pub failure_class: Option<String>,
    /// The quarantined device a health probe checks; `None` for every other run.
    pub probe_device: Option<String>,
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

/// `scope`'s runs matching `f`, newest first.
pub async fn list(
    pool: &PgPool,
    scope: &TeamScope,
    f: &RunFilter,
) -> Result<Vec<RunSummary>, sqlx::Error> {
    let (lk, lv) = match f.label.as_deref().and_then(|l| l.split_once('=')) {
        Some((k, v)) => (Some(k.to_string()), Some(v.to_string())),
        None => (None, None),
    };
    sqlx::query_as!(
        RunSummary,
        "select r.id, r.job_id, r.status, j.platform, j.name, r.device_id, r.error,
                r.failure_class, r.probe_device, r.team_id, j.suite_id, j.schedule_id, j.matrix_cell, r.retry_of, r.created_at, r.finished_at
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
        scope.team(),
        f.status.as_deref(),
        f.platform.as_deref(),
        f.suite,
        f.schedule,
        f.since,
        lk,
        lv,
        f.limit.unwrap_or(100).clamp(1, 1000)
    )
    .fetch_all(pool)
    .await
}

/// The most recent runs in `scope`, newest first.
pub async fn recent(
    pool: &PgPool,
    scope: &TeamScope,
    limit: i64,
) -> Result<Vec<RunSummary>, sqlx::Error> {
    list(
        pool,
        scope,
        &RunFilter {
            limit: Some(limit),
            ..Default::default()
        },
    )
    .await
}

/// Whether a run exists in `scope`.
pub async fn visible(pool: &PgPool, id: Uuid, scope: &TeamScope) -> Result<bool, sqlx::Error> {
    let n = sqlx::query_scalar!(
        "select 1 from runs where id = $1 and ($2::text is null or team_id = $2)",
        id,
        scope.team()
    )
    .fetch_optional(pool)
    .await?;
    Ok(n.is_some())
}

/// Which of `ids` are runs in `scope`.
pub async fn visible_ids(
    pool: &PgPool,
    ids: &[Uuid],
    scope: &TeamScope,
) -> Result<std::collections::HashSet<Uuid>, sqlx::Error> {
    let rows = sqlx::query_scalar!(
        "select id from runs where id = any($1) and ($2::text is null or team_id = $2)",
        ids,
        scope.team()
    )
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().collect())
}

/// The run before `id` of the same job, for the report's "compare with the previous run"
/// link: the newest earlier run of the same team whose job has the same platform, mode,
/// instruction, start URL and matrix cell (a nightly schedule makes a new job each night;
/// a retry shares its job), within 90 days. `None` when there is none.
pub async fn previous(pool: &PgPool, id: Uuid) -> Result<Option<Uuid>, sqlx::Error> {
    sqlx::query_scalar!(
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
        id
    )
    .fetch_optional(pool)
    .await
}
