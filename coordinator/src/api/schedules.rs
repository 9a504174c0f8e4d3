//! `/api/v1/schedules`: create (validated: cron, timezone, every matrix cell's job), list
//! and show with the next fire times, pause, resume, delete.

use argus_protocol::api::{ScheduleCreated, ScheduleView};
use argus_protocol::{ErrorCode, ErrorEnvelope};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use chrono::Utc;

use super::answers::schedule_view;
use super::parse_id;
use crate::auth::{Caller, User};
use crate::error::ApiError;
use crate::scheduler::{self, ScheduleSpec};
use crate::store::schedules::{self, ScheduleRow};
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/schedules", post(create).get(list))
        .route("/api/v1/schedules/{id}", get(show).delete(remove))
        .route("/api/v1/schedules/{id}/pause", post(pause))
        .route("/api/v1/schedules/{id}/resume", post(resume))
}

fn invalid(field: &str, message: String, hint: &str) -> ApiError {
    ApiError::Client(ErrorEnvelope::new(ErrorCode::InvalidField, message, hint).with_field(field))
}

/// Validates a schedule and stores it; shared by the API and the dashboard form.
pub(crate) async fn create_schedule(
    st: &AppState,
    caller: &Caller,
    s: &ScheduleSpec,
) -> Result<(uuid::Uuid, Vec<chrono::DateTime<Utc>>), ApiError> {
    if s.name.trim().is_empty() {
        return Err(invalid("name", "name is empty".into(), "give 1–200 chars"));
    }
    super::hygiene::check_name("name", &s.name)?;
    scheduler::parse_cron(&s.cron).map_err(|e| invalid("cron", e, "e.g. `*/30 * * * *`"))?;
    scheduler::parse_tz(&s.timezone)
        .map_err(|e| invalid("timezone", e, "e.g. `UTC` or `Europe/Paris`"))?;
    if s.matrix.len() > 64 {
        return Err(invalid(
            "matrix",
            "more than 64 cells".into(),
            "split the schedule",
        ));
    }
    for (i, (spec, _)) in scheduler::expand(&s.template, &s.matrix).iter().enumerate() {
        spec.validate().map_err(|e| {
            invalid(
                &format!("template.{}", e.field),
                format!("matrix cell {i}: {}: {}", e.field, e.message),
                &e.hint,
            )
        })?;
        super::hygiene::check_spec("template.", spec)?;
        // A cell no device matches yet is accepted: its runs queue (and time out) like any.
    }
    let next = scheduler::upcoming(&s.cron, &s.timezone, Utc::now(), 5)
        .map_err(|e| invalid("cron", e, "check the expression"))?;
    let first = *next.first().ok_or_else(|| {
        invalid(
            "cron",
            "the cron never fires".into(),
            "check the expression",
        )
    })?;
    let id = schedules::insert(&st.pool, &caller.team_id, s, first).await?;
    Ok((id, next))
}

/// Creates a schedule after validating its cron, timezone and every matrix cell's job.
#[utoipa::path(
    post,
    path = "/api/v1/schedules",
    operation_id = "create_schedule",
    summary = "Create a schedule",
    request_body = ScheduleSpec,
    responses((
        status = 201,
        description = "stored; its next five fire times",
        body = ScheduleCreated
    ))
)]
pub(super) async fn create(
    State(st): State<AppState>,
    User(caller): User,
    body: Bytes,
) -> Result<(StatusCode, Json<ScheduleCreated>), ApiError> {
    let s: ScheduleSpec = super::parse_body(
        &body,
        "fields: name, cron (five fields), timezone (IANA), template (a job), matrix \
         (selectors), missed (skip|run_once), paused",
    )?;
    let (id, next) = create_schedule(&st, &caller, &s).await?;
    Ok((
        StatusCode::CREATED,
        Json(ScheduleCreated {
            schedule_id: id,
            next_fire_times: next,
        }),
    ))
}

/// The caller's schedules with their next fire times.
#[utoipa::path(
    get,
    path = "/api/v1/schedules",
    operation_id = "list_schedules",
    summary = "Schedules with their next fire times",
    responses((
        status = 200,
        description = "the schedules as `GET /api/v1/schedules/{id}` shows them",
        body = Vec<ScheduleView>
    ))
)]
pub(super) async fn list(
    State(st): State<AppState>,
    User(caller): User,
) -> Result<Json<Vec<ScheduleView>>, ApiError> {
    let rows = schedules::list(&st.pool, &caller.scope()).await?;
    Ok(Json(rows.iter().map(schedule_view).collect()))
}

async fn load(st: &AppState, caller: &Caller, id: &str) -> Result<ScheduleRow, ApiError> {
    let uuid = parse_id("schedule", id)?;
    schedules::get(&st.pool, uuid, &caller.scope())
        .await?
        .ok_or_else(|| ApiError::not_found("schedule", id))
}

/// One schedule with its next fire times.
#[utoipa::path(
    get,
    path = "/api/v1/schedules/{id}",
    operation_id = "get_schedule",
    summary = "One schedule",
    params(("id" = uuid::Uuid, Path, description = "schedule id")),
    responses((
        status = 200,
        description = "the schedule: its spec, `id`, `next_fire_at` and `next_fire_times` (empty when paused)",
        body = ScheduleView
    ))
)]
pub(super) async fn show(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Json<ScheduleView>, ApiError> {
    Ok(Json(schedule_view(&load(&st, &caller, &id).await?)))
}

/// Pauses or resumes a schedule; shared with the dashboard.
pub(crate) async fn set_paused(
    st: &AppState,
    caller: &Caller,
    id: &str,
    paused: bool,
) -> Result<ScheduleRow, ApiError> {
    let row = load(st, caller, id).await?;
    let next = scheduler::next_fire(&row.spec.cron, &row.spec.timezone, Utc::now())
        .map_err(|e| invalid("cron", e, "recreate the schedule"))?;
    schedules::set_paused(&st.pool, row.id, &caller.scope(), paused, next).await?;
    load(st, caller, id).await
}

/// Pauses a schedule.
#[utoipa::path(
    post,
    path = "/api/v1/schedules/{id}/pause",
    operation_id = "pause_schedule",
    summary = "Pause",
    params(("id" = uuid::Uuid, Path, description = "schedule id")),
    responses((
        status = 200,
        description = "the schedule: its spec, `id`, `next_fire_at` and `next_fire_times` (empty when paused)",
        body = ScheduleView
    ))
)]
pub(super) async fn pause(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Json<ScheduleView>, ApiError> {
    Ok(Json(schedule_view(
        &set_paused(&st, &caller, &id, true).await?,
    )))
}

/// Resumes a schedule from now (missed ticks are not fired).
#[utoipa::path(
    post,
    path = "/api/v1/schedules/{id}/resume",
    operation_id = "resume_schedule",
    summary = "Resume from now",
    params(("id" = uuid::Uuid, Path, description = "schedule id")),
    responses((
        status = 200,
        description = "the schedule: its spec, `id`, `next_fire_at` and `next_fire_times` (empty when paused)",
        body = ScheduleView
    ))
)]
pub(super) async fn resume(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Json<ScheduleView>, ApiError> {
    Ok(Json(schedule_view(
        &set_paused(&st, &caller, &id, false).await?,
    )))
}

/// Deletes a schedule (its past runs stay).
#[utoipa::path(
    delete,
    path = "/api/v1/schedules/{id}",
    operation_id = "delete_schedule",
    summary = "Delete a schedule",
    params(("id" = uuid::Uuid, Path, description = "schedule id")),
    responses((status = 204, description = "deleted"))
)]
pub(super) async fn remove(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let uuid = parse_id("schedule", &id)?;
    if schedules::delete(&st.pool, uuid, &caller.scope()).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("schedule", &id))
    }
}
