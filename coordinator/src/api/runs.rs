//! `GET /api/v1/runs/{id}`: the run detail (status, steps, actions, timings).

use argus_protocol::RunDetail;
use axum::extract::{Path, State};
use axum::routing::get;
use axum::{Json, Router};

use super::parse_id;
use crate::error::ApiError;
use crate::store;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/api/v1/runs/{id}", get(show))
}

async fn show(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<RunDetail>, ApiError> {
    let id = parse_id("run", &id)?;
    store::runs::detail(&st.pool, id)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("run", &id.to_string()))
}
