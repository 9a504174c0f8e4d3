//! Dashboard pages: runs with filters (`/`), devices (one device: [`super::device_page`]), suites (verdict matrix, history with
//! pass-rate), a cancel button (the SSE feed that keeps a live report current is
//! [`super::live`]); the new-job form is [`super::new_job_page`], the schedules page
//! [`super::schedule_pages`]. Forms post plain `application/x-www-form-urlencoded`; the
//! only script is the new-job form's "add row" buttons.
//! Every form carries the session's CSRF token (hidden `csrf` field) that `auth::authenticate`
//! checks, and only same-origin posts are accepted.

use super::page_render::html;
use argus_protocol::SuiteVerdict;
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
        .route("/suites", get(suites_page))
        .route("/suites/{id}", get(suite_page))
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
    let devices = store::workers::devices(&st.pool, st.cfg.device_ttl_s).await?;
    // A busy device links its run only for the run's own team.
    let busy: Vec<uuid::Uuid> = devices.iter().filter_map(|d| d.current_run_id).collect();
    let visible_runs = store::runs::visible_ids(&st.pool, &busy, &caller.scope()).await?;
    let ids: Vec<String> = devices.iter().map(|d| d.id.clone()).collect();
    let health = store::health::of_devices(&st.pool, &ids).await?;
    let health_events = store::health::events(&st.pool, HEALTH_EVENTS_SHOWN).await?;
    html(DevicesPage {
        csrf: csrf.0,
        devices: &devices,
        visible_runs,
        health,
        health_events,
    })
}

async fn suites_page(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
) -> Result<Html<String>, ApiError> {
    let suites = store::suites::recent(&st.pool, &caller.scope(), 100).await?;
    html(SuitesPage {
        csrf: csrf.0,
        suites,
    })
}

async fn suite_page(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
) -> Result<Html<String>, ApiError> {
    let suite = super::suites::load(&st, &caller, &id).await?;
    let (cells, rows) = matrix(&suite);
    let mut history = Vec::new();
    let (mut passed, mut total) = (0, 0);
    let scope = caller.scope();
    for (hid, created) in store::suites::history(&st.pool, &suite.team_id, &suite.name, 10).await? {
        if let Some(v) = store::suites::view(&st.pool, hid, &scope).await? {
            let rate = if v.jobs.is_empty() {
                0.0
            } else {
                v.passed as f64 / v.jobs.len() as f64
            };
            if v.verdict != SuiteVerdict::Running {
                total += 1;
                passed += usize::from(v.verdict == SuiteVerdict::Passed);
            }
            history.push((
                hid,
                created.format("%Y-%m-%d %H:%M").to_string(),
                v.verdict.to_string(),
                format!("{:.0}%", rate * 100.0),
            ));
        }
    }
    let pass_rate = if total == 0 {
        "—".to_string()
    } else {
        format!("{passed}/{total} suites passed")
    };
    html(SuitePage {
        csrf: csrf.0,
        suite: &suite,
        cells,
        rows,
        history,
        pass_rate,
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
