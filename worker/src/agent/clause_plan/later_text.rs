//! The text of an add said without it, given by a later clause: "再补一条借椅子的：本来想写借十把
//! 折叠椅，不过来的人多，写成“借二十把折叠椅”", "add one for the chairs — I'd have said ten, but
//! make it 'borrow twenty chairs'".
//!
//! Why: such an add had no quoted text, so it did not read, and the clause that gives the
//! text has no verb of adding; the model (Qwen2.5-Coder-1.5B) then added nothing.

use super::item_match::{by_chars, by_words};
use crate::agent::{clauses, effects};

/// Words that give the text of the thing just spoken of.
const WRITES: &[&str] = &[
    "写成",
    "写作",
    "写为",
    "记成",
    "记作",
    "就写",
    "叫",
    "write it as",
    "write it down as",
    "word it",
    "call it",
    "make it",
    "put it down as",
    "name it",
    "title it",
    "have it say",
    "have it read",
];

/// How many clauses after the add the text may come.
const REACH: usize = 3;

/// The clause after `k` (within [`REACH`]) that gives the add's text, and the text: one
/// quoted text and a [`WRITES`] word outside the quotes. The search ends at a clause with
/// an order of its own ("then rename 'x'") or one naming a listed item of `items` outside
/// its quotes ("发通知那条就叫“…”"): a text there is that order's, or that item's.
pub(super) fn text_for_add(
    segs: &[String],
    k: usize,
    items: &[(String, bool)],
) -> Option<(usize, String)> {
    for (j, seg) in segs.iter().enumerate().skip(k + 1).take(REACH) {
        let quoted = clauses::quoted(seg);
        let outside = clauses::without_quotes(seg).to_lowercase();
        let names_item =
            by_words(&outside, items, Some(1)).is_some() || by_chars(&outside, items).is_some();
        if names_item {
            return None;
        }
        if let [text] = quoted.as_slice() {
            if WRITES.iter().any(|w| outside.contains(w)) {
                return Some((j, text.clone()));
            }
        }
        if effects::order_of(seg).is_some() {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_clause_that_writes_a_quoted_text_gives_it() {
        let segs: Vec<String> = [
            "再加一条买灯笼的",
            "我本来想写买两个",
            "写成“买四个灯笼”",
            "别的不动",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            text_for_add(&segs, 0, &[]),
            Some((2, "买四个灯笼".to_string()))
        );
        let far: Vec<String> = ["add one", "a", "b", "c", "call it 'x'"]
            .map(String::from)
            .to_vec();
        assert_eq!(text_for_add(&far, 0, &[]), None, "too far");
        let other: Vec<String> = ["add one", "tick 'y'"].map(String::from).to_vec();
        assert_eq!(text_for_add(&other, 0, &[]), None, "no writing word");
        let renamed: Vec<String> = ["add one", "then rename 'y'", "and make it 'z'"]
            .map(String::from)
            .to_vec();
        assert_eq!(text_for_add(&renamed, 0, &[]), None, "the rename's text");
    }
}
