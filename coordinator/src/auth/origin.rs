//! Same-origin check for state-changing requests sent by browsers. A browser names where a
//! request comes from in `Sec-Fetch-Site` and `Origin`; a form on another port of the same
//! host is *same-site* (so `SameSite=Strict` cookies ride along) but not *same-origin* —
//! exactly the cross-port attack of issue 12. Only `same-origin` is accepted. Clients that
//! send neither header (the CLI, curl, workers) are not browsers and pass this check; the
//! dashboard's CSRF token and bearer-only API are what stop forged requests from them.

use axum::http::{header, HeaderMap};

/// `Ok` for a same-origin (or non-browser) request, else why it is cross-origin. `authority`
/// is the request URI's (HTTP/2 carries the host there instead of a `Host` header).
pub fn check(
    headers: &HeaderMap,
    authority: Option<&str>,
    public_url: Option<&str>,
) -> Result<(), String> {
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("");
        if site != "same-origin" {
            return Err(format!("Sec-Fetch-Site is {site:?}, not \"same-origin\""));
        }
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or("").trim_end_matches('/');
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or(authority)
        .unwrap_or("");
    let authority = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    let same_host = !host.is_empty() && authority == Some(host);
    let same_public = public_url.is_some_and(|p| p.trim_end_matches('/') == origin);
    if same_host || same_public {
        Ok(())
    } else {
        Err(format!("Origin {origin:?} is not this server ({host:?})"))
    }
}

#[cfg(test)]
mod tests {
    use super::check;
    use axum::http::HeaderMap;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().expect("header value"));
        }
        h
    }

    #[test]
    fn only_same_origin_passes() {
        let host = ("host", "127.0.0.1:8080");
        assert!(check(&headers(&[host]), None, None).is_ok());
        assert!(check(
            &headers(&[host, ("origin", "http://127.0.0.1:8080")]),
            None,
            None
        )
        .is_ok());
        assert!(check(
            &headers(&[host, ("origin", "http://127.0.0.1:9999")]),
            None,
            None
        )
        .is_err());
        assert!(check(&headers(&[host, ("origin", "null")]), None, None).is_err());
        assert!(check(
            &headers(&[host, ("sec-fetch-site", "same-site")]),
            None,
            None
        )
        .is_err());
        assert!(check(
            &headers(&[host, ("sec-fetch-site", "same-origin")]),
            None,
            None
        )
        .is_ok());
        let lb = [
            ("host", "10.0.0.5:8080"),
            ("origin", "https://argus.example"),
        ];
        assert!(check(&headers(&lb), None, Some("https://argus.example/")).is_ok());
        let h2 = headers(&[("origin", "http://127.0.0.1:8080")]);
        assert!(check(&h2, Some("127.0.0.1:8080"), None).is_ok());
        assert!(check(&h2, Some("127.0.0.1:9"), None).is_err());
    }
}
