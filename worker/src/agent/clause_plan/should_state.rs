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
    "should now be ",
    "should be back to ",
    "needs to be ",
    "need to be ",
    "has to be ",
    "must be ",
];
/// Words that may follow the state ("open again", "ticked now").
const TAILS: &[&str] = &["again", "now", "too", "as well", "instead"];
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
    let (at, modal) = MODALS
        .iter()
        .filter_map(|m| lower.find(m).map(|i| (i, m.len())))
        .min()?;
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
    let state = state.strip_prefix("marked as ").unwrap_or(&state);
    let state = state.strip_prefix("marked ").unwrap_or(state);
    let does = effects::state_word(state)?;
    Some((does, subject))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
