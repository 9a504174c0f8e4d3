//! Jobs and their first run, stored together or not at all.

use argus_protocol::JobSpec;
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// Stores a validated job and one queued run in one transaction; returns `(job_id, run_id)`.
pub async fn insert(pool: &PgPool, spec: &JobSpec) -> Result<(Uuid, Uuid), sqlx::Error> {
    let job_id = Uuid::new_v4();
    let run_id = Uuid::new_v4();
    let mut tx = pool.begin().await?;
    sqlx::query(
        "insert into jobs (id, spec, platform, selector_labels, name) values ($1, $2, $3, $4, $5)",
    )
    .bind(job_id)
    .bind(sqlx::types::Json(spec))
    .bind(spec.platform.as_str())
    .bind(sqlx::types::Json(&spec.selector.labels))
    .bind(spec.name.as_deref())
    .execute(&mut *tx)
    .await?;
    sqlx::query("insert into runs (id, job_id, status) values ($1, $2, 'queued')")
        .bind(run_id)
        .bind(job_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok((job_id, run_id))
}

/// A stored job with its runs `(run_id, status, created_at)`, oldest first.
pub struct JobRow {
    pub id: Uuid,
    pub spec: JobSpec,
    pub created_at: DateTime<Utc>,
    pub runs: Vec<(Uuid, String, DateTime<Utc>)>,
}

/// Loads a job, `None` if absent.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<JobRow>, sqlx::Error> {
    let row: Option<(sqlx::types::Json<JobSpec>, DateTime<Utc>)> =
        sqlx::query_as("select spec, created_at from jobs where id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await?;
    let Some((spec, created_at)) = row else {
        return Ok(None);
    };
    let runs = sqlx::query_as(
        "select id, status, created_at from runs where job_id = $1 order by created_at, id",
    )
    .bind(id)
    .fetch_all(pool)
    .await?;
    Ok(Some(JobRow {
        id,
        spec: spec.0,
        created_at,
        runs,
    }))
}
