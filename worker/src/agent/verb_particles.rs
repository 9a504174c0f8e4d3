//! English orders whose verb alone does not say what they do ([`super::effects`]'s
//! `order_en`): `mark` / `set` / `leave` / `keep`, `throw` / `chuck`, `cross`, `take` / `get`,
//! `start` / `begin` / `make` — the words after it do (a state word, a particle, a list).

use super::clauses;
use super::order_kind::{Does, Order, DONE_WORDS, UNDONE_WORDS};

/// `raw` from byte `n` on (empty past its end): an order's object after its verb.
fn after(raw: &str, n: usize) -> String {
    raw.get(n..).unwrap_or("").to_string()
}

/// "mark 'x' as not done", "set it to done", "mark that one off" (`lower` the clause in
/// lower case, `raw` as written): `None` when the clause starts with none of these verbs,
/// `Some(None)` when it does but the words after it order nothing ("keep 'x' as it is").
pub(super) fn marked_order(lower: &str, raw: &str) -> Option<Option<Order>> {
    if !["mark ", "set ", "leave ", "keep "]
        .iter()
        .any(|w| lower.starts_with(w))
    {
        return None;
    }
    let has = |w: &&str| lower.contains(&format!(" {w} ")) || lower.ends_with(&format!(" {w}"));
    let object = after(raw, lower.find(' ').unwrap_or(0));
    if UNDONE_WORDS.iter().any(has) {
        return Some(Some(Order {
            does: Does::Uncheck,
            verb: None,
            object,
        }));
    }
    let marks = lower.starts_with("mark ") || lower.starts_with("set ");
    // "mark that one off": the particle after the object.
    let off = lower.starts_with("mark ") && lower.trim_end().ends_with(" off");
    Some(
        (marks && (off || DONE_WORDS.iter().any(has))).then_some(Order {
            does: Does::Check,
            verb: None,
            object,
        }),
    )
}

/// "throw 'x' on the end" adds, "chuck that one out" deletes: the particle decides. `None`
/// when the clause starts with neither verb, `Some(None)` when no particle decides.
pub(super) fn thrown_order(lower: &str, raw: &str) -> Option<Option<Order>> {
    let verb = ["throw ", "chuck "]
        .iter()
        .find(|v| lower.starts_with(**v))?;
    let has = |w: &str| lower.contains(&format!(" {w} ")) || lower.ends_with(&format!(" {w}"));
    let does = if has("out") || has("away") {
        Does::Delete
    } else if ["on", "onto", "in", "into", "at"].iter().any(|w| has(w)) {
        Does::Add
    } else {
        return Some(None);
    };
    Some(Some(Order {
        does,
        verb: None,
        object: after(raw, verb.len()),
    }))
}

/// "cross that one off": the particle comes after the object.
pub(super) fn crossed_off_order(lower: &str, raw: &str) -> Option<Order> {
    if lower.starts_with("cross ") && lower.contains(" off") {
        return Some(Order {
            does: Does::Check,
            verb: Some("cross off"),
            object: after(raw, "cross ".len()),
        });
    }
    None
}

/// "take 'x' off the list", "take it out": the particle comes after the object.
pub(super) fn taken_off_order(lower: &str, raw: &str) -> Option<Order> {
    if (lower.starts_with("take ") || lower.starts_with("get "))
        && [" off", " out"].iter().any(|p| lower.contains(p))
    {
        return Some(Order {
            does: Does::Delete,
            verb: Some("take off"),
            object: after(raw, lower.find(' ').unwrap_or(0)),
        });
    }
    None
}

/// "start a packing list with 'a' and 'b'": the quoted items (of `body`, the clause with
/// its quotes) start the list.
pub(super) fn list_start_order(lower: &str, raw: &str, body: &str) -> Option<Order> {
    if ["start ", "begin ", "make "]
        .iter()
        .any(|w| lower.starts_with(w))
        && lower.contains(" list")
        && !clauses::quoted(body).is_empty()
    {
        let first = lower.find(' ').unwrap_or(0);
        return Some(Order {
            does: Does::Add,
            verb: Some("add"),
            object: after(raw, first),
        });
    }
    None
}
