//! Heartbeats: register the worker and its device slots, extend the leases it holds, and
//! tell it which leases it no longer holds (fenced).

use argus_protocol::{Heartbeat, LeaseRef};
use sqlx::PgPool;

/// Applies one heartbeat; returns `(fenced, cancel)`: leases that are no longer the
/// worker's, and held runs a person cancelled.
pub async fn heartbeat(
    pool: &PgPool,
    hb: &Heartbeat,
    lease_s: u64,
) -> Result<(Vec<LeaseRef>, Vec<LeaseRef>), sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query(
        "insert into workers (id, hostname, last_seen) values ($1, $2, now())
         on conflict (id) do update set hostname = excluded.hostname, last_seen = now()",
    )
    .bind(&hb.worker_id)
    .bind(&hb.hostname)
    .execute(&mut *tx)
    .await?;
    for d in &hb.devices {
        sqlx::query(
            "insert into devices (id, worker_id, platform, labels, screen_w_px, screen_h_px, last_seen)
             values ($1, $2, $3, $4, $5, $6, now())
             on conflict (id) do update set worker_id = excluded.worker_id,
                 platform = excluded.platform, labels = excluded.labels,
                 screen_w_px = excluded.screen_w_px, screen_h_px = excluded.screen_h_px,
                 last_seen = now()",
        )
        .bind(&d.device_id)
        .bind(&hb.worker_id)
        .bind(d.platform.as_str())
        .bind(sqlx::types::Json(&d.labels))
        .bind(d.screen_w_px as i32)
        .bind(d.screen_h_px as i32)
        .execute(&mut *tx)
        .await?;
    }
    let mut fenced = Vec::new();
    for l in &hb.running {
        let n = sqlx::query(
            "update runs set lease_expires_at = now() + make_interval(secs => $3)
              where id = $1 and attempt_id = $2 and worker_id = $4
                and status in ('assigned', 'running')",
        )
        .bind(l.run_id)
        .bind(l.attempt_id)
        .bind(lease_s as f64)
        .bind(&hb.worker_id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if n == 0 {
            fenced.push(l.clone());
        }
    }
    let cancel: Vec<(uuid::Uuid, uuid::Uuid)> = sqlx::query_as(
        "select id, attempt_id from runs
          where worker_id = $1 and cancel_requested and status in ('assigned', 'running')
            and attempt_id is not null",
    )
    .bind(&hb.worker_id)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    let cancel = cancel
        .into_iter()
        .map(|(run_id, attempt_id)| LeaseRef { run_id, attempt_id })
        .collect();
    Ok((fenced, cancel))
}

/// One device row for the dashboard.
#[derive(Debug, Clone, serde::Serialize, sqlx::FromRow)]
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

/// All devices, with `online` = heard from within `ttl_s`.
pub async fn devices(pool: &PgPool, ttl_s: u64) -> Result<Vec<DeviceRow>, sqlx::Error> {
    sqlx::query_as(
        "select id, worker_id, platform, labels, screen_w_px, screen_h_px, current_run_id,
                last_seen, last_seen > now() - make_interval(secs => $1) as online
           from devices order by id",
    )
    .bind(ttl_s as f64)
    .fetch_all(pool)
    .await
}

/// Label sets of every registered device of `platform` (online or not), for rejecting
/// selectors no device could ever satisfy.
pub async fn label_sets(
    pool: &PgPool,
    platform: &str,
) -> Result<Vec<std::collections::BTreeMap<String, String>>, sqlx::Error> {
    let rows: Vec<(sqlx::types::Json<std::collections::BTreeMap<String, String>>,)> =
        sqlx::query_as("select labels from devices where platform = $1 order by id")
            .bind(platform)
            .fetch_all(pool)
            .await?;
    Ok(rows.into_iter().map(|r| r.0 .0).collect())
}
