//! Device health by hand (admins only): `POST /api/v1/devices/{id}/quarantine` takes a
//! device out of the farm (the claim skips it), `POST /api/v1/devices/{id}/release` brings
//! a quarantined one back with a clean window; `GET /api/v1/device-health-events` lists
//! every state change (automatic or by hand), newest first. The rules of the automatic
//! evaluation are `store::health`'s.
//!
//! Answers: 200 with the device's health after the change; 403 for a token that is not an
//! admin's; 404 for a device never registered; 409 when the device is already quarantined
//! (quarantine) or not quarantined (release); 422 for a reason that is empty, longer than
//! [`MAX_REASON_CHARS`] or holds control characters. Nothing changes on any of them.

use argus_protocol::api::{DeviceHealthChanged, HealthChange, HealthEventList, HealthState};
use argus_protocol::{ErrorCode, ErrorEnvelope};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Json, Router};

use super::envelope::ApiQuery;
use crate::auth::{Admin, Caller, User};
use crate::error::ApiError;
use crate::store;
use crate::store::health::HandChange;
use crate::AppState;

/// Longest reason, in characters.
pub const MAX_REASON_CHARS: usize = 500;
/// The reason a release without a body records.
pub(super) const DEFAULT_RELEASE_REASON: &str = "released by an admin";
/// Rows `GET /api/v1/device-health-events` answers when `limit` is not given.
const DEFAULT_LIMIT: i64 = 100;
/// Most rows one call answers.
const MAX_LIMIT: i64 = 1000;
/// What the body may hold, for the hint of a malformed one.
const BODY_HINT: &str = r#"send {"reason": "why"} (1–500 characters)"#;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/devices/{id}/quarantine", post(quarantine))
        .route("/api/v1/devices/{id}/release", post(release))
        .route("/api/v1/device-health-events", get(events))
}

/// Quarantines a device by hand: it receives no runs until released.
#[utoipa::path(
    post,
    path = "/api/v1/devices/{id}/quarantine",
    operation_id = "quarantine_device",
    summary = "Quarantine a device by hand: the claim skips it until released (admin tokens only)",
    params(("id" = String, Path, description = "device id")),
    request_body = HealthChange,
    responses((status = 200, description = "the device's health, now quarantined", body = DeviceHealthChanged))
)]
pub(super) async fn quarantine(
    State(st): State<AppState>,
    Admin(caller): Admin,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<DeviceHealthChanged>, ApiError> {
    let body = super::envelope::read_body(body, st.cfg.max_body_bytes, BODY_HINT)?;
    let change: HealthChange = super::parse_body(&body, BODY_HINT)?;
    let reason = checked_reason(&change.reason)?;
    set(&st, &caller, &id, HealthState::Quarantined, &reason).await
}

/// Releases a quarantined device: it receives runs again, its window restarted.
#[utoipa::path(
    post,
    path = "/api/v1/devices/{id}/release",
    operation_id = "release_device",
    summary = "Release a quarantined device: it receives runs again, with a clean health window (admin tokens only)",
    params(("id" = String, Path, description = "device id")),
    request_body(content = Option<HealthChange>, description = "optional: why"),
    responses((status = 200, description = "the device's health, now healthy", body = DeviceHealthChanged))
)]
pub(super) async fn release(
    State(st): State<AppState>,
    Admin(caller): Admin,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<DeviceHealthChanged>, ApiError> {
    let body = super::envelope::read_body(body, st.cfg.max_body_bytes, BODY_HINT)?;
    let given = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        super::parse_body::<ReleaseBody>(&body, BODY_HINT)?.reason
    };
    let reason = match given {
        None => DEFAULT_RELEASE_REASON.to_string(),
        Some(r) => checked_reason(&r)?,
    };
    set(&st, &caller, &id, HealthState::Healthy, &reason).await
}

/// A release's body: `{"reason": "…"}`, the reason optional (`{}` and `{"reason": null}`
/// release with the default reason).
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ReleaseBody {
    #[serde(default)]
    reason: Option<String>,
}

/// The reason trimmed, or the 422 envelope of why it cannot be stored.
pub(super) fn checked_reason(reason: &str) -> Result<String, ApiError> {
    let r = reason.trim();
    let n = r.chars().count();
    if n == 0 || n > MAX_REASON_CHARS {
        return Err(ApiError::Client(
            ErrorEnvelope::new(
                ErrorCode::InvalidField,
                format!("reason has {n} characters"),
                "give a reason of 1–500 characters",
            )
            .with_field("reason"),
        ));
    }
    super::hygiene::check_text("reason", r, &[])?;
    Ok(r.to_string())
}

/// Applies an admin's change and answers it (see the module docs for the statuses).
pub(super) async fn set(
    st: &AppState,
    caller: &Caller,
    id: &str,
    to: HealthState,
    reason: &str,
) -> Result<Json<DeviceHealthChanged>, ApiError> {
    let actor = match caller.token_id {
        Some(t) => format!("admin:{t}"),
        None => "admin".to_string(),
    };
    match store::health::set_by_hand(&st.pool, id, to, reason, &actor).await? {
        HandChange::Changed(health) => Ok(Json(DeviceHealthChanged {
            device_id: id.to_string(),
            health,
        })),
        HandChange::UnknownDevice => Err(ApiError::Client(ErrorEnvelope::new(
            ErrorCode::NotFound,
            format!("no device {id:?}"),
            "list the device ids at GET /api/v1/devices",
        ))),
        HandChange::AlreadyThere(now) => Err(ApiError::Client(ErrorEnvelope::new(
            ErrorCode::Conflict,
            format!("device {id:?} is {}", now.as_str()),
            match to {
                HealthState::Quarantined => "it already receives no runs",
                _ => "only a quarantined device can be released",
            },
        ))),
    }
}

/// `?limit=` (default 100, at most 1000).
#[derive(Debug, serde::Deserialize)]
pub(super) struct Filter {
    limit: Option<i64>,
}

/// Every device health change, newest first.
#[utoipa::path(
    get,
    path = "/api/v1/device-health-events",
    operation_id = "list_device_health_events",
    summary = "Device health state changes (automatic and by hand), newest first",
    params(("limit" = Option<i64>, Query, description = "most rows, default 100, at most 1000")),
    responses((status = 200, description = "the changes, newest first", body = HealthEventList))
)]
pub(super) async fn events(
    State(st): State<AppState>,
    _caller: User,
    ApiQuery(f): ApiQuery<Filter>,
) -> Result<Json<HealthEventList>, ApiError> {
    let limit = f.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let events = store::health::events(&st.pool, limit).await?;
    Ok(Json(HealthEventList { events }))
}
