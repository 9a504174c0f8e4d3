//! Schedule rows: create, list, pause/resume, delete — always within the caller's team.

use chrono::{DateTime, Utc};
use sqlx::types::Json;
use sqlx::PgPool;
use uuid::Uuid;

use argus_protocol::MissedTicks;

use super::TeamScope;
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

/// A `schedules` row as stored (template and matrix as JSON, `missed` as text).
struct Row {
    id: Uuid,
    team_id: String,
    name: String,
    cron: String,
    timezone: String,
    template: Json<argus_protocol::JobSpec>,
    matrix: Json<Vec<argus_protocol::Selector>>,
    missed: String,
    paused: bool,
    next_fire_at: DateTime<Utc>,
    last_fired_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
}

fn from_row(r: Row) -> ScheduleRow {
    ScheduleRow {
        id: r.id,
        team_id: r.team_id,
        spec: ScheduleSpec {
            name: r.name,
            cron: r.cron,
            timezone: r.timezone,
            template: r.template.0,
            matrix: r.matrix.0,
            missed: MissedTicks::parse(&r.missed).unwrap_or_default(),
            paused: r.paused,
        },
        next_fire_at: r.next_fire_at,
        last_fired_at: r.last_fired_at,
        created_at: r.created_at,
    }
}

/// The schedules in `scope`, only the one `id` when given, by name.
async fn rows(
    pool: &PgPool,
    id: Option<Uuid>,
    scope: &TeamScope,
) -> Result<Vec<ScheduleRow>, sqlx::Error> {
    let rows = sqlx::query_as!(
        Row,
        r#"select id, team_id, name, cron, timezone,
                  template as "template: Json<argus_protocol::JobSpec>",
                  matrix as "matrix: Json<Vec<argus_protocol::Selector>>",
                  missed, paused, next_fire_at, last_fired_at, created_at
             from schedules
            where ($1::uuid is null or id = $1) and ($2::text is null or team_id = $2)
            order by name, id"#,
        id,
        scope.team()
    )
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(from_row).collect())
}

/// Stores a validated schedule whose first tick is `first`.
pub async fn insert(
    pool: &PgPool,
    team: &str,
    s: &ScheduleSpec,
    first: DateTime<Utc>,
) -> Result<Uuid, sqlx::Error> {
    let id = Uuid::new_v4();
    sqlx::query!(
        "insert into schedules (id, team_id, name, cron, timezone, template, matrix, missed,
                                paused, next_fire_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        id,
        team,
        s.name,
        s.cron,
        s.timezone,
        Json(&s.template) as _,
        Json(&s.matrix) as _,
        s.missed.as_str(),
        s.paused,
        first
    )
    .execute(pool)
    .await?;
    Ok(id)
}

/// The schedules in `scope`, by name.
pub async fn list(pool: &PgPool, scope: &TeamScope) -> Result<Vec<ScheduleRow>, sqlx::Error> {
    rows(pool, None, scope).await
}

/// One schedule in `scope`.
pub async fn get(
    pool: &PgPool,
    id: Uuid,
    scope: &TeamScope,
) -> Result<Option<ScheduleRow>, sqlx::Error> {
    Ok(rows(pool, Some(id), scope).await?.into_iter().next())
}

/// Pauses or resumes; a resume restarts from `next` (computed from now). Returns whether
/// the schedule exists in `scope`.
pub async fn set_paused(
    pool: &PgPool,
    id: Uuid,
    scope: &TeamScope,
    paused: bool,
    next: DateTime<Utc>,
) -> Result<bool, sqlx::Error> {
    let n = sqlx::query!(
        "update schedules set paused = $3,
                next_fire_at = case when $3 then next_fire_at else $4 end
          where id = $1 and ($2::text is null or team_id = $2)",
        id,
        scope.team(),
        paused,
        next
    )
    .execute(pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Deletes; returns whether it existed in `scope`.
pub async fn delete(pool: &PgPool, id: Uuid, scope: &TeamScope) -> Result<bool, sqlx::Error> {
    let n = sqlx::query!(
        "delete from schedules where id = $1 and ($2::text is null or team_id = $2)",
        id,
        scope.team()
    )
    .execute(pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}
