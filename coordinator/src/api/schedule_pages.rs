//! `/schedules` in the dashboard: the list with next fire times, the new-schedule form,
//! and per schedule edit, run now, pause/resume and delete. Each action calls the same
//! function as its `/api/v1/schedules…` operation; every form carries the session's CSRF
//! token. A refused form is shown again as typed with the message next to its field.

use argus_protocol::MissedTicks;
use axum::extract::{Form, Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use chrono::Utc;

use super::matrix_lines::{cell_line, parse_cell};
use super::page_render::{form_error, html};
use crate::auth::{Caller, Csrf, User};
use crate::error::ApiError;
use crate::scheduler::{self, ScheduleSpec};
use crate::store;
use crate::views::{
    platforms, JobForm, ScheduleEditPage, ScheduleForm, ScheduleLine, SchedulesPage,
};
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/schedules", get(schedules_page).post(create))
        .route("/schedules/{id}/edit", get(edit_page).post(edit))
        .route("/schedules/{id}/run", post(run_now))
        .route("/schedules/{id}/delete", post(delete))
        .route("/schedules/{id}/pause", post(pause))
        .route("/schedules/{id}/resume", post(resume))
}

async fn schedule_lines(st: &AppState, caller: &Caller) -> Result<Vec<ScheduleLine>, ApiError> {
    let rows = store::schedules::list(&st.pool, &caller.scope()).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let mut next = Vec::new();
            if !r.spec.paused {
                next.push(r.next_fire_at);
                next.extend(
                    scheduler::upcoming(&r.spec.cron, &r.spec.timezone, r.next_fire_at, 2)
                        .unwrap_or_default(),
                );
            }
            let tz = scheduler::parse_tz(&r.spec.timezone).unwrap_or(chrono_tz::UTC);
            let fmt = |t: chrono::DateTime<Utc>| {
                t.with_timezone(&tz).format("%Y-%m-%d %H:%M %Z").to_string()
            };
            ScheduleLine {
                id: r.id,
                name: r.spec.name.clone(),
                cron: r.spec.cron.clone(),
                timezone: r.spec.timezone.clone(),
                cells: scheduler::expand(&r.spec.template, &r.spec.matrix)
                    .into_iter()
                    .map(|(_, c)| c)
                    .collect::<Vec<_>>()
                    .join(" | "),
                paused: r.spec.paused,
                next: next.into_iter().map(fmt).collect(),
                last: r.last_fired_at.map(fmt),
            }
        })
        .collect())
}

/// The schedule the form describes (not yet validated). `base` is the stored template of
/// an edited schedule: the fields the form does not show (mode, vars, retries…) are kept.
fn spec_from_form(
    form: &ScheduleForm,
    base: Option<&argus_protocol::JobSpec>,
) -> Result<ScheduleSpec, ApiError> {
    let jf = JobForm {
        name: form.name.clone(),
        app_build: form.app_build.clone(),
        platform: form.platform.clone(),
        start_url: form.start_url.clone(),
        instruction: form.instruction.clone(),
        ..Default::default()
    };
    let prefixed = |e| match e {
        ApiError::Client(mut env) => {
            env.field = env.field.map(|f| format!("template.{f}"));
            ApiError::Client(env)
        }
        other => other,
    };
    let mut template = super::job_form::spec_from_form(&jf).map_err(prefixed)?;
    if let Some(base) = base {
        let (platform, url, instruction, name, build) = (
            template.platform,
            template.start_url,
            template.instruction,
            template.name,
            template.app_build,
        );
        template = base.clone();
        (
            template.platform,
            template.start_url,
            template.instruction,
            template.name,
            template.app_build,
        ) = (platform, url, instruction, name, build);
    }
    let mut matrix = Vec::new();
    for line in form.matrix.lines().map(str::trim).filter(|l| !l.is_empty()) {
        matrix.push(parse_cell(line).map_err(|e| {
            super::job_form::invalid("matrix", format!("{e}; one cell per line: k=v, k2=v2"))
        })?);
    }
    Ok(ScheduleSpec {
        name: form.name.clone(),
        cron: form.cron.trim().to_string(),
        timezone: form.timezone.trim().to_string(),
        template,
        matrix,
        missed: MissedTicks::parse(&form.missed).unwrap_or_default(),
        paused: false,
    })
}

/// The page, with `form` in the new-schedule form and `refusal`'s message at its field.
async fn page(
    st: &AppState,
    caller: &Caller,
    csrf: String,
    form: &ScheduleForm,
    refusal: Option<&ApiError>,
) -> Result<Html<String>, ApiError> {
    let (field, error_message) = refusal.map(form_error).unwrap_or_default();
    html(SchedulesPage {
        csrf,
        schedules: schedule_lines(st, caller).await?,
        form,
        platforms: platforms(),
        error: refusal.map(|_| "The schedule was not created; see the field below.".into()),
        field,
        error_message,
    })
}

async fn schedules_page(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
) -> Result<Html<String>, ApiError> {
    let form = ScheduleForm {
        timezone: "UTC".into(),
        platform: "web".into(),
        cron: "*/30 * * * *".into(),
        ..Default::default()
    };
    page(&st, &caller, csrf.0, &form, None).await
}

async fn create(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Form(form): Form<ScheduleForm>,
) -> Result<Response, ApiError> {
    let res = async {
        let spec = spec_from_form(&form, None)?;
        super::schedules::create_schedule(&st, &caller, &spec).await
    }
    .await;
    match res {
        Ok(_) => Ok(Redirect::to("/schedules").into_response()),
        Err(e @ ApiError::Client(_)) => {
            let body = page(&st, &caller, csrf.0, &form, Some(&e)).await?;
            Ok((StatusCode::UNPROCESSABLE_ENTITY, body).into_response())
        }
        Err(e) => Err(e),
    }
}

/// The edit form of one schedule, filled from the stored one.
async fn edit_page(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
) -> Result<Html<String>, ApiError> {
    let uuid = super::parse_id("schedule", &id)?;
    let row = store::schedules::get(&st.pool, uuid, &caller.scope())
        .await?
        .ok_or_else(|| ApiError::not_found("schedule", &id))?;
    let t = &row.spec.template;
    let form = ScheduleForm {
        name: row.spec.name.clone(),
        cron: row.spec.cron.clone(),
        timezone: row.spec.timezone.clone(),
        platform: t.platform.to_string(),
        start_url: t.start_url.clone().unwrap_or_default(),
        matrix: row
            .spec
            .matrix
            .iter()
            .map(cell_line)
            .collect::<Vec<_>>()
            .join("\n"),
        instruction: t.instruction.clone(),
        app_build: t.app_build.clone().unwrap_or_default(),
        missed: row.spec.missed.as_str().to_string(),
    };
    html(ScheduleEditPage {
        csrf: csrf.0,
        id: row.id,
        form: &form,
        platforms: platforms(),
        field: String::new(),
        error_message: String::new(),
    })
}

/// Saves an edited schedule, or shows the edit form again with the refusal at its field.
async fn edit(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
    Form(form): Form<ScheduleForm>,
) -> Result<Response, ApiError> {
    let uuid = super::parse_id("schedule", &id)?;
    let res = async {
        let row = store::schedules::get(&st.pool, uuid, &caller.scope())
            .await?
            .ok_or_else(|| ApiError::not_found("schedule", &id))?;
        let spec = spec_from_form(&form, Some(&row.spec.template))?;
        super::schedules::edit_schedule(&st, &caller, &id, &spec).await
    }
    .await;
    match res {
        Ok(_) => Ok(Redirect::to("/schedules").into_response()),
        Err(ApiError::Client(env)) if env.code != argus_protocol::ErrorCode::NotFound => {
            let e = ApiError::Client(env);
            let (field, error_message) = form_error(&e);
            let body = html(ScheduleEditPage {
                csrf: csrf.0,
                id: uuid,
                form: &form,
                platforms: platforms(),
                field,
                error_message,
            })?;
            Ok((StatusCode::UNPROCESSABLE_ENTITY, body).into_response())
        }
        Err(e) => Err(e),
    }
}

/// "Run now": fires the schedule once, then shows its runs.
async fn run_now(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Redirect, ApiError> {
    let ran = super::schedules::run_schedule(&st, &caller, &id).await?;
    Ok(Redirect::to(&format!("/?schedule={}", ran.schedule_id)))
}

async fn delete(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Redirect, ApiError> {
    super::schedules::delete_schedule(&st, &caller, &id).await?;
    Ok(Redirect::to("/schedules"))
}

async fn pause(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Redirect, ApiError> {
    super::schedules::set_paused(&st, &caller, &id, true).await?;
    Ok(Redirect::to("/schedules"))
}

async fn resume(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Redirect, ApiError> {
    super::schedules::set_paused(&st, &caller, &id, false).await?;
    Ok(Redirect::to("/schedules"))
}
