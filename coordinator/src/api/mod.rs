//! HTTP routes. Each resource module exposes its own `router()`; [`router`] merges them so
//! tests can call the whole API in-process. Unknown routes answer a 404 envelope.

mod answers;
mod artifacts;
mod builds;
mod dashboard;
mod dead_events;
mod device_actions;
mod device_page;
mod devices;
pub mod envelope;
mod health;
pub mod hygiene;
mod insights;
mod job_form;
mod jobs;
mod live;
mod live_screen;
mod matrix_lines;
mod new_job_page;
pub mod openapi;
mod page_headers;
mod page_render;
mod pages;
mod runs;
mod schedule_pages;
mod schedules;
mod suite_form;
mod suite_pages;
mod suites;
mod try_page;
mod try_result;
mod workers;

use argus_protocol::api::Health;
use argus_protocol::{ErrorCode, ErrorEnvelope};
use axum::extract::{DefaultBodyLimit, State};
use axum::routing::get;
use axum::{Json, Router};

use crate::error::ApiError;
use crate::AppState;

/// The whole HTTP surface. Every route but the public ones is wrapped in the
/// authentication layer ([`crate::auth::authenticate`]: 401 without a live token), and each
/// of its handlers declares the roles it admits by its extractor ([`crate::auth::User`],
/// [`crate::auth::Admin`], [`crate::auth::WorkerAuth`]); the public routes ([`public`])
/// take none. Unknown routes are behind the layer too (401 before 404).
pub fn router(state: AppState) -> Router {
    let limit = state.cfg.max_body_bytes;
    Router::new()
        .merge(jobs::router())
        .merge(runs::router())
        .merge(workers::router())
        .merge(devices::router())
        .merge(health::router())
        .merge(dead_events::router())
        .merge(schedules::router())
        .merge(suites::router())
        .merge(artifacts::router())
        .merge(pages::router())
        .merge(dashboard::router())
        .merge(device_actions::router())
        .merge(live::router())
        .merge(live_screen::router())
        .merge(insights::router())
        .merge(builds::router())
        .merge(try_page::router())
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::auth::authenticate,
        ))
        .merge(public())
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::auth::same_origin,
        ))
        .layer(DefaultBodyLimit::max(limit))
        .layer(axum::middleware::from_fn(envelope::json_errors))
        .layer(axum::middleware::from_fn(page_headers::add))
        .with_state(state)
}

/// The routes anyone may call: health, the OpenAPI document and the sign-in form. Their
/// operations in the document say `security(())`, and the e2e test `openapi.rs` checks that
/// exactly those answer without a token.
fn public() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/api/v1/openapi.json", get(openapi::document))
        .merge(pages::public())
}

/// Liveness: answers `{"status": "ok"}` once the database answers a query.
#[utoipa::path(
    get,
    path = "/healthz",
    operation_id = "healthz",
    summary = "Liveness: the database answers",
    security(()),
    responses((status = 200, description = "the database answers", body = Health))
)]
async fn healthz(State(st): State<AppState>) -> Result<Json<Health>, ApiError> {
    sqlx::query_scalar!("select 1 as one")
        .fetch_one(&st.pool)
        .await?;
    Ok(Json(Health {
        status: "ok".into(),
    }))
}

/// The fallback: behind the authentication layer, and a worker token is refused (403) as on
/// every route but its own.
async fn not_found(_caller: crate::auth::User) -> ApiError {
    ApiError::Client(ErrorEnvelope::new(
        ErrorCode::NotFound,
        "no such route",
        "see README.md for the API: POST /api/v1/jobs, GET /api/v1/runs/{id}, GET /runs/{id}",
    ))
}

/// Parses a JSON body strictly: invalid JSON is a 400 `malformed_body`; a value of the
/// wrong shape is a 422 `invalid_field` naming its path (`selector.labels`, `jobs[2].platform`;
/// for a missing field, the field itself). `hint` lists the accepted fields.
pub(crate) fn parse_body<T: serde::de::DeserializeOwned>(
    body: &[u8],
    hint: &str,
) -> Result<T, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let msg = inner.to_string();
        if inner.is_syntax() || inner.is_eof() || inner.is_io() {
            return ApiError::Client(ErrorEnvelope::new(
                ErrorCode::MalformedBody,
                format!("the body is not valid JSON: {msg}"),
                "send a JSON object; see /api/v1/openapi.json",
            ));
        }
        let field = match msg.split('`').nth(1) {
            Some(f) if msg.starts_with("missing field") && path == "." => f.to_string(),
            Some(f) if msg.starts_with("missing field") => format!("{path}.{f}"),
            _ => path,
        };
        ApiError::Client(
            ErrorEnvelope::new(ErrorCode::InvalidField, format!("{field}: {msg}"), hint)
                .with_field(field),
        )
    })
}

/// Parses a UUID path segment; a malformed one is simply "not found".
pub(crate) fn parse_id(what: &str, s: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::parse_str(s).map_err(|_| ApiError::not_found(what, s))
}
