//! Jobs and their first run, stored together or not at all.

use super::TeamScope;
use argus_protocol::JobSpec;
use chrono::{DateTime, Utc};
use sqlx::types::Json;
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
    /// Place among its suite's jobs (0-based, submission order), for suites.
    pub suite_position: Option<i32>,
    /// The one device that may take the first run (`runs.only_device`, migration 0019): a
    /// health probe's device or a dashboard try's; `None` for every other job.
    pub only_device: Option<String>,
}

/// Stores a validated job and its first queued run with one statement (atomic on its own,
/// so a job is never stored without its run) on `conn` (a pool or the caller's
/// transaction); returns `(job_id, run_id)`.
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
    let queue_timeout_s = spec
        .queue_timeout_s
        .unwrap_or(argus_protocol::job::DEFAULT_QUEUE_TIMEOUT_S) as f64;
    sqlx::query!(
        "with j as (
             insert into jobs (id, spec, platform, selector_labels, selector_require, name,
                               team_id, suite_id, schedule_id, matrix_cell, replay_key,
                               app_build, suite_position)
             values ($1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $14, $15, $16)
             returning id, team_id)
         insert into runs (id, job_id, status, team_id, priority, queue_deadline, only_device)
         select $2, j.id, 'queued', j.team_id, $12, now() + make_interval(secs => $13::float8),
                $17
           from j",
        job_id,
        run_id,
        Json(spec) as _,
        spec.platform.as_str(),
        Json(&spec.selector.labels) as _,
        Json(&constraints) as _,
        spec.name.as_deref(),
        meta.team_id,
        meta.suite_id,
        meta.schedule_id,
        meta.matrix_cell.as_deref(),
        spec.priority,
        queue_timeout_s,
        crate::store::replay::key(&meta.team_id, spec),
        spec.app_build.as_deref(),
        meta.suite_position,
        meta.only_device.as_deref()
    )
    .execute(conn)
    .await?;
    Ok((job_id, run_id))
}

/// Creates the retry run of a finished run when its job allows one more, and no retry was
/// made yet: first a `retry_elsewhere` run when the run ended with a failure class and
/// fewer of those exist than the job asks for (it avoids every device the job's runs ran
/// on, and ends `timed_out` after the job's queue timeout when no other device takes it),
/// else a plain retry while `retries` is not used up (counting the job's runs that avoid no
/// device: the two budgets are apart). Starts after the job's `backoff_s`.
/// Returns the new run id.
pub async fn retry_in(
    tx: &mut sqlx::PgConnection,
    run_id: Uuid,
) -> Result<Option<Uuid>, sqlx::Error> {
    let new_id = Uuid::new_v4();
    sqlx::query_scalar!(
        "insert into runs (id, job_id, status, team_id, priority, not_before, retry_of,
                           avoid_devices, queue_deadline)
         select $2, r.job_id, 'queued', r.team_id, r.priority,
                now() + make_interval(secs => coalesce((j.spec->>'backoff_s')::float8, 0)), r.id,
                case when e.elsewhere
                     then array(select distinct x.device_id from runs x
                                 where x.job_id = r.job_id and x.device_id is not null)
                     else '{}' end,
                case when e.elsewhere
                     then now() + make_interval(secs => coalesce(
                              (j.spec->>'queue_timeout_s')::float8, $3::float8))
                     end
           from runs r join jobs j on j.id = r.job_id
          cross join lateral (
                select r.failure_class is not null and r.device_id is not null
                       and (select count(*) from runs x
                             where x.job_id = r.job_id and x.avoid_devices <> '{}')
                           < coalesce((j.spec->>'retry_elsewhere')::int, 0) as elsewhere) e
          where r.id = $1
            and (e.elsewhere
                 or (select count(*) from runs x
                      where x.job_id = r.job_id and x.avoid_devices = '{}')
                    <= coalesce((j.spec->>'retries')::int, 0))
            and not exists (select 1 from runs y where y.retry_of = r.id)
         returning id",
        run_id,
        new_id,
        argus_protocol::job::DEFAULT_QUEUE_TIMEOUT_S as f64
    )
    .fetch_optional(&mut *tx)
    .await
}

/// Cancels a run: a queued one ends `cancelled` now; an assigned or running one is flagged
/// and its worker stops it at the next action boundary. Returns the status after the call,
/// `None` when the run is not in `scope` or is already over.
pub async fn cancel_run(
    pool: &PgPool,
    run_id: Uuid,
    scope: &TeamScope,
) -> Result<Option<String>, sqlx::Error> {
    sqlx::query_scalar!(
        "update runs set
            status = case when status = 'queued' then 'cancelled' else status end,
            finished_at = case when status = 'queued' then now() else finished_at end,
            error = case when status = 'queued' then 'cancelled before it started' else error end,
            cancel_requested = true
          where id = $1 and status in ('queued', 'assigned', 'running')
            and ($2::text is null or team_id = $2)
         returning status",
        run_id,
        scope.team()
    )
    .fetch_optional(pool)
    .await
}

/// A stored job with its runs `(run_id, status, created_at)`, oldest first.
pub struct JobRow {
    pub id: Uuid,
    pub team_id: String,
    pub spec: JobSpec,
    pub created_at: DateTime<Utc>,
    pub runs: Vec<(Uuid, String, DateTime<Utc>)>,
}

/// Loads a job, `None` if absent or not in `scope`.
pub async fn get(
    pool: &PgPool,
    id: Uuid,
    scope: &TeamScope,
) -> Result<Option<JobRow>, sqlx::Error> {
    let row = sqlx::query!(
        r#"select spec as "spec: Json<JobSpec>", created_at, team_id from jobs where id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    let Some(job) = row.filter(|j| scope.sees(&j.team_id)) else {
        return Ok(None);
    };
    let runs = sqlx::query!(
        "select id, status, created_at from runs where job_id = $1 order by created_at, id",
        id
    )
    .fetch_all(pool)
    .await?;
    Ok(Some(JobRow {
        id,
        team_id: job.team_id,
        spec: job.spec.0,
        created_at: job.created_at,
        runs: runs
            .into_iter()
            .map(|r| (r.id, r.status, r.created_at))
            .collect(),
    }))
}
