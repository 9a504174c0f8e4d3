//! Schedules (patrols): cron + IANA timezone + job template + device matrix → one job per
//! matrix cell per tick.
//!
//! Cron expressions are the standard five fields (minute hour day-of-month month
//! day-of-week), parsed by the `cron` crate (which wants a leading seconds field, added
//! here as `0`); times are computed in the schedule's timezone (`chrono-tz`), so "every day
//! at 09:00 Europe/Paris" follows daylight saving time.
//!
//! No double firing with several coordinators: a tick is claimed in SQL — the
//! `schedule_fires (schedule_id, fire_at)` primary key admits one insert per tick, and
//! `next_fire_at` only advances from the value read (compare-and-set, `rows_affected`
//! checked), all in the transaction that inserts the tick's jobs.
//!
//! Missed ticks (coordinators down): `skip` fires nothing for ticks older than the latest
//! one that has passed (it fires only when the due tick is the most recent); `run_once`
//! fires once for the whole gap. Either way the next tick is computed from now.

use std::str::FromStr;
use std::time::Duration;

use argus_protocol::{JobSpec, MissedTicks, Selector};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::drain::Stop;
use crate::store::jobs::{insert, JobMeta};
use crate::AppState;

/// Parses a five-field cron expression.
pub fn parse_cron(expr: &str) -> Result<cron::Schedule, String> {
    let fields = expr.split_whitespace().count();
    if fields != 5 {
        return Err(format!(
            "cron {expr:?} has {fields} fields; write five: minute hour day-of-month month day-of-week"
        ));
    }
    cron::Schedule::from_str(&format!("0 {expr}"))
        .map_err(|e| format!("cron {expr:?} is not valid: {e}"))
}

/// Parses an IANA timezone name (`Europe/Paris`, `UTC`).
pub fn parse_tz(tz: &str) -> Result<chrono_tz::Tz, String> {
    chrono_tz::Tz::from_str(tz).map_err(|_| format!("timezone {tz:?} is not an IANA name"))
}

/// The next `n` fire times strictly after `after`, in UTC.
pub fn upcoming(
    expr: &str,
    tz: &str,
    after: DateTime<Utc>,
    n: usize,
) -> Result<Vec<DateTime<Utc>>, String> {
    let sched = parse_cron(expr)?;
    let tz = parse_tz(tz)?;
    Ok(sched
        .after(&after.with_timezone(&tz))
        .take(n)
        .map(|t| t.with_timezone(&Utc))
        .collect())
}

/// The next fire time after `after`.
pub fn next_fire(expr: &str, tz: &str, after: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    upcoming(expr, tz, after, 1)?
        .into_iter()
        .next()
        .ok_or_else(|| format!("cron {expr:?} never fires"))
}

pub use argus_protocol::ScheduleSpec;

/// Short text for a matrix cell, e.g. `model=Pixel 7, os_version>=13`.
pub fn cell_label(sel: &Selector) -> String {
    let mut parts: Vec<String> = sel.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.extend(sel.require.iter().cloned());
    if parts.is_empty() {
        "any".into()
    } else {
        parts.join(", ")
    }
}

/// The jobs of one tick (or one suite cell set): the template with each cell's selector.
pub fn expand(template: &JobSpec, matrix: &[Selector]) -> Vec<(JobSpec, String)> {
    let cells: Vec<Selector> = if matrix.is_empty() {
        vec![template.selector.clone()]
    } else {
        matrix.to_vec()
    };
    cells
        .into_iter()
        .map(|sel| {
            let mut spec = template.clone();
            let label = cell_label(&sel);
            spec.selector = sel;
            (spec, label)
        })
        .collect()
}

/// Fires due schedules every `dispatch_interval_ms` until `stop`; a pass under way finishes
/// first.
pub async fn run(state: AppState, mut stop: Stop) {
    let interval = Duration::from_millis(state.cfg.dispatch_interval_ms.max(100));
    while !stop.is_stopped() {
        match fire_due(&state).await {
            Ok(n) if n > 0 => state.wake.notify_one(),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "scheduler pass failed"),
        }
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = stop.wait() => {}
        }
    }
}

/// A due schedule as [`fire_due`] reads it; `next_fire_at` is the tick being fired.
struct DueRow {
    id: Uuid,
    team_id: String,
    cron: String,
    timezone: String,
    template: sqlx::types::Json<JobSpec>,
    matrix: sqlx::types::Json<Vec<Selector>>,
    missed: String,
    next_fire_at: DateTime<Utc>,
}

/// Fires every due schedule once; returns how many ticks fired.
pub async fn fire_due(state: &AppState) -> anyhow::Result<usize> {
    let due = sqlx::query_as!(
        DueRow,
        r#"select id, team_id, cron, timezone,
                  template as "template: sqlx::types::Json<JobSpec>",
                  matrix as "matrix: sqlx::types::Json<Vec<Selector>>", missed, next_fire_at
             from schedules where not paused and next_fire_at <= now()
            order by next_fire_at limit 50"#
    )
    .fetch_all(&state.pool)
    .await?;
    let mut fired = 0;
    for row in due {
        let DueRow {
            id,
            team_id: team,
            cron,
            timezone: tz,
            template,
            matrix,
            missed,
            next_fire_at: tick,
        } = row;
        let now = Utc::now();
        let next = match next_fire(&cron, &tz, now) {
            Ok(n) => n,
            Err(e) => {
                tracing::error!(schedule = %id, error = %e, "schedule has a bad cron; pausing it");
                sqlx::query!("update schedules set paused = true where id = $1", id)
                    .execute(&state.pool)
                    .await?;
                continue;
            }
        };
        // Was a later tick than `tick` also due? Then ticks were missed.
        let later_due = next_fire(&cron, &tz, tick)
            .map(|t| t <= now)
            .unwrap_or(false);
        let fire = !later_due || MissedTicks::parse(&missed) == Some(MissedTicks::RunOnce);
        let mut tx = state.pool.begin().await?;
        let advanced = sqlx::query!(
            "update schedules set next_fire_at = $3,
                    last_fired_at = case when $4 then $2 else last_fired_at end
              where id = $1 and next_fire_at = $2 and not paused",
            id,
            tick,
            next,
            fire
        )
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if advanced != 1 {
            tx.rollback().await?;
            continue; // another coordinator took this tick
        }
        if fire {
            let claimed = sqlx::query!(
                "insert into schedule_fires (schedule_id, fire_at) values ($1, $2)
                 on conflict do nothing",
                id,
                tick
            )
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if claimed == 1 {
                for (spec, cell) in expand(&template.0, &matrix.0) {
                    let meta = JobMeta {
                        team_id: team.clone(),
                        schedule_id: Some(id),
                        matrix_cell: Some(cell),
                        ..Default::default()
                    };
                    insert(&mut *tx, &spec, &meta).await?;
                }
                fired += 1;
            }
        } else {
            tracing::info!(schedule = %id, %tick, "missed ticks skipped");
        }
        tx.commit().await?;
    }
    Ok(fired)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn cron_in_timezone_follows_dst() {
        // 09:00 Paris is 08:00 UTC in winter, 07:00 UTC in summer.
        let winter = Utc.with_ymd_and_hms(2026, 1, 10, 0, 0, 0).unwrap();
        let t = next_fire("0 9 * * *", "Europe/Paris", winter).unwrap();
        assert_eq!(t, Utc.with_ymd_and_hms(2026, 1, 10, 8, 0, 0).unwrap());
        let summer = Utc.with_ymd_and_hms(2026, 7, 10, 0, 0, 0).unwrap();
        let t = next_fire("0 9 * * *", "Europe/Paris", summer).unwrap();
        assert_eq!(t, Utc.with_ymd_and_hms(2026, 7, 10, 7, 0, 0).unwrap());
        let ts = upcoming("*/30 * * * *", "UTC", winter, 3).unwrap();
        assert_eq!(ts.len(), 3);
        assert_eq!((ts[1] - ts[0]).num_minutes(), 30);
        assert!(parse_cron("* * * *").is_err());
        assert!(parse_cron("61 * * * *").is_err());
        assert!(parse_tz("Mars/Olympus").is_err());
    }
}
