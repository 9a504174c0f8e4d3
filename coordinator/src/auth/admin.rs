//! The admin role as an extractor: a handler that takes [`Admin`] is reachable only with an
//! admin token (or with auth off); any other caller gets a 403 `forbidden` envelope before
//! the handler runs.

use argus_protocol::{ErrorCode, ErrorEnvelope};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::Caller;
use crate::error::ApiError;

/// An admin caller (see the module docs).
#[derive(Debug, Clone)]
pub struct Admin(pub Caller);

impl<S: Send + Sync> FromRequestParts<S> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        match parts.extensions.get::<Caller>() {
            Some(c) if c.role == "admin" => Ok(Admin(c.clone())),
            _ => Err(ApiError::Client(ErrorEnvelope::new(
                ErrorCode::Forbidden,
                "only an admin token may call this",
                "ask an admin, or use a token made with `argus token create --role admin`",
            ))),
        }
    }
}
