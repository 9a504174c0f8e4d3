//! `assert 2 items are checked` / `assert 3 items are not checked` / `assert 6 items are
//! listed` (断言 共有 2 项已勾选 / 断言 共有 3 项未勾选 / 断言 共有 6 项): how many list items
//! the screen shows, in a state or at all ([`Action::AssertItems`]).

use super::{err, expect_end, strip_cjk, strip_kw, LineResult, Step};
use crate::action::Action;

const HINT: &str = "write assert 2 items are checked, assert 3 items are not checked or \
                    assert 6 items are listed (断言 共有 2 项已勾选 / 未勾选, 断言 共有 6 项)";

/// The count at the start of `s` and the rest; `None` when `s` starts with no digit.
fn count(s: &str) -> Option<(u32, &str)> {
    let s = s.trim_start();
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n = s[..end].parse().ok()?;
    Some((n, &s[end..]))
}

/// The English form after `assert`; `None` when `rest` does not start with a count followed
/// by `item`/`items` (so `assert screen contains …` and the other forms are untouched).
pub(super) fn parse_en(rest: &str) -> Option<LineResult<Step>> {
    let (n, tail) = count(rest)?;
    let tail = strip_kw(tail, "items").or_else(|| strip_kw(tail, "item"))?;
    let Some(tail) = strip_kw(tail, "are").or_else(|| strip_kw(tail, "is")) else {
        return Some(err("expected `are` after the items", HINT));
    };
    let states: [(&str, Option<bool>); 4] = [
        ("not checked", Some(false)),
        ("unchecked", Some(false)),
        ("checked", Some(true)),
        ("listed", None),
    ];
    let Some((checked, tail)) = states
        .iter()
        .find_map(|(kw, st)| strip_kw(tail, kw).map(|t| (*st, t)))
    else {
        return Some(err(
            "expected `checked`, `not checked` or `listed` after the count",
            HINT,
        ));
    };
    Some(expect_end(tail).map(|()| Step::Act(Action::AssertItems { checked, count: n })))
}

/// The Chinese form after `断言`: `共有 N 项[已勾选|未勾选]` (`共` / `有` alone too; `项`,
/// `条` or `个`); `None` when `rest` is not one.
pub(super) fn parse_zh(rest: &str) -> Option<LineResult<Step>> {
    let body = ["共有", "共", "有"]
        .iter()
        .find_map(|p| strip_cjk(rest, p))
        .unwrap_or(rest);
    let (n, tail) = count(body)?;
    let tail = ["项", "条", "个"].iter().find_map(|u| strip_cjk(tail, u))?;
    let states: [(&str, Option<bool>); 5] = [
        ("已勾选", Some(true)),
        ("已选中", Some(true)),
        ("未勾选", Some(false)),
        ("未选中", Some(false)),
        ("", None),
    ];
    let (checked, tail) = states
        .iter()
        .find_map(|(kw, st)| strip_cjk(tail, kw).map(|t| (*st, t)))?;
    Some(expect_end(tail).map(|()| Step::Act(Action::AssertItems { checked, count: n })))
}
