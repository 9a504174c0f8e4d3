//! The Devices page's admin actions: quarantine a device by hand (`/devices/{id}/quarantine`:
//! a page with the reason's field, apart from the devices page, which reloads itself every
//! 5 s) and release a quarantined one (a button in its row) — the same change, checks and events as `POST
//! /api/v1/devices/{id}/quarantine|release` ([`super::health`]). Admins only (the [`Admin`]
//! extractor: a user's post is a 403 envelope); the form's CSRF token is checked by
//! `auth::authenticate` like every dashboard form. Done: back to `/devices`. Refused (an
//! empty or too long reason, a device already in that state, an unknown device): the form
//! again with the API's message at the reason (a release: the devices page with it above the
//! table, not reloading itself), with the envelope's status; nothing changed.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Form, Router};
use serde::Deserialize;

use super::health::{checked_reason, set, DEFAULT_RELEASE_REASON};
use super::page_render::{form_error, html};
use crate::auth::{Admin, Caller, Csrf};
use crate::error::ApiError;
use crate::views::QuarantinePage;
use crate::AppState;
use argus_protocol::api::HealthState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/devices/{id}/quarantine",
            get(quarantine_form).post(quarantine),
        )
        .route("/devices/{id}/release", post(release))
}

/// The form: `reason` (the hidden `csrf` field is the auth layer's).
#[derive(Debug, Deserialize)]
pub(super) struct HealthForm {
    #[serde(default)]
    reason: String,
}

async fn quarantine_form(
    State(st): State<AppState>,
    Admin(caller): Admin,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
) -> Result<Html<String>, ApiError> {
    let known = crate::store::try_target::target(
        &st.pool,
        &id,
        st.cfg.device_ttl_s,
        &caller.scope(),
        &caller.team_id,
    )
    .await?;
    if known.is_none() {
        return Err(ApiError::not_found("device", &id));
    }
    html(QuarantinePage {
        csrf: csrf.0,
        device_id: id,
        reason: String::new(),
        error: None,
    })
}

async fn quarantine(
    State(st): State<AppState>,
    Admin(caller): Admin,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
    Form(form): Form<HealthForm>,
) -> Result<Response, ApiError> {
    let res = match checked_reason(&form.reason) {
        Ok(reason) => set(&st, &caller, &id, HealthState::Quarantined, &reason).await,
        Err(e) => Err(e),
    };
    match res {
        Ok(_) => Ok(Redirect::to("/devices").into_response()),
        Err(e @ ApiError::Client(_)) => {
            let status = status_of(&e);
            let page = html(QuarantinePage {
                csrf: csrf.0,
                device_id: id,
                reason: form.reason,
                error: Some(form_error(&e).1),
            })?;
            Ok((status, page).into_response())
        }
        Err(e) => Err(e),
    }
}

/// The HTTP status of a refusal's envelope (422 when it has none).
fn status_of(e: &ApiError) -> StatusCode {
    match e {
        ApiError::Client(env) => crate::error::status_of(env),
        _ => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

async fn release(
    State(st): State<AppState>,
    Admin(caller): Admin,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
    Form(form): Form<HealthForm>,
) -> Result<Response, ApiError> {
    let res = if form.reason.trim().is_empty() {
        Ok(DEFAULT_RELEASE_REASON.to_string())
    } else {
        checked_reason(&form.reason)
    };
    let res = match res {
        Ok(reason) => set(&st, &caller, &id, HealthState::Healthy, &reason).await,
        Err(e) => Err(e),
    };
    answer(&st, &caller, csrf, id, res.map(|_| ())).await
}

/// Back to the devices page, or the page again with the refusal above its table.
async fn answer(
    st: &AppState,
    caller: &Caller,
    csrf: Csrf,
    id: String,
    res: Result<(), ApiError>,
) -> Result<Response, ApiError> {
    match res {
        Ok(()) => Ok(Redirect::to("/devices").into_response()),
        Err(e @ ApiError::Client(_)) => {
            let status = status_of(&e);
            let (_, message) = form_error(&e);
            let page =
                super::dashboard::devices_page(st, caller, csrf.0, Some((id, message))).await?;
            Ok((status, page).into_response())
        }
        Err(e) => Err(e),
    }
}
