//! Pins that bytes the coordinator serves cannot become pages (issue 24, item 8): an
//! artifact whose stored content type is `text/html` (a worker or anyone with bucket access
//! can write one) is served with the image type its name says (`image/png`, `image/jpeg`)
//! and `X-Content-Type-Options: nosniff`; HTML
//! pages (report, dashboard, sign-in) carry a CSP with `frame-ancestors 'none'` and
//! `nosniff`; the sign-in cookie is `Secure` when the request came over TLS
//! (`X-Forwarded-Proto: https` from the proxy in front) and not on plain http.

use aws_sdk_s3::primitives::ByteStream;
use serde_json::json;

fn header(r: &reqwest::Response, name: &str) -> String {
    r.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

fn assert_page_headers(r: &reqwest::Response, what: &str) {
    let csp = header(r, "content-security-policy");
    assert!(
        csp.contains("frame-ancestors 'none'"),
        "{what}: CSP {csp:?} lets other sites frame it"
    );
    assert_eq!(header(r, "x-content-type-options"), "nosniff", "{what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn artifacts_and_pages_cannot_be_turned_into_pages() {
    let farm = crate::bare_farm().await;
    let run = farm
        .submit(&json!({"platform": "web", "instruction": "wait 10ms"}))
        .await;
    for (file, served) in [
        ("0-0-before.png", "image/png"),
        ("0123456789abcdef0123456789abcdef.jpg", "image/jpeg"),
    ] {
        let key = format!("runs/{run}/{file}");
        farm.s3_client
            .put_object()
            .bucket(&farm.s3.bucket)
            .key(&key)
            .content_type("text/html")
            .body(ByteStream::from_static(
                b"<html><script>alert(document.cookie)</script></html>",
            ))
            .send()
            .await
            .expect("put object");
        let r = farm
            .http
            .get(format!("{}/artifacts/{key}", farm.base_url))
            .send()
            .await
            .expect("artifact");
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(header(&r, "content-type"), served, "stored type served");
        assert_eq!(header(&r, "x-content-type-options"), "nosniff");
    }

    for path in [
        format!("/runs/{run}"),
        "/".to_string(),
        "/devices".to_string(),
    ] {
        let r = farm
            .http
            .get(format!("{}{path}", farm.base_url))
            .send()
            .await
            .expect("page");
        assert_eq!(r.status().as_u16(), 200, "{path}");
        assert!(
            header(&r, "content-type").starts_with("text/html"),
            "{path}"
        );
        assert_page_headers(&r, &path);
    }
    let anon = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let r = anon
        .get(format!("{}/login", farm.base_url))
        .send()
        .await
        .expect("login page");
    assert_page_headers(&r, "/login");

    let login = |proto: Option<&'static str>| {
        let mut b = anon
            .post(format!("{}/login", farm.base_url))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("token={}", farm.admin_token));
        if let Some(p) = proto {
            b = b.header("x-forwarded-proto", p);
        }
        b.send()
    };
    let tls = login(Some("https")).await.expect("login over tls");
    let cookie = header(&tls, "set-cookie");
    assert!(
        cookie.split(';').any(|a| a.trim() == "Secure"),
        "behind TLS the cookie is not Secure: {cookie}"
    );
    let plain = login(None).await.expect("plain login");
    let cookie = header(&plain, "set-cookie");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(
        !cookie.split(';').any(|a| a.trim() == "Secure"),
        "a Secure cookie on plain http is never sent back: {cookie}"
    );
}
