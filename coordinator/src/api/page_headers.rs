//! Headers that keep served bytes from becoming someone else's page: every response says
//! `X-Content-Type-Options: nosniff` (a browser never guesses HTML out of an image or JSON),
//! and every HTML page carries a Content-Security-Policy that refuses framing
//! (`frame-ancestors 'none'`, plus `X-Frame-Options: DENY` for older browsers), so no other
//! site can overlay the dashboard's buttons (clickjacking); it also forbids plugins, a
//! rewritten `<base>` and forms posting anywhere but here. Scripts and styles are not
//! restricted: the pages' own inline script and styles would need nonces first.

use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

/// The policy of every HTML page.
pub const PAGE_CSP: &str =
    "frame-ancestors 'none'; base-uri 'none'; object-src 'none'; form-action 'self'";

/// Middleware: adds `nosniff` to every response and the page policy to HTML ones.
pub async fn add(req: Request, next: Next) -> Response {
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    let html = h
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            ct.trim_start()
                .to_ascii_lowercase()
                .starts_with("text/html")
        });
    if html {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(PAGE_CSP),
        );
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    }
    resp
}
