//! Descriptions that may report an open item's task done ("the big shop had it", "that
//! quote's in", "which counts as done"): the reader cannot tell a report of a finished task
//! from a fact said on the way ("it came in at seven minutes, so it's still too long"), so
//! each one is asked of the model on its own, a yes / no question about one item
//! ([`crate::agent::done_report`]). A yes ticks the item where the clause was said; the run
//! still cannot end `succeeded` on it ([`super::Read::unsure`] keeps the pair).
//!
//! Why: measured on long, chatty list updates written blind (README, "Measured here"),
//! every list instruction still wrong after the reader's rules had such a report that named
//! its item by words and said nothing the reader reads as an order: the item was left open.

use super::clause_kind::{KEEPS, KEEPS_ZH};
use super::item_match::{by_chars, by_words, names_the_list};
use crate::agent::plan_step::{PlanStep, StepKind};

/// A description that names one open item the plan leaves as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The sentence the clause was said in (the clause alone when it cannot be found).
    pub sentence: String,
    /// The item, as listed.
    pub item: String,
    /// Where in [`super::Read::steps`] a `check` of the item goes: after the steps of the
    /// clauses said before it.
    pub step: usize,
}

/// Whether `seg` leaves an item alone on purpose ("the brake pads item stays as it is",
/// "don't tick it", "除了…", "先放着"): no report, and no doubt about it either. A hyphened
/// word is one ("no-claims" is no "no").
pub(super) fn left_alone(seg: &str) -> bool {
    let lower = seg.to_lowercase();
    KEEPS_ZH.iter().any(|w| seg.contains(w))
        || lower
            .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
            .any(|w| KEEPS.contains(&w) || ["fine", "apart", "except", "besides"].contains(&w))
        || ["as it is", "as is", "除了", "原样"]
            .iter()
            .any(|w| lower.contains(w))
}

/// The one item of `start` that `seg` names by its words (or, in Chinese, its characters).
pub(super) fn named(seg: &str, start: &[(String, bool)]) -> Option<String> {
    by_words(seg, start, Some(1))
        .and_then(|mut v| v.pop())
        .or_else(|| by_chars(seg, start))
}

/// The reports among the descriptions `described` ((index into `segs`, step index)): each
/// names one item open at the `start` that no step of the plan (`typed`) touches and no
/// clause outside `described` names; none when a step may touch every item (tick all, a
/// tap). One report per item, its first. `raw` are the clauses as written, `instruction`
/// the whole text (for the sentence).
pub(super) fn reports(
    segs: &[String],
    raw: &[String],
    instruction: &str,
    described: &[(usize, usize)],
    start: &[(String, bool)],
    typed: &[PlanStep],
) -> Vec<Report> {
    let any_item = typed.iter().any(|s| {
        matches!(s.kind, StepKind::CheckAll | StepKind::UncheckAll)
            || (s.kind == StepKind::Tap && !is_view(&s.target))
    });
    if any_item {
        return Vec::new();
    }
    let desc: Vec<usize> = described.iter().map(|(k, _)| *k).collect();
    let mut out: Vec<Report> = Vec::new();
    for &(k, step) in described {
        let sentence = sentence_of(instruction, raw[k].trim());
        let in_sentence = |j: usize| {
            let c = raw[j].trim().trim_end_matches(['.', '。', ',', '，']);
            c.chars().count() >= 3 && sentence.contains(c)
        };
        // "The dry cleaning isn't ready, leave it.", "…, so bump the version in the tag
        // item": the sentence keeps the item, says it is not done, or gives an order the
        // reader read (its own reason to leave the item as it is).
        let ordered = (0..segs.len()).any(|j| j != k && !desc.contains(&j) && in_sentence(j));
        if left_alone(&sentence) || negated(&sentence) || ordered || names_the_list(&segs[k]) {
            continue;
        }
        let Some(item) = named(&segs[k], start) else {
            continue;
        };
        if kept_after(segs, k, &item, start) {
            continue;
        }
        let open = start.iter().any(|(n, done)| *n == item && !done);
        let touched = typed.iter().any(|s| s.target == item);
        let elsewhere = segs.iter().enumerate().any(|(j, s)| {
            j != k && !desc.contains(&j) && named(s, start).as_deref() == Some(&item)
        });
        if open && !touched && !elsewhere && !out.iter().any(|r| r.item == item) {
            out.push(Report {
                sentence,
                item,
                step,
            });
        }
    }
    out
}

/// Whether a clause after `k`, before one that names another item, keeps or negates what
/// was said ("The gas bill came. Don't tick it yet."): the report's own sentence does not
/// show it, so the model would judge without it.
fn kept_after(segs: &[String], k: usize, item: &str, start: &[(String, bool)]) -> bool {
    for seg in segs.iter().skip(k + 1).take(3) {
        if named(seg, start).is_some_and(|other| other != item) {
            return false;
        }
        if left_alone(seg) || negated(seg) {
            return true;
        }
    }
    false
}

/// Whether `sentence` says something is not so or not yet ("isn't", "haven't looked",
/// "never", "still working on it", 没,
/// 未, 不): a report of a finished task says nothing of the kind. A hyphened word is one
/// ("the no-claims question").
fn negated(sentence: &str) -> bool {
    let lower = sentence.to_lowercase().replace('’', "'");
    ['没', '未', '不', '别']
        .iter()
        .any(|c| sentence.contains(*c))
        || lower
            .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
            .any(|w| {
                w.ends_with("n't")
                    || ["not", "never", "no", "nothing", "nobody", "still", "yet"].contains(&w)
            })
}

/// Whether a tap on `target` only switches the list's view ("Completed", 已完成).
pub(super) fn is_view(target: &str) -> bool {
    ["all", "active", "completed", "全部", "未完成", "已完成"]
        .contains(&target.trim().to_lowercase().as_str())
}

/// The sentence of `instruction` that holds `clause` (split after `.`, `!`, `?`, `。`, `！`,
/// `？` and line ends; an ASCII stop only before a space), or the clause.
pub(super) fn sentence_of(instruction: &str, clause: &str) -> String {
    let mut sentences = Vec::new();
    let mut cur = String::new();
    let mut chars = instruction.chars().peekable();
    while let Some(c) = chars.next() {
        cur.push(c);
        // "2.3.1" is no sentence end: an ASCII stop ends one only before a space or the end.
        let ascii_end =
            ['.', '!', '?'].contains(&c) && chars.peek().is_none_or(|n| n.is_whitespace());
        if ascii_end || ['。', '！', '？', '\n'].contains(&c) {
            sentences.push(std::mem::take(&mut cur));
        }
    }
    sentences.push(cur);
    let probe = clause.trim_end_matches(['.', '。', ',', '，']);
    sentences
        .into_iter()
        .map(|s| s.trim().to_string())
        .find(|s| !probe.is_empty() && s.contains(probe))
        .unwrap_or_else(|| clause.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::read;
    use super::super::test_support::list;

    #[test]
    fn a_fact_naming_one_open_item_is_a_report_to_ask_about() {
        let obs = list(&[
            ("collect the dry cleaning", false),
            ("renew the bus pass", false),
            ("water the ferns", true),
        ]);
        let r = read(
            "Quick update. The dry cleaning is hanging in the hall now. Tick the bus pass.",
            &obs,
        )
        .expect("reads");
        assert_eq!(r.reports.len(), 1, "{r:?}");
        assert_eq!(r.reports[0].item, "collect the dry cleaning");
        assert_eq!(
            r.reports[0].sentence,
            "The dry cleaning is hanging in the hall now."
        );
        // Its check goes before the bus pass's.
        assert!(r.steps[r.reports[0].step].contains("bus pass"), "{r:?}");
    }

    #[test]
    fn a_sentence_runs_past_a_version_number_and_its_order_keeps_the_item() {
        let obs = list(&[("tag v4.1.0", false), ("write the release notes", false)]);
        let r = read(
            "We ship 4.1.2 instead of 4.1.0, so rename the tag item to 'tag v4.1.2'. The release notes are sitting in the shared drive.",
            &obs,
        )
        .expect("reads");
        assert_eq!(
            r.reports
                .iter()
                .map(|x| x.item.as_str())
                .collect::<Vec<_>>(),
            vec!["write the release notes"],
            "{r:?}"
        );
        assert_eq!(
            super::sentence_of("Ship 2.3.1 not 2.3.0, so bump it. Done.", "so bump it"),
            "Ship 2.3.1 not 2.3.0, so bump it."
        );
    }

    #[test]
    fn a_keep_said_in_the_next_sentence_leaves_no_report() {
        let obs = list(&[
            ("pay the water bill", false),
            ("book the MOT", false),
            ("sort the recycling", false),
        ]);
        for text in [
            "Tick the MOT. The water bill arrived this morning. Don't tick it yet, I want to check the meter reading.",
            "Delete the recycling one. The water bill arrived this morning. Leave that one for now.",
        ] {
            let r = read(text, &obs).expect("reads");
            assert!(r.reports.is_empty(), "{text}: {:?}", r.reports);
        }
        // Another item named in between: the report stands.
        let r = read(
            "Tick the MOT. The water bill arrived this morning. The recycling isn't done, leave it.",
            &obs,
        )
        .expect("reads");
        assert_eq!(r.reports.len(), 1, "{r:?}");
    }

    #[test]
    fn no_report_for_kept_touched_done_or_every_item() {
        let obs = list(&[
            ("collect the dry cleaning", false),
            ("renew the bus pass", false),
            ("water the ferns", true),
        ]);
        // Left alone on purpose; touched by an order; already done.
        for text in [
            "The dry cleaning isn't ready, leave it. Tick the bus pass.",
            "The dry cleaning came back, so delete it.",
            "The ferns got a good soak. Tick the bus pass.",
            "The dry cleaning is hanging in the hall. Tick everything.",
            "The dry cleaning I'm still waiting on. Tick the bus pass.",
        ] {
            let r = read(text, &obs).expect("reads");
            assert!(r.reports.is_empty(), "{text}: {:?}", r.reports);
        }
    }
}
