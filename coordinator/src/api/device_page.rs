//! `GET /devices/{id}`: one device — what it is, its live screen while it runs a run of the
//! caller's team (the same stream as the run's page, `GET /runs/{id}/screen`), and the
//! caller's team's recent runs on it. An unknown device is 404.

use axum::extract::{Path, State};
use axum::response::Html;
use axum::Extension;

use super::page_render::html;
use crate::auth::{Csrf, User};
use crate::error::ApiError;
use crate::store;
use crate::views::DevicePage;
use crate::AppState;

/// Recent runs listed.
const RUNS_SHOWN: i64 = 30;

pub(super) async fn device(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
) -> Result<Html<String>, ApiError> {
    let devices = store::workers::devices(&st.pool, st.cfg.device_ttl_s).await?;
    let Some(device) = devices.iter().find(|d| d.id == id) else {
        return Err(ApiError::not_found("device", &id));
    };
    let scope = caller.scope();
    let busy: Vec<uuid::Uuid> = device.current_run_id.into_iter().collect();
    let visible = store::runs::visible_ids(&st.pool, &busy, &scope).await?;
    let live_run = device.current_run_id.filter(|r| visible.contains(r));
    let runs = store::device_runs::on_device(&st.pool, &scope, &id, RUNS_SHOWN).await?;
    html(DevicePage {
        csrf: csrf.0,
        device,
        live_run,
        runs,
    })
}
