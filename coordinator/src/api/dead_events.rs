//! `GET /api/v1/dead-events` (admins only): the run events the applier parked because the
//! database kept rejecting them (see `crate::applier`), newest first, each with its bytes
//! and the reason, for a person to judge.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

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
        description = "`{dead_events: [{id, stream_seq, subject, run_id, attempt_id, seq, \\
                       payload, error, deliveries, parked_at}]}`, newest first; `payload` is \\
                       the published bytes as text (invalid UTF-8 replaced)"
    ))
)]
pub(super) async fn list(
    State(st): State<AppState>,
    _admin: Admin,
    ApiQuery(f): ApiQuery<Filter>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let limit = f.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let rows = store::dead_events::list(&st.pool, limit).await?;
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "stream_seq": r.stream_seq,
                "subject": r.subject,
                "run_id": r.run_id,
                "attempt_id": r.attempt_id,
                "seq": r.seq,
                "payload": String::from_utf8_lossy(&r.payload),
                "error": r.error,
                "deliveries": r.deliveries,
                "parked_at": r.parked_at,
            })
        })
        .collect();
    Ok(Json(json!({ "dead_events": rows })))
}
