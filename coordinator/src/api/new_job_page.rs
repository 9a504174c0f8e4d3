//! `/jobs/new`: the dashboard's form for every job kind (prefilled from the query: see
//! [`new_job`]) (script / llm / vlm with the model
//! endpoint, vars, secret references, cache policy, retries, priority, timeouts, selector
//! labels, expectations). A post builds the spec ([`super::job_form`]) and submits it
//! through the API's own path ([`super::jobs::submit`]); a refusal re-shows the form as
//! typed with the API's message next to the field it names, and nothing is stored.

use argus_protocol::job::{DEFAULT_MAX_STEPS, DEFAULT_TIMEOUT_S};
use axum::extract::{Form, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::Extension;

use super::job_form::{form_from_pairs, spec_from_form};
use super::page_render::{form_error, html};
use crate::auth::{Csrf, User};
use crate::error::ApiError;
use crate::views::{platforms, JobForm, NewJobPage};
use crate::AppState;

/// The form with the spec's defaults filled in, and what the query prefills: `name`,
/// `platform`, `mode`, `start_url`, `instruction` (the "try a step" page's "New job from
/// these steps" link); other keys are ignored.
pub(super) async fn new_job(
    _caller: User,
    Extension(csrf): Extension<Csrf>,
    Query(prefill): Query<Vec<(String, String)>>,
) -> Result<Html<String>, ApiError> {
    let mut form = JobForm {
        platform: "web".into(),
        mode: "script".into(),
        timeout_s: DEFAULT_TIMEOUT_S.to_string(),
        max_steps: DEFAULT_MAX_STEPS.to_string(),
        retries: "0".into(),
        priority: "0".into(),
        ..Default::default()
    };
    for (k, v) in prefill {
        match k.as_str() {
            "name" => form.name = v,
            "platform" => form.platform = v,
            "mode" => form.mode = v,
            "start_url" => form.start_url = v,
            "instruction" => form.instruction = v,
            _ => {}
        }
    }
    html(NewJobPage {
        csrf: csrf.0,
        form: &form,
        platforms: platforms(),
        error: None,
        field: String::new(),
        error_message: String::new(),
    })
}

/// Submits the form: to the job's report on success, back to the form (422) on a refusal.
pub(super) async fn create_job(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Result<Response, ApiError> {
    let form = form_from_pairs(pairs);
    let res = async {
        let spec = spec_from_form(&form)?;
        // A job no device matches yet is queued too; its run page says what it waits for.
        super::jobs::submit(&st, &caller, &spec).await
    }
    .await;
    match res {
        Ok((_, run_id, _)) => Ok(Redirect::to(&format!("/runs/{run_id}")).into_response()),
        Err(e @ ApiError::Client(_)) => {
            let (field, msg) = form_error(&e);
            let summary = if field.is_empty() {
                "The job was not created; see below.".to_string()
            } else {
                format!("The job was not created: {field} — see the field below.")
            };
            let page = html(NewJobPage {
                csrf: csrf.0,
                form: &form,
                platforms: platforms(),
                error: Some(summary),
                field,
                error_message: msg,
            })?;
            Ok((StatusCode::UNPROCESSABLE_ENTITY, page).into_response())
        }
        Err(e) => Err(e),
    }
}
