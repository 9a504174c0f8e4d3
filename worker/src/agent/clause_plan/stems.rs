//! Words of meaning: English stems and Chinese character pairs ([`words`]), whether two
//! are one word ([`same_word`]), and the words that make an object all of them.

use crate::agent::effects;

/// Words that carry no item's meaning (pronouns, articles, list words; with them the state
/// words of [`effects::DONE_WORDS`]).
const STOP: &[&str] = &[
    "completely",
    "entirely",
    "altogether",
    "fully",
    "anymore",
    // "tick it anyway": said of the order, not of an item.
    "anyway",
    "anyhow",
    "regardless",
    "thanks",
    "ok",
    "okay",
    "a",
    "an",
    "the",
    "to",
    "of",
    "in",
    "on",
    "at",
    "for",
    "and",
    "or",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "has",
    "have",
    "had",
    "it",
    "its",
    "that",
    "this",
    "one",
    "ones",
    "so",
    "then",
    "my",
    "me",
    "i",
    "you",
    "your",
    "please",
    "can",
    "could",
    "would",
    "will",
    "with",
    "as",
    "by",
    "up",
    "off",
    "out",
    "from",
    "list",
    "item",
    "items",
    "todo",
    "todos",
    "entry",
    "entries",
    "task",
    "tasks",
    "thing",
    "already",
    "just",
    "now",
    "also",
    "them",
    "these",
    "those",
    "there",
    "both",
    "two",
    "too",
    "again",
    "new",
    "instead",
    "which",
    "what",
    "all",
    "read",
    "reads",
    "say",
    "says",
    "not",
    "really",
    "still",
    "yet",
    "back",
    "open",
    "undone",
    "incomplete",
    "unfinished",
    "active",
    "unticked",
    "unchecked",
    "either",
    // Prepositions and the speaker's "mine" ("he was fine about it", "remove it from mine").
    "about",
    "into",
    "onto",
    "near",
    "mine",
    "they",
    "he",
    "she",
    "we",
    "us",
    // Possessives stand for a person named before ("change his one to …", "change hers to
    // …"), no word of a title.
    "his",
    "her",
    "their",
    "our",
    "hers",
    "theirs",
    "ours",
];

/// Words that make an object "all of them".
pub(super) const ALL_WORDS: &[&str] = &[
    "all",
    "every",
    "everything",
    "each",
    "whatever",
    "全部",
    "所有",
];

/// Chinese words that speak of every item ("这几条全都打上勾", "每一条都勾上"), when nothing
/// else in the object names anything ([`says_every_zh`]).
const EVERY_ZH: &[&str] = &[
    "全都",
    "每一条",
    "每条",
    "每一项",
    "每项",
    "这几条都",
    "这些都",
    "统统",
];
/// Characters that name nothing: who is asked, demonstratives, measure words, particles.
const EMPTY_ZH: &str = "你我先再就把都全给帮请这那几条些项个的一下吧了啊呢";

/// Whether `object` (an order's object) is an [`EVERY_ZH`] word and nothing else but
/// [`EMPTY_ZH`] characters: "你先把这几条全都" speaks of every item, "把零食全都" of one.
pub(super) fn says_every_zh(object: &str) -> bool {
    EVERY_ZH.iter().any(|w| {
        object.contains(w)
            && object
                .replacen(w, "", 1)
                .chars()
                .filter(|c| crate::agent::effects::is_cjk(*c) || c.is_alphanumeric())
                .all(|c| EMPTY_ZH.contains(c))
    })
}

/// Whether the lower-case word `w` is one of [`STOP`].
pub(super) fn is_stop(w: &str) -> bool {
    STOP.contains(&w)
}

/// Meaning-bearing words of `text`: English stems not in [`STOP`], and Chinese character
/// pairs.
pub(in crate::agent) fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    // "remove that one as well": the phrase adds nothing, "well" alone may (a well to dig).
    let lower = format!(" {} ", text.to_lowercase().replace('’', "'")).replace(" as well ", " ");
    for w in lower.split(|c: char| !(c.is_alphanumeric() || c == '\'') || effects::is_cjk(c)) {
        let w = w.trim_matches('\'');
        let w = w.strip_suffix("'s").unwrap_or(w);
        if w.is_empty() || STOP.contains(&w) || effects::DONE_WORDS.contains(&w) {
            continue;
        }
        out.push(stem(w));
    }
    let cjk: Vec<char> = text.chars().collect();
    for pair in cjk.windows(2) {
        if pair.iter().all(|c| effects::is_cjk(*c)) {
            out.push(pair.iter().collect());
        }
    }
    out
}

/// Whether two stems are one word: equal, or one a prefix of the other by at most two
/// letters, both of five or more ("cancell" of "cancelling" and "cancel"), or both sharing
/// six or more first letters and differing after them by at most three letters in all, two
/// on a side ("registr" of "registration" and "register", "batteri" and "battery"; "contract"
/// and "contrast" differ by four), or one with a derivational ending off ([`root`]) the other.
pub(in crate::agent) fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.chars().count() >= 5 && long.starts_with(short) && long.len() - short.len() <= 2 {
        return true;
    }
    let shared = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let (ta, tb) = (a.chars().count() - shared, b.chars().count() - shared);
    (shared >= 6 && ta <= 2 && tb <= 2 && ta + tb <= 3)
        || ((root(a).is_some() || root(b).is_some())
            && root(a).unwrap_or(a) == root(b).unwrap_or(b))
}

/// A stem less one derivational ending, when five or more letters stay: "insur" of
/// "insurer" and "insurance", "collect" of "collection", "visit" of "visitor" (the one who
/// does it and the thing done are one word of meaning). `None` when no ending comes off.
fn root(stem: &str) -> Option<&str> {
    ["anc", "enc", "ion", "er", "or"]
        .iter()
        .find_map(|e| stem.strip_suffix(e))
        .filter(|r| r.chars().count() >= 5)
}

/// Irregular past forms and their base verbs ("told my boss" names "tell the boss").
pub(super) const IRREGULAR: &[(&str, &str)] = &[
    ("sent", "send"),
    ("paid", "pay"),
    ("bought", "buy"),
    ("done", "do"),
    ("made", "make"),
    ("written", "write"),
    ("wrote", "write"),
    ("taken", "take"),
    ("took", "take"),
    ("given", "give"),
    ("gave", "give"),
    ("brought", "bring"),
    ("found", "find"),
    ("sold", "sell"),
    ("fed", "feed"),
    ("hung", "hang"),
    ("built", "build"),
    ("rung", "ring"),
    ("rang", "ring"),
    ("got", "get"),
    ("picked", "pick"),
    ("told", "tell"),
    ("spoke", "speak"),
    ("spoken", "speak"),
    ("met", "meet"),
    ("caught", "catch"),
    ("taught", "teach"),
    ("chose", "choose"),
    ("chosen", "choose"),
    ("drove", "drive"),
    ("driven", "drive"),
    ("swept", "sweep"),
    ("sewn", "sew"),
];

/// A crude English stem: an irregular past form's base ([`IRREGULAR`]), a noun's `-ation` /
/// `-ment` ("registration" of "register",
/// "replacement" of "replace"), `-ing`, `-ed`, `-es`/`-s` dropped from longer words, then a
/// final `-e` ("filing" and "file" share `fil`).
fn stem(w: &str) -> String {
    if let Some((_, base)) = IRREGULAR.iter().find(|(past, _)| *past == w) {
        return stem(base);
    }
    for (suffix, min) in [("ation", 9), ("ment", 8)] {
        if w.len() >= min {
            if let Some(s) = w.strip_suffix(suffix) {
                return stem(s);
            }
        }
    }
    for (suffix, min) in [("ing", 6), ("ed", 5), ("es", 5), ("s", 4)] {
        if w.len() >= min {
            if let Some(s) = w.strip_suffix(suffix) {
                return s.to_string();
            }
        }
    }
    match w.strip_suffix('e') {
        Some(s) if w.len() >= 4 => s.to_string(),
        _ => w.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{same_word, words};

    #[test]
    fn doer_and_deed_irregular_pasts_and_prepositions() {
        let one = |a: &str, b: &str| {
            let (x, y) = (words(a), words(b));
            x.len() == 1 && y.len() == 1 && same_word(&x[0], &y[0])
        };
        // The one who does it and the thing done.
        assert!(one("surveyors", "survey"));
        assert!(one("inspection", "inspect"));
        assert!(one("insurer", "insurance"));
        // An irregular past names its verb.
        assert!(one("told", "tell"));
        assert!(one("caught", "catch"));
        // Short roots stay apart; so do words sharing only a head.
        assert!(!one("poster", "post"));
        assert!(!one("counsel", "council"));
        // A preposition names nothing.
        assert!(words("he was fine about it").iter().all(|w| w != "about"));
    }

    #[test]
    fn a_leading_irregular_past_does_not_outweigh_the_thing_it_names() {
        use super::super::test_support::{list, steps};
        // "got" stems to "get": the lead verb ties with "get …" items, the noun decides.
        let obs = list(&[
            ("get the boiler serviced", false),
            ("collect the prescription", false),
        ]);
        assert_eq!(
            steps("Got the prescription, tick it.", &obs).unwrap(),
            vec!["check \"collect the prescription\""]
        );
        let obs = list(&[("buy stamps", false), ("pick up the birthday cake", false)]);
        assert_eq!(
            steps("Bought the birthday cake on the way, so tick it.", &obs).unwrap(),
            vec!["check \"pick up the birthday cake\""]
        );
        let obs = list(&[("get the bike repaired", false), ("repair the gate", false)]);
        assert_eq!(
            steps("Got the gate repaired, tick it.", &obs).unwrap(),
            vec!["check \"repair the gate\""]
        );
        // A subject noun first is no leading verb: a tie stays unread.
        let obs = list(&[("clean the grill", false), ("pay the cleaner", false)]);
        assert_eq!(
            steps("The cleaning got done this morning, tick it.", &obs),
            None
        );
    }
}
