//! Pins that the OpenAPI document (`GET /api/v1/openapi.json`, generated from the handlers'
//! `#[utoipa::path]` attributes and the protocol types by `argus_coordinator::api::openapi`)
//! and the router serve the same API: every route declared under `/api/` in
//! `coordinator/src/api/*.rs` is in the document with the same methods and vice versa, and
//! every operation of the document reaches a handler of the running coordinator (no
//! router 404, no 405) whose failures are the documented error envelope. The routes are
//! read from the source (axum's `Router` cannot list its routes); a route declaration the
//! reader cannot parse fails the test rather than being skipped.

use std::collections::BTreeSet;

use serde_json::Value;

const METHODS: &[&str] = &["get", "post", "put", "delete", "patch"];

/// `(path, method)` of every `.route("/api/…", …)` in the coordinator's API modules.
fn routes_in_source() -> BTreeSet<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../coordinator/src/api");
    let mut out = BTreeSet::new();
    for entry in std::fs::read_dir(dir).expect("coordinator/src/api") {
        let path = entry.expect("entry").path();
        let src = std::fs::read_to_string(&path).expect("read module");
        assert!(
            !src.contains(".nest(") && !src.contains(".route_service("),
            "{path:?}: nested routers are not read by this test; list routes with .route()"
        );
        for (i, _) in src.match_indices(".route(") {
            let call = balanced(&src[i + ".route(".len()..])
                .unwrap_or_else(|| panic!("{path:?}: unbalanced .route( at byte {i}"));
            let (route, methods) = call
                .trim_start()
                .strip_prefix('"')
                .and_then(|r| r.split_once('"'))
                .unwrap_or_else(|| panic!("{path:?}: .route( without a literal path: {call}"));
            let found: Vec<&str> = methods
                .split(['.', ','])
                .map(str::trim)
                .filter_map(|t| METHODS.iter().find(|m| t.starts_with(&format!("{m}("))))
                .copied()
                .collect();
            assert!(!found.is_empty(), "{path:?}: no method in .route({call})");
            if route.starts_with("/api/") {
                for m in found {
                    out.insert((route.to_string(), m.to_string()));
                }
            }
        }
    }
    out
}

/// The text up to the parenthesis that closes the one already open.
fn balanced(s: &str) -> Option<&str> {
    let mut depth = 1;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&s[..i]);
                }
            }
            _ => {}
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_and_the_router_list_the_same_routes() {
    let farm = crate::bare_farm().await;
    let doc: Value = reqwest::get(format!("{}/api/v1/openapi.json", farm.base_url))
        .await
        .expect("GET openapi.json")
        .json()
        .await
        .expect("json");
    let mut documented = BTreeSet::new();
    for (path, ops) in doc["paths"].as_object().expect("paths") {
        for m in ops.as_object().expect("operations").keys() {
            if METHODS.contains(&m.as_str()) && path.starts_with("/api/") {
                documented.insert((path.clone(), m.clone()));
            }
        }
    }
    let served = routes_in_source();
    assert!(
        served.len() >= 15,
        "the source reader found too little: {served:?}"
    );
    let undocumented: Vec<_> = served.difference(&documented).collect();
    let unserved: Vec<_> = documented.difference(&served).collect();
    assert!(
        undocumented.is_empty() && unserved.is_empty(),
        "routes without a #[utoipa::path] listed in ApiDoc: {undocumented:?}; documented but \
         not routed: {unserved:?}"
    );
    let generated: Value =
        serde_json::from_str(&argus_coordinator::api::openapi::json().expect("generate"))
            .expect("generated JSON");
    assert_eq!(doc, generated, "the served document is the generated one");

    // Every documented operation reaches a handler (ids that exist nowhere: the handler's
    // own 404 or a 4xx for the empty body, never the router's).
    for (path, method) in &documented {
        let url = format!(
            "{}{}",
            farm.base_url,
            path.replace("{id}", &uuid::Uuid::new_v4().to_string())
        );
        let req = match method.as_str() {
            "get" => farm.http.get(&url),
            "post" => farm.http.post(&url).json(&serde_json::json!({})),
            "delete" => farm.http.delete(&url),
            "put" => farm.http.put(&url).json(&serde_json::json!({})),
            _ => farm.http.patch(&url).json(&serde_json::json!({})),
        };
        let resp = req.send().await.expect("request");
        let status = resp.status().as_u16();
        let body = resp.text().await.unwrap_or_default();
        assert_ne!(status, 405, "{method} {path}: method not routed");
        assert!(
            !(status == 404 && body.contains("no such route")),
            "{method} {path}: no route"
        );
        if status >= 400 {
            let envelope: Value = serde_json::from_str(&body)
                .unwrap_or_else(|e| panic!("{method} {path}: {status} is not JSON ({e}): {body}"));
            assert!(
                envelope["code"].is_string() && envelope["hint"].is_string(),
                "{method} {path}: {status} is not the error envelope: {body}"
            );
        }
    }
}

/// The document's `security` and the router's authentication agree: every operation the
/// document marks public (`security: []`) answers a caller without a token (no 401), and
/// every other one answers that caller 401 — so a route moved out of the authentication
/// layer, or a public one put behind it, fails here. A worker token gets 403 on every
/// operation but the heartbeat (and the public ones), which admits it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_documented_security_is_what_the_router_enforces() {
    let farm = crate::bare_farm().await;
    let doc: Value =
        serde_json::from_str(&argus_coordinator::api::openapi::json().expect("generate"))
            .expect("generated JSON");
    let anonymous = reqwest::Client::new();
    let worker = farm.client_for("default", "worker").await;
    let mut checked = 0;
    for (path, ops) in doc["paths"].as_object().expect("paths") {
        for (method, op) in ops.as_object().expect("operations") {
            let public = op["security"] == serde_json::json!([]);
            let url = format!(
                "{}{}",
                farm.base_url,
                path.replace("{id}", &uuid::Uuid::new_v4().to_string())
            );
            let m: reqwest::Method = method.to_uppercase().parse().expect("method");
            let status = anonymous
                .request(m.clone(), &url)
                .json(&serde_json::json!({}))
                .send()
                .await
                .expect("request")
                .status()
                .as_u16();
            if public {
                assert_ne!(status, 401, "{method} {path} is documented public");
            } else {
                assert_eq!(
                    status, 401,
                    "{method} {path} is documented as needing a token"
                );
            }
            let status = worker
                .request(m, &url)
                .json(&serde_json::json!({}))
                .send()
                .await
                .expect("request")
                .status()
                .as_u16();
            if !public && path != "/api/v1/workers/heartbeat" {
                assert_eq!(status, 403, "{method} {path} with a worker token");
            } else {
                assert_ne!(status, 403, "{method} {path} with a worker token");
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} operations checked");
}
