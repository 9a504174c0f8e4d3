//! PostgreSQL access: one module per table group. Every value is bound; claims are single
//! `FOR UPDATE SKIP LOCKED` statements; transitions after a claim are fenced by attempt id.
//! A function over team-owned rows takes the [`TeamScope`] it may see.

pub mod attempts;
pub mod builds;
pub mod claim;
pub mod dead_events;
pub mod device_runs;
pub mod effects;
pub mod events;
pub mod health;
pub mod identities;
pub mod insights;
pub mod jobs;
pub mod probes;
pub mod reaper;
pub mod replay;
pub mod runs;
pub mod schedules;
pub mod scope;
pub mod suites;
pub mod teams;
pub mod try_target;
pub mod verdicts;
pub mod workers;

pub use scope::TeamScope;

use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

/// Migrations embedded from `migrations/` at build time.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations");

/// Connections kept open even when idle (at most `max`): opening one costs a server process
/// fork and statement preparation, which a burst after a quiet spell would otherwise pay
/// on its first requests.
pub const MIN_CONNECTIONS: u32 = 4;

/// Connects (up to `max` connections, [`MIN_CONNECTIONS`] kept warm), applies pending
/// migrations, then the repeatable claim functions ([`claim::apply_claim_sql`]).
pub async fn connect(url: &str, max: u32) -> anyhow::Result<PgPool> {
    let pool = PgPoolOptions::new()
        .max_connections(max)
        .min_connections(MIN_CONNECTIONS.min(max))
        .acquire_timeout(std::time::Duration::from_secs(10))
        .connect(url)
        .await
        .map_err(|e| anyhow::anyhow!("cannot connect to PostgreSQL at {}: {e}", redact(url)))?;
    MIGRATOR.run(&pool).await?;
    claim::apply_claim_sql(&pool).await?;
    Ok(pool)
}

/// The `BEGIN` of a transaction whose statements find rows by key: sequential scans off for
/// the transaction (`set local`, sent with the `BEGIN` in one round trip), so every plan
/// takes the index path its statement has.
///
/// Why: sqlx prepares each statement once per connection, and after five executions
/// PostgreSQL keeps a generic plan when it looks no dearer than the custom ones. A
/// statement first run while `runs` was small (a new farm's first minute) kept a generic
/// plan that reads the whole table (`id = any($1)`: an unknown number of keys against a
/// few pages), and nothing replaces it until `runs` is analyzed, which with autovacuum off
/// is never (this dev machine's PostgreSQL). Measured at 79bcfe6 in
/// `dispatch-bench --latency-only` (auto_explain): the applier's lock of a batch's runs read
/// 14 buffers at the start and 110 after 3,500 runs, growing with the table, and so did the
/// other set-wise run and slot statements of a batch and the dispatcher's team look-up.
pub const KEYED_BEGIN: &str = "begin; set local enable_seqscan = off";

/// Begins a transaction on `pool` with [`KEYED_BEGIN`]. Errors: the database's.
pub async fn begin_keyed(
    pool: &PgPool,
) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error> {
    pool.begin_with(KEYED_BEGIN).await
}

/// The URL without its password, for messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            let user = creds.split(':').next().unwrap_or("");
            format!("{}{user}:***{}", &url[..s + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}
