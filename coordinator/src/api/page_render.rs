//! What every dashboard page handler shares: rendering a template and turning a refusal
//! into the inline error a form shows next to its field.

use askama::Template;
use axum::response::Html;

use crate::error::ApiError;

/// Renders a page.
pub(super) fn html(t: impl Template) -> Result<Html<String>, ApiError> {
    t.render()
        .map(Html)
        .map_err(|e| ApiError::Internal(e.into()))
}

/// `(field, message)` of a refusal, for the form's inline error.
pub(super) fn form_error(e: &ApiError) -> (String, String) {
    match e {
        ApiError::Client(env) => (
            env.field.clone().unwrap_or_default(),
            format!("{} — {}", env.message, env.hint),
        ),
        other => (String::new(), other.to_string()),
    }
}
