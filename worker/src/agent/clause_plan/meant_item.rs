//! An order's item corrected by the clause after it: "tick the fence paint, sorry, no, I
//! meant the hedge trimmer" ticks the hedge trimmer; "把取快递勾上，不对，我是说交电费" ticks 交电费.
//!
//! Why: the correction has no verb, so it read as a description and the order went to the
//! item named first — the one the speaker took back.

use super::item_match::{by_chars, by_words, find_item};
use crate::agent::{clauses, effects};

/// Clauses between an order and its correction that say nothing else ("sorry", "no",
/// "oops", "不对").
const BETWEEN: &[&str] = &[
    "sorry",
    "no",
    "oops",
    "wait",
    "no wait",
    "sorry no",
    "oh",
    "oh no",
    "hmm",
    "um",
    "不对",
    "不是",
    "说错了",
    "哦不对",
    "等等",
];

/// Lead words of the correction itself, before the item meant.
const MEANT: &[&str] = &[
    "i meant to say ",
    "i mean ",
    "i meant ",
    "meant ",
    "i'm thinking of ",
    "我是说",
    "我说的是",
    "我指的是",
    "应该是",
];

/// How many clauses after the order the correction may come.
const REACH: usize = 3;

/// The clause after `k` (within [`REACH`], only [`BETWEEN`] clauses before it) that says
/// which item the order of clause `k` meant, and that item's name: one item of `items`
/// named by quotes, words or characters after a [`MEANT`] lead. `None` when no such clause
/// comes, or it names no item or several.
pub(super) fn meant_item(
    segs: &[String],
    k: usize,
    items: &[(String, bool)],
) -> Option<(usize, String)> {
    for (j, seg) in segs.iter().enumerate().skip(k + 1).take(REACH) {
        let lower = seg
            .trim()
            .trim_matches(|c: char| !c.is_alphanumeric() && !effects::is_cjk(c))
            .to_lowercase()
            .replace(['’', ','], "");
        if BETWEEN.contains(&lower.as_str()) {
            continue;
        }
        let rest = MEANT.iter().find_map(|m| lower.strip_prefix(m))?;
        let quoted = clauses::quoted(rest);
        let found = match quoted.as_slice() {
            [q] => find_item(q, items),
            [] => by_words(rest, items, Some(1))
                .and_then(|mut v| (v.len() == 1).then(|| v.remove(0)))
                .or_else(|| by_chars(rest, items)),
            _ => None,
        };
        return found
            .filter(|name| names_only(&clauses::without_quotes(rest), name))
            .map(|name| (j, name));
    }
    None
}

/// Words a correction may hold besides the item's own ("I meant the one about the skip",
/// "the hedge trimmer one instead").
const FILLER: &[&str] = &[
    "the", "a", "an", "one", "item", "entry", "task", "row", "line", "that", "this", "about",
    "for", "instead", "thing", "on", "my", "list",
];

/// Characters a Chinese correction may hold besides the item's own ("电费那条", "交电费的那个").
const FILLER_ZH: &str = "那这条个项件的一吧啊呀啦";

/// Whether correction `rest` says nothing but item `name` (with [`FILLER`] words): "I mean
/// the hedge trimmer too", "I meant the hedge trimmer should stay open", "我是说交电费也勾上"
/// and "我是说交电费还没交" say more about that item — a second order or a state — and are
/// no correction of the item before, so the order keeps its own item.
fn names_only(rest: &str, name: &str) -> bool {
    let name = name.to_lowercase();
    let own: Vec<&str> = name.split(|c: char| !c.is_alphanumeric()).collect();
    let latin_ok = rest
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty() && !w.chars().any(effects::is_cjk))
        .all(|w| own.contains(&w) || FILLER.contains(&w));
    let cjk_ok = rest
        .chars()
        .filter(|c| effects::is_cjk(*c))
        .all(|c| name.contains(c) || FILLER_ZH.contains(c));
    latin_ok && cjk_ok
}

#[cfg(test)]
mod tests {
    use super::meant_item;

    fn segs(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn a_correction_after_hesitations_names_the_item_meant() {
        let items = vec![
            ("sand the fence".to_string(), false),
            ("oil the hedge trimmer".to_string(), false),
            ("交电费".to_string(), false),
        ];
        let s = segs(&[
            "tick the fence",
            "sorry",
            "no",
            "I meant the hedge trimmer",
            "it's done",
        ]);
        assert_eq!(
            meant_item(&s, 0, &items),
            Some((3, "oil the hedge trimmer".to_string()))
        );
        let s = segs(&["把篱笆勾上", "不对", "我是说电费那条"]);
        assert_eq!(meant_item(&s, 0, &items), Some((2, "交电费".to_string())));
        // Something else between the order and the correction: no correction of it.
        let s = segs(&[
            "tick the fence",
            "the paint dried",
            "I meant the hedge trimmer",
        ]);
        assert_eq!(meant_item(&s, 0, &items), None);
        // "I mean, it's fine": no item named.
        let s = segs(&["tick the fence", "I mean it was about time"]);
        assert_eq!(meant_item(&s, 0, &items), None);
    }

    #[test]
    fn a_clause_saying_more_of_the_other_item_corrects_nothing() {
        let items = vec![
            ("sand the fence".to_string(), false),
            ("oil the hedge trimmer".to_string(), false),
            ("交电费".to_string(), false),
            ("买猫粮".to_string(), false),
        ];
        for said in [
            "I mean the hedge trimmer as well",
            "I meant the hedge trimmer has to wait",
            "I mean the hedge trimmer isn't urgent",
        ] {
            assert_eq!(
                meant_item(&segs(&["tick the fence", said]), 0, &items),
                None,
                "{said}"
            );
        }
        for said in ["我是说交电费也要勾", "我是说交电费下周再弄"] {
            assert_eq!(
                meant_item(&segs(&["把猫粮勾上", said]), 0, &items),
                None,
                "{said}"
            );
        }
        // The item alone, with words that only point at it, still corrects.
        let s = segs(&[
            "tick the fence",
            "oops",
            "I meant the hedge trimmer one instead",
        ]);
        assert_eq!(
            meant_item(&s, 0, &items),
            Some((2, "oil the hedge trimmer".to_string()))
        );
        let s = segs(&["把猫粮勾上", "说错了", "我指的是交电费的那个"]);
        assert_eq!(meant_item(&s, 0, &items), Some((2, "交电费".to_string())));
    }
}
