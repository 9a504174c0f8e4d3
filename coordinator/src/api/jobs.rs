//! `POST /api/v1/jobs` and `GET /api/v1/jobs/{id}`.
//!
//! A job is parsed strictly (unknown fields refused, paths named), validated (script lines
//! parsed, limits checked) and stored with its first run in one transaction — or refused
//! with a 4xx envelope and nothing stored.

use argus_protocol::{ErrorCode, ErrorEnvelope, JobSpec};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;

use super::parse_id;
use crate::error::ApiError;
use crate::store;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/jobs", post(create))
        .route("/api/v1/jobs/{id}", get(show))
}

/// Turns a body into a spec, naming the field at fault.
pub(crate) fn parse_spec(body: &[u8]) -> Result<JobSpec, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(body);
    let spec: JobSpec = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let msg = inner.to_string();
        if inner.is_syntax() || inner.is_eof() || inner.is_io() {
            return ApiError::Client(ErrorEnvelope::new(
                ErrorCode::MalformedBody,
                format!("the body is not valid JSON: {msg}"),
                "send a JSON object such as {\"platform\":\"web\",\"instruction\":\"tap \\\"OK\\\"\"}",
            ));
        }
        // `missing field `x`` is reported at the parent path; name the field itself.
        let field = match msg.split('`').nth(1) {
            Some(f) if msg.starts_with("missing field") => {
                if path == "." {
                    f.to_string()
                } else {
                    format!("{path}.{f}")
                }
            }
            _ => path,
        };
        ApiError::Client(
            ErrorEnvelope::new(
                ErrorCode::InvalidField,
                format!("{field}: {msg}"),
                "fields: platform (web|electron|desktop|android|harmony|ios), instruction, \
                 start_url, mode (script|llm|vlm), selector.labels, max_steps, timeout_s, name",
            )
            .with_field(field),
        )
    })?;
    Ok(spec)
}

async fn create(
    State(st): State<AppState>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<serde_json::Value>), ApiError> {
    let body = body.map_err(|r| {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::Client(ErrorEnvelope::new(
                ErrorCode::BodyTooLarge,
                format!("the body is larger than {} bytes", st.cfg.max_body_bytes),
                "shorten the instruction or split the job",
            ))
        } else {
            ApiError::Client(ErrorEnvelope::new(
                ErrorCode::MalformedBody,
                format!("cannot read the body: {r}"),
                "send a JSON body",
            ))
        }
    })?;
    let spec = parse_spec(&body)?;
    spec.validate()?;
    let (job_id, run_id) = store::jobs::insert(&st.pool, &spec).await?;
    st.wake.notify_one();
    tracing::info!(%job_id, %run_id, platform = spec.platform.as_str(), "job queued");
    let base = st.cfg.public_url();
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "job_id": job_id,
            "run_id": run_id,
            "status": "queued",
            "run_url": format!("{base}/api/v1/runs/{run_id}"),
            "report_url": format!("{base}/runs/{run_id}"),
        })),
    ))
}

async fn show(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let id = parse_id("job", &id)?;
    let job = store::jobs::get(&st.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found("job", &id.to_string()))?;
    Ok(Json(json!({
        "job_id": job.id,
        "spec": job.spec,
        "created_at": job.created_at,
        "runs": job.runs.iter().map(|(id, status, at)| json!({
            "run_id": id, "status": status, "created_at": at,
        })).collect::<Vec<_>>(),
    })))
}
