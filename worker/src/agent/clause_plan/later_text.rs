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
    "make that",
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

/// Lead words of a correction ("actually make it 'y'", "sorry, I mean 'y'").
const CORRECTS: &[&str] = &[
    "actually",
    "oh",
    "wait",
    "sorry",
    "no",
    "i mean",
    "i meant",
    "不对",
    "哦不对",
    "说错了",
];

/// Words that speak of one more item ("and a second one, call it 'y'", "还有一条叫“y”"): a
/// text after them is a new item's, not a correction of the one just added.
const ANOTHER: &[&str] = &[
    "another",
    "one more",
    "a second",
    "second one",
    "new one",
    "next one",
    "one for",
    "还有一条",
    "另一条",
    "另外",
    "再来",
    "再加",
    "再添",
];

/// Whether `outside` (a clause without its quotes, lower case) speaks of one more item
/// ([`ANOTHER`]; English words whole).
fn speaks_of_another(outside: &str) -> bool {
    let spaced = format!(
        " {} ",
        outside
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    );
    ANOTHER.iter().any(|w| {
        if w.chars().any(effects::is_cjk) {
            outside.contains(w)
        } else {
            spaced.contains(&format!(" {w} "))
        }
    })
}

/// Whether clause `k` or the one before it speaks of one more item ("…, and one for the
/// vet, make it 'x'") or of adding one with no text yet ("add a reminder, make it 'x'"), or
/// an add comes within [`REACH`] before it ("add 'x' and tick the turkey, no, make that
/// 'y'"): a "make it 'y'" there gives an added item's text, it renames no listed item.
pub(super) fn new_item_near(segs: &[String], k: usize) -> bool {
    let added = segs[k.saturating_sub(REACH)..k]
        .iter()
        .any(|s| effects::order_of(s).is_some_and(|o| o.does == effects::Does::Add));
    added
        || segs
            .iter()
            .take(k + 1)
            .skip(k.saturating_sub(1))
            .any(|seg| {
                let outside = clauses::without_quotes(seg).to_lowercase();
                let adds = clauses::quoted(seg).is_empty()
                    && outside
                        .split(|c: char| !c.is_alphanumeric())
                        .any(|w| w == "add");
                speaks_of_another(&outside) || adds
            })
}

/// The clause after `k` (within [`REACH`]) that corrects the text `x` an add typed, and the
/// text it gives: "add 'pick up the lemons'. Actually drop the 'the', make it 'pick up
/// lemons'" → (2, "pick up lemons"). The correction has one quoted text and a [`WRITES`]
/// word; it must be one of `x` (at least half of `x`'s words kept) or follow a
/// [`CORRECTS`] lead. Clauses between it and the add quote nothing but parts of `x` (they
/// say how it changes). `None` when a clause names a listed item of `items` outside its
/// quotes, orders something else first or speaks of one more item ([`speaks_of_another`]).
pub(super) fn corrected_text(
    segs: &[String],
    k: usize,
    x: &str,
    items: &[(String, bool)],
) -> Option<(usize, String)> {
    let mut led = false;
    for (j, seg) in segs.iter().enumerate().skip(k + 1).take(REACH) {
        let quoted = clauses::quoted(seg);
        let outside = clauses::without_quotes(seg).to_lowercase();
        led |= CORRECTS.iter().any(|w| outside.trim_start().starts_with(w));
        if speaks_of_another(&outside) {
            // "add 'x'. Then one for the roofer, make it 'y'": y is a second item.
            return None;
        }
        // "make that 'y'" names no "make parkin" item by its verb.
        let said = WRITES
            .iter()
            .fold(outside.clone(), |o, w| o.replace(w, " "));
        if by_words(&said, items, Some(1)).is_some() || by_chars(&said, items).is_some() {
            return None;
        }
        if let [y] = quoted.as_slice() {
            if WRITES.iter().any(|w| outside.contains(w)) {
                return (y != x && (led || kept_words(x, y) * 2 >= words(x).len()))
                    .then(|| (j, y.clone()));
            }
        }
        if let Some(y) = quoted.is_empty().then(|| spliced(seg, x)).flatten() {
            return Some((j, y));
        }
        let parts_of_x = !quoted.is_empty() && quoted.iter().all(|q| x.contains(q.as_str()));
        if !parts_of_x && (effects::order_of(seg).is_some() || !quoted.is_empty()) {
            return None;
        }
    }
    None
}

/// `x` with a phrase of it swapped for the one "make that …" gives unquoted, the two
/// sharing their last word: "move the router to the hallway shelf", "hang on, make that the
/// landing shelf" → "move the router to the landing shelf"; "buy 2 kg of apples", "make
/// that 3 kg" → "buy 3 kg of apples". The phrase is two to four words after "make that" /
/// "make it" (only [`CORRECTS`] words before it), its last word once in `x`; `None`
/// otherwise ("make it bigger" gives no word of `x`).
fn spliced(seg: &str, x: &str) -> Option<String> {
    let lower = seg.trim().to_lowercase();
    let (at, lead) = ["make that ", "make it "]
        .iter()
        .find_map(|w| lower.find(w).map(|i| (i, w.len())))?;
    let before = lower[..at].trim_matches(|c: char| !c.is_alphanumeric());
    let led_only = before
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .all(|w| {
            CORRECTS.iter().any(|c| c.split(' ').any(|p| p == w)) || ["hang", "on"].contains(&w)
        });
    if !led_only || lower.len() != seg.trim().len() {
        return None;
    }
    let phrase: Vec<&str> = seg.trim()[at + lead..]
        .trim_end_matches(['.', '!', ',', ';'])
        .split_whitespace()
        .collect();
    if !(2..=4).contains(&phrase.len()) || !phrase.iter().all(|w| w.is_ascii()) {
        return None;
    }
    let head = phrase[phrase.len() - 1].to_lowercase();
    let xs: Vec<&str> = x.split_whitespace().collect();
    let bare = |w: &str| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    };
    let hits: Vec<usize> = (0..xs.len()).filter(|i| bare(xs[*i]) == head).collect();
    let [end] = hits.as_slice() else {
        return None;
    };
    let start = (end + 1).checked_sub(phrase.len())?;
    let mut out: Vec<&str> = xs[..start].to_vec();
    out.extend(phrase.iter().copied());
    out.extend(xs[end + 1..].iter().copied());
    let y = out.join(" ");
    (y != x).then_some(y)
}

/// `s`'s words (lowercase), or its characters where it is Chinese.
fn words(s: &str) -> Vec<String> {
    if s.chars().any(effects::is_cjk) {
        return s
            .chars()
            .filter(|c| effects::is_cjk(*c))
            .map(String::from)
            .collect();
    }
    s.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// How many of `x`'s words `y` keeps.
fn kept_words(x: &str, y: &str) -> usize {
    let ys = words(y);
    words(x).iter().filter(|w| ys.contains(w)).count()
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

    #[test]
    fn a_correction_of_an_added_text_gives_the_new_text() {
        let segs = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let x = "fetch the spare keys from reception";
        let fixed = segs(&[
            "add 'fetch the spare keys from reception'",
            "oh, lose the 'the'",
            "make it 'fetch spare keys from reception'",
        ]);
        assert_eq!(
            corrected_text(&fixed, 0, x, &[]),
            Some((2, "fetch spare keys from reception".to_string()))
        );
        let led = segs(&["add 'buy milk'", "no wait, call it 'buy oat drink'"]);
        assert_eq!(
            corrected_text(&led, 0, "buy milk", &[]),
            Some((1, "buy oat drink".to_string()))
        );
        // Another text, not led by a correction: a new thing, not this add's.
        let other = segs(&["add 'buy milk'", "make it 'walk the dog'"]);
        assert_eq!(corrected_text(&other, 0, "buy milk", &[]), None);
        // A listed item named first: its own rename.
        let items = vec![("water the ferns".to_string(), false)];
        let named = segs(&["add 'buy milk'", "the ferns: make it 'water the big ferns'"]);
        assert_eq!(corrected_text(&named, 0, "buy milk", &items), None);
        let tick = segs(&[
            "add 'buy milk'",
            "tick 'walk the dog'",
            "actually make it 'buy oat milk'",
        ]);
        assert_eq!(
            corrected_text(&tick, 0, "buy milk", &[]),
            None,
            "an order between"
        );
    }

    #[test]
    fn a_text_for_one_more_item_corrects_nothing() {
        let segs = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        // Most words kept, but a second item: both are added.
        let roofer = segs(&[
            "add 'call the electrician'",
            "then one for the roofer",
            "make it 'call the roofer'",
        ]);
        assert_eq!(
            corrected_text(&roofer, 0, "call the electrician", &[]),
            None
        );
        let second = segs(&[
            "add 'pick up the parcel'",
            "and a second one, call it 'pick up the suit'",
        ]);
        assert_eq!(corrected_text(&second, 0, "pick up the parcel", &[]), None);
        let zh = segs(&["加一条“交电费”", "还有一条叫“交燃气费”"]);
        assert_eq!(corrected_text(&zh, 0, "交电费", &[]), None);
        // An unquoted "make that" phrase swapped in at its last word.
        let shelf = vec![
            "add 'put the kettle on the top shelf'".to_string(),
            "wait, make that the bottom shelf".to_string(),
        ];
        assert_eq!(
            corrected_text(&shelf, 0, "put the kettle on the top shelf", &[]),
            Some((1, "put the kettle on the bottom shelf".to_string()))
        );
        let bigger = vec![
            "add 'paint the fence'".to_string(),
            "make it bigger".to_string(),
        ];
        assert_eq!(corrected_text(&bigger, 0, "paint the fence", &[]), None);
        // A take-back still corrects.
        let fixed = segs(&["加一条“交电费”", "说错了，写成“交物业费”"]);
        assert_eq!(
            corrected_text(&fixed, 0, "交电费", &[]),
            Some((1, "交物业费".to_string()))
        );
    }
}
