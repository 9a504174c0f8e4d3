//! English orders said as idioms rather than by a verb of the lexicon ([`super::effects`]):
//! "it can go in as completed", "fix the wording", "make that item say 80 instead of 60".

use super::order_kind::{state_word, Does, Order};

/// "it can go in as completed", "that one should be added as done": the item just spoken
/// of (just added, most often) in the state named at the end — a pronoun, a modal, a verb
/// of entering it, "as" and a state word ([`state_word`]).
pub(super) fn goes_in_as(lower: &str) -> Option<Order> {
    let l = lower.trim().trim_end_matches(['.', '!', ' ']);
    let (head, state) = l.rsplit_once(" as ")?;
    let state = state.trim_start_matches("already ");
    let rest = ["that one ", "this one ", "it ", "that ", "this "]
        .iter()
        .find_map(|p| head.strip_prefix(p))?;
    let verb = [
        "can ",
        "should ",
        "could ",
        "may ",
        "will ",
        "must ",
        "needs to ",
        "has to ",
    ]
    .iter()
    .find_map(|m| rest.strip_prefix(m))?
    .trim();
    let enters = [
        "go",
        "go in",
        "go on",
        "go on the list",
        "go onto the list",
        "go in the list",
        "be added",
        "be put in",
        "be entered",
        "be listed",
        "start",
        "start out",
    ]
    .contains(&verb);
    let does = state_word(state)?;
    enters.then(|| Order {
        does,
        verb: None,
        object: " it".to_string(),
    })
}

/// "fix the wording", "correct the name", "fix the typo in it": a rename whose new title a
/// swap gives (in the clause or the one before: [`super::clause_plan`]'s substitution).
pub(super) fn fix_wording(lower: &str, raw: &str) -> Option<Order> {
    let verb = ["fix ", "correct ", "sort out "]
        .iter()
        .find(|v| lower.starts_with(**v))?;
    let object = lower[verb.len()..].trim();
    let names_title = ["wording", "name", "title", "spelling", "typo", "text"]
        .iter()
        .any(|w| {
            object
                .split(|c: char| !c.is_alphanumeric())
                .any(|x| x == *w)
        });
    names_title.then(|| Order {
        does: Does::Rename,
        verb: None,
        object: raw.get(verb.len()..).unwrap_or("").to_string(),
    })
}

/// "swap the name in that one so it reads 'ask Lucy'", "tweak the gas one so it says 'X'":
/// a verb of mending, its object, and "so it reads" / "so it says" before one quoted text
/// that ends the clause: a rename of that object to the text.
pub(super) fn so_it_reads(lower: &str, raw: &str) -> Option<Order> {
    let verb = [
        "swap ",
        "fix ",
        "tweak ",
        "adjust ",
        "rewrite ",
        "redo ",
        "rework ",
        "sort out ",
    ]
    .iter()
    .find(|v| lower.starts_with(**v))?;
    let (at, len) = [
        " so it reads ",
        " so it says ",
        " so that it reads ",
        " so that it says ",
    ]
    .iter()
    .find_map(|w| lower.find(w).map(|i| (i, w.len())))?;
    let after = raw
        .get(at + len..)?
        .trim()
        .trim_end_matches(['.', '!', ';']);
    let quoted = super::clauses::quoted(after);
    let whole = after.starts_with(['"', '\'', '“', '‘', '「'])
        && super::clauses::without_quotes(after).trim().is_empty();
    // "the name in that one", "the wording of it": the item is what follows.
    let object = raw.get(verb.len()..at)?.trim();
    let object = [
        "the name in ",
        "the name of ",
        "the wording in ",
        "the wording of ",
    ]
    .iter()
    .find_map(|p| {
        object
            .get(..p.len())
            .filter(|h| h.eq_ignore_ascii_case(p))
            .and_then(|_| object.get(p.len()..))
    })
    .unwrap_or(object);
    (quoted.len() == 1 && whole && !object.is_empty()).then(|| Order {
        does: Does::Rename,
        verb: None,
        object: format!("{object} to {after}"),
    })
}

/// "turn that item into 'marinate the tofu'", "turn the lamb one into 'X'": a rename to the
/// one quoted text after "into".
pub(super) fn turn_into(lower: &str, raw: &str) -> Option<Order> {
    let rest = lower.strip_prefix("turn ")?;
    let at = rest.find(" into ")?;
    let after = raw.get("turn ".len() + at + " into ".len()..)?.trim();
    let quoted = super::clauses::quoted(after);
    let starts_quoted = after.starts_with(['"', '\'', '“', '‘', '「']);
    (quoted.len() == 1 && starts_quoted).then(|| Order {
        does: Does::Rename,
        verb: None,
        object: raw.get("turn ".len()..).unwrap_or("").to_string(),
    })
}

/// "make that item say 80 instead of 60", "have it read 'live' rather than 'test'": a
/// rename by a swap, unquoted.
pub(super) fn make_say(lower: &str, raw: &str) -> Option<Order> {
    if !["make ", "have "].iter().any(|v| lower.starts_with(v)) {
        return None;
    }
    let (subject_at, at) = [" say ", " read "]
        .iter()
        .find_map(|w| lower.find(w).map(|i| (i, i + w.len())))?;
    // The one made to say it is an entry: a pronoun, or words ending in a noun of one
    // ("that item", "the flyer one"); "have the kids read a book instead of TV" is not.
    let subject = lower[..subject_at].split_once(' ').map_or("", |(_, s)| s);
    let entry = ["it", "that", "this"].contains(&subject)
        || ["one", "item", "entry", "line", "task", "todo", "title"]
            .iter()
            .any(|n| subject.split_whitespace().next_back() == Some(*n));
    if !entry {
        return None;
    }
    let swap = [" instead of ", " rather than ", ", not "]
        .iter()
        .any(|w| lower[at..].contains(w));
    swap.then(|| Order {
        does: Does::Rename,
        verb: None,
        object: raw.get(at..).unwrap_or("").to_string(),
    })
}

/// Where an item that is no longer the speaker's to do goes ("so it's off my plate").
const OFF: &[&str] = &[
    "off my plate",
    "off my list",
    "off my hands",
    "off the list",
    "no longer mine",
    "not mine any more",
    "not mine anymore",
];

/// "so it's off my plate entirely", "that one is off the list now": the item just spoken of
/// is deleted — a pronoun, a copula, then an [`OFF`] place and nothing but a few adverbs.
pub(super) fn off_my_plate(lower: &str) -> Option<Order> {
    let l = lower
        .trim()
        .trim_end_matches(['.', '!', ' '])
        .replace('’', "'");
    let rest = [
        "that one is ",
        "this one is ",
        "it's ",
        "it is ",
        "that's ",
        "that is ",
        "this is ",
    ]
    .iter()
    .find_map(|p| l.strip_prefix(p))?;
    let place = OFF.iter().find(|o| rest.starts_with(**o))?;
    let tail = rest[place.len()..].trim();
    let adverbs = [
        "",
        "entirely",
        "completely",
        "now",
        "altogether",
        "for good",
        "too",
        "as well",
    ];
    adverbs.contains(&tail).then(|| Order {
        does: Does::Delete,
        verb: None,
        object: " it".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idioms_read_as_orders() {
        let o = goes_in_as("it can go in as completed").unwrap();
        assert_eq!((o.does, o.object.as_str()), (Does::Check, " it"));
        assert_eq!(
            goes_in_as("that one should be added as open").unwrap().does,
            Does::Uncheck
        );
        assert!(goes_in_as("it can go as planned").is_none());
        assert!(goes_in_as("it came in as a surprise").is_none());
        assert_eq!(
            fix_wording("fix the wording", "fix the wording")
                .unwrap()
                .does,
            Does::Rename
        );
        assert!(fix_wording("fix the bike", "fix the bike").is_none());
        let o = make_say("make it say 9 instead of 7", "make it say 9 instead of 7").unwrap();
        assert_eq!(o.object, "9 instead of 7");
        assert!(make_say("make it say hello", "make it say hello").is_none());
        let t = "turn that one into 'grill the tofu'";
        assert_eq!(turn_into(t, t).unwrap().does, Does::Rename);
        let t = "turn the oven on";
        assert!(turn_into(t, t).is_none());
        let o = make_say(
            "make the flyer one say 9 instead of 7",
            "make the flyer one say 9 instead of 7",
        );
        assert_eq!(o.unwrap().object, "9 instead of 7");
        let kids = "have the kids read a book instead of tv";
        assert!(make_say(kids, kids).is_none(), "no entry made to say it");
        assert_eq!(
            off_my_plate("it's off my plate entirely").unwrap().does,
            Does::Delete
        );
        assert!(off_my_plate("it's off my plate but check it").is_none());
        assert!(
            off_my_plate("the printer is off the list").is_none(),
            "only a pronoun"
        );
    }
}
