//! What a published event's bytes become before the store sees them: a [`RunEvent`] with
//! every U+0000 removed from its strings (values and keys). PostgreSQL refuses NUL in
//! `text` and in `jsonb` (`unsupported Unicode escape sequence`), so an event carrying one
//! (a page title, typed text, a model's answer) would otherwise be rejected on every
//! delivery. NUL can only reach a JSON text as the escape `\u0000`, so payloads without
//! that byte sequence take the direct path.

use argus_protocol::RunEvent;
use serde_json::Value;

/// Decodes `payload` into an event, U+0000 stripped.
///
/// Errors: the payload is not JSON, or not a [`RunEvent`].
pub fn decode(payload: &[u8]) -> Result<RunEvent, serde_json::Error> {
    if !payload.windows(6).any(|w| w == br"\u0000") {
        return serde_json::from_slice(payload);
    }
    let mut v: Value = serde_json::from_slice(payload)?;
    strip_nul(&mut v);
    serde_json::from_value(v)
}

/// Removes U+0000 from every string (and object key) inside `v`.
pub fn strip_nul(v: &mut Value) {
    match v {
        Value::String(s) => s.retain(|c| c != '\0'),
        Value::Array(a) => a.iter_mut().for_each(strip_nul),
        Value::Object(o) => {
            *o = std::mem::take(o)
                .into_iter()
                .map(|(mut k, mut x)| {
                    k.retain(|c| c != '\0');
                    strip_nul(&mut x);
                    (k, x)
                })
                .collect();
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_is_stripped_and_escaped_backslashes_kept() {
        let ev = serde_json::json!({
            "run_id": uuid::Uuid::nil(), "attempt_id": uuid::Uuid::nil(), "seq": 1,
            "at": "2026-01-01T00:00:00Z",
            "body": {"type": "step_started", "step": 0, "text": "a\u{0}b \\u0000 c"}
        });
        let ev = decode(ev.to_string().as_bytes()).unwrap();
        match ev.body {
            argus_protocol::EventBody::StepStarted { text, .. } => {
                assert_eq!(text, "ab \\u0000 c")
            }
            other => panic!("{other:?}"),
        }
    }
}
