//! `POST /api/v1/jobs`, `GET /api/v1/jobs/{id}`, `POST …/cancel` and the job's learned
//! replay script: `GET|DELETE /api/v1/jobs/{id}/replay`.
//!
//! A job is parsed strictly (unknown fields refused, paths named), validated (script lines
//! parsed, limits checked) and stored with its first run in one transaction — or refused
//! with a 4xx envelope and nothing stored. A valid job no registered device matches yet is
//! stored and queued too; the 201 answer then carries a `warning` saying so.

use argus_protocol::api::{JobCancelled, JobReplay, JobRun, JobView, ReplayCleared, RunCancelled};
use argus_protocol::{ErrorCode, ErrorEnvelope, JobCreated, JobSpec, RunStatus};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};

use super::answers::{replay_entry, run_status};
use super::parse_id;
use crate::auth::User;
use crate::error::ApiError;
use crate::store;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/jobs", post(create))
        .route("/api/v1/jobs/{id}", get(show))
        .route("/api/v1/jobs/{id}/cancel", post(cancel))
        .route(
            "/api/v1/jobs/{id}/replay",
            get(replay_show).delete(replay_clear),
        )
}

/// Turns a body into a spec, naming the field at fault.
pub(crate) fn parse_spec(body: &[u8]) -> Result<JobSpec, ApiError> {
    super::parse_body(
        body,
        "fields: platform (web|electron|desktop|android|harmony|ios), instruction, start_url, \
         mode (script|llm|vlm), selector.labels, selector.require, max_steps, timeout_s, name, \
         priority, retries, retry_elsewhere, backoff_s, idempotent, queue_timeout_s, model, popups, \
         auto_wait_ms, vars, files, cache (off|read|read_write)",
    )
}

/// The warning for a job no registered device matches *yet*. Such a job is accepted and
/// queued like any other (a matching worker may register later, as a Selenium Grid queues a
/// session request); it ends `timed_out` after its `queue_timeout_s` (default
/// [`argus_protocol::job::DEFAULT_QUEUE_TIMEOUT_S`]). Lists the label sets that do exist.
/// `None` when some registered device (online or not) matches.
///
/// Errors only when the device table cannot be read.
pub(crate) async fn unmatched_warning(
    st: &AppState,
    spec: &JobSpec,
) -> Result<Option<String>, ApiError> {
    let Some(sets) = st.label_sets.unmatched(&st.pool, spec).await? else {
        return Ok(None);
    };
    let wait_s = spec
        .queue_timeout_s
        .unwrap_or(argus_protocol::job::DEFAULT_QUEUE_TIMEOUT_S);
    let existing: Vec<String> = sets
        .iter()
        .take(10)
        .map(|l| {
            let kv: Vec<String> = l.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{{{}}}", kv.join(", "))
        })
        .collect();
    let have = if sets.is_empty() {
        format!("no {} device is registered", spec.platform)
    } else {
        format!("{} devices have: {}", spec.platform, existing.join("; "))
    };
    Ok(Some(format!(
        "no registered device matches {} yet ({have}); the run is queued and waits up to \
         {wait_s} s (queue_timeout_s) for one",
        crate::label_sets::wanted(spec)
    )))
}

/// Validates a parsed spec and stores it with its first queued run — the one path of
/// `POST /api/v1/jobs` and the dashboard's new-job form. Returns `(job_id, run_id,
/// warning)`; a refused spec stores nothing.
pub(crate) async fn submit(
    st: &AppState,
    caller: &crate::auth::Caller,
    spec: &JobSpec,
) -> Result<(uuid::Uuid, uuid::Uuid, Option<String>), ApiError> {
    submit_to(st, caller, spec, None).await
}

/// [`submit`], with the first run addressed to `only_device` when given (a dashboard try:
/// only that device's claim takes it, `runs.only_device`). Same validation, same refusals.
pub(crate) async fn submit_to(
    st: &AppState,
    caller: &crate::auth::Caller,
    spec: &JobSpec,
    only_device: Option<&str>,
) -> Result<(uuid::Uuid, uuid::Uuid, Option<String>), ApiError> {
    spec.validate()?;
    super::hygiene::check_spec("", spec)?;
    let warning = unmatched_warning(st, spec).await?;
    let meta = store::jobs::JobMeta {
        team_id: caller.team_id.clone(),
        only_device: only_device.map(str::to_string),
        ..Default::default()
    };
    let (job_id, run_id) = store::jobs::insert(&st.pool, spec, &meta).await?;
    st.wake.notify_one();
    tracing::info!(%job_id, %run_id, platform = spec.platform.as_str(), unmatched = warning.is_some(), "job queued");
    Ok((job_id, run_id, warning))
}

/// Submits a job: parsed strictly, validated, stored with its first run.
#[utoipa::path(
    post,
    path = "/api/v1/jobs",
    operation_id = "create_job",
    summary = "Submit a job; stores it with its first run",
    request_body = JobSpec,
    responses((
        status = 201,
        description = "stored and queued; `warning` says when no registered device matches yet",
        body = JobCreated
    ))
)]
pub(super) async fn create(
    State(st): State<AppState>,
    User(caller): User,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<JobCreated>), ApiError> {
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
    let (job_id, run_id, warning) = submit(&st, &caller, &spec).await?;
    let base = st.cfg.public_url();
    Ok((
        StatusCode::CREATED,
        Json(JobCreated {
            job_id,
            run_id,
            status: RunStatus::Queued,
            run_url: format!("{base}/api/v1/runs/{run_id}"),
            report_url: format!("{base}/runs/{run_id}"),
            warning,
        }),
    ))
}

/// A job, its spec and its runs.
#[utoipa::path(
    get,
    path = "/api/v1/jobs/{id}",
    operation_id = "get_job",
    summary = "A job and its runs",
    params(("id" = uuid::Uuid, Path, description = "job id")),
    responses((status = 200, description = "the job as stored and its runs", body = JobView))
)]
pub(super) async fn show(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Json<JobView>, ApiError> {
    let id = parse_id("job", &id)?;
    let job = store::jobs::get(&st.pool, id, &caller.scope())
        .await?
        .ok_or_else(|| ApiError::not_found("job", &id.to_string()))?;
    let runs = job
        .runs
        .iter()
        .map(|(run_id, status, created_at)| {
            Ok(JobRun {
                run_id: *run_id,
                status: run_status(status)?,
                created_at: *created_at,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(Json(JobView {
        job_id: job.id,
        spec: job.spec,
        created_at: job.created_at,
        runs,
    }))
}

/// Cancels every unfinished run of a job.
#[utoipa::path(
    post,
    path = "/api/v1/jobs/{id}/cancel",
    operation_id = "cancel_job",
    summary = "Cancel every unfinished run of a job",
    params(("id" = uuid::Uuid, Path, description = "job id")),
    responses((
        status = 200,
        description = "the runs that had not ended, each with its status after the cancel",
        body = JobCancelled
    ))
)]
pub(super) async fn cancel(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Json<JobCancelled>, ApiError> {
    let id = parse_id("job", &id)?;
    let job = store::jobs::get(&st.pool, id, &caller.scope())
        .await?
        .ok_or_else(|| ApiError::not_found("job", &id.to_string()))?;
    let mut out = Vec::new();
    for (run_id, _, _) in &job.runs {
        if let Some(status) = store::jobs::cancel_run(&st.pool, *run_id, &caller.scope()).await? {
            out.push(RunCancelled {
                run_id: *run_id,
                status: run_status(&status)?,
            });
        }
    }
    Ok(Json(JobCancelled {
        job_id: id,
        cancelled: out,
    }))
}

/// The replay script the job's team stored under the job's key (learned replay).
#[utoipa::path(
    get,
    path = "/api/v1/jobs/{id}/replay",
    operation_id = "get_job_replay",
    summary = "The stored replay script of a job's key",
    params(("id" = uuid::Uuid, Path, description = "job id")),
    responses((
        status = 200,
        description = "the job's key (null for a script job), its cache mode and the script stored under the key (null when none)",
        body = JobReplay
    ))
)]
pub(super) async fn replay_show(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Json<JobReplay>, ApiError> {
    let id = parse_id("job", &id)?;
    let (key, entry) = store::replay::for_job(&st.pool, id, &caller.scope())
        .await?
        .ok_or_else(|| ApiError::not_found("job", &id.to_string()))?;
    let job = store::jobs::get(&st.pool, id, &caller.scope())
        .await?
        .ok_or_else(|| ApiError::not_found("job", &id.to_string()))?;
    Ok(Json(JobReplay {
        job_id: id,
        key,
        cache: job.spec.cache_mode(),
        entry: entry.map(replay_entry),
    }))
}

/// Clears the replay script stored under the job's key: its next run asks the model again.
#[utoipa::path(
    delete,
    path = "/api/v1/jobs/{id}/replay",
    operation_id = "clear_job_replay",
    summary = "Clear the stored replay script of a job's key",
    params(("id" = uuid::Uuid, Path, description = "job id")),
    responses((status = 200, description = "whether a script was stored", body = ReplayCleared))
)]
pub(super) async fn replay_clear(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Json<ReplayCleared>, ApiError> {
    let id = parse_id("job", &id)?;
    let cleared = store::replay::clear_for_job(&st.pool, id, &caller.scope())
        .await?
        .ok_or_else(|| ApiError::not_found("job", &id.to_string()))?;
    tracing::info!(job_id = %id, cleared, "replay script cleared");
    Ok(Json(ReplayCleared {
        job_id: id,
        cleared,
    }))
}
