//! `GET /api/v1/devices`: the registered device slots, for scripts that must wait until a
//! worker is ready (`deploy/quickstart.sh`) and for monitoring. The dashboard's `/devices`
//! page shows the same rows.

use axum::extract::{Query, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use crate::auth::User;
use crate::error::ApiError;
use crate::store;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/api/v1/devices", get(list))
}

/// `?worker_id=` narrows the list to one worker's slots.
#[derive(Debug, serde::Deserialize)]
pub(super) struct Filter {
    worker_id: Option<String>,
}

/// Every device slot: `online` (heard from within the device TTL) and `free` (online and
/// holding no run), with its platform, labels and screen size in px.
#[utoipa::path(
    get,
    path = "/api/v1/devices",
    operation_id = "list_devices",
    summary = "Registered device slots (online = heard from within the device TTL; free = online and holding no run)",
    params(("worker_id" = Option<String>, Query, description = "only this worker's slots")),
    responses((
        status = 200,
        description = "`{devices: [{device_id, worker_id, platform, labels, screen_px: [w, h], \
                       online, free, current_run_id, last_seen}]}`"
    ))
)]
pub(super) async fn list(
    State(st): State<AppState>,
    _caller: User,
    Query(f): Query<Filter>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let rows = store::workers::devices(&st.pool, st.cfg.device_ttl_s).await?;
    let devices: Vec<serde_json::Value> = rows
        .iter()
        .filter(|d| f.worker_id.as_deref().is_none_or(|w| d.worker_id == w))
        .map(|d| {
            json!({
                "device_id": d.id,
                "worker_id": d.worker_id,
                "platform": d.platform,
                "labels": d.labels.0,
                "screen_px": [d.screen_w_px, d.screen_h_px],
                "online": d.online,
                "free": d.online && d.current_run_id.is_none(),
                "current_run_id": d.current_run_id,
                "last_seen": d.last_seen,
            })
        })
        .collect();
    Ok(Json(json!({ "devices": devices })))
}
