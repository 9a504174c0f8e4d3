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
        let status = StatusCode::from_u16(env.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(env)).into_response()
    }
}
