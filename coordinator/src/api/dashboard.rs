//! Dashboard pages: runs with filters (`/`), devices, the new-job form (inline field
//! errors), schedules (create, pause/resume, next fire times), suites (verdict matrix,
//! history with pass-rate), a cancel button (the SSE feed that keeps a live report current
//! is [`super::live`]). Forms post plain `application/x-www-form-urlencoded`; nothing needs JavaScript.
//! Every form carries the session's CSRF token (hidden `csrf` field) that `auth::authenticate`
//! checks, and only same-origin posts are accepted.

use std::collections::BTreeMap;

use argus_protocol::{JobSpec, MissedTicks, Mode, Platform, Selector, SuiteVerdict};
use askama::Template;
use axum::extract::{Form, Path, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use chrono::Utc;

use super::envelope::ApiQuery;
use super::runs::visible_detail;
use crate::auth::{Caller, Csrf, User};
use crate::error::ApiError;
use crate::scheduler::{self, ScheduleSpec};
use crate::store;
use crate::store::runs::RunFilter;
use crate::views::*;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(runs))
        .route("/devices", get(devices))
        .route("/jobs/new", get(new_job).post(create_job))
        .route("/schedules", get(schedules_page).post(create_schedule))
        .route("/schedules/{id}/pause", post(pause))
        .route("/schedules/{id}/resume", post(resume))
        .route("/suites", get(suites_page))
        .route("/suites/{id}", get(suite_page))
        .route("/runs/{id}/cancel", post(cancel))
        .route("/runs/{id}/replay/clear", post(clear_replay))
}

fn html(t: impl Template) -> Result<Html<String>, ApiError> {
    t.render()
        .map(Html)
        .map_err(|e| ApiError::Internal(e.into()))
}

async fn runs(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    ApiQuery(filter): ApiQuery<RunFilter>,
) -> Result<Html<String>, ApiError> {
    let runs = store::runs::list(&st.pool, &caller.scope(), &filter).await?;
    html(RunsPage {
        csrf: csrf.0,
        runs: &runs,
        filter: &filter,
        statuses: STATUSES.iter().map(|s| s.to_string()).collect(),
        platforms: platforms(),
    })
}

/// Health state changes the devices page lists (newest first).
const HEALTH_EVENTS_SHOWN: i64 = 50;

async fn devices(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
) -> Result<Html<String>, ApiError> {
    let devices = store::workers::devices(&st.pool, st.cfg.device_ttl_s).await?;
    // A busy device links its run only for the run's own team.
    let busy: Vec<uuid::Uuid> = devices.iter().filter_map(|d| d.current_run_id).collect();
    let visible_runs = store::runs::visible_ids(&st.pool, &busy, &caller.scope()).await?;
    let ids: Vec<String> = devices.iter().map(|d| d.id.clone()).collect();
    let health = store::health::of_devices(&st.pool, &ids).await?;
    let health_events = store::health::events(&st.pool, HEALTH_EVENTS_SHOWN).await?;
    html(DevicesPage {
        csrf: csrf.0,
        devices: &devices,
        visible_runs,
        health,
        health_events,
    })
}

async fn new_job(
    _caller: User,
    Extension(csrf): Extension<Csrf>,
) -> Result<Html<String>, ApiError> {
    let form = JobForm {
        platform: "web".into(),
        mode: "script".into(),
        timeout_s: "300".into(),
        ..Default::default()
    };
    html(NewJobPage {
        csrf: csrf.0,
        form: &form,
        platforms: platforms(),
        error: None,
        field: String::new(),
        error_message: String::new(),
    })
}

/// `k=v` lines (or comma-separated) → labels.
fn parse_labels(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for part in text
        .split(['\n', ','])
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("{part:?} is not key=value"))?;
        out.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(out)
}

fn form_error(e: &ApiError) -> (String, String) {
    match e {
        ApiError::Client(env) => (
            env.field.clone().unwrap_or_default(),
            format!("{} — {}", env.message, env.hint),
        ),
        other => (String::new(), other.to_string()),
    }
}

fn spec_from_form(f: &JobForm) -> Result<JobSpec, ApiError> {
    let invalid = |field: &str, msg: String| {
        ApiError::Client(
            argus_protocol::ErrorEnvelope::new(
                argus_protocol::ErrorCode::InvalidField,
                msg,
                "fix the field and submit again",
            )
            .with_field(field),
        )
    };
    let platform = Platform::parse(&f.platform)
        .ok_or_else(|| invalid("platform", format!("unknown platform {:?}", f.platform)))?;
    let labels = parse_labels(&f.labels).map_err(|e| invalid("selector.labels", e))?;
    let timeout_s: u64 = f.timeout_s.trim().parse().map_err(|_| {
        invalid(
            "timeout_s",
            format!("{:?} is not a number of seconds", f.timeout_s),
        )
    })?;
    let url = f.start_url.trim();
    let mut spec = JobSpec::script(
        platform,
        (!url.is_empty()).then(|| url.to_string()),
        f.instruction.replace("\r\n", "\n"),
    );
    spec.mode = match f.mode.as_str() {
        "llm" => Mode::Llm,
        "vlm" => Mode::Vlm,
        _ => Mode::Script,
    };
    spec.timeout_s = timeout_s;
    spec.selector = Selector {
        labels,
        require: vec![],
    };
    spec.name = (!f.name.trim().is_empty()).then(|| f.name.trim().to_string());
    spec.expectations = f
        .expectations
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    spec.validate()?;
    super::hygiene::check_spec("", &spec)?;
    Ok(spec)
}

async fn create_job(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Form(form): Form<JobForm>,
) -> Result<Response, ApiError> {
    let res = async {
        let spec = spec_from_form(&form)?;
        // A job no device matches yet is queued too; its run page says what it waits for.
        let meta = store::jobs::JobMeta {
            team_id: caller.team_id.clone(),
            ..Default::default()
        };
        let (_, run_id) = store::jobs::insert(&st.pool, &spec, &meta).await?;
        st.wake.notify_one();
        Ok::<_, ApiError>(run_id)
    }
    .await;
    match res {
        Ok(run_id) => Ok(Redirect::to(&format!("/runs/{run_id}")).into_response()),
        Err(e @ ApiError::Client(_)) => {
            let (field, msg) = form_error(&e);
            let page = html(NewJobPage {
                csrf: csrf.0,
                form: &form,
                platforms: platforms(),
                error: Some("The job was not created; see the field below.".into()),
                field,
                error_message: msg,
            })?;
            Ok((axum::http::StatusCode::UNPROCESSABLE_ENTITY, page).into_response())
        }
        Err(e) => Err(e),
    }
}

async fn schedule_lines(st: &AppState, caller: &Caller) -> Result<Vec<ScheduleLine>, ApiError> {
    let rows = store::schedules::list(&st.pool, &caller.scope()).await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let mut next = Vec::new();
            if !r.spec.paused {
                next.push(r.next_fire_at);
                next.extend(
                    scheduler::upcoming(&r.spec.cron, &r.spec.timezone, r.next_fire_at, 2)
                        .unwrap_or_default(),
                );
            }
            let tz = scheduler::parse_tz(&r.spec.timezone).unwrap_or(chrono_tz::UTC);
            let fmt = |t: chrono::DateTime<Utc>| {
                t.with_timezone(&tz).format("%Y-%m-%d %H:%M %Z").to_string()
            };
            ScheduleLine {
                id: r.id,
                name: r.spec.name.clone(),
                cron: r.spec.cron.clone(),
                timezone: r.spec.timezone.clone(),
                cells: scheduler::expand(&r.spec.template, &r.spec.matrix)
                    .into_iter()
                    .map(|(_, c)| c)
                    .collect::<Vec<_>>()
                    .join(" | "),
                paused: r.spec.paused,
                next: next.into_iter().map(fmt).collect(),
                last: r.last_fired_at.map(fmt),
            }
        })
        .collect())
}

async fn schedules_page(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
) -> Result<Html<String>, ApiError> {
    let form = ScheduleForm {
        timezone: "UTC".into(),
        platform: "web".into(),
        cron: "*/30 * * * *".into(),
        ..Default::default()
    };
    html(SchedulesPage {
        csrf: csrf.0,
        schedules: schedule_lines(&st, &caller).await?,
        form: &form,
        platforms: platforms(),
        error: None,
        field: String::new(),
        error_message: String::new(),
    })
}

async fn create_schedule(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Form(form): Form<ScheduleForm>,
) -> Result<Response, ApiError> {
    let res = async {
        let jf = JobForm {
            name: form.name.clone(),
            platform: form.platform.clone(),
            mode: "script".into(),
            start_url: form.start_url.clone(),
            labels: String::new(),
            instruction: form.instruction.clone(),
            expectations: String::new(),
            timeout_s: "300".into(),
        };
        let template = spec_from_form(&jf).map_err(|e| match e {
            ApiError::Client(mut env) => {
                env.field = env.field.map(|f| format!("template.{f}"));
                ApiError::Client(env)
            }
            other => other,
        })?;
        let mut matrix = Vec::new();
        for line in form.matrix.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let labels = parse_labels(line).map_err(|e| {
                ApiError::Client(
                    argus_protocol::ErrorEnvelope::new(
                        argus_protocol::ErrorCode::InvalidField,
                        e,
                        "one cell per line: k=v, k2=v2",
                    )
                    .with_field("matrix"),
                )
            })?;
            matrix.push(Selector {
                labels,
                require: vec![],
            });
        }
        let spec = ScheduleSpec {
            name: form.name.clone(),
            cron: form.cron.trim().to_string(),
            timezone: form.timezone.trim().to_string(),
            template,
            matrix,
            missed: MissedTicks::parse(&form.missed).unwrap_or_default(),
            paused: false,
        };
        super::schedules::create_schedule(&st, &caller, &spec).await
    }
    .await;
    match res {
        Ok(_) => Ok(Redirect::to("/schedules").into_response()),
        Err(e @ ApiError::Client(_)) => {
            let (field, msg) = form_error(&e);
            let page = html(SchedulesPage {
                csrf: csrf.0,
                schedules: schedule_lines(&st, &caller).await?,
                form: &form,
                platforms: platforms(),
                error: Some("The schedule was not created; see the field below.".into()),
                field,
                error_message: msg,
            })?;
            Ok((axum::http::StatusCode::UNPROCESSABLE_ENTITY, page).into_response())
        }
        Err(e) => Err(e),
    }
}

async fn pause(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Redirect, ApiError> {
    super::schedules::set_paused(&st, &caller, &id, true).await?;
    Ok(Redirect::to("/schedules"))
}

async fn resume(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Redirect, ApiError> {
    super::schedules::set_paused(&st, &caller, &id, false).await?;
    Ok(Redirect::to("/schedules"))
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

async fn suite_page(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
) -> Result<Html<String>, ApiError> {
    let suite = super::suites::load(&st, &caller, &id).await?;
    let (cells, rows) = matrix(&suite);
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
    html(SuitePage {
        csrf: csrf.0,
        suite: &suite,
        cells,
        rows,
        history,
        pass_rate,
    })
}

async fn cancel(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Redirect, ApiError> {
    let d = visible_detail(&st, &caller, &id).await?;
    store::jobs::cancel_run(&st.pool, d.run_id, &caller.scope()).await?;
    Ok(Redirect::to(&format!("/runs/{}", d.run_id)))
}

/// Clears the replay script stored under the run's job key (the report's "Clear" button),
/// then shows the report again.
async fn clear_replay(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Redirect, ApiError> {
    let d = visible_detail(&st, &caller, &id).await?;
    store::replay::clear_for_job(&st.pool, d.job_id, &caller.scope()).await?;
    tracing::info!(job_id = %d.job_id, "replay script cleared from the dashboard");
    Ok(Redirect::to(&format!("/runs/{}", d.run_id)))
}
