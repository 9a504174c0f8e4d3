//! `GET /api/v1/dead-events` (admins only): the run events the applier parked because the
//! database kept rejecting them (see `crate::applier`), newest first, each with its bytes
//! and the reason, for a person to judge.

use argus_protocol::api::DeadEventList;
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

use super::envelope::ApiQuery;
use crate::auth::Admin;
use crate::error::ApiError;
use crate::store;
use crate::AppState;

/// Rows answered when `limit` is not given.
const DEFAULT_LIMIT: i64 = 100;
/// Most rows one call answers.
const MAX_LIMIT: i64 = 1000;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/api/v1/dead-events", get(list))
}

/// `?limit=` (default 100, at most 1000).
#[derive(Debug, serde::Deserialize)]
pub(super) struct Filter {
    limit: Option<i64>,
}

/// The parked events, newest first.
#[utoipa::path(
    get,
    path = "/api/v1/dead-events",
    operation_id = "list_dead_events",
    summary = "Run events parked after the database kept rejecting them (admin tokens only)",
    params(("limit" = Option<i64>, Query, description = "most rows, default 100, at most 1000")),
    responses((
        status = 200,
        description = "the parked events, newest first; `payload` is the published bytes as \
                       text (invalid UTF-8 replaced)",
        body = DeadEventList
    ))
)]
pub(super) async fn list(
    State(st): State<AppState>,
    _admin: Admin,
    ApiQuery(f): ApiQuery<Filter>,
) -> Result<Json<DeadEventList>, ApiError> {
    let limit = f.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let rows = store::dead_events::list(&st.pool, limit).await?;
    Ok(Json(DeadEventList {
        dead_events: rows.iter().map(super::answers::dead_event).collect(),
    }))
}
