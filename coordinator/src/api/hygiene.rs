//! Text hygiene of what users submit: no NUL or other control characters in any string of
//! a job (PostgreSQL cannot store NUL, and control characters have no business in names,
//! labels or URLs), except line breaks and tabs in the instruction and included `files` (`\r` of a CRLF line end
//! included); a job `name` is at most [`MAX_NAME_CHARS`] characters. A refusal is a 422
//! `invalid_field` naming the field's path (`name`, `selector.labels.os`, `jobs[2].instruction`).

use argus_protocol::{ErrorCode, ErrorEnvelope, JobSpec};
use serde_json::Value;

use crate::error::ApiError;

/// Longest job (and suite, schedule) name, in characters.
pub const MAX_NAME_CHARS: usize = 200;

fn invalid(field: String, message: String, hint: &str) -> ApiError {
    ApiError::Client(ErrorEnvelope::new(ErrorCode::InvalidField, message, hint).with_field(field))
}

/// Refuses a control character in `text` (but `allowed`), naming `field`.
pub fn check_text(field: &str, text: &str, allowed: &[char]) -> Result<(), ApiError> {
    match text
        .chars()
        .find(|c| c.is_control() && !allowed.contains(c))
    {
        None => Ok(()),
        Some(c) => Err(invalid(
            field.to_string(),
            format!(
                "{field} contains the control character U+{:04X}",
                u32::from(c)
            ),
            "remove NUL and other control characters (only the instruction may hold line \
             breaks and tabs)",
        )),
    }
}

/// Refuses a name longer than [`MAX_NAME_CHARS`] or with control characters.
pub fn check_name(field: &str, name: &str) -> Result<(), ApiError> {
    let n = name.chars().count();
    if n > MAX_NAME_CHARS {
        return Err(invalid(
            field.to_string(),
            format!("{field} is {n} characters long; at most {MAX_NAME_CHARS} are allowed"),
            "shorten the name",
        ));
    }
    check_text(field, name, &[])
}

/// Checks every string of a job spec; `prefix` is prepended to field paths
/// (`jobs[2].`, `template.`).
pub fn check_spec(prefix: &str, spec: &JobSpec) -> Result<(), ApiError> {
    if let Some(name) = &spec.name {
        check_name(&format!("{prefix}name"), name)?;
    }
    let value = serde_json::to_value(spec).map_err(|e| ApiError::Internal(e.into()))?;
    walk(prefix.trim_end_matches('.'), &value)
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn walk(path: &str, v: &Value) -> Result<(), ApiError> {
    match v {
        Value::String(s) => {
            let script = path == "instruction"
                || path.ends_with(".instruction")
                || path.starts_with("files.")
                || path.contains(".files.");
            let line_breaks: &[char] = if script { &['\n', '\t', '\r'] } else { &[] };
            check_text(path, s, line_breaks)
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| walk(&format!("{path}[{i}]"), item)),
        Value::Object(map) => map.iter().try_for_each(|(k, item)| {
            check_text(path, k, &[])?;
            walk(&join(path, k), item)
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_protocol::Platform;

    fn field_of(e: ApiError) -> Option<String> {
        match e {
            ApiError::Client(env) => env.field,
            _ => None,
        }
    }

    #[test]
    fn control_characters_are_named_by_field() {
        let mut spec = JobSpec::script(Platform::Web, None, "open x\n\tpress Enter".into());
        assert!(check_spec("", &spec).is_ok());
        spec.instruction.push('\0');
        assert_eq!(
            field_of(check_spec("", &spec).unwrap_err()).as_deref(),
            Some("instruction")
        );
        spec.instruction = "ok".into();
        spec.selector.labels.insert("os".into(), "a\u{1b}b".into());
        assert_eq!(
            field_of(check_spec("jobs[1].", &spec).unwrap_err()).as_deref(),
            Some("jobs[1].selector.labels.os")
        );
        spec.selector.labels.clear();
        spec.name = Some("x".repeat(201));
        assert_eq!(
            field_of(check_spec("", &spec).unwrap_err()).as_deref(),
            Some("name")
        );
        spec.name = Some("tab\tin name".into());
        assert!(check_spec("", &spec).is_err());
        spec.name = Some("é".repeat(200));
        assert!(check_spec("", &spec).is_ok());
    }
}
