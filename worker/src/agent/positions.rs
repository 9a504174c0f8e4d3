//! List items named by where they sit or by what they are not: "the top one", "the second
//! item", "the last entry", "second from the bottom", 第三条, 最后一条, 倒数第二条; and "tick
//! everything except X", "all but X", 除了X其他都勾上.
//!
//! A position counts from the list as the plan knows it at that clause (the screen's order,
//! top first), so "add 'x', then tick the last one" ticks x. A phrase is read as a position
//! only when nothing else of meaning is in it ("the last one", not "find last year's
//! return"): an item's own words always win.

/// English ordinal and position words: the index from the top (0 = first) or, negative, from
/// the bottom (-1 = last).
const EN_ORDINALS: &[(&str, i32)] = &[
    ("first", 0),
    ("1st", 0),
    ("top", 0),
    ("topmost", 0),
    ("uppermost", 0),
    ("second", 1),
    ("2nd", 1),
    ("third", 2),
    ("3rd", 2),
    ("fourth", 3),
    ("4th", 3),
    ("fifth", 4),
    ("5th", 4),
    ("sixth", 5),
    ("6th", 5),
    ("last", -1),
    ("bottom", -1),
    ("bottommost", -1),
    ("final", -1),
    ("lowest", -1),
    ("penultimate", -2),
];
/// Words a position phrase may hold besides its ordinals ("the second one on the list",
/// "the item at the very top").
const EN_POSITION_FILLERS: &[&str] = &[
    "the", "one", "ones", "item", "items", "entry", "task", "todo", "thing", "line", "row", "on",
    "in", "at", "of", "list", "very", "s", "that", "this", "from", "to", "up", "down", "there",
    "end", "most", "counting", "actually", "now", "please", "instead", "too", "then", "again",
    "though",
];
/// Chinese numerals one to ten.
const ZH_NUMERALS: &[(char, i32)] = &[
    ('一', 1),
    ('二', 2),
    ('两', 2),
    ('三', 3),
    ('四', 4),
    ('五', 5),
    ('六', 6),
    ('七', 7),
    ('八', 8),
    ('九', 9),
    ('十', 10),
];
/// Chinese measure words of a list row (第三条, 第二个, 第一项).
const ZH_MEASURES: &[char] = &['条', '个', '项', '行', '件', '栏'];
/// Chinese words for the last and the first row.
const ZH_LAST: &[&str] = &[
    "最后一",
    "最后那",
    "最后面",
    "最下面",
    "最底下",
    "最下边",
    "末尾",
];
const ZH_FIRST: &[&str] = &["最上面", "最上边", "最前面", "头一", "最顶上"];

/// The item at the position `object` names among `items` (top first); `None` when `object`
/// names no position, holds other words of meaning, or the list is shorter.
pub(super) fn by_position(object: &str, items: &[(String, bool)]) -> Option<String> {
    let at = if object.chars().any(super::cjk::is_cjk) {
        zh_position(object)?
    } else {
        en_position(object)?
    };
    let n = items.len() as i32;
    let i = if at < 0 { n + at } else { at };
    (0..n).contains(&i).then(|| items[i as usize].0.clone())
}

/// The item a clause said before a pronoun names by its row ([`by_position`]), where the
/// clause counts rows: a Chinese ordinal with 个 there counts the things it describes
/// ("椅子只借到一把，第二个还在找": the second chair, not the second row), so only 条 / 项 /
/// 行 / 件 / 栏 or a first / last word count — unless the ordinal with 个 stands alone
/// ("第二个，把它勾上", "第二个那条") or the clause names the list ("列表里第二个已经做完了"):
/// then it can count nothing but rows.
pub(super) fn row_said_before(seg: &str, items: &[(String, bool)]) -> Option<String> {
    if seg.chars().any(super::cjk::is_cjk) {
        let chars: Vec<char> = seg.chars().collect();
        let at = chars.windows(3).position(|w| {
            w[0] == '第'
                && (w[1].is_ascii_digit() || ZH_NUMERALS.iter().any(|(z, _)| *z == w[1]))
                && w[2] == '个'
        });
        if let Some(at) = at {
            let rest: String = chars[..at].iter().chain(&chars[at + 3..]).collect();
            let alone = ["那个", "那条", "那项", "就是", "是", "的", "呢"]
                .iter()
                .fold(rest, |r, f| r.replace(f, ""))
                .chars()
                .all(|c| !c.is_alphanumeric());
            let in_list = ["列表", "清单", "单子", "待办"]
                .iter()
                .any(|w| seg.contains(w));
            if !alone && !in_list {
                return None;
            }
        }
    }
    by_position(seg, items)
}

/// The items a run of positions names, "the first two", "the last three items", "both of the
/// top two", 前两条, 最后两条: `n` items from the top or the bottom (screen order kept);
/// `None` when `object` names no such run, holds other words of meaning, or the list is
/// shorter.
pub(super) fn by_positions(object: &str, items: &[(String, bool)]) -> Option<Vec<String>> {
    let (from_top, n) = if object.chars().any(super::cjk::is_cjk) {
        zh_run(object)?
    } else {
        en_run(object)?
    };
    if n < 2 || n > items.len() {
        return None;
    }
    let slice = if from_top {
        &items[..n]
    } else {
        &items[items.len() - n..]
    };
    Some(slice.iter().map(|(name, _)| name.clone()).collect())
}

/// English counts of a run of positions.
const EN_COUNTS: &[(&str, usize)] = &[
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("2", 2),
    ("3", 3),
    ("4", 4),
    ("5", 5),
];

/// [`by_positions`] for an English phrase: (from the top, how many).
fn en_run(object: &str) -> Option<(bool, usize)> {
    let lower = object.to_lowercase().replace(['’', '\''], " ");
    let ws: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let end = ws.iter().find_map(|w| match *w {
        "first" | "top" => Some(true),
        "last" | "bottom" | "final" => Some(false),
        _ => None,
    })?;
    let counts: Vec<usize> = ws
        .iter()
        .filter_map(|w| EN_COUNTS.iter().find(|(c, _)| c == w).map(|(_, n)| *n))
        .collect();
    let other = ws.iter().any(|w| {
        !["first", "top", "last", "bottom", "final", "both", "all"].contains(w)
            && !EN_COUNTS.iter().any(|(c, _)| c == w)
            && !EN_POSITION_FILLERS.contains(w)
    });
    match counts.as_slice() {
        [n] if !other => Some((end, *n)),
        _ => None,
    }
}

/// [`by_positions`] for a Chinese phrase: 前两条 / 上面两条 (from the top), 最后两条 /
/// 后两条 / 最下面两条 (from the bottom).
fn zh_run(object: &str) -> Option<(bool, usize)> {
    let chars: Vec<char> = object.chars().collect();
    let at = chars
        .windows(2)
        .position(|w| ZH_NUMERALS.iter().any(|(c, _)| *c == w[0]) && ZH_MEASURES.contains(&w[1]))?;
    let n = ZH_NUMERALS.iter().find(|(c, _)| *c == chars[at])?.1 as usize;
    let before: String = chars[..at].iter().collect();
    let top = ["前", "上面", "最上面", "头"]
        .iter()
        .any(|w| before.ends_with(w));
    let bottom = ["最后", "后", "下面", "最下面", "末尾"]
        .iter()
        .any(|w| before.ends_with(w));
    match (top, bottom) {
        (true, false) => Some((true, n)),
        (false, true) => Some((false, n)),
        _ => None,
    }
}

/// [`by_position`]'s index for an English phrase: one ordinal, or an ordinal counted from the
/// bottom ("second to last", "second from the bottom", "third last").
fn en_position(object: &str) -> Option<i32> {
    let lower = object.to_lowercase().replace(['’', '\''], " ");
    let ws: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let ords: Vec<i32> = ws
        .iter()
        .filter_map(|w| EN_ORDINALS.iter().find(|(o, _)| o == w).map(|(_, i)| *i))
        .collect();
    let other = ws
        .iter()
        .any(|w| !EN_ORDINALS.iter().any(|(o, _)| o == w) && !EN_POSITION_FILLERS.contains(w));
    if other {
        return None;
    }
    let from_bottom = ws
        .iter()
        .any(|w| *w == "bottom" || *w == "last" || *w == "end");
    match ords.as_slice() {
        [one] => Some(*one),
        // "second to last", "second from the bottom", "third last"
        [k, b] if *k > 0 && *b == -1 && from_bottom => Some(-(k + 1)),
        // "the second one from the top"
        [k, 0] if *k > 0 => Some(*k),
        _ => None,
    }
}

/// [`by_position`]'s index for a Chinese phrase: 第N条 (N a digit or 一…十), 倒数第N条,
/// 最后一条 / 最下面那条, 第一条 / 最上面那条.
fn zh_position(object: &str) -> Option<i32> {
    let chars: Vec<char> = object.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c != '第' {
            continue;
        }
        let mut j = i + 1;
        let mut n = 0;
        while let Some(d) = chars.get(j).and_then(|c| {
            c.to_digit(10)
                .map(|d| d as i32)
                .or_else(|| ZH_NUMERALS.iter().find(|(z, _)| z == c).map(|(_, v)| *v))
        }) {
            n = if d == 10 && n > 0 { n * 10 } else { n + d };
            j += 1;
        }
        if n == 0 || !chars.get(j).is_some_and(|c| ZH_MEASURES.contains(c)) {
            continue;
        }
        let back = i >= 2 && chars[i - 2..i] == ['倒', '数'];
        return Some(if back { -n } else { n - 1 });
    }
    if ZH_LAST.iter().any(|w| object.contains(w)) {
        return Some(-1);
    }
    ZH_FIRST.iter().any(|w| object.contains(w)).then_some(0)
}

/// English words that take items out of an "all": "everything except X", "all but X".
const EN_EXCEPT: &[&str] = &[
    " except for ",
    " except ",
    " but ",
    " other than ",
    " apart from ",
    " aside from ",
    " besides ",
    " excluding ",
    " save for ",
    " bar ",
];
/// Words that make the part before [`EN_EXCEPT`] speak of all the items.
const EN_ALL: &[&str] = &[
    "all",
    "every",
    "everything",
    "each",
    "rest",
    "others",
    "anything",
    "whole",
    "entire",
];

/// Whether the part before an exception speaks of every item as "the lot" ("tick the lot
/// apart from the plumber"): a lot of one thing ("a lot") is not all the items.
fn the_lot(left: &str) -> bool {
    format!(
        " {} ",
        left.to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    )
    .contains(" the lot ")
}
/// Chinese words for "the others" after a 除了 phrase.
const ZH_OTHERS: &[&str] = &["其他", "其它", "其余", "别的", "剩下", "都", "全"];

/// Whether an "all … but X" may stand at ` but ` in `text` (its left part speaks of all the
/// items): then ` but ` takes items out and does not join two clauses.
pub(super) fn all_but(left: &str) -> bool {
    let lower = left.to_lowercase();
    let last: Vec<&str> = lower.split_whitespace().rev().take(3).collect();
    let words_in_order: Vec<&str> = last.iter().rev().copied().collect();
    last.iter().any(|w| EN_ALL.contains(w)) || the_lot(&words_in_order.join(" "))
}

/// The words naming the items an "all" order leaves out: `Some(except)` for "everything
/// except the filing" (→ "the filing"), "除了交电费，其他都勾上" (the 除了 phrase may be in the
/// clause before, `before`, nearest first); `None` when the order makes no exception.
pub(super) fn except(object: &str, before: &[&str]) -> Option<String> {
    if object.chars().any(super::cjk::is_cjk) {
        let own = object.split_once("除了").map(|(_, r)| r);
        let prior = before
            .first()
            .and_then(|b| b.split_once("除了").map(|(_, r)| r));
        let named = own.or(prior.filter(|_| ZH_OTHERS.iter().any(|w| object.contains(w))))?;
        let cut = [
            "以外", "之外", "，", ",", "其他", "其它", "其余", "别的", "剩下",
        ]
        .iter()
        .filter_map(|w| named.find(w))
        .min()
        .unwrap_or(named.len());
        return Some(named[..cut].to_string()).filter(|s| !s.trim().is_empty());
    }
    let lower = format!(" {} ", object.to_lowercase());
    let Some((at, len)) = EN_EXCEPT
        .iter()
        .filter_map(|w| lower.find(w).map(|i| (i, w.len())))
        .min()
    else {
        // "tick all the others" after "everything is done apart from the slides": the
        // exception made in one of the two clauses before.
        let others = [
            "others",
            "the rest",
            "everything else",
            "whatever else",
            "anything else",
            "all else",
            "the remaining",
        ]
        .iter()
        .any(|w| lower.contains(w));
        return before
            .iter()
            .take(2)
            .filter(|_| others)
            .find_map(|b| except(b, &[]));
    };
    let left = &lower[..at];
    if !left.split_whitespace().any(|w| EN_ALL.contains(&w)) && !the_lot(left) {
        return None;
    }
    // `lower` has one leading space more than `object`.
    let rest = object.get(at + len - 1..)?.trim();
    let named = rest
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| !w.is_empty() && !["the", "a", "an", "one", "ones", "that", "this"].contains(&w));
    (named || rest.contains(['\'', '"', '“', '‘'])).then(|| rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(names: &[&str]) -> Vec<(String, bool)> {
        names.iter().map(|n| (n.to_string(), false)).collect()
    }

    #[test]
    fn english_positions_name_rows_top_first() {
        let l = list(&[
            "oil the gate",
            "find last winter's boots",
            "ring grandma",
            "pay rent",
        ]);
        let at = |o: &str| by_position(o, &l);
        assert_eq!(at("the top one").as_deref(), Some("oil the gate"));
        assert_eq!(at("the first item").as_deref(), Some("oil the gate"));
        assert_eq!(
            at("the second entry").as_deref(),
            Some("find last winter's boots")
        );
        assert_eq!(
            at("the 3rd one on the list").as_deref(),
            Some("ring grandma")
        );
        assert_eq!(at("the last one").as_deref(), Some("pay rent"));
        assert_eq!(
            at("the one at the very bottom").as_deref(),
            Some("pay rent")
        );
        assert_eq!(
            at("the second to last one").as_deref(),
            Some("ring grandma")
        );
        assert_eq!(
            at("the second one from the bottom").as_deref(),
            Some("ring grandma")
        );
        assert_eq!(
            at("the second from the top").as_deref(),
            Some("find last winter's boots")
        );
        // An item's own words are no position.
        assert_eq!(at("last winter's boots"), None);
        assert_eq!(at("the sixth one"), None);
        assert_eq!(at("it"), None);
    }

    #[test]
    fn chinese_positions_name_rows() {
        let l = list(&["甲", "乙", "丙", "丁"]);
        assert_eq!(by_position("第三条直接", &l).as_deref(), Some("丙"));
        assert_eq!(by_position("第2个", &l).as_deref(), Some("乙"));
        assert_eq!(by_position("倒数第二条", &l).as_deref(), Some("丙"));
        assert_eq!(by_position("最后一条", &l).as_deref(), Some("丁"));
        assert_eq!(by_position("最上面那条", &l).as_deref(), Some("甲"));
        assert_eq!(by_position("第五条", &l), None);
        assert_eq!(by_position("把它", &l), None);
    }

    #[test]
    fn exceptions_are_read_only_after_an_all() {
        assert_eq!(
            except("everything except the boots", &[]).as_deref(),
            Some("the boots")
        );
        assert_eq!(
            except("all of them but 'ring grandma'", &[]).as_deref(),
            Some("'ring grandma'")
        );
        assert_eq!(
            except("the rest apart from the rent one", &[]).as_deref(),
            Some("the rent one")
        );
        assert_eq!(except("the gate but not today", &[]), None);
        assert_eq!(
            except("除了交房租以外都勾上", &[]).as_deref(),
            Some("交房租")
        );
        assert_eq!(
            except("其他都勾上", &["除了交房租"]).as_deref(),
            Some("交房租")
        );
        assert_eq!(except("把它勾上", &["除了交房租"]), None);
        assert_eq!(
            except(
                "whatever else is open",
                &["all of it is sorted except the gutters"]
            )
            .as_deref(),
            Some("the gutters")
        );
        assert!(all_but("tick off everything"));
        assert!(!all_but("complete 'a'"));
    }
}
