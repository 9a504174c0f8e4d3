//! The OpenAPI 3 document of the JSON API, generated from the code: each handler carries a
//! `#[utoipa::path]` (method, path, parameters, bodies, success status), the bodies are the
//! `argus-protocol` types (`ToSchema` behind its `openapi` feature), and [`ApiDoc`] lists
//! them. [`Envelopes`] adds what every operation shares: the bearer security scheme and the
//! `4XX` / `5XX` error envelope, so no handler can forget them. An operation is public when
//! its `#[utoipa::path]` says `security(())` (its handler takes no auth extractor and is
//! routed outside the authentication layer); the e2e test `openapi.rs` calls every
//! operation without a token and checks that exactly those answer something other than 401. Served at
//! `GET /api/v1/openapi.json`; the e2e test `openapi.rs` checks its paths and methods
//! against the router's route declarations.

use argus_protocol::expect::{Expectation, ExpectationSource, Verdict};
use argus_protocol::replay::StepsLang;
use argus_protocol::{ErrorCode, ErrorEnvelope, FailureClass, RunStatus};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
use utoipa::OpenApi;

use crate::error::ApiError;

/// The API's operations and the schemas they use.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Argus API",
        version = "1",
        description = "Jobs, runs, schedules and suites of the Argus UI-automation farm. Every \
                       route except /healthz and this document needs `Authorization: Bearer \
                       <token>`; resources are scoped to the token's team. A failed call \
                       answers the error envelope `{code, message, hint, retry, field?}` with \
                       the HTTP status of its code."
    ),
    paths(
        super::healthz,
        document,
        super::jobs::create,
        super::jobs::show,
        super::jobs::cancel,
        super::jobs::replay_show,
        super::jobs::replay_clear,
        super::runs::list,
        super::runs::show,
        super::runs::steps,
        super::runs::cancel,
        super::schedules::list,
        super::schedules::create,
        super::schedules::show,
        super::schedules::remove,
        super::schedules::pause,
        super::schedules::resume,
        super::schedules::edit,
        super::schedules::run,
        super::suites::create,
        super::suites::show,
        super::suites::run_again,
        super::suites::junit,
        super::builds::show,
        super::workers::heartbeat,
        super::devices::list,
        super::health::quarantine,
        super::health::release,
        super::health::events,
        super::dead_events::list,
    ),
    components(schemas(
        ErrorEnvelope,
        ErrorCode,
        RunStatus,
        FailureClass,
        Expectation,
        ExpectationSource,
        Verdict,
        StepsLang
    )),
    modifiers(&Envelopes),
    security(("bearer" = []))
)]
pub struct ApiDoc;

/// Adds the bearer scheme, the error envelope answers of every operation, `security: []` on
/// the public ones (those whose path attribute says `security(())`), and a tag per resource.
struct Envelopes;

impl utoipa::Modify for Envelopes {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
        let envelope = |description: &str| {
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name("ErrorEnvelope")))
                        .build(),
                )
                .build()
        };
        for (path, item) in doc.paths.paths.iter_mut() {
            // Grouped by resource (`/api/v1/<resource>/…`), not by Rust module.
            let tag = path
                .strip_prefix("/api/v1/")
                .and_then(|p| p.split('/').next())
                .filter(|r| !r.contains('.'))
                .unwrap_or("meta")
                .to_string();
            for op in [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.delete,
                &mut item.patch,
            ]
            .into_iter()
            .flatten()
            {
                op.tags = Some(vec![tag.clone()]);
                // `security(())` reads `[{}]` (anonymous allowed); written `[]`, the usual
                // spelling of "no token needed".
                if op.security.as_ref().is_some_and(|s| {
                    s.iter()
                        .all(|r| r == &utoipa::openapi::security::SecurityRequirement::default())
                }) {
                    op.security = Some(Vec::new());
                }
                if path == "/api/v1/openapi.json" {
                    continue;
                }
                op.responses.responses.insert(
                    "4XX".into(),
                    envelope(
                        "error envelope: 400 malformed_body, 401 unauthorized, 403 forbidden, \
                         404 not_found, 409 conflict, 413 body_too_large, 415 \
                         unsupported_media_type, 422 invalid_field (`field` names it), 429 \
                         rate_limited",
                    )
                    .into(),
                );
                op.responses.responses.insert(
                    "5XX".into(),
                    envelope(
                        "error envelope: 500 internal (logged on the server), 503 unavailable \
                         (a dependency is down); `retry` is true",
                    )
                    .into(),
                );
            }
        }
    }
}

/// The document as JSON text.
pub fn json() -> Result<String, serde_json::Error> {
    ApiDoc::openapi().to_pretty_json()
}

/// Serves this document.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    operation_id = "openapi",
    summary = "This document (OpenAPI 3)",
    security(()),
    responses((status = 200, description = "the document", body = Object, content_type = "application/json"))
)]
pub(super) async fn document() -> Result<Response, ApiError> {
    let body = json().map_err(|e| ApiError::Internal(e.into()))?;
    Ok((
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::Value;

    fn doc() -> Value {
        serde_json::from_str(&super::json().expect("serialize")).expect("valid JSON")
    }

    #[test]
    fn the_document_lists_every_operation() {
        let text = super::json().expect("serialize");
        assert!(
            !text.contains("[`"),
            "a rustdoc link leaked into a description; write the doc comment in plain text"
        );
        let doc = doc();
        let mut ops = BTreeSet::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for m in item.as_object().expect("operations").keys() {
                ops.insert(format!("{} {path}", m.to_uppercase()));
            }
        }
        let want: BTreeSet<String> = [
            "GET /healthz",
            "GET /api/v1/openapi.json",
            "POST /api/v1/jobs",
            "GET /api/v1/jobs/{id}",
            "POST /api/v1/jobs/{id}/cancel",
            "GET /api/v1/jobs/{id}/replay",
            "DELETE /api/v1/jobs/{id}/replay",
            "GET /api/v1/runs",
            "GET /api/v1/runs/{id}",
            "GET /api/v1/runs/{id}/steps",
            "POST /api/v1/runs/{id}/cancel",
            "GET /api/v1/schedules",
            "POST /api/v1/schedules",
            "GET /api/v1/schedules/{id}",
            "PUT /api/v1/schedules/{id}",
            "DELETE /api/v1/schedules/{id}",
            "POST /api/v1/schedules/{id}/pause",
            "POST /api/v1/schedules/{id}/resume",
            "POST /api/v1/schedules/{id}/run",
            "POST /api/v1/suites",
            "GET /api/v1/suites/{id}",
            "POST /api/v1/suites/{id}/run",
            "GET /api/v1/suites/{id}/junit.xml",
            "GET /api/v1/insights/builds",
            "POST /api/v1/workers/heartbeat",
            "GET /api/v1/devices",
            "POST /api/v1/devices/{id}/quarantine",
            "POST /api/v1/devices/{id}/release",
            "GET /api/v1/device-health-events",
            "GET /api/v1/dead-events",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        assert_eq!(ops, want);
        assert!(doc["openapi"].as_str().expect("version").starts_with("3."));
    }

    #[test]
    fn every_operation_has_an_id_security_and_error_envelopes() {
        let doc = doc();
        let mut ids = BTreeSet::new();
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (m, op) in item.as_object().expect("operations") {
                let id = op["operationId"].as_str().expect("operationId");
                assert!(
                    ids.insert(id.to_string()),
                    "{m} {path}: operationId {id} twice"
                );
                let public = ["/healthz", "/api/v1/openapi.json"].contains(&path.as_str());
                assert_eq!(op.get("security").is_some(), public, "{m} {path}: security");
                if path != "/api/v1/openapi.json" {
                    for range in ["4XX", "5XX"] {
                        assert_eq!(
                            op["responses"][range]["content"]["application/json"]["schema"]["$ref"],
                            "#/components/schemas/ErrorEnvelope",
                            "{m} {path}: {range}"
                        );
                    }
                }
                if path.contains("{id}") {
                    let p = &op["parameters"][0];
                    assert_eq!((&p["name"], &p["in"]), (&"id".into(), &"path".into()));
                    // a device id is its worker's name, not a uuid
                    if path.starts_with("/api/v1/devices/") {
                        assert_eq!(p["schema"]["type"], "string", "{m} {path}");
                    } else {
                        assert_eq!(p["schema"]["format"], "uuid", "{m} {path}");
                    }
                }
            }
        }
        assert_eq!(doc["security"], serde_json::json!([{"bearer": []}]));
        assert_eq!(
            doc["components"]["securitySchemes"]["bearer"],
            serde_json::json!({"type": "http", "scheme": "bearer"})
        );
    }

    #[test]
    fn the_bodies_are_the_protocol_types() {
        let doc = doc();
        let body = |path: &str, m: &str| {
            doc["paths"][path][m]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
                .clone()
        };
        assert_eq!(body("/api/v1/jobs", "post"), "#/components/schemas/JobSpec");
        assert_eq!(
            body("/api/v1/schedules", "post"),
            "#/components/schemas/ScheduleSpec"
        );
        assert_eq!(
            body("/api/v1/suites", "post"),
            "#/components/schemas/SuiteSpec"
        );
        assert_eq!(
            body("/api/v1/workers/heartbeat", "post"),
            "#/components/schemas/Heartbeat"
        );
        let schemas = &doc["components"]["schemas"];
        let codes = schemas["ErrorCode"]["enum"].as_array().expect("codes");
        assert!(codes.contains(&"invalid_field".into()) && codes.len() == 11);
        let required = schemas["ErrorEnvelope"]["required"]
            .as_array()
            .expect("req");
        for f in ["code", "message", "hint", "retry"] {
            assert!(required.contains(&f.into()), "envelope requires {f}");
        }
        let job = &schemas["JobSpec"];
        assert_eq!(job["additionalProperties"], false, "unknown fields refused");
        let mut required: Vec<&str> = job["required"]
            .as_array()
            .expect("required")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        required.sort_unstable();
        assert_eq!(required, ["instruction", "platform"]);
        // The limits written in the schema attributes are those `JobSpec::validate` applies.
        use argus_protocol::job;
        let p = &job["properties"];
        assert_eq!(p["instruction"]["maxLength"], job::MAX_INSTRUCTION_BYTES);
        assert_eq!(p["max_steps"]["maximum"], job::MAX_STEPS_LIMIT);
        assert_eq!(p["max_steps"]["default"], job::DEFAULT_MAX_STEPS);
        assert_eq!(p["timeout_s"]["maximum"], job::MAX_TIMEOUT_S);
        assert_eq!(p["timeout_s"]["default"], job::DEFAULT_TIMEOUT_S);
        assert_eq!(
            p["queue_timeout_s"]["default"],
            job::DEFAULT_QUEUE_TIMEOUT_S
        );
        assert_eq!(p["auto_wait_ms"]["maximum"], job::MAX_AUTO_WAIT_MS);
        assert_eq!(p["expectations"]["type"], "array", "{}", p["expectations"]);
    }

    /// Every operation documents what it answers: a 2xx response with a schema for each of
    /// its content types (204 has no body), and every `$ref` in the document resolves to a
    /// component. A new route answering an untyped value has no schema and fails here.
    #[test]
    fn every_operation_has_an_answer_schema() {
        let doc = doc();
        let schemas = doc["components"]["schemas"].as_object().expect("schemas");
        let mut typed = 0;
        for (path, item) in doc["paths"].as_object().expect("paths") {
            for (m, op) in item.as_object().expect("operations") {
                let ok: Vec<(&String, &Value)> = op["responses"]
                    .as_object()
                    .expect("responses")
                    .iter()
                    .filter(|(code, _)| code.starts_with('2'))
                    .collect();
                assert!(!ok.is_empty(), "{m} {path}: no 2xx response");
                for (code, resp) in ok {
                    if code == "204" {
                        continue;
                    }
                    let content = resp["content"].as_object();
                    let content = content
                        .filter(|c| !c.is_empty())
                        .unwrap_or_else(|| panic!("{m} {path} {code}: no content"));
                    for (kind, c) in content {
                        assert!(
                            c["schema"].is_object(),
                            "{m} {path} {code} {kind}: no schema"
                        );
                    }
                }
                typed += 1;
            }
        }
        assert_eq!(typed, 30, "operations walked");
        let text = doc.to_string();
        for (i, _) in text.match_indices("#/components/schemas/") {
            let name: String = text[i + "#/components/schemas/".len()..]
                .chars()
                .take_while(|c| *c != '"')
                .collect();
            assert!(schemas.contains_key(&name), "dangling $ref {name}");
        }
        for name in [
            "RunDetail",
            "RunAttempts",
            "RunSummary",
            "JobView",
            "SuiteView",
            "ScheduleView",
            "DeviceList",
            "DeviceHealth",
            "DeviceHealthChanged",
            "HealthEventList",
            "DeadEventList",
            "Health",
        ] {
            assert!(schemas.contains_key(name), "schema {name}");
        }
    }

    /// The run's verdict types are in the document, `unverified` among the statuses, and the
    /// step file is served as text.
    #[test]
    fn the_verdict_types_and_the_step_file_are_documented() {
        let doc = doc();
        let schemas = &doc["components"]["schemas"];
        for name in ["Expectation", "ExpectationSource", "Verdict", "RunStatus"] {
            assert!(schemas[name].is_object(), "schema {name}");
        }
        let statuses = schemas["RunStatus"]["enum"].as_array().expect("enum");
        assert!(statuses.contains(&"unverified".into()), "{statuses:?}");
        for f in ["basis", "expectation", "observation", "claim"] {
            assert!(
                schemas["Verdict"]["properties"][f].is_object(),
                "Verdict.{f}"
            );
        }
        let steps = &doc["paths"]["/api/v1/runs/{id}/steps"]["get"]["responses"];
        assert!(steps["200"]["content"]["text/plain"].is_object(), "{steps}");
        let params = doc["paths"]["/api/v1/runs/{id}/steps"]["get"]["parameters"]
            .as_array()
            .expect("parameters");
        let lang = params
            .iter()
            .find(|p| p["name"] == "lang")
            .expect("the lang parameter");
        assert_eq!(
            (&lang["in"], &lang["required"]),
            (&"query".into(), &false.into())
        );
        assert_eq!(
            lang["schema"]["$ref"], "#/components/schemas/StepsLang",
            "{lang}"
        );
        assert_eq!(
            schemas["StepsLang"]["enum"],
            serde_json::json!(["en", "zh"]),
            "{lang}"
        );
        let detail = doc["paths"]["/api/v1/runs/{id}"]["get"]["responses"]["200"]["description"]
            .as_str()
            .expect("description");
        assert!(detail.contains("expectations") && detail.contains("verdict"));
    }
}
