//! A first plan read from the instruction itself, clause by clause, where every clause reads:
//! the model is then not asked to map what Argus can say for sure.
//!
//! Each clause ([`clauses::segments`]) is one of: a check (the run's expectations take it,
//! [`clauses::reads_as_check`]); a description ("the plumber has been called", "会议室其实还没订下来":
//! an English clause that starts with its subject, a Chinese one with no order word); or an
//! order whose verb is in the lexicon of [`effects::order_of`] (tick off, reopen, delete,
//! clear, add, reword, 划掉, 重新打开, 记一条 …). An order becomes typed steps:
//! `check` / `uncheck` / `delete` / `rename` on the list items it names, `type` + `press
//! Enter` into the screen's one text field for an item it adds, a tap on the one button whose
//! name starts with its verb ("clear the finished items" → `Clear completed`), or `check
//! every item` for "all". If any clause is none of these, or an item it names cannot be found,
//! nothing is read and the model plans the whole job as before.
//!
//! Items are the screen's named toggles (a list item's checkbox carries the item's text) plus
//! those the plan adds. A clause names them by quotes (exactly, else by its words), by its own
//! words ("the dentist appointment" → `book a dentist appointment`), or by a pronoun ("cross
//! that one off", "这两条", "get rid of it"): then by the quoted items, else the words, of the
//! clauses before it, nearest first. Words are compared as stems (English, `'s`, `-ed`,
//! `-ing`, `-s` dropped) and Chinese as character pairs; only a unique best match counts (a
//! plural pronoun takes every item that matches, and exactly as many as it says: 两 / both).
//!
//! Why: with Qwen2.5-Coder-1.5B, instructions worded as people talk ("Rent's paid, so tick that
//! one off") were planned as taps on the page's footer text, typings never submitted, or
//! ticks of the wrong item; each of these clauses is plain to read without a model.

use super::clauses;
use super::effects::{self, Does};
use super::plan_step::{PlanStep, StepKind};
use super::{conditions, implied, positions, should_state};
use crate::checks::is_all_toggle;
use crate::resolve::{is_toggle, takes_text};
use argus_perception::{Observation, Role};

/// A plan read from the instruction (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Read {
    /// Step-language lines, in the order of the clauses.
    pub steps: Vec<String>,
    /// Orders whose effect already holds on the screen (an item already ticked, already on
    /// the list), left out.
    pub already: usize,
    /// Check lines of the end state the plan leaves the items it touches in ([`end_state`]):
    /// empty when a clause stays a free step (what the model does is not foreseen).
    pub effects: Vec<String>,
    /// The clauses read as descriptions that may yet order something, for the model to map
    /// clause by clause ([`super::clause_map`]), in order; each has a placeholder in `steps`.
    pub free: Vec<FreeClause>,
    /// Descriptions that name a list item the plan leaves as it was and no other clause
    /// names (clause, item): whether they ask for a change Argus cannot tell, so the run
    /// they plan may not end `succeeded` ([`unsure`]).
    pub unsure: Vec<(String, String)>,
}

impl Read {
    /// The plan with the clauses read as descriptions ([`FreeClause::described`]) left
    /// out: what it is when no model maps them.
    pub fn without_asks(mut self) -> Read {
        for f in self.free.clone().into_iter().rev().filter(|f| f.described) {
            self.steps.remove(f.step);
            for g in self.free.iter_mut().filter(|g| g.step > f.step) {
                g.step -= 1;
            }
        }
        self.free.retain(|f| !f.described);
        self
    }
}

/// A clause asked of the model on its own, with its placeholder step in [`Read::steps`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreeClause {
    /// Its index in [`Read::steps`].
    pub step: usize,
    /// The clause as written.
    pub clause: String,
    /// Up to two clauses said before it, nearest last (what a pronoun in it speaks of).
    pub before: Vec<String>,
    /// Read as a description that may yet order something ([`may_order`]): left out, as a
    /// description, when the model does not map it. (Always so today: a clause whose order
    /// does not read stays a free step the model acts out.)
    pub described: bool,
}

/// English words a description starts with (its subject): imperatives start with a verb.
const SUBJECTS: &[&str] = &[
    "i", "i'm", "i've", "i'd", "my", "the", "this", "that", "these", "those", "it", "it's", "its",
    "they", "we", "he", "she", "there", "our", "your", "his", "her", "their", "a", "an", "you",
    "nothing", "someone",
];
/// English words a subordinate clause starts with: it sets a time or a reason, it orders
/// nothing by itself ("once that's gone", "when you're done").
const SUBORDINATORS: &[&str] = &[
    "once", "when", "after", "before", "if", "since", "because", "as", "whenever", "while",
    "until", "unless", "though", "although",
];
/// Words that carry no item's meaning (pronouns, articles, list words; with them the state
/// words of [`effects::DONE_WORDS`]).
const STOP: &[&str] = &[
    "completely",
    "entirely",
    "altogether",
    "fully",
    "anymore",
    "thanks",
    "ok",
    "okay",
    "a",
    "an",
    "the",
    "to",
    "of",
    "in",
    "on",
    "at",
    "for",
    "and",
    "or",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "has",
    "have",
    "had",
    "it",
    "its",
    "that",
    "this",
    "one",
    "ones",
    "so",
    "then",
    "my",
    "me",
    "i",
    "you",
    "your",
    "please",
    "can",
    "could",
    "would",
    "will",
    "with",
    "as",
    "by",
    "up",
    "off",
    "out",
    "from",
    "list",
    "item",
    "items",
    "todo",
    "todos",
    "entry",
    "entries",
    "task",
    "tasks",
    "thing",
    "already",
    "just",
    "now",
    "also",
    "them",
    "these",
    "those",
    "there",
    "both",
    "two",
    "too",
    "again",
    "new",
    "instead",
    "which",
    "what",
    "all",
    "read",
    "reads",
    "say",
    "says",
    "not",
    "really",
    "still",
    "yet",
    "back",
    "open",
    "undone",
    "incomplete",
    "unfinished",
    "active",
    "unticked",
    "unchecked",
];
/// Chinese words of a past time: a clause with one tells what happened.
const ZH_PAST: &[&str] = &["昨天", "前天", "上周", "上个月", "刚才", "刚刚", "上次"];
/// Chinese words that make a clause an order (a request) even with no verb of the lexicon.
const ZH_ORDER_WORDS: &[&str] = &["把", "帮我", "请", "给我", "需要", "麻烦", "让"];
/// English verbs an order outside the lexicon starts with (a clause that starts with none of
/// them and no lexicon verb describes: "wrong trade on that list", "sunscreen is bought",
/// "not a plumber"). An order with a rarer verb is then skipped, not acted on: the run's
/// expectations and effects still check the outcome.
const IMPERATIVES: &[&str] = &[
    "open",
    "go",
    "click",
    "tap",
    "press",
    "hit",
    "select",
    "choose",
    "pick",
    "type",
    "enter",
    "fill",
    "write",
    "sort",
    "search",
    "find",
    "scroll",
    "submit",
    "save",
    "log",
    "sign",
    "send",
    "navigate",
    "switch",
    "toggle",
    "expand",
    "collapse",
    "close",
    "filter",
    "show",
    "hide",
    "move",
    "drag",
    "upload",
    "download",
    "copy",
    "paste",
    "set",
    "use",
    "turn",
    "visit",
    "view",
    "look",
    "fix",
    "update",
    "edit",
    "change",
    "make",
    "move",
    "undo",
    "restore",
    "show",
    "double-click",
    "double",
    "long-press",
    "swipe",
    "zoom",
    "refresh",
    "reload",
    "wait",
    "start",
    "begin",
    "create",
    "insert",
    "replace",
    "empty",
    "reset",
    "cancel",
    "confirm",
    "tidy",
    "clean",
    "take",
    "get",
    "give",
    "scratch",
    "push",
];
/// Words that make an object "all of them".
const ALL_WORDS: &[&str] = &[
    "all",
    "every",
    "everything",
    "each",
    "whatever",
    "全部",
    "所有",
];

/// The plan read from `instruction` on `obs` (see the module docs); `None` when a clause does
/// not read or no clause orders anything.
pub fn read(instruction: &str, obs: &Observation) -> Option<Read> {
    let instruction = &effects::quote_lists(instruction);
    let split = clauses_of(instruction);
    let items = list_items(obs);
    let mut r = Reader {
        instruction,
        obs,
        segs: split.iter().map(|(s, _)| s.clone()).collect(),
        start: items.clone(),
        items,
        split,
        deleted: Vec::new(),
        typed: Vec::new(),
        free_segs: Vec::new(),
        out: Read {
            steps: Vec::new(),
            already: 0,
            effects: Vec::new(),
            free: Vec::new(),
            unsure: Vec::new(),
        },
        described: Vec::new(),
        gated: Vec::new(),
        read_any: false,
        uncertain: false,
        last: None,
        after_check: false,
        gate: None,
    };
    for k in 0..r.segs.len() {
        r.clause(k)?;
    }
    r.finish();
    r.read_any.then_some(r.out)
}

/// The instruction's clauses as read: (without fillers, as written), split at sentences,
/// "but", "so", a Chinese condition's 就; clauses of nothing but fillers dropped.
fn clauses_of(instruction: &str) -> Vec<(String, String)> {
    clauses::segments(instruction)
        .iter()
        .flat_map(|s| effects::split_but(s))
        .flat_map(|s| split_so(&s))
        .flat_map(|s| conditions::split_zh(&s))
        .map(|s| (strip_all_fillers(&s), s))
        .filter(|(s, _)| !only_fillers(s))
        .collect()
}

/// [`read`]'s state as it goes clause by clause.
struct Reader<'a> {
    instruction: &'a str,
    obs: &'a Observation,
    /// The clauses without fillers, and (as split) with them.
    segs: Vec<String>,
    split: Vec<(String, String)>,
    /// The items at the start, and as the plan leaves them so far.
    start: Vec<(String, bool)>,
    items: Vec<(String, bool)>,
    deleted: Vec<(String, bool)>,
    typed: Vec<PlanStep>,
    /// Clauses left to the model.
    free_segs: Vec<String>,
    out: Read,
    read_any: bool,
    /// After a step whose effect Argus cannot foresee (a model's free step, a button), an
    /// item's state is no longer known: nothing more is left out as already done.
    uncertain: bool,
    /// The order of the clause before: a clause of nothing but quoted items continues it
    /// ("add 'a', 'b' and 'c'" split at its commas).
    last: Option<Does>,
    /// Whether the clause before was a check ("make sure X, and that Y": Y is one too).
    after_check: bool,
    /// A condition on an item's state the next order waits on ("if it's still open, …").
    gate: Option<Gate>,
    /// Clauses read as descriptions, and orders a condition decided, for [`unsure`].
    described: Vec<usize>,
    gated: Vec<usize>,
}

impl Reader<'_> {
    /// Reads clause `k`; `None` when a step it reads cannot be written as a line.
    fn clause(&mut self, k: usize) -> Option<()> {
        let seg = self.segs[k].clone();
        let said_before: Vec<String> = self.segs[..k].iter().rev().cloned().collect();
        let before: Vec<&str> = said_before.iter().map(String::as_str).collect();
        match conditions::condition(&seg) {
            Ok(Some(c)) => {
                self.gate = Some(gate_of(&c, &seg, &before, &self.items, self.uncertain));
                return Some(());
            }
            Err(()) => {
                self.gate = Some(Gate::Unknown(seg.clone()));
                return Some(());
            }
            Ok(None) => {}
        }
        if retracted(&seg) || self.segs.get(k + 1).is_some_and(|n| cancels(n)) {
            // "刚想说顺便勾上，不行": said, then taken back.
            return Some(());
        }
        if conditions::keeps(&seg) {
            // "leave it where it is": nothing to do.
            self.gate = None;
            return Some(());
        }
        let order = effects::order_of(&seg)
            .or_else(|| self.continued_order(k))
            .or_else(|| undo_order(&seg, &before))
            .or_else(|| new_items_order(&seg));
        self.last = order.as_ref().map(|o| o.does);
        // A state said of something ("most of this is handled"), not an imperative.
        let said = order.as_ref().is_some_and(|o| o.verb.is_none()) && describes(&seg);
        let continued = self.after_check && clauses::continues_check(&self.split[k].1);
        let after_a_check = self.after_check;
        self.after_check = clauses::reads_as_check(&seg) || continued;
        if self.after_check {
            // "so it should be open again": the state is given, then checked.
            if let Some((does, subject)) = should_state::order(&seg, &self.split[k].1) {
                self.given(does, &subject, &seg, &before)?;
            }
            return Some(());
        }
        if describes(&seg) && order.is_none() {
            // "the defence room is booked": the item's own verb, done.
            let implied = (!implied::held_back(self.instruction))
                .then(|| implied::state(&seg, &self.items))
                .flatten();
            if let Some((item, done)) = implied {
                let does = if done { Does::Check } else { Does::Uncheck };
                return self.given(does, &format!("\"{item}\""), &seg, &before);
            }
            // "make sure there are six, and three of them are still open": the check's.
            let goes_on = after_a_check && self.split[k].1.trim_start().starts_with("and ");
            if !goes_on && may_order(&self.split[k].1, &self.items) {
                // Not plainly a description either ("two new ones: 'a' and 'b'"): the
                // model maps it, clause by clause.
                self.ask(k);
            } else if !goes_on {
                self.described.push(k);
            }
            return Some(());
        }
        if self.gate.is_some() {
            self.gated.push(k);
        }
        match self.gate.take() {
            Some(Gate::Fails) => {
                // The condition does not hold: its order is not given.
                self.out.already += 1;
                return Some(());
            }
            Some(Gate::Unknown(cond)) => {
                // A condition Argus cannot test: the model acts it out, condition and all.
                let text = format!("{}, {}", cond.trim(), seg.trim());
                self.free(&text, &seg);
                return Some(());
            }
            Some(Gate::Holds) | None => {}
        }
        let uncertain = self.uncertain;
        let steps = order.and_then(|order| {
            let mut cx = Ctx {
                before: &before,
                items: &mut self.items,
                deleted: &mut self.deleted,
                obs: self.obs,
                uncertain,
            };
            order_steps(order.does, &order.object, &seg, &mut cx)
        });
        let Some(steps) = steps else {
            self.unread(k, said);
            return Some(());
        };
        self.write(steps)
    }

    /// The order of a check clause ([`should_state::order`]) on the item `subject` names;
    /// nothing when it names none (the clause stays a check only).
    fn given(&mut self, does: Does, subject: &str, seg: &str, before: &[&str]) -> Option<()> {
        let mut cx = Ctx {
            before,
            items: &mut self.items,
            deleted: &mut self.deleted,
            obs: self.obs,
            uncertain: self.uncertain,
        };
        match item_steps(does, subject, seg, &mut cx) {
            Some(steps) => self.write(steps),
            None => Some(()),
        }
    }

    /// Writes the steps of one clause (`None`: an order whose effect already holds).
    fn write(&mut self, steps: Vec<Option<PlanStep>>) -> Option<()> {
        for s in steps {
            match s {
                Some(s) => {
                    self.uncertain |= s.kind == StepKind::Tap;
                    self.read_any = true;
                    self.out.steps.extend(s.lines().ok()?);
                    self.typed.push(s);
                }
                None => self.out.already += 1,
            }
        }
        Some(())
    }

    /// The order clause `k` continues from the clause before when it has no verb: nothing
    /// but quoted items, or one item's name after an "and" ("tick off the lease and the
    /// lawn", split at its "and": the lawn is ticked too).
    fn continued_order(&self, k: usize) -> Option<effects::Order> {
        let seg = &self.segs[k];
        let raw = &self.split[k].1;
        let items_only = effects::starts_with_item(seg) && effects::is_only_items(seg);
        let one_item = joins(raw) && by_words(seg, &self.items, Some(1)).is_some()
            // "Check off buy bread and pay rent", split at its "and": an item's own name.
            || (raw.trim_start().to_lowercase().starts_with("and ") && {
                let name = seg.trim().trim_end_matches(['.', '!']).to_lowercase();
                self.items.iter().any(|(n, _)| n.to_lowercase() == name)
            });
        let d = self.last.filter(|_| items_only || one_item)?;
        Some(effects::Order {
            does: d,
            verb: None,
            object: seg.clone(),
        })
    }

    /// Clause `k` names an order that does not read (`said`: a state said, not ordered).
    fn unread(&mut self, k: usize, said: bool) {
        let seg = self.segs[k].clone();
        let next_items = self
            .segs
            .get(k + 1)
            .is_some_and(|n| effects::starts_with_item(n) && effects::is_only_items(n));
        if self.last == Some(Does::Add) && next_items {
            // "Add a new one, 'pick up ice'": the items come in the next clause.
            return;
        }
        if heading(&seg, &self.split[k].1, self.instruction)
            || preamble(&seg, &self.items)
            || reports_zh(&seg)
        {
            // "Fix that: …": what to do comes after the colon.
            return;
        }
        if said
            && by_words(&seg, &self.items, None).is_none()
            && by_chars(&seg, &self.items).is_none()
        {
            // A state said of no item on the list describes; the model is not asked to act
            // on it.
            return;
        }
        // An order Argus cannot read: the model acts it out when its turn comes.
        self.free(&seg, &seg);
    }

    /// Clause `k`, read as a description that may yet order something, for the model to map
    /// on its own: a placeholder step that the model's answer replaces, or that goes (see
    /// [`FreeClause::described`]). Item states stay known: the plan is read as if it were a
    /// description, and its effects that name an item the answer touches are dropped then.
    fn ask(&mut self, k: usize) {
        self.out.free.push(FreeClause {
            step: self.out.steps.len(),
            clause: self.split[k].1.trim().to_string(),
            before: self.split[k.saturating_sub(2)..k]
                .iter()
                .map(|(_, raw)| raw.trim().to_string())
                .collect(),
            described: true,
        });
        self.out.steps.push(self.segs[k].trim().to_string());
    }

    /// `text` (for clause `seg`) left to the model: states are no longer known after it.
    fn free(&mut self, text: &str, seg: &str) {
        self.out
            .steps
            .push(text.trim().trim_end_matches(['.', '。']).to_string());
        self.free_segs.push(seg.to_string());
        self.uncertain = true;
    }

    /// The end-state checks: every item the plan touches when all of it reads; else, when
    /// no clause left to the model may touch many, every item no clause names as it was
    /// (the model's collateral damage fails the run instead of passing it).
    fn finish(&mut self) {
        // A description beside an order a condition decided ("the shoes came yesterday, so
        // if they aren't ticked yet, tick them") is that order's reason.
        let described: Vec<usize> = self
            .described
            .iter()
            .copied()
            .filter(|k| !self.gated.iter().any(|g| g.abs_diff(*k) <= 2))
            .collect();
        self.out.unsure = unsure(&self.segs, &described, &self.start, &self.typed);
        if self.free_segs.is_empty() {
            self.out.effects = end_state(&self.start, &self.typed);
        } else if !self.free_segs.iter().any(|s| names_many(s)) {
            self.out.effects = unnamed_untouched(&self.start, self.instruction);
        }
    }
}

/// The descriptions (`described`, indices into `segs`) that name one item of `start` by its
/// words which no step of the plan (`typed`) touches and no other clause names: "the defence
/// room is booked" when nothing reads it as a tick. Argus cannot tell whether such a clause
/// asks for a change; measured: blind round 14 at 7713a26 passed a run that left the item
/// open on the strength of a check of another item.
fn unsure(
    segs: &[String],
    described: &[usize],
    start: &[(String, bool)],
    typed: &[PlanStep],
) -> Vec<(String, String)> {
    let named = |seg: &str| {
        by_words(seg, start, Some(1))
            .and_then(|mut v| v.pop())
            .or_else(|| by_chars(seg, start))
    };
    let touched = |item: &str| typed.iter().any(|s| s.target == item);
    let mut out = Vec::new();
    for &k in described {
        // "the brake pads item stays as it is", "除了…": the item is left alone on purpose.
        let lower = segs[k].to_lowercase();
        let kept = KEEPS_ZH.iter().any(|w| segs[k].contains(w))
            || lower
                .split(|c: char| !c.is_alphanumeric() && c != '\'')
                .any(|w| KEEPS.contains(&w) || ["fine", "apart", "except", "besides"].contains(&w))
            || ["as it is", "as is", "除了", "原样"]
                .iter()
                .any(|w| lower.contains(w));
        if kept || !implied::tells_a_change(&segs[k]) {
            continue;
        }
        let Some(item) = named(&segs[k]) else {
            continue;
        };
        let elsewhere = segs
            .iter()
            .enumerate()
            .any(|(j, s)| j != k && !described.contains(&j) && named(s).as_deref() == Some(&item));
        let all = typed.iter().any(|s| {
            matches!(
                s.kind,
                StepKind::CheckAll | StepKind::UncheckAll | StepKind::Tap
            )
        });
        if !touched(&item) && !elsewhere && !all {
            out.push((segs[k].clone(), item));
        }
    }
    out
}

/// What a condition clause does to the order after it.
enum Gate {
    /// It holds on the items' known states: the order is given.
    Holds,
    /// It does not: the order is left out.
    Fails,
    /// It cannot be tested (no item named, a state Argus does not track, or states no
    /// longer known): the clause, condition first, goes to the model.
    Unknown(String),
}

/// The [`Gate`] of condition `c` (clause `seg`) on the items known, the clauses before it
/// nearest first naming what a pronoun speaks of.
fn gate_of(
    c: &conditions::Condition,
    seg: &str,
    before: &[&str],
    items: &[(String, bool)],
    uncertain: bool,
) -> Gate {
    let subject = match c.subject.as_str() {
        // "if they aren't ticked yet": the items just spoken of.
        "they" | "those" | "these" => "them",
        s => s,
    };
    let found = positions::by_position(subject, items)
        .map(|one| vec![one])
        .or_else(|| by_words(subject, items, plural(subject)))
        .or_else(|| by_chars(subject, items).map(|one| vec![one]))
        .or_else(|| {
            pronoun(subject, Does::Check)
                .then(|| by_context(before, items, plural(subject)))
                .flatten()
        });
    let Some(found) = found.filter(|_| !uncertain) else {
        return Gate::Unknown(seg.to_string());
    };
    let done: Vec<bool> = found
        .iter()
        .filter_map(|f| items.iter().find(|(n, _)| n == f).map(|(_, d)| *d))
        .collect();
    if conditions::holds(c, &done) {
        Gate::Holds
    } else {
        Gate::Fails
    }
}

/// Whether an order the model acts out may touch many items: it says all / every / clear /
/// done / completed (a clearing or tick-all order Argus did not read).
fn names_many(seg: &str) -> bool {
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
fn unnamed_untouched(start: &[(String, bool)], instruction: &str) -> Vec<String> {
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

/// The check lines of the end state `steps` leave the screen's items `start` in: a ticked,
/// unticked or untouched item's state (under its last name), an added or renamed item shown,
/// a deleted, cleared or renamed-away one gone (unless a shown item's name holds its text).
/// A tap is a clearing button: it takes away the items done by then.
fn end_state(start: &[(String, bool)], steps: &[PlanStep]) -> Vec<String> {
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
            StepKind::Tap => {
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

/// `seg` without the lead words of [`clauses::strip_fillers`] and [`effects::EN_FILLERS`]
/// ("so", "and then", "afterwards").
fn strip_all_fillers(seg: &str) -> String {
    let mut s = clauses::strip_fillers(without_marker(seg))
        .trim()
        .to_string();
    while let Some(f) = effects::EN_FILLERS
        .iter()
        .find(|f| s.get(..f.len()).is_some_and(|h| h.eq_ignore_ascii_case(f)))
    {
        s = clauses::strip_fillers(&s[f.len()..]).trim().to_string();
    }
    s
}

/// Whether a clause is a heading for the orders after it: a verb and nothing of meaning
/// after it ("Fix that", "Do this", "Here's what to do"), followed in `instruction` by a
/// colon.
fn heading(seg: &str, raw: &str, instruction: &str) -> bool {
    let rest: String = seg.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
    if !words(&rest).is_empty() || seg.split_whitespace().count() > 4 {
        return false;
    }
    let raw = raw.trim();
    instruction.match_indices(raw).any(|(i, _)| {
        instruction[i + raw.len()..]
            .trim_start()
            .starts_with([':', '：'])
    })
}

/// Words of a clause that announces the orders after it ("make the following changes to
/// the list", "a few updates please").
/// Chinese verbs of going over a whole list ([`preamble`]).
const ZH_PREAMBLE_VERBS: &[&str] = &[
    "过一遍",
    "看一下",
    "看一遍",
    "改一下",
    "整理一下",
    "更新一下",
    "处理一下",
    "理一下",
    "更新下",
    "改改",
    "弄一下",
    "弄弄",
    "看看",
    "理理",
    "理一理",
    "捋一捋",
    "整理整理",
    "调一调",
    "整理下",
    "处理下",
];
/// Chinese words for the list as a whole ([`preamble`]).
const ZH_LIST_NOUNS: &[&str] = &["清单", "列表", "单子", "几件事", "这些事", "几项", "几条"];
/// English verbs of going over the list as a whole, said of `it` / the list alone ("let's
/// fill it", "update the list") ([`preamble`]).
const EN_LIST_VERBS: &[&str] = &[
    "fill",
    "fill up",
    "update",
    "go through",
    "go over",
    "populate",
    "work through",
    "tidy",
    "tidy up",
    "sort out",
    "clean up",
    "straighten out",
    "fix up",
    "organise",
    "organize",
];
/// What such a verb may be said of.
const EN_LIST_OBJECTS: &[&str] = &[
    "it",
    "it up",
    "it in",
    "this",
    "the list",
    "this list",
    "my list",
    "the list up",
];
const PREAMBLES: &[&str] = &[
    "following",
    "changes",
    "updates",
    "edits",
    "fixes",
    "tweaks",
    "below",
];

/// Whether an unread clause only announces the orders after it: it says a [`PREAMBLES`] word,
/// quotes nothing and names no one item of `items` (a word of the list's own name, "the
/// book club list", does not count).
fn preamble(seg: &str, items: &[(String, bool)]) -> bool {
    if seg.chars().any(effects::is_cjk) {
        // "清单帮我过一遍", "列表改一下": the list as a whole, nothing done to an item yet.
        // "你帮我理一理": a verb of going over, with no object at all, is said of the list.
        let bare = ZH_PREAMBLE_VERBS
            .iter()
            .any(|w| seg.trim_end_matches(['。', '！', '吧', '啊']).ends_with(w))
            && ["帮我", "你"].iter().any(|w| seg.starts_with(w));
        return (bare || ZH_LIST_NOUNS.iter().any(|w| seg.contains(w)))
            && ZH_PREAMBLE_VERBS.iter().any(|w| seg.contains(w))
            && clauses::quoted(seg).is_empty()
            && (effects::order_of(seg).is_none() || by_chars(seg, items).is_none());
    }
    let lower = seg.to_lowercase();
    let body = clauses::strip_fillers(&lower)
        .trim()
        .trim_end_matches(['.', '!'])
        .to_string();
    let body = body.strip_prefix("let's ").unwrap_or(&body);
    let whole_list = EN_LIST_VERBS.iter().any(|v| {
        body.strip_prefix(v)
            .and_then(|r| r.strip_prefix(' '))
            .is_some_and(|r| EN_LIST_OBJECTS.contains(&r.trim()))
    });
    if whole_list {
        return true;
    }
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| PREAMBLES.contains(&w))
        && clauses::quoted(seg).is_empty()
        && by_words(seg, items, Some(1)).is_none_or(|_| lower.contains(" list"))
}

/// Whether a clause as split is the second half of an object joined by "and" ("… and the
/// lawn"): it starts with the conjunction and says nothing of its own (no verb of state).
fn joins(seg: &str) -> bool {
    let lower = format!("{} ", seg.trim().to_lowercase().replace('’', "'"));
    let Some(rest) = ["and ", "& ", "plus ", "as well as "]
        .iter()
        .find_map(|w| lower.strip_prefix(w))
    else {
        return false;
    };
    let verbs = [
        "is", "are", "was", "were", "has", "have", "had", "been", "got", "gets", "should", "can",
        "will", "must", "needs", "need", "i", "you", "we", "it", "then",
    ];
    // A noun phrase starts with a determiner ("and forget the landlord" is an order).
    let first = rest.split_whitespace().next().unwrap_or("");
    [
        "the", "a", "an", "my", "that", "this", "those", "these", "our", "his", "her", "their",
    ]
    .contains(&first)
        && !rest
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .any(|w| verbs.contains(&w) || w.ends_with("'s") || w.ends_with("'re"))
        && effects::order_of(rest).is_none()
}

/// `seg` without a list marker before it ("1) ", "2. ", "- ", "• ", "（1）").
fn without_marker(seg: &str) -> &str {
    let t = seg.trim_start();
    let t = t.trim_start_matches(['-', '*', '•', '·']).trim_start();
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    let rest = &t[digits..];
    if digits > 0 && digits < 3 {
        if let Some(r) = rest
            .strip_prefix([')', '.', '、', '）', ':'])
            .filter(|r| r.starts_with(' ') || r.chars().next().is_some_and(effects::is_cjk))
        {
            return r.trim_start();
        }
    }
    t.strip_prefix(['(', '（'])
        .and_then(|r| r.split_once([')', '）']))
        .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        .map(|(_, r)| r.trim_start())
        .unwrap_or(t)
}

/// Whether a clause is nothing but joining words ("and", "then", "然后").
fn only_fillers(seg: &str) -> bool {
    seg.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| {
            [
                "and",
                "then",
                "also",
                "so",
                "or",
                "now",
                "please",
                "after",
                "that",
                "this",
                "afterwards",
                "next",
                "然后",
                "再",
                "并",
            ]
            .contains(&w)
        })
}

/// Words of a check clause that say an item is not done, then that it is (after a
/// negation, "not done" is the first kind).
const STATE_UNDONE: &[&str] = &[
    "unticked",
    "unchecked",
    "not ticked",
    "not checked",
    "not done",
    "not completed",
    "incomplete",
    "unfinished",
    "open",
    "active",
    "未完成",
    "未勾选",
    "没勾",
    "没有勾",
];
const STATE_DONE: &[&str] = &[
    "ticked",
    "checked",
    "done",
    "completed",
    "complete",
    "finished",
    "已完成",
    "已勾选",
    "勾上",
];

/// A check clause that names one list item by its words, not by quotes, and the state it
/// must be in ("the dentist appointment is still unticked") as that toggle's check on `obs`
/// (`assert "book a dentist appointment" is not checked`; the items the instruction adds,
/// `added`, count too); `None` when it names no state,
/// quotes its item (see [`clauses::checkable`]) or its words name no one item.
pub fn state_check(clause: &str, obs: &Observation, added: &[String]) -> Option<String> {
    if !clauses::quoted(clause).is_empty() {
        return None;
    }
    let lower = format!(" {} ", clause.to_lowercase().replace('’', "'"));
    let has = |w: &&str| {
        if w.chars().any(effects::is_cjk) {
            lower.contains(w)
        } else {
            lower
                .split(|c: char| !c.is_alphanumeric())
                .collect::<Vec<_>>()
                .join(" ")
                .contains(&format!(" {w} "))
        }
    };
    let done = if STATE_UNDONE.iter().any(has) {
        false
    } else if STATE_DONE.iter().any(has) && !lower.contains("n't ") && !lower.contains(" not ") {
        true
    } else {
        return None;
    };
    let mut items = list_items(obs);
    items.extend(added.iter().map(|a| (a.clone(), false)));
    let item = by_words(clause, &items, Some(1))?.pop()?;
    let state = if done { "is checked" } else { "is not checked" };
    Some(format!("assert {} {state}", clauses::quote_line(&item)))
}

/// The screen's list items: its named toggles but "all" ones, with their state.
pub fn list_items(obs: &Observation) -> Vec<(String, bool)> {
    let mut items: Vec<(String, bool)> = Vec::new();
    for e in obs.elements.iter().filter(|e| is_toggle(e)) {
        let name = e.name.trim();
        if !name.is_empty() && !is_all_toggle(name) && !items.iter().any(|(n, _)| n == name) {
            items.push((name.to_string(), e.checked.is_yes()));
        }
    }
    items
}

/// "Rent's paid, so tick it off" / "clear them so it disappears": `so` starts a clause.
fn split_so(seg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = seg.to_string();
    while let Some(at) = [
        " so ",
        ": ",
        "：",
        "（",
        "(",
        " - ",
        " – ",
        " — ",
        ", which means ",
    ]
    .iter()
    .filter_map(|w| rest.find(w).map(|i| (i, w.len())))
    .filter(|(i, n)| {
        // "edit 'x' so it says 'y'": what it should say is the order's own.
        let lower = rest[i + n..].to_lowercase();
        if rest[*i..].starts_with(" so ")
            && [
                "it says",
                "it reads",
                "that it",
                "it shows",
                "it's",
                "its ",
                "it becomes",
                "it will say",
                "it'll say",
                "the text",
                "the title",
                "the name",
            ]
            .iter()
            .any(|w| lower.starts_with(w))
        {
            return false;
        }
        // "dentist booking: done": the state after a colon is the clause's own.
        let after = &rest[i + n..];
        let state = after
            .trim()
            .trim_end_matches(['.', '!', ';'])
            .to_lowercase();
        if rest[*i..].starts_with([':', '：'])
            && (effects::DONE_WORDS.contains(&state.as_str())
                || ["not done", "not finished", "undone", "open", "to do"]
                    .contains(&state.as_str()))
        {
            return false;
        }
        // "add these: 'a', 'b' and 'c'": the items after a colon are the order's.
        !(rest[*i..].starts_with([':', '：'])
            && effects::starts_with_item(after)
            && effects::is_only_items(after))
    })
    .min()
    {
        out.push(rest[..at.0].to_string());
        rest = rest[at.0 + at.1..].to_string();
    }
    out.push(rest.trim_end_matches([')', '）']).to_string());
    out
}

/// Leads of an order the speaker only meant to give ("I was going to add …", "本来还想记一条…").
const RETRACTED: &[&str] = &[
    "i was going to",
    "i was about to",
    "i almost",
    "i nearly",
    "i thought about",
    "i'd thought about",
    "i had planned to",
    "i'd planned to",
    "本来还想",
    "本来想",
    "本想",
    "原本想",
    "原来想",
    "刚想说",
    "刚想",
    "差点",
    "我本来想",
    "我还想过",
];
/// A clause that takes back the one before it ("算了", "never mind").
const CANCELS: &[&str] = &[
    "never mind",
    "scratch that",
    "forget that",
    "no wait",
    "actually no",
    "算了",
    "不行",
    "不对",
    "还是算了",
];

/// "undo that" after a clause that says an item is (wrongly) done or open: the state taken
/// back, on the item the clauses before name ("it's wrongly shown as done; undo that").
fn undo_order(seg: &str, before: &[&str]) -> Option<effects::Order> {
    let lower = seg.trim().trim_end_matches(['.', '!']).to_lowercase();
    let verb = ["undo", "revert", "reverse", "take back"]
        .iter()
        .find(|v| lower.starts_with(**v))?;
    let object = lower[verb.len()..].trim();
    if !["that", "it", "this", "that one", "that tick", "the tick"].contains(&object) {
        return None;
    }
    let said = before.first()?.to_lowercase();
    let has = |set: &[&str]| {
        set.iter().any(|w| {
            said.split(|c: char| !c.is_alphanumeric())
                .collect::<Vec<_>>()
                .join(" ")
                .contains(w)
        })
    };
    let does = if has(effects::UNDONE_WORDS) {
        Does::Check
    } else if has(effects::DONE_WORDS) || has(&["ticked off", "marked"]) {
        Does::Uncheck
    } else {
        return None;
    };
    Some(effects::Order {
        does,
        verb: None,
        object: "that".into(),
    })
}

/// "Two new ones: 'a' and 'b'", "再加两条：“a”和“b”": a heading of new items before a colon,
/// the items after it, is an add of those items.
fn new_items_order(seg: &str) -> Option<effects::Order> {
    let at = seg.find([':', '：'])?;
    let (head, tail) = (&seg[..at], &seg[at..]);
    let tail = tail.trim_start_matches([':', '：']).trim();
    if !(effects::starts_with_item(tail) && effects::is_only_items(tail)) {
        return None;
    }
    let lower = head.trim().to_lowercase();
    let en = lower
        .split_whitespace()
        .any(|w| ["new", "more", "extra", "additional"].contains(&w))
        && lower.split_whitespace().count() <= 5;
    let zh = ["加", "添", "记", "新"].iter().any(|w| head.contains(w))
        && ['条', '项', '个', '件'].iter().any(|c| head.contains(*c))
        && !["删", "去掉", "拿掉", "勾"]
            .iter()
            .any(|w| head.contains(w));
    (en || zh).then(|| effects::Order {
        does: Does::Add,
        verb: None,
        object: tail.to_string(),
    })
}

/// Whether an unread Chinese clause reports what happened ("团建改成线上搞了"): it ends with
/// 了, quotes nothing and asks nothing (no 把 / 请 / 帮我 …).
fn reports_zh(seg: &str) -> bool {
    let body = seg.trim().trim_end_matches(['。', '！', '，', '.', '!']);
    body.chars().any(effects::is_cjk)
        && body.ends_with('了')
        && clauses::quoted(body).is_empty()
        && !ZH_ORDER_WORDS.iter().any(|w| body.contains(w))
}

/// Whether clause `seg` only says what the speaker meant to order ([`RETRACTED`]).
fn retracted(seg: &str) -> bool {
    let lower = seg.trim().to_lowercase().replace('’', "'");
    RETRACTED.iter().any(|r| lower.starts_with(r))
}

/// Whether clause `seg` is nothing but a take-back of the clause before ([`CANCELS`]).
fn cancels(seg: &str) -> bool {
    let lower = seg
        .trim()
        .trim_matches(|c: char| !c.is_alphanumeric() && !effects::is_cjk(c))
        .to_lowercase()
        .replace(',', "");
    CANCELS.iter().any(|c| lower == *c)
}

/// Whether a clause only describes (see [`SUBJECTS`], [`ZH_ORDER_WORDS`], [`IMPERATIVES`]).
fn describes(seg: &str) -> bool {
    let s = seg.trim();
    if s.chars().any(effects::is_cjk) {
        // "昨天只是把新的买回来了": a past time tells what happened, whatever its 把.
        let past = ZH_PAST.iter().any(|w| s.contains(w))
            && !["请", "帮我", "麻烦", "给我"].iter().any(|w| s.contains(w));
        // "楼下师傅顺手帮我磨好了": someone did it already (a result at the end, no 把, and
        // someone before the 帮我), nothing to do.
        let body = s.trim_end_matches(['。', '！', '，', '.', '!']);
        let done_by_someone = ["好了", "完了", "过了"].iter().any(|w| body.ends_with(w))
            && !s.contains('把')
            && !["请", "帮我", "麻烦", "给我"]
                .iter()
                .any(|w| s.starts_with(w));
        return past || done_by_someone || !ZH_ORDER_WORDS.iter().any(|w| s.contains(w));
    }
    let lead = s
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_lowercase()
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
        .to_string();
    if !IMPERATIVES.contains(&lead.as_str()) {
        return true;
    }
    if s.starts_with(['"', '\'', '“', '‘', '「']) {
        return true;
    }
    let first = s
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_lowercase()
        .replace('’', "'");
    SUBJECTS.contains(&first.as_str())
        || SUBORDINATORS.contains(&first.as_str())
        || first.ends_with("'s")
}

/// Whether a clause read as a description may still order something: it quotes, not at its
/// start, a text that is no item of the list (`items`) — a new text, to be added or to become
/// an item's name ("Two new ones: 'a' and 'b'", "from now on call it 'X'", 写成“…”) — and
/// neither keeps nor forbids. Measured on held_out_12 post hoc with Qwen2.5-Coder-1.5B:
/// asked about unquoted clauses too ("bin that entry", "Legal vetoed the photo"), the model
/// deleted the wrong item in one run of two and turned descriptions into deletes and
/// renames; a clause that quotes an item already listed ("另外“换雨刮”写得太含糊") was
/// renamed though it only describes.
fn may_order(raw: &str, items: &[(String, bool)]) -> bool {
    let s = raw.trim();
    if s.starts_with(['"', '\'', '“', '‘', '「']) || s.ends_with([':', '：']) {
        // The quoted item is the subject ("'X' got ticked by mistake"); a heading.
        return false;
    }
    let lower = s.to_lowercase().replace('’', "'");
    if KEEPS_ZH.iter().any(|w| s.contains(w))
        || lower
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .any(|w| KEEPS.contains(&w))
    {
        return false;
    }
    clauses::quoted(s)
        .iter()
        .any(|q| !items.iter().any(|(n, _)| n.eq_ignore_ascii_case(q.trim())))
}

/// Words of a clause that keeps or forbids ("don't tick the scheduling one", "keep that",
/// "the payroll one stays open"): never asked of the model as an order ([`may_order`]).
const KEEPS: &[&str] = &[
    "don't", "dont", "do", "not", "never", "no", "leave", "keep", "keeps", "stay", "stays", "touch",
];
/// Chinese words of such a clause.
const KEEPS_ZH: &[&str] = &["别", "不要", "不用", "先放着", "保留", "留着", "不动"];

/// A typed step.
fn step(kind: StepKind, target: &str, text: &str) -> PlanStep {
    PlanStep {
        kind,
        target: target.to_string(),
        text: text.to_string(),
    }
}

/// What an order reads against: the clauses before it (nearest first), the items known so
/// far (updated as the plan goes), the screen, and whether an item's state is still known.
struct Ctx<'a> {
    before: &'a [&'a str],
    items: &'a mut Vec<(String, bool)>,
    /// Items the plan has deleted so far ("the plant entry can go: delete it" deletes once).
    deleted: &'a mut Vec<(String, bool)>,
    obs: &'a Observation,
    uncertain: bool,
}

/// The typed steps of one order (`None` in the list: its effect already holds), updating
/// the known items; `None` when it cannot be read.
fn order_steps(
    does: Does,
    object: &str,
    seg: &str,
    cx: &mut Ctx<'_>,
) -> Option<Vec<Option<PlanStep>>> {
    match does {
        Does::Add => add_steps(object, cx),
        Does::Rename => rename_steps(object, cx),
        Does::Check | Does::Uncheck | Does::Delete => item_steps(does, object, seg, cx),
    }
}

/// An add: each quoted text typed into the one text field and submitted with Enter.
fn add_steps(object: &str, cx: &mut Ctx<'_>) -> Option<Vec<Option<PlanStep>>> {
    let quoted = clauses::quoted(object);
    if quoted.is_empty() {
        return None;
    }
    if submits_a_form(cx.obs) {
        // A form's field is filled and sent with its button, not submitted as a new item.
        return None;
    }
    let field = one_text_field(cx.obs)?;
    let mut out = Vec::new();
    for t in quoted {
        if !cx.uncertain && cx.items.iter().any(|(n, _)| *n == t) {
            out.push(None);
            continue;
        }
        cx.items.push((t.clone(), false));
        out.push(Some(step(StepKind::Type, &field, &t)));
        out.push(Some(step(StepKind::Press, "", "Enter")));
    }
    Some(out)
}

/// Whether a Chinese object points back at an item by a demonstrative ("把那条的内容改成",
/// "把它的名字改成"): the item of the nearest clause before that names one.
fn zh_demonstrative(head: &str) -> bool {
    [
        "那条",
        "这条",
        "它",
        "那个",
        "这个",
        "那项",
        "这项",
        "那一条",
        "这一条",
        // "同时把名字改成“X”": the name of the item just spoken of.
        "名字",
        "文字",
        "标题",
        "内容",
    ]
    .iter()
    .any(|w| head.contains(w))
}

/// A rename: `'old' to 'new'`, or `it to 'new'` with the old item from the context.
fn rename_steps(object: &str, cx: &mut Ctx<'_>) -> Option<Vec<Option<PlanStep>>> {
    let quoted = clauses::quoted(object);
    let (old, new) = match quoted.as_slice() {
        [old, new] => (find_item(old, cx.items)?, new.clone()),
        [new] if words(&clauses::without_quotes(object)).is_empty() => (
            by_context(cx.before, cx.items, Some(1))?.pop()?,
            new.clone(),
        ),
        // "rename the ferns task to 'X'", "把浇花那条改成“X”": the old item by the words
        // before the new name.
        [new] => {
            let head = object
                .split(['"', '\'', '“', '‘', '「'])
                .next()
                .unwrap_or("");
            let lower = head.to_lowercase();
            let head = [" to ", " into ", " as ", " so it says ", " so it reads "]
                .iter()
                .filter_map(|w| lower.rfind(w))
                .min()
                .map_or(head, |i| &head[..i]);
            let at = positions::by_position(head, cx.items).map(|one| vec![one]);
            let old = match at.or_else(|| by_words(head, cx.items, Some(1))) {
                Some(mut found) => found.pop()?,
                None if words(head).is_empty() || zh_demonstrative(head) => {
                    by_context(cx.before, cx.items, Some(1))?.pop()?
                }
                None => return None,
            };
            (old, new.clone())
        }
        _ => return None,
    };
    if let Some(it) = cx.items.iter_mut().find(|(n, _)| *n == old) {
        it.0 = new.clone();
    }
    Some(vec![Some(step(StepKind::Rename, &old, &new))])
}

/// An object that picks among items by their state, "whichever of those two isn't ticked
/// yet" / "any of them that are still open", as the items it picks among ("those two",
/// "them"): the order's own state check leaves out the ones already so. Other objects as
/// they are.
fn whichever(object: &str) -> String {
    let lower = object.to_lowercase();
    let lead = [
        "whichever one of ",
        "whichever ones of ",
        "whichever of ",
        "any of ",
        "any one of ",
    ]
    .iter()
    .find_map(|w| lower.trim_start().starts_with(w).then_some(w.len()));
    let Some(len) = lead else {
        return object.to_string();
    };
    let start = lower.len() - lower.trim_start().len() + len;
    let rest = &lower[start..];
    let end = [
        " isn't", " is ", " aren't", " are ", " that ", " which ", " not ",
    ]
    .iter()
    .filter_map(|w| rest.find(w))
    .min()
    .unwrap_or(rest.len());
    object
        .get(start..start + end)
        .map_or_else(|| object.to_string(), str::to_string)
}

/// The items a tick, untick or delete names (see the module docs), or the steps that stand
/// for them when none does ("all" → `check every item`; a clearing button).
fn item_targets(
    does: Does,
    object: &str,
    seg: &str,
    cx: &mut Ctx<'_>,
) -> Result<Vec<String>, Option<Vec<Option<PlanStep>>>> {
    // "untick the car one because it's supposed to rain all week": the reason names nothing.
    let object = &without_reason(object);
    // "tick whichever of those two isn't ticked yet": those two (one already in that state
    // is left out as already done).
    let object = &whichever(object);
    if let Some(kept) = positions::except(object, cx.before) {
        // "tick everything except the rent": every item the exception does not name; "get
        // rid of everything that's ticked off, except the vet one": of the items in the
        // state the order names, every one the exception does not name.
        let state = state_named(&object.replacen(&kept, " ", 1));
        let kept = named_by(&kept, cx.items)?;
        return Ok(cx
            .items
            .iter()
            .filter(|(n, done)| !kept.contains(n) && state.is_none_or(|s| *done == s))
            .map(|(n, _)| n.clone())
            .collect());
    }
    let quoted = clauses::quoted(object);
    let lower = clauses::without_quotes(object).to_lowercase();
    let all = ALL_WORDS
        .iter()
        .any(|w| lower.split_whitespace().any(|x| x == *w) || (w.len() > 3 && lower.contains(w)));
    if !quoted.is_empty() {
        return quoted
            .iter()
            .map(|q| find_item(q, cx.items))
            .collect::<Option<Vec<_>>>()
            .ok_or(None);
    }
    if all && does != Does::Delete {
        let kind = if does == Does::Check {
            StepKind::CheckAll
        } else {
            StepKind::UncheckAll
        };
        // Every item is in that state now ("tick them all, then untick 'x'" unticks x).
        for it in cx.items.iter_mut() {
            it.1 = does == Does::Check;
        }
        return Err(Some(vec![Some(step(kind, "", ""))]));
    }
    if does == Does::Delete && names_done(object) {
        return Err(clear_done(seg, cx));
    }
    let named = |items: &[(String, bool)]| {
        among_added(object, cx.before)
            .filter(|one| items.iter().any(|(n, _)| n == one))
            .or_else(|| positions::by_position(object, items))
            .map(|one| vec![one])
            .or_else(|| positions::by_positions(object, items))
            .or_else(|| by_words(object, items, plural(object)))
            .or_else(|| {
                (plural(object) == Some(1))
                    .then(|| by_chars(object, items))
                    .flatten()
                    .map(|one| vec![one])
            })
            .or_else(|| {
                pronoun(object, does)
                    .then(|| by_context(cx.before, items, plural(object)))
                    .flatten()
            })
    };
    if let Some(found) = named(cx.items) {
        return Ok(found);
    }
    // "tick off the bread and the rent", "把交电费和取快递都勾上": each part names one item.
    if let Some(found) = each_part(object, cx.items) {
        return Ok(found);
    }
    if does == Does::Delete && named(cx.deleted).is_some() {
        // Deleted by an earlier clause of the plan already.
        return Err(Some(vec![None]));
    }
    Err((does == Does::Delete && !pronoun(object, does))
        .then(|| button_for(seg, cx.obs))
        .flatten()
        .map(|b| vec![Some(step(StepKind::Tap, &b, ""))]))
}

/// The items an object joined by "and" / "," / 和 / 、 names, one per part, when every part
/// (two or more) names exactly one item and no two the same.
fn each_part(object: &str, items: &[(String, bool)]) -> Option<Vec<String>> {
    let mut parts = vec![object.to_string()];
    for sep in [" and ", ", ", ",", "，", "、", "和", "跟", "与"] {
        parts = parts
            .iter()
            .flat_map(|p| p.split(sep).map(str::to_string).collect::<Vec<_>>())
            .collect();
    }
    let parts: Vec<&String> = parts.iter().filter(|p| !words(p).is_empty()).collect();
    if parts.len() < 2 {
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    for p in parts {
        let one = by_words(p, items, Some(1))?.pop()?;
        if out.contains(&one) {
            return None;
        }
        out.push(one);
    }
    Some(out)
}

/// The item a position names among those the clause before added ("add 'a' and 'b' —
/// scratch the second one" speaks of b): `before` nearest first; `None` when that clause
/// added fewer than two quoted items or `object` names no position.
fn among_added(object: &str, before: &[&str]) -> Option<String> {
    let prior = before.first()?;
    let order = effects::order_of(prior)?;
    if order.does != Does::Add {
        return None;
    }
    let added: Vec<(String, bool)> = clauses::quoted(prior)
        .into_iter()
        .map(|q| (q, false))
        .collect();
    if added.len() < 2 {
        return None;
    }
    positions::by_position(object, &added)
}

/// The items `text` names by quotes, by position, by words (each part of an "and" list one
/// item) or by characters; `Err(None)` (the order does not read) when it names none.
fn named_by(
    text: &str,
    items: &[(String, bool)],
) -> Result<Vec<String>, Option<Vec<Option<PlanStep>>>> {
    let quoted = clauses::quoted(text);
    if !quoted.is_empty() {
        return quoted
            .iter()
            .map(|q| find_item(q, items))
            .collect::<Option<Vec<_>>>()
            .ok_or(None);
    }
    positions::by_position(text, items)
        .map(|one| vec![one])
        .or_else(|| by_words(text, items, Some(1)))
        .or_else(|| each_part(text, items))
        .or_else(|| by_chars(text, items).map(|one| vec![one]))
        .ok_or(None)
}

/// `object` cut before a clause that gives a reason or a time ("because …", "since …").
fn without_reason(object: &str) -> String {
    let lower = object.to_lowercase();
    [
        " because ",
        " since ",
        " as it ",
        " so that ",
        " when ",
        " once ",
        " 因为",
        "因为",
    ]
    .iter()
    .filter_map(|w| lower.find(w))
    .min()
    .and_then(|at| object.get(..at))
    .unwrap_or(object)
    .to_string()
}

/// A tick, untick or delete of the items the order names.
fn item_steps(
    does: Does,
    object: &str,
    seg: &str,
    cx: &mut Ctx<'_>,
) -> Option<Vec<Option<PlanStep>>> {
    let targets = match item_targets(does, object, seg, cx) {
        Ok(t) => t,
        Err(steps) => return steps,
    };
    let mut out = Vec::new();
    for t in targets {
        let pos = cx.items.iter().position(|(n, _)| *n == t)?;
        if does == Does::Delete {
            cx.deleted.push(cx.items.remove(pos));
            out.push(Some(step(StepKind::Delete, &t, "")));
            continue;
        }
        let want = does == Does::Check;
        if cx.items[pos].1 == want && !cx.uncertain {
            out.push(None);
        } else {
            cx.items[pos].1 = want;
            let kind = if want {
                StepKind::Check
            } else {
                StepKind::Uncheck
            };
            out.push(Some(step(kind, &t, "")));
        }
    }
    Some(out)
}

/// "clear the completed ones": the Clear button if one shows, else the items the plan
/// knows are done.
fn clear_done(seg: &str, cx: &mut Ctx<'_>) -> Option<Vec<Option<PlanStep>>> {
    if let Some(b) = button_for(seg, cx.obs) {
        if !cx.uncertain {
            // The done items leave the list ("clear completed, then tick the rest" ticks
            // what is left).
            let (gone, kept): (Vec<_>, Vec<_>) = cx.items.drain(..).partition(|(_, d)| *d);
            *cx.items = kept;
            cx.deleted.extend(gone);
        }
        return Some(vec![Some(step(StepKind::Tap, &b, ""))]);
    }
    let done: Vec<String> = cx
        .items
        .iter()
        .filter(|(_, d)| *d)
        .map(|(n, _)| n.clone())
        .collect();
    if done.is_empty() || cx.uncertain {
        return None;
    }
    cx.items.retain(|(_, d)| !d);
    Some(
        done.iter()
            .map(|n| Some(step(StepKind::Delete, n, "")))
            .collect(),
    )
}

/// Names a form's send button starts with (lower-case; Chinese anywhere in the name).
const SUBMITS: &[&str] = &[
    "submit", "send", "save", "log in", "login", "sign in", "sign up", "search", "register", "ok",
    "提交", "登录", "发送", "保存", "搜索", "注册", "确定",
];

/// Whether the screen is a form sent by a button ([`SUBMITS`]): its text field takes a
/// value, not a new list item.
pub(super) fn submits_a_form(obs: &Observation) -> bool {
    obs.elements.iter().any(|e| {
        let n = e.name.trim().to_lowercase();
        e.role == Role::Button
            && SUBMITS.iter().any(|w| {
                if w.chars().any(effects::is_cjk) {
                    n.contains(w)
                } else {
                    n == *w || n.starts_with(&format!("{w} "))
                }
            })
    })
}

/// The name (else placeholder) of the screen's one text field that is not a password box.
pub fn one_text_field(obs: &Observation) -> Option<String> {
    let mut fields = obs
        .elements
        .iter()
        .filter(|e| takes_text(e) && e.role != Role::Combobox && !e.password.is_yes());
    let f = fields.next()?;
    if fields.next().is_some() {
        return None;
    }
    let name = f.name.trim();
    let label = if name.is_empty() {
        f.placeholder.as_deref().unwrap_or("").trim()
    } else {
        name
    };
    (!label.is_empty()).then(|| label.to_string())
}

/// Lead words that frame a clause rather than name its action ("start by …", "try to …").
const FRAMING: &[&str] = &[
    "start", "begin", "first", "try", "go", "make", "let", "please", "now", "then", "and",
];

/// The one button whose name starts with the clause's verb ("clear …" → `Clear completed`;
/// a Chinese verb anywhere in the name). Used at plan time for an order, and when a free
/// step's turn comes ([`verb_button`]): a button that shows only once an item is done is
/// found then.
pub fn button_for(seg: &str, obs: &Observation) -> Option<String> {
    let lower = seg.trim().to_lowercase();
    let order = effects::order_of(seg);
    // The order's own verb ("start by wiping out …" → `wipe`), else the clause's first word.
    let verb = match order.as_ref().and_then(|o| o.verb) {
        Some(v) => v.split_whitespace().next()?.to_string(),
        None => lower.split_whitespace().next()?.to_string(),
    };
    if FRAMING.contains(&verb.as_str()) {
        return None;
    }
    let zh: Vec<&str> = ["清除", "删除", "清空", "删掉"]
        .into_iter()
        .filter(|v| seg.contains(v))
        .collect();
    let one = |word: &str| {
        let mut hits = obs.elements.iter().filter(|e| {
            e.role == Role::Button && {
                let n = e.name.trim().to_lowercase();
                n.split_whitespace().next() == Some(word) || zh.iter().any(|v| n.contains(v))
            }
        });
        let b = hits.next()?;
        hits.next().is_none().then(|| b.name.trim().to_string())
    };
    // A clearing verb that starts no button's name ("wipe out", "purge") names the one
    // `Clear …` button: the usual word of a list's bulk removal — when the clause speaks of
    // the done items or of all ("wipe out the finished ones"), not of one it fails to name
    // ("scratch the second one").
    let bulk = names_done(seg)
        || ALL_WORDS
            .iter()
            .any(|w| lower.split(|c: char| !c.is_alphanumeric()).any(|x| x == *w));
    one(&verb).or_else(|| {
        order
            .is_some_and(|o| o.does == Does::Delete && bulk)
            .then(|| one("clear"))
            .flatten()
    })
}

/// The tap a free step that clears or deletes what no quote names becomes when its verb
/// starts the name of exactly one button on the screen now ("clear the finished items" →
/// `tap "Clear completed"`, a button that shows only once an item is done). Other verbs are
/// left to the model: "sign in as alice" has a value to type before its button.
pub fn verb_button(step: &str, obs: &Observation) -> Option<String> {
    let order = effects::order_of(step)?;
    if order.does != Does::Delete || !clauses::quoted(step).is_empty() {
        return None;
    }
    let name = button_for(step, obs)?;
    Some(format!("tap {}", clauses::quote_line(&name)))
}

/// The item a quoted text names: the one whose name is that text (case-insensitive), else
/// the unique best by words.
fn find_item(q: &str, items: &[(String, bool)]) -> Option<String> {
    let key = q.trim().to_lowercase();
    if let Some((n, _)) = items.iter().find(|(n, _)| n.to_lowercase() == key) {
        return Some(n.clone());
    }
    by_words(q, items, None).and_then(|mut v| (v.len() == 1).then(|| v.remove(0)))
}

/// Whether an object speaks of the items that are done ("the completed ones", "whatever is
/// already done", "打了勾的").
fn names_done(object: &str) -> bool {
    let lower = object.to_lowercase();
    effects::DONE_WORDS
        .iter()
        .any(|w| lower.split(|c: char| !c.is_alphanumeric()).any(|x| x == *w))
        || [
            "已完成",
            "打了勾",
            "打勾的",
            "完成的",
            "勾选的",
            "做完的",
            "弄完的",
            "搞定的",
            "办完的",
        ]
        .iter()
        .any(|w| object.contains(w))
}

/// The state an order's object picks its items by: `Some(false)` for "everything still
/// open" (an [`effects::UNDONE_WORDS`] phrase), `Some(true)` for "everything that's ticked
/// off" ([`names_done`]), `None` when it names no state.
fn state_named(object: &str) -> Option<bool> {
    let spaced: String = object
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let spaced = format!(
        " {} ",
        spaced.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    let undone = effects::UNDONE_WORDS
        .iter()
        .any(|w| spaced.contains(&format!(" {w} ")))
        || ["未完成", "没完成", "没勾", "未勾"]
            .iter()
            .any(|w| object.contains(w));
    if undone {
        Some(false)
    } else {
        names_done(object).then_some(true)
    }
}

/// Whether an object that names no item speaks of items named before: no English word of
/// meaning left ("that one", "it", "both of them"); in Chinese a demonstrative (这条, 那个,
/// 它), or, but for deleting (清除已完成的 names a button), any object ("把勾去掉").
fn pronoun(object: &str, does: Does) -> bool {
    if object.chars().any(effects::is_cjk) {
        // "删了吧": nothing but particles is the item just spoken of.
        let plain = [
            "直接", "干脆", "马上", "立刻", "赶紧", "顺便", "一并", "可以", "帮我",
        ]
        .iter()
        .fold(object.to_string(), |o, w| o.replace(w, ""));
        let bare = plain
            .chars()
            .filter(|c| effects::is_cjk(*c))
            .all(|c| "了吧呢啊吗呀嘛就也都把给掉它".contains(c));
        return does != Does::Delete
            || bare
            || ["这", "那", "它"].iter().any(|w| object.contains(w));
    }
    // "those two", "both": a count of items named before is no word of meaning.
    words(object)
        .iter()
        .all(|w| ["two", "three", "four", "both", "those", "these", "them"].contains(&w.as_str()))
}

/// How many items a pronoun speaks of: `Some(1)` for it / that one / 这条, `Some(n)` for
/// both / two / 两, `None` for them / these (every item that matches).
fn plural(object: &str) -> Option<usize> {
    let lower = object.to_lowercase();
    let has = |w: &str| lower.split(|c: char| !c.is_alphanumeric()).any(|x| x == w);
    // "tick both the ferns and the bills", split at its "and": this part names one.
    let both_named = lower
        .split_once("both ")
        .is_some_and(|(_, r)| !r.trim_start().starts_with("of") && !words(r).is_empty());
    if both_named {
        return Some(1);
    }
    if has("both") || has("two") || object.contains('两') {
        return Some(2);
    }
    if has("three") || object.contains('三') {
        return Some(3);
    }
    if has("them") || has("these") || has("those") || object.contains("它们") {
        return None;
    }
    Some(1)
}

/// "the first two are sorted now": the `k` items a run of positions names as a clause's
/// subject (before its copula), for "those two" after it.
fn run_subject(seg: &str, items: &[(String, bool)], k: usize) -> Option<Vec<String>> {
    let lower = seg.to_lowercase();
    let subject = [" are ", " were ", "'re "]
        .iter()
        .filter_map(|c| lower.find(c))
        .min()
        .and_then(|at| seg.get(..at))?;
    positions::by_positions(subject, items).filter(|run| run.len() == k)
}

/// Items the clauses before (nearest first) speak of: the nearest clause that names some, by
/// its quoted items, else by its words ("the bread's been bought, so tick it off" speaks of
/// the bread even when an earlier clause quoted another item). A plural that wants more
/// takes them from several clauses ("会议室还没订，测试用例只更新了一半，这两条…").
fn by_context(before: &[&str], items: &[(String, bool)], n: Option<usize>) -> Option<Vec<String>> {
    if let Some(run) = n.filter(|k| *k > 1).and_then(|k| {
        before
            .iter()
            .take(3)
            .find_map(|seg| run_subject(seg, items, k))
    }) {
        return Some(run);
    }
    let mut found: Vec<String> = Vec::new();
    for seg in before {
        let quoted: Vec<String> = clauses::quoted(seg)
            .iter()
            .filter_map(|q| find_item(q, items))
            .collect();
        let hits = if quoted.is_empty() {
            by_words(seg, items, n.filter(|k| *k == 1))
                .or_else(|| {
                    (n == Some(1))
                        .then(|| {
                            by_chars(seg, items).or_else(|| positions::by_position(seg, items))
                        })
                        .flatten()
                        .map(|one| vec![one])
                })
                .unwrap_or_default()
        } else {
            quoted
        };
        for h in hits {
            if !found.contains(&h) {
                found.push(h);
            }
        }
        match n {
            Some(k) if found.len() >= k => break,
            None if !found.is_empty() => break,
            _ => {}
        }
    }
    found.sort_by_key(|f| items.iter().position(|(n, _)| n == f));
    match n {
        Some(n) if found.len() == n => Some(found),
        None if !found.is_empty() => Some(found),
        _ => None,
    }
}

/// The items `text`'s words name: the unique best-scoring one for `Some(1)`, every item that
/// shares a word otherwise (exactly `n` of them for `Some(n)`); `None` when nothing matches.
fn by_words(text: &str, items: &[(String, bool)], n: Option<usize>) -> Option<Vec<String>> {
    let want = words(text);
    if want.is_empty() {
        return None;
    }
    let scored: Vec<(usize, &String)> = items
        .iter()
        .map(|(name, _)| {
            (
                words(name)
                    .iter()
                    .filter(|w| want.iter().any(|x| same_word(x, w)))
                    .count(),
                name,
            )
        })
        .filter(|(s, _)| *s > 0)
        .collect();
    let best = scored.iter().map(|(s, _)| *s).max()?;
    match n {
        Some(1) => {
            let top: Vec<&String> = scored
                .iter()
                .filter(|(s, _)| *s == best)
                .map(|(_, n)| *n)
                .collect();
            (top.len() == 1).then(|| vec![top[0].clone()])
        }
        Some(k) => (scored.len() == k).then(|| scored.iter().map(|(_, n)| (*n).clone()).collect()),
        None => Some(scored.iter().map(|(_, n)| (*n).clone()).collect()),
    }
}

/// Chinese characters that carry no item's meaning (particles, pronouns, aspect words).
const ZH_FUNCTION_CHARS: &str =
    "了的已经把这那条个一下吧就也都还没不是在我你他她它们给让被去来过着呢啊吗要再和跟与又很太先后";

/// The one item sharing the most meaning-bearing Chinese characters with `text` (a clause
/// that words the item in another order: "花已经浇过了" names 浇花), when character pairs
/// found none; `None` when no item shares one or several tie.
fn by_chars(text: &str, items: &[(String, bool)]) -> Option<String> {
    let want: Vec<char> = text
        .chars()
        .filter(|c| effects::is_cjk(*c) && !ZH_FUNCTION_CHARS.contains(*c))
        .collect();
    if want.is_empty() {
        return None;
    }
    let scored: Vec<(usize, &String)> = items
        .iter()
        .map(|(name, _)| {
            let mut seen: Vec<char> = Vec::new();
            for c in name.chars().filter(|c| want.contains(c)) {
                if !seen.contains(&c) {
                    seen.push(c);
                }
            }
            (seen.len(), name)
        })
        // One shared character (买 of 买水果 in "把新的买回来了") is no evidence.
        .filter(|(k, _)| *k > 1)
        .collect();
    let best = scored.iter().map(|(k, _)| *k).max()?;
    let mut top = scored.iter().filter(|(k, _)| *k == best);
    let one = top.next()?;
    top.next().is_none().then(|| one.1.clone())
}

/// Meaning-bearing words of `text`: English stems not in [`STOP`], and Chinese character
/// pairs.
pub(super) fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lower = text.to_lowercase().replace('’', "'");
    for w in lower.split(|c: char| !(c.is_alphanumeric() || c == '\'') || effects::is_cjk(c)) {
        let w = w.trim_matches('\'');
        let w = w.strip_suffix("'s").unwrap_or(w);
        if w.is_empty() || STOP.contains(&w) || effects::DONE_WORDS.contains(&w) {
            continue;
        }
        out.push(stem(w));
    }
    let cjk: Vec<char> = text.chars().collect();
    for pair in cjk.windows(2) {
        if pair.iter().all(|c| effects::is_cjk(*c)) {
            out.push(pair.iter().collect());
        }
    }
    out
}

/// Whether two stems are one word: equal, or one a prefix of the other by at most two
/// letters, both of five or more ("cancell" of "cancelling" and "cancel").
pub(super) fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.chars().count() >= 5 && long.starts_with(short) && long.len() - short.len() <= 2
}

/// A crude English stem: `-ing`, `-ed`, `-es`/`-s` dropped from longer words, then a final
/// `-e` ("filing" and "file" share `fil`).
fn stem(w: &str) -> String {
    for (suffix, min) in [("ing", 6), ("ed", 5), ("es", 5), ("s", 4)] {
        if w.len() >= min {
            if let Some(s) = w.strip_suffix(suffix) {
                return s.to_string();
            }
        }
    }
    match w.strip_suffix('e') {
        Some(s) if w.len() >= 4 => s.to_string(),
        _ => w.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_perception::{build, Node, Rect, Screen, Tree, Tri};

    /// A list app's shape: a new-item field, one row per item (a toggle named by the item),
    /// a "Clear done" button.
    fn list(items: &[(&str, bool)]) -> Observation {
        let mut tree = Tree::default();
        let mut root = Node::new(Role::Other, "main", "");
        root.bounds = Some(Rect::new(0.0, 0.0, 400.0, 400.0));
        tree.nodes.push(root);
        let mut field = Node::new(Role::Textfield, "textbox", "");
        field.placeholder = Some("New item".into());
        field.bounds = Some(Rect::new(10.0, 10.0, 300.0, 24.0));
        field.parent = Some(0);
        tree.nodes.push(field);
        for (i, (name, done)) in items.iter().enumerate() {
            let mut n = Node::new(Role::Checkbox, "checkbox", name);
            n.checked = if *done { Tri::Yes } else { Tri::No };
            n.bounds = Some(Rect::new(10.0, 50.0 + 30.0 * i as f64, 200.0, 24.0));
            n.parent = Some(0);
            tree.nodes.push(n);
        }
        let mut b = Node::new(Role::Button, "button", "Clear done");
        b.bounds = Some(Rect::new(10.0, 360.0, 100.0, 24.0));
        b.parent = Some(0);
        tree.nodes.push(b);
        tree.nodes[0].children = (1..tree.nodes.len()).collect();
        build(
            &tree,
            Screen {
                width: 400.0,
                height: 400.0,
                dpr: 1.0,
            },
            1,
        )
    }

    fn steps(instruction: &str, obs: &Observation) -> Option<Vec<String>> {
        read(instruction, obs).map(|r| r.without_asks().steps)
    }

    #[test]
    fn orders_said_as_states_undos_take_backs_and_placements_read() {
        let obs = list(&[
            ("wash the car", true),
            ("water the ferns", false),
            ("post the parcel", true),
        ]);
        // A check clause joined to a reason gives its state; "worded 'x'" renames the item
        // the clauses before speak of.
        assert_eq!(
            steps(
                "Somebody ticked the parcel too early, so it should be open again and worded 'post the big parcel'.",
                &obs
            )
            .unwrap(),
            vec![
                "uncheck \"post the parcel\"",
                "double tap \"post the parcel\"",
                "type \"post the big parcel\" into \"post the parcel\"",
                "press Enter",
            ]
        );
        // "undo that" takes back the state the clause before says.
        assert_eq!(
            steps("The car is marked done by mistake; undo that.", &obs).unwrap(),
            vec!["uncheck \"wash the car\""]
        );
        // Said, then taken back: nothing; "throw … on" adds, "… can go completely" deletes.
        assert_eq!(
            steps(
                "I was going to add 'buy a hose', never mind. Throw 'buy soap' on there. The ferns one can go completely.",
                &obs
            )
            .unwrap(),
            vec![
                "type \"buy soap\" into \"New item\"",
                "press Enter",
                "tap \"Delete\" in the row of \"water the ferns\"",
            ]
        );
        let zh = list(&[("洗车", false), ("浇花", false)]);
        assert_eq!(
            steps(
                "本来想把洗车那条勾掉，算了。浇花那条的名字换成“给花浇水”。",
                &zh
            )
            .unwrap(),
            vec![
                "double tap \"浇花\"",
                "type \"给花浇水\" into \"浇花\"",
                "press Enter",
            ]
        );
        // New items under a heading; a report of what happened; no longer counted done.
        assert_eq!(
            steps(
                "A couple of new entries: 'oil the hinge' and 'sweep the yard'.",
                &obs
            )
            .unwrap(),
            vec![
                "type \"oil the hinge\" into \"New item\"",
                "press Enter",
                "type \"sweep the yard\" into \"New item\"",
                "press Enter",
            ]
        );
        assert_eq!(
            steps(
                "洗车的事推迟了。浇花那条又加了一盆，所以它现在不算完成。",
                &zh
            )
            .map(|s| s.len()),
            None,
            "浇花 is open already: nothing to do"
        );
        // A description that tells of a change to an item the plan leaves alone: unsure.
        let r = read(
            "The parcel got returned to sender last week. Untick the car.",
            &obs,
        )
        .unwrap();
        assert_eq!(
            r.unsure,
            vec![(
                "The parcel got returned to sender last week".to_string(),
                "post the parcel".to_string()
            )]
        );
        let r = read("The parcel stays as it is. Untick the car.", &obs).unwrap();
        assert!(r.unsure.is_empty(), "{r:?}");
        // A check on its own never makes its own state.
        assert_eq!(
            steps("Untick the car. The ferns one should be ticked.", &obs).unwrap(),
            vec!["uncheck \"wash the car\""]
        );
    }

    #[test]
    fn runs_of_positions_state_exceptions_make_renames_and_absent_items_read() {
        let obs = list(&[
            ("wash the car", true),
            ("water the ferns", false),
            ("post the parcel", true),
            ("buy socks", false),
            ("call the dentist", true),
        ]);
        // An exception after a comma keeps its clause; the state picks among the items.
        assert_eq!(
            steps(
                "Delete everything that's done, except the dentist one.",
                &obs
            )
            .unwrap(),
            vec![
                "tap \"Delete\" in the row of \"wash the car\"",
                "tap \"Delete\" in the row of \"post the parcel\"",
            ]
        );
        // A run of positions; "whichever of those two isn't done" picks among them.
        assert_eq!(
            steps("Untick the last two.", &obs).unwrap(),
            vec!["uncheck \"call the dentist\""]
        );
        assert_eq!(
            steps(
                "The top two are handled now, so tick whichever of those two isn't done yet.",
                &obs
            )
            .unwrap(),
            vec!["check \"water the ferns\""]
        );
        assert_eq!(
            steps("前两条都勾上", &obs).unwrap(),
            vec!["check \"water the ferns\""]
        );
        // "make X 'Y' instead" renames; "X shouldn't be on there" deletes.
        assert_eq!(
            steps("make the socks one 'buy wool socks' instead", &obs).unwrap(),
            vec![
                "double tap \"buy socks\"",
                "type \"buy wool socks\" into \"buy socks\"",
                "press Enter",
            ]
        );
        assert_eq!(
            steps("the parcel shouldn't be on the list at all", &obs).unwrap(),
            vec!["tap \"Delete\" in the row of \"post the parcel\""]
        );
        // Preambles order nothing; a Chinese demonstrative renames the item just spoken of;
        // someone else's finished work describes.
        assert_eq!(
            steps("let's update the list. tick the ferns", &obs).unwrap(),
            vec!["check \"water the ferns\""]
        );
        let zh = list(&[("洗车", false), ("寄包裹", false), ("买袜子", false)]);
        assert_eq!(
            steps(
                "这张单子帮我改改。寄包裹推到明天了，把那条的内容改成“明天寄包裹”。",
                &zh
            )
            .unwrap(),
            vec![
                "double tap \"寄包裹\"",
                "type \"明天寄包裹\" into \"寄包裹\"",
                "press Enter",
            ]
        );
        assert_eq!(
            steps("邻居已经帮我洗好了。买袜子那条删掉。", &zh).unwrap(),
            vec!["tap \"Delete\" in the row of \"买袜子\""]
        );
    }

    #[test]
    fn positions_exceptions_and_conditions_read() {
        let obs = list(&[
            ("oil the gate", false),
            ("renew the insurance", true),
            ("ring grandma", false),
            ("pay the rent", false),
        ]);
        // Rows by position; "after that" is no subordinate clause.
        assert_eq!(
            steps(
                "the second one isn't done yet. after that rename the bottom entry to 'pay rent early'",
                &obs
            )
            .unwrap(),
            vec![
                "uncheck \"renew the insurance\"",
                "double tap \"pay the rent\"",
                "type \"pay rent early\" into \"pay the rent\"",
                "press Enter"
            ]
        );
        // An all with an exception ticks the others, one by one ("but" splits nothing).
        assert_eq!(
            steps("Tick everything but the grandma one.", &obs).unwrap(),
            vec!["check \"oil the gate\"", "check \"pay the rent\""]
        );
        // A condition on a known state gates its order; "leave it alone" orders nothing.
        let r = read(
            "if the insurance is still open, tick it; if it's already done, leave it alone. If the gate one isn't ticked yet, delete it.",
            &obs,
        )
        .unwrap();
        assert_eq!(
            r.steps,
            vec!["tap \"Delete\" in the row of \"oil the gate\""]
        );
        assert_eq!(r.already, 1);
        // A condition Argus cannot test goes to the model with its order.
        assert_eq!(
            steps(
                "Tick 'oil the gate'. if the page is slow, remove 'ring grandma'",
                &obs
            )
            .unwrap(),
            vec![
                "check \"oil the gate\"",
                "if the page is slow, remove 'ring grandma'"
            ]
        );
        let zh = list(&[("交房租", false), ("买牛奶", true), ("修自行车", false)]);
        assert_eq!(
            steps("第二条删掉，最后一条打勾。", &zh).unwrap(),
            vec![
                "tap \"Delete\" in the row of \"买牛奶\"",
                "check \"修自行车\""
            ]
        );
        assert_eq!(
            steps("除了交房租，其他都勾上。", &zh).unwrap(),
            vec!["check \"修自行车\""]
        );
        // A condition and its order in one Chinese clause, split at 就; 的话 marks one too.
        assert_eq!(
            steps(
                "最下面那条：要是已经打勾了就删掉，没勾的话就给它勾上。第一条改名叫“交下月房租”。",
                &zh
            )
            .unwrap(),
            vec![
                "check \"修自行车\"",
                "double tap \"交房租\"",
                "type \"交下月房租\" into \"交房租\"",
                "press Enter"
            ]
        );
    }

    #[test]
    fn self_corrections_past_events_and_list_wide_preambles() {
        let obs = list(&[("water the ferns", true), ("call the bank", false)]);
        // "scratch the second one" right after adding two speaks of the second added.
        assert_eq!(
            steps(
                "Add 'order stamps' and 'post the forms' - scratch the second one actually.",
                &obs
            )
            .unwrap(),
            vec![
                "type \"order stamps\" into \"New item\"",
                "press Enter",
                "type \"post the forms\" into \"New item\"",
                "press Enter",
                "tap \"Delete\" in the row of \"post the forms\""
            ]
        );
        // A state said of nothing on the list is no step for the model.
        assert_eq!(
            steps("Most of this got sorted. Tick the bank one.", &obs).unwrap(),
            vec!["check \"call the bank\""]
        );
        let zh = list(&[("买水果", false), ("换窗帘", true), ("订酒店", false)]);
        // A tick said to be a mistake comes off the item just spoken of; a past time
        // describes; a list-wide preamble orders nothing; 所以 is a filler.
        assert_eq!(
            steps("家务清单帮我改一下。窗帘其实没换，上周只是把新的买回来了，勾打错了。酒店那条，所以改名叫“订民宿”。", &zh)
                .unwrap(),
            vec![
                "uncheck \"换窗帘\"",
                "double tap \"订酒店\"",
                "type \"订民宿\" into \"订酒店\"",
                "press Enter"
            ]
        );
    }

    #[test]
    fn presses_of_clearing_words_others_after_an_exception_and_scratch() {
        let obs = list(&[
            ("oil the gate", true),
            ("renew the insurance", false),
            ("ring grandma", false),
        ]);
        assert_eq!(
            steps("then hit clear completed.", &obs).unwrap(),
            vec!["tap \"Clear done\""]
        );
        assert_eq!(
            steps(
                "Pretty much everything is finished except grandma, she's away. Tick the rest.",
                &obs
            )
            .unwrap(),
            vec!["check \"renew the insurance\""]
        );
        assert_eq!(
            steps("Scratch the insurance one.", &obs).unwrap(),
            vec!["tap \"Delete\" in the row of \"renew the insurance\""]
        );
    }

    #[test]
    fn pronouns_and_paraphrases_find_their_items() {
        let obs = list(&[("fix the fence", false), ("email the landlord", false)]);
        assert_eq!(
            steps("The landlord got his email, so cross that one off.", &obs).unwrap(),
            vec!["check \"email the landlord\""]
        );
        assert_eq!(
            steps("Tick off the fence job", &obs).unwrap(),
            vec!["check \"fix the fence\""]
        );
        assert_eq!(
            steps("'fix the fence' is done by my neighbour. Remove it.", &obs).unwrap(),
            vec!["tap \"Delete\" in the row of \"fix the fence\""]
        );
        let zh = list(&[("修水管", true), ("订机票", true), ("写报告", false)]);
        assert_eq!(
            steps("水管其实还没修好，机票也没订成，这两条都得重新打开。", &zh).unwrap(),
            vec!["uncheck \"修水管\"", "uncheck \"订机票\""]
        );
    }

    #[test]
    fn adds_renames_clears_and_skips_what_holds() {
        let obs = list(&[("fix the fence", true), ("email the landlord", false)]);
        let r = read(
            "Clear the finished ones, then add 'walk the dog' and tick off 'email the landlord'. Make sure 1 item is left.",
            &obs,
        )
        .unwrap();
        assert_eq!(
            r.steps,
            vec![
                "tap \"Clear done\"",
                "type \"walk the dog\" into \"New item\"",
                "press Enter",
                "check \"email the landlord\""
            ]
        );
        let r = read("Tick off 'fix the fence' and 'email the landlord'.", &obs).unwrap();
        assert_eq!(r.steps, vec!["check \"email the landlord\""]);
        assert_eq!(r.already, 1, "the fence was ticked already");
        // Nothing left to do: the model decides (it sees the screen).
        assert_eq!(read("Tick off 'fix the fence'.", &obs), None);
        assert_eq!(
            steps(
                "'email the landlord' is vague: reword it to 'email the landlord about rent'",
                &obs
            )
            .unwrap(),
            vec![
                "double tap \"email the landlord\"",
                "type \"email the landlord about rent\" into \"email the landlord\"",
                "press Enter"
            ]
        );
        assert_eq!(
            steps("顺便再记一条“买牛奶”。", &obs).unwrap(),
            vec!["type \"买牛奶\" into \"New item\"", "press Enter"]
        );
    }

    #[test]
    fn what_argus_cannot_read_is_a_free_step_in_its_place() {
        let obs = list(&[("pay the rent", false), ("call mum", false)]);
        // A verb outside the lexicon stays a free step, and a subordinate clause orders
        // nothing.
        assert_eq!(
            steps(
                "Rent's paid, so tick that one off and then sort the list by name. Once that's done, add 'buy eggs'.",
                &obs
            )
            .unwrap(),
            vec![
                "check \"pay the rent\"",
                "sort the list by name",
                "type \"buy eggs\" into \"New item\"",
                "press Enter"
            ]
        );
        // A clearing verb with no button of its own names the `Clear …` one; at a free
        // step's turn, the button then shown.
        assert_eq!(
            steps("Purge the finished items.", &obs).unwrap(),
            vec!["tap \"Clear done\""]
        );
        assert_eq!(
            verb_button("clear the finished items", &obs).as_deref(),
            Some("tap \"Clear done\"")
        );
        assert_eq!(verb_button("clear 'pay the rent'", &obs), None);
        assert_eq!(verb_button("Clearly sort the list", &obs), None);
        assert_eq!(
            verb_button("Start by wiping out whatever is done", &obs).as_deref(),
            Some("tap \"Clear done\"")
        );
        let zh = list(&[("修水管", true), ("订机票", true), ("写报告", false)]);
        assert_eq!(
            steps("机票其实还没订好，把它的勾去掉。", &zh).unwrap(),
            vec!["uncheck \"订机票\""]
        );
    }

    #[test]
    fn descriptions_and_state_words_are_not_orders() {
        let obs = list(&[
            ("print the tickets", true),
            ("fix the fence", false),
            ("email the landlord", false),
        ]);
        assert_eq!(
            steps(
                "I finally got the fence thing sorted, so mark it as done. While you're at it, put 'oil the gate' on the list too.",
                &obs
            )
            .unwrap(),
            vec![
                "check \"fix the fence\"",
                "type \"oil the gate\" into \"New item\"",
                "press Enter"
            ]
        );
        assert_eq!(
            steps(
                "The tickets came out blurry, so that one isn't really done: reopen it. Fence is fixed, tick it. And forget the landlord, just delete that one. Confirm the footer shows 1 item left afterwards.",
                &obs
            )
            .unwrap(),
            vec![
                "uncheck \"print the tickets\"",
                "check \"fix the fence\"",
                "tap \"Delete\" in the row of \"email the landlord\""
            ]
        );
        let zh = list(&[("写报告", false), ("交房租", false), ("订机票", true)]);
        assert_eq!(
            steps(
                "报告已经写完发出去了，先把它勾上，再把所有打了勾的事项一次性清掉。",
                &zh
            )
            .unwrap(),
            vec!["check \"写报告\"", "tap \"Clear done\""]
        );
        assert_eq!(
            steps("房租早就交了，那条直接删了吧。", &zh).unwrap(),
            vec!["tap \"Delete\" in the row of \"交房租\""]
        );
    }

    #[test]
    fn the_nearest_clause_decides_a_pronoun() {
        let obs = list(&[("call the plumber", false), ("buy bread", false)]);
        assert_eq!(
            steps(
                "Not the plumber after all: change that entry to read 'call the electrician'. The bread's been bought as well, so tick it off.",
                &obs
            )
            .unwrap(),
            vec![
                "double tap \"call the plumber\"",
                "type \"call the electrician\" into \"call the plumber\"",
                "press Enter",
                "check \"buy bread\""
            ]
        );
    }

    #[test]
    fn what_does_not_read_is_left_to_the_model() {
        let obs = list(&[("fix the fence", false), ("email the landlord", false)]);
        // Nothing read: a verb outside the lexicon, an item nobody has, an ambiguous
        // pronoun, a form.
        assert_eq!(steps("Sort the list by name.", &obs), None);
        assert_eq!(steps("Tick off the groceries.", &obs), None);
        assert_eq!(
            steps("Tick both of them off.", &list(&[("a", false)])),
            None
        );
        assert_eq!(steps("Log in as 'ann' and press Submit.", &obs), None);
        // One clause read, the other a free step.
        assert_eq!(
            steps("Sort the list by name, then tick off the fence.", &obs).unwrap(),
            vec!["Sort the list by name", "check \"fix the fence\""]
        );
        // Only checks and descriptions: nothing to plan.
        assert_eq!(
            steps("The fence looks fine. Make sure 2 items are left.", &obs),
            None
        );
        // A description that says the item's own verb is done ticks it.
        assert_eq!(
            steps("The fence is fixed. Make sure 2 items are left.", &obs).unwrap(),
            vec!["check \"fix the fence\""]
        );
    }
    #[test]
    fn passive_orders_gerunds_after_by_and_item_lists_read() {
        let obs = list(&[
            ("renew the lease", false),
            ("cancel the magazine subscription", true),
            ("mow the lawn", true),
        ]);
        // A passive order names its item before the modal; "shouldn't have a tick" unticks.
        assert_eq!(
            steps(
                "I renewed the lease yesterday, so that one can be marked complete. The magazine one shouldn't have a tick; I never got round to cancelling it.",
                &obs
            )
            .unwrap(),
            vec![
                "check \"renew the lease\"",
                "uncheck \"cancel the magazine subscription\""
            ]
        );
        // "set it back to open": `back` and `open` name no item; `cancelling` is `cancel`.
        assert_eq!(
            steps(
                "I never got round to cancelling the magazine, so set it back to open.",
                &obs
            )
            .unwrap(),
            vec!["uncheck \"cancel the magazine subscription\""]
        );
        // "… can go" deletes (once, with the pronoun after it); a gerund after `by` is the
        // order.
        assert_eq!(
            steps("The lawn entry can go now: delete it.", &obs).unwrap(),
            vec!["tap \"Delete\" in the row of \"mow the lawn\""]
        );
        assert_eq!(
            steps("Tidy up by getting rid of whatever is already done.", &obs).unwrap(),
            vec!["tap \"Clear done\""]
        );
        // Items after a colon, split at their commas, are the add's; "take … off" deletes.
        assert_eq!(
            steps(
                "Put these on the list: 'oil the gate', 'buy nails' and 'sand the deck'. Then take 'buy nails' off again.",
                &obs
            )
            .unwrap(),
            vec![
                "type \"oil the gate\" into \"New item\"",
                "press Enter",
                "type \"buy nails\" into \"New item\"",
                "press Enter",
                "type \"sand the deck\" into \"New item\"",
                "press Enter",
                "tap \"Delete\" in the row of \"buy nails\""
            ]
        );
        assert_eq!(
            steps(
                "Start a shopping list with two todos: 'eggs' and 'flour'.",
                &list(&[])
            )
            .unwrap()
            .len(),
            4
        );
        let zh = list(&[("交水费", false), ("洗车", false)]);
        assert_eq!(
            steps("水费昨天交过了，给它打上勾。另外再添一条：“买灯泡”。", &zh).unwrap(),
            vec![
                "check \"交水费\"",
                "type \"买灯泡\" into \"New item\"",
                "press Enter"
            ]
        );
    }

    #[test]
    fn a_check_naming_an_item_by_its_words_checks_that_toggle() {
        let obs = list(&[("renew the lease", false), ("mow the lawn", true)]);
        assert_eq!(
            state_check(
                "Double-check the lease one is still unticked when you're done",
                &obs,
                &[]
            )
            .as_deref(),
            Some("assert \"renew the lease\" is not checked")
        );
        assert_eq!(
            state_check("make sure the lawn stays done", &obs, &[]).as_deref(),
            Some("assert \"mow the lawn\" is checked")
        );
        assert_eq!(state_check("make sure 2 items are left", &obs, &[]), None);
        assert_eq!(
            state_check("make sure 'mow the lawn' is done", &obs, &[]),
            None
        );
        assert_eq!(state_check("make sure the garage is done", &obs, &[]), None);
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
        let r = read("Tick off the bread and sort the list.", &obs).unwrap();
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

    #[test]
    fn blind_round_false_pass_shapes() {
        let obs = list(&[
            ("walk the dog", false),
            ("book the groomer", true),
            ("buy cat food", false),
        ]);
        assert_eq!(
            steps(
                "The groomer cancelled, so 'book the groomer' needs to go back to not done.",
                &obs
            )
            .unwrap(),
            vec!["uncheck \"book the groomer\""]
        );
        assert_eq!(
            steps(
                "Amend 'buy cat food' so that it reads 'buy cat food and litter'.",
                &obs
            )
            .unwrap(),
            vec![
                "double tap \"buy cat food\"",
                "type \"buy cat food and litter\" into \"buy cat food\"",
                "press Enter"
            ]
        );
        assert_eq!(
            steps(
                "Please make the following changes to the pet list. Delete 'walk the dog'.",
                &obs
            )
            .unwrap(),
            vec!["tap \"Delete\" in the row of \"walk the dog\""]
        );
        let zh = list(&[("订蛋糕", true), ("买气球", true), ("发邀请", false)]);
        assert_eq!(
            steps("气球还没买，那个勾是误点的，把勾去了就行。", &zh).unwrap(),
            vec!["uncheck \"买气球\""]
        );
    }

    #[test]
    fn list_markers_and_joined_items_read() {
        let obs = list(&[
            ("renew the lease", false),
            ("mow the lawn", false),
            ("pay tax", false),
        ]);
        assert_eq!(
            steps(
                "1) Tick off the lease and the lawn\n2) delete the tax one",
                &obs
            )
            .unwrap(),
            vec![
                "check \"renew the lease\"",
                "check \"mow the lawn\"",
                "tap \"Delete\" in the row of \"pay tax\""
            ]
        );
        assert_eq!(
            steps("Check off mow the lawn and pay tax.", &obs).unwrap(),
            vec!["check \"mow the lawn\"", "check \"pay tax\""]
        );
        let zh = list(&[("交电费", false), ("取快递", false)]);
        assert_eq!(
            steps("把电费和快递都勾上。", &zh).unwrap(),
            vec!["check \"交电费\"", "check \"取快递\""]
        );
    }

    #[test]
    fn unquoted_add_lists_edits_that_say_and_polite_orders_read() {
        let empty = list(&[]);
        assert_eq!(
            steps(
                "Please add two todos: sand the deck, oil the gate. Then tick the deck one.",
                &empty
            )
            .unwrap(),
            vec![
                "type \"sand the deck\" into \"New item\"",
                "press Enter",
                "type \"oil the gate\" into \"New item\"",
                "press Enter",
                "check \"sand the deck\""
            ]
        );
        let obs = list(&[("renew the lease", false), ("mow the lawn", false)]);
        assert_eq!(
            steps(
                "The lease is renewed, you can tick that off. And can you edit 'mow the lawn' so it says 'mow the back lawn' instead? Thanks!",
                &obs
            )
            .unwrap(),
            vec![
                "check \"renew the lease\"",
                "double tap \"mow the lawn\"",
                "type \"mow the back lawn\" into \"mow the lawn\"",
                "press Enter"
            ]
        );
        assert_eq!(
            steps("lease and lawn are both sorted. take those two off the list completely, and stick 'buy paint' on there", &obs)
                .unwrap(),
            vec![
                "tap \"Delete\" in the row of \"renew the lease\"",
                "tap \"Delete\" in the row of \"mow the lawn\"",
                "type \"buy paint\" into \"New item\"",
                "press Enter"
            ]
        );
        assert_eq!(
            steps("Add a new one, 'buy paint'.", &obs).unwrap(),
            vec!["type \"buy paint\" into \"New item\"", "press Enter"]
        );
        let zh = list(&[("洗窗帘", true), ("修水龙头", false)]);
        assert_eq!(
            steps(
                "“洗窗帘”那条是我手滑点成完成的，窗帘还没洗呢，改回未完成。",
                &zh
            )
            .unwrap(),
            vec!["uncheck \"洗窗帘\""]
        );
    }

    #[test]
    fn a_reason_names_no_items_and_added_items_can_be_checked() {
        let obs = list(&[("wash the car", true), ("oil the gate", true)]);
        assert_eq!(
            steps("Untick the car one because it might rain all week.", &obs).unwrap(),
            vec!["uncheck \"wash the car\""]
        );
        assert_eq!(
            state_check(
                "check that the deck one is the only thing still open",
                &list(&[]),
                &["sand the deck".to_string()]
            )
            .as_deref(),
            Some("assert \"sand the deck\" is not checked")
        );
    }

    #[test]
    fn the_tick_itself_and_done_states_are_orders() {
        let obs = list(&[
            ("paint the shed", true),
            ("call the plumber", false),
            ("book the vet", true),
        ]);
        assert_eq!(
            steps(
                "We ran out of paint, so take the tick off 'paint the shed'.",
                &obs
            )
            .unwrap(),
            vec!["uncheck \"paint the shed\""]
        );
        assert_eq!(
            steps(
                "The vet can't see us until May. Remove the check mark from it.",
                &obs
            )
            .unwrap(),
            vec!["uncheck \"book the vet\""]
        );
        assert_eq!(
            steps("Put a tick next to 'call the plumber'.", &obs).unwrap(),
            vec!["check \"call the plumber\""]
        );
        assert_eq!(
            steps("I rang the plumber this morning, so that's done.", &obs).unwrap(),
            vec!["check \"call the plumber\""]
        );
        assert_eq!(
            steps("The plumber call is finished now.", &obs).unwrap(),
            vec!["check \"call the plumber\""]
        );
        assert_eq!(
            steps("The vet booking isn't done yet.", &obs).unwrap(),
            vec!["uncheck \"book the vet\""]
        );
        // "once that's done" sets when; the add is the only order.
        assert_eq!(
            steps("Once that's done, add 'oil the hinges'.", &obs).unwrap(),
            vec!["type \"oil the hinges\" into \"New item\"", "press Enter"]
        );
        let zh = list(&[("寄快递", true), ("买菜", false)]);
        assert_eq!(
            steps("快递其实还没寄出去，把勾取消。", &zh).unwrap(),
            vec!["uncheck \"寄快递\""]
        );
        assert_eq!(
            steps("取消“寄快递”的勾", &zh).unwrap(),
            vec!["uncheck \"寄快递\""]
        );
    }
    #[test]
    fn states_set_by_other_verbs_and_items_worded_otherwise() {
        let obs = list(&[
            ("water the ferns", false),
            ("renew car insurance", true),
            ("email the accountant", false),
        ]);
        let cases = [
            (
                "Flip 'water the ferns' to done.",
                vec!["check \"water the ferns\""],
            ),
            (
                "Move the insurance one back to active.",
                vec!["uncheck \"renew car insurance\""],
            ),
            (
                "The insurance got refused, get it off the list.",
                vec!["tap \"Delete\" in the row of \"renew car insurance\""],
            ),
            (
                "Rename the ferns task to 'water the ferns and the orchid'.",
                vec![
                    "double tap \"water the ferns\"",
                    "type \"water the ferns and the orchid\" into \"water the ferns\"",
                    "press Enter",
                ],
            ),
            (
                "Tick both the ferns and the accountant ones.",
                vec![
                    "check \"water the ferns\"",
                    "check \"email the accountant\"",
                ],
            ),
        ];
        for (t, want) in cases {
            assert_eq!(steps(t, &obs).unwrap(), want, "{t}");
        }
        let zh = list(&[("浇花", false), ("续车险", true), ("剪头发", true)]);
        let cases = [
            ("花已经浇过了，标记一下。", vec!["check \"浇花\""]),
            ("把剪头发那条改回没做完。", vec!["uncheck \"剪头发\""]),
            ("把已完成的都清掉。", vec!["tap \"Clear done\""]),
        ];
        for (t, want) in cases {
            assert_eq!(steps(t, &zh).unwrap(), want, "{t}");
        }
    }

    #[test]
    fn dashes_colons_states_replace_and_whatever() {
        let obs = list(&[
            ("print boarding passes", false),
            ("confirm the dentist booking", false),
            ("pack sunscreen", true),
        ]);
        let cases = [
            (
                "I printed the boarding passes last night - mark them done.",
                vec!["check \"print boarding passes\""],
            ),
            (
                "Dentist booking: done.",
                vec!["check \"confirm the dentist booking\""],
            ),
            (
                "Replace 'pack sunscreen' with 'pack sunscreen SPF 50'.",
                vec![
                    "double tap \"pack sunscreen\"",
                    "type \"pack sunscreen SPF 50\" into \"pack sunscreen\"",
                    "press Enter",
                ],
            ),
            ("Untick whatever is ticked.", vec!["uncheck every item"]),
        ];
        for (t, want) in cases {
            assert_eq!(steps(t, &obs).unwrap(), want, "{t}");
        }
    }
    #[test]
    fn heads_headings_all_then_one_and_continued_checks() {
        let empty = list(&[]);
        assert_eq!(
            steps("Two jobs for the weekend: 'clean the gutters', 'fix the bike'. When both are in, mark the bike one as finished.", &empty).unwrap(),
            vec![
                "type \"clean the gutters\" into \"New item\"",
                "press Enter",
                "type \"fix the bike\" into \"New item\"",
                "press Enter",
                "check \"fix the bike\"",
            ]
        );
        let obs = list(&[
            ("mop the floor", true),
            ("walk the dog", false),
            ("buy milk", false),
        ]);
        assert_eq!(
            steps(
                "The wrong one got ticked. Sort it out: untick the floor one and tick the dog one.",
                &obs
            )
            .unwrap(),
            vec!["uncheck \"mop the floor\"", "check \"walk the dog\""]
        );
        assert_eq!(
            steps(
                "Tick everything, then untick 'buy milk' since the shop was shut.",
                &obs
            )
            .unwrap(),
            vec!["check every item", "uncheck \"buy milk\""]
        );
        assert_eq!(
            steps("Edit 'buy milk' so its text becomes 'buy oat milk'.", &obs).unwrap(),
            vec![
                "double tap \"buy milk\"",
                "type \"buy oat milk\" into \"buy milk\"",
                "press Enter"
            ]
        );
        // A check's second half ("而且…") orders nothing.
        let zh = list(&[("交水费", false), ("扔垃圾", false), ("取包裹", true)]);
        assert_eq!(
            steps("把“交水费”打上勾；“扔垃圾”不用了，直接删除。最后确认只剩两条，而且两条都是已完成状态。", &zh).unwrap(),
            vec!["check \"交水费\"", "tap \"Delete\" in the row of \"扔垃圾\""]
        );
        assert_eq!(
            steps("先把做完的清理掉，再加一条“交房租”。", &zh).unwrap(),
            vec![
                "tap \"Clear done\"",
                "type \"交房租\" into \"New item\"",
                "press Enter"
            ]
        );
    }
}
