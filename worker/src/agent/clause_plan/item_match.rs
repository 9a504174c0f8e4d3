//! Which list items a text names: a quote, its words, its Chinese characters, each part of
//! an "and" list, a position among the items just added, or a pronoun and the clauses
//! before it; and the state an object picks its items by.

use super::stems::{is_stop, same_word, words, IRREGULAR};
use crate::agent::effects::{self, Does};
use crate::agent::{clauses, positions};

/// The item a quoted text names: the one whose name is that text (case-insensitive), else
/// the unique best by words.
pub(super) fn find_item(q: &str, items: &[(String, bool)]) -> Option<String> {
    let key = q.trim().to_lowercase();
    if let Some((n, _)) = items.iter().find(|(n, _)| n.to_lowercase() == key) {
        return Some(n.clone());
    }
    by_words(q, items, None).and_then(|mut v| (v.len() == 1).then(|| v.remove(0)))
}

/// Whether an object speaks of the items that are done ("the completed ones", "whatever is
/// already done", "打了勾的").
pub(super) fn names_done(object: &str) -> bool {
    let lower = object.to_lowercase();
    // "un-checked", "non-completed": a hyphenated negation is the other state.
    let parts: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|t| !["un-", "non-", "not-"].iter().any(|n| t.starts_with(n)))
        .flat_map(|t| t.split('-'))
        .collect();
    effects::DONE_WORDS.iter().any(|w| parts.contains(w))
        || [
            "已完成",
            "打了勾",
            "打勾的",
            "勾了的",
            "勾上的",
            "勾过的",
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
pub(super) fn state_named(object: &str) -> Option<bool> {
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
pub(super) fn pronoun(object: &str, does: Does) -> bool {
    if object.chars().any(effects::is_cjk) {
        // "删了吧": nothing but particles is the item just spoken of.
        let plain = [
            "直接", "干脆", "马上", "立刻", "赶紧", "顺便", "一并", "可以", "帮我", "先", "还是",
            "索性",
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
    words(object).iter().all(|w| {
        // "Omar is away, so untick him": a person's pronoun is the item naming them.
        [
            "two", "three", "four", "both", "those", "these", "them", "him", "her", "pair",
        ]
        .contains(&w.as_str())
    }) || possessive(object)
        || demonstrative_row(object)
}

/// Whether an object is only a demonstrative and a noun of a list's row ("change that line
/// to …", "this entry"): the item just spoken of.
pub(super) fn demonstrative_row(object: &str) -> bool {
    // "change that line to 'x'": the new title is no word of the object.
    let object = &super::super::clauses::without_quotes(object);
    let lower = object.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| !c.is_alphabetic())
        .filter(|t| !t.is_empty())
        .collect();
    let meant = words(object);
    tokens
        .windows(2)
        .any(|w| ["that", "this"].contains(&w[0]) && ROW_NOUNS.contains(&w[1]))
        && meant.len() == 1
        && words(&ROW_NOUNS.join(" ")).contains(&meant[0])
}

/// Nouns of a list's row said after a possessive ("her line", "their entry").
const ROW_NOUNS: &[&str] = &["line", "entry", "item", "task", "one"];

/// Whether an object is only a possessive pronoun ("Lena said yes, so tick hers", "his one
/// too", "scratch her line"): the item of the person just named.
fn possessive(object: &str) -> bool {
    let lower = object.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| !c.is_alphabetic())
        .filter(|t| !t.is_empty())
        .collect();
    // "scratch her line", "tick their entry": her / their before a noun of a list's row.
    let owner = |t: &&str| ["hers", "his", "theirs"].contains(t);
    let her_row = tokens
        .windows(2)
        .any(|w| ["her", "their"].contains(&w[0]) && ROW_NOUNS.contains(&w[1]));
    (tokens.iter().any(owner) || her_row)
        && tokens.iter().all(|t| {
            [
                "hers",
                "his",
                "theirs",
                "her",
                "their",
                "line",
                "entry",
                "item",
                "task",
                "one",
                "too",
                "as",
                "well",
                "also",
                "done",
                "off",
                "complete",
                "completed",
                "finished",
                "ticked",
            ]
            .contains(t)
        })
}

/// How many items a pronoun speaks of: `Some(1)` for it / that one / 这条, `Some(n)` for
/// both / two / 两, `None` for them / these (every item that matches).
pub(super) fn plural(object: &str) -> Option<usize> {
    let lower = object.to_lowercase();
    let has = |w: &str| lower.split(|c: char| !c.is_alphanumeric()).any(|x| x == w);
    // "tick both the ferns and the bills", split at its "and": this part names one.
    let both_named = lower
        .split_once("both ")
        .is_some_and(|(_, r)| !r.trim_start().starts_with("of") && !words(r).is_empty());
    if both_named {
        return Some(1);
    }
    // "tick the pair of them" (not "the pair of shoes one": an item's own words).
    let pair = has("pair") && words(&lower).iter().all(|w| w == "pair");
    if has("both") || has("two") || pair || object.contains('两') {
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
pub(super) fn by_context(
    before: &[&str],
    items: &[(String, bool)],
    n: Option<usize>,
) -> Option<Vec<String>> {
    // "The monitor arm came, and it's already on the desk, so tick it": a clause whose
    // subject is itself a pronoun speaks of what the clause before it names; the desk is
    // where the arm is, not the item ticked.
    let said: Vec<&str> = before
        .iter()
        .copied()
        .filter(|seg| !pronoun_subject(seg))
        .collect();
    let before = if said.is_empty() { before } else { &said };
    if let Some(run) = n.filter(|k| *k > 1).and_then(|k| {
        before
            .iter()
            .take(3)
            .find_map(|seg| run_subject(seg, items, k))
    }) {
        return Some(run);
    }
    // "“检查热水器”那条我看过了，灯亮着，水温也对，勾上吧": a clause that names an item
    // plainly, up to three back, beats a nearer one that only shares a head character
    // (水 of 水温 is no 买水).
    if n == Some(1) {
        // "午饭那条——酒店说可以送餐，不用另外订，删了吧": a clause that only names its topic
        // ("X那条", "the X one"), up to three back, beats the things said about it since.
        if let Some(one) = topic_before(before, items) {
            return Some(vec![one]);
        }
        if let Some(one) = before
            .iter()
            .take(3)
            .filter(|seg| !names_the_list(seg) && !about_speaker(seg, items))
            .find_map(|seg| plainly_named(seg, items))
        {
            return Some(vec![one]);
        }
    }
    let mut found: Vec<String> = Vec::new();
    for seg in before {
        if names_the_list(seg) || about_speaker(seg, items) {
            // "健身那个单子：…": the list's own name speaks of no item.
            continue;
        }
        let quoted: Vec<String> = clauses::quoted(seg)
            .iter()
            .filter_map(|q| find_item(q, items))
            .collect();
        // "真题和计算器昨天一起网上买了，两条都打勾": a plural's items joined in one clause.
        let parts = n
            .filter(|k| *k > 1)
            .and_then(|k| each_part(seg, items).filter(|p| p.len() == k));
        let hits = if let Some(parts) = parts.filter(|_| quoted.is_empty()) {
            parts
        } else if quoted.is_empty() {
            by_words(seg, items, n.filter(|k| *k == 1))
                .or_else(|| (n == Some(1)).then(|| first_named(seg, items)).flatten())
                .or_else(|| {
                    (n == Some(1))
                        .then(|| {
                            by_chars(seg, items)
                                .or_else(|| positions::row_said_before(seg, items))
                                .or_else(|| by_head_char(seg, items))
                                .or_else(|| by_lead_char(seg, items))
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

/// Whether an English clause's subject is a pronoun ("it's already on the desk", "they
/// were in the loft") and it quotes nothing.
fn pronoun_subject(seg: &str) -> bool {
    let lower = seg.trim().to_lowercase().replace('’', "'");
    let lower = lower.strip_prefix("and ").unwrap_or(&lower);
    clauses::quoted(seg).is_empty()
        && [
            "it's ",
            "it is ",
            "it was ",
            "they're ",
            "they are ",
            "they were ",
        ]
        .iter()
        .any(|p| lower.starts_with(p))
}

/// The items `text`'s words name: the unique best-scoring one for `Some(1)`, every item that
/// shares a word otherwise (exactly `n` of them for `Some(n)`); `None` when nothing matches.
pub(super) fn by_words(
    text: &str,
    items: &[(String, bool)],
    n: Option<usize>,
) -> Option<Vec<String>> {
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
            if let [one] = top.as_slice() {
                return Some(vec![(*one).clone()]);
            }
            // "tick off her prescription" of "pick up her prescription" and "pick up my
            // prescription": a possessive is no title word, but it tells tied items apart.
            let said = possessives(text);
            let mine: Vec<&String> = top
                .iter()
                .filter(|n| possessives(n).iter().any(|p| said.contains(p)))
                .copied()
                .collect();
            if mine.len() == 1 {
                return Some(vec![mine[0].clone()]);
            }
            told_apart(text, &top).map(|one| vec![one])
        }
        Some(k) => (scored.len() == k).then(|| scored.iter().map(|(_, n)| (*n).clone()).collect()),
        None => Some(scored.iter().map(|(_, n)| (*n).clone()).collect()),
    }
}

/// Words too common to tell tied items apart ([`told_apart`]): glue, counts (the count
/// said may be the new one: "two kilos is plenty" of "buy five kilos"), states, persons.
const GLUE: &[&str] = &[
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
    "it",
    "its",
    "is",
    "are",
    "was",
    "this",
    "that",
    "with",
    "up",
    "so",
    "one",
    "ones",
    "two",
    "both",
    "all",
    "them",
    "these",
    "those",
    "either",
    "open",
    "undone",
    "active",
    "incomplete",
    "unfinished",
    "unticked",
    "unchecked",
    "i",
    "me",
    "you",
    "my",
    "your",
];

/// Among items tied by meaning words, the one that shares the most stop words (but
/// [`GLUE`]) with `text` ("the new router turned up" of "order the new router" and "return
/// the old router": `new` carries no item's meaning, yet it tells them apart); `None` when
/// still tied.
fn told_apart(text: &str, top: &[&String]) -> Option<String> {
    let tokens = |s: &str| -> Vec<String> {
        s.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| is_stop(w) && !GLUE.contains(w))
            .map(str::to_string)
            .collect()
    };
    let said = tokens(text);
    let scored: Vec<(usize, &String)> = top
        .iter()
        .map(|n| (tokens(n).iter().filter(|w| said.contains(w)).count(), *n))
        .collect();
    let best = scored.iter().map(|(k, _)| *k).max()?;
    let mut firsts = scored.iter().filter(|(k, _)| *k == best);
    match (firsts.next(), firsts.next()) {
        (Some((_, one)), None) => Some((*one).clone()),
        _ => None,
    }
}

/// The possessives `text` says ("her", "our", …): stop words ([`words`] leaves them out) that
/// still tell "book his haircut" from "book my haircut".
fn possessives(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| {
            [
                "my", "his", "her", "their", "our", "your", "mine", "hers", "theirs", "ours",
            ]
            .contains(w)
        })
        .map(str::to_string)
        .collect()
}

/// The item of the nearest clause, up to three back, that is nothing but a topic
/// ([`topic_named`]), unless a clause since orders something or names an item plainly, not
/// as hearsay or an aside ("The bread one: leave it. The plumber came though, tick him off"
/// ticks the plumber; "包间那条——蛋糕店说可以送到餐厅，删了吧" and "午饭那条——同事帮我带，
/// 电费也交了，删了吧" delete the topic's item).
fn topic_before(before: &[&str], items: &[(String, bool)]) -> Option<String> {
    for seg in before.iter().take(3) {
        if let Some(one) = topic_named(seg, items) {
            return Some(one);
        }
        let aside = || {
            let lower = format!(" {} ", seg.to_lowercase().trim_end_matches(['.', '!']));
            seg.contains('也')
                || [" too ", " also ", " as well "]
                    .iter()
                    .any(|w| lower.contains(w))
        };
        if effects::order_of(seg).is_some()
            || plainly_named(seg, items).is_some() && !hearsay(seg) && !aside()
        {
            return None;
        }
    }
    None
}

/// Whether a Chinese clause says what the speaker is ("我们是本地户口"): a reason, about no
/// item, whatever characters it shares with one. (Not English: "we're skipping the aprons"
/// speaks of the aprons.)
/// A clause that holds every meaning character of an item does speak of it ("我是昨天交的
/// 电费", the 是…的 of when).
fn about_speaker(seg: &str, items: &[(String, bool)]) -> bool {
    let s = seg.trim();
    let holds_all = |name: &str| {
        let mut meant = name
            .chars()
            .filter(|c| effects::is_cjk(*c) && !ZH_FUNCTION_CHARS.contains(*c))
            .peekable();
        meant.peek().is_some() && meant.all(|c| s.contains(c))
    };
    ["我们是", "我是", "咱们是", "咱是", "我们家是"]
        .iter()
        .any(|w| s.starts_with(w))
        && !items.iter().any(|(n, _)| holds_all(n))
}

/// Whether a clause only reports what someone said ("蛋糕店说可以送", "the bakery said
/// they'd bring it").
fn hearsay(seg: &str) -> bool {
    let lower = format!(" {} ", seg.to_lowercase());
    super::hearsay::hearsay_zh(seg)
        || [" said ", " says ", " told me ", " say "]
            .iter()
            .any(|w| lower.contains(w))
}

/// The one item a clause that is nothing but a topic names: "午饭那条", "酒店这一条", "the
/// lunch one" (with dashes or a colon after it).
fn topic_named(seg: &str, items: &[(String, bool)]) -> Option<String> {
    let body = seg
        .trim()
        .trim_end_matches(['—', '-', '–', ':', '：', ',', '，', ' '])
        .trim();
    let lower = body.to_lowercase();
    let head = THIS_ROW_ZH
        .iter()
        .find_map(|w| body.strip_suffix(w))
        .or_else(|| {
            lower
                .strip_prefix("the ")
                .and_then(|r| r.strip_suffix(" one"))
                .filter(|r| !r.is_empty())
        })
        // "Forget bleeding the radiators, the engineer says he'll do it, so delete it": what
        // is given up is what the sentence goes on about.
        .or_else(|| {
            ["forget about ", "forget ", "never mind "]
                .iter()
                .find_map(|w| lower.strip_prefix(w))
                .filter(|r| !r.is_empty() && !r.starts_with("it") && !r.starts_with("that"))
        })?;
    if head.trim().is_empty() || names_the_list(head) {
        return None;
    }
    plainly_named(head, items)
}

/// The one item a clause names plainly: by a quote, its words, its characters or its row —
/// not by a head character alone ([`by_head_char`]).
fn plainly_named(seg: &str, items: &[(String, bool)]) -> Option<String> {
    if let [q] = clauses::quoted(seg).as_slice() {
        return find_item(q, items);
    }
    if let Some(one) = by_lead_noun(seg, items) {
        return Some(one);
    }
    by_words(seg, items, Some(1))
        .or_else(|| first_named(seg, items))
        .and_then(|mut v| v.pop())
        .or_else(|| by_chars(seg, items))
        .or_else(|| positions::row_said_before(seg, items))
}

/// Among the items tied best by words in a clause said before a pronoun, the one named
/// first: "Got the printer going after an hour on hold to the toner company, so that's done"
/// speaks of the printer (a clause's topic comes first; the toner company is where the hour
/// went). `None` when no word names an item or the first word names several.
///
/// Among those, the clause's leading verb on an item's own leading verb counts last: "Got
/// the cake" speaks of the cake, not of "get a haircut" ("got" stems to "get" as irregular
/// pasts do), "Got the fence fixed" of "fix the fence", not "get the car fixed".
fn first_named(seg: &str, items: &[(String, bool)]) -> Option<Vec<String>> {
    let said = words(seg);
    let scored: Vec<(usize, usize, &String)> = items
        .iter()
        .filter_map(|(name, _)| {
            let own = words(name);
            let hits: Vec<usize> = said
                .iter()
                .enumerate()
                .filter(|(_, x)| own.iter().any(|w| same_word(x, w)))
                .map(|(i, _)| i)
                .collect();
            Some((hits.len(), *hits.first()?, name))
        })
        .collect();
    let best = scored.iter().map(|(n, _, _)| *n).max()?;
    let top: Vec<&(usize, usize, &String)> = scored.iter().filter(|(n, _, _)| *n == best).collect();
    // Hits less the clause's leading verb, a past form ("got", "booked"), on the item's own
    // leading verb.
    let first = seg
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let past = first.ends_with("ed") || IRREGULAR.iter().any(|(p, _)| *p == first);
    let other_hits = |name: &str| {
        let own = words(name);
        let lead = past
            && own.len() > 1
            && said.len() > 1
            && words(&first).first() == said.first()
            && same_word(&said[0], &own[0]);
        said.iter()
            .enumerate()
            .filter(|(i, x)| !(lead && *i == 0) && own.iter().any(|w| same_word(x, w)))
            .count()
    };
    if top.len() > 1 {
        let counts: Vec<usize> = top.iter().map(|(_, _, name)| other_hits(name)).collect();
        let most = counts.iter().copied().max().unwrap_or(0);
        if let [at] = (0..top.len())
            .filter(|&i| counts[i] == most)
            .collect::<Vec<_>>()[..]
        {
            return Some(vec![top[at].2.clone()]);
        }
    }
    let first = top.iter().map(|(_, at, _)| *at).min()?;
    let at_first: Vec<&&(usize, usize, &String)> =
        top.iter().filter(|(_, at, _)| *at == first).collect();
    match at_first.as_slice() {
        [one] => Some(vec![one.2.clone()]),
        _ => None,
    }
}

/// Chinese characters that carry no item's meaning (particles, pronouns, aspect words).
const ZH_FUNCTION_CHARS: &str =
    "了的已经把这那条个一下吧就也都还没不是在我你他她它们给让被去来过着呢啊吗要再和跟与又很太先后";

/// Whether a clause names the list itself, not an item ("健身那个单子", "the camping list"):
/// a list noun and no quote.
pub(super) fn names_the_list(seg: &str) -> bool {
    let lower = seg.trim().to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    // Short, or ending with the noun: "清单里的牛奶买了" speaks of the milk.
    let zh = ["单子", "清单", "列表"].iter().any(|w| {
        lower.trim_end_matches(['：', ':', '。']).ends_with(w)
            || (lower.contains(w) && lower.chars().count() <= 8)
    });
    let en = words.len() <= 4 && words.iter().any(|w| ["list", "checklist"].contains(w));
    clauses::quoted(seg).is_empty() && (zh || en)
}

/// The one item whose last character (a Chinese title's head noun: 鞋 of 买运动鞋) the
/// clause says, for a pronoun's context only ("鞋其实退了，勾取消"); `None` when none or
/// several items end so.
fn by_head_char(seg: &str, items: &[(String, bool)]) -> Option<String> {
    only_item(items, |name| {
        name.chars().last().is_some_and(|c| {
            effects::is_cjk(c) && !ZH_FUNCTION_CHARS.contains(c) && seg.contains(c)
        })
    })
}

/// Chinese demonstratives of a list's row ("午饭那条", "水那条").
const THIS_ROW_ZH: &[&str] = &["那条", "这条", "那一条", "这一条", "那项", "这项"];

/// The one item holding the character a one-character topic before 那条 / 这条 says ("水那条
/// 删了吧" of 带两瓶水); `None` when the topic is longer, a function character, or none or
/// several items hold it.
pub(super) fn by_topic_char(object: &str, items: &[(String, bool)]) -> Option<String> {
    let t = object.trim();
    let at = THIS_ROW_ZH
        .iter()
        .chain(&["那个", "这个"])
        .filter_map(|w| t.find(w))
        .min()?;
    let head = t[..at].trim();
    let head = ["把", "将"]
        .iter()
        .fold(head, |h, p| h.strip_prefix(p).unwrap_or(h))
        .trim();
    let mut chars = head.chars();
    let c = chars.next()?;
    if chars.next().is_some() || !effects::is_cjk(c) || ZH_FUNCTION_CHARS.contains(c) {
        return None;
    }
    only_item(items, |name| name.contains(c))
}

/// The title of the one item of `items` that `holds`; `None` when none or several do.
fn only_item(items: &[(String, bool)], holds: impl Fn(&str) -> bool) -> Option<String> {
    let mut hits = items.iter().filter(|(name, _)| holds(name));
    let one = hits.next()?;
    hits.next().is_none().then(|| one.0.clone())
}

/// Adverbs of time or degree that may stand first before 已经 / 就 / 都 (早就, 全都, 本来就,
/// 刚就): no topic of their own.
const LEAD_ADVERBS: &str = "早全本刚才总原";

/// The one item holding the character a clause's topic is, when the topic is that one
/// character before 已经 / 也 / 都 / 早 / 还 / 就 ("假已经批下来了，勾" of 请一天假陪他们去), for
/// a pronoun's context only; `None` when none or several items hold it.
fn by_lead_char(seg: &str, items: &[(String, bool)]) -> Option<String> {
    let seg = seg.trim();
    let c = seg.chars().next()?;
    let rest = &seg[c.len_utf8()..];
    let topic = ["已经", "也", "都", "早", "还", "就"]
        .iter()
        .any(|w| rest.starts_with(w));
    // "早就交了", "全都弄好了": an adverb before the adverb, no topic.
    if !effects::is_cjk(c) || ZH_FUNCTION_CHARS.contains(c) || LEAD_ADVERBS.contains(c) || !topic {
        return None;
    }
    only_item(items, |name| name.contains(c))
}

/// Words that end a Chinese clause's leading topic ("照片|在出入境大厅里拍的", "合同|已经签了").
const AFTER_TOPIC: &[&str] = &[
    "在", "已经", "都", "也", "还", "是", "被", "给", "让", "我", "他", "她",
];

/// The one item holding a Chinese clause's leading topic, two or more characters before an
/// [`AFTER_TOPIC`] word ("照片在出入境大厅里拍的" speaks of 拍护照照片, not of the 出入境 item
/// where it happened); `None` when no item or several hold it.
fn by_lead_noun(text: &str, items: &[(String, bool)]) -> Option<String> {
    let t = text.trim();
    let end = AFTER_TOPIC
        .iter()
        .filter_map(|w| t.find(w))
        .filter(|i| *i > 0)
        .min()?;
    let lead = &t[..end];
    if lead.chars().count() < 2 || !lead.chars().all(effects::is_cjk) {
        return None;
    }
    only_item(items, |name| name.contains(lead))
}

/// The one item sharing the most meaning-bearing Chinese characters with `text` (a clause
/// that words the item in another order: "花已经浇过了" names 浇花), when character pairs
/// found none; `None` when no item shares one or several tie.
pub(super) fn by_chars(text: &str, items: &[(String, bool)]) -> Option<String> {
    if let Some(one) = by_lead_noun(text, items) {
        return Some(one);
    }
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
            // "鱼我妈拎回家了" of 买鱼: a two-character item's object, said alone, names it.
            let object =
                name.chars().count() == 2 && name.chars().last().is_some_and(|c| want.contains(&c));
            (seen.len().max(if object { 2 } else { 0 }), name)
        })
        // One shared character (买 of 买水果 in "把新的买回来了") is no evidence.
        .filter(|(k, _)| *k > 1)
        .collect();
    let best = scored.iter().map(|(k, _)| *k).max()?;
    let mut top = scored.iter().filter(|(k, _)| *k == best);
    let one = top.next()?;
    top.next().is_none().then(|| one.1.clone())
}

/// The items an object joined by "and" / "," / 和 / 、 names, one per part, when every part
/// (two or more) names exactly one item and no two the same.
pub(super) fn each_part(object: &str, items: &[(String, bool)]) -> Option<Vec<String>> {
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
pub(super) fn among_added(object: &str, before: &[&str]) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::super::test_support::{list, steps};

    #[test]
    fn a_possessive_tells_apart_items_tied_on_their_other_words() {
        // Possessives are no title words, but between two items alike but for one, the one
        // said is meant.
        let obs = list(&[
            ("pick up her prescription", false),
            ("pick up my prescription", false),
            ("feed their cat", false),
            ("feed our cat", false),
        ]);
        assert_eq!(
            steps("Tick off her prescription.", &obs).unwrap(),
            vec!["check \"pick up her prescription\""]
        );
        assert_eq!(
            steps("Got my prescription, tick it.", &obs).unwrap(),
            vec!["check \"pick up my prescription\""]
        );
        assert_eq!(
            steps("The neighbours are back, so delete feed their cat.", &obs).unwrap(),
            vec!["tap \"Delete\" in the row of \"feed their cat\""]
        );
        // "hers" stands for the person named before, as "her one" does.
        let obs = list(&[("ask Priya to feed the cat", false), ("buy milk", false)]);
        assert_eq!(
            steps(
                "Priya is away, so change hers to 'ask Dev to feed the cat'.",
                &obs
            )
            .unwrap(),
            vec![
                "double tap \"ask Priya to feed the cat\"",
                "type \"ask Dev to feed the cat\" into \"ask Priya to feed the cat\"",
                "press Enter",
            ]
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
        // Three joined items are not what "both" speaks of.
        let three = list(&[("买牛奶", false), ("买面包", false), ("买鸡蛋", false)]);
        assert_eq!(steps("牛奶、面包和鸡蛋都买了，两条都勾上。", &three), None);
    }

    #[test]
    fn a_chinese_clause_s_leading_noun_beats_where_it_happened() {
        let obs = list(&[("去医院拿化验单", true), ("买体温计", false)]);
        assert_eq!(
            steps("体温计在医院门口的药店买的，已经买好了，勾上。", &obs).unwrap(),
            vec!["check \"买体温计\""]
        );
        // 勾了的 are the done ones.
        let obs = list(&[("买体温计", true), ("交电费", false)]);
        assert_eq!(
            steps("弄完把勾了的都清掉。", &obs).unwrap(),
            vec!["tap \"Clear done\""]
        );
    }

    #[test]
    fn an_order_said_anyway_and_a_lone_verb_that_names_nothing() {
        let obs = list(&[("make a packing list", false), ("book the parking", false)]);
        assert_eq!(
            steps(
                "I wrote the packing list, even if it ran long, so tick it anyway.",
                &obs
            )
            .unwrap(),
            vec!["check \"make a packing list\""]
        );
        assert_eq!(
            steps(
                "There's no parking, you just stop and go, so delete the parking one.",
                &obs
            )
            .unwrap(),
            vec!["tap \"Delete\" in the row of \"book the parking\""]
        );
    }

    #[test]
    fn what_the_speaker_is_names_no_item_for_a_bare_delete() {
        let obs = list(&[("准备户口本复印件", false), ("开居住证明", false)]);
        assert_eq!(
            steps("居住证明不用开了，我们是本地户口，删掉。", &obs).unwrap(),
            vec!["tap \"Delete\" in the row of \"开居住证明\""]
        );
    }

    #[test]
    fn an_adverb_first_is_no_one_character_topic() {
        let obs = list(&[
            ("买早点", false),
            ("全家体检预约", false),
            ("续交物业费", false),
        ]);
        for text in ["早就交了，勾上。", "全都弄好了，勾上。"] {
            let got = steps(text, &obs).unwrap_or_default();
            assert!(got.is_empty(), "{text}: {got:?}");
        }
    }

    #[test]
    fn what_the_speaker_did_to_an_item_still_names_it() {
        let obs = list(&[("续交物业费", false), ("开居住证明", false)]);
        assert_eq!(
            steps("我是上周续交的物业费，勾上。", &obs).unwrap(),
            vec!["check \"续交物业费\""]
        );
    }

    #[test]
    fn a_one_character_topic_names_its_item_for_a_bare_tick() {
        let obs = list(&[("请一天假陪他们去", false), ("问问能不能用医保卡", false)]);
        assert_eq!(
            steps("假已经批下来了，勾。", &obs).unwrap(),
            vec!["check \"请一天假陪他们去\""]
        );
        // Two items hold it: no guess.
        let obs = list(&[("请三天假去旅游", false), ("假期作业做完", false)]);
        assert!(steps("假已经批下来了，勾。", &obs).is_none_or(|s| s.is_empty()));
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
}
