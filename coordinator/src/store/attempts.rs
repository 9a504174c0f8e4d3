//! A job's chain of attempts (`runs.retry_of`, `retries` and `retry_elsewhere`): the failed
//! attempts a later pass makes flaky, and a run's place in its chain for the run detail.

use argus_protocol::api::RunAttempts;
use sqlx::PgConnection;
use sqlx::PgPool;
use uuid::Uuid;

/// Marks flaky every failed attempt (`failed`, `errored`, `timed_out`, `lost`) that the
/// runs `passed` (which just succeeded) retry, directly or through earlier retries.
/// `r.id = any (array(…))`: primary-key look-ups of the chain's runs (as `r.id in (…)` the
/// planner, in the applier's keyed transaction on a small never-analyzed `runs`, walked
/// the whole primary key for the status filter: 3,300 buffers a batch after 3,300 runs).
///
/// Errors: the database's; the caller rolls its batch back.
pub async fn mark_flaky(tx: &mut PgConnection, passed: &[Uuid]) -> Result<(), sqlx::Error> {
    if passed.is_empty() {
        return Ok(());
    }
    sqlx::query!(
        "with recursive chain (id) as (
             select r.retry_of from runs r where r.id = any ($1) and r.retry_of is not null
             union
             select r.retry_of from runs r join chain c on r.id = c.id
              where r.retry_of is not null
         )
         update runs r set flaky = true
          where r.id = any (array(select id from chain))
            and r.status in ('failed', 'errored', 'timed_out', 'lost')",
        passed
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Run `id`'s place in its attempt chain (default for an unknown run); the caller has
/// checked the run is in the caller's scope.
///
/// Errors: the database's.
pub async fn of_run(pool: &PgPool, id: Uuid) -> Result<RunAttempts, sqlx::Error> {
    let row = sqlx::query!(
        r#"select r.retry_of, r.avoid_devices, r.flaky,
                  (select y.id from runs y where y.retry_of = r.id
                    order by y.created_at, y.id limit 1) as next_attempt
             from runs r where r.id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row
        .map(|r| RunAttempts {
            retry_of: r.retry_of,
            next_attempt: r.next_attempt,
            avoid_devices: r.avoid_devices,
            flaky: r.flaky,
        })
        .unwrap_or_default())
}
