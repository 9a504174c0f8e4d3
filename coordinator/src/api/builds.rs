//! `GET /api/v1/insights/builds?job=NAME` or `?suite=NAME`: pass rate per app build of the
//! jobs named so (or of the suites named so) and, per job, the first build it started
//! failing on (see [`crate::store::builds`]). Exactly one of `job` and `suite`, 1 to 200
//! characters, else a 422 `invalid_field` envelope.

use argus_protocol::api::{BuildInsights, BuildPassRate, JobFirstFailing};
use argus_protocol::{ErrorCode, ErrorEnvelope};
use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

use super::envelope::ApiQuery;
use crate::auth::User;
use crate::error::ApiError;
use crate::store::builds::{self, BuildsOf};
use crate::store::TeamScope;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/api/v1/insights/builds", get(show))
}

/// The query: a job name or a suite name.
#[derive(Debug, Default, Clone, serde::Deserialize)]
pub(crate) struct BuildsQuery {
    /// Jobs with this name.
    pub job: Option<String>,
    /// Jobs of the suites with this name.
    pub suite: Option<String>,
}

impl BuildsQuery {
    /// Which runs the query names; `None` when it names none (both blank or absent).
    ///
    /// Errors: both given, or a name over 200 characters (422 `invalid_field`).
    pub(crate) fn of(&self) -> Result<Option<BuildsOf<'_>>, ApiError> {
        let blank = |s: &Option<String>| s.as_deref().is_none_or(|s| s.trim().is_empty());
        let long = |s: &Option<String>| s.as_deref().is_some_and(|s| s.chars().count() > 200);
        let invalid = |field: &str, msg: &str| {
            ApiError::Client(
                ErrorEnvelope::new(
                    ErrorCode::InvalidField,
                    msg,
                    "give ?job=NAME or ?suite=NAME",
                )
                .with_field(field),
            )
        };
        if long(&self.job) || long(&self.suite) {
            return Err(invalid("job", "a name is over 200 characters"));
        }
        match (&self.job, &self.suite) {
            (j, s) if !blank(j) && !blank(s) => {
                Err(invalid("suite", "give job or suite, not both"))
            }
            (Some(j), _) if !blank(&self.job) => Ok(Some(BuildsOf::Job(j))),
            (_, Some(s)) if !blank(&self.suite) => Ok(Some(BuildsOf::Suite(s))),
            _ => Ok(None),
        }
    }
}

/// The per-build answer for `of` in `scope`.
pub(crate) async fn answer(
    st: &AppState,
    scope: &TeamScope,
    of: BuildsOf<'_>,
) -> Result<BuildInsights, ApiError> {
    let runs = builds::runs(&st.pool, scope, of).await?;
    let (job, suite) = match of {
        BuildsOf::Job(n) => (Some(n.to_string()), None),
        BuildsOf::Suite(n) => (None, Some(n.to_string())),
    };
    Ok(BuildInsights {
        job,
        suite,
        builds: builds::pass_rates(&runs)
            .into_iter()
            .map(|b| BuildPassRate {
                pass_rate: b.pass_rate(),
                app_build: b.app_build,
                passed: b.passed,
                total: b.total,
                first_run_at: b.first_run_at,
            })
            .collect(),
        jobs: builds::first_failing(&runs)
            .into_iter()
            .map(|f| JobFirstFailing {
                job: f.job,
                first_failing_build: f.first_failing_build,
                failing_runs: f.failing_runs,
                latest_build: f.latest_build,
            })
            .collect(),
    })
}

/// Pass rate per app build and the first failing build per job.
#[utoipa::path(
    get,
    path = "/api/v1/insights/builds",
    operation_id = "get_build_insights",
    summary = "Pass rate per app build and the first failing build of each job",
    params(
        ("job" = Option<String>, Query, description = "the jobs with this name"),
        ("suite" = Option<String>, Query,
            description = "the jobs of the suites with this name (give job or suite)"),
    ),
    responses((
        status = 200,
        description = "pass rate per build (in the order the builds first ran) and, per job, \
                       the earliest build after which every run failed",
        body = BuildInsights
    ))
)]
pub(super) async fn show(
    State(st): State<AppState>,
    User(caller): User,
    ApiQuery(q): ApiQuery<BuildsQuery>,
) -> Result<Json<BuildInsights>, ApiError> {
    let of = q.of()?.ok_or_else(|| {
        ApiError::Client(
            ErrorEnvelope::new(
                ErrorCode::InvalidField,
                "name a job or a suite",
                "give ?job=NAME or ?suite=NAME",
            )
            .with_field("job"),
        )
    })?;
    answer(&st, &caller.scope(), of).await.map(Json)
}
