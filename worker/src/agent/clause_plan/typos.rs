//! Typing slips in the words the reader keys on: "drop it from the list entirley" reads as
//! "completely". A word of seven letters or more that is no word of [`KNOWN`], stands
//! outside quotes and in no item's title, and is one edit inside the word (a letter left
//! out, added or changed, or two letters swapped; its first and last letters kept — an edit
//! at the end makes real words: "changes", "ticket") from exactly one [`KNOWN`] word is read
//! as that word.
//!
//! Why: people type instructions fast; one slipped letter in an adverb made a whole clause
//! unread, and the plan went to the model.

use crate::agent::clauses;

/// Words the reader's orders, states and checks are made of, seven letters or more: shorter
/// words are too close to other words for one edit to tell them apart (and "through" is
/// left out: "though" is one edit from it).
const KNOWN: &[&str] = &[
    "completely",
    "entirely",
    "altogether",
    "complete",
    "completed",
    "finished",
    "deleted",
    "removed",
    "renamed",
    "unticked",
    "unchecked",
    "instead",
    "already",
    "everything",
    "remaining",
    "anymore",
    "actually",
    "cancelled",
    "anything",
    "something",
    "because",
    "without",
    "showing",
    "entries",
];

/// Real words one edit inside a [`KNOWN`] word: no slip, left as typed ("it's snowing" is no
/// "showing", "they compete" no "complete", "the retaining wall" no "remaining" — which
/// would read as "the rest of the items").
const REAL: &[&str] = &[
    "compete",
    "competed",
    "depleted",
    "delated",
    "untucked",
    "unpicked",
    "retaining",
    "regaining",
    "snowing",
    "slowing",
    "stowing",
    "shewing",
    "shoeing",
    "shoving",
    "shooing",
    "entrees",
];

/// `instruction` with each slipped word read as the [`KNOWN`] word it is one edit from
/// (see the module docs); `items` are the list's titles, whose words are never changed.
pub(super) fn mend(instruction: &str, items: &[(String, bool)]) -> String {
    let spans = clauses::quoted_spans(instruction);
    let titled: Vec<String> = items
        .iter()
        .flat_map(|(n, _)| {
            n.split(|c: char| !c.is_alphanumeric())
                .map(str::to_lowercase)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut out = String::with_capacity(instruction.len());
    let mut last = 0;
    for (at, word) in word_spans(instruction) {
        if spans.iter().any(|(a, b)| at >= *a && at < *b) {
            continue;
        }
        let lower = word.to_lowercase();
        if lower.chars().count() < 7
            || KNOWN.contains(&lower.as_str())
            || REAL.contains(&lower.as_str())
            || titled.contains(&lower)
        {
            continue;
        }
        let near: Vec<&&str> = KNOWN
            .iter()
            .filter(|k| inside(&lower, k) && one_edit(&lower, k))
            .collect();
        if let [k] = near.as_slice() {
            out.push_str(&instruction[last..at]);
            out.push_str(k);
            last = at + word.len();
        }
    }
    out.push_str(&instruction[last..]);
    out
}

/// Whether `a` and `b` share their first and their last letter.
fn inside(a: &str, b: &str) -> bool {
    a.as_bytes().first() == b.as_bytes().first() && a.as_bytes().last() == b.as_bytes().last()
}

/// Latin words of `s` (letters and apostrophes) and where each starts (bytes).
fn word_spans(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices().chain([(s.len(), ' ')]) {
        let part = c.is_ascii_alphabetic() || (c == '\'' && start.is_some());
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(b)) => {
                out.push((b, s[b..i].trim_end_matches('\'')));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Whether `a` and `b` (ASCII) differ by one edit: a letter left out, added or changed, or
/// two neighbouring letters swapped.
fn one_edit(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a == b {
        return false;
    }
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[pre..], &b[pre..]);
    match a.len() as isize - b.len() as isize {
        0 => {
            ra[1..] == rb[1..]
                || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
        1 => ra[1..] == *rb,
        -1 => *ra == rb[1..],
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_slipped_letter_reads_as_the_known_word() {
        let items = vec![("water the ferns".to_string(), false)];
        assert_eq!(
            mend("Drop it from the list compleatly.", &items),
            "Drop it from the list compleatly."
        );
        assert_eq!(
            mend("The ferns are done, take it off the list entirley", &items),
            "The ferns are done, take it off the list entirely"
        );
        assert_eq!(mend("pls delte the ferns", &items), "pls delte the ferns");
        assert_eq!(mend("it's unticekd now", &items), "it's unticked now");
        // One edit at the end makes another real word: left as it is.
        assert_eq!(mend("a couple of changes", &items), "a couple of changes");
        assert_eq!(mend("finisher", &items), "finisher");
        // Quoted text and the items' own words are never changed.
        assert_eq!(mend("add 'entirley new'", &items), "add 'entirley new'");
        let items = vec![("buy a ramoved key".to_string(), false)];
        assert_eq!(
            mend("it's remvoed, ramoved", &items),
            "it's removed, ramoved"
        );
    }

    #[test]
    fn real_words_near_a_known_word_are_no_slips() {
        let items = vec![("build the garden wall".to_string(), false)];
        // Each would be read as a known word but for the list of real words.
        for w in REAL {
            assert!(KNOWN.iter().any(|k| inside(w, k) && one_edit(w, k)), "{w}");
        }
        assert_eq!(
            mend("The retaining wall went up, and it was snowing", &items),
            "The retaining wall went up, and it was snowing"
        );
        assert_eq!(
            mend("the twins compete on Sunday", &items),
            "the twins compete on Sunday"
        );
        // A slip still mends beside them.
        assert_eq!(
            mend("snowing, delete it entirley", &items),
            "snowing, delete it entirely"
        );
    }

    #[test]
    fn one_edit_is_one_letter_or_one_swap() {
        assert!(one_edit("comlpetely", "completely"));
        assert!(!one_edit("complely", "completely"));
        assert!(one_edit("delet", "delete"));
        assert!(one_edit("deletes", "delete"));
        assert!(!one_edit("delete", "delete"));
    }
}
