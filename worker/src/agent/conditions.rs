//! Orders given on a condition of an item's state: "if it's still open, delete it", "if the
//! shoes aren't ticked yet, tick them", "unless the rent one is done, …", 如果还没勾就勾上.
//! The plan reads the condition against the state it knows and keeps the order it gates
//! only when the condition holds; "leave it where it is" and the like order nothing.

/// English words a condition clause starts with, and whether they negate it.
const EN_LEADS: &[(&str, bool)] = &[
    ("only if ", false),
    ("if ", false),
    ("in case ", false),
    ("unless ", true),
];
/// Chinese words a condition starts with.
const ZH_LEADS: &[&str] = &["如果", "要是", "假如", "假若", "若是", "倘若"];
/// English copulas between a condition's subject and its state.
const COPULAS: &[&str] = &[
    " is ",
    " are ",
    "'s ",
    "'re ",
    " isn't ",
    " aren't ",
    " was ",
    " wasn't ",
    " has been ",
    " hasn't been ",
    " have been ",
    " haven't been ",
];
/// States that say "done" and "not done" (read after a negation flips them).
const DONE: &[&str] = &[
    "done",
    "finished",
    "complete",
    "completed",
    "ticked",
    "checked",
    "ticked off",
    "checked off",
    "crossed off",
    "marked done",
    "marked as done",
];
const OPEN: &[&str] = &[
    "open",
    "undone",
    "incomplete",
    "unfinished",
    "unticked",
    "unchecked",
    "active",
    "pending",
    "outstanding",
    "left",
];
/// Words between the copula and the state.
const ADVERBS: &[&str] = &["still", "already", "not", "yet", "all", "now", "actually"];
/// Chinese words of a condition saying "not done" and "done".
const ZH_OPEN: &[&str] = &[
    "没勾",
    "没打勾",
    "没完成",
    "未完成",
    "没做",
    "还开着",
    "没弄",
];
const ZH_DONE: &[&str] = &[
    "打勾了",
    "打了勾",
    "打上勾",
    "已打勾",
    "勾了",
    "勾上了",
    "已勾",
    "已经勾",
    "完成了",
    "已完成",
    "做完了",
];

/// A condition clause: its subject (the words naming the items, a pronoun included) and the
/// state it tests (`true`: done), negated for `unless`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Condition {
    /// The words naming the items ("it", "the shoes", "那条").
    pub subject: String,
    /// Whether the condition holds when the items are done.
    pub when_done: bool,
}

/// The condition `seg` states, when it is a condition clause on an item's state (see the
/// module docs); `Err(())` for a condition on some other state ("if the page is slow": its
/// order cannot be foreseen), `Ok(None)` when `seg` is no condition of that shape.
pub(super) fn condition(seg: &str) -> Result<Option<Condition>, ()> {
    let s = seg.trim().replace('’', "'");
    if s.chars().any(super::cjk::is_cjk) {
        return zh_condition(&s);
    }
    let lower = s.to_lowercase();
    let Some((lead, negate)) = EN_LEADS.iter().find(|(l, _)| lower.starts_with(l)) else {
        return Ok(None);
    };
    let body = format!(" {} ", &lower[lead.len()..]);
    // "if you have time" tests no item: no condition of this kind.
    let Some((at, cop)) = COPULAS
        .iter()
        .filter_map(|c| body.find(c).map(|i| (i, *c)))
        .min()
    else {
        return Ok(None);
    };
    let subject = body[..at].trim().to_string();
    let mut rest = body[at + cop.len()..].trim().to_string();
    let mut negative = cop.contains("n't");
    while let Some(a) = ADVERBS
        .iter()
        .find(|a| rest == **a || rest.starts_with(&format!("{a} ")))
    {
        negative ^= *a == "not";
        rest = rest[a.len()..].trim().to_string();
    }
    let mut rest = rest.trim_end_matches(['.', '!', ' ']);
    while let Some(r) = ["yet", "already", "now", "still", "anymore", "then"]
        .iter()
        .find_map(|t| rest.strip_suffix(t).filter(|r| r.ends_with(' ')))
    {
        rest = r.trim_end();
    }
    let state = if DONE.contains(&rest) {
        true
    } else if OPEN.contains(&rest) {
        false
    } else {
        return Err(());
    };
    if subject.is_empty() {
        return Err(());
    }
    Ok(Some(Condition {
        subject,
        when_done: state ^ negative ^ negate,
    }))
}

/// [`condition`] for a Chinese clause.
fn zh_condition(s: &str) -> Result<Option<Condition>, ()> {
    let lead = ZH_LEADS.iter().find(|l| s.starts_with(*l));
    if lead.is_none() && !s.ends_with("的话") {
        return Ok(None);
    }
    let body = s[lead.map_or(0, |l| l.len())..].trim_end_matches("的话");
    let (at, when_done) = ZH_OPEN
        .iter()
        .filter_map(|w| body.find(w).map(|i| (i, false)))
        .chain(
            ZH_DONE
                .iter()
                .filter_map(|w| body.find(w).map(|i| (i, true))),
        )
        .min()
        .ok_or(())?;
    let subject = body[..at]
        .trim_end_matches(['还', '已', '经', '是'])
        .to_string();
    Ok(Some(Condition {
        subject: if subject.is_empty() {
            "它".into()
        } else {
            subject
        },
        when_done,
    }))
}

/// A Chinese clause holding a condition and its order, split at the 就 between them
/// ("要是已经勾上了就删掉" → "要是已经勾上了", "删掉"; "还没勾的话就给它勾上"); any other
/// clause as it is.
pub(super) fn split_zh(seg: &str) -> Vec<String> {
    let s = seg.trim();
    let conditional = ZH_LEADS.iter().any(|l| s.starts_with(l)) || s.contains("的话");
    match s.split_once('就') {
        Some((cond, order)) if conditional && !cond.is_empty() && !order.is_empty() => {
            vec![cond.to_string(), order.to_string()]
        }
        _ => vec![seg.to_string()],
    }
}

/// Whether an order's state-test holds for items in the states `done` (every one must).
pub(super) fn holds(c: &Condition, done: &[bool]) -> bool {
    !done.is_empty() && done.iter().all(|d| *d == c.when_done)
}

/// Clause ends that keep an item as it is: "leave it where it is", "keep that one as is".
const KEEPS: &[&str] = &[
    " alone",
    " as is",
    " as it is",
    " as they are",
    " where it is",
    " where they are",
    " untouched",
    " in place",
    " be",
    " on the list",
    " there",
];
/// Chinese clauses that keep an item as it is.
const ZH_KEEPS: &[&str] = &[
    "不用管",
    "别管",
    "别动",
    "不要动",
    "不用动",
    "保持不变",
    "保留",
];

/// Whether `seg` only says to keep an item as it is (it orders nothing).
pub(super) fn keeps(seg: &str) -> bool {
    if seg.chars().any(super::cjk::is_cjk) {
        return ZH_KEEPS.iter().any(|w| seg.contains(w));
    }
    let lower = seg.trim().trim_end_matches(['.', '!']).to_lowercase();
    (lower.starts_with("leave ") || lower.starts_with("keep "))
        && KEEPS.iter().any(|k| lower.ends_with(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(s: &str) -> Option<Condition> {
        condition(s).ok().flatten()
    }

    #[test]
    fn english_conditions_read_subject_and_state() {
        let c = cond("if it's still open").unwrap();
        assert_eq!((c.subject.as_str(), c.when_done), ("it", false));
        let c = cond("if the boots aren't ticked yet").unwrap();
        assert_eq!((c.subject.as_str(), c.when_done), ("the boots", false));
        let c = cond("if that one is already done").unwrap();
        assert_eq!((c.subject.as_str(), c.when_done), ("that one", true));
        let c = cond("unless the rent is completed").unwrap();
        assert!(!c.when_done);
        let c = cond("if they're not finished").unwrap();
        assert_eq!((c.subject.as_str(), c.when_done), ("they", false));
        assert_eq!(condition("tick the boots"), Ok(None));
        assert_eq!(condition("if you have time"), Ok(None));
        assert_eq!(condition("if the page is slow"), Err(()));
    }

    #[test]
    fn chinese_conditions_and_keeps() {
        let c = cond("如果交房租还没勾").unwrap();
        assert_eq!((c.subject.as_str(), c.when_done), ("交房租", false));
        let c = cond("要是已经勾上了").unwrap();
        assert_eq!((c.subject.as_str(), c.when_done), ("它", true));
        assert!(holds(&c, &[true]));
        assert!(!holds(&c, &[false, true]));
        assert!(keeps("leave it where it is"));
        assert!(keeps("Keep the rent one as is."));
        assert!(!keeps("leave the rent one open"));
        assert!(keeps("“交房租”那条不用管"));
    }
}
