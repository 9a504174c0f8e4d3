//! Teams and their concurrency quotas.

use sqlx::PgPool;

/// Creates the team if needed and sets its quota (`None` = unlimited).
pub async fn set_quota(pool: &PgPool, team: &str, max: Option<i32>) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "insert into teams (id, max_concurrent) values ($1, $2)
         on conflict (id) do update set max_concurrent = excluded.max_concurrent",
        team,
        max
    )
    .execute(pool)
    .await?;
    Ok(())
}
