//! Health probes (issue 27 item 3): the short built-in job that brings a quarantined device
//! back by itself. A device the health evaluation quarantined (`device_health.actor` =
//! `health`) gets one probe run addressed to it alone (`runs.only_device`, migration 0019,
//! with `runs.probe_device`, migration 0017, marking it a probe); the claim hands that run to
//! that device even while it is quarantined and to no other (`argus_claim_addressed`,
//! `coordinator/sql/claim.sql`). A probe that succeeds releases the
//! device ([`passed`], in the applier's transaction); one that fails, errors, is lost or
//! times out in the queue leaves it quarantined, and the next probe is made once the last
//! one has been over for the probe interval ([`due`], [`schedule`]; the task is
//! [`crate::health_probe`]). A quarantine made by hand is never probed: it holds until an
//! admin releases it.
//!
//! Probes belong to team [`PROBE_TEAM`], so only admins see them (a team user's
//! [`super::TeamScope`] never covers it); they are named `health probe: <device>` and carry
//! `probe_device` in the run detail and the runs list. They never count in a device's health
//! window (`store/health.rs` leaves them out).
//!
//! Several coordinators: [`schedule`] locks the device's `device_health` row and reads its
//! latest probe after the lock, and the unique index `runs_probe_outstanding` admits one
//! probe not yet ended per device, so a probe is made once however many coordinators try.

use argus_protocol::{JobSpec, Platform};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::health::{self, ACTOR_HEALTH};
use super::jobs::{insert, JobMeta};
use argus_protocol::api::HealthState;

/// The team that owns the coordinator's own jobs (health probes); seen by admins only.
pub const PROBE_TEAM: &str = "argus-system";

/// Who a passing probe's release is in `device_health_events.actor`.
pub const ACTOR_PROBE: &str = "health-probe";

/// A text no real screen shows: the probe checks the screen does not show it, which needs
/// the screen to be observed.
const PROBE_MARKER: &str = "argus-health-probe-0f3c9a";

/// How long a probe may wait in the queue for its device (offline, busy) before it ends
/// `timed_out` and the next one is made after the interval, s.
const PROBE_QUEUE_TIMEOUT_S: u64 = 600;

/// Wall-clock limit of one probe run, s: a page load and one observation.
const PROBE_TIMEOUT_S: u64 = 60;

/// The probe job for `device` of `platform`: script mode, no retries, no popup policy, one
/// step that observes the screen and checks that [`PROBE_MARKER`] is not on it. That needs the
/// driver to answer and the screen to be observable (a browser that died, a phone that went
/// away: a `device` error). Web: on a fresh `about:blank` (no network, nothing of an earlier
/// run), so a page load is part of it. Not a `data:` page with a known text: the
/// navigation policy refuses `data:` URLs in jobs (`argus_protocol::nav`), and a probe is a
/// job like any other on the worker.
pub fn spec(platform: Platform, device: &str) -> JobSpec {
    let start_url = (platform == Platform::Web).then(|| "about:blank".to_string());
    let instruction = format!("assert screen does not contain \"{PROBE_MARKER}\"");
    let mut spec = JobSpec::script(platform, start_url, instruction);
    spec.name = Some(format!("health probe: {device}"));
    spec.timeout_s = PROBE_TIMEOUT_S;
    spec.max_steps = 10;
    spec.popups = false;
    spec.queue_timeout_s = Some(PROBE_QUEUE_TIMEOUT_S);
    spec
}

/// The devices due a probe: quarantined by the evaluation (not by hand), and either never
/// probed or their latest probe ended at least `interval_s` seconds ago (none is
/// outstanding). Unlocked: [`schedule`] checks again under the row lock.
///
/// Errors: the database's.
pub async fn due(pool: &PgPool, interval_s: u64) -> Result<Vec<String>, sqlx::Error> {
    sqlx::query_scalar!(
        r#"select h.device_id as "device_id!" from device_health h
            where h.state = 'quarantined' and h.actor = $1
              and not exists (select 1 from (select p.finished_at from runs p
                                              where p.probe_device = h.device_id
                                              order by p.created_at desc limit 1) l
                               where l.finished_at is null
                                  or l.finished_at > now() - make_interval(secs => $2))
            order by h.device_id"#,
        ACTOR_HEALTH,
        interval_s as f64
    )
    .fetch_all(pool)
    .await
}

/// Makes a probe for `device` if it is still due (see [`due`]), in one transaction that
/// holds its `device_health` row: the job and its run (team [`PROBE_TEAM`], `probe_device`
/// set). Returns the probe's run id; `None` when it is no longer due, the row is held by
/// another coordinator doing the same, or the device is not registered (no platform).
///
/// Errors: the database's (a unique violation of `runs_probe_outstanding` when another
/// coordinator made one in between); nothing is stored then.
pub async fn schedule(
    pool: &PgPool,
    device: &str,
    interval_s: u64,
) -> Result<Option<Uuid>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let held = sqlx::query_scalar!(
        "select h.device_id from device_health h
          where h.device_id = $1 and h.state = 'quarantined' and h.actor = $2
          for update skip locked",
        device,
        ACTOR_HEALTH
    )
    .fetch_optional(&mut *tx)
    .await?;
    if held.is_none() {
        return Ok(None);
    }
    // read after the lock: a probe another coordinator made before we got it is seen
    let row = sqlx::query!(
        r#"select d.platform,
                  exists (select 1 from (select p.finished_at from runs p
                                          where p.probe_device = d.id
                                          order by p.created_at desc limit 1) l
                           where l.finished_at is null
                              or l.finished_at > now() - make_interval(secs => $2))
                      as "busy!"
             from devices d where d.id = $1"#,
        device,
        interval_s as f64
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some(row) = row.filter(|r| !r.busy) else {
        return Ok(None);
    };
    let Some(platform) = Platform::parse(&row.platform) else {
        return Ok(None);
    };
    let meta = JobMeta {
        team_id: PROBE_TEAM.to_string(),
        only_device: Some(device.to_string()),
        ..Default::default()
    };
    let (_, run_id) = insert(&mut *tx, &spec(platform, device), &meta).await?;
    sqlx::query!(
        "update runs set probe_device = $2 where id = $1",
        run_id,
        device
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    tracing::info!(device_id = device, run_id = %run_id, "health probe queued");
    Ok(Some(run_id))
}

/// Releases the devices whose probe just succeeded (`ended`: each probe's run id and
/// device) when they are still quarantined by the evaluation: state `healthy`, a clean
/// window, an event "health probe passed (run <id>)" by [`ACTOR_PROBE`]. A device an admin
/// quarantined meanwhile, or released, is left as it is. Inside the applier's transaction;
/// locks the rows in device id order.
///
/// Errors: the database's (the caller rolls back).
pub async fn passed(tx: &mut PgConnection, ended: &[(Uuid, String)]) -> Result<(), sqlx::Error> {
    let mut ended = ended.to_vec();
    ended.sort_by(|a, b| a.1.cmp(&b.1));
    for (run_id, device) in ended {
        let probed = sqlx::query_scalar!(
            "select device_id from device_health
              where device_id = $1 and state = 'quarantined' and actor = $2 for update",
            device,
            ACTOR_HEALTH
        )
        .fetch_optional(&mut *tx)
        .await?;
        if probed.is_some() {
            let reason = format!("health probe passed (run {run_id})");
            health::change(
                &mut *tx,
                &device,
                HealthState::Healthy,
                &reason,
                ACTOR_PROBE,
                true,
            )
            .await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_platform_gets_a_valid_script_probe() {
        for p in Platform::ALL {
            let s = spec(p, "dev-1");
            assert_eq!(s.name.as_deref(), Some("health probe: dev-1"));
            assert_eq!((s.retries, s.retry_elsewhere), (0, 0));
            s.validate()
                .unwrap_or_else(|e| panic!("{p:?} probe invalid: {e:?}"));
        }
        assert_eq!(
            spec(Platform::Web, "d").start_url.as_deref(),
            Some("about:blank")
        );
    }
}
