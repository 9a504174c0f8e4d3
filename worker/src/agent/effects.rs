//! The end states an instruction's action clauses name: `tick off 'X'` → `assert "X" is
//! checked`, `untick 'X'` → `assert "X" is not checked`, `delete 'X'` → `assert screen does
//! not contain "X"`, `add 'X'` → `assert screen contains "X"`, `rename 'X' to 'Y'` →
//! `assert screen contains "Y"` (EN and ZH).
//!
//! Why: a run whose only check was a count ("make sure 1 item is left") ended `succeeded`
//! with the wrong item ticked — the count held, the instruction's own words did not. These
//! lines are checked with the run's expectations at the end and can fail a run; they never
//! earn `succeeded` on their own (an instruction with no checkable clause stays
//! `unverified`, see `verdict::decide`).
//!
//! Only quoted items count (an unquoted "check off buy bread" names no text Argus can be
//! sure of), only imperative clauses (a clause that describes a state — "'X' got ticked by
//! mistake", "“X”其实还没做完" — names no effect), and for an item named by several clauses
//! the last one wins (`tick off 'X', then delete 'X'` → X is gone; an unquoted clearing
//! clause — "clear the completed ones" — drops the ticks named before it). An item a
//! checkable clause quotes is left to that clause (`… then make sure 'X' is no longer
//! listed`: the check decides X, whatever filter the job chose).

use super::clauses;
pub(super) use super::order_kind::{state_word, Does, Order, DONE_WORDS, UNDONE_WORDS};
use super::verb_particles::{
    crossed_off_order, list_start_order, marked_order, taken_off_order, thrown_order,
};

/// English verbs at the start of an imperative clause (lower-case, longest first where one
/// is the prefix of another). `mark` is decided by the words after it.
const EN: &[(&str, Does)] = &[
    ("tick off", Does::Check),
    ("check off", Does::Check),
    ("cross off", Does::Check),
    ("cross out", Does::Check),
    ("tick", Does::Check),
    ("complete", Does::Check),
    ("finish", Does::Check),
    ("untick", Does::Uncheck),
    ("un-tick", Does::Uncheck),
    ("uncheck", Does::Uncheck),
    ("un-check", Does::Uncheck),
    ("un-complete", Does::Uncheck),
    ("uncomplete", Does::Uncheck),
    ("reopen", Does::Uncheck),
    ("re-open", Does::Uncheck),
    ("delete", Does::Delete),
    ("remove", Does::Delete),
    ("get rid of", Does::Delete),
    ("erase", Does::Delete),
    ("discard", Does::Delete),
    ("clear", Does::Delete),
    ("wipe out", Does::Delete),
    ("wipe", Does::Delete),
    ("purge", Does::Delete),
    ("drop", Does::Delete),
    ("scrap", Does::Delete),
    ("ditch", Does::Delete),
    ("scratch", Does::Delete),
    ("bin", Does::Delete),
    ("toss", Does::Delete),
    // "lose the hotel line".
    ("lose", Does::Delete),
    ("add", Does::Add),
    ("stick", Does::Add),
    ("pop", Does::Add),
    ("jot down", Does::Add),
    ("note down", Does::Add),
    ("append", Does::Add),
    ("create", Does::Add),
    ("put", Does::Add),
    ("check", Does::Check),
    // "Except the film, so undo that one": after a tick, its undoing.
    ("undo", Does::Uncheck),
    ("rename", Does::Rename),
    ("call it", Does::Rename),
    ("reword", Does::Rename),
    ("retitle", Does::Rename),
    ("replace", Does::Rename),
    // "… and worded 'x'", "have it read 'x'": the item of the clauses before.
    ("worded", Does::Rename),
    ("have it read", Does::Rename),
    ("have it say", Does::Rename),
    ("make it read", Does::Rename),
    ("make it say", Does::Rename),
    ("amend", Does::Rename),
    ("modify", Does::Rename),
    ("alter", Does::Rename),
    ("update", Does::Rename),
    ("correct", Does::Rename),
    ("revise", Does::Rename),
    ("change", Does::Rename),
    ("edit", Does::Rename),
];
/// Words an imperative English clause may start with before its verb.
pub(super) const EN_FILLERS: &[&str] = &[
    "now ",
    "first ",
    "next ",
    "just ",
    "also ",
    "and ",
    "then ",
    "so ",
    "please ",
    "afterwards ",
    "afterward ",
    "finally ",
    "lastly ",
    "start by ",
    "begin by ",
    "first of all ",
    "can you ",
    "could you ",
    "would you ",
    "will you ",
    "kindly ",
    "go ahead and ",
    "i need you to ",
    "i'd like you to ",
    "i want you to ",
    "you should ",
    "you need to ",
    "let's ",
    "quickly ",
    "also, ",
    "oh, ",
    "ok, ",
    "okay, ",
    "you can ",
    "you could ",
    "you may ",
    "feel free to ",
    "but ",
    "from now on ",
];

/// Chinese verbs (anywhere in an imperative clause; the uncheck ones are looked for first,
/// since `未完成` contains `完成`).
const ZH: &[(&str, Does)] = &[
    // "所以它现在不算完成": it no longer counts as done.
    ("不算完成", Does::Uncheck),
    ("不算已完成", Does::Uncheck),
    ("不能算完成", Does::Uncheck),
    ("不算办完", Does::Uncheck),
    ("不算做完", Does::Uncheck),
    ("不算弄完", Does::Uncheck),
    ("不算弄好", Does::Uncheck),
    ("改回未完成", Does::Uncheck),
    ("标成未完成", Does::Uncheck),
    ("标为未完成", Does::Uncheck),
    ("标记为未完成", Does::Uncheck),
    ("取消勾选", Does::Uncheck),
    ("重新打开", Does::Uncheck),
    ("勾去掉", Does::Uncheck),
    ("取消完成", Does::Uncheck),
    ("改成未完成", Does::Uncheck),
    ("改为未完成", Does::Uncheck),
    ("设为未完成", Does::Uncheck),
    ("设成未完成", Does::Uncheck),
    ("标记成未完成", Does::Uncheck),
    ("恢复成未完成", Does::Uncheck),
    ("恢复未完成", Does::Uncheck),
    ("改成已完成", Does::Check),
    ("改为已完成", Does::Check),
    ("设为已完成", Does::Check),
    ("设成已完成", Does::Check),
    ("标记成已完成", Does::Check),
    ("标记完成", Does::Check),
    // "这三条都算办完了": they count as done.
    ("算办完", Does::Check),
    ("算做完", Does::Check),
    ("算弄完", Does::Check),
    ("算弄好", Does::Check),
    ("算搞定", Does::Check),
    ("算是办完", Does::Check),
    ("算是做完", Does::Check),
    ("改名为", Does::Rename),
    ("改名叫", Does::Rename),
    ("改叫", Does::Rename),
    ("改名成", Does::Rename),
    ("改为", Does::Rename),
    ("重命名", Does::Rename),
    ("改成", Does::Rename),
    ("换成", Does::Rename),
    ("替换成", Does::Rename),
    ("换为", Does::Rename),
    ("勾掉", Does::Check),
    ("划掉", Does::Check),
    ("勾选", Does::Check),
    ("勾上", Does::Check),
    ("打勾", Does::Check),
    ("打上勾", Does::Check),
    ("打个勾", Does::Check),
    ("打钩", Does::Check),
    ("打上钩", Does::Check),
    ("勾一下", Does::Check),
    ("标记一下", Does::Check),
    ("标一下", Does::Check),
    ("标成已完成", Does::Check),
    ("标为已完成", Does::Check),
    ("标记为已完成", Does::Check),
    ("标成完成", Does::Check),
    ("标记为完成", Does::Check),
    ("完成", Does::Check),
    ("删掉", Does::Delete),
    ("删除", Does::Delete),
    ("移除", Does::Delete),
    ("去掉", Does::Delete),
    ("清掉", Does::Delete),
    ("清理掉", Does::Delete),
    ("清理", Does::Delete),
    ("清除", Does::Delete),
    ("清空", Does::Delete),
    ("拿掉", Does::Delete),
    ("去除", Does::Delete),
    ("新建", Does::Add),
    ("添加", Does::Add),
    ("新增", Does::Add),
    ("加一条", Does::Add),
    ("加上", Does::Add),
    ("记一条", Does::Add),
    ("记上", Does::Add),
    ("记下", Does::Add),
    ("添上", Does::Add),
    ("创建", Does::Add),
    ("添一条", Does::Add),
    ("补一条", Does::Add),
    ("加两条", Does::Add),
    ("加三条", Does::Add),
    ("加几条", Does::Add),
    ("添两条", Does::Add),
    ("添几条", Does::Add),
    ("补两条", Does::Add),
    ("加两个", Does::Add),
    ("新加", Does::Add),
    ("补一个", Does::Add),
    ("补一项", Does::Add),
    ("添一个", Does::Add),
    ("加一个", Does::Add),
    // "投影仪也借到了，一起勾": tick it along with the one before.
    ("一起勾", Does::Check),
    // "再加个“X”": a measure word between the verb and the text.
    ("加个", Does::Add),
    ("添个", Does::Add),
    ("补个", Does::Add),
    ("再加", Does::Add),
    ("再添", Does::Add),
    // "要加的是“X”".
    ("加的是", Does::Add),
    ("添的是", Does::Add),
    // The bare verb last: "那条直接删了吧".
    ("删", Does::Delete),
];
/// Chinese words that make a clause a description or a negation, not an order.
const ZH_NOT_ORDERS: &[&str] = &["被", "没", "未", "不", "别", "其实", "已经"];
/// A state after 是 ("都是已完成状态", "是未完成的"): the clause describes, it orders nothing.
const ZH_STATE_AFTER_SHI: &[&str] = &[
    "是已完成",
    "是未完成",
    "是完成",
    "是已勾选",
    "是未勾选",
    "是勾选",
];
/// Chinese phrases that describe items as done ("已完成的", "打了勾的"): no order to tick.
const ZH_DONE_ADJECTIVES: &[&str] = &[
    "已完成的",
    "完成了的",
    "完成的",
    "做完的",
    "已做完的",
    "打了勾的",
    "打勾的",
    "勾选的",
    "已勾选的",
];
/// Chinese verbs that set an item's state, then the states they set (not done first:
/// `未完成` holds `完成`).
const ZH_SETTERS: &[&str] = &[
    "改回成",
    "改回",
    "改成",
    "改为",
    "标成",
    "标为",
    "标记为",
    "标记成",
    "设为",
    "设成",
    "恢复成",
    "恢复为",
    "恢复",
    "变回",
    "变成",
    "弄回",
    "调回",
    "调成",
    "标回",
];
const ZH_UNDONE_STATES: &[&str] = &[
    "未完成",
    "没完成",
    "没做完",
    "未做完",
    "未做",
    "没做",
    "待办",
    "待完成",
    "未办",
    "没办",
    "未勾选",
    "没勾",
];
const ZH_DONE_STATES: &[&str] = &["已完成", "完成", "做完", "已做", "已办", "已勾选", "勾选"];

/// The state a [`ZH_SETTERS`] verb sets in `outside` and the byte span (start, length) of
/// the verb and its state ("改回没做完" → untick); the state may follow the verb by up to two
/// characters ("改回成未完成").
fn zh_state_set(outside: &str) -> Option<(Does, usize, usize)> {
    for v in ZH_SETTERS {
        for (at, _) in outside.match_indices(v) {
            let after = &outside[at + v.len()..];
            for skip in after.char_indices().map(|(i, _)| i).take(3) {
                let tail = &after[skip..];
                let found = ZH_UNDONE_STATES
                    .iter()
                    .map(|w| (w, Does::Uncheck))
                    .chain(ZH_DONE_STATES.iter().map(|w| (w, Does::Check)))
                    .find(|(w, _)| tail.starts_with(**w));
                if let Some((w, does)) = found {
                    return Some((does, at, v.len() + skip + w.len()));
                }
            }
        }
    }
    None
}

/// Chinese words that take something away, which with a tick (勾 / 钩) within
/// [`ZH_TICK_REACH`] characters untick an item ("把勾取消", "取消它的勾", "勾给拿掉").
const ZH_TAKE_AWAY: &[&str] = &[
    "取消", "去掉", "拿掉", "撤掉", "撤销", "抹掉", "去了", "拿了", "撤了", "消掉", "撤回",
];
/// How many characters may come between a tick and a [`ZH_TAKE_AWAY`] word.
const ZH_TICK_REACH: usize = 3;

/// The byte span (start, length) in `outside` from a tick to the word that takes it away (or
/// back), when the clause unticks an item; `None` otherwise ("把打勾的删掉" deletes: 删 is no
/// [`ZH_TAKE_AWAY`] word).
fn zh_untick(outside: &str) -> Option<(usize, usize)> {
    let chars: Vec<(usize, char)> = outside.char_indices().collect();
    let ticks: Vec<usize> = (0..chars.len())
        .filter(|&i| matches!(chars[i].1, '勾' | '钩'))
        .collect();
    for w in ZH_TAKE_AWAY {
        for (b, _) in outside.match_indices(w) {
            let Some(k) = chars.iter().position(|(i, _)| *i == b) else {
                continue;
            };
            let n = w.chars().count();
            for &t in &ticks {
                let span = if t > k + n - 1 {
                    (t - (k + n) <= ZH_TICK_REACH).then_some((k, t + 1))
                } else if t < k {
                    (k - t - 1 <= ZH_TICK_REACH).then_some((t, k + n))
                } else {
                    None
                };
                if let Some((from, to)) = span {
                    let end = chars.get(to).map_or(outside.len(), |(i, _)| *i);
                    return Some((chars[from].0, end - chars[from].0));
                }
            }
        }
    }
    None
}
/// English words that make a clause a negation of its verb ("don't tick 'X'").
const EN_NOT_ORDERS: &[&str] = &[
    "don't ",
    "do not ",
    "never ",
    "without ",
    // "Finish on All": where the run ends, a view, not "finish" (tick) of an item.
    "finish on ",
    "finish in the ",
    "end on ",
];

/// The effect lines `instruction`'s action clauses name, one per quoted item (the last
/// clause naming an item wins), in the order of the clauses that decided them.
pub fn named(instruction: &str) -> Vec<String> {
    let mut last: Vec<(String, String)> = Vec::new();
    let mut carried: Option<Does> = None;
    // Items a check clause says must be gone: an effect on them (a tick on an item the job
    // then hides) could not hold; the check decides them.
    let mut gone: Vec<String> = Vec::new();
    // The items of the last clause that quoted some: "… then delete it" speaks of them.
    let mut before: Vec<String> = Vec::new();
    let instruction = &quote_lists(instruction);
    let parts = clauses::segments(instruction)
        .into_iter()
        .flat_map(|seg| split_but(&seg));
    for seg in parts {
        let body = clauses::strip_fillers(&seg);
        if clauses::reads_as_check(body) {
            if clauses::checkable(body)
                .iter()
                .flat_map(|c| c.checks.iter())
                .any(|l| l.starts_with("assert screen does not contain"))
            {
                gone.extend(clauses::quoted(body));
            }
            carried = None;
            continue;
        }
        let items = clauses::quoted(body);
        let does = verb_of(body);
        // "Create two todos, first 'a' and then 'b'": a verb-less clause of quoted items
        // continues the clause before it.
        let does = match (does, carried) {
            (Some(d), _) => Some(d),
            (None, Some(d)) if starts_with_item(body) && is_only_items(body) => Some(d),
            _ => None,
        };
        carried = does;
        let Some(does) = does else { continue };
        if items.is_empty() {
            if does == Does::Delete {
                // "clear the completed ones": the items ticked so far may be gone.
                last.retain(|(_, line)| !line.ends_with(" is checked"));
            }
            if names_a_pronoun(body) {
                // "… then delete it": what is expected of those items is no longer known.
                last.retain(|(i, _)| !before.contains(i));
            }
            continue;
        }
        before = items.clone();
        for (item, line) in lines_of(does, &items) {
            last.retain(|(i, _)| *i != item);
            last.push((item, line));
        }
    }
    last.into_iter()
        .filter(|(item, _)| !gone.contains(item))
        .map(|(_, line)| line)
        .collect()
}

/// The quoted items `instruction`'s imperative clauses add to a list ("add 'X'", "put 'X'
/// on the list", "记一条“X”"), in order; field values ("put 'ann' in Username") are none.
pub fn added(instruction: &str) -> Vec<String> {
    clauses::segments(&quote_lists(instruction))
        .iter()
        .flat_map(|seg| split_but(seg))
        .filter(|seg| {
            let body = clauses::strip_fillers(seg);
            !clauses::reads_as_check(body) && verb_of(body) == Some(Does::Add)
        })
        .flat_map(|seg| clauses::quoted(clauses::strip_fillers(&seg)))
        .collect()
}

/// (item, line) pairs for one clause.
fn lines_of(does: Does, items: &[String]) -> Vec<(String, String)> {
    let q = |t: &String| clauses::quote_line(t);
    match does {
        Does::Check => items
            .iter()
            .map(|t| (t.clone(), format!("assert {} is checked", q(t))))
            .collect(),
        Does::Uncheck => items
            .iter()
            .map(|t| (t.clone(), format!("assert {} is not checked", q(t))))
            .collect(),
        Does::Delete => items
            .iter()
            .map(|t| {
                (
                    t.clone(),
                    format!("assert screen does not contain {}", q(t)),
                )
            })
            .collect(),
        Does::Add => items
            .iter()
            .map(|t| (t.clone(), format!("assert screen contains {}", q(t))))
            .collect(),
        Does::Rename => match items {
            [old, new] => {
                let mut out = vec![(new.clone(), format!("assert screen contains {}", q(new)))];
                if !new.contains(old.as_str()) {
                    out.push((
                        old.clone(),
                        format!("assert screen does not contain {}", q(old)),
                    ));
                }
                out
            }
            _ => Vec::new(),
        },
    }
}

/// The verb of an imperative clause, if it has one and it names an effect on list items:
/// [`order_of`], where only a list item is added (`Put 'ann' in Username` fills a field)
/// and only a quoted direct object is ticked (`Check the 'x' box` names no item).
fn verb_of(body: &str) -> Option<Does> {
    let order = order_of(body)?;
    let Some(verb) = order.verb else {
        return Some(order.does);
    };
    // "Put 'ann' in Username", "Create an account with 'a@b.co'", "Complete the form with
    // 'Ann'", "Check the 'x' box"… name field values or a form: only a list item is added,
    // only the direct object of the verb is ticked.
    let lower = clauses::without_quotes(body).to_lowercase();
    let list = [" list", " todo", " task", " item", " note", "清单"]
        .iter()
        .any(|w| lower.contains(w));
    let object_quoted = order
        .object
        .trim_start()
        .starts_with(['"', '\'', '“', '‘', '「']);
    match order.does {
        Does::Add if verb != "add" && !list => None,
        Does::Check if !object_quoted && !list => None,
        d => Some(d),
    }
}

/// The order an imperative clause gives (see [`Order`]), if its verb is in the lexicon
/// ([`EN`] at the clause's start after [`EN_FILLERS`], `cross … off`, `mark … done`;
/// [`ZH`] anywhere) and no negation or description word takes it back.
pub(super) fn order_of(body: &str) -> Option<Order> {
    if let Some(order) = arrow_order(body) {
        return Some(order);
    }
    if let Some(order) = purpose(body).and_then(order_of) {
        // "use Clear completed to get rid of everything that's finished": what it is used
        // for is the order; the control is only how.
        return Some(order);
    }
    let outside = clauses::without_quotes(body);
    if outside.chars().any(is_cjk) {
        return order_zh(body, &outside);
    }
    order_en(body, &outside)
}

/// What a clause "use X to Y" says to do: Y (`None` for any other clause).
fn purpose(body: &str) -> Option<&str> {
    let lower = body.trim_start().to_lowercase();
    if lower.len() != body.trim_start().len() || !lower.starts_with("use ") {
        return None;
    }
    let at = lower.find(" to ")?;
    let rest = body.trim_start()[at + 4..].trim();
    (!rest.is_empty()).then_some(rest)
}

/// Arrows a note puts between an item and what becomes of it ("raffle tickets → done").
const ARROWS: &[&str] = &["→", "->", "=>", "⇒", "⟶"];

/// Spaced dashes of a note ("photos - done").
pub(super) const DASHES: &[&str] = &[" - ", " – ", " — "];
/// Done verbs a note puts after its dash or arrow ("fee - paid", "tickets → booked").
pub(super) const DASH_STATES: &[&str] = &[
    "paid",
    "booked",
    "sent",
    "bought",
    "sorted",
    "handled",
    "ordered",
    "posted",
    "signed",
    "collected",
    "printed",
    "fixed",
    "ticked",
    "checked",
];

/// An order written as a note, "X → done" / "X -> delete" / "X → 未完成": the item before
/// the arrow, in the state (or under the order) after it; `None` without an arrow, or
/// when what follows it is neither.
fn arrow_order(body: &str) -> Option<Order> {
    let arrow = ARROWS
        .iter()
        .filter_map(|a| body.find(a).map(|i| (i, a.len())))
        .min();
    // "photos - done", "fee – paid": a spaced dash does the same in a short note, where what
    // follows is a state or a done verb only ([`DASH_STATES`]).
    let dash = || {
        DASHES
            .iter()
            .filter_map(|a| body.find(a).map(|i| (i, a.len())))
            .min()
            .filter(|(i, n)| {
                let after = body[i + n..]
                    .trim()
                    .trim_end_matches(['.', '!', '。'])
                    .to_lowercase();
                body[..*i].split_whitespace().count() <= 5
                    && (state_word(&after).is_some() || DASH_STATES.contains(&after.as_str()))
            })
    };
    let (at, arrow) = arrow.or_else(dash)?;
    let subject = body[..at].trim();
    let after = body[at + arrow..]
        .trim()
        .trim_end_matches(['.', '!', '。', '！'])
        .trim();
    if subject.is_empty() || after.is_empty() {
        return None;
    }
    let lower = after.to_lowercase();
    let gone = [
        "delete", "deleted", "remove", "removed", "gone", "drop", "删掉", "删除",
    ];
    let does = if gone.contains(&lower.as_str()) {
        Does::Delete
    } else if let Some(d) = state_word(&lower) {
        d
    } else if DASH_STATES.contains(&lower.as_str()) {
        Does::Check
    } else {
        match order_of(after) {
            Some(o) if words_of_object(&o.object).is_empty() => o.does,
            _ => return None,
        }
    };
    Some(Order {
        does,
        verb: None,
        object: format!(" {subject}"),
    })
}

/// An order's object's words (letters, digits or CJK), its pronouns left out.
fn words_of_object(object: &str) -> String {
    let lower = object.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !["it", "this", "that", "one"].contains(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Chinese words saying a tick was a mistake.
const ZH_WRONG_TICK: &[&str] = &[
    "勾打错了",
    "勾打早了",
    "勾点错了",
    "勾是误点的",
    "误勾了",
    "打错勾了",
];

/// [`order_of`] for a Chinese clause (`outside`: the clause without its quotes).
fn order_zh(body: &str, outside: &str) -> Option<Order> {
    if let Some(ending) = zh_not_wanted(outside) {
        // "灯谜今年不弄了，这条不要了": not wanted any more is an order to delete it.
        return Some(Order {
            does: Does::Delete,
            verb: None,
            object: body.replacen(ending, " ", 1),
        });
    }
    if let Some(w) = ZH_WRONG_TICK.iter().find(|w| outside.contains(*w)) {
        // "勾打错了": the tick was a mistake, so it comes off (the item from the context).
        return Some(Order {
            does: Does::Uncheck,
            verb: None,
            object: body.replacen(w, " ", 1),
        });
    }
    if let Some((at, len)) = zh_untick(outside) {
        // "把勾取消", "取消它的勾": the tick is taken away.
        let rest = outside[..at].to_string() + " " + &outside[at + len..];
        if ZH_NOT_ORDERS.iter().any(|w| rest.contains(w)) {
            return None;
        }
        return Some(Order {
            does: Does::Uncheck,
            verb: None,
            object: body.replacen(&outside[at..at + len], " ", 1),
        });
    }
    if let Some((does, at, len)) = zh_state_set(outside) {
        // "把剪头发那条改回没做完": a setter and the state it sets.
        let rest = outside[..at].to_string() + " " + &outside[at + len..];
        if ZH_NOT_ORDERS.iter().any(|w| rest.contains(w)) {
            return None;
        }
        return Some(Order {
            does,
            verb: None,
            object: body.replacen(&outside[at..at + len], " ", 1),
        });
    }
    // "两条都是已完成状态": a state after 是 describes.
    if ZH_STATE_AFTER_SHI.iter().any(|w| outside.contains(w)) {
        return None;
    }
    // "票拿到了，勾。": the bare verb alone is an order to tick what the clause before names.
    if bare_tick(outside) {
        return Some(Order {
            does: Does::Check,
            verb: None,
            object: String::new(),
        });
    }
    // "把已完成的都清掉": 完成 describes the items; the verb is 清掉.
    let search = ZH_DONE_ADJECTIVES
        .iter()
        .fold(outside.to_string(), |s, a| s.replace(a, "□"));
    let (verb, does) = ZH.iter().find(|(w, _)| search.contains(w))?;
    // 点击完成 taps a button named 完成; it completes no item.
    if *verb == "完成"
        && ["点击完成", "点完成", "按完成"]
            .iter()
            .any(|w| outside.contains(w))
    {
        return None;
    }
    // 取消“X”的勾选: the tick is taken away.
    let does = match does {
        Does::Check if outside.contains("取消") || outside.contains("勾去掉") => Does::Uncheck,
        d => *d,
    };
    // `未` of the verb `改回未完成` is no negation; one elsewhere is. "已经做完的几条清掉":
    // 已经 of the items' description is no report.
    let rest = ZH_DONE_ADJECTIVES
        .iter()
        .fold(outside.to_string(), |s, a| {
            s.replace(&format!("已经{a}"), "□")
        })
        .replacen(verb, " ", 1)
        .replace("取消", " ");
    if ZH_NOT_ORDERS.iter().any(|w| rest.contains(w)) || describes_zh(verb, &rest, outside) {
        return None;
    }
    Some(Order {
        does,
        verb: None,
        object: body.replacen(verb, " ", 1),
    })
}

/// Whether a Chinese clause holding order `verb` (`rest`: the clause without it) only tells
/// how things are: "要等回复才算办完", "怎么能算办完？" (when it would count as done, or a
/// question whether it does), "“X”那条是我手滑点成完成的" (a 是…的 sentence).
fn describes_zh(verb: &str, rest: &str, outside: &str) -> bool {
    let trimmed = outside.trim_end_matches(['。', '，', '！', '.', ' ']);
    (verb.starts_with('算')
        && ["才", "怎么", "哪", "吗", "？", "?"]
            .iter()
            .any(|w| rest.contains(w)))
        || (trimmed.ends_with('的') && trimmed.contains('是'))
}

/// Marks that may end a Chinese clause after its last word (full stop, comma, exclamation).
const ZH_CLAUSE_END: [char; 6] = ['。', '，', '！', '!', '.', ' '];

/// The ending of a Chinese clause that says its item is not wanted any more ("这条不要了",
/// "那个用不着了吧"): one of these last, no question, nothing else negated before it.
fn zh_not_wanted(outside: &str) -> Option<&'static str> {
    let c = outside
        .trim()
        .trim_end_matches(|c: char| ZH_CLAUSE_END.contains(&c) || "吧啦".contains(c));
    let ending = ["不要了", "不需要了", "用不着了", "用不上了"]
        .into_iter()
        .find(|e| c.ends_with(e))?;
    let rest = &c[..c.len() - ending.len()];
    let asks = ["吗", "？", "?", "要不要", "是不是"]
        .iter()
        .any(|w| outside.contains(w));
    // "交完这条就用不上了", "到时候就不需要了": not wanted once something to come is done,
    // which orders nothing now.
    let later = [
        "到时候",
        "以后",
        "之后",
        "等到",
        "等我",
        "等他",
        "等她",
        "完就",
        "完这",
        "完那",
        "明天",
        "下周",
        "下个月",
        "过几天",
        "将来",
    ]
    .iter()
    .any(|w| rest.contains(w));
    (!asks && !later && !ZH_NOT_ORDERS.iter().any(|w| rest.contains(w))).then_some(ending)
}

/// Whether a Chinese clause is the tick verb alone ("勾。", "也勾吧", "钩！"), which orders the
/// item the clause before names ticked.
fn bare_tick(outside: &str) -> bool {
    let mut c = outside
        .trim()
        .trim_end_matches(|c: char| ZH_CLAUSE_END.contains(&c) || "～~".contains(c));
    c = c.strip_suffix('吧').unwrap_or(c);
    // "这条也勾": the item just spoken of, by a demonstrative.
    for lead in ["这条", "那条", "这个", "那个", "这项", "那项"] {
        c = c.strip_prefix(lead).unwrap_or(c);
    }
    // Not "都勾": all of several items, which this one-item order would tick one of.
    for lead in ["也", "就", "那就"] {
        c = c.strip_prefix(lead).unwrap_or(c);
    }
    matches!(c, "勾" | "钩")
}

/// [`order_of`] for an English clause (`outside`: the clause without its quotes).
fn order_en(body: &str, outside: &str) -> Option<Order> {
    let mut lower = format!("{} ", outside.trim().to_lowercase());
    if EN_NOT_ORDERS.iter().any(|w| lower.contains(w)) {
        return None;
    }
    while let Some(rest) = EN_FILLERS.iter().find_map(|f| lower.strip_prefix(f)) {
        lower = rest.to_string();
    }
    let mut raw = body.trim();
    while let Some(rest) = EN_FILLERS.iter().find_map(|f| {
        raw.get(..f.len())
            .filter(|h| h.eq_ignore_ascii_case(f))
            .and_then(|_| raw.get(f.len()..))
    }) {
        raw = rest.trim_start();
    }
    if let Some(order) = pressed_order(&lower, raw) {
        return Some(order);
    }
    // "leave it on the Active filter when you're done": a view the run ends on, no item's
    // order ("keep the water filter one unticked", "leave the table booking open" are).
    let on_a_view = lower.split_once(" on ").is_some_and(|(_, r)| {
        r.split(|c: char| !c.is_alphanumeric())
            .any(|w| ["filter", "view", "tab"].contains(&w))
    });
    if (lower.starts_with("leave ") || lower.starts_with("keep ")) && on_a_view {
        return None;
    }
    // "mark 'x' done", "throw 'x' on the end": the words after the verb decide, or that
    // the clause orders nothing.
    if let Some(decided) = marked_order(&lower, raw).or_else(|| thrown_order(&lower, raw)) {
        return decided;
    }
    if let Some(order) = crossed_off_order(&lower, raw) {
        return Some(order);
    }
    if let Some(order) = state_setter_order(&lower, raw) {
        return Some(order);
    }
    if let Some(order) = tick_noun_order(&lower, raw) {
        return Some(order);
    }
    if let Some(order) = make_rename_order(&lower, raw) {
        return Some(order);
    }
    if let Some((verb, does)) = lead_verb(&lower) {
        return Some(Order {
            does: *does,
            verb: Some(verb),
            object: raw.get(verb.len()..).unwrap_or("").to_string(),
        });
    }
    if let Some(order) =
        taken_off_order(&lower, raw).or_else(|| list_start_order(&lower, raw, body))
    {
        return Some(order);
    }
    gerund_order(&lower, raw)
        .or_else(|| needs_gerund(raw))
        .or_else(|| super::order_idioms::goes_in_as(&lower))
        .or_else(|| super::order_idioms::so_it_reads(&lower, raw))
        .or_else(|| super::order_idioms::fix_wording(&lower, raw))
        .or_else(|| super::order_idioms::make_say(&lower, raw))
        .or_else(|| super::order_idioms::turn_into(&lower, raw))
        .or_else(|| super::order_idioms::off_my_plate(&lower))
        .or_else(|| by_gerund(raw))
        .or_else(|| passive_order(raw))
        .or_else(|| stative_order(raw))
}

/// Nouns (and counts) a verb-less head before a colon names a list by ("Three things for
/// today: 'a', 'b', 'c'").
const LIST_HEADS: &[&str] = &[
    "things", "items", "todos", "to-dos", "tasks", "entries", "jobs", "errands", "chores",
];

/// Copulas of a [`stative_order`], with the spaces around them.
const COPULAS: &[&str] = &[
    " is ",
    "'s ",
    " are ",
    "'re ",
    " has been ",
    " have been ",
    " was ",
    " were ",
    " isn't ",
    " aren't ",
    ": ",
];
/// Words between a copula and its state ("is all done", "'s finally finished").
const STATE_ADVERBS: &[&str] = &[
    "now",
    "all",
    "already",
    "finally",
    "actually",
    "also",
    "totally",
    "completely",
    "fully",
];
/// States saying an item is done ([`stative_order`]).
const STATIVE_DONE: &[&str] = &[
    "done",
    "finished",
    "complete",
    "completed",
    "sorted",
    "taken care of",
    "dealt with",
    "handled",
    // "so that's one down".
    "one down",
    "out of the way",
    "over with",
];
/// Words a [`stative_order`] may end with.
const STATE_TAILS: &[&str] = &[
    "now",
    "too",
    "already",
    "then",
    "as well",
    "yet",
    "any more",
    "anymore",
    "any longer",
    "either",
    "after all",
];

/// A sentence saying an item is done, read as the order to tick it: "so that's done" (the
/// item just named), "the pharmacy run is finished now" (the item by its words); with a
/// negation ("that isn't done yet") the order to untick it. Only these few states count:
/// "the compost got picked up" says nothing Argus can map.
fn stative_order(raw: &str) -> Option<Order> {
    let norm = raw
        .trim()
        .trim_end_matches(['.', '!', ' '])
        .replace('’', "'");
    let lower = norm.to_lowercase();
    if lower.len() != norm.len() {
        return None;
    }
    let mut at: Vec<(usize, usize)> = COPULAS
        .iter()
        .flat_map(|c| lower.match_indices(c).map(|(i, _)| (i, c.len())))
        .collect();
    at.sort_unstable();
    at.into_iter()
        .find_map(|(at, len)| stative_at(&norm, &lower, at, len))
}

/// [`stative_order`] with its copula at `at` (`len` bytes) of `norm` (`lower` in lower case).
fn stative_at(norm: &str, lower: &str, at: usize, len: usize) -> Option<Order> {
    let subject = norm[..at].trim();
    let first = subject
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_lowercase();
    // "once that's done, …" sets when; it orders nothing.
    let when = [
        "once", "when", "after", "if", "before", "until", "as", "since", "because", "unless",
        "while", "whether",
    ];
    if first.is_empty() || when.contains(&first.as_str()) || subject.split_whitespace().count() > 8
    {
        return None;
    }
    let mut rest = format!(" {}", &lower[at + len..]);
    // "so that's back to not done", "it's back to open": the state it returns to.
    let back = [" back to ", " back "]
        .iter()
        .find_map(|b| rest.strip_prefix(b).map(|r| format!(" {r}")));
    let reopened = back.as_deref().is_some_and(|r| {
        [
            "open",
            "undone",
            "unticked",
            "unchecked",
            "active",
            "to do",
            "incomplete",
            "unfinished",
        ]
        .iter()
        .any(|u| r.trim() == *u)
    });
    if let Some(r) = back {
        rest = r;
    }
    let negative = lower[..at + len].ends_with("n't ") || rest.starts_with(" not ") || reopened;
    if let Some(r) = rest.strip_prefix(" not") {
        rest = r.to_string();
    }
    if reopened {
        rest = " done".to_string();
    }
    while let Some(r) = STATE_ADVERBS
        .iter()
        .find_map(|a| rest.strip_prefix(&format!(" {a} ")))
    {
        rest = format!(" {r}");
    }
    let state_of = |rest: &str| {
        STATIVE_DONE.iter().find(|s| {
            rest.strip_prefix(&format!(" {s}"))
                .is_some_and(|r| r.is_empty() || r.starts_with(' '))
        })
    };
    // "so that's one done", "that's another one finished": a count of things done so far.
    if state_of(&rest).is_none() {
        if let Some(r) = [" one more", " another one", " another", " one"]
            .iter()
            .find_map(|c| rest.strip_prefix(c).filter(|r| r.starts_with(' ')))
        {
            rest = r.to_string();
        }
    }
    let state = state_of(&rest)?;
    let mut tail = rest[state.len() + 1..].trim().to_string();
    while let Some(t) = STATE_TAILS.iter().find(|t| tail.starts_with(**t)) {
        tail = tail[t.len()..].trim().to_string();
    }
    if !tail.is_empty() {
        return None;
    }
    let pronoun = ["that", "it", "this", "that one", "this one", "which"]
        .contains(&subject.to_lowercase().as_str());
    Some(Order {
        does: if negative { Does::Uncheck } else { Does::Check },
        verb: None,
        object: if pronoun {
            " it".to_string()
        } else {
            subject.to_string()
        },
    })
}

/// Verbs that put an item into a state named at the clause's end ("flip 'x' to done",
/// "move it back to active", "make 'x' open again").
const SETTERS: &[&str] = &[
    "flip", "switch", "turn", "move", "restore", "put", "set", "change", "make", "bring", "toggle",
    "revert", "return", "send", "mark",
];
/// A [`SETTERS`] clause that ends by naming the state it sets: "(back) to / as / into
/// <state> (again)" or, for `make`, "<state> (again)"; the object is what comes between.
fn state_setter_order(lower: &str, raw: &str) -> Option<Order> {
    let verb = SETTERS
        .iter()
        .find(|v| lower.strip_prefix(**v).is_some_and(|r| r.starts_with(' ')))?;
    let mut end = lower
        .trim_end()
        .trim_end_matches(['.', '!', ' '])
        .to_string();
    for tail in [" again", " now", " please", " for now", " yet"] {
        if let Some(e) = end.strip_suffix(tail) {
            end = e.to_string();
        }
    }
    let (does, state) = UNDONE_WORDS
        .iter()
        .map(|w| (Does::Uncheck, w))
        .chain(DONE_WORDS.iter().map(|w| (Does::Check, w)))
        .find(|(_, w)| end.ends_with(&format!(" {w}")))?;
    let head = end[..end.len() - state.len()].trim_end();
    let head = head.strip_suffix(" being").unwrap_or(head);
    let linked = [" to", " as", " into", " back to", " back into"]
        .iter()
        .any(|p| head.ends_with(p));
    if !linked && *verb != "make" {
        return None;
    }
    // "switch to Active", "change to Completed": nothing set between the verb and the state
    // is a view chosen by its control, not an item's state.
    let between = head[verb.len()..]
        .trim()
        .trim_start_matches("back")
        .trim()
        .trim_end_matches(" back")
        .trim();
    // Only a view's name ("Active", "Completed") or a capitalised one ("switch to Done")
    // is a view: "the ferns are watered, change to done" sets the item spoken of.
    let view = ["active", "completed"].contains(state)
        || raw
            .trim_end()
            .trim_end_matches(['.', '!', ' '])
            .rsplit(' ')
            .next()
            .is_some_and(|w| w.starts_with(|c: char| c.is_uppercase()));
    if view
        && ["to", "into", "as", "over to"].contains(&between)
        && ["switch", "change", "move", "turn"].contains(verb)
    {
        return None;
    }
    // The object as written: after the verb, before the state (quotes intact).
    let object = raw.get(verb.len()..)?;
    Some(Order {
        does,
        verb: None,
        object: object.to_string(),
    })
}

/// "make the lemons one '3 lemons' instead": `make`, the item by its words or a pronoun
/// ("make it 'x'"), then one quoted new name and nothing after it but [`MAKE_TAILS`] — a
/// rename (a state there, "make it done", is [`state_setter_order`]'s).
fn make_rename_order(lower: &str, raw: &str) -> Option<Order> {
    let object = lower.strip_prefix("make ").and(raw.get("make ".len()..))?;
    let [_new] = clauses::quoted(object).as_slice() else {
        return None;
    };
    let open = object.find(['"', '\'', '“', '‘', '「'])?;
    let close = object.rfind(['"', '\'', '”', '’', '」'])?;
    let tail = object.get(close + 1..)?.to_lowercase();
    let tail_ok = tail
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| MAKE_TAILS.contains(&w));
    let head_has_words = object[..open]
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| {
            w.len() > 2 && !["the", "one", "that", "this"].contains(&w.to_lowercase().as_str())
        });
    // "Flowers, I'll pick them myself, so make it 'pick up flowers'": the item spoken of
    // (after an add, [`crate::agent::clause_plan`] reads it as the add's text corrected).
    let head = object[..open].trim().to_lowercase();
    let pronoun = MAKE_PRONOUNS.contains(&head.as_str());
    (tail_ok && (head_has_words || pronoun)).then(|| Order {
        does: Does::Rename,
        verb: None,
        object: object.to_string(),
    })
}
/// The pronouns a [`make_rename_order`] may speak of its item by ("make it 'x'").
pub(super) const MAKE_PRONOUNS: &[&str] = &["it", "that", "that one", "this one", "this"];
/// Words a [`make_rename_order`] may end with.
const MAKE_TAILS: &[&str] = &["instead", "now", "please", "then", "too", "actually"];

/// Nouns for the mark a done item carries ("take the tick off …", "put a check next to …").
const TICK_NOUNS: &[&str] = &[
    "tick",
    "ticks",
    "check",
    "checkmark",
    "check mark",
    "check-mark",
    "checkbox",
    "mark",
];
/// Verbs that take a [`TICK_NOUNS`] mark away, then those that give one.
const TICK_TAKERS: &[&str] = &[
    "take",
    "remove",
    "clear",
    "get rid of",
    "drop",
    "lose",
    "undo",
];
const TICK_GIVERS: &[&str] = &["put", "add", "give", "stick", "pop", "place"];

/// Whether what follows "all the ticks" names every item: nothing, or the list as a whole
/// ("… off", "… on the list", "… from them all"), not items of its own ("… off the milk").
fn every_item(after_mark: &str) -> bool {
    let tail = after_mark.trim().trim_end_matches(['.', '!', ';', ',']);
    let tail = ["off of ", "off ", "from ", "on ", "in "]
        .iter()
        .find_map(|p| tail.strip_prefix(p))
        .unwrap_or(if tail == "off" { "" } else { tail });
    let tail = tail.strip_suffix(", please").unwrap_or(tail);
    tail.is_empty()
        || tail == "please"
        || [
            "everything",
            "them",
            "them all",
            "all of them",
            "every item",
            "all items",
        ]
        .contains(&tail)
        || (tail.split_whitespace().count() <= 4 && tail.ends_with(" list"))
}

/// An order about the tick itself, not the item: "take the tick off 'x'", "remove the check
/// mark from it" (untick), "put a tick next to 'x'" / "give 'x' a tick" (tick); `lower` the
/// clause in lower case (fillers gone) and `raw` as written. The object is what follows the
/// mark's preposition (or, for "give 'x' a tick", what comes before the mark).
fn tick_noun_order(lower: &str, raw: &str) -> Option<Order> {
    let (verb, does) = TICK_TAKERS
        .iter()
        .map(|v| (*v, Does::Uncheck))
        .chain(TICK_GIVERS.iter().map(|v| (*v, Does::Check)))
        .find(|(v, _)| lower.strip_prefix(v).is_some_and(|r| r.starts_with(' ')))?;
    // Found on the clause as written (its quotes kept), where the object's offsets are.
    let written = raw.to_lowercase();
    if written.len() != raw.len() || !written.starts_with(verb) {
        return None;
    }
    let rest_at =
        verb.len() + (written[verb.len()..].len() - written[verb.len()..].trim_start().len());
    let rest = &written[rest_at..];
    let det = ["the", "a", "its", "that", "this", "their"];
    // "clear all the ticks", "take every tick off": every item's tick.
    let all = [
        "all",
        "all the",
        "all of the",
        "every",
        "each",
        "all their",
        "all its",
    ];
    let (mark_at, mark) = TICK_NOUNS
        .iter()
        .filter_map(|n| {
            let at = rest.match_indices(n).map(|(i, _)| i).find(|&i| {
                let before = rest[..i].trim();
                let tail = &rest[i + n.len()..];
                let whole = (tail.is_empty() || tail.starts_with([' ', ',', '.', ';', '!']))
                    && (i == 0 || rest[..i].ends_with(' '));
                let near = before.is_empty()
                    || det.contains(&before)
                    || (does == Does::Uncheck && all.contains(&before))
                    || (does == Does::Check && before.split_whitespace().count() <= 6);
                whole && near
            })?;
            Some((at, *n))
        })
        .min_by_key(|(at, n)| (*at, usize::MAX - n.len()))?;
    let after = mark_at + mark.len();
    if all.contains(&rest[..mark_at].trim()) && every_item(&rest[after..]) {
        // "clear all the ticks", "take every tick off the list": off every item.
        return Some(Order {
            does,
            verb: None,
            object: " everything".to_string(),
        });
    }
    let preps = [
        " off of ",
        " off ",
        " from ",
        " on ",
        " next to ",
        " beside ",
        " against ",
        " to ",
    ];
    if let Some((p, n)) = preps
        .iter()
        .filter_map(|p| rest[after..].find(p).map(|i| (i, p.len())))
        .min()
    {
        return Some(Order {
            does,
            verb: None,
            object: format!(" {}", &raw[rest_at + after + p + n..]),
        });
    }
    match does {
        // "give 'x' a tick": the item comes before the mark.
        Does::Check => (mark_at > 0).then(|| Order {
            does,
            verb: None,
            object: format!(" {}", &raw[rest_at..rest_at + mark_at]),
        }),
        // "remove its tick": the item is the one just named.
        _ => Some(Order {
            does,
            verb: None,
            object: " it".to_string(),
        }),
    }
}

/// The lexicon verb ([`EN`]) `l` (lower-case) starts with, as a whole word.
/// Verbs of pressing a control that name it by an order's own words ("hit clear completed").
const PRESSES: &[&str] = &[
    "hit ",
    "press ",
    "click on ",
    "click ",
    "tap on ",
    "tap ",
    "push ",
];

/// "hit clear completed", "click clear done": the clearing order a press names (only an order
/// on the done items; "click remove" stays a press of a button the model finds).
fn pressed_order(lower: &str, raw: &str) -> Option<Order> {
    let p = PRESSES.iter().find(|p| lower.starts_with(*p))?;
    let rest = &lower[p.len()..];
    let (_, does) = lead_verb(rest)?;
    let done = rest
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| DONE_WORDS.contains(&w));
    if *does != Does::Delete || !done {
        return None;
    }
    let raw_rest = raw.get(p.len()..)?;
    order_en(raw_rest, &clauses::without_quotes(raw_rest))
}

fn lead_verb(l: &str) -> Option<&'static (&'static str, Does)> {
    EN.iter().find(|(w, _)| {
        l.strip_prefix(w)
            .is_some_and(|r| r.starts_with([' ', ',', ':']))
    })
}

/// "wiping out what is done", "getting rid of it": the verb as a gerund (`wiping` → `wipe`,
/// `getting` → `get`), `lower` the clause in lower case and `raw` as written.
fn gerund_order(lower: &str, raw: &str) -> Option<Order> {
    let (first, rest) = lower.split_once(' ')?;
    let stem = first.strip_suffix("ing").filter(|s| s.len() >= 2)?;
    let mut bases = vec![stem.to_string(), format!("{stem}e")];
    let mut tail = stem.chars().rev();
    if let (Some(a), Some(b)) = (tail.next(), tail.next()) {
        if a == b && !"aeiou".contains(a) {
            bases.push(stem[..stem.len() - 1].to_string());
        }
    }
    let (verb, does) = bases
        .iter()
        .find_map(|base| lead_verb(&format!("{base} {rest}")))?;
    let words = verb.split_whitespace().count();
    let object = raw
        .split_whitespace()
        .skip(words)
        .collect::<Vec<_>>()
        .join(" ");
    Some(Order {
        does: *does,
        verb: Some(verb),
        object: format!(" {object}"),
    })
}

/// "so that one needs unticking", "the old entry needs deleting": the gerund after
/// need(s) is the order, said of the words before it.
fn needs_gerund(raw: &str) -> Option<Order> {
    // Found on the clause as written (quotes kept), where the subject's offsets are.
    let written = format!(" {}", raw.to_lowercase());
    if written.len() != raw.len() + 1 {
        return None;
    }
    let (at, len) = [" needs ", " need "]
        .iter()
        .filter_map(|w| written.find(w).map(|i| (i, w.len())))
        .min()?;
    let rest = written.get(at + len..)?.trim_end();
    if !rest.split_whitespace().next()?.ends_with("ing") {
        return None;
    }
    let order = gerund_order(&format!("{rest} "), rest)?;
    let subject = raw.get(..at.saturating_sub(1))?;
    Some(Order {
        object: format!(" {subject} {}", order.object.trim()),
        ..order
    })
}

/// "Tidy up the list by getting rid of what is done": the order is the gerund after `by`.
fn by_gerund(raw: &str) -> Option<Order> {
    let lower = raw.to_lowercase();
    let at = lower.find(" by ")?;
    let rest = raw.get(at + 4..)?.trim();
    let first = rest.split_whitespace().next()?.to_lowercase();
    if !first.ends_with("ing") {
        return None;
    }
    gerund_order(&rest.to_lowercase(), rest)
}

/// Passive and modal wordings, read as the order they give the item named before them:
/// "that one can be marked complete" (mark … complete), "the plant entry can go" (delete),
/// "'x' needs to be deleted", "the gym one shouldn't have a tick" (untick). Participles map
/// to the lexicon's verbs ([`PARTICIPLES`]).
fn passive_order(raw: &str) -> Option<Order> {
    let lower = raw.to_lowercase().replace('’', "'");
    let lower = lower.trim_end_matches(['.', '!', ' ']);
    if let Some(at) = not_present_at(lower) {
        return Some(Order {
            does: Does::Delete,
            verb: None,
            object: raw.get(..at)?.to_string(),
        });
    }
    if let Some(at) = not_ticked_at(lower) {
        return Some(Order {
            does: Does::Uncheck,
            verb: None,
            object: raw.get(..at)?.to_string(),
        });
    }
    for go in GOES {
        let Some(at) = lower.find(go) else { continue };
        let after = lower[at + go.len()..].trim();
        // "'x' needs to go back to not done": the state it goes back to.
        let state = after
            .strip_prefix("back ")
            .unwrap_or(after)
            .strip_prefix("to ")
            .or_else(|| after.strip_prefix("back into "))
            .map(|s| s.trim_end_matches([' ', '.', '!']));
        if let Some(state) = state {
            let state = state.strip_prefix("being ").unwrap_or(state);
            let state = ["again", "now", "for now"]
                .iter()
                .fold(state.to_string(), |s, t| {
                    s.trim_end_matches(t).trim().to_string()
                });
            let does = if UNDONE_WORDS.contains(&state.as_str()) {
                Some(Does::Uncheck)
            } else if DONE_WORDS.contains(&state.as_str()) {
                Some(Does::Check)
            } else {
                None
            };
            if let Some(does) = does {
                return Some(Order {
                    does,
                    verb: None,
                    object: raw.get(..at)?.to_string(),
                });
            }
        }
        // "the canisters entry can go completely".
        if after.split_whitespace().all(|w| {
            [
                "now",
                "too",
                "then",
                "already",
                "completely",
                "entirely",
                "altogether",
            ]
            .contains(&w.trim_end_matches(['.', '!']))
        }) {
            return Some(Order {
                does: Does::Delete,
                verb: None,
                object: raw.get(..at)?.to_string(),
            });
        }
    }
    let (at, modal) = MODALS
        .iter()
        .filter_map(|m| lower.find(m).map(|i| (i, m.len())))
        .min()?;
    let subject = raw.get(..at)?;
    let rest = lower.get(at + modal..)?.trim_start();
    let (part, base) = PARTICIPLES.iter().find(|(p, _)| {
        rest.strip_prefix(p)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', ',']))
    })?;
    let tail = raw.get(raw.len() - rest.len() + part.len()..).unwrap_or("");
    let said = format!("{base} {subject} {tail}");
    let mut order = order_en(&said, &clauses::without_quotes(&said))?;
    order.verb = None;
    Some(order)
}

/// Modal verbs of a passive order ("can be", "needs to be"), with the spaces around them.
const MODALS: &[&str] = &[
    " can be ",
    " could be ",
    " should be ",
    " needs to be ",
    " need to be ",
    " has to be ",
    " have to be ",
    " must be ",
    " ought to be ",
    " can now be ",
    " may be ",
];
/// Participles after a modal ("marked complete") and the imperative they stand for
/// (longest first where one is the prefix of another).
const PARTICIPLES: &[(&str, &str)] = &[
    ("marked", "mark"),
    ("set back", "set"),
    ("set", "set"),
    ("ticked off", "tick off"),
    ("ticked", "tick"),
    ("checked off", "check off"),
    ("crossed off", "cross off"),
    ("completed", "complete"),
    ("unticked", "untick"),
    ("unchecked", "uncheck"),
    ("reopened", "reopen"),
    ("deleted", "delete"),
    ("removed", "remove"),
    ("dropped", "drop"),
    ("cleared", "clear"),
    ("taken off", "remove"),
    ("renamed", "rename"),
    ("reworded", "reword"),
    ("changed", "change"),
];
/// "… can go": the item is to be deleted.
const GOES: &[&str] = &[
    " needs to go back",
    " should go back",
    " has to go back",
    " must go back",
    " can go back",
    " goes back",
    " can go",
    " has to go",
    " needs to go",
    " should go",
    " must go",
];
/// Negated modals of an order that an item is not done ("'x' shouldn't …", "it mustn't …").
const NOT_MODALS: &[&str] = &[
    " shouldn't ",
    " should not ",
    " mustn't ",
    " must not ",
    " isn't supposed to ",
    " is not supposed to ",
    " doesn't ",
    " does not ",
];
/// What follows a [`NOT_MODALS`] before a done state ([`DONE_WORDS`]): "shouldn't be
/// ticked", "shouldn't count as done", "mustn't be marked as complete", "shouldn't have a
/// tick" (the state word is `tick` there).
const NOT_LINKS: &[&str] = &[
    "be marked as ",
    "be marked ",
    "be counted as ",
    "be considered ",
    "be shown as ",
    "be ",
    "count as ",
    "show as ",
    "stay ",
    "remain ",
    "have a ",
];

/// Where on the list is, after a [`NOT_MODALS`]: "shouldn't be on there (at all)",
/// "mustn't stay on the list", "shouldn't be listed".
const NOT_PLACES: &[&str] = &[
    "be on there",
    "be on the list",
    "be on it",
    "be on here",
    "be in the list",
    "be there",
    "be here",
    "be listed",
    "stay on the list",
    "stay on there",
    "stay there",
    "remain on the list",
];

/// Where a [`NOT_MODALS`] + [`NOT_PLACES`] phrase starts in `lower` ("butter shouldn't be
/// on there at all"): the item is to be deleted. Nothing but "at all" / "anymore" / "any
/// more" / "now" may follow (a reason after it, "shouldn't be there because …", stays).
fn not_present_at(lower: &str) -> Option<usize> {
    NOT_MODALS
        .iter()
        .filter_map(|m| lower.find(m).map(|at| (at, &lower[at + m.len()..])))
        .find(|(_, rest)| {
            NOT_PLACES.iter().any(|p| {
                rest.strip_prefix(p).is_some_and(|t| {
                    let t = t.trim_matches(|c: char| c == ' ' || c == ',' || c == '.');
                    ["", "at all", "anymore", "any more", "now"].contains(&t)
                })
            })
        })
        .map(|(at, _)| at)
}

/// Where a [`NOT_MODALS`] + [`NOT_LINKS`] + done-state phrase starts in `lower` ("the gym
/// one shouldn't have a tick", "it shouldn't count as done"): the item is to be unticked.
fn not_ticked_at(lower: &str) -> Option<usize> {
    let states = DONE_WORDS
        .iter()
        .copied()
        .chain(["tick", "check", "checkmark", "check mark"]);
    NOT_MODALS
        .iter()
        .filter_map(|m| lower.find(m).map(|at| (at, &lower[at + m.len()..])))
        .find(|(_, rest)| {
            NOT_LINKS.iter().any(|l| {
                rest.strip_prefix(l).is_some_and(|r| {
                    states.clone().any(|s| {
                        r.strip_prefix(s)
                            .is_some_and(|t| t.is_empty() || t.starts_with([' ', ',', ';']))
                    })
                })
            })
        })
        .map(|(at, _)| at)
}

/// `instruction` with the unquoted items of an add's list quoted: "add three todos: defrost
/// the freezer, descale the kettle, wash the car." → `… todos: 'defrost the freezer',
/// 'descale the kettle', 'wash the car'.` (a sentence whose part before its colon is an add
/// order, and whose part after it, to the sentence's end, has no quote; items split at
/// commas, "and", 、 and 和).
pub fn quote_lists(instruction: &str) -> String {
    let mut out = String::new();
    let mut rest = instruction;
    while let Some(colon) = rest.find([':', '：']) {
        let head = &rest[..colon];
        let sentence = head
            .rfind(['.', '!', '?', '。', '！', '\n'])
            .map(|i| &head[i + head[i..].chars().next().map_or(1, char::len_utf8)..])
            .unwrap_or(head);
        let after = &rest[colon + rest[colon..].chars().next().map_or(1, char::len_utf8)..];
        let end = after
            .char_indices()
            .find(|(i, c)| {
                ['。', '！', '\n', '!', '?'].contains(c)
                    || (*c == '.'
                        && after[i + 1..]
                            .chars()
                            .next()
                            .is_none_or(char::is_whitespace))
            })
            .map(|(i, _)| i)
            .unwrap_or(after.len());
        let list = &after[..end];
        let is_add = order_of(sentence).is_some_and(|o| o.does == Does::Add)
            && clauses::quoted(list).is_empty()
            && !list.trim().is_empty();
        // "Three things for today, in this order: 'a', 'b', 'c'": a verb-less head naming a
        // list ([`LIST_HEADS`]) before quoted items adds them.
        let head_add = order_of(sentence).is_none()
            && starts_with_item(list)
            && is_only_items(list)
            && sentence
                .to_lowercase()
                .split(|c: char| !c.is_alphanumeric() && c != '-')
                .any(|w| LIST_HEADS.contains(&w));
        if head_add {
            out.push_str(&rest[..colon - sentence.len()]);
            out.push_str(" Add these");
        } else {
            out.push_str(&rest[..colon]);
        }
        out.push_str(&rest[colon..colon + rest[colon..].chars().next().map_or(1, char::len_utf8)]);
        if is_add {
            let mut items: Vec<String> = vec![list.to_string()];
            for sep in [", and ", " and ", ", ", ",", "，", "、", "和"] {
                items = items
                    .iter()
                    .flat_map(|p| p.split(sep).map(str::to_string).collect::<Vec<_>>())
                    .collect();
            }
            let quoted: Vec<String> = items
                .iter()
                .map(|i| i.trim())
                .filter(|i| !i.is_empty())
                .map(|i| format!("“{i}”"))
                .collect();
            out.push(' ');
            out.push_str(&quoted.join(", "));
            rest = &after[end..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// "Complete 'a' but leave 'b' open" is two clauses.
pub(super) fn split_but(seg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = seg;
    while let Some(at) = [" but ", " while ", "，但", "但是"]
        .iter()
        .filter_map(|w| {
            rest.match_indices(w)
                // "tick everything but the rent": the but takes items out of an all.
                .find(|(i, _)| *w != " but " || !super::positions::all_but(&rest[..*i]))
                .map(|(i, _)| (i, w.len()))
        })
        .min()
    {
        out.push(rest[..at.0].to_string());
        rest = &rest[at.0 + at.1..];
    }
    out.push(rest.to_string());
    out
}

/// Whether a clause speaks of earlier items by a pronoun ("delete it", "把它删掉").
fn names_a_pronoun(body: &str) -> bool {
    let lower = format!(" {} ", body.to_lowercase().replace([',', '.', '!'], " "));
    [" it ", " them ", " both ", " each "]
        .iter()
        .any(|p| lower.contains(p))
        || ["它", "它们", "这两条", "这条"]
            .iter()
            .any(|p| body.contains(p))
}

/// Whether a clause is nothing but quoted items, conjunctions and fillers ("first 'a' and
/// then 'b'"), so that it continues the verb before it ("'b' stays open" does not).
pub(super) fn is_only_items(body: &str) -> bool {
    let outside = clauses::without_quotes(body).to_lowercase();
    outside
        .split(|c: char| c.is_whitespace() || ",、，和与及".contains(c))
        .filter(|w| !w.is_empty())
        .all(|w| ["first", "then", "and", "also", "finally", "next", "or"].contains(&w))
}

pub(super) fn starts_with_item(body: &str) -> bool {
    let b = body.trim_start();
    let b = ["first ", "and ", "then ", "also "]
        .iter()
        .find_map(|f| b.to_lowercase().starts_with(f).then(|| &b[f.len()..]))
        .unwrap_or(b);
    b.starts_with(['"', '\'', '“', '‘', '「'])
}

pub(super) use super::cjk::is_cjk;

#[cfg(test)]
mod tests {
    use super::named;

    #[test]
    fn english_action_clauses_name_their_end_states() {
        assert_eq!(
            named("Add 'milk' and 'eggs', tick off 'milk', then make sure 1 item is left."),
            vec![
                "assert screen contains \"eggs\"",
                "assert \"milk\" is checked"
            ]
        );
        assert_eq!(
            named("Mark 'a' as done but leave 'b' open."),
            vec!["assert \"a\" is checked", "assert \"b\" is not checked"]
        );
        assert_eq!(
            named("Set 'a' back to not done"),
            vec!["assert \"a\" is not checked"]
        );
        assert_eq!(
            named("Rename 'bread' to 'rye loaf' and confirm it."),
            vec![
                "assert screen contains \"rye loaf\"",
                "assert screen does not contain \"bread\""
            ]
        );
        assert_eq!(
            named("Create two notes, first 'x' and then 'y'."),
            vec![
                "assert screen contains \"x\"",
                "assert screen contains \"y\""
            ]
        );
    }

    #[test]
    fn an_add_list_is_quoted_and_a_shi_de_sentence_orders_nothing() {
        assert_eq!(
            super::quote_lists("Add two todos: a b, c d. Then stop: now."),
            "Add two todos: “a b”, “c d”. Then stop: now."
        );
        assert_eq!(super::quote_lists("Log in: as 'x'"), "Log in: as 'x'");
        assert_eq!(super::order_of("“X”那条是我手滑点成完成的"), None);
    }

    #[test]
    fn not_wanted_any_more_deletes_and_a_count_done_ticks() {
        let o = super::order_of("那个用不着了吧").expect("an order");
        assert_eq!(o.does, super::Does::Delete);
        // Asked, or not said of the item, it orders nothing.
        assert_eq!(super::order_of("这条还要不要了？"), None);
        let o = super::order_of("so that's another one done").expect("an order");
        assert_eq!((o.does, o.object.trim()), (super::Does::Check, "it"));
        // A view chosen by name sets no item's state; a state set on an item does.
        assert_eq!(super::order_of("switch to Active"), None);
        let o = super::order_of("switch it back to active").expect("an order");
        assert_eq!(o.does, super::Does::Uncheck);
    }

    #[test]
    fn the_tick_verb_alone_ticks() {
        for c in ["勾。", "也勾吧", "钩！"] {
            let o = super::order_of(c).expect("an order");
            assert_eq!(o.does, super::Does::Check, "{c}");
            assert!(o.object.trim().is_empty(), "{c}");
        }
        // The verb with a negation or inside a longer clause is not this form.
        assert!(super::order_of("别勾").is_none_or(|o| o.object.contains('别')));
        assert_eq!(super::order_of("勾了没"), None);
    }

    #[test]
    fn the_narrowed_not_wanted_bare_tick_and_view_forms() {
        // Not wanted once something still to come is done: nothing to delete now.
        assert_eq!(super::order_of("寄完这条就用不上了"), None);
        assert_eq!(super::order_of("到时候这个就不需要了"), None);
        let o = super::order_of("烤箱那条不需要了").expect("an order");
        assert_eq!(o.does, super::Does::Delete);
        // "都勾" asks for several items; a one-item tick would take only one of them.
        assert_eq!(super::order_of("都勾吧"), None);
        // A state that is no view's name sets the item spoken of.
        let o = super::order_of("change to done").expect("an order");
        assert_eq!(o.does, super::Does::Check);
        assert_eq!(super::order_of("switch over to Completed"), None);
    }

    #[test]
    fn a_gerund_after_start_by_is_the_verb() {
        let o = super::order_of("Start by wiping out whatever is already done").expect("an order");
        assert_eq!(o.does, super::Does::Delete);
        assert_eq!(o.object.trim(), "whatever is already done");
        let o = super::order_of("begin by ticking off 'a'").expect("an order");
        assert_eq!((o.does, o.object.trim()), (super::Does::Check, "'a'"));
        assert_eq!(super::order_of("Something is missing"), None);
    }

    #[test]
    fn a_negated_done_state_unticks_what_it_names() {
        for said in [
            "it shouldn't count as done",
            "the gym one should not be marked as complete",
            "'a' mustn't be considered finished, it needs redoing",
            "the rent isn't supposed to have a tick",
        ] {
            let o = super::order_of(said).expect(said);
            assert_eq!(o.does, super::Does::Uncheck, "{said}");
        }
        let o = super::order_of("it shouldn't count as done").expect("an order");
        assert_eq!(o.object.trim(), "it");
        // A done state that is not negated, or a feasibility, is no untick.
        for said in [
            "that can't be done today",
            "it should count as the last one",
        ] {
            assert!(
                super::order_of(said).is_none_or(|o| o.does != super::Does::Uncheck),
                "{said}"
            );
        }
    }

    #[test]
    fn a_view_to_end_on_is_no_order_but_an_item_named_by_a_view_word_is() {
        assert_eq!(
            super::order_of("leave it on the Active filter when you're done"),
            None
        );
        // "filter", "tab" in an item's words, or inside another word ("table").
        for (said, does) in [
            ("keep the water filter one unticked", super::Does::Uncheck),
            ("leave the table booking unticked", super::Does::Uncheck),
        ] {
            assert_eq!(super::order_of(said).map(|o| o.does), Some(does), "{said}");
        }
        // 已经 before a done adjective describes the items; 别 still forbids.
        let o = super::order_of("已经做完的几条清掉").expect("an order");
        assert_eq!(o.does, super::Does::Delete);
        assert_eq!(super::order_of("已经做完的先别删"), None);
    }

    #[test]
    fn the_last_clause_naming_an_item_wins() {
        assert_eq!(
            named("Tick off 'a', then delete 'a'."),
            vec!["assert screen does not contain \"a\""]
        );
        // Clearing what is done may remove the ticked items: their ticks are not expected.
        assert_eq!(
            named("Add 'a' and 'b', mark 'a' done, clear the completed ones."),
            vec!["assert screen contains \"b\""]
        );
    }

    #[test]
    fn descriptions_negations_and_checks_name_nothing() {
        assert!(named("'a' got ticked by mistake. Untick it.").is_empty());
        assert!(named("Type 'hello' into the box but don't submit it.").is_empty());
        assert!(named("Don't tick 'a'.").is_empty());
        assert!(named("Make sure 'a' is ticked.").is_empty());
        assert_eq!(
            named("Add 'a' and 'b', mark 'a' done, then make sure 'a' is no longer listed."),
            vec!["assert screen contains \"b\""]
        );
        assert!(named("Check off bread and rent.").is_empty());
        assert!(named("Sign in with the username 'ann'.").is_empty());
    }

    #[test]
    fn review_cases_name_no_wrong_end_state() {
        // A pronoun clause takes back what was expected of the items before it.
        assert!(named("Add 'milk', then delete it.").is_empty());
        assert!(named("Tick off 'a', then untick it.").is_empty());
        assert!(named("添加“买牛奶”，然后把它删掉。").is_empty());
        // Field values and forms are no list items; a tick needs its object quoted.
        assert!(
            named("Put 'ann' in Username and 'hunter2' in Password, then tap Sign in.").is_empty()
        );
        assert!(named("Complete the sign-up form with the name 'Ann'.").is_empty());
        assert!(named("Create an account with email 'a@b.co'.").is_empty());
        assert_eq!(
            named("Complete the todo 'pay rent'."),
            vec!["assert \"pay rent\" is checked"]
        );
        // A quoted clause with its own words does not inherit the verb before it.
        assert_eq!(
            named("Tick off 'milk', 'eggs' stays open."),
            vec!["assert \"milk\" is checked"]
        );
        // 点击完成 taps a button; 取消…的勾选 unticks.
        assert!(named("输入“ann”后点击完成。").is_empty());
        assert_eq!(
            named("取消“甲”的勾选。"),
            vec!["assert \"甲\" is not checked"]
        );
        // A "still listed" check keeps the stronger tick; a "gone" check replaces it.
        assert_eq!(
            named("Tick off 'milk', then make sure 'milk' is still listed."),
            vec!["assert \"milk\" is checked"]
        );
        // An apostrophe inside a word does not end the quote.
        assert_eq!(
            named("Delete 'Mom's gift'."),
            vec!["assert screen does not contain \"Mom's gift\""]
        );
    }

    #[test]
    fn chinese_action_clauses_name_their_end_states() {
        assert_eq!(
            named("新建两条待办：“甲”和“乙”，把“甲”勾掉，并确认底部显示 1 item left。"),
            vec!["assert screen contains \"乙\"", "assert \"甲\" is checked"]
        );
        assert_eq!(
            named("删掉待办“丙”。"),
            vec!["assert screen does not contain \"丙\""]
        );
        // The check clause speaks of 丙: it decides.
        assert!(named("删掉待办“丙”，然后检查列表里已经没有“丙”了。").is_empty());
        assert_eq!(
            named("把“丁”标成未完成。"),
            vec!["assert \"丁\" is not checked"]
        );
        assert!(named("“丁”其实还没做完，请把它改回未完成。").is_empty());
        assert_eq!(
            named("把待办“旧”改名为“新”。"),
            vec![
                "assert screen contains \"新\"",
                "assert screen does not contain \"旧\""
            ]
        );
    }
}
