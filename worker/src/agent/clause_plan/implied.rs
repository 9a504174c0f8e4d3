//! A description that says an item's own action is done ("the defence room is booked" of
//! `book a room for the defence`, "I've paid the gas bill" of `pay the gas bill`): an order
//! to tick it; said negated ("the van isn't booked yet"), to untick it.
//!
//! It reads only where it is plain: the item's first word (its verb) said as a past form
//! right after a form of *be* / *get* / *have* ("is booked", "got paid", "has been sent") or
//! after *I* / *we* ("I booked …", "we've paid …"), and at least one more word of the item
//! in the clause, naming one item only. "Dr. Patel sent chapter 2 back" (someone else did
//! something to it) reads nothing.
//!
//! Why: on a blind paraphrase round (held_out_14 at 7713a26) "The defence room is booked, I
//! did that this morning" was dropped as a description, the item stayed open, and the run's
//! one check (of another item) passed it: a false pass.

use super::{same_word, words};

/// Words after which a past form says the state ("is booked", "got paid", "has been sent").
const LINKS: &[&str] = &[
    "is", "was", "are", "were", "got", "been", "s", "has", "have", "ve",
];
/// Subjects whose past tense says the speaker did it ("I booked", "we've paid").
const SPEAKERS: &[&str] = &["i", "we"];
/// Adverbs that may stand between the link and the past form.
const ADVERBS: &[&str] = &[
    "already", "just", "finally", "now", "all", "also", "been", "not",
];
/// Negations that make the state "not done".
const NOT: &[&str] = &[
    "not", "isn't", "wasn't", "aren't", "haven't", "hasn't", "didn't", "never",
];

/// Phrases of an instruction that hold a tick back ("rather than ticking it, …"): with one,
/// no state is read from a description (the instruction says itself what to tick).
const HELD_BACK: &[&str] = &[
    "rather than tick",
    "instead of tick",
    "don't tick",
    "do not tick",
    "without tick",
    "not tick",
    "rather than check",
    "instead of check",
    "don't check",
    "rather than mark",
    "instead of mark",
    "don't mark",
];

/// Whether `instruction` holds a tick back ([`HELD_BACK`]).
pub(super) fn held_back(instruction: &str) -> bool {
    let lower = instruction.to_lowercase().replace('’', "'");
    HELD_BACK.iter().any(|h| lower.contains(h))
}

/// The item of `items` that `clause` says is done (`true`) or not done (`false`), if it
/// says so plainly (see the module docs).
pub(super) fn state(clause: &str, items: &[(String, bool)]) -> Option<(String, bool)> {
    if clause.chars().any(super::super::cjk::is_cjk) {
        return state_zh(clause, items);
    }
    let lower = clause.to_lowercase().replace('’', "'");
    // A hyphenated verb stays one token ("is puppy-proofed" of "puppy-proof the kitchen").
    let toks: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .flat_map(|w| w.split('\''))
        .map(|w| w.trim_matches('-'))
        .filter(|w| !w.is_empty())
        .collect();
    let negated = says_not(&lower);
    let said = words(clause);
    let mut found: Option<(String, bool)> = None;
    for (i, tok) in toks.iter().enumerate() {
        // "puppy-proofed": the last part takes the ending, the parts before stay as said.
        let (head, last) = match tok.rsplit_once('-') {
            Some((h, l)) => (Some(h), l),
            None => (None, *tok),
        };
        let Some(base) = base_of(last) else { continue };
        let base = match head {
            Some(h) => format!("{h}-{base}"),
            None => base,
        };
        let mut j = i;
        while j > 0 && ADVERBS.contains(&toks[j - 1]) && !LINKS.contains(&toks[j - 1]) {
            j -= 1;
        }
        let led = j > 0 && (LINKS.contains(&toks[j - 1]) || SPEAKERS.contains(&toks[j - 1]))
            || j > 1 && toks[j - 1] == "ve" && SPEAKERS.contains(&toks[j - 2])
            // "Picked the parcel up at lunch": the speaker, left unsaid.
            || j == 0 && !attributive(&toks[i + 1..])
            || (j > 0 && named(clause, toks[j - 1]));
        if !led || unsure(&lower, &toks[..i], negated) {
            continue;
        }
        let hits: Vec<&String> = items
            .iter()
            .filter(|(name, _)| {
                let Some(verb) = name.split_whitespace().next() else {
                    return false;
                };
                // "Dr. Patel sent chapter 2 back" of "send chapter 2 to Dr. Patel": the one
                // named in the item did it to the speaker, not the item's action done.
                if j > 0 && named(clause, toks[j - 1]) && name.to_lowercase().contains(toks[j - 1])
                {
                    return false;
                }
                let verb = verb.to_lowercase();
                // "baked" → "bak": the verb's silent e ("bake") comes back.
                (same_word(&base, &verb) || same_word(&format!("{base}e"), &verb))
                    && words(name)
                        .iter()
                        .skip(1)
                        .any(|r| said.iter().any(|s| same_word(r, s)))
            })
            .map(|(name, _)| name)
            .collect();
        if let [one] = hits.as_slice() {
            if found.as_ref().is_some_and(|(f, _)| f != *one) {
                return None;
            }
            found = Some(((*one).clone(), !negated));
        }
    }
    found
}

/// Whether an English clause (`lower`: lower case, straight apostrophes) holds a negation
/// ([`NOT`], or any "…n't").
fn says_not(lower: &str) -> bool {
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| NOT.contains(&w) || w.ends_with("n't"))
}

/// Whether clause `seg` is a note's topic: a few words the instruction follows with a colon
/// ("Shelf: Ana hung it on Monday").
pub(super) fn is_topic(seg: &str, instruction: &str) -> bool {
    let seg = seg.trim();
    !seg.is_empty()
        && seg.split_whitespace().count() <= 4
        && (instruction.contains(&format!("{seg}:")) || instruction.contains(&format!("{seg}：")))
}

/// What a note says of its topic's item: "Stamps: got them" (a bare done phrase of
/// [`NOTED_DONE`]) or "Shelf: Ana hung it" (the item's own verb done, read as
/// [`state`] reads the topic and the clause together); the topic must name one item.
pub(super) fn noted(topic: &str, clause: &str, items: &[(String, bool)]) -> Option<(String, bool)> {
    let item = super::item_match::by_words(topic, items, Some(1))
        .and_then(|mut v| v.pop())
        .or_else(|| super::item_match::by_chars(topic, items))?;
    // "The jars aren't labelled yet, done?": a negated topic gives no state.
    let lower = topic.to_lowercase().replace('’', "'");
    if says_not(&lower) || NOT_ZH.iter().any(|w| topic.contains(w)) {
        return None;
    }
    if bare_done(clause) {
        return Some((item, true));
    }
    state(&format!("{topic} {clause}"), items).filter(|(found, _)| *found == item)
}

/// Whether `clause` is nothing but a [`NOTED_DONE`] phrase, said of the thing just named or
/// not ("that's bought", "that one's sorted"): said after a clause that names one item
/// ("The jars are on the shelf, done"), it gives that item as done.
pub(super) fn bare_done(clause: &str) -> bool {
    let bare = clause
        .trim()
        .trim_end_matches(['.', '!'])
        .to_lowercase()
        .replace('’', "'");
    let bare = [
        "that's ",
        "that is ",
        "that one's ",
        "that one is ",
        "it's ",
        "it is ",
        "this one's ",
    ]
    .iter()
    .find_map(|p| bare.strip_prefix(p))
    .unwrap_or(&bare);
    NOTED_DONE.contains(&bare)
}

/// Bare phrases a note gives its topic's item as done.
const NOTED_DONE: &[&str] = &[
    "got them",
    "got it",
    "got that",
    "done",
    "all done",
    "sorted",
    "handled",
    "got them all",
    "bought",
    "paid",
    "booked",
    "sent",
    "sorted it",
    "done it",
    "done that",
];

/// Words that leave a past form undone or unsure ("Almost fixed the tap", "Maybe Rob
/// fitted it"): the sentence-initial capital of such a word is no person's name either.
const HEDGES: &[&str] = &[
    "almost",
    "nearly",
    "half",
    "partly",
    "partially",
    "barely",
    "hardly",
    "maybe",
    "perhaps",
    "probably",
    "possibly",
    "hopefully",
    "supposedly",
    "if",
    "whether",
];

/// Whether a past form after the words `before` (lower-case tokens) is no plain report of a
/// done action: a hedge ([`HEDGES`]) before it, or a question — a clause asking with "?" or
/// led by an auxiliary before its subject ("Has Ana hung the shelf"), or asking "yet"
/// unnegated (its "?" may be gone from the clause: "Booked the hall yet?"; "hasn't been
/// renewed yet" still says undone).
fn unsure(lower: &str, before: &[&str], negated: bool) -> bool {
    let aux = ["has", "have", "had", "did", "is", "was", "were", "are"];
    before.iter().any(|w| HEDGES.contains(w))
        || lower.trim_end().ends_with('?')
        || !negated
            && lower
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w == "yet")
        || before.len() >= 2
            && aux.contains(&before[0])
            && !ADVERBS.contains(&before[1])
            && !LINKS.contains(&before[1])
}

/// Whether a sentence-initial past form is an adjective of the noun after it, not a verb
/// with the speaker unsaid: the clause goes on to a verb of its own ("Printed tickets are
/// needed at the door", "Signed copies will be sold"). `after`: the tokens after it.
fn attributive(after: &[&str]) -> bool {
    // "Fixed the tap that was leaking": an article after it, the past form is the verb.
    let det = [
        "the", "a", "an", "my", "our", "his", "her", "their", "its", "it", "them", "that", "this",
        "those", "these", "all", "both",
    ];
    if after.first().is_some_and(|w| det.contains(w)) {
        return false;
    }
    let verbs = [
        "is", "are", "was", "were", "will", "must", "need", "needs", "needed", "cost", "costs",
    ];
    after.iter().any(|w| verbs.contains(w))
}

/// Whether `tok` (lower case) stands in `clause` as a person's name: written with a capital
/// and no pronoun or article ("Ana hung it on Monday").
fn named(clause: &str, tok: &str) -> bool {
    ![
        "i", "we", "he", "she", "they", "it", "the", "this", "that", "you",
    ]
    .contains(&tok)
        && !HEDGES.contains(&tok)
        && clause
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w.to_lowercase() == tok && w.chars().next().is_some_and(char::is_uppercase))
}

/// Chinese markers of a finished action right after its verb ("签了", "订上了", "交过了").
const DONE_ZH: &[&str] = &[
    "了",
    "好了",
    "完了",
    "过了",
    "上了",
    "掉了",
    "好",
    "完",
    "过",
    // A direction or result after the verb: "铅笔买回来了", "准考证打出来了", "签证办下来了".
    "回来了",
    "出来了",
    "下来了",
    "到了",
    "齐了",
];
/// Chinese words that make such a clause no report of the item's own action done.
const NOT_ZH: &[&str] = &[
    "没",
    "未",
    "不",
    "别",
    "被",
    "要",
    "得",
    "想",
    "打算",
    "准备",
    // "报告写了一半", "差不多写完了": part done, or nearly, is not done.
    "一半",
    "一部分",
    "大半",
    "差不多",
    "快要",
    "还差",
    "还剩",
    // "牛奶买回来了吗": asked, not said.
    "吗",
];

/// The Chinese form of [`state`]: the item's first character (its verb: 签 of 签租房合同, 订
/// of 订酒店) followed by a [`DONE_ZH`] marker ("合同今天签了", "酒店已经按协议价订上了"), and
/// two more characters of the item in the clause, naming one item only; never with a
/// [`NOT_ZH`] word in the clause ("还没签", "被退回来了", "要签了").
fn state_zh(clause: &str, items: &[(String, bool)]) -> Option<(String, bool)> {
    if NOT_ZH.iter().any(|w| clause.contains(w)) {
        return None;
    }
    let hits: Vec<&String> = items
        .iter()
        .map(|(name, _)| name)
        .filter(|name| {
            let mut chars = name.chars();
            let Some(verb) = chars.next() else {
                return false;
            };
            let rest: Vec<char> = chars.filter(|c| super::super::cjk::is_cjk(*c)).collect();
            let shared = rest
                .iter()
                .filter(|c| **c != verb && clause.contains(**c))
                .count();
            let done = clause.match_indices(verb).any(|(i, v)| {
                let after = &clause[i + v.len()..];
                // "论文写到了第三章", "看完第一集": how far it has got, not done.
                DONE_ZH
                    .iter()
                    .any(|d| after.starts_with(d) && !after[d.len()..].starts_with('第'))
            });
            super::super::cjk::is_cjk(verb) && done && shared >= 2
        })
        .collect();
    match hits.as_slice() {
        [one] => Some(((*one).clone(), true)),
        _ => None,
    }
}

/// Whether `clause` tells of a change ("the shoes came yesterday", "Legal vetoed the photo",
/// "押金退回来了"): an English past form ([`base_of`]: `-ed` or irregular) or state word,
/// or a Chinese 了 / 过 / 好 / 完.
pub(super) fn tells_a_change(clause: &str) -> bool {
    if clause.chars().any(super::super::cjk::is_cjk) {
        return ["了", "过", "好", "完"].iter().any(|w| clause.contains(w));
    }
    let lower = clause.to_lowercase().replace('’', "'");
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| {
            base_of(w).is_some()
                || [
                    "came", "went", "arrived", "done", "finished", "ready", "over",
                ]
                .contains(&w)
        })
}

/// The base verb of a past form (`booked` → `book`, `patched` → `patch`, `paid` → `pay`).
fn base_of(tok: &str) -> Option<String> {
    if let Some((_, b)) = super::stems::IRREGULAR.iter().find(|(p, _)| *p == tok) {
        return Some((*b).to_string());
    }
    let stem = tok.strip_suffix("ed").filter(|s| s.len() >= 2)?;
    let b = stem.as_bytes();
    // "stopped" → "stop"; "filed" → "file" is matched by the prefix rule of `same_word`.
    if b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2] && !matches!(b[b.len() - 1], b's' | b'l') {
        return Some(stem[..stem.len() - 1].to_string());
    }
    if let Some(s) = stem.strip_suffix('i') {
        // "emptied" → "empty".
        return Some(format!("{s}y"));
    }
    Some(stem.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items() -> Vec<(String, bool)> {
        [
            ("book a room for the defence", false),
            ("send chapter 2 to Dr. Patel", true),
            ("pay the gas bill", false),
            ("renew the library card", false),
        ]
        .iter()
        .map(|(n, d)| (n.to_string(), *d))
        .collect()
    }

    #[test]
    fn a_past_form_of_the_items_verb_says_its_state() {
        assert_eq!(
            state("The defence room is booked", &items()),
            Some(("book a room for the defence".into(), true))
        );
        assert_eq!(
            state("I've paid the gas bill online", &items()),
            Some(("pay the gas bill".into(), true))
        );
        assert_eq!(
            state("the library card hasn't been renewed yet", &items()),
            Some(("renew the library card".into(), false))
        );
    }

    #[test]
    fn a_chinese_report_of_the_items_own_verb_done() {
        let zh: Vec<(String, bool)> = [("签租房合同", false), ("订酒店", false), ("交押金", false)]
            .iter()
            .map(|(n, d)| (n.to_string(), *d))
            .collect();
        assert_eq!(
            state("合同今天签了", &zh),
            Some(("签租房合同".into(), true))
        );
        assert_eq!(
            state("酒店已经按公司协议价订上了", &zh),
            Some(("订酒店".into(), true))
        );
        assert_eq!(state("合同还没签", &zh), None);
        assert_eq!(state("押金也转过去了", &zh), None);
        assert_eq!(state("酒店要订了", &zh), None);
        // Part done, or nearly, is not done.
        assert_eq!(state("租房合同签了一半", &zh), None);
        assert_eq!(state("租房合同差不多签好了", &zh), None);
    }

    #[test]
    fn someone_else_acting_or_no_other_word_reads_nothing() {
        assert_eq!(state("Dr. Patel sent chapter 2 back", &items()), None);
        assert_eq!(state("The hotel is booked", &items()), None);
        assert_eq!(state("I did that this morning", &items()), None);
        assert!(held_back(
            "It's renewed, but rather than ticking it, reword it."
        ));
    }
}
