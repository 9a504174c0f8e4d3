//! `GET /api/v1/runs` (filtered list), `GET /api/v1/runs/{id}` (status, steps, actions,
//! timings) and `POST /api/v1/runs/{id}/cancel`.

use argus_protocol::{ErrorCode, ErrorEnvelope, RunDetail};
use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde_json::json;

use super::envelope::ApiQuery;
use super::parse_id;
use crate::auth::Caller;
use crate::error::ApiError;
use crate::store;
use crate::store::runs::{RunFilter, RunSummary};
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/runs", get(list))
        .route("/api/v1/runs/{id}", get(show))
        .route("/api/v1/runs/{id}/cancel", post(cancel))
}

async fn list(
    State(st): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiQuery(f): ApiQuery<RunFilter>,
) -> Result<Json<Vec<RunSummary>>, ApiError> {
    Ok(Json(
        store::runs::list(&st.pool, caller.team_filter(), &f).await?,
    ))
}

/// Loads a run the caller may see, else 404 (never reveals another team's run).
pub(crate) async fn visible_detail(
    st: &AppState,
    caller: &Caller,
    id: &str,
) -> Result<RunDetail, ApiError> {
    let uuid = parse_id("run", id)?;
    match store::runs::detail(&st.pool, uuid).await? {
        Some((d, team)) if caller.sees(&team) => Ok(d),
        _ => Err(ApiError::not_found("run", id)),
    }
}

async fn show(
    State(st): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<RunDetail>, ApiError> {
    visible_detail(&st, &caller, &id).await.map(Json)
}

async fn cancel(
    State(st): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let d = visible_detail(&st, &caller, &id).await?;
    match store::jobs::cancel_run(&st.pool, d.run_id, caller.team_filter()).await? {
        Some(status) => Ok(Json(json!({"run_id": d.run_id, "status": status,
            "cancel_requested": true}))),
        None => Err(ApiError::Client(ErrorEnvelope::new(
            ErrorCode::Conflict,
            format!("run {} is already {}", d.run_id, d.status.as_str()),
            "only queued, assigned or running runs can be cancelled",
        ))),
    }
}
