//! A check clause that says what state a list item should be *put* in ("so it should be open
//! again", "and the rent one should be ticked now"): an order as well as a check. The plan
//! gives the order (the state is then checked like any other); the check stays.
//!
//! Only a clause that joins a reason or a change ("so …", "and …", "… again") reads so: a
//! check on its own ("the box should be ticked", "make sure the rent is done") stays a check
//! and never makes the state it checks — else a run could make its own evidence.

use super::super::effects::{self, Does};

/// Modals before the state ("should be", "needs to be").
const MODALS: &[&str] = &[
    "should be ",
    "should show as ",
    "should now be ",
    "should be back to ",
    "needs to be ",
    "need to be ",
    "has to be ",
    "must be ",
];
/// Negated modals: the item is put in the other state ("so that shouldn't be showing as
/// done").
const NOT_MODALS: &[&str] = &[
    "shouldn't be ",
    "should not be ",
    "shouldn't show as ",
    "should not show as ",
    "shouldn't still be ",
    "mustn't be ",
];
/// Words that may follow the state ("open again", "ticked now", "done yet", "open
/// anymore").
const TAILS: &[&str] = &[
    "again",
    "now",
    "too",
    "as well",
    "instead",
    "yet",
    "anymore",
    "any more",
    "any longer",
];
/// Lead words of a check: a clause led by one only checks.
const LEADS: &[&str] = &[
    "make sure",
    "confirm",
    "verify",
    "check",
    "ensure",
    "double-check",
    "see that",
];

/// The order in check clause `seg` (as split, `raw`, with its joining word): its state
/// ([`Does::Check`] / [`Does::Uncheck`]) and the words before the modal that name the item
/// ("it", "the cooler one"); `None` when it only checks (see the module docs).
pub(super) fn order(seg: &str, raw: &str) -> Option<(Does, String)> {
    let lower = seg.trim().trim_end_matches(['.', '!', ';']).to_lowercase();
    let raw_lower = raw.trim_start().to_lowercase();
    if LEADS.iter().any(|l| lower.starts_with(l)) {
        return None;
    }
    let (at, modal, negated) = MODALS
        .iter()
        .map(|m| (m, false))
        .chain(NOT_MODALS.iter().map(|m| (m, true)))
        .filter_map(|(m, n)| lower.find(m).map(|i| (i, m.len(), n)))
        .min_by_key(|(i, len, _)| (*i, usize::MAX - len))?;
    let subject = seg.trim().get(..at)?.trim().to_string();
    let mut state = lower.get(at + modal..)?.trim().to_string();
    let mut changed = false;
    while let Some(t) = TAILS.iter().find(|t| state.ends_with(&format!(" {t}"))) {
        changed |= *t == "again" || *t == "instead";
        state = state[..state.len() - t.len() - 1].trim_end().to_string();
    }
    let joined = ["so ", "and "].iter().any(|j| raw_lower.starts_with(j));
    if !(joined || changed) || subject.is_empty() {
        return None;
    }
    let state = [
        "marked as ",
        "marked ",
        "showing as ",
        "shown as ",
        "listed as ",
    ]
    .iter()
    .fold(state.as_str(), |st, p| st.strip_prefix(p).unwrap_or(st));
    let does = match (effects::state_word(state)?, negated) {
        (d, false) => d,
        // "so that shouldn't be showing as done": the other state.
        (Does::Check, true) => Does::Uncheck,
        (Does::Uncheck, true) => Does::Check,
        _ => return None,
    };
    Some((does, subject))
}

/// Modals before the text an item should show ("should read 'x'", "should say 'x'").
const TEXT_MODALS: &[&str] = &[
    "should read ",
    "should say ",
    "should now read ",
    "should now say ",
    "should be called ",
    "should be named ",
    "needs to read ",
    "needs to say ",
    "has to read ",
    "has to say ",
    "应该写成",
    "应该叫",
    "应该是",
];

/// The rename in check clause `seg` (as split, `raw`): the words before the modal that
/// name the item ("that one") and the one quoted text it should read — "…, oak not pine,
/// so that one should read 'stain the shelves oak'". Joined as [`order`] asks
/// ("so …", "and …", "… instead", "… now"); `None` for a check on its own or any other
/// shape. The caller renames only when no item is called that already.
pub(super) fn renamed(seg: &str, raw: &str) -> Option<(String, String)> {
    let lower = seg.trim().to_lowercase();
    if LEADS.iter().any(|l| lower.starts_with(l)) {
        return None;
    }
    let (at, len) = TEXT_MODALS
        .iter()
        .filter_map(|m| lower.find(m).map(|i| (i, m.len())))
        .min_by_key(|(i, len)| (*i, usize::MAX - len))?;
    let subject = seg.trim().get(..at)?.trim().to_string();
    let after = seg.trim().get(at + len..)?;
    let quoted = crate::agent::clauses::quoted(after);
    let [text] = quoted.as_slice() else {
        return None;
    };
    let tail = crate::agent::clauses::without_quotes(after).to_lowercase();
    let tail = tail.trim().trim_end_matches(['.', '!', '。', '！']).trim();
    if !["", "instead", "now", "from now on"].contains(&tail) {
        return None;
    }
    let raw_lower = raw.trim_start().to_lowercase();
    let joined = ["so ", "and "].iter().any(|j| raw_lower.starts_with(j))
        || ["所以", "那就", "就"]
            .iter()
            .any(|j| raw_lower.starts_with(j))
        || !tail.is_empty();
    (joined && !subject.is_empty()).then(|| (subject, text.clone()))
}

/// Short words two titles share that tell nothing of a mend.
const COMMON: &[&str] = &[
    "the", "and", "for", "with", "from", "into", "to", "a", "an", "of",
];

/// Whether `new` reads as a mended `old` title: they share a word of meaning ("paint the shed
/// red" → "paint the shed green") or, in Chinese, a character ("修门锁" → "修卧室门锁"). A text
/// that shares none ("Completed", "0 items left") is a label the clause checks, not the
/// item's new name.
pub(super) fn mends(old: &str, new: &str) -> bool {
    let words = |s: &str| -> Vec<String> {
        s.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty() && !w.chars().any(effects::is_cjk))
            .filter(|w| !COMMON.contains(w))
            .map(str::to_string)
            .collect()
    };
    let old_words = words(old);
    words(new).iter().any(|w| old_words.contains(w))
        || new.chars().any(|c| effects::is_cjk(c) && old.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_joined_to_a_change_is_a_rename() {
        assert_eq!(
            renamed(
                "that one should read 'sand the deck twice'",
                "so that one should read 'sand the deck twice'"
            ),
            Some(("that one".into(), "sand the deck twice".into()))
        );
        assert_eq!(
            renamed(
                "the gas entry should say 'pay gas in May' instead",
                "the gas entry should say 'pay gas in May' instead"
            ),
            Some(("the gas entry".into(), "pay gas in May".into()))
        );
        // A check on its own, or led by a check word, stays a check.
        assert_eq!(
            renamed(
                "the first one should read 'x'",
                "the first one should read 'x'"
            ),
            None
        );
        assert_eq!(
            renamed(
                "make sure it should read 'x'",
                "so make sure it should read 'x'"
            ),
            None
        );
        assert_eq!(
            renamed(
                "it should read 'x' and 'y'",
                "so it should read 'x' and 'y'"
            ),
            None
        );
    }

    #[test]
    fn a_state_joined_to_a_reason_or_a_change_is_an_order() {
        assert_eq!(
            order("it should be open again", "so it should be open again"),
            Some((Does::Uncheck, "it".into()))
        );
        assert_eq!(
            order(
                "the rent one should be ticked now",
                "and the rent one should be ticked now"
            ),
            Some((Does::Check, "the rent one".into()))
        );
        assert_eq!(
            order(
                "the fern should be marked as done again",
                "the fern should be marked as done again"
            ),
            Some((Does::Check, "the fern".into()))
        );
    }

    #[test]
    fn a_check_on_its_own_stays_a_check() {
        assert_eq!(
            order("the box should be ticked", "the box should be ticked"),
            None
        );
        assert_eq!(
            order(
                "make sure the rent should be done",
                "so make sure the rent should be done"
            ),
            None
        );
        assert_eq!(
            order("it should be blue again", "so it should be blue again"),
            None
        );
        assert_eq!(order("should be ticked", "and should be ticked"), None);
    }

    #[test]
    fn a_negated_state_joined_to_a_reason_puts_the_other_state() {
        assert_eq!(
            order(
                "that shouldn't be showing as done",
                "so that shouldn't be showing as done"
            ),
            Some((Does::Uncheck, "that".into()))
        );
        assert_eq!(
            order(
                "the gym one should not be open",
                "and the gym one should not be open"
            ),
            Some((Does::Check, "the gym one".into()))
        );
        // "yet" / "anymore" after the state say no other one.
        assert_eq!(
            order(
                "the gym one shouldn't be marked done yet",
                "so the gym one shouldn't be marked done yet"
            ),
            Some((Does::Uncheck, "the gym one".into()))
        );
        assert_eq!(
            order(
                "it shouldn't be open anymore",
                "and it shouldn't be open anymore"
            ),
            Some((Does::Check, "it".into()))
        );
        // A check on its own stays a check.
        assert_eq!(
            order("it shouldn't be ticked", "it shouldn't be ticked"),
            None
        );
    }
}
