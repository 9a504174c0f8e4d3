//! `GET|POST /devices/{id}/try`: try one step-language line on one idle device (issue 28
//! item 4), as Maestro Studio and Midscene's playground do. A post makes a script job through
//! the API's own path ([`super::jobs::submit_to`], so validation and refusals are the same),
//! named `try: <line>`, with a short timeout and queue timeout, addressed to that device
//! alone (`runs.only_device`: the claim gives it to no other device and never to a
//! quarantined one). Each try is a fresh run: the start URL, the steps so far, then the line.
//! The page then follows the run (`?run=<id>`, refreshing every second while it is live) and
//! shows the line's action: its resolved target, disposition, error and after-screenshot,
//! with links to try on from there or to make a job of the steps ([`super::try_result`]).
//!
//! Refusals (the API's envelope at the field it names, nothing stored): a bad line (422 at
//! the step or the steps so far), a device that is offline, busy, quarantined or serves
//! another team, or a team at its concurrency quota (409 at the form; the claim of addressed
//! runs counts no quota, so the try is refused here instead). A device the caller may not see is 404, like an unknown
//! one: a user sees the devices that serve every team or its own, an admin every device.

use argus_protocol::{ErrorCode, ErrorEnvelope, JobSpec, Platform};
use axum::extract::{Form, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Extension, Router};

use super::page_render::{form_error, html};
use super::runs::visible_detail;
use super::try_result::{add_query, field_of, form_of, instruction, job_query, result_of};
use crate::auth::{Caller, Csrf, User};
use crate::error::ApiError;
use crate::store::try_target::{target, TryTarget};
use crate::views::{TryForm, TryPage, TryResult};
use crate::AppState;

/// Wall-clock limit of a try's run, s: the start page, the steps so far and the line.
const TRY_TIMEOUT_S: u64 = 120;

/// How long a try may wait for its device, s: it was idle when the try was made.
const TRY_QUEUE_TIMEOUT_S: u64 = 30;

/// Most characters of the line kept in the job's name.
const NAME_CHARS: usize = 80;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/devices/{id}/try", get(show).post(try_step))
}

/// The query of `GET /devices/{id}/try`: a try's run to follow, or a form to prefill.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TryQuery {
    run: Option<String>,
    start_url: Option<String>,
    steps: Option<String>,
    step: Option<String>,
}

async fn visible_target(st: &AppState, caller: &Caller, id: &str) -> Result<TryTarget, ApiError> {
    target(
        &st.pool,
        id,
        st.cfg.device_ttl_s,
        &caller.scope(),
        &caller.team_id,
    )
    .await?
    .ok_or_else(|| ApiError::not_found("device", id))
}

async fn show(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
    Query(q): Query<TryQuery>,
) -> Result<Response, ApiError> {
    let dev = visible_target(&st, &caller, &id).await?;
    let (form, result) = match &q.run {
        Some(run) => {
            let run = visible_detail(&st, &caller, run).await?;
            // Only a try of this device is its result: a try's job is named `try: …` and,
            // once claimed, ran here.
            let is_try = run
                .spec
                .name
                .as_deref()
                .is_some_and(|n| n.starts_with("try: "))
                && run.device_id.as_deref().is_none_or(|d| d == id);
            if !is_try {
                return Err(ApiError::not_found(
                    "try of this device",
                    &run.run_id.to_string(),
                ));
            }
            let form = form_of(&run);
            let result = result_of(&run, &form);
            (form, Some(result))
        }
        None => (
            TryForm {
                start_url: q.start_url.unwrap_or_default(),
                steps: q.steps.unwrap_or_default(),
                step: q.step.unwrap_or_default(),
            },
            None,
        ),
    };
    page(&dev, csrf.0, &form, result, None).map(IntoResponse::into_response)
}

/// Renders the page; `refusal` is the envelope of a refused post and the form field it is
/// about.
fn page(
    dev: &TryTarget,
    csrf: String,
    form: &TryForm,
    result: Option<TryResult>,
    refusal: Option<(&ApiError, String)>,
) -> Result<axum::response::Html<String>, ApiError> {
    let (error, field, error_message) = match refusal {
        Some((e, field)) => {
            let (_, msg) = form_error(e);
            let summary = if field.is_empty() {
                "The step was not tried; see below.".to_string()
            } else {
                format!("The step was not tried: {field} — see the field below.")
            };
            (Some(summary), field, msg)
        }
        None => (None, String::new(), String::new()),
    };
    html(TryPage {
        csrf,
        device: &dev.id,
        platform: &dev.platform,
        form,
        result,
        error,
        field,
        error_message,
        add_href: add_query(form),
        job_href: job_query(form, &dev.platform),
    })
}

/// Refuses a try on a device that cannot take it now (409, at the form).
fn check_idle(dev: &TryTarget) -> Result<(), ApiError> {
    let why = if !dev.online {
        "device is offline — try when it is back and idle"
    } else if dev.quarantined {
        "device is quarantined — try when an admin or its health probe has released it"
    } else if dev.busy {
        "device is busy — try when it is idle"
    } else if !dev.serves_caller {
        "device does not serve your team — try on one of your team's devices"
    } else if dev.team_at_quota {
        "your team runs as many runs as its quota allows — try when one has ended"
    } else {
        return Ok(());
    };
    Err(ApiError::Client(ErrorEnvelope::new(
        ErrorCode::Conflict,
        format!("{}: {why}", dev.id),
        "the Devices page (/devices) shows which devices are idle",
    )))
}

/// The try's job: a script of the steps so far and the line, short limits.
fn spec_of(dev: &TryTarget, form: &TryForm) -> Result<(JobSpec, usize), ApiError> {
    let step = form.step.trim();
    if step.is_empty() || step.contains('\n') {
        return Err(ApiError::Client(
            ErrorEnvelope::new(
                ErrorCode::InvalidField,
                "step: type one step-language line to try",
                "e.g. tap \"Save\" or type \"milk\" into \"New todo\"",
            )
            .with_field("instruction"),
        ));
    }
    let platform = Platform::parse(&dev.platform).ok_or_else(|| {
        ApiError::Internal(anyhow::anyhow!(
            "device {} has platform {:?}",
            dev.id,
            dev.platform
        ))
    })?;
    let start_url = Some(form.start_url.trim().to_string())
        .filter(|u| platform == Platform::Web && !u.is_empty());
    let (all, prior) = instruction(form);
    let mut spec = JobSpec::script(platform, start_url, all);
    spec.name = Some(format!(
        "try: {}",
        step.chars().take(NAME_CHARS).collect::<String>()
    ));
    spec.timeout_s = TRY_TIMEOUT_S;
    spec.queue_timeout_s = Some(TRY_QUEUE_TIMEOUT_S);
    Ok((spec, prior))
}

/// Makes the try: to `?run=<id>` on success, back to the form (4xx) on a refusal.
async fn try_step(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Result<Response, ApiError> {
    let dev = visible_target(&st, &caller, &id).await?;
    let mut form = TryForm::default();
    for (k, v) in pairs {
        match k.as_str() {
            "start_url" => form.start_url = v,
            "steps" => form.steps = v,
            "step" => form.step = v,
            _ => {}
        }
    }
    let mut prior = 0;
    let res = async {
        let (spec, n) = spec_of(&dev, &form)?;
        prior = n;
        spec.validate()?;
        check_idle(&dev)?;
        super::jobs::submit_to(&st, &caller, &spec, Some(&dev.id)).await
    }
    .await;
    match res {
        Ok((_, run_id, _)) => {
            Ok(Redirect::to(&format!("/devices/{}/try?run={run_id}", dev.id)).into_response())
        }
        Err(e @ ApiError::Client(_)) => {
            let status = match &e {
                ApiError::Client(env) => StatusCode::from_u16(env.code.http_status())
                    .unwrap_or(StatusCode::UNPROCESSABLE_ENTITY),
                _ => StatusCode::UNPROCESSABLE_ENTITY,
            };
            let field = match &e {
                ApiError::Client(env) => field_of(env.field.as_deref().unwrap_or(""), prior),
                _ => String::new(),
            };
            let body = page(&dev, csrf.0, &form, None, Some((&e, field)))?;
            Ok((status, body).into_response())
        }
        Err(e) => Err(e),
    }
}
