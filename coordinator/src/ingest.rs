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

/// Decodes one message's events: a lone [`RunEvent`], or a JSON array of them (a worker's
/// events grouped while an earlier publish was in flight, `argus_worker::run::event_groups`),
/// U+0000 stripped, in the message's order. Each element of an array is decoded on its own,
/// so one that is not a [`RunEvent`] (say, from a newer worker) costs only itself.
///
/// Errors: the payload is not JSON, or neither a [`RunEvent`] nor an array (the whole
/// message); an element that is not a [`RunEvent`] (that element).
pub fn decode_group(
    payload: &[u8],
) -> Result<Vec<Result<RunEvent, serde_json::Error>>, serde_json::Error> {
    let first = payload.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'[') {
        return Ok(vec![Ok(decode(payload)?)]);
    }
    let nul = payload.windows(6).any(|w| w == br"\u0000");
    if !nul {
        if let Ok(evs) = serde_json::from_slice::<Vec<RunEvent>>(payload) {
            return Ok(evs.into_iter().map(Ok).collect());
        }
    }
    let items: Vec<Value> = serde_json::from_slice(payload)?;
    Ok(items
        .into_iter()
        .map(|mut v| {
            strip_nul(&mut v);
            serde_json::from_value(v)
        })
        .collect())
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

    fn event(seq: u64, text: &str) -> serde_json::Value {
        serde_json::json!({
            "run_id": uuid::Uuid::nil(), "attempt_id": uuid::Uuid::nil(), "seq": seq,
            "at": "2026-01-01T00:00:00Z",
            "body": {"type": "step_started", "step": 0, "text": text}
        })
    }

    #[test]
    fn a_message_holds_one_event_or_an_array_of_them() {
        let seqs = |evs: &[Result<RunEvent, serde_json::Error>]| -> Vec<Option<u64>> {
            evs.iter().map(|e| e.as_ref().ok().map(|e| e.seq)).collect()
        };
        let one = decode_group(event(4, "x").to_string().as_bytes()).unwrap();
        assert_eq!(seqs(&one), [Some(4)]);
        let arr = serde_json::Value::Array(vec![event(1, "a"), event(2, "b\u{0}c")]);
        let many = decode_group(format!(" {arr}").as_bytes()).unwrap();
        assert_eq!(seqs(&many), [Some(1), Some(2)]);
        match &many[1].as_ref().unwrap().body {
            argus_protocol::EventBody::StepStarted { text, .. } => assert_eq!(text, "bc"),
            other => panic!("{other:?}"),
        }
        // an element that is no event costs only itself
        let mixed = serde_json::json!([event(1, "a"), {"seq": 2}, event(3, "c")]);
        let mixed = decode_group(mixed.to_string().as_bytes()).unwrap();
        assert_eq!(seqs(&mixed), [Some(1), None, Some(3)]);
        assert!(decode_group(b"[1, 2").is_err());
        assert!(decode_group(b"{\"seq\": 1}").is_err());
    }

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
