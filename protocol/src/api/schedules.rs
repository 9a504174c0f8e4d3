//! Answers of `/api/v1/schedules…`: the created schedule's fire times and a schedule as
//! listed and shown.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::MissedTicks;
use crate::job::{JobSpec, Selector};

/// The answer to `POST /api/v1/schedules` (201).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScheduleCreated {
    /// The schedule.
    pub schedule_id: Uuid,
    /// Its next five fire times.
    pub next_fire_times: Vec<DateTime<Utc>>,
}

/// A schedule as `GET /api/v1/schedules` lists it and `GET /api/v1/schedules/{id}`, pause
/// and resume answer it: its spec's fields, then what the coordinator keeps about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScheduleView {
    /// The schedule.
    pub id: Uuid,
    /// Its team.
    pub team_id: String,
    /// Display name.
    pub name: String,
    /// Five-field cron expression.
    pub cron: String,
    /// IANA timezone.
    pub timezone: String,
    /// The job each cell runs.
    pub template: JobSpec,
    /// Device matrix: one selector per cell.
    pub matrix: Vec<Selector>,
    /// Missed-tick policy.
    pub missed: MissedTicks,
    /// Paused: it fires nothing.
    pub paused: bool,
    /// When it fires next (kept while paused; resume recomputes it from now).
    pub next_fire_at: DateTime<Utc>,
    /// When it last fired.
    pub last_fired_at: Option<DateTime<Utc>>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// The next five fire times; empty when paused.
    pub next_fire_times: Vec<DateTime<Utc>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The view shows the spec's fields at the top level (as the stored row flattened them
    /// before it was typed) and reads back.
    #[test]
    fn the_view_keeps_its_flat_shape_and_round_trips() {
        let spec: crate::api::ScheduleSpec = serde_json::from_value(serde_json::json!({
            "name": "n", "cron": "* * * * *",
            "template": {"platform": "web", "instruction": "wait 1ms"}}))
        .expect("spec");
        let at = DateTime::<Utc>::from_timestamp(0, 0).expect("epoch");
        let view = ScheduleView {
            id: Uuid::nil(),
            team_id: "t".into(),
            name: spec.name,
            cron: spec.cron,
            timezone: spec.timezone,
            template: spec.template,
            matrix: spec.matrix,
            missed: spec.missed,
            paused: spec.paused,
            next_fire_at: at,
            last_fired_at: None,
            created_at: at,
            next_fire_times: vec![at],
        };
        let v = serde_json::to_value(&view).expect("json");
        let mut keys: Vec<&str> = v
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "created_at",
                "cron",
                "id",
                "last_fired_at",
                "matrix",
                "missed",
                "name",
                "next_fire_at",
                "next_fire_times",
                "paused",
                "team_id",
                "template",
                "timezone"
            ]
        );
        assert_eq!(v["missed"], "skip");
        let back: ScheduleView = serde_json::from_value(v).expect("read back");
        assert_eq!(back, view);
    }
}

/// One job `POST /api/v1/schedules/{id}/run` queued: a matrix cell's job and its run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScheduleRunJob {
    /// The stored job.
    pub job_id: Uuid,
    /// Its first (queued) run.
    pub run_id: Uuid,
    /// The label of the matrix cell it runs on (`model=Pixel 7`; `any` for no labels).
    pub matrix_cell: String,
}

/// The answer to `POST /api/v1/schedules/{id}/run` (201): the schedule fired once now,
/// outside its cron (paused or not; its next tick is unchanged).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScheduleRun {
    /// The schedule.
    pub schedule_id: Uuid,
    /// One job per matrix cell, each with its queued run.
    pub jobs: Vec<ScheduleRunJob>,
}
