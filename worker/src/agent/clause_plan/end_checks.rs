//! The check lines a plan is held to afterwards: the end state a read plan leaves its items
//! in, and the items nobody names that a model's plan must leave as they were.

use super::item_match::by_words;
use super::screen::list_items;
use super::stems::{same_word, words, ALL_WORDS};
use crate::agent::plan_step::{PlanStep, StepKind};
use crate::agent::{clauses, effects, positions};
use argus_perception::Observation;

/// Whether an order the model acts out may touch many items: it says all / every / clear /
/// done / completed (a clearing or tick-all order Argus did not read).
pub(super) fn names_many(seg: &str) -> bool {
    let lower = seg.to_lowercase();
    let has = |w: &str| lower.split(|c: char| !c.is_alphanumeric()).any(|x| x == w);
    ALL_WORDS
        .iter()
        .any(|w| has(w) || (w.chars().any(effects::is_cjk) && seg.contains(w)))
        || MANY_WORDS.iter().any(|w| has(w))
        || MANY_WORDS_ZH.iter().any(|w| seg.contains(w))
}

/// Whether a clause clears the list's done items ("clear completed", 清除已完成).
fn clears(seg: &str) -> bool {
    let lower = seg.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w == "clear")
        || seg.contains('清')
}

/// Words of an order that may touch items it does not name: states, positions, "the rest".
const MANY_WORDS: &[&str] = &[
    "clear",
    "completed",
    "done",
    "finished",
    "ticked",
    "checked",
    "first",
    "second",
    "third",
    "last",
    "top",
    "bottom",
    "other",
    "others",
    "rest",
    "remaining",
    "next",
    "previous",
    "above",
    "below",
];

/// Chinese [`MANY_WORDS`].
const MANY_WORDS_ZH: &[&str] = &[
    "清", "完成", "勾", "所有", "全", "第", "其他", "其余", "剩下", "最后", "上面", "下面",
];

/// For a plan the model makes alone: the check lines that keep the list items on `obs` the
/// instruction never names as they are, when it names at least one of them by its words and
/// says nothing that may touch many ([`names_many`]); none otherwise (an instruction about
/// something else, a page of checkboxes to pick by meaning).
pub fn unnamed_guard(instruction: &str, obs: &Observation) -> Vec<String> {
    let items = list_items(obs);
    let said = words(instruction);
    let named = items.iter().any(|(name, _)| {
        words(name)
            .iter()
            .any(|w| said.iter().any(|x| same_word(x, w)))
    });
    // A clause may touch many when it says so and names no one item ("clear completed";
    // "mark 'a' as done" names its item).
    // So may one that clears ("clear completed so only the rent is left") or takes items out
    // of an all ("tick everything except the rent").
    let many = clauses::segments(instruction).iter().any(|seg| {
        names_many(seg)
            && clauses::quoted(seg).is_empty()
            && by_words(seg, &items, Some(1)).is_none()
            || positions::except(seg, &[]).is_some()
            || clears(seg)
    });
    if !named || many {
        return Vec::new();
    }
    unnamed_untouched(&items, instruction)
}

/// The check lines that keep every item of `start` that `instruction` never names (no word
/// or, in Chinese, no character pair of its name in the instruction) in its state.
pub(super) fn unnamed_untouched(start: &[(String, bool)], instruction: &str) -> Vec<String> {
    let said = words(instruction);
    start
        .iter()
        .filter(|(name, _)| {
            !words(name)
                .iter()
                .any(|w| said.iter().any(|x| same_word(x, w)))
                && !clauses::quoted(instruction).iter().any(|q| q == name)
        })
        .map(|(name, done)| {
            let state = if *done {
                "is checked"
            } else {
                "is not checked"
            };
            format!("assert {} {state}", clauses::quote_line(name))
        })
        .collect()
}

/// Whether a tapped control clears the done items ("Clear completed", 清除已完成): a view's
/// link ("Active", "Completed", "All") changes no item.
fn clearing(name: &str) -> bool {
    let lower = name.trim().to_lowercase();
    ["clear", "remove", "delete", "purge"]
        .iter()
        .any(|w| lower.starts_with(w))
        || ["清除", "清空", "删除", "清理"]
            .iter()
            .any(|w| name.contains(w))
}

/// Whether a tapped control leaves a view that hides some items ("Active", "Completed"):
/// any tap but a clearing one and "All" / 全部.
fn narrows(name: &str) -> bool {
    let lower = name.trim().to_lowercase();
    !clearing(name) && !["all", "全部", "所有"].contains(&lower.as_str())
}

/// Whether plan `lines` end on a view that hides some items: the last tap (not a row's
/// delete) is on a control that narrows the list ([`narrows`]: "Completed", "Active").
pub fn ends_on_view(lines: &[String]) -> bool {
    lines
        .iter()
        .rev()
        .filter(|l| !l.contains(" in the row of "))
        .find_map(|l| l.strip_prefix("tap "))
        .and_then(|rest| clauses::quoted(rest).first().cloned())
        .is_some_and(|t| narrows(&t))
}

/// The check lines of the end state `steps` leave the screen's items `start` in: a ticked,
/// unticked or untouched item's state (under its last name), an added or renamed item shown,
/// a deleted, cleared or renamed-away one gone (unless a shown item's name holds its text).
/// A tap on a clearing button ([`clearing`]) takes away the items done by then; a view's
/// link changes none, and a plan that ends on a view other than All gives no end state.
pub(super) fn end_state(start: &[(String, bool)], steps: &[PlanStep]) -> Vec<String> {
    // A plan that ends on a view hiding some items cannot show its whole end state.
    let last_tap = steps.iter().rev().find(|s| s.kind == StepKind::Tap);
    if last_tap.is_some_and(|t| narrows(&t.target)) {
        return Vec::new();
    }
    let mut items = start.to_vec();
    let mut set: Vec<String> = Vec::new();
    let mut shown: Vec<String> = Vec::new();
    let mut gone: Vec<String> = Vec::new();
    let rename = |v: &mut Vec<String>, old: &str, new: &str| {
        for n in v.iter_mut().filter(|n| *n == old) {
            *n = new.to_string();
        }
    };
    for s in steps {
        let t = s.target.as_str();
        match s.kind {
            StepKind::Check | StepKind::Uncheck => {
                if let Some(it) = items.iter_mut().find(|(n, _)| n == t) {
                    it.1 = s.kind == StepKind::Check;
                }
                set.push(t.to_string());
            }
            StepKind::CheckAll | StepKind::UncheckAll => {
                for it in items.iter_mut() {
                    it.1 = s.kind == StepKind::CheckAll;
                    set.push(it.0.clone());
                }
            }
            StepKind::Delete => {
                items.retain(|(n, _)| n != t);
                gone.push(t.to_string());
            }
            StepKind::Type => {
                items.push((s.text.clone(), false));
                shown.push(s.text.clone());
            }
            StepKind::Rename => {
                if let Some(it) = items.iter_mut().find(|(n, _)| n == t) {
                    it.0 = s.text.clone();
                }
                rename(&mut set, t, &s.text);
                rename(&mut shown, t, &s.text);
                shown.push(s.text.clone());
                gone.push(t.to_string());
            }
            StepKind::Tap if clearing(t) => {
                gone.extend(items.iter().filter(|(_, d)| *d).map(|(n, _)| n.clone()));
                items.retain(|(_, d)| !d);
            }
            _ => {}
        }
    }
    let q = clauses::quote_line;
    let mut out: Vec<String> = Vec::new();
    for (n, done) in &items {
        // An item the plan never touches stays as it was (a model's or a misplaced tap's
        // collateral damage fails the run).
        let untouched = start.iter().any(|(s, _)| s == n) && !shown.contains(n);
        if set.contains(n) || untouched {
            let state = if *done {
                "is checked"
            } else {
                "is not checked"
            };
            out.push(format!("assert {} {state}", q(n)));
        } else if shown.contains(n) {
            out.push(format!("assert screen contains {}", q(n)));
        }
    }
    for g in gone {
        let line = format!("assert screen does not contain {}", q(&g));
        if !items.iter().any(|(n, _)| n.contains(g.as_str())) && !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::read;
    use super::super::test_support::list;
    use super::*;

    #[test]
    fn a_views_link_changes_no_item_and_a_plan_ending_on_one_names_no_end_state() {
        let start = vec![("a".to_string(), true), ("b".to_string(), false)];
        let tap = |t: &str| PlanStep {
            kind: StepKind::Tap,
            target: t.into(),
            text: String::new(),
        };
        let back = end_state(&start, &[tap("Active"), tap("All")]);
        assert!(
            back.contains(&"assert \"a\" is checked".to_string()),
            "{back:?}"
        );
        assert!(end_state(&start, &[tap("All"), tap("Completed")]).is_empty());
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(ends_on_view(&lines(&[
            "type \"x\" into \"New\"",
            "tap \"Completed\""
        ])));
        assert!(!ends_on_view(&lines(&[
            "tap \"Active\"",
            "tap \"All\"",
            "tap \"Delete\" in the row of \"a\""
        ])));
        assert!(!ends_on_view(&lines(&["tap \"Clear completed\""])));
        let cleared = end_state(&start, &[tap("Clear completed")]);
        assert!(
            cleared.contains(&"assert screen does not contain \"a\"".to_string()),
            "{cleared:?}"
        );
    }

    #[test]
    fn a_read_plan_names_the_end_state_it_leaves() {
        let obs = list(&[
            ("call the plumber", false),
            ("buy bread", false),
            ("pay rent", true),
        ]);
        let r = read(
            "Not the plumber: change that entry to read 'call the electrician'. The bread's been bought, so tick it off. Then clear the finished ones.",
            &obs,
        )
        .unwrap();
        assert_eq!(
            r.effects,
            vec![
                "assert screen contains \"call the electrician\"",
                "assert screen does not contain \"call the plumber\"",
                "assert screen does not contain \"buy bread\"",
                "assert screen does not contain \"pay rent\"",
            ]
        );
        let r = read("Tick off the bread and add 'buy milk'.", &obs).unwrap();
        assert_eq!(
            r.effects,
            vec![
                "assert \"call the plumber\" is not checked",
                "assert \"buy bread\" is checked",
                "assert \"pay rent\" is checked",
                "assert screen contains \"buy milk\""
            ]
        );
        // A free step's effect is not foreseen: only the items no clause names are
        // expected as they were.
        let r = read("Tick off the bread and sort the list by date.", &obs).unwrap();
        assert_eq!(
            r.effects,
            vec![
                "assert \"call the plumber\" is not checked",
                "assert \"pay rent\" is checked"
            ]
        );
        // …and none when the free step may touch many ("clear …", "all").
        let r = read("Tick off the bread and sort all the rest by date.", &obs).unwrap();
        assert!(r.effects.is_empty(), "{:?}", r.effects);
    }

    #[test]
    fn a_plan_the_model_makes_keeps_the_items_nobody_named() {
        let obs = list(&[
            ("walk the dog", false),
            ("book the groomer", true),
            ("buy cat food", false),
        ]);
        assert_eq!(
            unnamed_guard("Mark 'walk the dog' as done and sort by name.", &obs),
            vec![
                "assert \"book the groomer\" is checked",
                "assert \"buy cat food\" is not checked"
            ]
        );
        // Nothing for an order that may touch many, or an instruction naming no item.
        assert!(
            unnamed_guard("Mark 'walk the dog' as done, then clear completed.", &obs).is_empty()
        );
        assert!(unnamed_guard("Select words similar to happy and submit.", &obs).is_empty());
    }
}
