//! API tokens and teams. A token is stored only as its sha256 digest; a request names it as
//! `Authorization: Bearer <token>` (API, workers, CLI) or the `argus_token` cookie set by the
//! dashboard's login form. Every route except `/healthz` and `/login` needs one when auth is
//! on; the resulting [`Caller`] scopes every query to the caller's team (admins see all).

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use sha2::{Digest, Sha256};
use sqlx::PgPool;

use crate::error::ApiError;
use crate::AppState;
use argus_protocol::{ErrorCode, ErrorEnvelope};

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// Team the token belongs to.
    pub team_id: String,
    /// `user`, `worker` or `admin`.
    pub role: String,
}

impl Caller {
    /// Whether the caller may see `team`'s resources.
    pub fn sees(&self, team: &str) -> bool {
        self.role == "admin" || self.team_id == team
    }

    /// The team filter for queries: `None` = all teams (admin).
    pub fn team_filter(&self) -> Option<&str> {
        (self.role != "admin").then_some(self.team_id.as_str())
    }
}

/// sha256 of a token.
pub fn digest(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// A fresh random token: `argus_` + 64 hex chars (two v4 UUIDs, 244 random bits).
pub fn generate() -> String {
    format!(
        "argus_{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Stores a token for `team` (creating the team) with `role`; returns its id.
pub async fn create_token(
    pool: &PgPool,
    team: &str,
    role: &str,
    name: &str,
    token: &str,
) -> Result<uuid::Uuid, sqlx::Error> {
    let id = uuid::Uuid::new_v4();
    sqlx::query("insert into teams (id) values ($1) on conflict do nothing")
        .bind(team)
        .execute(pool)
        .await?;
    sqlx::query(
        "insert into api_tokens (id, team_id, name, token_sha256, role) values ($1, $2, $3, $4, $5)
         on conflict (token_sha256) do nothing",
    )
    .bind(id)
    .bind(team)
    .bind(name)
    .bind(digest(token))
    .bind(role)
    .execute(pool)
    .await?;
    Ok(id)
}

/// Looks a token up.
pub async fn lookup(pool: &PgPool, token: &str) -> Result<Option<Caller>, sqlx::Error> {
    let row: Option<(String, String)> =
        sqlx::query_as("select team_id, role from api_tokens where token_sha256 = $1")
            .bind(digest(token))
            .fetch_optional(pool)
            .await?;
    Ok(row.map(|(team_id, role)| Caller { team_id, role }))
}

fn token_of(req: &Request) -> Option<String> {
    if let Some(v) = req.headers().get(header::AUTHORIZATION) {
        let v = v.to_str().ok()?;
        return v.strip_prefix("Bearer ").map(|t| t.trim().to_string());
    }
    let cookies = req.headers().get(header::COOKIE)?.to_str().ok()?;
    cookies.split(';').find_map(|c| {
        c.trim()
            .strip_prefix("argus_token=")
            .map(|t| t.trim().to_string())
    })
}

fn wants_html(req: &Request) -> bool {
    !req.uri().path().starts_with("/api/")
        && req
            .headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("text/html"))
}

/// Middleware: resolves the caller or answers 401 (API) / redirects to `/login` (pages).
pub async fn require(State(st): State<AppState>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if path == "/healthz" || path == "/login" || path == "/api/v1/openapi.json" {
        return next.run(req).await;
    }
    if st.cfg.auth == "off" {
        req.extensions_mut().insert(Caller {
            team_id: "default".into(),
            role: "admin".into(),
        });
        return next.run(req).await;
    }
    let caller = match token_of(&req) {
        Some(t) => match lookup(&st.pool, &t).await {
            Ok(c) => c,
            Err(e) => return ApiError::from(e).into_response(),
        },
        None => None,
    };
    match caller {
        Some(c) => {
            req.extensions_mut().insert(c);
            next.run(req).await
        }
        None if wants_html(&req) => Redirect::to("/login").into_response(),
        None => ApiError::Client(ErrorEnvelope::new(
            ErrorCode::Unauthorized,
            "missing or unknown API token",
            "send `Authorization: Bearer <token>`; mint one with `argus token create`",
        ))
        .into_response(),
    }
}
