//! The claim: one statement that locks a free device slot, picks the queued run of highest
//! priority (FIFO within) that is due (`not_before`), whose platform and selector the device
//! satisfies (`device labels @> job labels` and `argus_selector_match` for the constraints)
//! and whose team is under its concurrency quota, assigns it with a fresh attempt id and
//! lease, and marks the slot busy.
//!
//! Quotas: the dispatcher's [`claim_batch`] takes a transaction-level advisory lock while
//! any team has a quota, so racing coordinators count exactly. The single-slot [`claim`]
//! does not (kept for tests and tools): two of them racing for one team can exceed its quota
//! by one.
//!
//! Both the device row and the run row are taken `FOR UPDATE SKIP LOCKED`, so concurrent
//! coordinators never hand one run or one slot out twice; they skip what another holds.
//!
//! The dispatcher uses [`claim_batch`]: the same rules applied to up to `max_n` free slots in
//! one round trip (`argus_claim_batch`, migrations/0005_claim_by_class.sql), which claims for
//! each class of identical slots (platform, labels) with one candidate query
//! ([`CLASS_CANDIDATES_SQL`]) and one assigning UPDATE. [`claim`] claims for one given slot.

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
    pub attempt_id: Uuid,
    pub worker_id: String,
    pub device_id: String,
    pub lease_expires_at: DateTime<Utc>,
    pub spec: JobSpec,
}

/// The claim statement. `$1` device id, `$2` platform, `$3` device labels, `$4` attempt id,
/// `$5` lease seconds.
pub const CLAIM_SQL: &str = "
with dev as (
    select id, worker_id from devices
     where id = $1 and current_run_id is null
     for update skip locked
), cand as (
    select r.id from runs r join jobs j on j.id = r.job_id
     where r.status = 'queued' and r.not_before <= now() and j.platform = $2
       and $3::jsonb @> j.selector_labels and argus_selector_match($3::jsonb, j.selector_require)
       and exists (select 1 from dev)
       and coalesce((select t.max_concurrent from teams t where t.id = r.team_id), 2147483647)
           > (select count(*) from runs x
               where x.team_id = r.team_id and x.status in ('assigned', 'running'))
     order by r.priority desc, r.created_at, r.id
     limit 1
     for update of r skip locked
), claimed as (
    update runs r
       set status = 'assigned', attempt_id = $4, attempts = r.attempts + 1,
           worker_id = (select worker_id from dev), device_id = $1,
           lease_expires_at = now() + make_interval(secs => $5), assigned_at = now()
      from cand where r.id = cand.id
    returning r.id, r.job_id, r.attempt_id, r.worker_id, r.lease_expires_at
), mark as (
    update devices d set current_run_id = (select id from claimed)
     where d.id = $1 and exists (select 1 from claimed)
)
select c.id, c.job_id, c.attempt_id, c.worker_id, c.lease_expires_at, j.spec
  from claimed c join jobs j on j.id = c.job_id";

/// The candidate query `argus_claim_batch` runs once per class of identical free slots
/// (migrations/0005_claim_by_class.sql), with the function's variables as parameters so it
/// can be EXPLAINed: `$1` platform, `$2` the class's labels, `$3` teams at their quota,
/// `$4` how many of the class's free slots the call holds. Walks `runs_queued` in order (priority, then
/// FIFO), locking what it returns; no sort. A test checks that the function's query is this
/// one with the parameters replaced by its variables.
pub const CLASS_CANDIDATES_SQL: &str = "
select r.id, r.team_id, r.priority, r.created_at from runs r
  join jobs j on j.id = r.job_id
 where r.status = 'queued' and r.not_before <= now()
   and j.platform = $1
   and $2::jsonb @> j.selector_labels
   and argus_selector_match($2::jsonb, j.selector_require)
   and not (r.team_id = any ($3::text[]))
 order by r.priority desc, r.created_at, r.id
 limit $4
 for update of r skip locked";

type ClaimRow = (
    Uuid,
    Uuid,
    Uuid,
    String,
    DateTime<Utc>,
    sqlx::types::Json<JobSpec>,
);

/// Claims at most one run for `dev`; `None` when nothing matches or the slot was taken.
pub async fn claim(
    pool: &PgPool,
    dev: &FreeDevice,
    lease_s: u64,
) -> Result<Option<Claimed>, sqlx::Error> {
    let row: Option<ClaimRow> = sqlx::query_as(CLAIM_SQL)
        .bind(&dev.id)
        .bind(&dev.platform)
        .bind(&dev.labels)
        .bind(Uuid::new_v4())
        .bind(lease_s as f64)
        .fetch_optional(pool)
        .await?;
    Ok(row.map(
        |(run_id, job_id, attempt_id, worker_id, lease_expires_at, spec)| Claimed {
            run_id,
            job_id,
            attempt_id,
            worker_id,
            device_id: dev.id.clone(),
            lease_expires_at,
            spec: spec.0,
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
           from argus_claim_batch($1, $2, $3)",
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
                attempt_id,
                worker_id,
                device_id,
                lease_expires_at,
                spec: spec.0,
            },
        )
        .collect())
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
