//! Jobs and their first run, stored together or not at all.

use argus_protocol::JobSpec;
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// Where a job comes from besides the API body.
#[derive(Debug, Clone, Default)]
pub struct JobMeta {
    /// Owning team.
    pub team_id: String,
    /// Suite it belongs to.
    pub suite_id: Option<Uuid>,
    /// Schedule that fired it.
    pub schedule_id: Option<Uuid>,
    /// Matrix cell label (e.g. `model=Pixel 7`) for suites and schedules.
    pub matrix_cell: Option<String>,
}

/// The one statement that stores a job and its first queued run (`$1` job id, `$2` run id):
/// atomic on its own, so a job is never stored without its run.
const INSERT_SQL: &str = "
with j as (
    insert into jobs (id, spec, platform, selector_labels, selector_require, name, team_id,
                      suite_id, schedule_id, matrix_cell, replay_key)
    values ($1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $14)
    returning id, team_id)
insert into runs (id, job_id, status, team_id, priority, queue_deadline)
select $2, j.id, 'queued', j.team_id, $12, now() + make_interval(secs => $13::float8) from j";

/// Stores a validated job and its first queued run with one statement (so atomically) on
/// `conn` (a pool or the caller's transaction); returns `(job_id, run_id)`.
///
/// Errors: the database's (a missing team, a lost connection); nothing is stored then.
pub async fn insert<'c, E>(
    conn: E,
    spec: &JobSpec,
    meta: &JobMeta,
) -> Result<(Uuid, Uuid), sqlx::Error>
where
    E: sqlx::PgExecutor<'c>,
{
    let job_id = Uuid::new_v4();
    let run_id = Uuid::new_v4();
    let constraints = spec.selector.constraints().unwrap_or_default();
    sqlx::query(INSERT_SQL)
        .bind(job_id)
        .bind(run_id)
        .bind(sqlx::types::Json(spec))
        .bind(spec.platform.as_str())
        .bind(sqlx::types::Json(&spec.selector.labels))
        .bind(sqlx::types::Json(&constraints))
        .bind(spec.name.as_deref())
        .bind(&meta.team_id)
        .bind(meta.suite_id)
        .bind(meta.schedule_id)
        .bind(meta.matrix_cell.as_deref())
        .bind(spec.priority)
        .bind(
            spec.queue_timeout_s
                .unwrap_or(argus_protocol::job::DEFAULT_QUEUE_TIMEOUT_S) as f64,
        )
        .bind(crate::store::replay::key(&meta.team_id, spec))
        .execute(conn)
        .await?;
    Ok((job_id, run_id))
}

/// Creates the retry run of a finished run when its job allows one more: `retries` not used
/// up and no retry made yet. Starts after the job's `backoff_s`. Returns the new run id.
pub async fn retry_in(
    tx: &mut sqlx::PgConnection,
    run_id: Uuid,
) -> Result<Option<Uuid>, sqlx::Error> {
    let new_id = Uuid::new_v4();
    let row: Option<(Uuid,)> = sqlx::query_as(
        "insert into runs (id, job_id, status, team_id, priority, not_before, retry_of)
         select $2, r.job_id, 'queued', r.team_id, r.priority,
                now() + make_interval(secs => coalesce((j.spec->>'backoff_s')::float8, 0)), r.id
           from runs r join jobs j on j.id = r.job_id
          where r.id = $1
            and (select count(*) from runs x where x.job_id = r.job_id)
                <= coalesce((j.spec->>'retries')::int, 0)
            and not exists (select 1 from runs y where y.retry_of = r.id)
         returning id",
    )
    .bind(run_id)
    .bind(new_id)
    .fetch_optional(&mut *tx)
    .await?;
    Ok(row.map(|r| r.0))
}

/// Cancels a run: a queued one ends `cancelled` now; an assigned or running one is flagged
/// and its worker stops it at the next action boundary. Returns the status after the call,
/// `None` when the run is not the caller's or is already over.
pub async fn cancel_run(
    pool: &PgPool,
    run_id: Uuid,
    team: Option<&str>,
) -> Result<Option<String>, sqlx::Error> {
    let row: Option<(String,)> = sqlx::query_as(
        "update runs set
            status = case when status = 'queued' then 'cancelled' else status end,
            finished_at = case when status = 'queued' then now() else finished_at end,
            error = case when status = 'queued' then 'cancelled before it started' else error end,
            cancel_requested = true
          where id = $1 and status in ('queued', 'assigned', 'running')
            and ($2::text is null or team_id = $2)
         returning status",
    )
    .bind(run_id)
    .bind(team)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| r.0))
}

/// A stored job with its runs `(run_id, status, created_at)`, oldest first.
pub struct JobRow {
    pub id: Uuid,
    pub team_id: String,
    pub spec: JobSpec,
    pub created_at: DateTime<Utc>,
    pub runs: Vec<(Uuid, String, DateTime<Utc>)>,
}

/// Loads a job, `None` if absent.
pub async fn get(pool: &PgPool, id: Uuid) -> Result<Option<JobRow>, sqlx::Error> {
    let row: Option<(sqlx::types::Json<JobSpec>, DateTime<Utc>, String)> =
        sqlx::query_as("select spec, created_at, team_id from jobs where id = $1")
            .bind(id)
            .fetch_optional(pool)
            .await?;
    let Some((spec, created_at, team_id)) = row else {
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
        team_id,
        spec: spec.0,
        created_at,
        runs,
    }))
}
