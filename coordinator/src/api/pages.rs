//! Server-rendered pages: `GET /runs/{id}` (the per-run report) and `GET|POST /login` (sets the `argus_token` cookie). Every page works
//! without JavaScript and refreshes itself while runs are live.

use axum::extract::{Form, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{extract::Path, Extension, Router};
use serde::Deserialize;

use super::runs::visible_detail;
use crate::auth::{self, Caller};
use crate::error::ApiError;
use crate::report::{render_login, render_report};
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/runs/{id}", get(report))
        .route("/login", get(login_form).post(login))
}

async fn report(
    State(st): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Html<String>, ApiError> {
    let run = visible_detail(&st, &caller, &id).await?;
    let html =
        render_report(&run, "/artifacts/", true).map_err(|e| ApiError::Internal(e.into()))?;
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

async fn login(State(st): State<AppState>, Form(f): Form<LoginForm>) -> Response {
    match auth::lookup(&st.pool, f.token.trim()).await {
        Ok(Some(_)) => (
            [(
                header::SET_COOKIE,
                format!(
                    "argus_token={}; Path=/; HttpOnly; SameSite=Strict",
                    f.token.trim()
                ),
            )],
            Redirect::to("/"),
        )
            .into_response(),
        Ok(None) => match render_login(Some("unknown token")) {
            Ok(h) => (axum::http::StatusCode::UNAUTHORIZED, Html(h)).into_response(),
            Err(e) => ApiError::Internal(e.into()).into_response(),
        },
        Err(e) => ApiError::from(e).into_response(),
    }
}
