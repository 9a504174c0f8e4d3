//! Heartbeats: register the worker and its device slots, extend the leases it holds, and
//! tell it which leases it no longer holds (fenced).

use std::collections::{BTreeMap, HashSet};

use argus_protocol::{Heartbeat, LeaseRef};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};

/// Applies one heartbeat; returns `(fenced, cancel)`: leases that are no longer the
/// worker's, and held runs a person cancelled. Every slot listed is marked as serving
/// `served_team` (`None` = every team: the shared pool), which the caller takes from the
/// authenticated token ([`crate::auth::Caller::served_team`]); the claim hands a slot only
/// runs of the teams it serves (migrations/0011_worker_teams.sql).
///
/// A slot whose row the heartbeat would not change is rewritten only once its `last_seen`
/// is older than `refresh_s` seconds (see [`refresh_s`]), so a large idle farm does not
/// rewrite every slot row on every beat.
///
/// Errors: the database's; nothing is written then.
pub async fn heartbeat(
    pool: &PgPool,
    hb: &Heartbeat,
    lease_s: u64,
    served_team: Option<&str>,
    refresh_s: f64,
) -> Result<(Vec<LeaseRef>, Vec<LeaseRef>), sqlx::Error> {
    let mut tx = pool.begin().await?;
    upsert_worker(&mut tx, hb).await?;
    let fenced = extend_leases(&mut tx, hb, lease_s).await?;
    upsert_slots(&mut tx, hb, served_team, refresh_s).await?;
    let cancel = cancel_requested(&mut tx, &hb.worker_id).await?;
    tx.commit().await?;
    Ok((fenced, cancel))
}

/// Registers the worker (or refreshes its hostname, `last_seen` and whether it reads
/// grouped assignments).
async fn upsert_worker(tx: &mut PgConnection, hb: &Heartbeat) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "insert into workers (id, hostname, last_seen, reads_assignment_groups)
         values ($1, $2, now(), $3)
         on conflict (id) do update set hostname = excluded.hostname, last_seen = now(),
                reads_assignment_groups = excluded.reads_assignment_groups",
        hb.worker_id,
        hb.hostname,
        hb.reads_assignment_groups
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Extends every lease the worker holds, in one statement; returns those not extended (no
/// longer its own: fenced). Primary-key look-ups whatever the statistics (see
/// `store::effects`' `runs_started`): `r.id = any ($1)`, and the status read by key in a
/// materialized CTE and checked there, the updated row only compared with it (a
/// `status in ('assigned', 'running')` on the updated table let the planner walk all of
/// `runs_active_team`, every busy slot's run, on each heartbeat).
///
/// Lock order is runs (by id), then devices (by id) — the event applier's order — so a
/// heartbeat and an applier batch never deadlock.
async fn extend_leases(
    tx: &mut PgConnection,
    hb: &Heartbeat,
    lease_s: u64,
) -> Result<Vec<LeaseRef>, sqlx::Error> {
    if hb.running.is_empty() {
        return Ok(Vec::new());
    }
    let run_ids: Vec<uuid::Uuid> = hb.running.iter().map(|l| l.run_id).collect();
    let attempt_ids: Vec<uuid::Uuid> = hb.running.iter().map(|l| l.attempt_id).collect();
    sqlx::query!(
        "select id from runs where id = any($1) order by id for update",
        &run_ids
    )
    .fetch_all(&mut *tx)
    .await?;
    let extended: HashSet<(uuid::Uuid, uuid::Uuid)> = sqlx::query!(
        r#"with t as materialized (
               select x.id, x.attempt_id, x.worker_id, x.status from runs x
                where x.id = any ($1))
           update runs r set lease_expires_at = now() + make_interval(secs => $3)
                 from unnest($1::uuid[], $2::uuid[]) as l(run_id, attempt_id), t
                where t.id = l.run_id and t.attempt_id = l.attempt_id and t.worker_id = $4
                  and t.status in ('assigned', 'running')
                  and r.id = t.id and r.attempt_id = t.attempt_id and r.worker_id = t.worker_id
                  and r.status = t.status and r.id = any ($1)
               returning r.id, r.attempt_id as "attempt_id!""#,
        &run_ids,
        &attempt_ids,
        lease_s as f64,
        hb.worker_id
    )
    .fetch_all(&mut *tx)
    .await?
    .into_iter()
    .map(|r| (r.id, r.attempt_id))
    .collect();
    Ok(hb
        .running
        .iter()
        .filter(|l| !extended.contains(&(l.run_id, l.attempt_id)))
        .cloned()
        .collect())
}

/// Upserts all the heartbeat's slots in one statement (a worker with hundreds of devices
/// heartbeats every 2 s), not one per slot, each serving `served_team`. A slot listed twice
/// counts once (its last entry), as one upsert statement may not touch a row twice; an
/// unchanged slot is rewritten only once its `last_seen` is older than `refresh_s`.
async fn upsert_slots(
    tx: &mut PgConnection,
    hb: &Heartbeat,
    served_team: Option<&str>,
    refresh_s: f64,
) -> Result<(), sqlx::Error> {
    let devs: BTreeMap<&str, &argus_protocol::DeviceInfo> = hb
        .devices
        .iter()
        .map(|d| (d.device_id.as_str(), d))
        .collect();
    let ids: Vec<&str> = devs.keys().copied().collect();
    let platforms: Vec<&str> = devs.values().map(|d| d.platform.as_str()).collect();
    let labels: Vec<Json<&BTreeMap<String, String>>> =
        devs.values().map(|d| Json(&d.labels)).collect();
    let widths: Vec<i32> = devs.values().map(|d| d.screen_w_px as i32).collect();
    let heights: Vec<i32> = devs.values().map(|d| d.screen_h_px as i32).collect();
    sqlx::query!(
        "insert into devices (id, worker_id, platform, labels, screen_w_px, screen_h_px, last_seen,
                              serves_all, serves_team)
         select u.id, $2, u.platform, u.labels, u.w, u.h, now(), $7::text is null, $7
           from unnest($1::text[], $3::text[], $4::jsonb[], $5::int4[], $6::int4[])
                as u(id, platform, labels, w, h)
         on conflict (id) do update set worker_id = excluded.worker_id,
             platform = excluded.platform, labels = excluded.labels,
             screen_w_px = excluded.screen_w_px, screen_h_px = excluded.screen_h_px,
             last_seen = now(), serves_all = excluded.serves_all,
             serves_team = excluded.serves_team
         where (devices.worker_id, devices.platform, devices.labels, devices.screen_w_px,
                devices.screen_h_px, devices.serves_all, devices.serves_team)
               is distinct from
               (excluded.worker_id, excluded.platform, excluded.labels, excluded.screen_w_px,
                excluded.screen_h_px, excluded.serves_all, excluded.serves_team)
            or devices.last_seen < now() - make_interval(secs => $8)",
        &ids as _,
        hb.worker_id,
        &platforms as _,
        &labels as _,
        &widths,
        &heights,
        served_team,
        refresh_s
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The held runs of `worker` a person asked to cancel: a look-up in the partial index
/// `runs_cancel_requested` (migration 0020), which holds only runs someone cancelled
/// (before it, a read of every active run, or of all runs: 28 ms a heartbeat with
/// 98,000 runs in the table). The status is checked outside the materialized CTE so that
/// the only index whose predicate the CTE's conditions imply is that one (with the status
/// inside, the planner preferred `runs_active_team`, estimated as small by statistics
/// taken while no run was active).
async fn cancel_requested(
    tx: &mut PgConnection,
    worker: &str,
) -> Result<Vec<LeaseRef>, sqlx::Error> {
    sqlx::query_as!(
        LeaseRef,
        r#"with c as materialized (
               select id, attempt_id, status from runs where worker_id = $1 and cancel_requested)
           select id as run_id, attempt_id as "attempt_id!" from c
            where status in ('assigned', 'running') and attempt_id is not null"#,
        worker
    )
    .fetch_all(&mut *tx)
    .await
}

/// How old, s, an unchanged slot's `last_seen` may get before a heartbeat rewrites it: a
/// third of the device TTL (`device_ttl_s`, default 15 s, so 5 s). A live worker beating
/// every 2 s (the worker's default) keeps every slot's `last_seen` under 7 s old, well
/// inside the TTL. With 10,000 slots beating every 2 s the rows were 5,000 writes a second
/// of an idle farm (each a dead tuple the claim's scans of `devices` walk until vacuum);
/// now about a third of that.
pub fn refresh_s(device_ttl_s: u64) -> f64 {
    device_ttl_s as f64 / 3.0
}

/// One device row for the dashboard.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DeviceRow {
    pub id: String,
    pub worker_id: String,
    pub platform: String,
    pub labels: sqlx::types::Json<serde_json::Value>,
    pub screen_w_px: i32,
    pub screen_h_px: i32,
    pub current_run_id: Option<uuid::Uuid>,
    pub last_seen: chrono::DateTime<chrono::Utc>,
    pub online: bool,
}

impl DeviceRow {
    /// The labels as `key=value` texts, sorted by key (a value that is not a string shown as
    /// its JSON), for the dashboard's label chips.
    pub fn label_pairs(&self) -> Vec<String> {
        let Some(map) = self.labels.0.as_object() else {
            return Vec::new();
        };
        let mut out: Vec<String> = map
            .iter()
            .map(|(k, v)| match v.as_str() {
                Some(s) => format!("{k}={s}"),
                None => format!("{k}={v}"),
            })
            .collect();
        out.sort();
        out
    }
}

/// All devices, with `online` = heard from within `ttl_s`.
pub async fn devices(pool: &PgPool, ttl_s: u64) -> Result<Vec<DeviceRow>, sqlx::Error> {
    sqlx::query_as!(
        DeviceRow,
        r#"select id, worker_id, platform, labels as "labels: Json<serde_json::Value>",
                  screen_w_px, screen_h_px, current_run_id, last_seen,
                  last_seen > now() - make_interval(secs => $1) as "online!"
             from devices order by id"#,
        ttl_s as f64
    )
    .fetch_all(pool)
    .await
}

/// The distinct label sets of the registered devices of `platform` (online or not), for rejecting
/// selectors no device could ever satisfy.
pub async fn label_sets(
    pool: &PgPool,
    platform: &str,
) -> Result<Vec<std::collections::BTreeMap<String, String>>, sqlx::Error> {
    // distinct: a farm repeats few label sets over many slots, and every submit asks
    let rows = sqlx::query_scalar!(
        r#"select distinct labels as "labels!: Json<std::collections::BTreeMap<String, String>>"
             from devices where platform = $1"#,
        platform
    )
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}

/// Which of `ids` said in their last heartbeat that they read grouped assignments
/// (`Heartbeat::reads_assignment_groups`, migration 0023); the dispatcher groups only
/// their runs. Primary-key look-ups.
///
/// Errors: the database's.
pub async fn reading_groups(pool: &PgPool, ids: &[&str]) -> Result<HashSet<String>, sqlx::Error> {
    if ids.is_empty() {
        return Ok(HashSet::new());
    }
    Ok(sqlx::query_scalar!(
        "select id from workers where id = any ($1) and reads_assignment_groups",
        ids as _
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .collect())
}
