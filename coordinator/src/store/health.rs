//! Device health (issue 27): each device's state (`healthy`, `suspect`, `quarantined`),
//! computed over a sliding window of its latest ended runs and their failure classes
//! (`runs.failure_class`, migration 0014), and changed by hand by admins. Farm-wide: no
//! team scope (only admins change it; every caller of `GET /api/v1/devices` reads it).
//!
//! The rules ([`decide`], pure):
//! - **quarantine**: the device's [`QUARANTINE_STREAK`] latest runs all ended with class
//!   `device`. A quarantined device receives no assignments (the claim skips it,
//!   `coordinator/sql/claim.sql`) and stays so until a health probe passes on it
//!   (`store/probes.rs`: only a quarantine this evaluation made is probed) or an admin
//!   releases it ([`set_by_hand`]); the evaluation never lifts a quarantine.
//! - **suspect**: at least [`SUSPECT_MIN_FAILURES`] `device` failures in its window and a
//!   `device` failure rate at least [`SUSPECT_MARGIN`] above its class's (the other devices
//!   with the same platform and labels, over their own windows; 0 without peers). Back to
//!   `healthy` once that no longer holds.
//! - `app` failures never count: an app that fails the same check everywhere quarantines
//!   nothing. `infra` failures do not count either (they are Argus's services, not the
//!   device).
//!
//! The window ([`WINDOW`] runs) holds only runs that ended after the device's last release
//! (`device_health.window_from`), so a released device starts clean, and never a health
//! probe (`runs.probe_device`): a probe is the device's test, not a user's run. Every state change is
//! a row of `device_health_events` with its reason and actor. [`evaluate`] runs inside the
//! applier's (and the reaper's) transaction, after the runs' ends are written; it locks the
//! `device_health` rows it changes in device id order.

use std::collections::{BTreeSet, HashMap};

use argus_protocol::api::{DeviceHealth, HealthEvent, HealthState, HealthWindow};
use sqlx::{PgConnection, PgPool};

/// Latest ended runs a device's health is computed over. 10: enough runs that a rate means
/// something, few enough that a device that broke is seen within minutes.
pub const WINDOW: i64 = 10;

/// Consecutive `device` failures (newest first) that quarantine a device. 3: one or two can
/// be bad luck (a page that crashed the renderer once); three in a row, with nothing in
/// between, is a device that keeps eating runs.
pub const QUARANTINE_STREAK: u32 = 3;

/// Least `device` failures in the window before a device can be `suspect`.
pub const SUSPECT_MIN_FAILURES: u32 = 2;

/// How far (as a fraction of runs, 0–1) a device's `device` failure rate must be above its
/// class's to make it `suspect`: 0.3 = 30 percentage points.
pub const SUSPECT_MARGIN: f64 = 0.3;

/// Who the automatic evaluation is in `device_health_events.actor`.
pub const ACTOR_HEALTH: &str = "health";

/// A device's window as [`decide`] reads it: the counts plus how many of its newest runs in
/// a row were `device` failures.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Window {
    /// The counts the API shows.
    pub counts: HealthWindow,
    /// `device` failures in a row, newest first.
    pub streak: u32,
}

impl Window {
    /// The window of `classes`: the failure classes (`None`: none) of a device's latest
    /// ended runs, newest first.
    pub fn of(classes: &[Option<String>]) -> Window {
        let is = |c: &Option<String>, name: &str| c.as_deref() == Some(name);
        Window {
            counts: HealthWindow {
                runs: classes.len() as u32,
                device_failures: classes.iter().filter(|c| is(c, "device")).count() as u32,
                app_failures: classes.iter().filter(|c| is(c, "app")).count() as u32,
            },
            streak: classes.iter().take_while(|c| is(c, "device")).count() as u32,
        }
    }

    /// Its `device` failure rate, 0–1 (0 for an empty window).
    pub fn rate(&self) -> f64 {
        if self.counts.runs == 0 {
            0.0
        } else {
            f64::from(self.counts.device_failures) / f64::from(self.counts.runs)
        }
    }
}

/// The state a device in state `now` with window `w` moves to, and why; `None` when it
/// stays. `class_rate`: its class's `device` failure rate (0–1), `None` when not needed
/// (see [`needs_class_rate`]) or without peers. See the module docs for the rules.
pub fn decide(
    now: HealthState,
    w: &Window,
    class_rate: Option<f64>,
) -> Option<(HealthState, String)> {
    if now == HealthState::Quarantined {
        return None;
    }
    if w.streak >= QUARANTINE_STREAK {
        return Some((
            HealthState::Quarantined,
            format!(
                "{} device failures in a row (driver, browser or device broke); \
                 {} of its last {} runs",
                w.streak, w.counts.device_failures, w.counts.runs
            ),
        ));
    }
    let class = class_rate.unwrap_or(0.0);
    let suspect =
        w.counts.device_failures >= SUSPECT_MIN_FAILURES && w.rate() >= class + SUSPECT_MARGIN;
    match (now, suspect) {
        (HealthState::Healthy, true) => Some((
            HealthState::Suspect,
            format!(
                "device failures in {} of its last {} runs ({:.0}%), its class {:.0}%",
                w.counts.device_failures,
                w.counts.runs,
                w.rate() * 100.0,
                class * 100.0
            ),
        )),
        (HealthState::Suspect, false) => Some((
            HealthState::Healthy,
            format!(
                "device failures down to {} of its last {} runs",
                w.counts.device_failures, w.counts.runs
            ),
        )),
        _ => None,
    }
}

/// Whether [`decide`] needs the class's rate for `w` (only a window that could be suspect).
pub fn needs_class_rate(w: &Window) -> bool {
    w.counts.device_failures >= SUSPECT_MIN_FAILURES && w.streak < QUARANTINE_STREAK
}

/// A stored state; an unknown value (the check constraint rules it out) reads `healthy`.
fn state(s: &str) -> HealthState {
    HealthState::parse(s).unwrap_or(HealthState::Healthy)
}

/// Re-evaluates the health of the devices among `devices` whose state can change: those
/// with a `device` failure in their window or now `suspect` (a device with neither stays
/// healthy). A batch of passing runs costs one query: per device one probe of
/// `runs_device_failures` (migration 0022: its `device` failures since its window began;
/// a device with none has none in its window either), and only for a device with one, a
/// read of at most [`WINDOW`] rows of `runs_device_recent` (reading those for every device
/// of every batch was 6% of PostgreSQL's statement time in `dispatch-bench`). Inside the
/// caller's transaction; quarantined devices are left alone.
///
/// Errors: any database error (the caller rolls back).
pub async fn evaluate(tx: &mut PgConnection, devices: &[String]) -> Result<(), sqlx::Error> {
    if devices.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = devices
        .iter()
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let due = sqlx::query_scalar!(
        r#"select d.id as "id!" from unnest($1::text[]) d(id)
             left join device_health h on h.device_id = d.id
            where coalesce(h.state, 'healthy') <> 'quarantined'
              and (h.state = 'suspect'
                   or case when exists (select 1 from runs f
                                         where f.device_id = d.id
                                           and f.failure_class = 'device'
                                           and f.probe_device is null
                                           and f.finished_at is not null
                                           and f.finished_at
                                               > coalesce(h.window_from, '-infinity'))
                      then exists (select 1 from (select r.failure_class from runs r
                                                   where r.device_id = d.id
                                                     and r.finished_at is not null
                                                     and r.probe_device is null
                                                     and r.finished_at
                                                         > coalesce(h.window_from, '-infinity')
                                                   order by r.finished_at desc limit $2) w
                                    where w.failure_class = 'device')
                      else false end)
            order by d.id"#,
        &ids,
        WINDOW
    )
    .fetch_all(&mut *tx)
    .await?;
    for id in due {
        evaluate_one(&mut *tx, &id).await?;
    }
    Ok(())
}

/// [`evaluate`] for one device: locks (creating) its row, reads its window and, when
/// needed, its class's rate, and writes the change [`decide`] makes.
async fn evaluate_one(tx: &mut PgConnection, id: &str) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "insert into device_health (device_id) values ($1) on conflict do nothing",
        id
    )
    .execute(&mut *tx)
    .await?;
    let row = sqlx::query!(
        "select state, window_from from device_health where device_id = $1 for update",
        id
    )
    .fetch_one(&mut *tx)
    .await?;
    let classes = sqlx::query_scalar!(
        "select failure_class from runs
          where device_id = $1 and finished_at is not null and probe_device is null
            and finished_at > coalesce($2, '-infinity'::timestamptz)
          order by finished_at desc limit $3",
        id,
        row.window_from,
        WINDOW
    )
    .fetch_all(&mut *tx)
    .await?;
    let w = Window::of(&classes);
    let class_rate = if needs_class_rate(&w) {
        class_rate(&mut *tx, id).await?
    } else {
        None
    };
    if let Some((to, reason)) = decide(state(&row.state), &w, class_rate) {
        change(&mut *tx, id, to, &reason, ACTOR_HEALTH, false).await?;
    }
    Ok(())
}

/// The `device` failure rate (0–1) of the other devices of `id`'s class (same platform and
/// labels) over their own windows; `None` when they have no ended runs.
async fn class_rate(tx: &mut PgConnection, id: &str) -> Result<Option<f64>, sqlx::Error> {
    let r = sqlx::query!(
        r#"select count(*) filter (where w.failure_class = 'device') as "device!",
                  count(*) as "runs!"
             from devices d
             join devices o on o.platform = d.platform and o.labels = d.labels and o.id <> d.id
             cross join lateral (select r.failure_class from runs r
                                  where r.device_id = o.id and r.finished_at is not null
                                    and r.probe_device is null
                                  order by r.finished_at desc limit $2) w
            where d.id = $1"#,
        id,
        WINDOW
    )
    .fetch_one(&mut *tx)
    .await?;
    Ok((r.runs > 0).then(|| r.device as f64 / r.runs as f64))
}

/// Moves `id`'s (locked) row to `to` with `reason` and records the change by `actor` (kept
/// as the row's `actor`: a quarantine by [`ACTOR_HEALTH`] is probed, `store/probes.rs`);
/// `reset` also restarts its window (a release).
pub(crate) async fn change(
    tx: &mut PgConnection,
    id: &str,
    to: HealthState,
    reason: &str,
    actor: &str,
    reset: bool,
) -> Result<(), sqlx::Error> {
    let from = sqlx::query_scalar!(
        "update device_health h set state = $2, reason = $3, since = now(), actor = $5,
                window_from = case when $4 then now() else h.window_from end
           from (select state from device_health where device_id = $1) old
          where h.device_id = $1
         returning old.state",
        id,
        to.as_str(),
        reason,
        reset,
        actor
    )
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query!(
        "insert into device_health_events (device_id, from_state, to_state, reason, actor)
         values ($1, $2, $3, $4, $5)",
        id,
        from,
        to.as_str(),
        reason,
        actor
    )
    .execute(&mut *tx)
    .await?;
    tracing::info!(device_id = id, from = %from, to = to.as_str(), reason, actor, "device health changed");
    Ok(())
}

/// What an admin's change met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandChange {
    /// Done; the device's health now.
    Changed(DeviceHealth),
    /// No device with that id was ever registered.
    UnknownDevice,
    /// The device is already in the state asked for (quarantine) or not quarantined
    /// (release): nothing changed.
    AlreadyThere(HealthState),
}

/// An admin quarantines (`to` = `quarantined`) or releases (`to` = `healthy`, its window
/// restarted) device `id`, by `actor`, with `reason`. One transaction.
///
/// Errors: any database error.
pub async fn set_by_hand(
    pool: &PgPool,
    id: &str,
    to: HealthState,
    reason: &str,
    actor: &str,
) -> Result<HandChange, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let known = sqlx::query_scalar!(
        r#"select exists (select 1 from devices where id = $1) as "known!""#,
        id
    )
    .fetch_one(&mut *tx)
    .await?;
    if !known {
        return Ok(HandChange::UnknownDevice);
    }
    sqlx::query!(
        "insert into device_health (device_id) values ($1) on conflict do nothing",
        id
    )
    .execute(&mut *tx)
    .await?;
    let now = sqlx::query_scalar!(
        "select state from device_health where device_id = $1 for update",
        id
    )
    .fetch_one(&mut *tx)
    .await?;
    let now = state(&now);
    let release = to != HealthState::Quarantined;
    if (release && now != HealthState::Quarantined) || (!release && now == to) {
        return Ok(HandChange::AlreadyThere(now));
    }
    change(&mut tx, id, to, reason, actor, release).await?;
    tx.commit().await?;
    let health = of_devices(pool, &[id.to_string()]).await?.remove(id);
    Ok(HandChange::Changed(
        health.unwrap_or_else(DeviceHealth::never_evaluated),
    ))
}

/// The health of each of `ids`, by device id: its stored state (`healthy` with no reason
/// and no `since` for a device never evaluated) and its current window's counts. One query.
///
/// Errors: any database error.
pub async fn of_devices(
    pool: &PgPool,
    ids: &[String],
) -> Result<HashMap<String, DeviceHealth>, sqlx::Error> {
    let rows = sqlx::query!(
        r#"select d.id as "id!", coalesce(h.state, 'healthy') as "state!",
                  coalesce(h.reason, '') as "reason!", h.since as "since?",
                  c.runs as "runs!", c.device as "device!", c.app as "app!"
             from unnest($1::text[]) d(id)
             left join device_health h on h.device_id = d.id
             cross join lateral (
                 select count(*) as runs,
                        count(*) filter (where w.failure_class = 'device') as device,
                        count(*) filter (where w.failure_class = 'app') as app
                   from (select r.failure_class from runs r
                          where r.device_id = d.id and r.finished_at is not null
                            and r.probe_device is null
                            and r.finished_at > coalesce(h.window_from, '-infinity')
                          order by r.finished_at desc limit $2) w) c"#,
        ids,
        WINDOW
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let health = DeviceHealth {
                state: state(&r.state),
                reason: r.reason,
                since: r.since,
                window: HealthWindow {
                    runs: r.runs as u32,
                    device_failures: r.device as u32,
                    app_failures: r.app as u32,
                },
            };
            (r.id, health)
        })
        .collect())
}

/// The latest `limit` health changes of every device, newest first.
///
/// Errors: any database error.
pub async fn events(pool: &PgPool, limit: i64) -> Result<Vec<HealthEvent>, sqlx::Error> {
    let rows = sqlx::query!(
        "select device_id, from_state, to_state, reason, actor, at from device_health_events
          order by at desc, id desc limit $1",
        limit
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| HealthEvent {
            device_id: r.device_id,
            from: state(&r.from_state),
            to: state(&r.to_state),
            reason: r.reason,
            actor: r.actor,
            at: r.at,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(classes: &[&str]) -> Window {
        let v: Vec<Option<String>> = classes
            .iter()
            .map(|c| (!c.is_empty()).then(|| c.to_string()))
            .collect();
        Window::of(&v)
    }

    #[test]
    fn three_device_failures_in_a_row_quarantine() {
        let win = w(&["device", "device", "device", "", ""]);
        assert_eq!(win.streak, 3);
        assert_eq!(win.counts.device_failures, 3);
        let (to, why) = decide(HealthState::Healthy, &win, None).expect("change");
        assert_eq!(to, HealthState::Quarantined);
        assert!(why.contains("3 device failures in a row"), "{why}");
        // a quarantine is never lifted by the evaluation
        assert_eq!(decide(HealthState::Quarantined, &w(&["", ""]), None), None);
    }

    #[test]
    fn app_failures_never_count() {
        let win = w(&["app"; 10]);
        assert_eq!((win.streak, win.counts.app_failures), (0, 10));
        assert_eq!(decide(HealthState::Healthy, &win, Some(0.0)), None);
    }

    #[test]
    fn a_rate_far_above_the_class_makes_it_suspect_and_back() {
        let win = w(&["device", "", "device", "", ""]);
        assert!(needs_class_rate(&win));
        let (to, why) = decide(HealthState::Healthy, &win, Some(0.05)).expect("suspect");
        assert_eq!(to, HealthState::Suspect);
        assert!(
            why.contains("2 of its last 5 runs (40%), its class 5%"),
            "{why}"
        );
        // a class that fails as often is no reason
        assert_eq!(decide(HealthState::Healthy, &win, Some(0.3)), None);
        let calm = w(&["", "", "", "device", "", "", "", "", "", ""]);
        let (to, _) = decide(HealthState::Suspect, &calm, Some(0.0)).expect("healthy");
        assert_eq!(to, HealthState::Healthy);
    }
}
