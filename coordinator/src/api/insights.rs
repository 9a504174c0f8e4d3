//! `GET /insights`: how the farm has been doing — pass rate per UTC day by suite, platform
//! and device (server-drawn SVG charts), runs that passed on retry, the slowest steps — for
//! the caller's team (every team for an admin). `?days=N` sets the window (1–366, default
//! 14). `?job=NAME` or `?suite=NAME` adds pass rate per app build and each job's first
//! failing build (all time, as `GET /api/v1/insights/builds` answers).

use axum::extract::State;
use axum::response::Html;
use axum::routing::get;
use axum::{Extension, Router};
use chrono::{Duration, Utc};

use super::builds::BuildsQuery;
use super::envelope::ApiQuery;
use crate::auth::{Csrf, User};
use crate::error::ApiError;
use crate::plot::chart;
use crate::store::insights::{self, GroupBy};
use crate::views::InsightsPage;
use crate::AppState;

/// Default window, days.
const DEFAULT_DAYS: u32 = 14;
/// Rows of the flaky and slowest-steps tables.
const ROWS: i64 = 20;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/insights", get(page))
}

/// The page's query.
#[derive(Debug, Default, serde::Deserialize)]
struct Window {
    /// UTC days ending today, 1–366.
    days: Option<u32>,
    /// Builds of the jobs with this name.
    job: Option<String>,
    /// Builds of the suites with this name.
    suite: Option<String>,
}

async fn page(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    ApiQuery(w): ApiQuery<Window>,
) -> Result<Html<String>, ApiError> {
    let days = w.days.unwrap_or(DEFAULT_DAYS).clamp(1, 366);
    let now = Utc::now();
    let since = (now.date_naive() - Duration::days(days as i64 - 1))
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc())
        .unwrap_or(now);
    let scope = caller.scope();
    let mut charts = Vec::new();
    for by in [GroupBy::Suite, GroupBy::Platform, GroupBy::Device] {
        let rates = insights::pass_rates(&st.pool, &scope, since, by).await?;
        charts.push(chart(
            &format!("plot-{}", by.as_str()),
            &format!("Pass rate by {}", by.as_str()),
            &rates,
            days,
            now,
        ));
    }
    let flaky = insights::flaky(&st.pool, &scope, since, ROWS).await?;
    let slow = insights::slowest_steps(&st.pool, &scope, since, ROWS).await?;
    let q = BuildsQuery {
        job: w.job.clone(),
        suite: w.suite.clone(),
    };
    let builds = match q.of()? {
        Some(of) => Some(super::builds::answer(&st, &scope, of).await?),
        None => None,
    };
    let page = InsightsPage {
        build_job: w.job.unwrap_or_default(),
        build_suite: w.suite.unwrap_or_default(),
        builds,
        csrf: csrf.0,
        days,
        charts,
        flaky,
        slow,
    };
    askama::Template::render(&page)
        .map(Html)
        .map_err(|e| ApiError::Internal(e.into()))
}
