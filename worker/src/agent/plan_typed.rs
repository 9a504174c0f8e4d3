//! What a plan types and expects, held to the instruction's own words: a typed text is spelt
//! as the instruction spells it, an item the instruction adds is submitted, nothing typed into
//! a password box is expected on the screen, and an expectation the planner maps for a
//! clause names something that clause says.
//!
//! Why (measured with Qwen2.5-Coder-1.5B): "I'm priya_r" was typed as `Priya_r` (the form
//! took the wrong user); "add 'X' to the list" was typed into the new-item box and never
//! submitted; and "make sure the password goes in right" became `assert screen contains
//! "<the password>"`, which a masked box can never show (the run failed with the form right);
//! "make sure 'X' is the only open item left" was mapped to `assert screen contains "46"`
//! and to the other items' names.

use super::effects;
use super::plan_fix::as_script_line;
use argus_perception::Observation;
use argus_protocol::{Action, Aim};
use chrono::Datelike;

/// The text and the target's name of a `type` line (target `None`: the focused field).
pub(super) fn typing(step: &str) -> Option<(String, Option<String>)> {
    match as_script_line(step)? {
        Action::Type { text, target } => {
            let name = match target {
                Aim::Target(t) => Some(t.name),
                _ => None,
            };
            Some((text, name))
        }
        _ => None,
    }
}

/// The plan with each typed text that the instruction holds only in another case (and holds
/// exactly once that way, as a whole word) spelt as the instruction spells it; the number
/// changed.
pub fn as_written(steps: Vec<String>, task: &str) -> (Vec<String>, usize) {
    let mut changed = 0;
    let fields: Vec<String> = steps
        .iter()
        .filter_map(|s| typing(s).and_then(|(_, f)| f))
        .collect();
    // "Name: Anna. Note: back soon. Keep the full stop.": which text keeps it is unsure
    // when several are typed.
    let one_typed = steps.iter().filter(|s| typing(s).is_some()).count() == 1;
    let steps = steps
        .into_iter()
        .map(|s| {
            let Some((text, field)) = typing(&s) else {
                return s;
            };
            if let Some(button) = field.as_deref().filter(|f| sends_by_name(f, &text)) {
                // `type "submit" into "Submit"`: the model meant to press it.
                changed += 1;
                return format!("tap {}", super::clauses::quote_line(button));
            }
            let year = four_digit_year(&text, field.as_deref(), task);
            let whole = cut_short(task, &text)
                .then(|| whole_token(task, &text))
                .flatten();
            // "内容是：X。就这十二个字，前后不要加引号": the model copied how to write it too.
            let described = super::typed_tail::described_tail(&text, says_keep_full_stop(task))
                .filter(|head| task.contains(head.as_str()));
            let unstopped = says_no_full_stop(task)
                .then(|| text.strip_suffix(['。', '.', '．']).map(str::to_string))
                .flatten();
            // "Username's X, no wait, … Y", "X, capital P": the value meant.
            let others: Vec<String> = fields
                .iter()
                .filter(|f| {
                    field
                        .as_ref()
                        .is_none_or(|own| !own.eq_ignore_ascii_case(f))
                })
                .cloned()
                .collect();
            let owned = super::typed_value::own_value(task, &text, field.as_deref(), &others);
            // "word for word: X, Y." typed as "X": the whole dictated text.
            let whole_text = super::typed_whole::dictated_whole(task, &text);
            match year
                .or(whole_text)
                .or(owned)
                .or(described)
                .or(unstopped)
                .or_else(|| one_typed.then(|| stop_kept(task, &text)).flatten())
                .or_else(|| one_typed.then(|| mark_kept(task, &text)).flatten())
                .or(whole)
                .or_else(|| spelt_in(task, &text))
            {
                Some(own) if own != text => {
                    let q = super::clauses::quote_line;
                    let fixed = if s.contains(&q(&text)) {
                        s.replacen(&q(&text), &q(&own), 1)
                    } else {
                        s.replacen(&text, &own, 1)
                    };
                    if typing(&fixed).is_some_and(|(t, _)| t == own) {
                        changed += 1;
                        fixed
                    } else {
                        s
                    }
                }
                _ => s,
            }
        })
        .collect();
    (steps, changed)
}

/// Whether a typing of `text` into the control named `field` is a press of a form's send
/// control written as a typing: the text is the control's own name, and that name a send
/// word ("Submit", "Log in", "提交").
fn sends_by_name(field: &str, text: &str) -> bool {
    let name = field.trim().to_lowercase();
    name == text.trim().to_lowercase()
        && [
            "submit", "send", "save", "ok", "login", "log in", "sign in", "search", "提交", "登录",
            "发送", "保存", "确定",
        ]
        .contains(&name.as_str())
}

/// Whether a planner check, mapped for a clause it does not name, expects a text the screen
/// shows now to be gone (`assert screen does not contain "Login"` for "double-check the
/// username has no trailing space"): a guess that the page will change, which the clause
/// never said. Measured: such a guess failed a login whose form was right.
pub fn guesses_a_change(line: &str, obs: &Observation) -> bool {
    let Some(Action::AssertNotContains { text }) = as_script_line(line) else {
        return false;
    };
    let text = text.trim().to_lowercase();
    !text.is_empty()
        && obs
            .elements
            .iter()
            .any(|e| e.labels().any(|l| l.trim().to_lowercase() == text))
}

/// Words saying a year is to be written whole ("框里要写成四位数", "all four digits").
const FOUR_DIGITS: &[&str] = &[
    "four digits",
    "4 digits",
    "four-digit",
    "4-digit",
    "all four",
    "full year",
    "四位",
];

/// A two-digit year typed into a year field ("Year", "出版年份") when the instruction says
/// to write it with four digits: the whole year, in the century that puts it at most this
/// year ("05" → "2005", "87" → "1987"). `None` otherwise.
pub(super) fn four_digit_year(text: &str, field: Option<&str>, task: &str) -> Option<String> {
    let field = field?.to_lowercase();
    let says = FOUR_DIGITS.iter().any(|w| task.to_lowercase().contains(w));
    let two = text.len() == 2 && text.chars().all(|c| c.is_ascii_digit());
    if !(says && two && (field.contains("year") || field.contains('年'))) {
        return None;
    }
    let n: i32 = text.parse().ok()?;
    let now = chrono::Utc::now().year() % 100;
    Some(format!("{}", if n <= now { 2000 + n } else { 1900 + n }))
}

/// Words for a full stop; words before one that leave it out ("不要句号", "without the full
/// stop", "leave off the period"), and words after one that do ("句号不要", "the full stop
/// off").
const FULL_STOPS: &[&str] = &["句号", "full stop", "full-stop", "period"];
const LEAVE_OUT_BEFORE: &[&str] = &[
    "不要",
    "不用",
    "别",
    "不加",
    "不带",
    "没有",
    "去掉",
    "省略",
    "不打",
    "no ",
    "without",
    "leave off",
    "leave out",
    "drop",
    "skip",
    "omit",
    "don't",
    "do not",
    "not ",
    "instead of",
    "rather than",
    "代替",
];
const LEAVE_OUT_AFTER: &[&str] = &[
    "不要", "不用", "别", "去掉", "省略", "换成", "改成", " off", " out",
];

/// Words near a [`FULL_STOPS`] word that say to keep it ("句号也要带上", "keep the full stop").
const KEEP: &[&str] = &[
    "带上",
    "保留",
    "也要",
    "要带",
    "留着",
    "都用",
    "全角",
    "keep",
    "include",
    "with the",
    " after the",
    "at the end",
    // "逗号句号都是中文标点": the stop is the Chinese one, so there is one.
    "都是中文",
];

/// Whether `task` says to keep the full stop in what is typed: a [`FULL_STOPS`] word with a
/// [`KEEP`] word in the 10 characters before it or starting within the 10 after it ("a full
/// stop at the end"), and no word of leaving it out ([`says_no_full_stop`]).
pub(super) fn says_keep_full_stop(task: &str) -> bool {
    if says_no_full_stop(task) {
        return false;
    }
    let lower = task.to_lowercase();
    // "finish with a full stop" ("replace the full stop with a comma" is no such phrase).
    if ["with a full stop", "with a full-stop", "with a period"]
        .iter()
        .any(|p| lower.contains(p))
    {
        return true;
    }
    let chars: Vec<char> = lower.chars().collect();
    FULL_STOPS.iter().any(|stop| {
        let s: Vec<char> = stop.chars().collect();
        (0..(chars.len() + 1).saturating_sub(s.len()))
            .filter(|&i| chars[i..i + s.len()] == s[..])
            .any(|i| {
                let before: String = chars[i.saturating_sub(10)..i].iter().collect();
                let end = i + s.len();
                let after: String = chars[end..(end + 24).min(chars.len())].iter().collect();
                KEEP.iter().any(|w| {
                    before.contains(w)
                        || after
                            .find(w)
                            .is_some_and(|at| after[..at].chars().count() <= 10)
                })
            })
    })
}

/// `text` with the full stop the instruction gives it after it ("打这句：X。…末尾句号要带
/// 上" typed as `X`), when `task` says to keep the full stop ([`says_keep_full_stop`]) and
/// holds the text followed by one; `None` otherwise.
fn stop_kept(task: &str, text: &str) -> Option<String> {
    if text.is_empty() || text.ends_with(['。', '.', '．']) || !says_keep_full_stop(task) {
        return None;
    }
    ['。', '.', '．']
        .iter()
        .map(|stop| format!("{text}{stop}"))
        .find(|stopped| task.contains(stopped.as_str()))
}

/// Exclamation and question marks, and the words that name them.
const OTHER_MARKS: &[(&[char], &[&str])] = &[
    (&['！', '!'], &["感叹号", "叹号", "exclamation"]),
    (&['？', '?'], &["问号", "question mark"]),
];

/// `text` with the exclamation or question mark the instruction gives it after it, when
/// the instruction names that mark ("逗号和感叹号都用中文全角的", "with an exclamation mark at
/// the end") and does not say to leave it out: unlike a full stop, such a mark after a
/// dictated text that the instruction speaks of is the text's own. `None` otherwise.
fn mark_kept(task: &str, text: &str) -> Option<String> {
    let lower = task.to_lowercase();
    OTHER_MARKS.iter().find_map(|(marks, words)| {
        if text.ends_with(*marks)
            || !words.iter().any(|w| lower.contains(w))
            || says_no(task, words)
        {
            return None;
        }
        marks
            .iter()
            .map(|m| format!("{text}{m}"))
            .find(|marked| task.contains(marked.as_str()))
    })
}

/// Whether `task` says to leave the full stop out of what is typed: a [`FULL_STOPS`] word
/// with a [`LEAVE_OUT_BEFORE`] word in the 16 characters before it or a [`LEAVE_OUT_AFTER`]
/// word in the 8 after. A typed text that ends with a full stop then loses it (the model
/// copied the instruction's own sentence end: "敲一行字：X。就这几个字，句号不要" typed `X。`).
pub(super) fn says_no_full_stop(task: &str) -> bool {
    says_no(task, FULL_STOPS)
}

/// Whether `task` says to leave out the mark one of `words` names ([`says_no_full_stop`]).
fn says_no(task: &str, words: &[&str]) -> bool {
    let lower = task.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    let near =
        |from: usize, to: usize| -> String { chars[from..to.min(chars.len())].iter().collect() };
    words.iter().any(|stop| {
        let s: Vec<char> = stop.chars().collect();
        (0..(chars.len() + 1).saturating_sub(s.len()))
            .filter(|&i| chars[i..i + s.len()] == s[..])
            .any(|i| {
                let before = near(i.saturating_sub(16), i);
                let after = near(i + s.len(), i + s.len() + 8);
                LEAVE_OUT_BEFORE.iter().any(|w| before.contains(w))
                    || LEAVE_OUT_AFTER.iter().any(|w| after.contains(w))
            })
    })
}

/// `text` as `task` spells it: itself when the task holds it exactly; the one whole-word
/// occurrence that differs only in case otherwise; `None` when neither.
pub(super) fn spelt_in(task: &str, text: &str) -> Option<String> {
    if text.trim().is_empty() || task.contains(text) {
        return Some(text.to_string());
    }
    let lower_task = task.to_lowercase();
    let lower = text.to_lowercase();
    // Lower-casing must keep byte offsets (ASCII and most scripts do).
    if lower_task.len() != task.len() || lower.len() != text.len() {
        return None;
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let hits: Vec<usize> = lower_task
        .match_indices(&lower)
        .map(|(i, _)| i)
        .filter(|&i| {
            !word(task[..i].chars().next_back()) && !word(task[i + text.len()..].chars().next())
        })
        .collect();
    match hits.as_slice() {
        [i] => task.get(*i..*i + text.len()).map(str::to_string),
        _ => None,
    }
}

/// Characters that join the parts of one token a user types whole (`d.moreau`,
/// `ann@example.com`, `kim_lee`, `x-9`).
const JOINERS: &[char] = &['.', '@', '_', '-', '+', '/', '\''];

/// Whether `text` is cut short: the task holds it only inside a longer token
/// ([`JOINERS`] joining it to more letters or digits: `d` of `d.moreau`), never alone.
pub(super) fn cut_short(task: &str, text: &str) -> bool {
    let text = text.trim();
    if text.is_empty() || !task.contains(text) {
        return false;
    }
    let alnum = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    task.match_indices(text).all(|(i, _)| {
        let before = &task[..i];
        let after = &task[i + text.len()..];
        let mut b = before.chars().rev();
        let mut a = after.chars();
        let (b1, b2) = (b.next(), b.next());
        let (a1, a2) = (a.next(), a.next());
        alnum(b1)
            || alnum(a1)
            || (b1.is_some_and(|c| JOINERS.contains(&c)) && alnum(b2))
            || (a1.is_some_and(|c| JOINERS.contains(&c)) && alnum(a2))
    })
}

/// The one longer token of `task` that `text` is cut from at a [`JOINERS`] character
/// (`d` → `d.moreau`); `None` when there is none or several. An occurrence inside a word
/// ("d" of "double") does not count.
pub(super) fn whole_token(task: &str, text: &str) -> Option<String> {
    let text = text.trim();
    let chars: Vec<(usize, char)> = task.char_indices().collect();
    let at = |b: usize| chars.iter().position(|(i, _)| *i == b);
    let part = |k: usize| chars.get(k).is_some_and(|(_, c)| c.is_alphanumeric());
    let joins = |k: usize| chars.get(k).is_some_and(|(_, c)| JOINERS.contains(c));
    let mut found: Vec<String> = Vec::new();
    for (b, _) in task.match_indices(text) {
        let Some(start) = at(b) else { continue };
        let end = start + text.chars().count();
        if (start > 0 && part(start - 1)) || part(end) {
            continue;
        }
        let mut l = start;
        while l >= 2 && joins(l - 1) && part(l - 2) {
            l -= 2;
            while l > 0 && part(l - 1) {
                l -= 1;
            }
        }
        let mut r = end;
        while joins(r) && part(r + 1) {
            r += 2;
            while part(r) {
                r += 1;
            }
        }
        let from = chars[l].0;
        let to = chars.get(r).map_or(task.len(), |(i, _)| *i);
        let token = task[from..to].to_string();
        if token != text && !found.contains(&token) {
            found.push(token);
        }
    }
    match found.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The plan with `press Enter` after each typing of an item the instruction adds ("add 'X'",
/// "put 'X' on the list", "记一条“X”") that nothing submits (the next step is no key press
/// and no tap); the number added.
pub fn adds_submitted(steps: Vec<String>, task: &str) -> (Vec<String>, usize) {
    let added = effects::added(task);
    if added.is_empty() {
        return (steps, 0);
    }
    let mut out = Vec::with_capacity(steps.len() + 2);
    let mut n = 0;
    for (k, s) in steps.iter().enumerate() {
        out.push(s.clone());
        let Some((text, _)) = typing(s) else { continue };
        if !added.iter().any(|a| a.eq_ignore_ascii_case(text.trim())) {
            continue;
        }
        // A tap on the typed text itself lands on the field that holds it: no submit.
        let submits = steps
            .get(k + 1)
            .and_then(|n| as_script_line(n))
            .is_some_and(|a| match a {
                Action::Key { .. } => true,
                Action::Tap { target } | Action::DoubleTap { target } => {
                    !matches!(target, Aim::Target(t) if t.name.trim().eq_ignore_ascii_case(text.trim()))
                }
                _ => false,
            });
        if !submits {
            out.push("press Enter".to_string());
            n += 1;
        }
    }
    (out, n)
}

/// Words a password box's label holds (a field the accessibility tree does not mark as one:
/// Chromium's tree has no such property, it only shows the value as dots).
const PASSWORD_WORDS: &[&str] = &[
    "password",
    "passcode",
    "passwort",
    "mot de passe",
    "密码",
    "口令",
];

/// Whether an expectation line looks for a text the plan types into a password box (which
/// shows only dots): such a line can never hold.
pub fn expects_a_password(line: &str, steps: &[String], obs: &Observation) -> bool {
    let Some(Action::AssertContains { text }) = as_script_line(line) else {
        return false;
    };
    steps.iter().filter_map(|s| typing(s)).any(|(typed, name)| {
        typed == text
            && name.is_some_and(|n| {
                let n = crate::resolve::name_key(&n);
                PASSWORD_WORDS.iter().any(|w| n.contains(w))
                    || obs.elements.iter().any(|e| {
                        e.password.is_yes() && e.labels().any(|l| crate::resolve::name_key(l) == n)
                    })
            })
    })
}

/// English words that forbid what follows them ("hold off on clicking Login").
const NOT_EN: &[&str] = &[
    "don't ",
    "do not ",
    "never ",
    "hold off",
    "not yet",
    "without ",
    "no need to ",
    "avoid ",
];
/// Chinese ones ("先别点 Submit").
const NOT_ZH: &[&str] = &["先别", "别", "不要", "不用", "暂时不"];
/// Verbs that press a control.
const PRESS_EN: &[&str] = &[
    "clicking",
    "click",
    "pressing",
    "press",
    "tapping",
    "tap",
    "hitting",
    "hit",
    "submitting",
    "submit",
    "sending",
    "send",
];
const PRESS_ZH: &[&str] = &["点击", "点", "按", "提交"];

/// Words before a Chinese negation that take it back ("不是叫你别提交": it is not an order
/// not to submit).
const UNSAID_ZH: &[&str] = &["不是叫你", "不是让你", "不是要你", "不是说", "并不是"];

/// Whether the English text before a negation takes it back ("this is not telling you not
/// to submit", "it doesn't mean don't send it").
fn unsaid_en(before: &str) -> bool {
    let b = before.trim_end();
    [
        "not telling you",
        "not asking you",
        "doesn't mean",
        "does not mean",
        "not saying",
    ]
    .iter()
    .any(|u| b.ends_with(u) || b.ends_with(&format!("{u} to")))
}

/// Whether the words between a negation and its press verb make it a reminder ("don't
/// forget to click Save", "别忘了提交", "never fail to send it"): an order to press.
fn forgets(between: &str) -> bool {
    ["forget", "fail to", "hesitate", "忘"]
        .iter()
        .any(|w| between.contains(w))
}

/// Whether the rest of a negated submit / send clause limits when or how often, not
/// whether ("don't submit it twice", "… until the email is in", "… before Friday",
/// "never send it without the total"): the control itself is no forbidden one.
fn limited(rest: &str) -> bool {
    rest.split(|c: char| !c.is_alphanumeric()).any(|w| {
        [
            "until", "till", "before", "unless", "twice", "again", "without", "once",
        ]
        .contains(&w)
    })
}

/// Names of the controls `task` says not to press: the word after a press verb that follows a
/// negation in the same clause ("… but hold off on clicking Login" → `login`; "don't submit
/// it" → `submit`; "先别点 Submit" → `submit`), lower-case.
pub fn forbidden_presses(task: &str) -> Vec<String> {
    let mut out = Vec::new();
    for seg in super::clauses::segments(task)
        .iter()
        .flat_map(|s| effects::split_but(s))
    {
        // A quoted text is what to type ("输入“先别提交，等审批”"), not an order.
        let seg = super::clauses::without_quotes(&seg);
        let lower = seg.to_lowercase();
        if let Some(at) = NOT_EN
            .iter()
            .filter_map(|n| lower.find(n))
            .filter(|&at| !unsaid_en(&lower[..at]))
            .min()
        {
            let rest = &lower[at..];
            if let Some((p, verb)) = PRESS_EN
                .iter()
                .filter_map(|v| {
                    rest.find(&format!("{v} "))
                        .or_else(|| rest.ends_with(v).then(|| rest.len() - v.len()))
                        .map(|i| (i, *v))
                })
                .min_by_key(|(i, v)| (*i, usize::MAX - v.len()))
            {
                let after = rest[p + verb.len()..]
                    .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
                    .find(|w| {
                        !w.is_empty() && !["on", "the", "a", "it", "yet", "button"].contains(w)
                    });
                // "don't submit anything", "don't send the form yet": these verbs take
                // what is sent as their object; the control is the verb's own — unless
                // the negation is of forgetting or of a time or a repeat ("don't forget to
                // submit", "don't submit it twice", "don't send it until …").
                let own = ["submit", "send"].into_iter().find(|v| verb.starts_with(v));
                let banned = match own {
                    _ if forgets(&rest[..p]) => None,
                    Some(_) if limited(&rest[p..]) => None,
                    Some(v) => Some(v),
                    None => after,
                };
                out.extend(banned.map(str::to_string));
            }
        }
        if let Some(at) = NOT_ZH
            .iter()
            .filter_map(|n| seg.find(n))
            .filter(|&at| !UNSAID_ZH.iter().any(|u| seg[..at].ends_with(u)))
            .min()
        {
            let rest = &seg[at..];
            if let Some((p, verb)) = PRESS_ZH
                .iter()
                .filter_map(|v| rest.find(v).map(|i| (i, *v)))
                .min()
                .filter(|(p, _)| !forgets(&rest[..*p]))
            {
                let after: String = rest[p + verb.len()..]
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() && !effects::is_cjk(*c))
                    .collect();
                if !after.is_empty() {
                    out.push(after.to_lowercase());
                } else if verb == "提交" {
                    out.push("submit".into());
                    out.push("提交".into());
                }
            }
        }
    }
    out
}

/// The plan without taps on a control the instruction says not to press
/// ([`forbidden_presses`]); the number dropped. Measured: "fill it in, but hold off on
/// clicking Login" was planned with `tap "Login"` as its last step.
pub fn without_forbidden_taps(steps: Vec<String>, task: &str) -> (Vec<String>, usize) {
    let names = forbidden_presses(task);
    if names.is_empty() {
        return (steps, 0);
    }
    let before = steps.len();
    let kept: Vec<String> = steps
        .into_iter()
        .filter(|s| match as_script_line(s) {
            Some(Action::Tap { target }) | Some(Action::DoubleTap { target }) => {
                let n = aim_name(&target).to_lowercase();
                !names
                    .iter()
                    .any(|f| n == *f || n.split_whitespace().next() == Some(f.as_str()))
            }
            _ => true,
        })
        .collect();
    let dropped = before - kept.len();
    (kept, dropped)
}

/// Whether a check line the planner mapped for `clauses` names something they say: a word
/// or number of the text it looks for, or of the element it reads, is one of theirs (number
/// words count as digits; Chinese by a shared pair of characters).
pub fn names_the_clause(line: &str, clauses: &str) -> bool {
    let texts: Vec<String> = match as_script_line(line) {
        Some(Action::AssertContains { text })
        | Some(Action::AssertNotContains { text })
        | Some(Action::AssertCount { text, .. }) => vec![text],
        Some(Action::AssertChecked { target, .. }) => vec![aim_name(&target)],
        Some(Action::AssertValue { target, value }) => vec![aim_name(&target), value],
        _ => return true,
    };
    let mut said = super::clause_plan::words(clauses);
    let lower = clauses.to_lowercase();
    for (word, digit) in super::count_items::NUMBER_WORDS {
        if lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| w == *word)
        {
            said.push(digit.to_string());
        }
    }
    texts
        .iter()
        .flat_map(|t| super::clause_plan::words(t))
        .any(|w| said.contains(&w))
}

/// Whether a check line the planner mapped for `clauses` looks for a word that neither they
/// nor the screen `obs` the plan was made on hold (numbers aside): a text the model made up
/// ("列表剩三条" → `assert screen contains "3 unread"`, a page that never says "unread").
pub fn made_up(line: &str, clauses: &str, obs: &Observation) -> bool {
    let text = match as_script_line(line) {
        Some(Action::AssertContains { text }) | Some(Action::AssertCount { text, .. }) => text,
        _ => return false,
    };
    let said = super::clause_plan::words(clauses);
    if made_up_count(&text, clauses, obs) {
        return true;
    }
    text.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|t| !t.is_empty() && !t.chars().all(|c| c.is_ascii_digit()))
        .filter(|t| !t.chars().any(super::effects::is_cjk))
        .any(|t| {
            let w = super::clause_plan::words(t);
            !w.is_empty()
                && !w
                    .iter()
                    .all(|x| said.iter().any(|y| super::clause_plan::same_word(x, y)))
                && !obs.contains_text(t)
        })
}

/// Whether a check line the planner mapped for `clauses` is a guess the run must not rest
/// on: a text cut off with "..." (copied from the page, not said), a field value the clauses
/// never give, or a toggle's state for an item the run's other expectations (`known`, the
/// read plan's end state among them) say is gone.
pub fn guessed(line: &str, clauses: &str, known: &[String]) -> bool {
    match as_script_line(line) {
        Some(Action::AssertContains { text }) | Some(Action::AssertNotContains { text }) => {
            let t = text.trim_end();
            t.ends_with("...") || t.ends_with('…')
        }
        Some(Action::AssertValue { value, .. }) => !clauses
            .to_lowercase()
            .contains(&value.trim().to_lowercase()),
        Some(Action::AssertChecked { target, .. }) => {
            let gone = format!(
                "assert screen does not contain {}",
                super::clauses::quote_line(&aim_name(&target))
            );
            known.contains(&gone)
        }
        _ => false,
    }
}

/// Whether a count the planner wrote ("2 todos", "3 items left") is worded by guess: its
/// noun follows no number on the screen (the page never writes "N todos"), or it says
/// `left` / `remaining` where the clauses count something else ("end up with three
/// entries": every item, not the ones left open).
fn made_up_count(text: &str, clauses: &str, obs: &Observation) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let Some(k) = words
        .iter()
        .position(|w| w.chars().all(|c| c.is_ascii_digit()))
    else {
        return false;
    };
    let Some(noun) = words.get(k + 1).map(|n| n.to_lowercase()) else {
        return false;
    };
    if !noun.chars().all(char::is_alphabetic) {
        return false;
    }
    let lower = clauses.to_lowercase();
    let says_left = |s: &str| {
        s.split(|c: char| !c.is_alphanumeric())
            .any(|w| w == "left" || w == "remaining" || w == "remain")
            || s.contains('剩')
    };
    if says_left(&text.to_lowercase()) && !says_left(&lower) {
        return true;
    }
    // The screen's own counts: each word that follows a number in its text.
    let screen = obs.text.to_lowercase();
    let shown: Vec<&str> = screen.split_whitespace().collect();
    let counted = shown.windows(2).any(|w| {
        w[0].chars().all(|c| c.is_ascii_digit())
            && w[1].trim_matches(|c: char| !c.is_alphabetic()) == noun
    });
    !counted
}

/// Whether a text check already holds on `obs` (`false` for checks that need the resolver).
pub fn holds_already(line: &str, obs: &Observation) -> bool {
    match as_script_line(line) {
        Some(Action::AssertContains { text }) => obs.contains_text(&text),
        Some(Action::AssertNotContains { text }) => !obs.contains_text(&text),
        _ => false,
    }
}

fn aim_name(aim: &Aim) -> String {
    match aim {
        Aim::Target(t) => t.name.clone(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn typed_texts_are_spelt_as_the_instruction_spells_them() {
        let task = "Log me in: I'm jo_k and the password is Tulip3.";
        let (p, n) = as_written(
            v(&[
                "type \"Jo_k\" into \"Username\"",
                "type \"Tulip3\" into \"Password\"",
                "tap \"Login\"",
            ]),
            task,
        );
        assert_eq!(n, 1);
        assert_eq!(p[0], "type \"jo_k\" into \"Username\"");
        assert_eq!(p[1], "type \"Tulip3\" into \"Password\"");
        // Not a whole word of the task, or twice in other cases: left alone.
        let (p, n) = as_written(v(&["type \"Jo\" into \"Username\""]), task);
        assert_eq!((p[0].as_str(), n), ("type \"Jo\" into \"Username\"", 0));
        let (_, n) = as_written(v(&["type \"ab\" into \"X\""]), "type aB or Ab");
        assert_eq!(n, 0);
    }

    #[test]
    fn a_dictated_text_is_typed_whole_and_a_send_word_typed_into_its_button_pressed() {
        let task = "Put this in, word for word: Gate B closed, use gate C. Then send it.";
        let (p, n) = as_written(
            v(&[
                "type \"Gate B closed\" into \"Note\"",
                "type \"submit\" into \"Submit\"",
            ]),
            task,
        );
        assert_eq!(n, 2);
        assert_eq!(p[0], "type \"Gate B closed, use gate C\" into \"Note\"");
        assert_eq!(p[1], "tap \"Submit\"");
        // A value that is a field's own name but no send word stays a typing.
        let (p, _) = as_written(v(&["type \"Name\" into \"Name\""]), "type Name");
        assert_eq!(p[0], "type \"Name\" into \"Name\"");
    }

    #[test]
    fn a_value_is_corrected_only_by_its_own_fields_words() {
        let task = "Username's frontdesk.3, no wait, this one is frontdesk.2. Password is \
                    Pelican!Row8, capital P and capital R.";
        let (p, n) = as_written(
            v(&[
                "type \"Username's frontdesk.3\" into \"Username\"",
                "type \"Pelican!Row8, capital P and capital R\" into \"Password\"",
            ]),
            task,
        );
        assert_eq!(n, 2);
        assert_eq!(p[0], "type \"frontdesk.2\" into \"Username\"");
        assert_eq!(p[1], "type \"Pelican!Row8\" into \"Password\"");
        // The password named after an aside is the password's, not a corrected username.
        let plan = v(&[
            "type \"anna.b\" into \"Username\"",
            "type \"anna.b99\" into \"Password\"",
        ]);
        let task = "Log in as anna.b, actually her password is anna.b99.";
        assert_eq!(as_written(plan.clone(), task), (plan, 0));
    }

    #[test]
    fn a_two_digit_year_is_typed_whole_when_the_instruction_says_four_digits() {
        let task = "出版年份是98年的，框里写四位数。";
        let (p, n) = as_written(v(&["type \"98\" into \"Year\""]), task);
        assert_eq!((p[0].as_str(), n), ("type \"1998\" into \"Year\"", 1));
        let task = "from '03, the year box wants all four digits";
        let (p, _) = as_written(v(&["type \"03\" into \"Year\""]), task);
        assert_eq!(p[0], "type \"2003\" into \"Year\"");
        // Not a year field, or nothing said of four digits: as typed.
        let (p, n) = as_written(v(&["type \"03\" into \"Room\""]), task);
        assert_eq!((p[0].as_str(), n), ("type \"03\" into \"Room\"", 0));
        let (_, n) = as_written(v(&["type \"03\" into \"Year\""]), "year 03");
        assert_eq!(n, 0);
    }

    #[test]
    fn a_full_stop_the_instruction_leaves_out_is_not_typed() {
        let task = "在框里输入：下周一交报告。只要这几个字，不要句号，然后提交。";
        let (p, n) = as_written(v(&["type \"下周一交报告。\" into \"Text\""]), task);
        assert_eq!(
            (p[0].as_str(), n),
            ("type \"下周一交报告\" into \"Text\"", 1)
        );
        let task = "Enter: see you at noon. Leave off the full stop, then hit send.";
        let (p, _) = as_written(v(&["type \"see you at noon.\""]), task);
        assert_eq!(p[0], "type \"see you at noon\"");
        // Said of nothing, a full stop stays.
        let task = "Enter: see you at noon. Then hit send.";
        let (p, n) = as_written(v(&["type \"see you at noon.\""]), task);
        assert_eq!((p[0].as_str(), n), ("type \"see you at noon.\"", 0));
        assert!(!says_no_full_stop("Book it for the whole period, no rush."));
    }

    #[test]
    fn a_full_stop_the_instruction_keeps_is_typed() {
        let task = "框里写：明天停水一天。句尾的句号也要带上，然后提交。";
        let (p, n) = as_written(v(&["type \"明天停水一天\" into \"Text\""]), task);
        assert_eq!(
            (p[0].as_str(), n),
            ("type \"明天停水一天。\" into \"Text\"", 1)
        );
        let task = "Type: lift is out of order. Keep the full stop at the end.";
        let (p, _) = as_written(v(&["type \"lift is out of order\""]), task);
        assert_eq!(p[0], "type \"lift is out of order.\"");
        // Nothing said of the stop: as typed.
        let task = "框里写：明天停水一天。然后提交。";
        let (p, n) = as_written(v(&["type \"明天停水一天\" into \"Text\""]), task);
        assert_eq!(
            (p[0].as_str(), n),
            ("type \"明天停水一天\" into \"Text\"", 0)
        );
    }

    #[test]
    fn a_value_spelt_out_after_it_is_typed_without_the_spelling() {
        let task =
            "新的 Wi-Fi 密码是 Maple_2291：M 大写，中间一个下划线，最后是 2291。两个框都填。";
        let line = "type \"Maple_2291：M 大写，中间一个下划线，最后是 2291\" into \"Password\"";
        let (p, n) = as_written(v(&[line]), task);
        assert_eq!(
            (p[0].as_str(), n),
            ("type \"Maple_2291\" into \"Password\"", 1)
        );
        let task = "Type this and send it: Keys are under the mat, door 4. Capital K, a comma before door, and a full stop after the 4.";
        let line = "type \"Keys are under the mat, door 4. Capital K, a comma before door, and a full stop after the 4.\" into \"Text\"";
        let (p, _) = as_written(v(&[line]), task);
        assert_eq!(
            p[0],
            "type \"Keys are under the mat, door 4.\" into \"Text\""
        );
        let task = "框里打：周六下午两点在西门集合。数字用阿拉伯数字，逗号和句号都用中文的。";
        let (p, _) = as_written(v(&["type \"周六下午两点在西门集合\" into \"Text\""]), task);
        assert_eq!(p[0], "type \"周六下午两点在西门集合。\" into \"Text\"");
    }

    #[test]
    fn an_exclamation_mark_the_instruction_speaks_of_is_typed() {
        let task = "在框里打：周六上午九点操场见！感叹号用全角。然后提交。";
        let (p, n) = as_written(v(&["type \"周六上午九点操场见\" into \"Text\""]), task);
        assert_eq!(
            (p[0].as_str(), n),
            ("type \"周六上午九点操场见！\" into \"Text\"", 1)
        );
        // Not named, or named to be left out: as typed.
        for task in [
            "在框里打：周六上午九点操场见！然后提交。",
            "Type: see you at nine! Leave off the exclamation mark, then submit.",
        ] {
            let text = if task.starts_with('T') {
                "see you at nine"
            } else {
                "周六上午九点操场见"
            };
            let line = format!("type \"{text}\" into \"Text\"");
            let (p, n) = as_written(v(&[line.as_str()]), task);
            assert_eq!((p[0].as_str(), n), (line.as_str(), 0), "{task}");
        }
    }

    #[test]
    fn a_reminder_or_a_limit_forbids_no_control() {
        for task in [
            "Enter the postcode, and don't forget to hit Save at the end.",
            "Fill in the amount, then submit. Don't submit it twice, it charges again.",
            "Put both dates in and do not submit until the end date is there.",
            "Write the note; never send it without the total in it.",
            "填好邮编，别忘了提交。",
        ] {
            assert!(forbidden_presses(task).is_empty(), "{task}");
        }
        // A plain ban stays one.
        assert_eq!(
            forbidden_presses("Fill the amount in, but do not submit it."),
            vec!["submit"]
        );
        assert_eq!(
            forbidden_presses("填好邮编，先别提交。"),
            vec!["submit", "提交"]
        );
    }

    #[test]
    fn a_mark_the_instruction_replaces_is_not_typed() {
        for (task, text) in [
            (
                "Could you type running late? Use a full stop instead of a question mark.",
                "running late",
            ),
            ("输入：马上到？问号换成句号。", "马上到"),
        ] {
            let line = format!("type \"{text}\" into \"Text\"");
            let (p, n) = as_written(v(&[line.as_str()]), task);
            assert_eq!((p[0].as_str(), n), (line.as_str(), 0), "{task}");
        }
    }

    #[test]
    fn a_control_the_instruction_forbids_is_not_pressed() {
        assert_eq!(
            forbidden_presses("Fill it in as 'jo', but hold off on clicking Login. I'll check."),
            vec!["login"]
        );
        assert_eq!(
            forbidden_presses("Type 'hi' into the box but don't submit it."),
            vec!["submit"]
        );
        assert_eq!(
            forbidden_presses("把表填好，先别点 Submit。"),
            vec!["submit"]
        );
        assert!(forbidden_presses("Fill in the form and press Submit.").is_empty());
        // What is sent is the verb's object, not a control's name.
        assert_eq!(
            forbidden_presses("Put the three values in, but don't submit anything yet."),
            vec!["submit"]
        );
        assert_eq!(
            forbidden_presses("Write the reply and leave it; do not send the message."),
            vec!["send"]
        );
        let (p, n) = without_forbidden_taps(
            v(&["type \"jo\" into \"User\"", "tap \"Login\""]),
            "Fill it in as 'jo', but hold off on clicking Login.",
        );
        assert_eq!((p, n), (v(&["type \"jo\" into \"User\""]), 1));
    }

    #[test]
    fn a_password_is_never_expected_on_the_screen() {
        let obs = argus_perception::build(
            &argus_perception::Tree::default(),
            argus_perception::Screen {
                width: 100.0,
                height: 100.0,
                dpr: 1.0,
            },
            1,
        );
        let steps = v(&[
            "type \"Tulip3\" into \"Password:\"",
            "type \"jo\" into \"User\"",
        ]);
        assert!(expects_a_password(
            "assert screen contains \"Tulip3\"",
            &steps,
            &obs
        ));
        assert!(!expects_a_password(
            "assert screen contains \"jo\"",
            &steps,
            &obs
        ));
    }

    #[test]
    fn a_check_that_a_shown_control_goes_away_is_a_guess() {
        let mut tree = argus_perception::Tree::default();
        let mut n =
            argus_perception::Node::new(argus_perception::Role::Button, "button", "Sign in");
        n.bounds = Some(argus_perception::Rect::new(0.0, 0.0, 90.0, 20.0));
        tree.nodes.push(n);
        let obs = argus_perception::build(
            &tree,
            argus_perception::Screen {
                width: 100.0,
                height: 100.0,
                dpr: 1.0,
            },
            1,
        );
        assert!(guesses_a_change(
            "assert screen does not contain \"Sign in\"",
            &obs
        ));
        assert!(!guesses_a_change(
            "assert screen does not contain \"Error\"",
            &obs
        ));
        assert!(!guesses_a_change(
            "assert screen contains \"Sign in\"",
            &obs
        ));
    }

    #[test]
    fn a_text_neither_the_clause_nor_the_screen_holds_is_made_up() {
        let mut tree = argus_perception::Tree::default();
        let mut n =
            argus_perception::Node::new(argus_perception::Role::Text, "text", "2 items left");
        n.bounds = Some(argus_perception::Rect::new(0.0, 0.0, 90.0, 20.0));
        tree.nodes.push(n);
        let obs = argus_perception::build(
            &tree,
            argus_perception::Screen {
                width: 100.0,
                height: 100.0,
                dpr: 1.0,
            },
            1,
        );
        let zh = "最后确认列表剩三条";
        assert!(made_up("assert screen contains \"3 unread\"", zh, &obs));
        assert!(!made_up(
            "assert screen contains \"3 items left\"",
            zh,
            &obs
        ));
        assert!(!made_up(
            "assert screen contains \"Saved 1\"",
            "make sure it got saved",
            &obs
        ));
        assert!(!made_up("assert \"x\" is checked", zh, &obs));
        // A count worded by guess: a noun the page never counts, or "left" for all entries.
        let en = "make sure you end up with two todos";
        assert!(made_up("assert screen contains \"2 todos\"", en, &obs));
        let known = vec!["assert screen does not contain \"x\"".to_string()];
        assert!(guessed(
            "assert \"x\" is not checked",
            "neither is done",
            &known
        ));
        assert!(!guessed(
            "assert \"y\" is not checked",
            "neither is done",
            &known
        ));
        assert!(guessed(
            "assert screen contains \"Lorem ipsum is a...\"",
            "check it",
            &[]
        ));
        assert!(guessed(
            "assert \"Title\" has value \"x y\"",
            "confirm it is open",
            &[]
        ));
        assert!(!guessed(
            "assert \"Title\" has value \"x y\"",
            "make sure it reads x y",
            &[]
        ));
        let all = "double-check that you end up with exactly three entries";
        assert!(made_up(
            "assert screen contains \"3 items left\"",
            all,
            &obs
        ));
        let left = "make sure three items are left";
        assert!(!made_up(
            "assert screen contains \"3 items left\"",
            left,
            &obs
        ));
    }

    #[test]
    fn a_planned_expectation_names_its_clause() {
        let clause = "Make sure 'wash the car' is the only open item left, and that three are done";
        assert!(names_the_clause(
            "assert screen contains \"wash the car\"",
            clause
        ));
        assert!(names_the_clause(
            "assert screen contains \"3 done\"",
            clause
        ));
        assert!(!names_the_clause("assert screen contains \"46\"", clause));
        assert!(!names_the_clause(
            "assert \"feed the cat\" is checked",
            clause
        ));
        assert!(names_the_clause(
            "assert screen contains \"汽车\"",
            "确认“洗汽车”还在"
        ));
    }

    #[test]
    fn an_added_item_is_submitted() {
        let task = "Put 'wash the car' on the list.";
        let (p, n) = adds_submitted(v(&["type \"wash the car\" into \"New todo\""]), task);
        assert_eq!(n, 1);
        assert_eq!(
            p,
            v(&["type \"wash the car\" into \"New todo\"", "press Enter"])
        );
        // A tap on the typed text is a tap on the field: Enter still goes first.
        let (p, _) = adds_submitted(
            v(&[
                "type \"wash the car\" into \"New todo\"",
                "tap \"wash the car\"",
            ]),
            task,
        );
        assert_eq!(p[1], "press Enter");
        // Already submitted, or a field value rather than an item: unchanged.
        let (_, n) = adds_submitted(
            v(&["type \"wash the car\" into \"New todo\"", "press Enter"]),
            task,
        );
        assert_eq!(n, 0);
        let (_, n) = adds_submitted(
            v(&["type \"ann\" into \"Username\""]),
            "Put 'ann' in Username.",
        );
        assert_eq!(n, 0);
    }

    #[test]
    fn a_value_cut_at_a_joiner_is_typed_whole() {
        let task = "sign in as j.okafor (password Tide-42!) and double check the name";
        assert!(cut_short(task, "j"));
        assert!(cut_short(task, "Tide"));
        assert!(!cut_short(task, "j.okafor"));
        assert!(!cut_short(task, "double"));
        assert_eq!(whole_token(task, "j").as_deref(), Some("j.okafor"));
        assert_eq!(whole_token(task, "Tide").as_deref(), Some("Tide-42"));
        assert_eq!(whole_token(task, "double"), None);
        let (out, n) = as_written(v(&["type \"j\" into \"Username\"", "tap \"Login\""]), task);
        assert_eq!(n, 1);
        assert_eq!(out[0], "type \"j.okafor\" into \"Username\"");
        // Two longer tokens hold it: left alone.
        assert_eq!(whole_token("a.b or a.c", "a"), None);
    }

    #[test]
    fn a_quoted_text_or_a_taken_back_negation_forbids_no_press() {
        assert!(forbidden_presses(
            "输入框里填“先别提交，等审批”。这句话只是要填的字，不是叫你别提交：填完照样点 Submit。"
        )
        .is_empty());
        assert!(forbidden_presses(
            "Type 'do not submit yet' in the box; that's not telling you not to submit, so click Submit."
        )
        .is_empty());
        assert_eq!(
            forbidden_presses("Fill it in, but don't click Submit."),
            ["submit"]
        );
    }

    #[test]
    fn a_typed_text_copied_past_its_end_into_how_to_write_it_is_cut() {
        let task = "留言写：周五前交报告。就这九个字，别加引号。然后提交。";
        let (steps, n) = as_written(
            vec!["type \"周五前交报告。就这九个字，别加引号\" into \"Note\"".to_string()],
            task,
        );
        assert_eq!(
            (steps[0].as_str(), n),
            ("type \"周五前交报告\" into \"Note\"", 1)
        );
        let task = "Type: Back at noon. No quotes around it, and keep the capital B.";
        let (steps, _) = as_written(
            vec!["type \"Back at noon. No quotes around it\" into \"Status\"".to_string()],
            task,
        );
        assert_eq!(steps[0], "type \"Back at noon\" into \"Status\"");
        // Two sentences of the text itself stay.
        let task = "Post: Closed today. Open tomorrow.";
        let (steps, n) = as_written(
            vec!["type \"Closed today. Open tomorrow.\" into \"Post\"".to_string()],
            task,
        );
        assert_eq!(
            (steps[0].as_str(), n),
            ("type \"Closed today. Open tomorrow.\" into \"Post\"", 0)
        );
    }

    #[test]
    fn a_full_stop_the_instruction_says_to_keep_stays_when_the_text_is_cut() {
        let task = "备注栏写：明天停电。句号要保留，写完点保存。";
        let (steps, _) = as_written(
            vec!["type \"明天停电。句号要保留\" into \"备注\"".to_string()],
            task,
        );
        assert_eq!(steps[0], "type \"明天停电。\" into \"备注\"");
        assert!(says_keep_full_stop(task));
        assert!(!says_keep_full_stop("备注写：明天停电，不要句号。"));
        // "at the end" starts 10 characters after the stop's name.
        let task = "Leave this note: Back in ten minutes. Capital B, and a full stop at the end.";
        assert!(says_keep_full_stop(task));
        assert!(says_keep_full_stop(
            "备注填：明天上午停电。逗号和句号都是中文的。"
        ));
        assert!(says_keep_full_stop(
            "Type: Gates open at six. End it with a full stop."
        ));
        assert!(!says_keep_full_stop(
            "Type: Gates open at six. Without a full stop."
        ));
        let (steps, _) = as_written(
            vec!["type \"Back in ten minutes\" into \"Note\"".to_string()],
            task,
        );
        assert_eq!(steps[0], "type \"Back in ten minutes.\" into \"Note\"");
        assert!(!says_keep_full_stop(
            "Leave this note: Back in ten minutes. No full stop, keep the capital B."
        ));
    }

    #[test]
    fn a_kept_full_stop_is_not_given_to_each_of_several_texts() {
        // The stop after the name ends its sentence: which text keeps one is unsure.
        let task = "名字写张三。备注写：周末送达。句号也要带上。";
        let (p, n) = as_written(
            v(&[
                "type \"张三\" into \"Name\"",
                "type \"周末送达\" into \"Note\"",
            ]),
            task,
        );
        assert_eq!(p[0], "type \"张三\" into \"Name\"");
        assert_eq!(n, 0);
    }
}
