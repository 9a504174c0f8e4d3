//! The typed steps of one order: an add, a rename, a tick, untick or delete of the items it
//! names, a clearing button; and the orders said without a verb ("undo that", "two new
//! ones: …").

use super::item_match::{
    among_added, by_chars, by_context, by_topic_char, by_words, each_part, find_item, names_done,
    plural, pronoun, state_named,
};
use super::screen::{button_for, one_text_field, submits_a_form};
use super::stems::{says_every_zh, words, ALL_WORDS};
use super::substitute;
use crate::agent::effects::{self, Does};
use crate::agent::plan_step::{PlanStep, StepKind};
use crate::agent::{clauses, positions};
use crate::resolve::takes_text;
use argus_perception::Observation;

/// "undo that" after a clause that says an item is (wrongly) done or open: the state taken
/// back, on the item the clauses before name ("it's wrongly shown as done; undo that").
pub(super) fn undo_order(seg: &str, before: &[&str]) -> Option<effects::Order> {
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

/// "叫“整理待产包”" after "那条改个名字", "写成“取修好的手表”" after "第一条写清楚点": a new name
/// alone, for the item the clauses before name.
pub(super) fn name_order(seg: &str) -> Option<effects::Order> {
    let s = seg.trim();
    let lead = [
        "就叫",
        "改叫",
        "叫做",
        "叫",
        "就写成",
        "改写成",
        "写成",
        "就写",
    ]
    .iter()
    .find(|l| s.starts_with(**l))?;
    let rest = s[lead.len()..].trim_start();
    // "写成“X”了吗？", "叫“X”是对的": a question or a statement about the name, not an order.
    let tail = clauses::without_quotes(rest);
    let tail = tail.trim().trim_end_matches(['。', '！', '.', '!']);
    let orders = [
        "",
        "吧",
        "就行",
        "就好",
        "就行了",
        "就好了",
        "即可",
        "就可以",
        "就可以了",
    ];
    (rest.starts_with(['“', '"', '「', '‘'])
        && clauses::quoted(rest).len() == 1
        && orders.contains(&tail))
    .then(|| effects::Order {
        does: Does::Rename,
        verb: None,
        object: rest.to_string(),
    })
}

/// "Two new ones: 'a' and 'b'", "再加两条：“a”和“b”": a heading of new items before a colon,
/// the items after it, is an add of those items.
pub(super) fn new_items_order(seg: &str) -> Option<effects::Order> {
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
pub(super) struct Ctx<'a> {
    pub(super) before: &'a [&'a str],
    pub(super) items: &'a mut Vec<(String, bool)>,
    /// Items the plan has deleted so far ("the plant entry can go: delete it" deletes once).
    pub(super) deleted: &'a mut Vec<(String, bool)>,
    pub(super) obs: &'a Observation,
    pub(super) uncertain: bool,
}

/// The typed steps of one order (`None` in the list: its effect already holds), updating
/// the known items; `None` when it cannot be read.
pub(super) fn order_steps(
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

/// Whether a Chinese head is only a title noun of the item spoken of ("名字", "把它的标题"):
/// with demonstratives, 把 and 的 left out before it, nothing but one of them. A
/// demonstrative after the noun makes it an item's own word ("名字那条" is the item
/// holding 名字, not the name of the one spoken of).
fn zh_title_only(head: &str) -> bool {
    let bare = head
        .trim()
        .trim_start_matches(|c: char| "把它的这那条个一项".contains(c) || c.is_whitespace());
    ["名字", "文字", "标题", "内容", "名称"].contains(&bare.trim_end())
}

/// Whether a clause picks out the done items by a free relative ("whatever is still under
/// Completed", "anything that's ticked", "everything done"): such a word first, and a done
/// word ([`names_done`]).
fn picks_done(clause: &str) -> bool {
    let lower = clause.trim().to_lowercase();
    [
        "whatever",
        "anything",
        "everything",
        "all that",
        "what's",
        "whatever's",
    ]
    .iter()
    .any(|w| lower.starts_with(w))
        && names_done(&lower)
}

/// Share of `item`'s words (EN stems and CJK character pairs) that `title` holds.
fn kept_share(title: &str, item: &str) -> f64 {
    let have = words(title);
    let of = words(item);
    if of.is_empty() {
        return 0.0;
    }
    of.iter().filter(|w| have.contains(w)).count() as f64 / of.len() as f64
}

/// How many of `item`'s words `title` keeps.
fn kept_words(title: &str, item: &str) -> usize {
    let have = words(title);
    words(item).iter().filter(|w| have.contains(w)).count()
}

/// The one item a new title keeps whole ("把那条改成“刷英语一真题并整理错题”" of
/// 刷英语一真题), when the item the context gave (`near`) keeps under half of its words in
/// it: a renamed title mostly keeps the old one, and the nearest clause may have named
/// another item by a shared word only.
///
/// Or, when the new title keeps none of `near`'s words, the one item it keeps at least half
/// of that one of the clauses `before` (nearest first, up to four) names by a word, or of
/// which it keeps two thirds and three words at least: "The boat: the yard can't take it in
/// May, I'll paint it myself, rename it to 'paint the boat'" renames the boat item, not the
/// one "May" named.
fn kept_in(new: &str, near: &str, items: &[(String, bool)], before: &[&str]) -> Option<String> {
    let share = kept_share(new, near);
    if share >= 0.5 {
        return None;
    }
    let one_of = |keeps: f64| one_kept(new, &[near], items, keeps);
    one_of(1.0).or_else(|| {
        // Two words at least: one shared verb ("buy", "book") is no sign of the same item.
        let one = one_of(0.5).filter(|one| share == 0.0 && kept_words(new, one) >= 2)?;
        // Most of an item, three words at least, kept in a title that keeps nothing of the
        // context's item: that item is the one renamed, when the clauses before named the
        // context's item only by what the new title also says (a measure word of another
        // item, "八斤就够了", is no naming). "The gym's shut, rename it to 'run in the park
        // Saturday morning'" still renames the gym item, whatever run item there is.
        let most = kept_share(new, &one) >= 2.0 / 3.0
            && kept_words(new, &one) >= 3
            && !named_apart(near, new, before);
        (most
            || before
                .iter()
                .take(4)
                .filter_map(|seg| by_words(seg, items, None))
                .any(|named| named.contains(&one)))
        .then_some(one)
    })
}

/// Whether one of the clauses `before` (up to four) shares a word with item `near` that the
/// new title `new` does not hold: it named that item by its own words ("送大米那条", "the
/// gym's shut"), not by a word of the new title.
fn named_apart(near: &str, new: &str, before: &[&str]) -> bool {
    let own: Vec<String> = words(near)
        .into_iter()
        .filter(|w| !words(new).contains(w))
        .collect();
    before
        .iter()
        .take(4)
        .any(|seg| words(seg).iter().any(|w| own.contains(w)))
}

/// The one item other than `new` and those `not` that a new title keeps at least `keeps`
/// of ([`kept_share`]); `None` when none or several do.
fn one_kept(new: &str, not: &[&str], items: &[(String, bool)], keeps: f64) -> Option<String> {
    let mut it = items
        .iter()
        .filter(|(n, _)| n != new && !not.contains(&n.as_str()) && kept_share(new, n) >= keeps);
    let one = it.next()?;
    it.next().is_none().then(|| one.0.clone())
}

/// The item a rename by pronoun speaks of: the one the clauses before name ([`kept_in`]), or,
/// when they name none, the one item of which the new title keeps two thirds and three
/// words at least ("超市说周末到货，把那条改成“买三斤面粉”" of 买五斤面粉).
fn spoken_of(new: &str, cx: &Ctx<'_>) -> Option<String> {
    match by_context(cx.before, cx.items, Some(1)).and_then(|mut v| v.pop()) {
        Some(near) => Some(kept_in(new, &near, cx.items, cx.before).unwrap_or(near)),
        None => one_kept(new, &[], cx.items, 2.0 / 3.0).filter(|one| kept_words(new, one) >= 3),
    }
}

/// Chinese adverbs that may lead a clause going on from the one before ("顺便改成…").
const ZH_ADVERBS: &[&str] = &[
    "顺便", "同时", "另外", "并且", "然后", "再", "还要", "也", "就", "顺手", "接着",
];

/// Whether an English object before a new title only names the title of the item spoken
/// of ("change the text to 'X'", "set its wording to 'X'"): every word of it is a title noun,
/// and no text field of `obs` is named by one (a form's "Description" box is no title).
fn title_noun(head: &str, obs: &Observation) -> bool {
    let w = words(head);
    let nouns = words("text title wording name label description words content");
    let field_named = obs.elements.iter().filter(|e| takes_text(e)).any(|e| {
        let name = format!("{} {}", e.name, e.placeholder.as_deref().unwrap_or(""));
        words(&name).iter().any(|n| w.contains(n))
    });
    !w.is_empty() && w.iter().all(|x| nouns.contains(x)) && !field_named
}

/// Whether an object names an item other than the one spoken of ("另外那条", "另一条",
/// "the other one"): never the item of the context.
fn names_another(head: &str) -> bool {
    let lower = head.to_lowercase();
    [
        "另外那",
        "另外这",
        "另外一",
        "另外的",
        "另一",
        "其他",
        "其它",
        "别的",
    ]
    .iter()
    .any(|w| head.contains(w))
        || lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| ["other", "another"].contains(&w))
}

/// A rename: `'old' to 'new'`, or `it to 'new'` with the old item from the context, or a
/// swap of one word of a title ([`substitute`]).
fn rename_steps(object: &str, cx: &mut Ctx<'_>) -> Option<Vec<Option<PlanStep>>> {
    let quoted = clauses::quoted(object);
    let (old, new) = match quoted.as_slice() {
        [old, new] => (find_item(old, cx.items)?, new.clone()),
        [new] if words(&clauses::without_quotes(object)).is_empty() => {
            if names_another(&clauses::without_quotes(object)) {
                return None;
            }
            (spoken_of(new, cx)?, new.clone())
        }
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
            let another = names_another(head);
            // "顺便改成“X”", "同时把它改成": an adverb of going on names nothing.
            let head = ZH_ADVERBS.iter().fold(head.trim().to_string(), |h, a| {
                h.strip_prefix(a)
                    .map_or(h.clone(), |r| r.trim().to_string())
            });
            let head = head.as_str();
            let at = positions::by_position(head, cx.items).map(|one| vec![one]);
            let named = || {
                // "名字改成“X”": the name of the item spoken of, even where an item's own
                // title holds 名字.
                (!zh_title_only(head))
                    .then(|| by_words(head, cx.items, Some(1)))
                    .flatten()
            };
            let old = match at.or_else(named) {
                Some(mut found) => found.pop()?,
                None if another => return None,
                None if words(head).is_empty()
                    || zh_demonstrative(head)
                    || super::item_match::demonstrative_row(head)
                    || title_noun(head, cx.obs) =>
                {
                    spoken_of(new, cx)?
                }
                None => return None,
            };
            (old, new.clone())
        }
        // "make it say 80 instead of 60", "fix the wording" after "…production, not staging":
        // one word of the title swapped.
        [] => {
            let (from, to) = substitute::pair(object, true).or_else(|| {
                // The clauses before, nearest first, joined as said ("…for production" +
                // "not staging" was one sentence), their quoted texts left out ("tick 'a',
                // not 'b'" chooses between items, it swaps no word).
                let said = |n: usize| {
                    let mut near: Vec<String> = cx
                        .before
                        .iter()
                        .take(n)
                        .map(|c| clauses::without_quotes(c))
                        .collect();
                    near.reverse();
                    near.join(", ")
                };
                substitute::generic(object)
                    .then(|| (1..=3).find_map(|n| substitute::pair(&said(n), false)))
                    .flatten()
            })?;
            substitute::apply(cx.items, &from, &to)?
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

/// What an order names: its items, or (`Err`) the steps that stand for them (`None`: it
/// does not read).
type Targets = Result<Vec<String>, Option<Vec<Option<PlanStep>>>>;

/// "tick everything except the rent": every item the exception does not name; "get rid of
/// everything that's ticked off, except the vet one": of the items in the state the order
/// names, every one the exception does not name. `None` when `object` has no exception.
fn all_but(object: &str, cx: &Ctx<'_>) -> Option<Targets> {
    let kept = positions::except(object, cx.before)?;
    let state = state_named(&object.replacen(&kept, " ", 1));
    Some(named_by(&kept, cx.items).map(|kept| {
        cx.items
            .iter()
            .filter(|(n, done)| !kept.contains(n) && state.is_none_or(|s| *done == s))
            .map(|(n, _)| n.clone())
            .collect()
    }))
}

/// Whether `lower` (an object without its quotes, lower case) speaks of every item as a lot
/// ("tick the whole lot in one go", "the entire list") — not where a listed item's own name
/// says it ("tick the sweep the lot one").
fn says_the_lot(lower: &str, items: &[(String, bool)]) -> bool {
    let spaced = |s: &str| format!(" {} ", s.split_whitespace().collect::<Vec<_>>().join(" "));
    let object = spaced(lower);
    [
        "the whole lot",
        "the lot",
        "the whole list",
        "the entire list",
    ]
    .iter()
    .any(|p| {
        let p = format!(" {p} ");
        object.contains(&p)
            && !items
                .iter()
                .any(|(n, _)| spaced(&n.to_lowercase()).contains(&p))
    })
}

/// Whether `object` (outside its quotes) speaks of every item: an [`ALL_WORDS`] word, "the
/// whole lot" ([`says_the_lot`]) or 这几条全都 ([`says_every_zh`]); "boxes aren't labelled
/// after all" does not (the idiom says nothing of every item).
fn says_every(object: &str, items: &[(String, bool)]) -> bool {
    let lower = clauses::without_quotes(object)
        .to_lowercase()
        .replace("after all", " ");
    ALL_WORDS
        .iter()
        .any(|w| lower.split_whitespace().any(|x| x == *w) || (w.len() > 3 && lower.contains(w)))
        || says_the_lot(&lower, items)
        || says_every_zh(&lower)
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
    if let Some(found) = all_but(object, cx) {
        return found;
    }
    let quoted = clauses::quoted(object);
    let all = says_every(object, cx.items);
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
    // "whatever is still showing under Completed, clear it": the pronoun is the done items
    // the clause before picks out, not the item named before that.
    if does == Does::Delete
        && pronoun(object, does)
        && cx.before.first().is_some_and(|b| picks_done(b))
    {
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
                // "水那条删了吧": a one-character topic names the one item holding it.
                (plural(object) == Some(1))
                    .then(|| by_topic_char(object, items))
                    .flatten()
                    .map(|one| vec![one])
            })
            .or_else(|| {
                pronoun(object, does)
                    .then(|| by_context(cx.before, items, plural(object)))
                    .flatten()
            })
    };
    // "tick off the bread and the rent", "mark the badge and payroll entries complete",
    // "把交电费和取快递都勾上": each part names another item (a title holding "and" is one
    // item: its parts name the same one, and this does not hold).
    if let Some(found) = each_part(object, cx.items) {
        return Ok(found);
    }
    if deleted_before(does, object, cx) {
        // "…the new queen, scrap that, …, so delete it": "it" is the item just deleted.
        return Err(Some(vec![None]));
    }
    if let Some(found) = named(cx.items) {
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

/// Whether a delete of a pronoun speaks of an item this plan deleted already: the clauses
/// before, read against the items left and the deleted ones, name only deleted ones.
fn deleted_before(does: Does, object: &str, cx: &Ctx) -> bool {
    if does != Does::Delete || !pronoun(object, does) || cx.deleted.is_empty() {
        return false;
    }
    let all: Vec<(String, bool)> = cx.items.iter().chain(cx.deleted.iter()).cloned().collect();
    by_context(cx.before, &all, plural(object))
        .is_some_and(|found| found.iter().all(|f| cx.deleted.iter().any(|(n, _)| n == f)))
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
    let cut = [
        " because ",
        " since ",
        " as it ",
        " so that ",
        " when ",
        " once ",
        " 因为",
        "因为",
        // "remove it rather than ticking it": the other way it could go, not an item.
        " rather than ",
        " instead of ",
    ]
    .iter()
    .filter_map(|w| lower.find(w))
    .filter(|at| {
        !clauses::quoted_spans(object)
            .iter()
            .any(|(a, b)| (*a..*b).contains(at))
    })
    .min()
    .and_then(|at| object.get(..at))
    .unwrap_or(object)
    .to_string();
    without_manner(&cut)
}

/// Adverbs of when or how an order is done that end its object ("tick it straight away",
/// "delete that one right now"): no words of an item.
const MANNER: &[&str] = &[
    " straight away",
    " right away",
    " at once",
    " immediately",
    " right now",
    " for me",
    " for now",
];

/// `object` without the [`MANNER`] adverbs at its end.
fn without_manner(object: &str) -> String {
    let t = object.trim_end().trim_end_matches(['.', '!', ',']);
    clauses::without_suffixes(t, MANNER).to_string()
}

/// A tick, untick or delete of the items the order names.
pub(super) fn item_steps(
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

#[cfg(test)]
mod tests {
    use super::super::read;
    use super::super::test_support::{list, steps};

    #[test]
    fn a_title_noun_that_names_a_form_field_renames_nothing() {
        use argus_perception::Role;
        let form = crate::agent::test_screen(&[
            (Role::Textfield, "Nickname"),
            (Role::Textfield, "Title"),
            (Role::Checkbox, "Email me reminders"),
            (Role::Button, "Save"),
        ]);
        // The form's own "Title" box is no title of the box ticked before.
        let got = steps(
            "Tick 'Email me reminders', then change the title to 'Dr'.",
            &form,
        )
        .unwrap_or_default();
        assert!(!got.iter().any(|s| s.starts_with("double tap")), "{got:?}");
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
    fn a_rename_by_pronoun_takes_the_item_its_new_title_keeps() {
        let obs = list(&[
            ("varnish the deck by May", false),
            ("book the boat yard", false),
            ("buy rope", true),
        ]);
        // "it" follows a clause that names the deck by "May"; the new title keeps the boat
        // item's words and the topic clause named the boat.
        assert_eq!(
            steps(
                "The boat: they can't take it before May, so I'll do it myself, rename it to 'book a slipway for the boat'.",
                &obs
            )
            .unwrap(),
            vec![
                "double tap \"book the boat yard\"",
                "type \"book a slipway for the boat\" into \"book the boat yard\"",
                "press Enter",
            ]
        );
        // A new title that keeps nothing of any item renames the item the context gave.
        assert_eq!(
            steps("The deck is late. Rename it to 'hire a painter'.", &obs).unwrap(),
            vec![
                "double tap \"varnish the deck by May\"",
                "type \"hire a painter\" into \"varnish the deck by May\"",
                "press Enter",
            ]
        );
    }

    #[test]
    fn a_rename_by_pronoun_keeps_its_item_for_a_shared_verb_or_a_titled_row() {
        // One shared verb is no sign the new title belongs to an item named earlier.
        let obs = list(&[("book the dentist", true), ("ring the gas man", false)]);
        assert_eq!(
            steps(
                "Booked the dentist on Monday. The gas man never called back, rename it to 'book a heating engineer'.",
                &obs
            )
            .unwrap(),
            vec![
                "double tap \"ring the gas man\"",
                "type \"book a heating engineer\" into \"ring the gas man\"",
                "press Enter",
            ]
        );
        // "名字那条" is the row holding 名字, not the name of the item spoken of.
        let zh = list(&[("交电费", true), ("写名字贴", false)]);
        assert_eq!(
            steps("电费交了。把名字那条改成“贴姓名贴”。", &zh).unwrap(),
            vec![
                "double tap \"写名字贴\"",
                "type \"贴姓名贴\" into \"写名字贴\"",
                "press Enter",
            ]
        );
    }

    #[test]
    fn a_rename_by_pronoun_takes_the_item_its_title_mostly_keeps_over_a_measure_word() {
        // "三斤就行" shares only its measure word with the rice item; the new title keeps
        // most of the flour item and nothing of the rice one.
        let zh = list(&[("买五斤高筋面粉", false), ("送大米两斤给邻居", false)]);
        assert_eq!(
            steps(
                "超市说周末到货，三斤就行，把那条改成“买三斤高筋面粉”。",
                &zh
            )
            .unwrap(),
            vec![
                "double tap \"买五斤高筋面粉\"",
                "type \"买三斤高筋面粉\" into \"买五斤高筋面粉\"",
                "press Enter",
            ]
        );
        // The clause before names the parcel item by its measure word only.
        let zh = list(&[("买五斤高筋面粉", false), ("给舅舅寄两斤", false)]);
        assert_eq!(
            steps(
                "早上去超市看了，三斤就够了，把那条名字改成“买三斤高筋面粉”。",
                &zh
            )
            .unwrap(),
            vec![
                "double tap \"买五斤高筋面粉\"",
                "type \"买三斤高筋面粉\" into \"买五斤高筋面粉\"",
                "press Enter",
            ]
        );
        // One shared verb and noun is not most of an item: the context's item stays.
        let en = list(&[("buy dog food", false), ("walk the dog at six", false)]);
        assert_eq!(
            steps(
                "The walk moved to seven, rename it to 'buy a dog lead'.",
                &en
            )
            .unwrap(),
            vec![
                "double tap \"walk the dog at six\"",
                "type \"buy a dog lead\" into \"walk the dog at six\"",
                "press Enter",
            ]
        );
    }

    #[test]
    fn a_rename_by_pronoun_keeps_the_item_the_clause_before_names_by_its_own_words() {
        // The new title keeps most of another item, but the clause before names the
        // context's item by a word of its own: that item is renamed.
        let en = list(&[
            ("gym class", false),
            ("run in the park Sunday morning", false),
            ("buy milk", false),
        ]);
        assert_eq!(
            steps(
                "The gym is shut for repairs, rename it to 'run in the park Saturday morning'.",
                &en
            )
            .unwrap(),
            vec![
                "double tap \"gym class\"",
                "type \"run in the park Saturday morning\" into \"gym class\"",
                "press Enter",
            ]
        );
        let zh = list(&[("买五斤高筋面粉", false), ("送大米两斤给邻居", false)]);
        assert_eq!(
            steps("送大米那条，把它改成“买三斤高筋面粉”。", &zh).unwrap(),
            vec![
                "double tap \"送大米两斤给邻居\"",
                "type \"买三斤高筋面粉\" into \"送大米两斤给邻居\"",
                "press Enter",
            ]
        );
        // Named only by what the new title says too ("two kilos"): the item the title
        // mostly keeps.
        let en = list(&[
            ("buy five kilos of flour", false),
            ("send two kilos to my uncle", false),
        ]);
        assert_eq!(
            steps(
                "Two kilos is plenty, rename it to 'buy two kilos of flour'.",
                &en
            )
            .unwrap(),
            vec![
                "double tap \"buy five kilos of flour\"",
                "type \"buy two kilos of flour\" into \"buy five kilos of flour\"",
                "press Enter",
            ]
        );
    }

    #[test]
    fn a_title_noun_renames_the_item_spoken_of_even_when_a_title_holds_it() {
        let obs = list(&[("订机票", true), ("打印名字卡", false)]);
        assert_eq!(
            steps("机票订错日子了，取消勾选，名字改成“改签机票”。", &obs).unwrap(),
            vec![
                "uncheck \"订机票\"",
                "double tap \"订机票\"",
                "type \"改签机票\" into \"订机票\"",
                "press Enter",
            ]
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
}
