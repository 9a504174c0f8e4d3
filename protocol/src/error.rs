//! Stable error codes and the API error envelope `{code, message, hint, retry}`.
//!
//! One table maps each code to its HTTP status (after meilisearch's `error_code` table), so
//! the coordinator and the CLI agree on what a code means.

use serde::{Deserialize, Serialize};

/// Every error code the API answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ErrorCode {
    /// Body is not valid JSON or has the wrong shape.
    MalformedBody,
    /// A field has an invalid value (the message names it).
    InvalidField,
    /// The body is larger than the server accepts.
    BodyTooLarge,
    /// The body is not `application/json`.
    UnsupportedMediaType,
    /// No such job / run / artifact.
    NotFound,
    /// Missing or wrong API token.
    Unauthorized,
    /// The token is valid but may not do this (a worker token on a user route, a
    /// cross-origin or CSRF-less dashboard form, another identity's device).
    Forbidden,
    /// Too many attempts from this client (sign-in throttling); retry later.
    RateLimited,
    /// The request conflicts with the current state (e.g. a fenced lease).
    Conflict,
    /// A dependency (database, NATS, S3) is unavailable; retry later.
    Unavailable,
    /// A bug or an unexpected failure; logged on the server.
    Internal,
}

impl ErrorCode {
    /// `(http status, retry?)` for each code.
    pub fn table(self) -> (u16, bool) {
        match self {
            ErrorCode::MalformedBody => (400, false),
            ErrorCode::InvalidField => (422, false),
            ErrorCode::BodyTooLarge => (413, false),
            ErrorCode::UnsupportedMediaType => (415, false),
            ErrorCode::NotFound => (404, false),
            ErrorCode::Unauthorized => (401, false),
            ErrorCode::Forbidden => (403, false),
            ErrorCode::RateLimited => (429, true),
            ErrorCode::Conflict => (409, false),
            ErrorCode::Unavailable => (503, true),
            ErrorCode::Internal => (500, true),
        }
    }

    /// HTTP status for the code.
    pub fn http_status(self) -> u16 {
        self.table().0
    }
}

/// The JSON error body of every failed API call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorEnvelope {
    /// Stable machine-readable code.
    pub code: ErrorCode,
    /// What went wrong, naming the field where there is one.
    pub message: String,
    /// How to fix it.
    pub hint: String,
    /// Whether the same request may succeed later.
    pub retry: bool,
    /// The offending field path, when one is to blame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl ErrorEnvelope {
    /// Builds an envelope; `retry` comes from the code table.
    pub fn new(code: ErrorCode, message: impl Into<String>, hint: impl Into<String>) -> Self {
        ErrorEnvelope {
            code,
            message: message.into(),
            hint: hint.into(),
            retry: code.table().1,
            field: None,
        }
    }

    /// Same, naming the field at fault.
    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }
}
