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
//! `argus_claim_batch` (migrations/0013_claim_scales_with_runs.sql), which claims for each class of
//! identical slots (platform, labels, teams served) with one candidate query
//! ([`class_candidates_sql`]) and one assigning UPDATE.

use argus_protocol::JobSpec;
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// A free slot as the dispatcher sees it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct FreeDevice {
    pub id: String,
    pub worker_id: String,
    pub platform: String,
    pub labels: sqlx::types::Json<serde_json::Value>,
}

/// Slots with no run whose device was heard from within `ttl_s` seconds.
pub async fn free_devices(pool: &PgPool, ttl_s: u64) -> Result<Vec<FreeDevice>, sqlx::Error> {
    sqlx::query_as(
        "select id, worker_id, platform, labels from devices
          where current_run_id is null and last_seen > now() - make_interval(secs => $1)
          order by last_seen desc",
    )
    .bind(ttl_s as f64)
    .fetch_all(pool)
    .await
}

/// A claimed run, ready to publish.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub run_id: Uuid,
    pub job_id: Uuid,
    /// The job's team; empty until [`attach_teams`] filled it in.
    pub team: String,
    pub attempt_id: Uuid,
    pub worker_id: String,
    pub device_id: String,
    pub lease_expires_at: DateTime<Utc>,
    pub spec: JobSpec,
    /// The stored replay script, once [`crate::store::replay::attach`] found one.
    pub replay: Option<String>,
}

/// Migration 0013, the one text of the claim: [`class_candidates_sql`] reads its candidate
/// query from here.
pub const CLAIM_MIGRATION: &str =
    include_str!("../../../migrations/0013_claim_scales_with_runs.sql");

/// The candidate query `argus_claim_batch` runs once per class of identical free slots
/// (migrations/0013_claim_scales_with_runs.sql, between its `class candidates` markers), with the
/// function's variables made parameters so it can be EXPLAINed: `$1` platform, `$2` the
/// class's labels, `$3` teams at their quota, `$4` how many of the class's free slots the
/// call holds, `$5` whether the class serves every team, `$6` the one team it serves
/// otherwise. Walks `runs_queued` in order (priority, then FIFO), locking what it returns;
/// no sort. Built from the migration's text, so there is no copy to drift; `None` only if
/// the markers were removed (a unit test pins that they are there).
pub fn class_candidates_sql() -> Option<String> {
    let (_, rest) = CLAIM_MIGRATION.split_once("-- class candidates: begin")?;
    let (query, _) = rest.split_once("-- class candidates: end")?;
    Some(
        query
            .replace("cls.platform", "$1")
            .replace("cls.labels", "$2::jsonb")
            .replace("full_teams", "$3::text[]")
            .replace("cardinality(dev_ids)", "$4")
            .replace("cls.serves_all", "$5::boolean")
            .replace("cls.serves_team", "$6::text"),
    )
}

/// How long ago a slot named to [`claim`] may have been heard from: any time (100 years).
const ANY_AGE_S: f64 = 100.0 * 365.0 * 86_400.0;

type ClaimRow = (
    Uuid,
    Uuid,
    Uuid,
    String,
    DateTime<Utc>,
    sqlx::types::Json<JobSpec>,
);

/// Claims at most one run for `dev`, however long ago it was heard from: the batch claim
/// restricted to that one slot (same rules, quota lock included); `None` when nothing
/// matches or the slot was taken.
pub async fn claim(
    pool: &PgPool,
    dev: &FreeDevice,
    lease_s: u64,
) -> Result<Option<Claimed>, sqlx::Error> {
    let row: Option<ClaimRow> = sqlx::query_as(
        "select run_id, job_id, attempt_id, worker_id, lease_expires_at, spec
           from argus_claim_batch($1, $2, 1, $3)",
    )
    .bind(ANY_AGE_S)
    .bind(lease_s as f64)
    .bind(&dev.id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(
        |(run_id, job_id, attempt_id, worker_id, lease_expires_at, spec)| Claimed {
            run_id,
            job_id,
            team: String::new(),
            attempt_id,
            worker_id,
            device_id: dev.id.clone(),
            lease_expires_at,
            spec: spec.0,
            replay: None,
        },
    ))
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
    type BatchRow = (
        Uuid,
        Uuid,
        Uuid,
        String,
        String,
        DateTime<Utc>,
        sqlx::types::Json<JobSpec>,
    );
    let rows: Vec<BatchRow> = sqlx::query_as(
        "select run_id, job_id, attempt_id, worker_id, device_id, lease_expires_at, spec
           from argus_claim_batch($1, $2, $3, null)",
    )
    .bind(ttl_s as f64)
    .bind(lease_s as f64)
    .bind(i32::try_from(max_n).unwrap_or(i32::MAX))
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(run_id, job_id, attempt_id, worker_id, device_id, lease_expires_at, spec)| Claimed {
                run_id,
                job_id,
                team: String::new(),
                attempt_id,
                worker_id,
                device_id,
                lease_expires_at,
                spec: spec.0,
                replay: None,
            },
        )
        .collect())
}

/// Fills in each claimed run's team (one statement for the batch). A run whose row is
/// gone keeps an empty team, which resolves no secret on the worker.
pub async fn attach_teams(pool: &PgPool, claimed: &mut [Claimed]) -> Result<(), sqlx::Error> {
    if claimed.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = claimed.iter().map(|c| c.run_id).collect();
    let rows: Vec<(Uuid, String)> =
        sqlx::query_as("select id, team_id from runs where id = any($1)")
            .bind(&ids)
            .fetch_all(pool)
            .await?;
    let by_run: std::collections::HashMap<Uuid, String> = rows.into_iter().collect();
    for c in claimed.iter_mut() {
        if let Some(t) = by_run.get(&c.run_id) {
            c.team = t.clone();
        }
    }
    Ok(())
}

/// Puts a claimed run back in the queue when its assignment could not be published
/// (fenced by attempt id) and frees its slot.
pub async fn unclaim(pool: &PgPool, c: &Claimed) -> Result<bool, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let n = sqlx::query(
        "update runs set status = 'queued', attempt_id = null, worker_id = null,
                device_id = null, lease_expires_at = null, assigned_at = null
          where id = $1 and attempt_id = $2 and status = 'assigned'",
    )
    .bind(c.run_id)
    .bind(c.attempt_id)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    sqlx::query("update devices set current_run_id = null where id = $1 and current_run_id = $2")
        .bind(&c.device_id)
        .bind(c.run_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(n == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_candidate_query_is_read_from_the_migration() {
        let q = class_candidates_sql().expect("markers in migration 0013");
        for p in [
            "$1",
            "$2::jsonb",
            "$3::text[]",
            "limit $4",
            "$5::boolean",
            "$6::text",
            "for update of r skip locked",
        ] {
            assert!(q.contains(p), "{p} missing in {q}");
        }
        assert!(!q.contains("cls.") && !q.contains("dev_ids"), "{q}");
    }
}
