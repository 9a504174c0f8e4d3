//! `/api/v1/suites`: create a suite (jobs × data rows × device matrix, all validated and
//! stored in one transaction, its definition kept), run one again from that definition,
//! show its verdict and per-device breakdown, export JUnit XML (one test case per job × row,
//! grouped by device cell). [`submit`] is the one path every suite is made by (the API, the
//! dashboard's New suite form and its "Run again").

use argus_protocol::{api, ErrorCode, ErrorEnvelope, SuiteCreated, SuiteJobCreated};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};

use super::parse_id;
use crate::auth::{Caller, User};
use crate::error::ApiError;
use crate::scheduler::expand;
use crate::store::suites::{self, SuiteView};
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/suites", post(create))
        .route("/api/v1/suites/{id}", get(show))
        .route("/api/v1/suites/{id}/run", post(run_again))
        .route("/api/v1/suites/{id}/junit.xml", get(junit))
}

pub use argus_protocol::SuiteSpec;

fn invalid(field: String, message: String, hint: &str) -> ApiError {
    ApiError::Client(ErrorEnvelope::new(ErrorCode::InvalidField, message, hint).with_field(field))
}

/// Runs a suite: every job once per matrix cell, all stored in one transaction.
#[utoipa::path(
    post,
    path = "/api/v1/suites",
    operation_id = "create_suite",
    summary = "Run a suite: jobs x device matrix",
    request_body = SuiteSpec,
    responses((
        status = 201,
        description = "stored and queued; `warnings` name the jobs no registered device matches yet",
        body = SuiteCreated
    ))
)]
pub(super) async fn create(
    State(st): State<AppState>,
    User(caller): User,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<SuiteCreated>), ApiError> {
    let body = super::envelope::read_body(
        body,
        st.cfg.max_body_bytes,
        "split the suite into several smaller ones",
    )?;
    let s = parse_spec(&body)?;
    Ok((StatusCode::CREATED, Json(submit(&st, &caller, &s).await?)))
}

/// Parses a `POST /api/v1/suites` body as the API does (the dashboard's pasted JSON too).
pub(super) fn parse_spec(body: &[u8]) -> Result<SuiteSpec, ApiError> {
    super::parse_body(
        body,
        "fields: name, jobs (job specs), matrix (selectors), vars_matrix (rows of vars), \
         retry_elsewhere",
    )
}

/// Runs suite `id` again: a new suite of the same name (so it joins the name's history)
/// from the definition the first was made from, validated anew.
#[utoipa::path(
    post,
    path = "/api/v1/suites/{id}/run",
    operation_id = "run_suite_again",
    summary = "Run a suite again from its stored definition",
    params(("id" = uuid::Uuid, Path, description = "suite id")),
    responses((
        status = 201,
        description = "the new suite, stored and queued",
        body = SuiteCreated
    ))
)]
pub(super) async fn run_again(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<SuiteCreated>), ApiError> {
    let spec = definition(&st, &caller, &id).await?;
    Ok((
        StatusCode::CREATED,
        Json(submit(&st, &caller, &spec).await?),
    ))
}

/// The stored definition of suite `id`; a 409 for a suite made before definitions were
/// kept, a 404 for one the caller may not see.
pub(super) async fn definition(
    st: &AppState,
    caller: &Caller,
    id: &str,
) -> Result<SuiteSpec, ApiError> {
    let s = load(st, caller, id).await?;
    s.spec.ok_or_else(|| {
        ApiError::Client(ErrorEnvelope::new(
            ErrorCode::Conflict,
            format!("suite {id} was made before suite definitions were kept"),
            "submit its definition again with POST /api/v1/suites",
        ))
    })
}

/// Validates a suite exactly as `POST /api/v1/suites` does and stores it with its jobs and
/// their first runs in one transaction; a refusal (422 naming the field: `name`,
/// `retry_elsewhere`, `vars_matrix`, `jobs`, `jobs[i].<job field>`) stores nothing. The
/// API, the dashboard's New suite form and "run again" all come through here.
pub(super) async fn submit(
    st: &AppState,
    caller: &Caller,
    s: &SuiteSpec,
) -> Result<SuiteCreated, ApiError> {
    check_suite_fields(s)?;
    let mut all = Vec::new();
    let mut warnings = Vec::new();
    for (i, job, row) in s.rows_expanded() {
        let row = row.map(|r| format!("[{r}] ")).unwrap_or_default();
        for (spec, cell) in expand(&job, &s.matrix) {
            spec.validate().map_err(|e| {
                invalid(
                    format!("jobs[{i}].{}", e.field),
                    format!("jobs[{i}] {row}({cell}): {}: {}", e.field, e.message),
                    &e.hint,
                )
            })?;
            super::hygiene::check_spec(&format!("jobs[{i}]."), &spec)?;
            if let Some(w) = super::jobs::unmatched_warning(st, &spec).await? {
                warnings.push(format!("jobs[{i}] ({cell}): {w}"));
            }
            all.push((spec, cell));
        }
    }
    let (id, jobs) = suites::insert(&st.pool, &caller.team_id, s, &all).await?;
    st.wake.notify_one();
    let base = st.cfg.public_url();
    Ok(SuiteCreated {
        suite_id: id,
        suite_url: format!("{base}/api/v1/suites/{id}"),
        junit_url: format!("{base}/api/v1/suites/{id}/junit.xml"),
        jobs: jobs
            .into_iter()
            .map(|(job_id, run_id, cell)| SuiteJobCreated {
                job_id,
                run_id,
                cell,
            })
            .collect(),
        warnings,
    })
}

/// The suite's own fields: a name, at most 100 data rows, `retry_elsewhere` in range, and
/// 1 to 500 job × data row × cell combinations.
fn check_suite_fields(s: &SuiteSpec) -> Result<(), ApiError> {
    if s.name.trim().is_empty() {
        return Err(invalid(
            "name".into(),
            "name is empty".into(),
            "name the suite",
        ));
    }
    super::hygiene::check_name("name", &s.name)?;
    if s.vars_matrix.len() > 100 {
        return Err(invalid(
            "vars_matrix".into(),
            format!(
                "{} data rows, more than the 100 allowed",
                s.vars_matrix.len()
            ),
            "split the rows over several suites",
        ));
    }
    let max = argus_protocol::job::MAX_RETRY_ELSEWHERE;
    if let Some(n) = s.retry_elsewhere.filter(|n| *n > max) {
        return Err(invalid(
            "retry_elsewhere".into(),
            format!("retry_elsewhere is {n}"),
            &format!("use 0 to {max}"),
        ));
    }
    let combos = s.jobs.len() * s.matrix.len().max(1) * s.vars_matrix.len().max(1);
    if s.jobs.is_empty() || combos > 500 {
        return Err(invalid(
            "jobs".into(),
            "a suite needs 1 to 500 job × data row × cell combinations".into(),
            "split large suites",
        ));
    }
    Ok(())
}

/// Loads a suite the caller may see.
pub(crate) async fn load(st: &AppState, caller: &Caller, id: &str) -> Result<SuiteView, ApiError> {
    let uuid = parse_id("suite", id)?;
    suites::view(&st.pool, uuid, &caller.scope())
        .await?
        .ok_or_else(|| ApiError::not_found("suite", id))
}

/// A suite's verdict and per-device breakdown.
#[utoipa::path(
    get,
    path = "/api/v1/suites/{id}",
    operation_id = "get_suite",
    summary = "Suite verdict and per-device breakdown",
    params(("id" = uuid::Uuid, Path, description = "suite id")),
    responses((
        status = 200,
        description = "the suite, its verdict (`running`, `passed`, `failed`) and its jobs' latest runs",
        body = api::SuiteView
    ))
)]
pub(super) async fn show(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Json<api::SuiteView>, ApiError> {
    super::answers::suite_view(&load(&st, &caller, &id).await?).map(Json)
}

/// The suite as JUnit XML, one test case per job × cell.
#[utoipa::path(
    get,
    path = "/api/v1/suites/{id}/junit.xml",
    operation_id = "get_suite_junit",
    summary = "JUnit XML of the suite",
    params(("id" = uuid::Uuid, Path, description = "suite id")),
    responses((status = 200, description = "JUnit XML", body = String, content_type = "application/xml"))
)]
pub(super) async fn junit(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, ApiError> {
    let s = load(&st, &caller, &id).await?;
    Ok((
        [(header::CONTENT_TYPE, "application/xml; charset=utf-8")],
        crate::junit::render(&s, &st.cfg.public_url()),
    ))
}
