//! Sign-in throttling per client address. Failed sign-ins are rows in `login_failures`
//! (SQL, so every coordinator behind a load balancer counts the same attempts); an address
//! with [`MAX_FAILURES`] failures inside [`WINDOW_S`] seconds is refused (429) until the
//! oldest of them leaves the window, before its token is even looked up.

use sqlx::PgPool;

/// Failed sign-ins allowed per address inside the window.
pub const MAX_FAILURES: i64 = 5;

/// The window, s.
pub const WINDOW_S: f64 = 60.0;

/// Seconds until `addr` may try again; `None` = it may try now.
pub async fn blocked_for(pool: &PgPool, addr: &str) -> Result<Option<u64>, sqlx::Error> {
    let row = sqlx::query!(
        r#"select count(*) as "count!", extract(epoch from now() - min(at))::float8 as oldest_age_s
             from login_failures
            where addr = $1 and at > now() - make_interval(secs => $2)"#,
        addr,
        WINDOW_S
    )
    .fetch_one(pool)
    .await?;
    if row.count < MAX_FAILURES {
        return Ok(None);
    }
    let wait = (WINDOW_S - row.oldest_age_s.unwrap_or(0.0)).ceil().max(1.0);
    Ok(Some(wait as u64))
}

/// Records a failed sign-in from `addr` (and forgets failures older than an hour).
pub async fn record_failure(pool: &PgPool, addr: &str) -> Result<(), sqlx::Error> {
    sqlx::query!("insert into login_failures (addr) values ($1)", addr)
        .execute(pool)
        .await?;
    sqlx::query!("delete from login_failures where at < now() - interval '1 hour'")
        .execute(pool)
        .await?;
    Ok(())
}
