//! Every rejection is the JSON envelope `{code, message, hint, retry}`: the [`ApiQuery`]
//! extractor names the query parameter at fault (422), [`read_body`] turns body-limit and
//! read failures into envelopes, and the [`json_errors`] layer rewrites whatever error the
//! framework still answers in plain text (a rejected extractor, 405, 413 from the body
//! limit) into an envelope with the same status.

use argus_protocol::{ErrorCode, ErrorEnvelope};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;

use super::hygiene;
use crate::error::ApiError;

/// Like axum's `Query`, but a bad value is a 422 `invalid_field` envelope naming the
/// parameter, and control characters in any value are refused.
#[derive(Debug, Clone)]
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let q = parts.uri.query().unwrap_or("");
        for (k, v) in form_urlencoded::parse(q.as_bytes()) {
            hygiene::check_text(&k, &k, &[])?;
            hygiene::check_text(&k, &v, &[])?;
        }
        let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(q.as_bytes()));
        serde_path_to_error::deserialize(de)
            .map(ApiQuery)
            .map_err(|e| {
                let field = e.path().to_string();
                let msg = e.into_inner().to_string();
                ApiError::Client(
                    ErrorEnvelope::new(
                        ErrorCode::InvalidField,
                        format!("query parameter {field}: {msg}"),
                        "fix the query string; see /api/v1/openapi.json for each parameter",
                    )
                    .with_field(field),
                )
            })
    }
}

/// A body, or the envelope of why it could not be read (413 past `limit_bytes`).
pub fn read_body(
    body: Result<Bytes, BytesRejection>,
    limit_bytes: usize,
    hint: &str,
) -> Result<Bytes, ApiError> {
    body.map_err(|r| {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::Client(ErrorEnvelope::new(
                ErrorCode::BodyTooLarge,
                format!("the body is larger than {limit_bytes} bytes"),
                hint,
            ))
        } else {
            ApiError::Client(ErrorEnvelope::new(
                ErrorCode::MalformedBody,
                format!("cannot read the body: {r}"),
                "send a JSON body",
            ))
        }
    })
}

/// Layer: an error response that is neither JSON nor an HTML page becomes an envelope
/// (same status; the framework's text as the message).
pub async fn json_errors(req: Request, next: Next) -> Response {
    let resp = next.run(req).await;
    let status = resp.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return resp;
    }
    let ct = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if ct.starts_with("application/json") || ct.starts_with("text/html") {
        return resp;
    }
    let text = match axum::body::to_bytes(resp.into_body(), 64 * 1024).await {
        Ok(b) if !b.is_empty() => String::from_utf8_lossy(&b).trim().to_string(),
        _ => status.canonical_reason().unwrap_or("error").to_string(),
    };
    let env = match ApiError::from_rejection(status, text) {
        ApiError::Client(env) => env,
        _ => ErrorEnvelope::new(ErrorCode::Internal, "internal error", "retry"),
    };
    (status, Json(env)).into_response()
}
