//! What an order does to list items ([`Does`]), an order as read ([`Order`]) and the state
//! words that tick or untick: a leaf the clause readers share (`effects`, `clauses`,
//! `order_idioms`), so none of them imports another for it.

/// What an action clause does to the items it quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Does {
    Check,
    Uncheck,
    Delete,
    Add,
    Rename,
}

/// An imperative clause read by its verb: what it does, the English verb as written in the
/// lexicon (`None` for Chinese and for `mark … done` forms) and the words after the verb
/// (its object, quotes kept, in the clause's own case).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Order {
    pub does: Does,
    pub verb: Option<&'static str>,
    pub object: String,
}

/// Words after `mark` / `set` / `leave` (and a setter's state, `effects::state_setter_order`) that say
/// "not done" (checked before [`DONE_WORDS`]: `not done` holds `done`).
pub(super) const UNDONE_WORDS: &[&str] = &[
    "not done",
    "undone",
    "not completed",
    "incomplete",
    "unfinished",
    "active",
    "open",
    "to do",
    "todo",
    "to-do",
    "pending",
    "unticked",
    "unchecked",
    "not finished",
];
/// Words after `mark` / `set` that say "done".
pub(super) const DONE_WORDS: &[&str] = &[
    "done",
    "complete",
    "completed",
    "finished",
    "ticked",
    "checked",
];
/// The order a state word sets: an [`UNDONE_WORDS`] one unticks, a [`DONE_WORDS`] one ticks
/// (whole words only: "not done" is undone, "done" is done).
pub(super) fn state_word(state: &str) -> Option<Does> {
    if UNDONE_WORDS.contains(&state) {
        Some(Does::Uncheck)
    } else if DONE_WORDS.contains(&state) {
        Some(Does::Check)
    } else {
        None
    }
}
