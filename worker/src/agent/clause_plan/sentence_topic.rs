//! A Chinese sentence's first clause as the topic of a bare order at its end: "洗车不用专门
//! 去，年检站旁边就有洗车的，顺路洗一下就行，这条删了" deletes 洗车, not the 年检 item the
//! aside in between names. Chinese puts a sentence's topic first and says 这条 / 删了 of
//! it; the clauses between that order nothing are what is said about it.
//!
//! Only Chinese: an English "it" after asides speaks of the nearest ("The bread went stale,
//! the milk came back fine, tick it").

use super::clause_kind::no_order_verb_zh;
use super::reports::named;
use crate::agent::effects;

/// Demonstratives of a bare order that speak of the item just talked about.
const THIS_ONE: &[&str] = &["这条", "那条", "这项", "那项", "这个", "它"];

/// The index of the clause whose item a bare Chinese order `k` (这条删了, 勾上) speaks of,
/// when its sentence (in `instruction`, clauses as written `raw`, without fillers `segs`)
/// starts two or more clauses before it with a clause that names one item of `items` and
/// orders nothing, and no clause between gives an order; `None` otherwise.
pub(super) fn topic_first(
    k: usize,
    segs: &[String],
    raw: &[String],
    instruction: &str,
    items: &[(String, bool)],
) -> Option<usize> {
    let seg = segs[k].as_str();
    if !seg.chars().any(effects::is_cjk) {
        return None;
    }
    let bare = THIS_ONE.iter().any(|w| seg.contains(w)) || named(seg, items).is_none();
    if !bare {
        return None;
    }
    let ids = sentence_ids(raw, instruction)?;
    let mut first = k;
    while first > 0 && ids[first - 1] == ids[k] {
        first -= 1;
    }
    if k - first < 2 || !(no_order_verb_zh(&segs[first]) || reports_done_zh(&segs[first])) {
        return None;
    }
    named(&segs[first], items)?;
    let quiet = (first + 1..k).all(|j| effects::order_of(&segs[j]).is_none());
    quiet.then_some(first)
}

/// Whether `seg` tells of something done with a verb that could order ("水电费交清了",
/// "钉子眼补好了": 清 and 补 also clear and add) but reads as no order and ends in 了.
fn reports_done_zh(seg: &str) -> bool {
    let seg = seg.trim();
    seg.ends_with('了') && seg.chars().any(effects::is_cjk) && effects::order_of(seg).is_none()
}

/// For each clause as written (`raw`, in order), the number of the sentence of
/// `instruction` it stands in (sentences end at `。！？：` and at `.!?:` before a space or a
/// line end: a heading before a colon is no topic of what follows); `None` when a clause
/// cannot be found in order.
fn sentence_ids(raw: &[String], instruction: &str) -> Option<Vec<usize>> {
    let ends: Vec<usize> = instruction
        .char_indices()
        .filter(|(i, c)| {
            ['。', '！', '？', '：', '\n'].contains(c)
                || (['.', '!', '?', ':'].contains(c)
                    && instruction[i + 1..]
                        .chars()
                        .next()
                        .is_none_or(char::is_whitespace))
        })
        .map(|(i, _)| i)
        .collect();
    let mut at = 0;
    let mut ids = Vec::with_capacity(raw.len());
    for r in raw {
        let r = r.trim();
        let start = at + instruction.get(at..)?.find(r)?;
        at = start + r.len();
        ids.push(ends.iter().filter(|e| **e < start).count());
    }
    Some(ids)
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{list, steps};

    #[test]
    fn a_chinese_sentence_s_first_clause_is_what_its_bare_order_speaks_of() {
        let obs = list(&[("修自行车", false), ("买车险", false)]);
        assert_eq!(
            steps(
                "自行车不用修了，车行说车险里包了，直接换新的，这条删了。",
                &obs
            )
            .unwrap(),
            vec!["tap \"Delete\" in the row of \"修自行车\""]
        );
        // A first clause that tells of a verb done (补好了) is the topic too: the receipt
        // the clause between names is what was said about it.
        let fees = list(&[("补交学费", false), ("把保修卡找出来", false)]);
        assert_eq!(
            steps("学费昨天补好了，学校给了保修卡一样的回执，勾上。", &fees).unwrap(),
            vec!["check \"补交学费\""]
        );
        // The nearest clause decides when the sentence is only two clauses long.
        assert_eq!(
            steps("车险买好了，勾上。", &obs).unwrap(),
            vec!["check \"买车险\""]
        );
    }
}
