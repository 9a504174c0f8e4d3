//! `GET /api/v1/devices`: the registered device slots, for scripts that must wait until a
//! worker is ready (`deploy/quickstart.sh`) and for monitoring. The dashboard's `/devices`
//! page shows the same rows.

use argus_protocol::api::{DeviceHealth, DeviceList};
use axum::extract::{Query, State};
use axum::routing::get;
use axum::{Json, Router};

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
/// holding no run), with its platform, labels, screen size in px and health (`healthy`,
/// `suspect` or `quarantined`, why, since when, and its window of latest runs; see
/// `store::health`).
#[utoipa::path(
    get,
    path = "/api/v1/devices",
    operation_id = "list_devices",
    summary = "Registered device slots (online = heard from within the device TTL; free = online and holding no run) and their health",
    params(("worker_id" = Option<String>, Query, description = "only this worker's slots")),
    responses((status = 200, description = "the slots", body = DeviceList))
)]
pub(super) async fn list(
    State(st): State<AppState>,
    _caller: User,
    Query(f): Query<Filter>,
) -> Result<Json<DeviceList>, ApiError> {
    let rows = store::workers::devices(&st.pool, st.cfg.device_ttl_s).await?;
    let rows: Vec<_> = rows
        .iter()
        .filter(|d| f.worker_id.as_deref().is_none_or(|w| d.worker_id == w))
        .collect();
    let ids: Vec<String> = rows.iter().map(|d| d.id.clone()).collect();
    let mut health = store::health::of_devices(&st.pool, &ids).await?;
    let devices = rows
        .into_iter()
        .map(|d| {
            let h = health
                .remove(&d.id)
                .unwrap_or_else(DeviceHealth::never_evaluated);
            super::answers::device_slot(d, h)
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(Json(DeviceList { devices }))
}
