//! The runs one device ran (its page's "recent runs"), in the caller's team scope.

use sqlx::PgPool;

use super::runs::RunSummary;
use super::TeamScope;

/// `scope`'s runs on device `device_id`, newest first, at most `limit`.
pub async fn on_device(
    pool: &PgPool,
    scope: &TeamScope,
    device_id: &str,
    limit: i64,
) -> Result<Vec<RunSummary>, sqlx::Error> {
    sqlx::query_as!(
        RunSummary,
        "select r.id, r.job_id, r.status, j.platform, j.name, r.device_id, r.error,
                r.failure_class, r.probe_device, r.team_id, j.suite_id, j.schedule_id, j.matrix_cell, r.retry_of,
                r.created_at, r.finished_at
           from runs r join jobs j on j.id = r.job_id
          where r.device_id = $1 and ($2::text is null or r.team_id = $2)
          order by r.created_at desc, r.id limit $3",
        device_id,
        scope.team(),
        limit.clamp(1, 1000)
    )
    .fetch_all(pool)
    .await
}
