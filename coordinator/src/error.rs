//! The API error type: each variant maps to an [`ErrorCode`] and renders the envelope
//! `{code, message, hint, retry, field?}`. Internal errors say "internal error" to the
//! client and are logged once with the full chain.

use argus_protocol::{ErrorCode, ErrorEnvelope, SpecError};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// An error answered by the API.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// A client mistake with a ready envelope.
    #[error("{}", .0.message)]
    Client(ErrorEnvelope),
    /// A dependency is down.
    #[error("{0}")]
    Unavailable(String),
    /// Anything else; logged, not shown.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl ApiError {
    /// 404 for a missing resource.
    pub fn not_found(what: &str, id: &str) -> ApiError {
        ApiError::Client(ErrorEnvelope::new(
            ErrorCode::NotFound,
            format!("no {what} {id:?}"),
            format!("check the {what} id; list recent runs at GET /"),
        ))
    }
}

impl ApiError {
    /// An envelope for a framework rejection (extractor, body limit, method) of `status`,
    /// with its text as the message.
    pub fn from_rejection(status: StatusCode, text: impl Into<String>) -> ApiError {
        let (code, hint) = match status.as_u16() {
            401 => (
                ErrorCode::Unauthorized,
                "send `Authorization: Bearer <token>`",
            ),
            403 => (ErrorCode::Forbidden, "this token may not do this"),
            404 | 405 => (
                ErrorCode::NotFound,
                "check the method and path against /api/v1/openapi.json",
            ),
            409 => (ErrorCode::Conflict, "reload the resource and retry"),
            413 => (
                ErrorCode::BodyTooLarge,
                "send a smaller body; split large suites",
            ),
            415 => (
                ErrorCode::UnsupportedMediaType,
                "send `Content-Type: application/json`",
            ),
            422 => (
                ErrorCode::InvalidField,
                "see /api/v1/openapi.json for the accepted fields",
            ),
            429 => (ErrorCode::RateLimited, "wait and try again"),
            400..=499 => (
                ErrorCode::MalformedBody,
                "see /api/v1/openapi.json for the request format",
            ),
            _ => (
                ErrorCode::Internal,
                "retry; if it persists, see the coordinator log",
            ),
        };
        ApiError::Client(ErrorEnvelope::new(code, text, hint))
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> ApiError {
        match e {
            sqlx::Error::PoolTimedOut | sqlx::Error::Io(_) | sqlx::Error::PoolClosed => {
                ApiError::Unavailable(format!("database unavailable: {e}"))
            }
            other => ApiError::Internal(other.into()),
        }
    }
}

impl From<SpecError> for ApiError {
    fn from(e: SpecError) -> ApiError {
        ApiError::Client(
            ErrorEnvelope::new(
                ErrorCode::InvalidField,
                format!("{}: {}", e.field, e.message),
                e.hint,
            )
            .with_field(e.field),
        )
    }
}

/// The HTTP status an envelope answers with (its code's).
pub fn status_of(env: &ErrorEnvelope) -> StatusCode {
    StatusCode::from_u16(env.code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let env = match self {
            ApiError::Client(env) => env,
            ApiError::Unavailable(msg) => {
                tracing::warn!(error = %msg, "dependency unavailable");
                ErrorEnvelope::new(
                    ErrorCode::Unavailable,
                    "a dependency of the coordinator is unavailable",
                    "retry in a few seconds",
                )
            }
            ApiError::Internal(e) => {
                tracing::error!(error = ?e, "internal error");
                ErrorEnvelope::new(
                    ErrorCode::Internal,
                    "internal error",
                    "retry; if it persists, see the coordinator log",
                )
            }
        };
        let status = status_of(&env);
        (status, Json(env)).into_response()
    }
}
