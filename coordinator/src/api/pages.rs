//! Server-rendered pages: `GET /` (dashboard: recent runs, devices) and `GET /runs/{id}`
//! (the per-run report). Both work without JavaScript and refresh themselves while runs
//! are live.

use axum::extract::{Path, State};
use axum::response::Html;
use axum::routing::get;
use axum::Router;

use super::parse_id;
use crate::error::ApiError;
use crate::report::{render_dashboard, render_report};
use crate::store;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(dashboard))
        .route("/runs/{id}", get(report))
}

async fn dashboard(State(st): State<AppState>) -> Result<Html<String>, ApiError> {
    let runs = store::runs::recent(&st.pool, 100).await?;
    let devices = store::workers::devices(&st.pool, st.cfg.device_ttl_s).await?;
    let html = render_dashboard(&runs, &devices).map_err(|e| ApiError::Internal(e.into()))?;
    Ok(Html(html))
}

async fn report(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> Result<Html<String>, ApiError> {
    let id = parse_id("run", &id)?;
    let run = store::runs::detail(&st.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found("run", &id.to_string()))?;
    let html =
        render_report(&run, "/artifacts/", true).map_err(|e| ApiError::Internal(e.into()))?;
    Ok(Html(html))
}
