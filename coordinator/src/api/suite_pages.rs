//! `/suites` in the dashboard: the list, a suite's page (verdict with counts, JUnit link,
//! the case × device grid linking each run's report, the name's history, "Run again" and
//! "Edit"), and the New suite form (`/suites/new`: fields, or the suite JSON pasted). Every
//! suite is made by [`super::suites::submit`], the API's own path: one transaction, so a
//! refused form stores no suite, job or run, and shows the API's message at the field it
//! names. "Run again" runs the stored definition as a new suite of the same name; "Edit"
//! opens the New suite form filled from it. Forms carry the session's CSRF token.

use argus_protocol::SuiteVerdict;
use axum::extract::{Form, Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};

use super::page_render::{form_error, html};
use super::suite_form::{blank_case, form_from_pairs, form_from_spec, spec_from_form};
use crate::auth::{Caller, Csrf, User};
use crate::error::ApiError;
use crate::store;
use crate::views::{matrix, platforms, CaseView, NewSuitePage, SuiteForm, SuitePage, SuitesPage};
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/suites", get(suites_page))
        .route("/suites/new", get(new_suite).post(create))
        .route("/suites/{id}", get(suite_page))
        // The API's JUnit, for the signed-in dashboard (the API takes no session cookie).
        .route("/suites/{id}/junit.xml", get(super::suites::junit))
        .route("/suites/{id}/edit", get(edit))
        .route("/suites/{id}/run", post(run_again))
}

/// A refusal as the page shows it: `(summary, suite-level field, case index and field
/// inside it, message)`. A refusal of pasted JSON is shown at the JSON.
struct Refusal {
    summary: String,
    field: String,
    case: Option<(usize, String)>,
    message: String,
}

impl Refusal {
    fn of(e: &ApiError, json: bool) -> Refusal {
        let (field, message) = form_error(e);
        let summary = if field.is_empty() {
            "The suite was not created; see below.".to_string()
        } else {
            format!("The suite was not created: {field} — see the field below.")
        };
        if json {
            let message = if field.is_empty() {
                message
            } else {
                format!("{field}: {message}")
            };
            return Refusal {
                summary,
                field: "suite_json".into(),
                case: None,
                message,
            };
        }
        let case = field.strip_prefix("jobs[").and_then(|rest| {
            let (i, f) = rest.split_once(']')?;
            Some((i.parse().ok()?, f.trim_start_matches('.').to_string()))
        });
        Refusal {
            summary,
            field: if case.is_some() { String::new() } else { field },
            case,
            message,
        }
    }
}

/// Renders the New suite page: `form`'s cases and one empty case, `json` in the JSON form.
fn render(
    csrf: String,
    form: &SuiteForm,
    json: String,
    edit_of: Option<uuid::Uuid>,
    refusal: Option<Refusal>,
) -> Result<Html<String>, ApiError> {
    let blank = blank_case();
    let at = refusal.as_ref().and_then(|r| r.case.clone());
    let cases = form
        .cases
        .iter()
        .chain(std::iter::once(&blank))
        .enumerate()
        .map(|(i, case)| CaseView {
            i,
            case,
            field: match &at {
                Some((n, f)) if *n == i => f.clone(),
                _ => String::new(),
            },
        })
        .collect();
    let (error, field, error_message) = match refusal {
        Some(r) => (Some(r.summary), r.field, r.message),
        None => (None, String::new(), String::new()),
    };
    html(NewSuitePage {
        csrf,
        form,
        cases,
        json,
        platforms: platforms(),
        edit_of,
        error,
        field,
        error_message,
    })
}

async fn new_suite(
    _caller: User,
    Extension(csrf): Extension<Csrf>,
) -> Result<Html<String>, ApiError> {
    render(csrf.0, &SuiteForm::default(), String::new(), None, None)
}

/// The suite a post describes: the pasted JSON (`source=json`), parsed as the API parses
/// its body, or the fields.
fn spec_of(form: &SuiteForm, json: Option<&str>) -> Result<argus_protocol::SuiteSpec, ApiError> {
    match json {
        Some(text) => super::suites::parse_spec(text.as_bytes()),
        None => spec_from_form(form),
    }
}

/// Submits the form: to the new suite's page on success; back to the form (422) with the
/// refusal at its field, nothing stored; "Add a case" shows the form again with one more.
async fn create(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Result<Response, ApiError> {
    let json = pairs
        .iter()
        .any(|(k, v)| k == "source" && v == "json")
        .then(|| {
            pairs
                .iter()
                .find(|(k, _)| k == "suite_json")
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        });
    let (form, add_case) = form_from_pairs(pairs);
    if add_case && json.is_none() {
        return Ok(render(csrf.0, &form, String::new(), None, None)?.into_response());
    }
    let res = async {
        let spec = spec_of(&form, json.as_deref())?;
        super::suites::submit(&st, &caller, &spec).await
    }
    .await;
    match res {
        Ok(created) => Ok(Redirect::to(&format!("/suites/{}", created.suite_id)).into_response()),
        Err(e @ ApiError::Client(_)) => {
            let refusal = Refusal::of(&e, json.is_some());
            let page = render(csrf.0, &form, json.unwrap_or_default(), None, Some(refusal))?;
            Ok((StatusCode::UNPROCESSABLE_ENTITY, page).into_response())
        }
        Err(e) => Err(e),
    }
}

/// "Edit": the New suite form filled from the suite's definition (both the fields and
/// the JSON); submitting it makes a new suite, the edited one stays as it ran.
async fn edit(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
) -> Result<Html<String>, ApiError> {
    let spec = super::suites::definition(&st, &caller, &id).await?;
    let json = serde_json::to_string_pretty(&spec).map_err(|e| ApiError::Internal(e.into()))?;
    let edit_of = super::parse_id("suite", &id)?;
    render(csrf.0, &form_from_spec(&spec), json, Some(edit_of), None)
}

/// "Run again": the same definition as a new suite of the same name; to its page.
async fn run_again(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Redirect, ApiError> {
    let spec = super::suites::definition(&st, &caller, &id).await?;
    let created = super::suites::submit(&st, &caller, &spec).await?;
    Ok(Redirect::to(&format!("/suites/{}", created.suite_id)))
}

async fn suites_page(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
) -> Result<Html<String>, ApiError> {
    let suites = store::suites::recent(&st.pool, &caller.scope(), 100).await?;
    html(SuitesPage {
        csrf: csrf.0,
        suites,
    })
}

/// The last 10 suites of the name: `(id, created, verdict, pass rate)` each, and the
/// pass rate over those that ended.
async fn history(
    st: &AppState,
    caller: &Caller,
    suite: &store::suites::SuiteView,
) -> Result<(Vec<(uuid::Uuid, String, String, String)>, String), ApiError> {
    let mut history = Vec::new();
    let (mut passed, mut total) = (0, 0);
    let scope = caller.scope();
    for (hid, created) in store::suites::history(&st.pool, &suite.team_id, &suite.name, 10).await? {
        if let Some(v) = store::suites::view(&st.pool, hid, &scope).await? {
            let rate = if v.jobs.is_empty() {
                0.0
            } else {
                v.passed as f64 / v.jobs.len() as f64
            };
            if v.verdict != SuiteVerdict::Running {
                total += 1;
                passed += usize::from(v.verdict == SuiteVerdict::Passed);
            }
            history.push((
                hid,
                created.format("%Y-%m-%d %H:%M").to_string(),
                v.verdict.to_string(),
                format!("{:.0}%", rate * 100.0),
            ));
        }
    }
    let pass_rate = if total == 0 {
        "—".to_string()
    } else {
        format!("{passed}/{total} suites passed")
    };
    Ok((history, pass_rate))
}

async fn suite_page(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
) -> Result<Html<String>, ApiError> {
    let suite = super::suites::load(&st, &caller, &id).await?;
    let (cells, rows) = matrix(&suite);
    let (history, pass_rate) = history(&st, &caller, &suite).await?;
    html(SuitePage {
        csrf: csrf.0,
        suite: &suite,
        cells,
        rows,
        history,
        pass_rate,
    })
}
