//! A check clause that counts list items ("make sure there are six entries and three of them
//! are still open", "double-check that exactly two are ticked", "没打勾的应该正好三条") read as
//! `assert N items are checked | not checked | listed` lines ([`argus_protocol::Action::AssertItems`]).
//!
//! A count is a number (digits, or a number word up to twelve / 一…十二) that counts list
//! things: in English followed by an item noun ("entries", "items", "tasks", "ones", …, with
//! at most two words between: "two ticked items") or by "of them"; in Chinese followed by a
//! classifier (条 / 项 / 件 / 个). Its state is the state word of its own part of the clause
//! (split at "and", commas, 其中 …): ticked / done / completed → checked; open / unticked /
//! not done / still to do → not checked; none → every item (`listed`), but then only with a
//! word that makes it a total ("there are", "exactly", "in total", 一共, 共, 有 …), so "the 2
//! new items are at the bottom" counts nothing. A part that is nothing but a count ("…: six
//! entries, two ticked") is one, with or without a noun. A number after "the", "these", "those" or
//! "my" names items, it does not count them. "N items left" is a counter's text, read by
//! `clauses::checks_of` before this.

/// Number words a count may be written in, as the digits a counter shows.
pub(super) const NUMBER_WORDS: &[(&str, &str)] = &[
    ("no", "0"),
    ("zero", "0"),
    ("one", "1"),
    ("two", "2"),
    ("three", "3"),
    ("four", "4"),
    ("five", "5"),
    ("six", "6"),
    ("seven", "7"),
    ("eight", "8"),
    ("nine", "9"),
    ("ten", "10"),
];

/// Number words past [`NUMBER_WORDS`].
const MORE_NUMBERS: &[(&str, &str)] = &[("eleven", "11"), ("twelve", "12")];
/// English nouns that name list things.
pub(super) const NOUNS: &[&str] = &[
    "items", "item", "entries", "entry", "todos", "todo", "tasks", "task", "things", "thing",
    "ones", "rows", "row", "lines", "line", "chores", "errands", "jobs",
];
/// English words of the checked state.
const DONE: &[&str] = &[
    "ticked",
    "checked",
    "done",
    "completed",
    "complete",
    "finished",
    "crossed",
    "marked",
];
/// English words of the unchecked state.
const OPEN: &[&str] = &[
    "open",
    "unticked",
    "unchecked",
    "undone",
    "outstanding",
    "pending",
    "incomplete",
    "unfinished",
    "active",
    "todo",
];
/// English words that make a count a total.
const TOTAL: &[&str] = &[
    "there",
    "exactly",
    "total",
    "all",
    "altogether",
    "only",
    "just",
    "has",
    "have",
    "contains",
    // "verify that three items remain" ("the remaining two" picks items out: no total).
    "remain",
    // "confirm it shows three items": what the list shows, counted.
    "shows",
    "show",
    "showing",
    "lists",
    "displays",
];
/// Words between a number and its noun that pick some items out ("2 new items", "two more
/// entries"): the number counts those, not the list.
const SUBSET: &[&str] = &[
    "new",
    "more",
    "extra",
    "other",
    "added",
    "additional",
    "fewer",
    "less",
];
/// English negations (apostrophes dropped).
const NOT: &[&str] = &[
    "not", "arent", "isnt", "dont", "doesnt", "havent", "hasnt", "wasnt", "werent", "never",
];
/// Words after which a number names items rather than counts them.
const NAMING: &[&str] = &[
    "the", "these", "those", "my", "your", "our", "first", "last",
];
/// Chinese classifiers of list things.
const CLASSIFIERS: &[char] = &['条', '项', '件', '个'];
/// Chinese words of the unchecked state (tried before [`DONE_ZH`]: 没完成 holds 完成).
const OPEN_ZH: &[&str] = &[
    "没打勾",
    "未打勾",
    "没勾",
    "未勾",
    "没有勾",
    "没完成",
    "未完成",
    "没做",
    "还没",
    "没办",
    "待办",
    "开着",
];
/// Chinese words of the checked state.
const DONE_ZH: &[&str] = &[
    "打勾",
    "打了勾",
    "勾选",
    "勾上",
    "完成",
    "做完",
    "办完",
    "划掉",
];
/// Chinese words that make a count a total.
const TOTAL_ZH: &[&str] = &[
    "一共", "总共", "共", "总计", "总数", "合计", "只有", "只剩", "剩", "正好", "有",
];

/// The `assert N items …` lines of `clause` (see the module docs); empty when it counts
/// nothing.
pub fn item_counts(clause: &str) -> Vec<String> {
    if clause.chars().any(super::cjk::is_cjk) {
        return counts_zh(clause);
    }
    let lower = clause.to_lowercase().replace(['’', '\''], "");
    let mut out = Vec::new();
    for part in parts_en(&lower) {
        let words: Vec<&str> = part
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        if let Some(line) = count_en(&words) {
            out.push(line);
        }
    }
    out
}

/// `lower` split at " and ", ";", colons and commas.
fn parts_en(lower: &str) -> Vec<String> {
    lower
        .replace(" and ", ",")
        .replace(" but ", ",")
        .split([',', ';', ':'])
        .map(str::to_string)
        .collect()
}

/// A number word or digits as a count.
fn number_en(w: &str) -> Option<u32> {
    if w.chars().all(|c| c.is_ascii_digit()) {
        return w.parse().ok();
    }
    NUMBER_WORDS
        .iter()
        .chain(MORE_NUMBERS)
        .find(|(n, _)| *n == w)
        .and_then(|(_, d)| d.parse().ok())
}

/// The line of one English part (its words), if it counts items.
fn count_en(words: &[&str]) -> Option<String> {
    let (at, n) = words
        .iter()
        .enumerate()
        .find_map(|(i, w)| number_en(w).map(|n| (i, n)))?;
    if at > 0 && NAMING.contains(&words[at - 1]) {
        return None;
    }
    let after = &words[at + 1..];
    let of_them =
        after.len() >= 2 && after[0] == "of" && ["them", "those", "these"].contains(&after[1]);
    let has = |set: &[&str]| words.iter().any(|w| set.contains(w));
    // "six entries, two ticked": a part that is nothing but a count is one.
    let bare = at == 0
        && after.len() <= 2
        && !after.is_empty()
        && after
            .iter()
            .all(|w| NOUNS.contains(w) || DONE.contains(w) || OPEN.contains(w));
    let noun = after.iter().take(3).position(|w| NOUNS.contains(w));
    if !of_them && !bare && noun.is_none() {
        return None;
    }
    let negated = has(NOT);
    // "three tasks left / remaining": what a list's counter counts, the open ones ("N items
    // left", the counter's own text, is read before this).
    let left = after.iter().any(|w| ["left", "remaining"].contains(w)) && !has(DONE);
    let state =
        if has(OPEN) || has(DONE) && negated || words.windows(2).any(|p| p == ["to", "do"]) || left
        {
            Some(false)
        } else if has(DONE) {
            Some(true)
        } else {
            None
        };
    if state.is_none() && !(has(TOTAL) || of_them || bare) {
        return None;
    }
    // "make sure it doesn't show 3 items", "the list shows 2 new items": no total of the
    // list (a total not there, or some items picked out).
    let picked = after[..noun.unwrap_or(0)]
        .iter()
        .any(|w| SUBSET.contains(w));
    if state.is_none() && (negated || picked) {
        return None;
    }
    Some(argus_protocol::action::items_line(state, n))
}

/// The lines of a Chinese clause.
fn counts_zh(clause: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in clause
        .split(['，', ',', '；', ';', '、'])
        .flat_map(|p| p.split("其中"))
    {
        if let Some(line) = count_zh(part) {
            out.push(line);
        }
    }
    out
}

/// The count of one Chinese part: a number before a classifier, and the state it names.
fn count_zh(part: &str) -> Option<String> {
    let chars: Vec<char> = part.chars().collect();
    let (at, n) = (0..chars.len()).find_map(|i| {
        let (n, len) = number_zh(&chars[i..])?;
        // "还剩 3 项没做": a space may stand between the number and its classifier.
        let gap = chars[i + len..].iter().take_while(|c| **c == ' ').count();
        CLASSIFIERS
            .contains(chars.get(i + len + gap)?)
            .then_some((i, n))
    })?;
    let before: String = chars[..at].iter().collect();
    // "确认第 2 条已完成": a space may stand after the word too.
    if ["这", "那", "前", "后", "第"]
        .iter()
        .any(|d| before.trim_end().ends_with(d))
        && n != 1
    {
        return None;
    }
    let state = if OPEN_ZH.iter().any(|w| part.contains(w)) {
        Some(false)
    } else if DONE_ZH.iter().any(|w| part.contains(w)) {
        Some(true)
    } else if before.contains('剩') {
        // "左下角显示还剩 3 项": what is left is what a list's counter counts, the open ones
        // (as "3 items left").
        Some(false)
    } else {
        None
    };
    if state.is_none() && !TOTAL_ZH.iter().any(|w| before.contains(w)) {
        return None;
    }
    Some(argus_protocol::action::items_line(state, n))
}

/// A Chinese count at the start of `c` (digits, or 一…十二 with 两) and its length in chars.
fn number_zh(c: &[char]) -> Option<(u32, usize)> {
    let digits: String = c.iter().take_while(|d| d.is_ascii_digit()).collect();
    if !digits.is_empty() {
        return Some((digits.parse().ok()?, digits.chars().count()));
    }
    let unit = |d: char| {
        "零一二三四五六七八九"
            .find(d)
            .map(|b| (b / 3) as u32)
            .or((d == '两').then_some(2))
    };
    match (c.first().copied(), c.get(1).copied()) {
        (Some('十'), Some(d)) if unit(d).is_some_and(|u| u > 0) => Some((10 + unit(d)?, 2)),
        (Some('十'), _) => Some((10, 1)),
        (Some(d), _) => unit(d).filter(|u| *u > 0).map(|u| (u, 1)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_in_english_by_state_and_as_a_total() {
        assert_eq!(
            item_counts("make sure there are six entries and three of them are still open"),
            [
                "assert 6 items are listed",
                "assert 3 items are not checked"
            ]
        );
        assert_eq!(
            item_counts("double-check that exactly two items are ticked"),
            ["assert 2 items are checked"]
        );
        assert_eq!(
            item_counts("verify that 4 tasks aren't done yet"),
            ["assert 4 items are not checked"]
        );
        assert_eq!(
            item_counts("make sure only one entry is completed"),
            ["assert 1 item is checked"]
        );
        // Counts said bare, after a colon.
        assert_eq!(
            item_counts("quick check when you're finished: five rows, one open"),
            ["assert 5 items are listed", "assert 1 item is not checked"]
        );
    }

    #[test]
    fn numbers_that_name_or_do_not_count_items_give_nothing() {
        assert!(item_counts("make sure the 2 new items are at the bottom").is_empty());
        // "remaining" picks some items out; it makes no total of the list.
        assert!(item_counts("tick the remaining two items").is_empty());
        assert_eq!(
            item_counts("make sure three items remain"),
            ["assert 3 items are listed"]
        );
        assert!(item_counts("check that version 2 shows").is_empty());
        assert!(item_counts("make sure it says 3 items").is_empty());
        assert!(item_counts("confirm the year is 1999").is_empty());
        assert!(item_counts("check the total: 3 apples").is_empty());
        // What the list shows is a total, but not one said not to be, nor some items
        // picked out of it.
        assert_eq!(
            item_counts("then confirm the list shows two items"),
            ["assert 2 items are listed"]
        );
        assert!(item_counts("make sure it doesn't show 3 items").is_empty());
        assert!(item_counts("make sure the list shows 2 new items at the top").is_empty());
        assert!(item_counts("check it displays two more tasks than before").is_empty());
    }

    #[test]
    fn counts_in_chinese() {
        assert_eq!(
            item_counts("检查：没打勾的应该正好三条"),
            ["assert 3 items are not checked"]
        );
        assert_eq!(
            item_counts("确认一共五条，其中两条已完成"),
            ["assert 5 items are listed", "assert 2 items are checked"]
        );
        assert_eq!(
            item_counts("确保整张单子只剩年检这一条没打勾"),
            ["assert 1 item is not checked"]
        );
        assert!(item_counts("确认前两条还在").is_empty());
        // A space between the number and its classifier, or before the number.
        assert_eq!(
            item_counts("底部应该显示还剩 2 项没做"),
            ["assert 2 items are not checked"]
        );
        assert!(item_counts("确认第 2 条已完成").is_empty());
        assert!(item_counts("确认前 2 条都完成了").is_empty());
        assert!(item_counts("确认页面显示欢迎").is_empty());
    }
}
