//! Each handler declares who may call it by the extractor it takes:
//!
//! - [`User`]: a user or admin token (a session cookie on the dashboard); a worker token gets
//!   a 403 `forbidden` envelope;
//! - [`Admin`]: an admin token; anyone else gets a 403;
//! - [`WorkerAuth`]: a worker or admin token; a user token gets a 403;
//! - none: a public route (`/healthz`, `/login`, the OpenAPI document), routed outside the
//!   authentication layer (`crate::api::router`).
//!
//! The layer ([`super::authenticate`]) has already answered a missing or unknown token (401,
//! or a redirect to `/login` for a browser) and put the [`Caller`] in the request's
//! extensions; with auth `off` that caller is an admin. An extractor that finds no caller
//! (a handler routed outside the layer by mistake) answers 401: it fails closed.
//! Extractors run in argument order, so a handler takes its auth extractor before its path,
//! query and body: a refused caller learns nothing about them.

use argus_protocol::{ErrorCode, ErrorEnvelope};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::{Caller, Role, WORKER_ROUTE};
use crate::error::ApiError;

/// A user or admin caller (see the module docs).
#[derive(Debug, Clone)]
pub struct User(pub Caller);

/// An admin caller (see the module docs).
#[derive(Debug, Clone)]
pub struct Admin(pub Caller);

/// A worker or admin caller: who may register workers and heartbeat (see the module docs).
#[derive(Debug, Clone)]
pub struct WorkerAuth(pub Caller);

fn forbidden(message: &str, hint: &str) -> ApiError {
    ApiError::Client(ErrorEnvelope::new(ErrorCode::Forbidden, message, hint))
}

/// The caller the authentication layer resolved; 401 when there is none.
fn caller(parts: &Parts) -> Result<Caller, ApiError> {
    parts.extensions.get::<Caller>().cloned().ok_or_else(|| {
        ApiError::Client(ErrorEnvelope::new(
            ErrorCode::Unauthorized,
            "missing, unknown, revoked or expired API token",
            "send `Authorization: Bearer <token>`; mint one with `argus token create`",
        ))
    })
}

impl<S: Send + Sync> FromRequestParts<S> for User {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let c = caller(parts)?;
        if c.role == Role::Worker {
            tracing::warn!(path = %parts.uri.path(), team = %c.team_id, "worker token used outside worker routes");
            return Err(forbidden(
                &format!("a worker token may only call {WORKER_ROUTE}"),
                "use a user token (`argus token create --role user`) for jobs, runs and reports",
            ));
        }
        Ok(User(c))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let c = caller(parts)?;
        if c.role != Role::Admin {
            return Err(forbidden(
                "only an admin token may call this",
                "ask an admin, or use a token made with `argus token create --role admin`",
            ));
        }
        Ok(Admin(c))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for WorkerAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let c = caller(parts)?;
        if c.role == Role::User {
            return Err(forbidden(
                "this token may not register workers",
                "give the worker a token made with `argus token create --role worker`",
            ));
        }
        Ok(WorkerAuth(c))
    }
}
