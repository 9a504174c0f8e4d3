//! Schedule rows: create, list, pause/resume, delete — always within the caller's team.

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use argus_protocol::MissedTicks;

use crate::scheduler::ScheduleSpec;

/// A stored schedule.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ScheduleRow {
    pub id: Uuid,
    pub team_id: String,
    #[serde(flatten)]
    pub spec: ScheduleSpec,
    pub next_fire_at: DateTime<Utc>,
    pub last_fired_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

type Row = (
    Uuid,
    String,
    String,
    String,
    String,
    sqlx::types::Json<argus_protocol::JobSpec>,
    sqlx::types::Json<Vec<argus_protocol::Selector>>,
    String,
    bool,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    DateTime<Utc>,
);

const COLS: &str = "id, team_id, name, cron, timezone, template, matrix, missed, paused, \
                    next_fire_at, last_fired_at, created_at";

fn from_row(r: Row) -> ScheduleRow {
    ScheduleRow {
        id: r.0,
        team_id: r.1,
        spec: ScheduleSpec {
            name: r.2,
            cron: r.3,
            timezone: r.4,
            template: r.5 .0,
            matrix: r.6 .0,
            missed: MissedTicks::parse(&r.7).unwrap_or_default(),
            paused: r.8,
        },
        next_fire_at: r.9,
        last_fired_at: r.10,
        created_at: r.11,
    }
}

/// Stores a validated schedule whose first tick is `first`.
pub async fn insert(
    pool: &PgPool,
    team: &str,
    s: &ScheduleSpec,
    first: DateTime<Utc>,
) -> Result<Uuid, sqlx::Error> {
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into schedules (id, team_id, name, cron, timezone, template, matrix, missed,
                                paused, next_fire_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(id)
    .bind(team)
    .bind(&s.name)
    .bind(&s.cron)
    .bind(&s.timezone)
    .bind(sqlx::types::Json(&s.template))
    .bind(sqlx::types::Json(&s.matrix))
    .bind(s.missed.as_str())
    .bind(s.paused)
    .bind(first)
    .execute(pool)
    .await?;
    Ok(id)
}

/// Schedules of `team` (all for `None`), by name.
pub async fn list(pool: &PgPool, team: Option<&str>) -> Result<Vec<ScheduleRow>, sqlx::Error> {
    let rows: Vec<Row> = sqlx::query_as(&format!(
        "select {COLS} from schedules where ($1::text is null or team_id = $1) order by name, id"
    ))
    .bind(team)
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(from_row).collect())
}

/// One schedule visible to `team`.
pub async fn get(
    pool: &PgPool,
    id: Uuid,
    team: Option<&str>,
) -> Result<Option<ScheduleRow>, sqlx::Error> {
    let row: Option<Row> = sqlx::query_as(&format!(
        "select {COLS} from schedules where id = $1 and ($2::text is null or team_id = $2)"
    ))
    .bind(id)
    .bind(team)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(from_row))
}

/// Pauses or resumes; a resume restarts from `next` (computed from now). Returns whether
/// the schedule exists for the caller.
pub async fn set_paused(
    pool: &PgPool,
    id: Uuid,
    team: Option<&str>,
    paused: bool,
    next: DateTime<Utc>,
) -> Result<bool, sqlx::Error> {
    let n = sqlx::query(
        "update schedules set paused = $3,
                next_fire_at = case when $3 then next_fire_at else $4 end
          where id = $1 and ($2::text is null or team_id = $2)",
    )
    .bind(id)
    .bind(team)
    .bind(paused)
    .bind(next)
    .execute(pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Deletes; returns whether it existed for the caller.
pub async fn delete(pool: &PgPool, id: Uuid, team: Option<&str>) -> Result<bool, sqlx::Error> {
    let n =
        sqlx::query("delete from schedules where id = $1 and ($2::text is null or team_id = $2)")
            .bind(id)
            .bind(team)
            .execute(pool)
            .await?
            .rows_affected();
    Ok(n == 1)
}
