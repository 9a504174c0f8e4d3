//! Dashboard sessions. Signing in with a token creates a session row; the `argus_session`
//! cookie names it (stored as a sha256 digest, like tokens), so the API token itself never
//! travels in a cookie. Each session has its own CSRF token, rendered into every form as
//! the hidden `csrf` field and checked on every cookie-authenticated POST. A session ends
//! at sign-out, after [`SESSION_TTL`], or when its token is revoked or expires.

use axum::http::HeaderMap;
use chrono::{DateTime, Utc};
use sqlx::PgPool;

use super::tokens::{digest, generate};
use super::Caller;

/// Name of the dashboard's session cookie.
pub const COOKIE: &str = "argus_session";

/// How long a dashboard session lasts: 12 hours.
pub const SESSION_TTL: chrono::Duration = chrono::Duration::hours(12);

/// A signed-in dashboard session.
#[derive(Debug, Clone)]
pub struct Session {
    /// Value of the cookie (shown once, at creation).
    pub cookie: String,
    /// The session's CSRF token.
    pub csrf: String,
    /// When it ends.
    pub expires_at: DateTime<Utc>,
}

/// Opens a session for the token `token_id`.
pub async fn create(pool: &PgPool, token_id: uuid::Uuid) -> Result<Session, sqlx::Error> {
    let cookie = generate();
    let csrf = hex::encode(&digest(&generate())[..16]);
    let expires_at = Utc::now() + SESSION_TTL;
    sqlx::query!(
        "insert into dashboard_sessions (id_sha256, token_id, csrf, expires_at)
         values ($1, $2, $3, $4)",
        digest(&cookie),
        token_id,
        csrf,
        expires_at
    )
    .execute(pool)
    .await?;
    // Sessions that ended are of no use; drop them while we are here.
    sqlx::query!("delete from dashboard_sessions where expires_at < now()")
        .execute(pool)
        .await?;
    Ok(Session {
        cookie,
        csrf,
        expires_at,
    })
}

/// The caller and CSRF token of a live session (its token live too).
pub async fn lookup(pool: &PgPool, cookie: &str) -> Result<Option<(Caller, String)>, sqlx::Error> {
    let row = sqlx::query!(
        "select t.id, t.team_id, t.role, t.shared_pool, s.csrf
           from dashboard_sessions s join api_tokens t on t.id = s.token_id
          where s.id_sha256 = $1 and s.expires_at > now()
            and (t.expires_at is null or t.expires_at > now())",
        digest(cookie)
    )
    .fetch_optional(pool)
    .await?;
    row.map(|r| {
        Ok((
            Caller {
                team_id: r.team_id,
                role: super::tokens::stored_role(&r.role)?,
                token_id: Some(r.id),
                shared_pool: r.shared_pool,
            },
            r.csrf,
        ))
    })
    .transpose()
}

/// Ends a session (sign-out).
pub async fn end(pool: &PgPool, cookie: &str) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "delete from dashboard_sessions where id_sha256 = $1",
        digest(cookie)
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// The session cookie's value in a `Cookie` header, if any.
pub fn cookie_of(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            c.trim()
                .strip_prefix(COOKIE)
                .and_then(|rest| rest.strip_prefix('='))
                .map(|t| t.trim().to_string())
        })
        .filter(|t| !t.is_empty())
}

/// Whether the browser reached the coordinator over TLS, so the cookie may be `Secure`:
/// the configured public URL is `https://…`, or the proxy in front (which terminates TLS)
/// says `X-Forwarded-Proto: https`. A client that sends the header itself only makes its
/// own cookie stricter. Plain-http setups (the quickstart on loopback) get no `Secure`,
/// which the browser would otherwise never send back.
pub fn behind_tls(headers: &HeaderMap, public_url: Option<&str>) -> bool {
    let public_https = public_url.is_some_and(|u| {
        u.trim()
            .get(..8)
            .is_some_and(|p| p.eq_ignore_ascii_case("https://"))
    });
    let forwarded_https = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .is_some_and(|p| p.trim().eq_ignore_ascii_case("https"));
    public_https || forwarded_https
}

fn secure_attr(secure: bool) -> &'static str {
    if secure {
        "; Secure"
    } else {
        ""
    }
}

/// `Set-Cookie` value that stores `cookie` for the session's lifetime (`Secure` when
/// `secure`, see [`behind_tls`]).
pub fn set_cookie(s: &Session, secure: bool) -> String {
    format!(
        "{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{}",
        s.cookie,
        SESSION_TTL.num_seconds(),
        secure_attr(secure)
    )
}

/// `Set-Cookie` value that clears the session cookie.
pub fn clear_cookie(secure: bool) -> String {
    format!(
        "{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0{}",
        secure_attr(secure)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secure_only_behind_tls() {
        let mut h = HeaderMap::new();
        assert!(!behind_tls(&h, None));
        assert!(!behind_tls(&h, Some("http://argus.example")));
        assert!(behind_tls(&h, Some("HTTPS://argus.example/")));
        h.insert("x-forwarded-proto", "https, http".parse().unwrap());
        assert!(behind_tls(&h, None));
        h.insert("x-forwarded-proto", "http".parse().unwrap());
        assert!(!behind_tls(&h, None));
        assert!(clear_cookie(true).ends_with("; Secure"));
        assert!(!clear_cookie(false).contains("Secure"));
    }
}
