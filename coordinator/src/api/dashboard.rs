//! Dashboard pages: runs with filters (`/`), devices (one device: [`super::device_page`]; an
//! admin's quarantine and release buttons: [`super::device_actions`]), a cancel button (the
//! SSE feed that keeps a live report current is [`super::live`]); the new-job form is
//! [`super::new_job_page`], the schedules page [`super::schedule_pages`], the suites pages
//! and the New suite form [`super::suite_pages`]. Forms post plain `application/x-www-form-urlencoded`; the
//! only script is the new-job form's "add row" buttons.
//! Every form carries the session's CSRF token (hidden `csrf` field) that `auth::authenticate`
//! checks, and only same-origin posts are accepted.

use super::page_render::html;
use axum::extract::{Path, State};
use axum::response::{Html, Redirect};
use axum::routing::{get, post};
use axum::{Extension, Router};

use super::envelope::ApiQuery;
use super::runs::visible_detail;
use crate::auth::{Csrf, User};
use crate::error::ApiError;
use crate::store;
use crate::store::runs::RunFilter;
use crate::views::*;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(runs))
        .route("/devices", get(devices))
        .route("/devices/{id}", get(super::device_page::device))
        .route(
            "/jobs/new",
            get(super::new_job_page::new_job).post(super::new_job_page::create_job),
        )
        .merge(super::schedule_pages::router())
        .merge(super::suite_pages::router())
        .route("/runs/{id}/cancel", post(cancel))
        .route("/runs/{id}/replay/clear", post(clear_replay))
}

async fn runs(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    ApiQuery(filter): ApiQuery<RunFilter>,
) -> Result<Html<String>, ApiError> {
    let runs = store::runs::list(&st.pool, &caller.scope(), &filter).await?;
    html(RunsPage {
        csrf: csrf.0,
        runs: &runs,
        filter: &filter,
        statuses: STATUSES.iter().map(|s| s.to_string()).collect(),
        platforms: platforms(),
    })
}

/// Health state changes the devices page lists (newest first).
const HEALTH_EVENTS_SHOWN: i64 = 50;

async fn devices(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
) -> Result<Html<String>, ApiError> {
    devices_page(&st, &caller, csrf.0, None).await
}

/// The devices page; `error`: `(device id, message)` of an admin action it refused, shown
/// above the table (the page then does not reload itself).
pub(super) async fn devices_page(
    st: &AppState,
    caller: &crate::auth::Caller,
    csrf: String,
    error: Option<(String, String)>,
) -> Result<Html<String>, ApiError> {
    let devices = store::workers::devices(&st.pool, st.cfg.device_ttl_s).await?;
    // A busy device links its run only for the run's own team.
    let busy: Vec<uuid::Uuid> = devices.iter().filter_map(|d| d.current_run_id).collect();
    let visible_runs = store::runs::visible_ids(&st.pool, &busy, &caller.scope()).await?;
    let ids: Vec<String> = devices.iter().map(|d| d.id.clone()).collect();
    let health = store::health::of_devices(&st.pool, &ids).await?;
    let health_events = store::health::events(&st.pool, HEALTH_EVENTS_SHOWN).await?;
    html(DevicesPage {
        csrf,
        devices: &devices,
        visible_runs,
        health,
        health_events,
        admin: caller.role == crate::auth::Role::Admin,
        error,
    })
}

async fn cancel(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Redirect, ApiError> {
    let d = visible_detail(&st, &caller, &id).await?;
    store::jobs::cancel_run(&st.pool, d.run_id, &caller.scope()).await?;
    Ok(Redirect::to(&format!("/runs/{}", d.run_id)))
}

/// Clears the replay script stored under the run's job key (the report's "Clear" button),
/// then shows the report again.
async fn clear_replay(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Redirect, ApiError> {
    let d = visible_detail(&st, &caller, &id).await?;
    store::replay::clear_for_job(&st.pool, d.job_id, &caller.scope()).await?;
    tracing::info!(job_id = %d.job_id, "replay script cleared from the dashboard");
    Ok(Redirect::to(&format!("/runs/{}", d.run_id)))
}
