//! Clauses read together with their neighbours: a note's "X - done" split at its dash, a
//! "new item:" heading and the title after it, an exception said after an order on every
//! item, a take-back after a hesitation, a gerund that goes on with what was done, a
//! double-click or an Enter that belongs to the order beside it.

use super::order_steps::item_steps;
use super::{clause_kind::cancels, describes, Reader};
use crate::agent::clauses;
use crate::agent::effects::{self, Does};
use crate::agent::plan_step::{PlanStep, StepKind};

/// Words that hold a tick (or an untick) back from an item, and the order they hold back
/// ([`Reader::all_but`]).
const HELD_BACK: &[(&str, Does)] = &[
    ("别勾", Does::Check),
    ("不要勾", Does::Check),
    ("不用勾", Does::Check),
    ("别打勾", Does::Check),
    ("不要打勾", Does::Check),
    ("不勾", Does::Check),
    ("don't tick", Does::Check),
    ("do not tick", Does::Check),
    ("don't check", Does::Check),
    ("do not check", Does::Check),
    ("don't mark", Does::Check),
    ("别取消", Does::Uncheck),
    ("don't untick", Does::Uncheck),
    ("do not untick", Does::Uncheck),
];

/// Whether a clause only opens an item's editor ("double-click 'X'", "双击“X”"): a
/// double click and its object, nothing else done.
pub(super) fn opens_for_edit(seg: &str) -> bool {
    let lower = seg.trim().to_lowercase();
    let rest = [
        "double-click on ",
        "double-click ",
        "double click on ",
        "double click ",
        "double-tap ",
        "double tap ",
        "双击",
    ]
    .iter()
    .find_map(|v| lower.strip_prefix(v));
    rest.is_some_and(|r| effects::order_of(r).is_none())
}

/// Whether a clause only presses Enter ("press Enter", "commit with Enter", "hit return",
/// "按回车").
pub(super) fn presses_enter(seg: &str) -> bool {
    let lower = seg.trim().trim_end_matches(['.', '!', '。']).to_lowercase();
    let lower = lower.strip_prefix("and ").unwrap_or(&lower);
    [
        "press enter",
        "hit enter",
        "press return",
        "hit return",
        "commit with enter",
        "confirm with enter",
        "save with enter",
        "按回车",
        "回车",
        "按回车键",
        "敲回车",
    ]
    .contains(&lower)
}

impl Reader<'_> {
    /// "photos - done. fee - paid": a clause, a spaced dash and a bare state or done verb
    /// (split apart at the dash) is an order on the items the clause names; the state's
    /// clause is taken ([`Reader::taken`]).
    pub(super) fn dashed_state(&mut self, k: usize) -> Option<effects::Order> {
        let next = self.split.get(k + 1)?.1.trim().to_string();
        let state = next.trim_end_matches(['.', '!', '。']).to_lowercase();
        let does = effects::state_word(&state).or_else(|| {
            effects::DASH_STATES
                .contains(&state.as_str())
                .then_some(Does::Check)
        })?;
        let this = self.split[k].1.trim();
        let joined = effects::DASHES
            .iter()
            .any(|d| self.instruction.contains(&format!("{this}{d}{next}")));
        if !joined || this.split_whitespace().count() > 5 {
            return None;
        }
        self.taken.push(k + 1);
        Some(effects::Order {
            does,
            verb: None,
            object: format!(" {this}"),
        })
    }

    /// "new item: take photos of the damp corner": the whole clause after a heading that
    /// announces one new item and its colon, unquoted, is that item's title (an add).
    pub(super) fn titled_new_item(&self, k: usize) -> Option<effects::Order> {
        let head = self.segs.get(k.checked_sub(1)?)?.trim().to_lowercase();
        let heads = [
            "new item",
            "new todo",
            "new to-do",
            "new task",
            "new entry",
            "new one",
            "to add",
            "新增",
            "新加一条",
            "加一条",
            "新增一条",
        ];
        let colon = self
            .instruction
            .match_indices(self.split[k - 1].1.trim())
            .any(|(i, m)| {
                self.instruction[i + m.len()..]
                    .trim_start()
                    .starts_with([':', '：'])
            });
        let title = self.segs[k].trim().trim_end_matches(['.', '。', '!', '！']);
        (heads.contains(&head.as_str())
            && colon
            && clauses::quoted(title).is_empty()
            && !title.is_empty())
        .then(|| effects::Order {
            does: Does::Add,
            verb: None,
            object: clauses::quote_line(title),
        })
    }

    /// The steps of a clause that holds an order back from one item ("那条别勾", "but don't
    /// tick the fridge") after the plan ticked (or unticked) every item: that item put back.
    /// `None` for any other clause.
    pub(super) fn all_but(&mut self, seg: &str, before: &[&str]) -> Option<Vec<Option<PlanStep>>> {
        let lower = seg.to_lowercase();
        let (at, n, held) = HELD_BACK
            .iter()
            .filter_map(|(w, d)| lower.find(w).map(|i| (i, w.len(), *d)))
            .min_by_key(|(i, _, _)| *i)?;
        if lower.len() != seg.len() {
            return None;
        }
        let all = match held {
            Does::Check => StepKind::CheckAll,
            _ => StepKind::UncheckAll,
        };
        if !self.typed.iter().any(|t| t.kind == all) {
            return None;
        }
        let object = format!("{} {}", &seg[..at], &seg[at + n..]);
        let undo = if held == Does::Check {
            Does::Uncheck
        } else {
            Does::Check
        };
        let mut cx = self.ctx(before);
        item_steps(undo, &object, seg, &mut cx)
    }

    /// Whether clause `k` is a gerund joined by "and" to a clause before that orders nothing
    /// and tells what was done with a gerund of its own ("I spent Sunday clearing …").
    pub(super) fn gerund_goes_on(&self, k: usize) -> bool {
        let gerund = |s: &str| {
            s.split_whitespace()
                .any(|w| w.len() > 5 && w.to_lowercase().ends_with("ing"))
        };
        let raw = self.split[k].1.trim_start().to_lowercase();
        let Some(rest) = raw.strip_prefix("and ") else {
            return false;
        };
        let leads = rest
            .split_whitespace()
            .next()
            .is_some_and(|w| w.len() > 5 && w.ends_with("ing"));
        let prev = k.checked_sub(1).map(|j| self.segs[j].as_str());
        leads
            && self.last.is_none()
            && prev.is_some_and(|p| gerund(p) && describes(p) && effects::order_of(p).is_none())
    }

    /// The item words of an exception said right after an order on every item, in Chinese
    /// ("…全勾上，西瓜卡那条除外" → 西瓜卡那条); `None` when the next clause is none or the
    /// order's `object` names no whole.
    pub(super) fn postfix_exception(&self, k: usize, object: &str) -> Option<String> {
        let whole = ["全", "都", "所有", "剩下", "其余", "其他"]
            .iter()
            .any(|w| object.contains(w));
        let next = self.segs.get(k + 1)?.trim();
        let x = next
            .strip_suffix("除外")
            .or_else(|| next.strip_suffix("不算"))?
            .trim();
        (whole && !x.is_empty() && x.chars().any(effects::is_cjk)).then(|| x.to_string())
    }

    /// Whether the clause after `k` takes it back ("…, never mind"), a hesitation between
    /// them aside ("…, oh wait, never mind").
    pub(super) fn taken_back(&self, k: usize) -> bool {
        // "Add 'x'... no, make that 'y'": the "no" leads the correction of the add's text,
        // which types y ([`super::later_text::corrected_text`]); nothing is taken back.
        let add = effects::order_of(&self.segs[k]).filter(|o| o.does == Does::Add);
        if let Some([x]) = add.map(|o| clauses::quoted(&o.object)).as_deref() {
            if super::later_text::corrected_text(&self.segs, k, x, &self.items).is_some() {
                return false;
            }
        }
        let hesitates = |s: &str| {
            let l = s.trim().trim_end_matches(['.', '!', ',']).to_lowercase();
            [
                "oh",
                "wait",
                "oh wait",
                "hmm",
                "um",
                "hang on",
                "哦",
                "等等",
                "等一下",
            ]
            .contains(&l.as_str())
        };
        let mut next = self.segs.iter().zip(&self.split).skip(k + 1);
        let mut n = next.next();
        if n.is_some_and(|(s, _)| hesitates(s)) {
            n = next.next();
        }
        // "change it to 'X', and no, it isn't ordered yet": a "no" joined on by "and"
        // answers a question the listener may have; it takes nothing back. Only when a
        // statement follows it: "…, and no, leave it", "…, and no, not the milk", "…, and
        // no." take the order back as a bare "no" does. Nor after an order on a row: "delete
        // the milk, and no, we still need it" takes the delete back.
        let and_no = |(s, (_, raw)): (&String, &(String, String))| {
            s.trim().eq_ignore_ascii_case("no") && raw.trim().to_lowercase().starts_with("and ")
        };
        let on_row = effects::order_of(&self.segs[k]).is_some_and(|o| on_item(o.does));
        let mut next = next.map(|(s, _)| s);
        if !on_row && n.is_some_and(and_no) && next.clone().next().is_some_and(|s| answers(s)) {
            return false;
        }
        let n = n.map(|(s, _)| s);
        // "untick it, no actually just remove it": a correction with an order of its own
        // on the same item replaces this one.
        let said = self.split.get(k + 1).map(|(_, raw)| raw.as_str());
        let replaced = said
            .and_then(super::clause_split::correction_rest)
            .is_some_and(|rest| {
                effects::order_of(&rest).is_some_and(|o| {
                    super::item_match::pronoun(&clauses::without_quotes(&o.object), o.does)
                        || said.is_some_and(|s| says_no(s, &rest)) && on_item(o.does)
                })
            });
        if replaced && effects::order_of(&self.segs[k]).is_some_and(|o| on_item(o.does)) {
            return true;
        }
        if n.is_some_and(|s| cancels(s)) {
            // "把买灯泡勾上，不对，我是说交电费": the "no" takes back the item, not the order —
            // the correction after it names the item meant.
            let on_item = effects::order_of(&self.segs[k])
                .is_some_and(|o| matches!(o.does, Does::Check | Does::Uncheck | Does::Delete));
            return !on_item || super::meant_item::meant_item(&self.segs, k, &self.items).is_none();
        }
        // "untick the sugar, I used the lot... no actually leave it": a reason between the
        // order and a take-back led by "no" / "actually".
        let reason = n.is_some_and(|s| describes(s) && effects::order_of(s).is_none());
        reason
            && next.next().is_some_and(|s| {
                let l = s.trim().to_lowercase();
                ["no ", "actually ", "no, "]
                    .iter()
                    .any(|w| l.starts_with(w))
                    && cancels(s)
            })
    }
}

/// Whether the clause after an "and no" states something ("it isn't renewed yet", "I
/// haven't paid it"): it describes, and neither takes back ("leave it", "forget it", "hang
/// on"), nor corrects ("not the milk"), nor forbids ("don't").
fn answers(seg: &str) -> bool {
    let lower = seg.trim().to_lowercase().replace('\u{2019}', "'");
    let first = lower.split_whitespace().next().unwrap_or("");
    let first = first.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
    let leads = [
        "not", "don't", "do", "wait", "hang", "hold", "actually", "sorry", "oh", "never", "leave",
        "keep", "forget", "scratch", "skip", "cancel", "undo", "stop",
    ];
    !cancels(&format!("no {}", seg.trim())) && !leads.contains(&first) && describes(seg)
}

/// Whether an order does something to a row (ticks, unticks or deletes it).
fn on_item(does: Does) -> bool {
    matches!(does, Does::Check | Does::Uncheck | Does::Delete)
}

/// Whether correction `said` (as written) says "no" to the order before and orders `rest`
/// in its stead, on whatever item: "Tick the tap, no actually untick the scones" unticks the
/// scones only, as "…, no wait, untick the scones" does. Not with a word that adds to the
/// order before ("no, untick the scones too").
fn says_no(said: &str, rest: &str) -> bool {
    let lower = said.trim().to_lowercase();
    let rest = rest.to_lowercase();
    let adds = rest.contains("as well")
        || rest
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| ["also", "too"].contains(&w));
    ["no ", "no,", "actually no"]
        .iter()
        .any(|l| lower.starts_with(l))
        && !adds
}
