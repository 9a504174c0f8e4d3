//! Who may call what. The JSON API (`/api/…`) takes only `Authorization: Bearer <token>`;
//! the dashboard takes a bearer token or the `argus_session` cookie set by `/login` (see
//! [`session`]). The [`authenticate`] layer wraps every route but the public ones
//! (`/healthz`, `/login`, the OpenAPI document; `crate::api::router` routes those outside
//! it) and resolves the [`Caller`], whose [`Caller::scope`] limits every query to the
//! caller's team (admins see all). Each handler declares the [`Role`]s it admits by its
//! extractor ([`User`], [`Admin`], [`WorkerAuth`]; see [`extract`]): worker tokens may only
//! heartbeat.
//!
//! Every state-changing request a browser sends must be same-origin ([`origin`]); a
//! cookie-authenticated one must also carry its session's CSRF token (the hidden `csrf`
//! form field, or an `X-CSRF-Token` header). Sign-in is throttled per client address
//! ([`throttle`]); every other request is counted against its token's rate ([`rate`]), and
//! live run streams are bounded per token ([`streams`]).

pub mod extract;
pub mod origin;
pub mod rate;
pub mod role;
pub mod session;
pub mod streams;
pub mod throttle;
pub mod tokens;

use argus_protocol::{ErrorCode, ErrorEnvelope};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::store::TeamScope;
use crate::AppState;

pub use extract::{Admin, User, WorkerAuth};
pub use role::Role;
pub use tokens::{create_token, create_token_expiring, digest, generate, lookup};

/// The one route a worker token may call.
pub const WORKER_ROUTE: &str = "/api/v1/workers/heartbeat";

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// Team the token belongs to.
    pub team_id: String,
    /// What the token may do.
    pub role: Role,
    /// The token's id; `None` when auth is off.
    pub token_id: Option<uuid::Uuid>,
    /// A worker token an admin granted the shared pool (`argus token create --role worker
    /// --shared-pool`): its workers serve every team.
    pub shared_pool: bool,
}

impl Caller {
    /// The teams this caller's queries may see: every team for an admin (auth `off`
    /// included), else its own. The only way a request gets a [`TeamScope`].
    pub fn scope(&self) -> TeamScope {
        TeamScope::of(self.role == Role::Admin, &self.team_id)
    }

    /// The team whose runs the devices this caller heartbeats may be handed: its own team
    /// for a worker token, `None` (every team) for a shared-pool worker token or an admin
    /// (auth `off` included). Decided from the authenticated token alone, never from what
    /// the worker sends.
    pub fn served_team(&self) -> Option<&str> {
        (self.role != Role::Admin && !self.shared_pool).then_some(self.team_id.as_str())
    }
}

/// The CSRF token pages render into their forms: the session's, or empty when the caller
/// did not come with a session cookie (bearer token, auth off).
#[derive(Debug, Clone, Default)]
pub struct Csrf(pub String);

fn bearer_of(headers: &HeaderMap) -> Option<String> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    v.strip_prefix("Bearer ").map(|t| t.trim().to_string())
}

fn wants_html(req: &Request) -> bool {
    !req.uri().path().starts_with("/api/")
        && req
            .headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("text/html"))
}

fn changes_state(m: &Method) -> bool {
    !matches!(*m, Method::GET | Method::HEAD | Method::OPTIONS)
}

fn forbidden(message: impl Into<String>, hint: &str) -> Response {
    ApiError::Client(ErrorEnvelope::new(ErrorCode::Forbidden, message, hint)).into_response()
}

/// Middleware on every route: refuses cross-origin browser writes (403), public routes
/// included (a forged sign-in is refused too).
pub async fn same_origin(State(st): State<AppState>, req: Request, next: Next) -> Response {
    if changes_state(req.method()) {
        let authority = req.uri().authority().map(|a| a.as_str());
        if let Err(why) = origin::check(req.headers(), authority, st.cfg.public_url.as_deref()) {
            tracing::warn!(path = %req.uri().path(), %why, "cross-origin write refused");
            return forbidden(
                format!("cross-origin request refused: {why}"),
                "use the dashboard's own forms, or call the API without a browser",
            );
        }
    }
    next.run(req).await
}

/// Middleware on every route but the public ones: resolves the caller (or answers 401 on
/// the API / redirects pages to `/login`), counts the request against its token's rate (429
/// past it), checks the CSRF token of cookie-authenticated writes, and puts the [`Caller`]
/// and its [`Csrf`] in the request's extensions for the handler's auth extractor.
pub async fn authenticate(State(st): State<AppState>, mut req: Request, next: Next) -> Response {
    if st.cfg.auth == "off" {
        req.extensions_mut().insert(Caller {
            team_id: "default".into(),
            role: Role::Admin,
            token_id: None,
            shared_pool: false,
        });
        req.extensions_mut().insert(Csrf::default());
        return next.run(req).await;
    }
    let path = req.uri().path().to_string();
    let html = wants_html(&req);
    let (caller, csrf) = match resolve(&st, req.headers(), &path, html).await {
        Ok(found) => found,
        Err(resp) => return *resp,
    };
    if let Err(wait) = st.rate.check(&caller) {
        let wait_s = rate::retry_after_s(wait);
        tracing::warn!(%path, team = %caller.team_id, role = %caller.role, wait_s, "request rate limited");
        return rate::too_many("this token is over its request rate", wait_s);
    }
    if let Some(expected) = &csrf {
        if changes_state(req.method()) {
            req = match check_csrf(req, expected, st.cfg.max_body_bytes).await {
                Ok(r) => r,
                Err(resp) => return *resp,
            };
        }
    }
    req.extensions_mut().insert(caller);
    req.extensions_mut().insert(Csrf(csrf.unwrap_or_default()));
    next.run(req).await
}

/// The caller of a bearer token (or, off the API, of a session cookie, with the session's
/// CSRF token); else the answer: 401 envelope, or a redirect to `/login` when `html` (a
/// browser asking for a page).
async fn resolve(
    st: &AppState,
    headers: &HeaderMap,
    path: &str,
    html: bool,
) -> Result<(Caller, Option<String>), Box<Response>> {
    let is_api = path.starts_with("/api/");
    let resolved = if let Some(t) = bearer_of(headers) {
        tokens::lookup(&st.pool, &t)
            .await
            .map(|c| c.map(|c| (c, None)))
    } else if let Some(cookie) = session::cookie_of(headers).filter(|_| !is_api) {
        session::lookup(&st.pool, &cookie)
            .await
            .map(|c| c.map(|(c, csrf)| (c, Some(csrf))))
    } else {
        Ok(None)
    };
    match resolved {
        Ok(Some(found)) => Ok(found),
        Ok(None) if html => Err(Box::new(Redirect::to("/login").into_response())),
        Ok(None) => {
            let hint = if is_api && session::cookie_of(headers).is_some() {
                "the API takes only `Authorization: Bearer <token>`, never the dashboard cookie"
            } else {
                "send `Authorization: Bearer <token>`; mint one with `argus token create`"
            };
            Err(Box::new(
                ApiError::Client(ErrorEnvelope::new(
                    ErrorCode::Unauthorized,
                    "missing, unknown, revoked or expired API token",
                    hint,
                ))
                .into_response(),
            ))
        }
        Err(e) => Err(Box::new(ApiError::from(e).into_response())),
    }
}

fn same_secret(a: &str, b: &str) -> bool {
    // Compare digests so the comparison time does not depend on a shared prefix.
    Sha256::digest(a.as_bytes()) == Sha256::digest(b.as_bytes())
}

/// Checks the CSRF token of a cookie-authenticated write: the `X-CSRF-Token` header, else
/// the `csrf` field of a form body (read here and handed on unchanged).
async fn check_csrf(req: Request, expected: &str, limit: usize) -> Result<Request, Box<Response>> {
    let refuse = || {
        Box::new(forbidden(
            "missing or wrong CSRF token",
            "reload the page and submit its form again; a session's forms carry a hidden \
             `csrf` field",
        ))
    };
    if let Some(h) = req.headers().get("x-csrf-token") {
        return match h.to_str() {
            Ok(v) if same_secret(v, expected) => Ok(req),
            _ => Err(refuse()),
        };
    }
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, limit).await.map_err(|_| {
        Box::new(
            ApiError::Client(ErrorEnvelope::new(
                ErrorCode::BodyTooLarge,
                format!("the body is larger than {limit} bytes"),
                "shorten the form",
            ))
            .into_response(),
        )
    })?;
    let fields: Vec<(String, String)> = serde_urlencoded::from_bytes(&bytes).unwrap_or_default();
    let ok = fields
        .iter()
        .any(|(k, v)| k == "csrf" && same_secret(v, expected));
    if !ok {
        tracing::warn!(path = %parts.uri.path(), "dashboard write without a valid CSRF token");
        return Err(refuse());
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}
