//! Reading runs back: the full [`RunDetail`] of one run and the recent-runs list.

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
);

/// `(step, text, ok, error, duration_ms)`.
type StepRow = (i32, String, Option<bool>, Option<String>, Option<f64>);

/// The run with the steps and actions of its current attempt; `None` if absent.
pub async fn detail(pool: &PgPool, id: Uuid) -> Result<Option<RunDetail>, sqlx::Error> {
    let row: Option<RunRow> = sqlx::query_as(
        "select r.id, r.job_id, j.spec, r.status, r.attempt_id, r.error, r.device_id, r.worker_id,
                r.screen_w_px, r.screen_h_px, r.created_at, r.started_at, r.finished_at
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
    Ok(Some(d))
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
    pub created_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// The most recent runs, newest first.
pub async fn recent(pool: &PgPool, limit: i64) -> Result<Vec<RunSummary>, sqlx::Error> {
    sqlx::query_as(
        "select r.id, r.job_id, r.status, j.platform, j.name, r.device_id, r.error, r.created_at,
                r.finished_at
           from runs r join jobs j on j.id = r.job_id
          order by r.created_at desc limit $1",
    )
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// Whether a run exists (for artifact access checks).
pub async fn exists(pool: &PgPool, id: Uuid) -> Result<bool, sqlx::Error> {
    let n: Option<(i32,)> = sqlx::query_as("select 1 from runs where id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?;
    Ok(n.is_some())
}
