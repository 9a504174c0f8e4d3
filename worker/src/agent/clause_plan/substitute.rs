//! A rename that changes one word or number inside an item's title, said without quoting the
//! new title: "make that item say 80 instead of 60", "change the bread to rolls", "it's for
//! production, not staging … fix the wording", "把 60 改成 80". The item is the one title
//! holding the old word as a whole word; the new title is that title with the word swapped.
//!
//! Why: people correct a detail of an entry by naming the detail, not by retyping the entry;
//! such a clause had no quoted name, so it was left to the model, which (Qwen2.5-Coder-1.5B)
//! did not change the title.

use crate::agent::effects::is_cjk;

/// Words an order's object may hold and still name nothing but "the title" ("fix the
/// wording", "correct it"): then the swap comes from a clause before it.
const GENERIC: &[&str] = &[
    "the",
    "it",
    "its",
    "that",
    "this",
    "one",
    "entry",
    "item",
    "task",
    "line",
    "wording",
    "name",
    "title",
    "text",
    "label",
    "spelling",
    "words",
    "please",
    "too",
    "as",
    "well",
    "accordingly",
    "then",
    "now",
];

/// The (old, new) words of a swap said in `text`: "A instead of B", "A rather than B",
/// "A, not B", "from B to A", "B → A", and, when `to` counts (an order's own object: "change
/// the bread to rolls"), "B to A"; Chinese "B 改成 A" with numbers. `None` when it says none
/// or old and new are the same.
pub(super) fn pair(text: &str, to: bool) -> Option<(String, String)> {
    if text.chars().any(is_cjk) {
        return pair_zh(text);
    }
    let lower = text.to_lowercase();
    let around = |sep: &str, new_first: bool| -> Option<(String, String)> {
        let at = lower.find(sep)?;
        let (left, right) = (tokens(&text[..at]), tokens(&text[at + sep.len()..]));
        // "buy rolls instead of buy bread": the widest span of up to three words each side
        // that differs in one word only ("rolls" for "bread"); one word each side at least.
        let (l, r) = (1..=3.min(left.len()).min(right.len()))
            .rev()
            .find_map(|k| differing(&left[left.len() - k..], &right[..k]))?;
        Some(if new_first { (r, l) } else { (l, r) })
    };
    // "change the bread to rolls", "rename buy bread to buy rolls": an order's whole object
    // on each side of `to`, differing in one word; "the dentist appointment to Friday" (two
    // words to one) swaps nothing.
    let whole_to = || -> Option<(String, String)> {
        let at = lower.find(" to ")?;
        let mut left = tokens(&text[..at]);
        while left
            .first()
            .is_some_and(|w| GENERIC.contains(&w.to_lowercase().as_str()))
        {
            left.remove(0);
        }
        let mut right = tokens(&text[at + " to ".len()..]);
        while right
            .last()
            .is_some_and(|w| GENERIC.contains(&w.to_lowercase().as_str()))
        {
            right.pop();
        }
        differing(&left, &right)
    };
    let found = around(" instead of ", true)
        .or_else(|| around(" rather than ", true))
        .or_else(|| around(", not ", true))
        .or_else(|| around(" → ", false))
        .or_else(|| around(" -> ", false))
        .or_else(|| {
            let at = lower.find("from ")?;
            let rest = &text[at + "from ".len()..];
            let to_at = rest.to_lowercase().find(" to ")?;
            let old = first_token(&rest[..to_at]).filter(|_| !rest[..to_at].contains(' '))?;
            Some((old, first_token(&rest[to_at + " to ".len()..])?))
        })
        .or_else(|| to.then(whole_to).flatten())?;
    (!found.0.eq_ignore_ascii_case(&found.1)).then_some(found)
}

/// Whether an order's `object` names nothing but the title itself ([`GENERIC`]).
pub(super) fn generic(object: &str) -> bool {
    object
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .all(|w| GENERIC.contains(&w))
}

/// The one item of `items` whose title holds `old` as a whole word (case aside), and its
/// title with that word swapped for `new`; `None` when no title or several do.
pub(super) fn apply(items: &[(String, bool)], old: &str, new: &str) -> Option<(String, String)> {
    let mut found = items
        .iter()
        .filter_map(|(t, _)| swapped(t, old, new).map(|n| (t.clone(), n)));
    let one = found.next()?;
    found.next().is_none().then_some(one)
}

/// `title` with its one whole-word `old` (case aside) swapped for `new`.
fn swapped(title: &str, old: &str, new: &str) -> Option<String> {
    let lower = title.to_lowercase();
    let old_l = old.to_lowercase();
    if lower.len() != title.len() {
        return None;
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() && !is_cjk(c));
    let hits: Vec<usize> = lower
        .match_indices(&old_l)
        .map(|(i, _)| i)
        .filter(|&i| {
            let cjk = old.chars().all(is_cjk);
            cjk || (!word(title[..i].chars().next_back())
                && !word(title[i + old.len()..].chars().next()))
        })
        .collect();
    let [i] = hits.as_slice() else {
        return None;
    };
    Some(format!("{}{new}{}", &title[..*i], &title[i + old.len()..]))
}

/// The words of `text`, outer punctuation trimmed.
fn tokens(text: &str) -> Vec<String> {
    text.split_whitespace().filter_map(clean).collect()
}

/// The one word in which `a` and `b` differ once the words they start and end with alike
/// (case aside) are left out: `None` unless one word on each side remains.
fn differing(a: &[String], b: &[String]) -> Option<(String, String)> {
    let same = |x: &String, y: &String| x.eq_ignore_ascii_case(y);
    let pre = a.iter().zip(b).take_while(|(x, y)| same(x, y)).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| same(x, y))
        .count();
    match (&a[..a.len() - suf], &b[..b.len() - suf]) {
        ([x], [y]) => Some((x.clone(), y.clone())),
        _ => None,
    }
}

/// The first word of `text`.
fn first_token(text: &str) -> Option<String> {
    text.split_whitespace().next().and_then(clean)
}

fn clean(tok: &str) -> Option<String> {
    let t = tok.trim_matches(|c: char| !c.is_alphanumeric());
    (!t.is_empty()).then(|| t.to_string())
}

/// Chinese "(把) B 改成 A" where B and A are numbers.
fn pair_zh(text: &str) -> Option<(String, String)> {
    let verbs = ["改成", "改为", "换成", "换为", "变成"];
    let (at, len) = verbs
        .iter()
        .find_map(|v| text.find(v).map(|i| (i, v.len())))?;
    let digits = |s: &str, last: bool| {
        let runs: Vec<String> = s
            .split(|c: char| !c.is_ascii_digit())
            .filter(|r| !r.is_empty())
            .map(str::to_string)
            .collect();
        if last {
            runs.last().cloned()
        } else {
            runs.first().cloned()
        }
    };
    let old = digits(&text[..at], true)?;
    let new = digits(&text[at + len..], false)?;
    (old != new).then_some((old, new))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items() -> Vec<(String, bool)> {
        vec![
            ("print 60 flyers".into(), false),
            ("renew the test licence".into(), false),
            ("buy bread".into(), true),
            ("泡 3 杯茶".into(), false),
        ]
    }

    #[test]
    fn a_word_or_number_said_as_a_swap_changes_the_one_title_holding_it() {
        let swap = |t: &str, to: bool| {
            let (o, n) = pair(t, to)?;
            apply(&items(), &o, &n)
        };
        let want = |a: &str, b: &str| Some((a.to_string(), b.to_string()));
        assert_eq!(
            swap("have that one read 75 instead of 60", false),
            want("print 60 flyers", "print 75 flyers")
        );
        assert_eq!(
            swap("the licence is for live, not test", false),
            want("renew the test licence", "renew the live licence")
        );
        assert_eq!(swap("bread to rolls", true), want("buy bread", "buy rolls"));
        assert_eq!(
            swap("bread to rolls", false),
            None,
            "`to` counts only in an order"
        );
        assert_eq!(
            swap("switch it from 60 to 90", false),
            want("print 60 flyers", "print 90 flyers")
        );
        assert_eq!(swap("把 3 改成 4", false), want("泡 3 杯茶", "泡 4 杯茶"));
        assert_eq!(swap("say 7 instead of 8", false), None, "no title holds 8");
        assert_eq!(swap("the 60 instead of 60", false), None);
    }

    #[test]
    fn only_title_words_make_an_object_generic() {
        assert!(generic(" the wording"));
        assert!(generic("it"));
        assert!(!generic("the bread one"));
    }
}
