//! What the screen offers a read plan: its list items, its one text field, a form's send
//! button, the button a clause's verb names, and a check clause's state of a named item.

use super::item_match::{by_words, names_done};
use super::stems::ALL_WORDS;
use crate::agent::clauses;
use crate::agent::effects::{self, Does};
use crate::checks::is_all_toggle;
use crate::resolve::{is_toggle, takes_text};
use argus_perception::{Observation, Role};

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
    // "make sure the bread is gone from the done view": the state word names a view, the
    // clause speaks of the item's absence.
    if GONE_WORDS.iter().any(|w| lower.contains(w))
        || ["deleted", "removed", "gone"].iter().any(&has)
    {
        return None;
    }
    // "shouldn't be open": a negation before an undone word that is not itself negated
    // ("not done") names no state to check.
    let negated = lower.contains("n't ") || lower.contains(" not ");
    let undone =
        |w: &&str| has(w) && (w.contains("not") || !negated || w.chars().any(effects::is_cjk));
    let done = if STATE_UNDONE.iter().any(has) {
        if !STATE_UNDONE.iter().any(undone) {
            return None;
        }
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

/// Words saying a thing is no longer on the list ([`absence_check`]).
const GONE_WORDS: &[&str] = &[
    "no longer listed",
    "no longer on the list",
    "no longer in the list",
    "no longer shows",
    "no longer appears",
    "not on the list",
    "not in the list",
    "isn't on the list",
    "isn't in the list",
    "is not on the list",
    "not listed",
    "isn't listed",
    "is gone",
    "has gone",
    "are gone",
    "doesn't appear",
    "does not appear",
    "doesn't show up",
    "nowhere on the list",
];

/// Words that may follow [`GONE_WORDS`] ("is gone now", "no longer shows on the screen").
const GONE_AFTER: &[&str] = &[
    "now",
    "too",
    "either",
    "already",
    "anymore",
    "any",
    "more",
    "longer",
    "at",
    "all",
    "completely",
    "entirely",
    "for",
    "good",
    "up",
    "over",
    "from",
    "on",
    "in",
    "off",
    "the",
    "list",
    "screen",
    "page",
    "app",
    "afterwards",
    "after",
    "that",
    "this",
];
/// Words saying one copy of an item among several ([`absence_check`]).
const MANY: &[&str] = &[
    "duplicate",
    "duplicates",
    "duplicated",
    "copy",
    "copies",
    "second",
    "extra",
    "another",
    "other",
    "twice",
    "double",
    "only",
    "once",
];

/// A check clause that says an item named by its words, not by quotes, is no longer listed
/// ("make sure there's no programme entry left", "check the gym one is gone") as the check
/// that its title is off the screen; `None` when it names no absence, says a count or a
/// state, or its words name no one item of `obs` (or of `added`).
pub fn absence_check(clause: &str, obs: &Observation, added: &[String]) -> Option<String> {
    if !clauses::quoted(clause).is_empty() || clause.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let lower = clause
        .to_lowercase()
        .replace('’', "'")
        .trim_end_matches(['.', '!'])
        .to_string();
    let words_of: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    // Only time and place words may follow the words of absence: "the rent has gone
    // through", "no X left in the fridge", "doesn't show up twice" say no absence.
    let ends = |rest: &str| {
        rest.split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .all(|w| GONE_AFTER.contains(&w))
    };
    // "there's no X left", "no X remains": "no" before the thing and "left" after it.
    let no_left = words_of.iter().position(|w| *w == "no").is_some_and(|i| {
        words_of[i + 1..].iter().enumerate().any(|(k, w)| {
            ["left", "remains", "remaining", "anymore"].contains(w)
                && words_of[i + 2 + k..].iter().all(|w| GONE_AFTER.contains(w))
        })
    });
    let gone = GONE_WORDS
        .iter()
        .any(|w| lower.find(w).is_some_and(|at| ends(&lower[at + w.len()..])));
    // "no duplicate X entry left", "the second X one is gone": one of several copies.
    let one_of_many = words_of.iter().any(|w| MANY.contains(w));
    let counted = [
        "items", "item", "entries", "ones", "things", "todos", "tasks",
    ]
    .iter()
    .any(|w| words_of.iter().any(|x| x == w) && lower.contains(" left"));
    let stated = [STATE_DONE, STATE_UNDONE]
        .concat()
        .iter()
        .any(|w| words_of.contains(w));
    if !(no_left || gone) || counted || stated || one_of_many {
        return None;
    }
    let mut items = list_items(obs);
    items.extend(added.iter().map(|a| (a.clone(), false)));
    let item = by_words(clause, &items, Some(1))?.pop()?;
    Some(format!(
        "assert screen does not contain {}",
        clauses::quote_line(&item)
    ))
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

/// Names a form's send button starts with (lower-case; Chinese anywhere in the name).
const SUBMITS: &[&str] = &[
    "submit", "send", "save", "log in", "login", "sign in", "sign up", "search", "register", "ok",
    "提交", "登录", "发送", "保存", "搜索", "注册", "确定",
];

/// Whether the screen is a form sent by a button ([`SUBMITS`]): its text field takes a
/// value, not a new list item.
pub(in crate::agent) fn submits_a_form(obs: &Observation) -> bool {
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
    // "clear its tick", "remove the check mark from it": an order about one item's tick,
    // read from an idiom (no verb of its own), presses no button its verb starts.
    if order
        .as_ref()
        .is_some_and(|o| o.verb.is_none() && matches!(o.does, Does::Check | Does::Uncheck))
    {
        return None;
    }
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

/// Verbs of pressing a control by its name, and of going to a view ("switch to the Active
/// filter", "leave it on the Active filter when you're done").
const PRESS_VERBS: &[&str] = &[
    "click on ",
    "click ",
    "press ",
    "tap on ",
    "tap ",
    "hit ",
    "push ",
    // "switch to the Active filter", "go back to All": a view chosen by its control.
    "switch back to ",
    "switch over to ",
    "switch to ",
    "go back to ",
    "go into ",
    "go to ",
    "back to ",
    "return to ",
    "finish on ",
    "end on ",
    // "leave it on the Active filter when you're done": the view the run ends on.
    "leave it on ",
    "leave the list on ",
    "leave the page on ",
    "stay on ",
    "end up on ",
    "change the view to ",
    "flip to ",
    "select ",
    "choose ",
];

/// The control a clause presses by its name ("click the Active filter", "press Save", "then
/// All again" after a press): a button, link or tab named exactly so (case aside), alone on
/// the screen. `after_press`: the clause before pressed a control, so a bare name is one too.
pub fn pressed_control(seg: &str, obs: &Observation, after_press: bool) -> Option<String> {
    let lower = seg.trim().trim_end_matches(['.', '!', '。']).to_lowercase();
    let lower = lower.strip_prefix("then ").unwrap_or(&lower);
    let verb = PRESS_VERBS.iter().find(|v| lower.starts_with(**v));
    // "切到 Active", "回到 All 看一下": a Chinese verb of going to a view.
    // "弄完停在 Active 那一页就行": where the run ends, after what it does.
    // "最后帮我切到“未完成”那里": who it is done for says nothing of the view.
    let lower = ["弄完", "做完", "改完", "完了", "最后", "帮我", "麻烦"]
        .iter()
        .fold(lower, |l, h| l.strip_prefix(h).unwrap_or(l));
    let zh = [
        "切换到",
        "切到",
        "点到",
        "回到",
        "点开",
        "点击",
        "点一下",
        "停在",
        "留在",
    ]
    .iter()
    .find(|v| lower.starts_with(**v));
    if let Some(view) = shown_view(lower, obs)
        .or_else(|| put_on_view(lower, obs))
        .or_else(|| shown_view_zh(lower, obs))
    {
        return Some(view);
    }
    let mut name = match (verb, zh) {
        (Some(v), _) => &lower[v.len()..],
        (None, Some(v)) => [
            "给我看看",
            "给我看一下",
            "给我看",
            "就行",
            "就好",
            "即可",
            "看一下",
            "看看",
            "视图",
            "页面",
            "那一栏",
            "那一页",
            "那页",
            "这一页",
            "那里",
            "那儿",
            "里",
            "上",
        ]
        .iter()
        .fold(lower[v.len()..].trim(), |n, t| {
            n.strip_suffix(t).unwrap_or(n).trim()
        }),
        (None, None) if after_press => lower,
        (None, None) => return None,
    };
    name = crate::agent::clauses::without_time_words(name);
    name = name.strip_prefix("the ").unwrap_or(name);
    for tail in [" again", " filter", " view", " button", " tab", " link"] {
        name = name.strip_suffix(tail).unwrap_or(name);
    }
    let name = ["那个筛选", "这个筛选", "筛选", "那个", "那栏"]
        .iter()
        .fold(name.trim(), |n, t| n.strip_suffix(t).unwrap_or(n).trim());
    let name = name.trim_matches(['"', '\'', '“', '”', '「', '」']);
    if name.is_empty() {
        return None;
    }
    let control = |want: &str| one_control(obs, want);
    // "切到“未完成”那个筛选": a list's view said by its meaning in Chinese, on a screen that
    // names it in English.
    control(name).or_else(|| {
        VIEW_MEANINGS
            .iter()
            .find(|(zh, _)| zh.contains(&name))
            .and_then(|(_, en)| control(en))
    })
}

/// Verbs that leave the screen on a view ("put it on the Active view", "leave it on the
/// Completed filter", "finish on the All tab").
const VIEW_VERBS: &[&str] = &[
    "put ",
    "leave ",
    "set ",
    "end on ",
    "end up on ",
    "finish on ",
    "stay on ",
    "open ",
];

/// The control a clause leaves the screen on: a [`VIEW_VERBS`] verb, then "the X view"
/// (filter, tab) with X one control of the screen. `lower`: the clause in lower case.
/// A verb other than "open" leaves the screen on the view only with "on" / "onto" / "to" /
/// "in" before it ("leave it on the Active view"; "leave the Completed tab", "set the
/// Active view aside" go elsewhere).
fn put_on_view(lower: &str, obs: &Observation) -> Option<String> {
    let verb = VIEW_VERBS.iter().find(|v| lower.starts_with(**v))?;
    [" view", " filter", " tab"].iter().find_map(|noun| {
        let at = lower.find(noun)?;
        let mut before = lower[verb.len()..at].split_whitespace().rev();
        let name = before.next()?.trim_matches(['"', '\'', '“', '”']);
        let placed = *verb == "open "
            || verb.ends_with("on ")
            || before.any(|w| ["on", "onto", "to", "in"].contains(&w));
        placed.then(|| one_control(obs, name)).flatten()
    })
}

/// English states a list's view shows, and the name such a control has.
const VIEW_STATES: &[(&[&str], &str)] = &[
    (
        &["completed", "done", "finished", "ticked", "checked"],
        "Completed",
    ),
    (
        &[
            "active",
            "open",
            "remaining",
            "unfinished",
            "outstanding",
            "incomplete",
            "unticked",
        ],
        "Active",
    ),
    (&["all", "everything"], "All"),
];

/// The view a clause asks to be shown by the state of its items ("show me only the
/// done ones", "only show the open items", "display everything"): a link, button or
/// tab so named, alone on the screen. `lower`: the clause in lower case.
fn shown_view(lower: &str, obs: &Observation) -> Option<String> {
    let rest = ["show me ", "show ", "display ", "only show ", "just show "]
        .iter()
        .find_map(|v| lower.strip_prefix(v))?;
    let rest = ["just ", "only ", "the "]
        .iter()
        .fold(rest.trim(), |r, p| r.strip_prefix(p).unwrap_or(r).trim());
    // "show me only what's still to do", "show me what's done": the items by what is left.
    let what = rest
        .trim_end_matches(['.', '!'])
        .strip_prefix("what's ")
        .or_else(|| rest.strip_prefix("what is "))
        .map(|w| w.trim_start_matches("still ").trim());
    if let Some(w) = what {
        let name = match w {
            "to do" | "left" | "left to do" | "open" | "outstanding" | "not done" => "Active",
            "done" | "finished" | "ticked" | "completed" | "sorted" => "Completed",
            _ => return None,
        };
        return one_control(obs, name);
    }
    let ws: Vec<&str> = rest.split_whitespace().collect();
    let (state, tail) = ws.split_first()?;
    let nouns = ["ones", "items", "todos", "tasks", "entries"];
    if tail.len() > 1 || tail.first().is_some_and(|t| !nouns.contains(t)) {
        return None;
    }
    let (_, name) = VIEW_STATES.iter().find(|(s, _)| s.contains(state))?;
    one_control(obs, name)
}

/// The view a Chinese clause asks to be shown by its items' state ("让页面只显示还没完成的
/// 那些", "只看打了勾的"): 只显示 / 只看 / 只留, then a state; not-done words are read
/// first (还没完成 holds 完成).
fn shown_view_zh(seg: &str, obs: &Observation) -> Option<String> {
    // 只留 keeps items in the list (a clear), it shows nothing. 只看 has a person for its
    // subject: an order only with none before it ("弄完只看…"; "老板只看…" is a habit).
    let (at, verb) = ["只显示", "只看", "只展示"]
        .iter()
        .filter_map(|v| seg.find(v).map(|i| (i, *v)))
        .min()?;
    if verb == "只看" && !imperative_before(&seg[..at]) {
        return None;
    }
    let rest = &seg[at + verb.len()..];
    let open = ["没完成", "未完成", "还没", "没做", "没打勾", "没勾", "待办"];
    let done = [
        "已完成",
        "完成了",
        "完成的",
        "做完",
        "打了勾",
        "勾了",
        "打勾的",
        "勾上的",
    ];
    let name = if open.iter().any(|w| rest.contains(w)) {
        "Active"
    } else if done.iter().any(|w| rest.contains(w)) {
        "Completed"
    } else if ["全部", "所有"].iter().any(|w| rest.contains(w)) {
        "All"
    } else {
        return None;
    };
    one_control(obs, name)
}

/// Whether `before`, the Chinese text before a verb, leaves it without a subject: empty,
/// or a sequencing word at its end (然后, 最后, 弄完, 之后).
fn imperative_before(before: &str) -> bool {
    let b = before.trim();
    b.is_empty()
        || ["然后", "最后", "完", "之后", "以后", "接着", "再", "就"]
            .iter()
            .any(|w| b.ends_with(w))
}

/// The name of the one button, link or tab on the screen named `want` (case aside); `None`
/// when there is none or several.
fn one_control(obs: &Observation, want: &str) -> Option<String> {
    let mut hits = obs.elements.iter().filter(|e| {
        matches!(e.role, Role::Button | Role::Link | Role::Tab)
            && e.name.trim().eq_ignore_ascii_case(want)
    });
    let one = hits.next()?;
    hits.next().is_none().then(|| one.name.trim().to_string())
}

/// Chinese words for a list's views, and the English name such a control has.
const VIEW_MEANINGS: &[(&[&str], &str)] = &[
    (&["全部", "所有", "全部的"], "All"),
    (
        &["未完成", "没完成", "进行中", "待办", "未完成的", "没做的"],
        "Active",
    ),
    (&["已完成", "完成", "已完成的", "做完的"], "Completed"),
];

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

#[cfg(test)]
mod tests {
    use super::super::test_support::{list, list_with, steps};
    use super::*;

    #[test]
    fn a_view_left_on_or_shown_by_state_in_chinese_is_its_tap() {
        let obs = list_with(
            &[("写作业", false), ("买菜", true)],
            &["All", "Active", "Completed"],
        );
        for (text, view) in [
            (
                "Tick the first one. When you're done, put it on the Active view.",
                "Active",
            ),
            (
                "Tick the first one, then leave it on the Completed filter.",
                "Completed",
            ),
            ("把第一条勾上。最后让页面只显示还没完成的那些。", "Active"),
            ("把第一条勾上，弄完只看打了勾的。", "Completed"),
        ] {
            let got = steps(text, &obs).unwrap();
            assert_eq!(
                got.last().map(String::as_str),
                Some(format!("tap \"{view}\"").as_str()),
                "{text}"
            );
        }
        // No view of that name, or no view asked for: no tap.
        for text in [
            "Tick the first one and put it on the shelf view.",
            "把第一条勾上。他只看书。",
            // Leaving a view, setting one aside, keeping items, someone's habit.
            "Tick the first one. Leave the Completed tab and go back to All.",
            "Tick the first one. Set the Active view aside for now.",
            "把第一条勾上，列表里只留还没做的。",
            "把第一条勾上。组长只看做完的那些。",
        ] {
            let got = steps(text, &obs).unwrap_or_default();
            // ("go back to All" is a tap asked for.)
            let stray = |s: &String| s.starts_with("tap") && s != "tap \"All\"";
            assert!(!got.iter().any(stray), "{text}: {got:?}");
        }
    }

    #[test]
    fn a_press_by_a_controls_name_taps_it() {
        let obs = crate::agent::test_screen(&[
            (Role::Link, "All"),
            (Role::Link, "Active"),
            (Role::Button, "Save"),
            (Role::Checkbox, "walk the dog"),
        ]);
        let p = |s: &str, after: bool| pressed_control(s, &obs, after);
        assert_eq!(
            p("click the Active filter", false).as_deref(),
            Some("Active")
        );
        assert_eq!(p("then All again", true).as_deref(), Some("All"));
        assert_eq!(
            p("Switch over to the Active view", false).as_deref(),
            Some("Active")
        );
        assert_eq!(p("go back to All", false).as_deref(), Some("All"));
        assert_eq!(p("go to the shops", false), None);
        assert_eq!(p("then back to All", false).as_deref(), Some("All"));
        assert_eq!(p("切到 Active 看一下", false).as_deref(), Some("Active"));
        // Read in a whole instruction too, though "back" leads no order.
        assert_eq!(
            steps(
                "Tick 'walk the dog', then back to All and make sure it is ticked.",
                &obs
            )
            .unwrap_or_default(),
            ["check \"walk the dog\"", "tap \"All\""]
        );
        assert_eq!(
            p("go into the Active view", false).as_deref(),
            Some("Active")
        );
        assert_eq!(
            p("All again", false),
            None,
            "a bare name only after a press"
        );
        assert_eq!(p("press the save button.", false).as_deref(), Some("Save"));
        // A view asked for by its items' state.
        assert_eq!(
            p("show me only the active ones", false).as_deref(),
            Some("Active")
        );
        assert_eq!(p("show me the dog", false), None);
        assert_eq!(p("click the Done filter", false), None, "no such control");
        assert_eq!(
            p("tap walk the dog", false),
            None,
            "a toggle is no control to press"
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
    fn an_item_said_to_be_gone_is_checked_off_the_screen() {
        let done_view = list(&[("buy bread", true), ("buy milk", false)]);
        assert_eq!(
            state_check(
                "make sure the bread is gone from the done view",
                &done_view,
                &[]
            ),
            None
        );
        let obs = list(&[("book the venue", false), ("print the flyers", true)]);
        assert_eq!(
            absence_check("check that no flyer task remains", &obs, &[]).as_deref(),
            Some("assert screen does not contain \"print the flyers\"")
        );
        assert_eq!(
            absence_check("make sure the venue one is gone", &obs, &[]).as_deref(),
            Some("assert screen does not contain \"book the venue\"")
        );
        // A count, a state, or no one item named: not this check.
        assert_eq!(
            absence_check("make sure no 2 items are left", &obs, &[]),
            None
        );
        assert_eq!(
            absence_check("make sure no flyer task is left unticked", &obs, &[]),
            None
        );
        assert_eq!(
            absence_check("make sure nothing else is gone", &obs, &[]),
            None
        );
        assert_eq!(
            absence_check("make sure the venue one is ticked", &obs, &[]),
            None
        );
    }

    #[test]
    fn gone_words_followed_by_more_or_said_of_a_copy_check_no_absence() {
        let obs = list(&[("renew the lease", false), ("sell the sofa", true)]);
        for said in [
            // "gone" that goes on: a payment gone through, a price gone up.
            "check the lease payment has gone through",
            "make sure the sofa price has gone down",
            // One copy of several: the item itself stays.
            "make sure there's no duplicate sofa entry left",
            "check that the lease one doesn't show up twice",
            "make sure no second lease row remains",
            // A place of its own after the words of absence.
            "make sure no sofa is left in the spare room",
        ] {
            assert_eq!(absence_check(said, &obs, &[]), None, "{said}");
        }
        assert_eq!(
            absence_check(
                "make sure the sofa one is gone from the list now",
                &obs,
                &[]
            )
            .as_deref(),
            Some("assert screen does not contain \"sell the sofa\"")
        );
    }

    #[test]
    fn a_negated_open_state_checks_nothing() {
        let obs = list(&[("renew the lease", false), ("sell the sofa", true)]);
        // "shouldn't be open" is no "is open": left to the model, not checked as open.
        assert_eq!(state_check("the lease shouldn't be open", &obs, &[]), None);
        assert_eq!(state_check("the sofa must not be active", &obs, &[]), None);
        assert_eq!(
            state_check("the lease is still not done", &obs, &[]).as_deref(),
            Some("assert \"renew the lease\" is not checked")
        );
    }
}
