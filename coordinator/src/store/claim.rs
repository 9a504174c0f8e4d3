//! The claim: one statement that locks a free device slot, picks the queued run of highest
//! priority (FIFO within) that is due (`not_before`), whose platform and selector the device
//! satisfies (`device labels @> job labels` and `argus_selector_match` for the constraints)
//! whose team the slot serves (its worker token's team, or every team for a shared-pool or
//! admin token: `devices.serves_all` / `serves_team`, written by heartbeats) and whose team
//! is under its concurrency quota, assigns it with a fresh attempt id and lease, and marks
//! the slot busy.
//!
//! Quotas: while any team has a quota, the claim takes a transaction-level advisory lock,
//! so racing coordinators count exactly.
//!
//! Both the device row and the run row are taken `FOR UPDATE SKIP LOCKED`, so concurrent
//! coordinators never hand one run or one slot out twice; they skip what another holds.
//!
//! Both [`claim_batch`] (the dispatcher's: up to `max_n` free slots in one round trip) and
//! [`claim`] (one given slot; tests and tools) run the one claim text, the SQL function
//! `argus_claim_batch` in `coordinator/sql/claim.sql` ([`CLAIM_SQL`], applied on every
//! connect by [`apply_claim_sql`]), which claims for each class of identical slots
//! (platform, labels, teams served) with one candidate query (`argus_claim_candidates`,
//! [`class_candidates_sql`]) and one assigning UPDATE. A class's free slots are taken next
//! fit: after the slot its previous claim locked last (`claim_hands`, migration 0021),
//! wrapping around, so a claim on a farm of mostly busy slots does not step over all of them
//! from the class's first slot.

use argus_protocol::JobSpec;
use chrono::{DateTime, Utc};
use sqlx::types::Json;
use sqlx::PgPool;
use uuid::Uuid;

/// A free slot as the dispatcher sees it.
#[derive(Debug, Clone)]
pub struct FreeDevice {
    pub id: String,
    pub worker_id: String,
    pub platform: String,
    pub labels: Json<serde_json::Value>,
}

/// Slots with no run whose device was heard from within `ttl_s` seconds.
pub async fn free_devices(pool: &PgPool, ttl_s: u64) -> Result<Vec<FreeDevice>, sqlx::Error> {
    sqlx::query_as!(
        FreeDevice,
        r#"select id, worker_id, platform, labels as "labels: Json<serde_json::Value>"
             from devices
            where current_run_id is null and last_seen > now() - make_interval(secs => $1)
            order by last_seen desc"#,
        ttl_s as f64
    )
    .fetch_all(pool)
    .await
}

/// A claimed run, ready to publish.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub run_id: Uuid,
    pub job_id: Uuid,
    /// The run's team (returned by the claim itself, migration 0022).
    pub team: String,
    pub attempt_id: Uuid,
    pub worker_id: String,
    pub device_id: String,
    pub lease_expires_at: DateTime<Utc>,
    pub spec: JobSpec,
    /// The stored replay script, once [`crate::store::replay::attach`] found one.
    pub replay: Option<String>,
}

/// `coordinator/sql/claim.sql`, the one text of the claim functions (`argus_claim_batch`
/// and its per-class candidate query `argus_claim_candidates`): repeatable
/// `create or replace` statements, applied after the migrations by [`apply_claim_sql`].
pub const CLAIM_SQL: &str = include_str!("../../sql/claim.sql");

/// Key of the advisory lock [`apply_claim_sql`] holds: the first 8 bytes of
/// sha256('argus claim.sql'), fixed, so coordinators starting together replace the
/// functions one after another (concurrent `create or replace` of one function fails).
const APPLY_LOCK_KEY: i64 = 0x7b8e_770c_3ac6_c02b;

/// Applies [`CLAIM_SQL`] (replacing whatever claim functions the database holds) in one
/// transaction under an advisory lock. [`crate::store::connect`] calls it after the
/// migrations on every connect, so every database, however old, runs this text. Errors: the
/// database's (e.g. a migration left out a table the functions read).
pub async fn apply_claim_sql(pool: &PgPool) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query!("select pg_advisory_xact_lock($1)", APPLY_LOCK_KEY)
        .execute(&mut *tx)
        .await?;
    sqlx::raw_sql(CLAIM_SQL).execute(&mut *tx).await?;
    tx.commit().await
}

/// The candidate query `argus_claim_batch` runs once per class of identical free slots: the
/// body of `argus_claim_candidates` in [`CLAIM_SQL`] between its `class candidates`
/// markers, verbatim, so it can be EXPLAINed with the function's six parameters bound: `$1`
/// platform (text), `$2` the class's labels (jsonb), `$3` teams at their quota (text[]),
/// `$4` how many of the class's free slots the call holds, `$5` whether the class serves
/// every team (boolean), `$6` the one team it serves otherwise (text, may be null). Walks
/// `runs_queued` in order (priority, then FIFO), locking what it returns; no sort. `None`
/// only if the markers were removed (a unit test pins that they are there).
pub fn class_candidates_sql() -> Option<&'static str> {
    let (_, rest) = CLAIM_SQL.split_once("-- class candidates: begin")?;
    let (query, _) = rest.split_once("-- class candidates: end")?;
    Some(query)
}

/// How long ago a slot named to [`claim`] may have been heard from: any time (100 years).
const ANY_AGE_S: f64 = 100.0 * 365.0 * 86_400.0;

/// One row of `argus_claim_batch` (every column is set for a claimed run).
struct ClaimRow {
    run_id: Uuid,
    job_id: Uuid,
    attempt_id: Uuid,
    worker_id: String,
    device_id: String,
    lease_expires_at: DateTime<Utc>,
    spec: Json<JobSpec>,
    team_id: String,
}

impl From<ClaimRow> for Claimed {
    fn from(r: ClaimRow) -> Self {
        Claimed {
            run_id: r.run_id,
            job_id: r.job_id,
            team: r.team_id,
            attempt_id: r.attempt_id,
            worker_id: r.worker_id,
            device_id: r.device_id,
            lease_expires_at: r.lease_expires_at,
            spec: r.spec.0,
            replay: None,
        }
    }
}

/// Claims at most one run for `dev`, however long ago it was heard from: the batch claim
/// restricted to that one slot (same rules, quota lock included); `None` when nothing
/// matches or the slot was taken.
pub async fn claim(
    pool: &PgPool,
    dev: &FreeDevice,
    lease_s: u64,
) -> Result<Option<Claimed>, sqlx::Error> {
    let row = sqlx::query_as!(
        ClaimRow,
        r#"select run_id as "run_id!", job_id as "job_id!", attempt_id as "attempt_id!",
                  worker_id as "worker_id!", device_id as "device_id!",
                  lease_expires_at as "lease_expires_at!", spec as "spec!: Json<JobSpec>",
                  team_id as "team_id!"
             from argus_claim_batch($1, $2, 1, $3)"#,
        ANY_AGE_S,
        lease_s as f64,
        dev.id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(Claimed::from))
}

/// Claims runs for up to `max_n` free slots heard from within `ttl_s` seconds, in one
/// statement (one transaction): at most one run per slot, each with a fresh attempt id and a
/// lease of `lease_s` seconds. Fewer than `max_n` claims means no free slot or no matching
/// run was left when it ran.
pub async fn claim_batch(
    pool: &PgPool,
    ttl_s: u64,
    lease_s: u64,
    max_n: u32,
) -> Result<Vec<Claimed>, sqlx::Error> {
    let rows = sqlx::query_as!(
        ClaimRow,
        r#"select run_id as "run_id!", job_id as "job_id!", attempt_id as "attempt_id!",
                  worker_id as "worker_id!", device_id as "device_id!",
                  lease_expires_at as "lease_expires_at!", spec as "spec!: Json<JobSpec>",
                  team_id as "team_id!"
             from argus_claim_batch($1, $2, $3, null)"#,
        ttl_s as f64,
        lease_s as f64,
        i32::try_from(max_n).unwrap_or(i32::MAX)
    )
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(Claimed::from).collect())
}

/// Frees the slot run `run_id` holds: the slot `device_id` (the run's, found by primary key)
/// when it still holds the run; without a device id, whichever slot holds it (a read of
/// every slot: no index holds `current_run_id`, migration 0020, so that claims and ends
/// update slot rows in place). Returns whether a slot was freed. Errors: the database's.
pub async fn free_slot(
    conn: &mut sqlx::PgConnection,
    run_id: Uuid,
    device_id: Option<&str>,
) -> Result<bool, sqlx::Error> {
    let n = match device_id {
        Some(d) => sqlx::query!(
            "update devices set current_run_id = null where id = $1 and current_run_id = $2",
            d,
            run_id
        )
        .execute(&mut *conn)
        .await?
        .rows_affected(),
        None => sqlx::query!(
            "update devices set current_run_id = null where current_run_id = $1",
            run_id
        )
        .execute(&mut *conn)
        .await?
        .rows_affected(),
    };
    Ok(n > 0)
}

/// Puts a claimed run back in the queue when its assignment could not be published
/// (fenced by attempt id) and frees its slot.
pub async fn unclaim(pool: &PgPool, c: &Claimed) -> Result<bool, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let n = sqlx::query!(
        "update runs set status = 'queued', attempt_id = null, worker_id = null,
                device_id = null, lease_expires_at = null, assigned_at = null
          where id = $1 and attempt_id = $2 and status = 'assigned'",
        c.run_id,
        c.attempt_id
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();
    sqlx::query!(
        "update devices set current_run_id = null where id = $1 and current_run_id = $2",
        c.device_id,
        c.run_id
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(n == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_candidate_query_is_read_from_the_claim_file() {
        let q = class_candidates_sql().expect("markers in coordinator/sql/claim.sql");
        for p in [
            "j.platform = $1",
            "$2 @> j.selector_labels",
            "any ($3)",
            "limit $4",
            "($5 or r.team_id = $6)",
            "for update of r skip locked",
        ] {
            assert!(q.contains(p), "{p} missing in {q}");
        }
        assert!(!q.contains("cls.") && !q.contains(';'), "{q}");
    }

    #[test]
    fn the_claim_file_is_repeatable() {
        let statements = CLAIM_SQL
            .lines()
            .filter(|l| !l.starts_with(' ') && !l.starts_with("--") && l.starts_with("create"));
        for s in statements {
            assert!(s.starts_with("create or replace function"), "{s}");
        }
    }
}
