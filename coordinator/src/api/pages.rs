//! Server-rendered pages: `GET /runs/{id}` (the per-run report, linked to a comparison with
//! the previous run of the same job), `GET /runs/{a}/compare/{b}` (where two runs first
//! differ, screenshots side by side), `GET|POST /login` (opens a
//! dashboard session and sets its cookie; throttled per client address) and `POST /logout`
//! (ends the session, clears the cookie). Every page works without JavaScript and
//! refreshes itself while runs are live.

use std::net::SocketAddr;

use argus_protocol::{ErrorCode, ErrorEnvelope};
use axum::extract::{ConnectInfo, Form, FromRequest, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{extract::Path, Extension, Router};
use serde::Deserialize;

use super::runs::visible_detail;
use crate::auth::{self, session, throttle, Csrf, Role, User};
use crate::error::ApiError;
use crate::report::compare::render_compare;
use crate::report::{render_login, render_report, ReportOptions};
use crate::AppState;

/// The pages that need a caller.
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/runs/{id}", get(report))
        .route("/runs/{a}/compare/{b}", get(compare))
        .route("/logout", post(logout))
}

/// The sign-in form and its post: public (routed outside the authentication layer).
pub(super) fn public() -> Router<AppState> {
    Router::new().route("/login", get(login_form).post(login))
}

async fn report(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Path(id): Path<String>,
) -> Result<Html<String>, ApiError> {
    let run = visible_detail(&st, &caller, &id).await?;
    // The previous run shares the team, so the caller sees it too.
    let previous = crate::store::runs::previous(&st.pool, run.run_id).await?;
    let replay = match run.spec.mode {
        argus_protocol::Mode::Script => None,
        _ => crate::store::replay::for_job(&st.pool, run.job_id, &caller.scope())
            .await?
            .and_then(|(_, entry)| entry)
            .map(|e| e.script),
    };
    let has_steps = crate::store::verdicts::has_steps(&st.pool, run.run_id).await?;
    let opts = ReportOptions {
        has_steps,
        img_base: "/artifacts/",
        dashboard_link: true,
        csrf: &csrf.0,
        previous,
        replay: replay.as_deref(),
    };
    let html = render_report(&run, &opts).map_err(|e| ApiError::Internal(e.into()))?;
    Ok(Html(html))
}

async fn compare(
    State(st): State<AppState>,
    User(caller): User,
    Extension(csrf): Extension<Csrf>,
    Path((a, b)): Path<(String, String)>,
) -> Result<Html<String>, ApiError> {
    let a = visible_detail(&st, &caller, &a).await?;
    let b = visible_detail(&st, &caller, &b).await?;
    let html =
        render_compare(&a, &b, "/artifacts/", &csrf.0).map_err(|e| ApiError::Internal(e.into()))?;
    Ok(Html(html))
}

async fn login_form() -> Result<Html<String>, ApiError> {
    render_login(None)
        .map(Html)
        .map_err(|e| ApiError::Internal(e.into()))
}

#[derive(Deserialize)]
struct LoginForm {
    token: String,
}

fn login_page(status: StatusCode, error: &str) -> Response {
    match render_login(Some(error)) {
        Ok(h) => (status, Html(h)).into_response(),
        Err(e) => ApiError::Internal(e.into()).into_response(),
    }
}

/// The client's address (the peer of the TCP connection).
fn client_addr(req: &Request) -> String {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip().to_string())
        .unwrap_or_else(|| "unknown".into())
}

async fn login(State(st): State<AppState>, req: Request) -> Response {
    let addr = client_addr(&req);
    let secure = session::behind_tls(req.headers(), st.cfg.public_url.as_deref());
    match throttle::blocked_for(&st.pool, &addr).await {
        Ok(None) => {}
        Ok(Some(wait_s)) => {
            tracing::warn!(%addr, "sign-in throttled");
            let mut resp = ApiError::Client(ErrorEnvelope::new(
                ErrorCode::RateLimited,
                format!("too many failed sign-ins from {addr}"),
                format!("wait {wait_s} s and try again"),
            ))
            .into_response();
            if let Ok(v) = wait_s.to_string().parse() {
                resp.headers_mut().insert(header::RETRY_AFTER, v);
            }
            return resp;
        }
        Err(e) => return ApiError::from(e).into_response(),
    }
    let form = match Form::<LoginForm>::from_request(req, &st).await {
        Ok(Form(f)) => f,
        Err(e) => return ApiError::from_rejection(e.status(), e.body_text()).into_response(),
    };
    let caller = match auth::lookup(&st.pool, form.token.trim()).await {
        Ok(c) => c,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let Some(caller) = caller else {
        if let Err(e) = throttle::record_failure(&st.pool, &addr).await {
            return ApiError::from(e).into_response();
        }
        return login_page(
            StatusCode::UNAUTHORIZED,
            "unknown, revoked or expired token",
        );
    };
    let Some(token_id) = caller.token_id.filter(|_| caller.role != Role::Worker) else {
        return login_page(
            StatusCode::FORBIDDEN,
            "a worker token cannot sign in to the dashboard",
        );
    };
    match session::create(&st.pool, token_id).await {
        Ok(s) => (
            [(header::SET_COOKIE, session::set_cookie(&s, secure))],
            Redirect::to("/"),
        )
            .into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

async fn logout(
    State(st): State<AppState>,
    _caller: User,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(cookie) = session::cookie_of(&headers) {
        session::end(&st.pool, &cookie).await?;
    }
    Ok((
        [(
            header::SET_COOKIE,
            session::clear_cookie(session::behind_tls(&headers, st.cfg.public_url.as_deref())),
        )],
        Redirect::to("/login"),
    )
        .into_response())
}
