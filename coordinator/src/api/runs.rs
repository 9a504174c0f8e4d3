//! `GET /api/v1/runs` (filtered list), `GET /api/v1/runs/{id}` (status, expectations,
//! verdict, steps, actions, timings), `GET /api/v1/runs/{id}/steps` (a succeeded `llm` /
//! `vlm` run as a step file, English or `?lang=zh` Chinese) and
//! `POST /api/v1/runs/{id}/cancel`.

use argus_protocol::api::{RunCancelRequested, RunSummary};
use argus_protocol::replay::{file_to_zh, StepsLang};
use argus_protocol::{ErrorCode, ErrorEnvelope, RunDetail};
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};

use super::answers::{run_status, run_summary};
use super::envelope::ApiQuery;
use super::parse_id;
use crate::auth::{Caller, User};
use crate::error::ApiError;
use crate::store;
use crate::store::runs::RunFilter;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/runs", get(list))
        .route("/api/v1/runs/{id}", get(show))
        .route("/api/v1/runs/{id}/steps", get(steps))
        .route("/api/v1/runs/{id}/cancel", post(cancel))
}

/// Runs the caller may see, newest first, filtered by the query.
#[utoipa::path(
    get,
    path = "/api/v1/runs",
    operation_id = "list_runs",
    summary = "Runs, newest first",
    params(
        ("status" = Option<String>, Query, description = "run status, e.g. `failed`"),
        ("platform" = Option<String>, Query, description = "e.g. `android`"),
        ("label" = Option<String>, Query,
            description = "`key=value`: a label the run's device must carry"),
        ("suite" = Option<uuid::Uuid>, Query, description = "runs of this suite"),
        ("schedule" = Option<uuid::Uuid>, Query, description = "runs of this schedule"),
        ("since" = Option<String>, Query,
            description = "RFC 3339 instant: runs queued at or after it"),
        ("limit" = Option<i64>, Query, description = "at most this many rows (default 100, max 1000)"),
    ),
    responses((status = 200, description = "the runs, newest first", body = Vec<RunSummary>))
)]
pub(super) async fn list(
    State(st): State<AppState>,
    User(caller): User,
    ApiQuery(f): ApiQuery<RunFilter>,
) -> Result<Json<Vec<RunSummary>>, ApiError> {
    let rows = store::runs::list(&st.pool, &caller.scope(), &f).await?;
    rows.into_iter()
        .map(run_summary)
        .collect::<Result<Vec<_>, ApiError>>()
        .map(Json)
}

/// Loads a run the caller may see, else 404 (never reveals another team's run).
pub(crate) async fn visible_detail(
    st: &AppState,
    caller: &Caller,
    id: &str,
) -> Result<RunDetail, ApiError> {
    let uuid = parse_id("run", id)?;
    store::runs::detail(&st.pool, uuid, &caller.scope())
        .await?
        .map(|(d, _)| d)
        .ok_or_else(|| ApiError::not_found("run", id))
}

/// A run's detail.
#[utoipa::path(
    get,
    path = "/api/v1/runs/{id}",
    operation_id = "get_run",
    summary = "Run detail: status, expectations, verdict, steps, actions, timings",
    params(("id" = uuid::Uuid, Path, description = "run id")),
    responses((
        status = 200,
        description = "the run detail: status, expectations (reported before the first \
                       action), verdict (what decided the status, once finished; absent \
                       before), steps with their actions, timings",
        body = RunDetail
    ))
)]
pub(super) async fn show(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Json<RunDetail>, ApiError> {
    visible_detail(&st, &caller, &id).await.map(Json)
}

/// Cancels a run: a queued one now, a running one at its next action boundary.
#[utoipa::path(
    post,
    path = "/api/v1/runs/{id}/cancel",
    operation_id = "cancel_run",
    summary = "Cancel a run (queued: now; running: at the next action boundary)",
    params(("id" = uuid::Uuid, Path, description = "run id")),
    responses((
        status = 200,
        description = "the cancel is recorded; 409 when the run already ended",
        body = RunCancelRequested
    ))
)]
pub(super) async fn cancel(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Json<RunCancelRequested>, ApiError> {
    let d = visible_detail(&st, &caller, &id).await?;
    match store::jobs::cancel_run(&st.pool, d.run_id, &caller.scope()).await? {
        Some(status) => Ok(Json(RunCancelRequested {
            run_id: d.run_id,
            status: run_status(&status)?,
            cancel_requested: true,
        })),
        None => Err(ApiError::Client(ErrorEnvelope::new(
            ErrorCode::Conflict,
            format!("run {} is already {}", d.run_id, d.status.as_str()),
            "only queued, assigned or running runs can be cancelled",
        ))),
    }
}

/// The query of `GET /api/v1/runs/{id}/steps`.
#[derive(Debug, serde::Deserialize)]
pub(super) struct StepsQuery {
    /// The language of the step lines; default English.
    #[serde(default)]
    lang: StepsLang,
}

/// A succeeded `llm` / `vlm` run as a step file: a `# run <id> of job <name>` header, then
/// the step-language lines of its actions with its expectations as the closing assertions;
/// `?lang=zh` writes each step line in Chinese (same actions). Rerun it with
/// `argus submit --steps FILE` (script mode, no model).
#[utoipa::path(
    get,
    path = "/api/v1/runs/{id}/steps",
    operation_id = "get_run_steps",
    summary = "A succeeded llm/vlm run as a step file (text)",
    params(
        ("id" = uuid::Uuid, Path, description = "run id"),
        ("lang" = Option<StepsLang>, Query,
            description = "language of the step lines: `en` (default) or `zh` (Chinese, the \
                           same actions; comments and `${secret.NAME}` placeholders kept as \
                           they are); any other value is a 422 `invalid_field` naming `lang`"),
    ),
    responses(
        (status = 200, description = "the step file", body = String, content_type = "text/plain"),
        (status = 404, description = "no such run, or the run has no step file (only a \
                                      succeeded llm or vlm run has one)",
            body = ErrorEnvelope),
        (status = 422, description = "`invalid_field`: `lang` is neither `en` nor `zh`",
            body = ErrorEnvelope)
    )
)]
pub(super) async fn steps(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
    ApiQuery(q): ApiQuery<StepsQuery>,
) -> Result<impl IntoResponse, ApiError> {
    let uuid = parse_id("run", &id)?;
    match store::verdicts::steps_file(&st.pool, uuid, &caller.scope()).await? {
        None => Err(ApiError::not_found("run", &id)),
        Some(None) => Err(ApiError::Client(ErrorEnvelope::new(
            ErrorCode::NotFound,
            format!("run {uuid} has no step file"),
            "only a succeeded llm or vlm run has one; a script run's steps are its job's \
             instruction (GET /api/v1/runs/{id})",
        ))),
        Some(Some(file)) => Ok((
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            match q.lang {
                StepsLang::En => file.text(),
                StepsLang::Zh => file_to_zh(&file.text()),
            },
        )),
    }
}
