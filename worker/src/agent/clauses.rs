//! The checkable clauses of a natural-language instruction ("confirm…", "check that…",
//! "make sure…", "… should show …", "verify…", "确认…", "检查…"): what the run's verdict
//! rests on. Each becomes an expectation, never a step to act on.
//!
//! Why: a small model planned "confirm the counter reads N left" as `tap "Confirm"`
//! (there is no such button) and the run's `succeeded` rested on the model's word. Here the
//! clause is found by its lead word, deterministically, and mapped to a check line where its
//! words say what to look for: a quoted text (`make sure "Saved" is shown` → `assert screen
//! contains "Saved"`, negated → `does not contain`), a quoted toggle's state (`make sure
//! "buy milk" is ticked` → `assert "buy milk" is checked`), or the words after a display verb
//! (`… reads 3 rows` → `assert screen contains "3 rows"`). A clause none of these
//! fit is left for the planner to map (it sees the screen); one nobody maps leaves the run
//! `unverified`, never `succeeded`.

/// One checkable clause and the check lines read from its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause {
    /// The clause as written (trimmed).
    pub text: String,
    /// Step-language check lines read from the clause itself; empty when only a model that
    /// sees the screen can say what the clause looks for.
    pub checks: Vec<String>,
}

/// Lead words that make a clause a check (lower-case; a clause starts with one after the
/// fillers in [`FILLERS`]).
const LEADS: &[&str] = &[
    "confirm",
    "verify",
    "make sure",
    "ensure",
    "assert",
    "validate",
    "check that",
    "check whether",
    "check if",
    "double-check",
    "double check",
    "make certain",
    "be sure that",
    "see that",
    "expect",
    "sanity check",
    "sanity-check",
    "quick check",
    "final check",
];
/// Chinese lead words.
const LEADS_ZH: &[&str] = &[
    "确认",
    "检查",
    "验证",
    "确保",
    "核对",
    "断言",
    "查看是否",
    "看到",
];
/// Words anywhere in a clause that make it a check ("the list should show …").
const SHOULD: &[&str] = &[
    " should ",
    // "so that shouldn't be showing as done" (a state: [`negated_state`]).
    " must show",
    " must read",
    " must say",
];
/// Whether a clause says what state something should not be in ("that shouldn't be showing
/// as done", "it should not be ticked"): a negated modal and a state word after it ("the
/// parcel shouldn't be on the list" names no state: it orders a delete).
fn negated_state(lower: &str) -> bool {
    [" shouldn't be ", " should not be "].iter().any(|m| {
        lower.find(m).is_some_and(|i| {
            lower[i + m.len()..]
                .split(|c: char| !c.is_alphanumeric() && c != '-')
                .any(|w| super::effects::state_word(w).is_some())
        })
    })
}

const SHOULD_ZH: &[&str] = &["应该显示", "应显示", "应当显示", "应该包含", "应包含"];
/// Words a clause may start with before its lead word.
const FILLERS: &[&str] = &[
    "and then ",
    "then ",
    "and ",
    "finally ",
    "also ",
    "please ",
    "lastly ",
    "afterwards ",
    "after that ",
    "after this ",
    "after which ",
    "and after that ",
];
/// Chinese lead words dropped from a clause (不过 / 但是 / 可是 lead it as "but": 不过 is no
/// negation).
const FILLERS_ZH: &[&str] = &[
    "然后", "最后", "并且", "所以", "再", "并", "请", "不过", "但是", "可是",
];
/// What follows 最后 when it names the last row rather than meaning "finally".
const ZH_ROW_AFTER_LAST: &[&str] = &["一条", "一个", "一项", "一行", "一件", "那条", "那个", "面"];
/// Words that make a display verb a phrasal verb ("shows up in the list", "reads as
/// expected") when more words follow: the rest of the clause is then not the text on the
/// screen (a lone "Off" after "reads" still is).
const PARTICLES: &[&str] = &["up", "in", "on", "off", "out", "as", "through", "back"];
/// Verbs after which the rest of the clause is the text the screen shows.
const DISPLAY: &[&str] = &[
    " reads ",
    " says ",
    " shows ",
    " displays ",
    " contains ",
    " lists ",
    " read ",
    " say ",
    " show ",
    " display ",
    " contain ",
    " list ",
    " showing ",
    " displaying ",
    " reading ",
    " saying ",
];
/// Words before a [`DISPLAY`] word that make it a noun ("the list is showing …", "your
/// reads"): no display verb.
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "my", "your", "our", "this", "that", "whole", "todo", "to-do", "task",
    "shopping", "his", "her", "their", "its",
];
const DISPLAY_ZH: &[&str] = &["显示", "包含", "出现"];
/// Words saying a check is negated.
const NEGATIONS: &[&str] = &[
    " not ",
    "n't ",
    " no longer ",
    " is gone",
    " are gone",
    " disappear",
    " no more ",
    " never ",
];
const NEGATIONS_ZH: &[&str] = &["不再", "没有", "不", "消失"];
/// Words saying a toggle's state.
const CHECKED: &[&str] = &[
    "checked",
    "ticked",
    "completed",
    "complete",
    "done",
    "marked",
    "selected",
    "on",
];
const UNCHECKED: &[&str] = &[
    "unchecked",
    "unticked",
    "not completed",
    "incomplete",
    "not done",
    "active",
    "off",
    "not checked",
    "not ticked",
    "not selected",
];
const CHECKED_ZH: &[&str] = &["已勾选", "已选中", "已完成", "勾选", "选中", "完成"];
const UNCHECKED_ZH: &[&str] = &["未勾选", "未选中", "未完成", "取消勾选"];

/// The checkable clauses of `instruction`, in order. A check clause that says nothing of its
/// own is left out when the one after it goes on with it ("sanity check before you stop: six
/// entries, two ticked") or when it points back at the checks before it ("confirm that's
/// what the list shows").
pub fn checkable(instruction: &str) -> Vec<Clause> {
    let mut after_check = false;
    let found: Vec<(Clause, bool)> = segments(instruction)
        .into_iter()
        .filter_map(|seg| {
            let body = after_label(strip_fillers(&seg));
            let lower = format!(" {} ", body.to_lowercase());
            let body = after_when_zh(body);
            let led = LEADS.iter().any(|l| starts_word(&lower[1..], l))
                || LEADS_ZH.iter().any(|l| body.starts_with(l))
                || SHOULD.iter().any(|s| lower.contains(s))
                || negated_state(&lower)
                || SHOULD_ZH.iter().any(|s| body.contains(s));
            // "make sure X, and that Y" / "确认…，而且…" / "…: six entries, two ticked": the
            // second half is the check's too.
            let counts = !led && !super::count_items::item_counts(body).is_empty();
            let goes_on = after_check && (continues_check(&seg) || counts || none_ticked(body));
            after_check = led || goes_on;
            (led || goes_on).then(|| {
                let c = Clause {
                    checks: checks_of(body),
                    text: body.to_string(),
                };
                (c, goes_on && counts)
            })
        })
        .collect();
    let mut out: Vec<Clause> = Vec::new();
    for (i, (c, _)) in found.iter().enumerate() {
        // "Sanity check before you stop: six entries, …": a heading of the counts after it.
        let heads = found.get(i + 1).is_some_and(|(_, counted)| *counted)
            && [':', '：']
                .iter()
                .any(|colon| instruction.contains(&format!("{}{colon}", c.text.trim())));
        let empty = c.checks.is_empty();
        // "全部弄完检查一下，打勾的应该一共三条": a bare lead before the check it introduces.
        let leads_next = found.get(i + 1).is_some() && bare_lead(&c.text);
        if empty && (heads || leads_next || !out.is_empty() && points_back(&c.text)) {
            continue;
        }
        out.push(c.clone());
    }
    out
}

/// Labels a test case puts before its check ("Expected: confirm …", "预期结果：…").
const LABELS: &[&str] = &[
    "expected",
    "expected result",
    "expected outcome",
    "expected behaviour",
    "expected behavior",
    "expectation",
    "result",
    "outcome",
    "then",
    "预期",
    "预期结果",
    "期望",
    "期望结果",
];

/// `body` after a [`LABELS`] word and its colon; `body` itself otherwise.
fn after_label(body: &str) -> &str {
    let Some((head, rest)) = body.split_once([':', '：']) else {
        return body;
    };
    if LABELS.contains(&head.trim().to_lowercase().as_str()) && !rest.trim().is_empty() {
        rest.trim_start()
    } else {
        body
    }
}

/// Whether a shown text is only a word pointing at what was said before ("that", "exactly
/// that", "the same", "it", "this text").
fn points_at_before(rest: &str) -> bool {
    const POINTERS: &[&str] = &[
        "that",
        "this",
        "it",
        "the same",
        "same",
        "exactly that",
        "exactly this",
        "just that",
        "only that",
        "exactly the same",
        "that text",
        "this text",
        "the text above",
        "exactly it",
        "what i said",
        "exactly what i said",
    ];
    let r = rest
        .to_lowercase()
        .trim()
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_string();
    POINTERS.contains(&r.as_str())
}

/// Whether a check clause is nothing but its lead word ("检查一下", "double-check",
/// "verify everything"): it introduces the check clause after it.
fn bare_lead(text: &str) -> bool {
    let lower = text
        .to_lowercase()
        .trim()
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .to_string();
    let rest = LEADS
        .iter()
        .chain(LEADS_ZH)
        .find_map(|l| lower.strip_prefix(l))
        .map(str::trim);
    rest.is_some_and(|r| {
        [
            "",
            "一下",
            "一遍",
            "下",
            "一番",
            "everything",
            "it all",
            "all of it",
            "the list",
        ]
        .contains(&r)
    })
}

/// Whether a check clause only points back at the checks before it ("confirm that's what the
/// list shows", "确认一下是这样").
fn points_back(text: &str) -> bool {
    let lower = text.to_lowercase().replace('’', "'");
    let body = LEADS
        .iter()
        .find_map(|l| lower.strip_prefix(l))
        .unwrap_or(&lower)
        .trim_start();
    let body = body
        .strip_prefix("that ")
        .filter(|b| b.starts_with("that"))
        .unwrap_or(body);
    [
        "that's what",
        "that is what",
        "that's how",
        "that is how",
        "this is what",
        "it looks like that",
        "that's the case",
        "that's right",
        "all of that",
        "all that",
    ]
    .iter()
    .any(|p| body.starts_with(p) && (body.len() == p.len() || body[p.len()..].starts_with(' ')))
        && quoted(body).is_empty()
        || ["是这样", "没问题", "都对", "对不对", "是不是这样"]
            .iter()
            .any(|w| text.contains(w) && text.chars().count() <= 10)
}

/// Whether a clause, after a check clause, goes on with it: "and that …", "而且 …".
pub(super) fn continues_check(seg: &str) -> bool {
    let body = strip_fillers(seg).to_lowercase();
    body.starts_with("that ") || CONTINUES_ZH.iter().any(|w| seg.trim_start().starts_with(w))
}

/// Words that continue a Chinese check into the next clause ("确认只剩两条，而且都已完成").
const CONTINUES_ZH: &[&str] = &["而且", "并且", "且", "同时", "另外还要", "还要"];

/// Whether `instruction` asks for a check before a later step: a check clause followed by
/// a clause that is none, or the words `before` / `之前` / `先` (which put a check ahead of
/// the step they name).
pub fn checks_midway(instruction: &str) -> bool {
    let lower = instruction.to_lowercase();
    if lower.contains("before ") || instruction.contains("之前") || instruction.contains('先') {
        return true;
    }
    let mut seen_check = false;
    for seg in segments(instruction) {
        let body = strip_fillers(&seg);
        if reads_as_check(body) {
            seen_check = true;
        } else if seen_check {
            return true;
        }
    }
    false
}

/// Whether a plan step is one of the instruction's checks written as an action on a lead
/// word (`tap "Confirm"`, `tap "Verify"`): such a step has no element to act on and is
/// dropped from the plan (the clause is an expectation).
pub fn is_lead_word(name: &str) -> bool {
    let n = name.trim().trim_end_matches(['.', '!', ':']).to_lowercase();
    LEADS.iter().any(|l| n == *l)
        || ["check", "confirmation", "verification"].contains(&n.as_str())
        || LEADS_ZH.iter().any(|l| n == *l)
}

/// Whether a plan step reads as a check rather than an action (it starts with a lead word or
/// says what something should show).
pub fn reads_as_check(step: &str) -> bool {
    !checkable(step).is_empty()
}

/// Words that end a Chinese clause saying when ("都弄好后", "改完以后"); a lead word may follow.
const WHEN_ZH: &[&str] = &["之后", "以后", "后", "完了", "好了", "的时候", "时", "完"];

/// Words of asking between a "when" phrase and its check lead ("改完帮我确认一下").
const ASKS_ZH: &[&str] = &["帮我", "帮忙", "麻烦", "请", "再"];

/// `body` after a leading Chinese "when" phrase that a [`LEADS_ZH`] word follows, words of
/// asking between ("都弄好后核对一下…" → "核对一下…", "改完帮我确认一下" → "确认一下"); `body`
/// itself otherwise.
fn after_when_zh(body: &str) -> &str {
    for w in WHEN_ZH {
        for (at, _) in body.match_indices(w) {
            let mut rest = body[at + w.len()..].trim_start_matches(['，', ',', ' ']);
            while let Some(r) = ASKS_ZH.iter().find_map(|a| rest.strip_prefix(a)) {
                rest = r;
            }
            if at > 0
                && body[..at].chars().count() <= 8
                && LEADS_ZH.iter().any(|l| rest.starts_with(l))
            {
                return rest;
            }
        }
    }
    body
}

fn starts_word(s: &str, lead: &str) -> bool {
    s.strip_prefix(lead)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', ',', ':']))
}

pub(super) fn strip_fillers(seg: &str) -> &str {
    let mut s = seg.trim();
    loop {
        let lower = s.to_lowercase();
        let next = FILLERS
            .iter()
            .find(|f| lower.starts_with(*f))
            .map(|f| &s[f.len()..])
            .or_else(|| {
                FILLERS_ZH
                    .iter()
                    .find_map(|f| s.strip_prefix(f))
                    // "最后一条" is the last row, not "finally".
                    .filter(|rest| !ZH_ROW_AFTER_LAST.iter().any(|r| rest.starts_with(r)))
            })
            .or_else(|| s.get(time_lead(&lower)?..))
            .or_else(|| s.get(time_lead_zh(s)?..));
        match next {
            Some(n) => s = n.trim_start(),
            None => return s,
        }
    }
}

/// The length of a lead that only says when the order after it comes ("once it's gone add
/// …", "when that's done, untick …", "as soon as they're cleared add …"): a time word, a
/// pronoun and its verb, and one word of state; `None` when `lower` has none.
fn time_lead(lower: &str) -> Option<usize> {
    let rest = ["once ", "when ", "as soon as ", "after "]
        .iter()
        .find_map(|w| lower.strip_prefix(w))?;
    let rest = [
        "it's ",
        "it is ",
        "it has ",
        "that's ",
        "that is ",
        "they're ",
        "they are ",
        "those are ",
        "everything's ",
    ]
    .iter()
    .find_map(|w| rest.strip_prefix(w))?;
    // "once that's all done": the degree word is part of the state.
    let rest = ["all ", "completely ", "fully "]
        .iter()
        .find_map(|w| rest.strip_prefix(w))
        .unwrap_or(rest);
    let word = rest.split([' ', ',']).next()?;
    let after = rest[word.len()..].trim_start_matches([',', ' ']);
    // "when it's been paid, …", "once it's bought …": the item's own state is a condition
    // (and "been" no state), not the end of an order before.
    let state = TIME_LEAD_STATES.contains(&word);
    // ASCII up to there: the length is taken of the lower-cased text.
    (state && !after.is_empty()).then(|| lower.len() - after.len())
}

/// States an order of the list leaves things in, after which a [`time_lead`] says the next
/// order comes ("once they're gone", "when that's done").
const TIME_LEAD_STATES: &[&str] = &[
    "gone",
    "done",
    "cleared",
    "deleted",
    "removed",
    "ticked",
    "checked",
    "unticked",
    "unchecked",
    "added",
    "finished",
    "over",
    "saved",
    "sorted",
];

/// The length of a Chinese lead that only says the order after it comes once the rest is
/// done ("都弄好以后切到…", "弄完之后…"): at most eight characters ending in 好 / 完 and then
/// 以后 / 之后; `None` when `s` has none or nothing follows it.
fn time_lead_zh(s: &str) -> Option<usize> {
    let head: String = s.chars().take(10).collect();
    // Not a bare 后: "最好后天去" is "best the day after tomorrow".
    let end = ["以后", "之后"].iter().find_map(|w| {
        ["好", "完"].iter().find_map(|d| {
            let lead = format!("{d}{w}");
            head.find(&lead).map(|i| i + lead.len())
        })
    })?;
    (head[..end].chars().count() <= 8 && s[end..].chars().any(|c| c.is_alphanumeric()))
        .then_some(end)
}

/// Words that open an exception to the clause before a comma ("delete everything that's
/// done, except the vet one"): the comma does not end that clause.
const EXCEPTIONS: &[&str] = &[
    "except",
    "apart from",
    "other than",
    "but not",
    "save for",
    "excluding",
];

/// Whether `rest` (after a comma) opens with an [`EXCEPTIONS`] word.
fn exception_follows(rest: &[char]) -> bool {
    let head: String = rest.iter().take(12).collect::<String>().to_lowercase();
    let head = head.trim_start();
    EXCEPTIONS.iter().any(|w| {
        head.strip_prefix(w)
            .is_some_and(|r| r.is_empty() || r.starts_with(' '))
    })
}

/// Splits at sentence punctuation and at `then` / `and` (an `and` followed by a quote joins
/// two texts of one clause), never inside quotes.
pub(super) fn segments(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            cur.push(c);
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        if let Some(close) = closing_quote(c, &chars, i) {
            quote = Some(close);
            cur.push(c);
            i += 1;
            continue;
        }
        if ".;!?。；！？，,\n".contains(c)
            && !is_decimal_point(&chars, i)
            && !(",，".contains(c) && exception_follows(&chars[i + 1..]))
        {
            out.push(std::mem::take(&mut cur));
            i += 1;
            continue;
        }
        let rest: String = chars[i..]
            .iter()
            .take(12)
            .collect::<String>()
            .to_lowercase();
        let split = (rest.starts_with(" then ")
            || (rest.starts_with(" and ") && !marks_both(&cur, &chars[i..])))
            && !rest
                .trim_start()
                .split_once(' ')
                .is_some_and(|(_, r)| r.starts_with(['"', '\'', '“', '‘', '「']));
        let split_zh = ["然后", "并且"].iter().any(|w| rest.starts_with(w))
            || rest
                .strip_prefix('并')
                .is_some_and(|r| LEADS_ZH.iter().any(|l| r.starts_with(l)));
        if (split || split_zh) && !cur.trim().is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c);
        i += 1;
    }
    out.push(cur);
    out.into_iter()
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect()
}

/// Whether an "and" at the start of `after` joins two objects of one `mark … <state>` /
/// `set … <state>` order that `cur` began ("mark the badge and payroll entries complete"):
/// the state word ends the sentence, so splitting there would leave the first half with none.
fn marks_both(cur: &str, after: &[char]) -> bool {
    let head = cur
        .rsplit([':', '：'])
        .next()
        .unwrap_or(cur)
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit() || "()-.*• ".contains(c))
        .to_lowercase();
    // "(a) mark …": a lettered marker.
    let head = match head.split_once(") ") {
        Some((m, rest)) if m.trim_start_matches('(').chars().count() <= 4 && !m.contains(' ') => {
            rest.to_string()
        }
        _ => head,
    };
    if !["mark ", "set "].iter().any(|v| head.starts_with(v)) {
        return false;
    }
    let sentence: String = after
        .iter()
        .take_while(|c| !".;!?。；！？,，\n".contains(**c))
        .collect();
    let tail = sentence.trim().to_lowercase();
    super::order_kind::DONE_WORDS
        .iter()
        .chain(super::order_kind::UNDONE_WORDS)
        .any(|w| tail.ends_with(&format!(" {w}")))
}

/// The closing quote for an opening one at `i` (an apostrophe inside a word is not a quote).
fn closing_quote(c: char, chars: &[char], i: usize) -> Option<char> {
    match c {
        '"' => Some('"'),
        '“' => Some('”'),
        '‘' => Some('’'),
        '「' => Some('」'),
        '\'' => {
            let prev_alnum = i > 0 && chars[i - 1].is_alphanumeric();
            let closes = chars[i + 1..].contains(&'\'');
            (!prev_alnum && closes).then_some('\'')
        }
        _ => None,
    }
}

/// How many characters after the opening quote at `open` its `close` comes: the first
/// `close`, except that an apostrophe followed by a letter (`'Mom's gift'`) is part of the
/// text.
fn closing_at(chars: &[char], open: usize, close: char) -> Option<usize> {
    chars[open + 1..].iter().enumerate().find_map(|(k, &c)| {
        let at = open + 1 + k;
        let inside_word = close == '\''
            && chars.get(at + 1).is_some_and(|n| n.is_alphanumeric())
            && at > 0
            && chars[at - 1].is_alphanumeric();
        (c == close && !inside_word).then_some(k)
    })
}

fn is_decimal_point(chars: &[char], i: usize) -> bool {
    chars[i] == '.'
        && i > 0
        && chars[i - 1].is_ascii_digit()
        && chars.get(i + 1).is_some_and(char::is_ascii_digit)
}

/// Byte ranges of a clause's quoted texts, quotes included, in order (as [`quoted`] finds
/// them): where a clause may not be cut.
pub(super) fn quoted_spans(s: &str) -> Vec<(usize, usize)> {
    let chars: Vec<char> = s.chars().collect();
    let offsets: Vec<usize> = s.char_indices().map(|(b, _)| b).chain([s.len()]).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if let Some(close) = closing_quote(chars[i], &chars, i) {
            if let Some(len) = closing_at(&chars, i, close) {
                out.push((offsets[i], offsets[i + len + 2]));
                i += len + 2;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Quoted texts of a clause, in order.
pub(super) fn quoted(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if let Some(close) = closing_quote(chars[i], &chars, i) {
            if let Some(len) = closing_at(&chars, i, close) {
                let t: String = chars[i + 1..i + 1 + len].iter().collect();
                if !t.trim().is_empty() {
                    out.push(t.trim().to_string());
                }
                i += len + 2;
                continue;
            }
        }
        i += 1;
    }
    out
}

fn negated(clause: &str) -> bool {
    // "是不是 3 items left" / "是否" asks; it negates nothing.
    let clause = &["是不是", "是否", "有没有", "对不对", "是不"]
        .iter()
        .fold(clause.to_string(), |c, q| c.replace(q, " "));
    let lower = format!(" {} ", clause.to_lowercase());
    NEGATIONS.iter().any(|n| lower.contains(n)) || NEGATIONS_ZH.iter().any(|n| clause.contains(n))
}

/// Words at a check's end that say when, not what the screen shows ("… shows 1 item left
/// afterwards" looks for `1 item left`).
const TIME_WORDS: &[&str] = &[
    " afterwards",
    " afterward",
    " at the end",
    " in the end",
    " after that",
    " after",
    " by then",
    " when done",
    " when you're done",
    " now",
    " then",
];

/// Subordinate clauses that set when a check is made ("… reads Ann before you hit Submit"),
/// cut from the text the screen must show.
const WHEN_CLAUSES: &[&str] = &[
    " before you ",
    " before i ",
    " before we ",
    " before hitting",
    " before clicking",
    " before pressing",
    " before submitting",
    " before sending",
    " before saving",
    " prior to ",
    " once you ",
    " when you ",
    " after you ",
];

/// `text` without a trailing [`WHEN_CLAUSES`] clause and [`TIME_WORDS`].
pub(super) fn without_time_words(text: &str) -> &str {
    let mut t = text.trim();
    let lower = t.to_lowercase();
    if lower.len() == t.len() {
        if let Some(at) = WHEN_CLAUSES.iter().filter_map(|w| lower.find(w)).min() {
            t = t[..at].trim_end();
        }
    }
    without_suffixes(t, TIME_WORDS)
}

/// `text` (trimmed at its end) without any of `words` at its end, as often as they come
/// (ASCII case ignored), never down to nothing.
pub(super) fn without_suffixes<'a>(text: &'a str, words: &[&str]) -> &'a str {
    let mut t = text.trim_end();
    while let Some(w) = words.iter().find(|w| {
        t.len() > w.len()
            && t.get(t.len() - w.len()..)
                .is_some_and(|end| end.eq_ignore_ascii_case(w))
    }) {
        t = t[..t.len() - w.len()].trim_end();
    }
    t
}

/// The toggle state a clause names outside its quotes (`Some(true)`: checked).
fn toggle_state(outside: &str) -> Option<bool> {
    let lower = format!(" {} ", outside.to_lowercase());
    let has = |w: &&str| lower.contains(&format!(" {w} ")) || lower.contains(&format!(" {w}."));
    if UNCHECKED.iter().any(has) || UNCHECKED_ZH.iter().any(|w| outside.contains(w)) {
        return Some(false);
    }
    if CHECKED.iter().any(has) || CHECKED_ZH.iter().any(|w| outside.contains(w)) {
        return Some(!negated(outside));
    }
    None
}

pub(super) fn quote_line(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A clause's words in lower case (split at white space and sentence marks), and where its
/// last "left" / "remaining" stands: what [`count_left`] and [`bare_left`] read.
fn left_words(clause: &str) -> Option<(Vec<String>, usize)> {
    let words: Vec<String> = clause
        .to_lowercase()
        .split(|c: char| c.is_whitespace() || ",.;:!?".contains(c))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    let at = words
        .iter()
        .rposition(|w| w == "left" || w == "remaining")?;
    Some((words, at))
}

/// A count written as digits or as a number word ([`super::count_items::NUMBER_WORDS`]), as
/// digits.
fn count_digits(n: &str) -> Option<String> {
    if n.chars().all(|c| c.is_ascii_digit()) {
        return Some(n.to_string());
    }
    super::count_items::NUMBER_WORDS
        .iter()
        .find(|(w, _)| *w == n)
        .map(|(_, d)| d.to_string())
}

/// A count of what is left, as a counter shows it: "… that 3 items are left" / "there is
/// one task remaining" → `3 items left` / `1 task remaining` (the copula dropped, a number
/// word as digits). Only `left` / `remaining`: a count of what is "shown" or "listed" has
/// no one way a page writes it, and a shorter text ("3 items") would also be found in "13
/// items".
fn count_left(clause: &str) -> Option<String> {
    let (words, at) = left_words(clause)?;
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut k = at.checked_sub(1)?;
    if ["is", "are"].contains(&words[k]) {
        k = k.checked_sub(1)?;
    }
    let noun = words[k];
    let n = words.get(k.checked_sub(1)?)?;
    // "there's no bread left" says the bread is gone, it counts nothing a counter shows;
    // "no items left" is the counter's "0 items left". "three things are left, none of them
    // ticked" counts list items: a counter's own text only where its noun is "item(s)" or
    // the clause speaks of what shows it.
    let shown = [
        "counter", "footer", "says", "say", "reads", "read", "shows", "show", "display",
    ]
    .iter()
    .any(|w| words.contains(w));
    if (*n == "no" && !super::count_items::NOUNS.contains(&noun))
        || (!shown && !["item", "items"].contains(&noun))
    {
        return None;
    }
    let digits = count_digits(n)?;
    (noun.chars().all(char::is_alphabetic) && !["is", "are"].contains(&noun))
        .then(|| format!("{digits} {noun} {}", words[at]))
}

/// A count of what is left with no noun, said of what shows it ("the counter says 3 left",
/// "it should read two remaining"): how many items are open. `None` without a counter or
/// display word, or with a noun after the number.
fn bare_left(clause: &str) -> Option<u32> {
    let (words, at) = left_words(clause)?;
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let n = words.get(at.checked_sub(1)?)?;
    let shown = [
        "counter", "footer", "says", "say", "reads", "read", "shows", "show",
    ]
    .iter()
    .any(|w| words.contains(w));
    let n: u32 = count_digits(n)?.parse().ok()?;
    shown.then_some(n)
}

/// Whether a check clause says no item is ticked: "none of them ticked", "neither of them is
/// done", "nothing ticked", "都没打勾", "一条都没勾".
fn none_ticked(clause: &str) -> bool {
    let lower = clause.to_lowercase();
    let en = [
        "none of them",
        "neither of them",
        "nothing",
        "no item",
        "no items",
        "none",
    ]
    .iter()
    .any(|lead| {
        lower.find(lead).is_some_and(|i| {
            let rest = &lower[i + lead.len()..];
            let rest = rest
                .trim_start()
                .trim_start_matches("is ")
                .trim_start_matches("are ")
                .trim_start_matches("should be ")
                .trim_start_matches("still ");
            ["ticked", "checked", "done", "completed", "crossed off"]
                .iter()
                .any(|s| rest.starts_with(s))
        })
    });
    let zh = [
        "都没打勾",
        "都没勾",
        "都没有打勾",
        "都没有勾",
        "都没完成",
        "都没有完成",
        "都未完成",
        "都是未完成",
        "一条都没勾",
        "都不打勾",
    ]
    .iter()
    .any(|w| clause.contains(w));
    en || zh
}

/// The check lines a clause's own words give (see the module docs).
fn checks_of(clause: &str) -> Vec<String> {
    let texts = quoted(clause);
    let outside = without_quotes(clause);
    if !texts.is_empty() {
        if let Some(on) = toggle_state(&outside) {
            let state = if on { "is checked" } else { "is not checked" };
            return texts
                .iter()
                .map(|t| format!("assert {} {state}", quote_line(t)))
                .collect();
        }
        let verb = if negated(&outside) {
            "assert screen does not contain"
        } else {
            "assert screen contains"
        };
        return texts
            .iter()
            .map(|t| format!("{verb} {}", quote_line(t)))
            .collect();
    }
    let lower = format!(" {} ", clause.to_lowercase());
    // A count of what is left is the counter's own text, whatever verb shows it ("the
    // bottom of the list is showing 3 items left after").
    if let Some(n) = bare_left(clause) {
        // "the counter at the bottom says 3 left": the open items, counted.
        return vec![argus_protocol::action::items_line(Some(false), n)];
    }
    if let Some(left) = count_left(clause) {
        let verb = if negated(&lower) {
            "assert screen does not contain"
        } else {
            "assert screen contains"
        };
        return vec![format!("{verb} {}", quote_line(&left))];
    }
    if none_ticked(clause) {
        // "…, none of them ticked", "而且都没打勾": no item is checked.
        return vec![argus_protocol::action::items_line(Some(true), 0)];
    }
    let counted = super::count_items::item_counts(clause);
    if !counted.is_empty() {
        return counted;
    }
    for d in DISPLAY {
        let noun = |at: usize| {
            lower[..at]
                .split_whitespace()
                .next_back()
                .is_some_and(|w| DETERMINERS.contains(&w))
        };
        if let Some(at) = lower.match_indices(d).map(|(i, _)| i).find(|&i| !noun(i)) {
            let start = at + d.len() - 1;
            let rest = clause.get(start..).unwrap_or_default();
            let rest = without_time_words(
                rest.trim()
                    .trim_start_matches("that ")
                    .trim_end_matches(['.', '!', ' '])
                    .trim(),
            );
            // A verb with a particle is no display verb: "it shows up in the list".
            let words: Vec<&str> = rest.split_whitespace().collect();
            let phrasal = words.len() >= 2 && PARTICLES.contains(&words[0].to_lowercase().as_str());
            // "the box shows exactly that", "…reads the same": what it shows was said before,
            // not here; no text to look for.
            if phrasal || points_at_before(rest) {
                continue;
            }
            if !rest.is_empty() && rest.split_whitespace().count() <= 8 {
                let verb = if negated(&lower[..at + 1]) {
                    "assert screen does not contain"
                } else {
                    "assert screen contains"
                };
                return vec![format!("{verb} {}", quote_line(rest))];
            }
        }
    }
    for d in DISPLAY_ZH {
        if let Some((head, rest)) = clause.split_once(d) {
            let rest = rest.trim().trim_end_matches(['。', '！']).trim();
            if !rest.is_empty() && rest.chars().count() <= 24 {
                let verb = if negated(head) {
                    "assert screen does not contain"
                } else {
                    "assert screen contains"
                };
                return vec![format!("{verb} {}", quote_line(rest))];
            }
        }
    }
    Vec::new()
}

/// `s` with each quoted span (quotes included) replaced by a space. By position: the
/// quoted text `a` must not blank every `a` of "mark 'a' as done".
pub(super) fn without_quotes(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if let Some(close) = closing_quote(chars[i], &chars, i) {
            if let Some(len) = closing_at(&chars, i, close) {
                out.push(' ');
                i += len + 2;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checks(s: &str) -> Vec<Vec<String>> {
        checkable(s).into_iter().map(|c| c.checks).collect()
    }

    #[test]
    fn lead_words_make_clauses_checks_and_actions_stay_actions() {
        assert!(checkable("Add 'buy milk' and press Enter").is_empty());
        assert!(
            checkable("check 'walk the dog'").is_empty(),
            "ticking is an action"
        );
        let c = checkable("Enter Hello there, confirm the box shows exactly that, then send");
        assert!(c[0].checks.is_empty(), "{c:?}");
        let c = checkable("都改好以后检查一下，打勾的应该一共三条");
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].checks, ["assert 3 items are checked"]);
        let c = checkable("Add 'a', then tick it off. Confirm the counter reads 1 item left");
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].text, "Confirm the counter reads 1 item left");
        assert_eq!(c[0].checks, vec!["assert screen contains \"1 item left\""]);
    }

    #[test]
    fn quoted_texts_states_and_negations() {
        assert_eq!(
            checks("sign in and make sure \"Welcome\" is shown"),
            vec![vec!["assert screen contains \"Welcome\"".to_string()]]
        );
        assert_eq!(
            checks("delete it and verify that 'old note' is no longer listed"),
            vec![vec![
                "assert screen does not contain \"old note\"".to_string()
            ]]
        );
        assert_eq!(
            checks("complete 'pay rent' and check that 'pay rent' is ticked"),
            vec![vec!["assert \"pay rent\" is checked".to_string()]]
        );
        assert_eq!(
            checks("make sure 'a' and 'b' are not completed"),
            vec![vec![
                "assert \"a\" is not checked".to_string(),
                "assert \"b\" is not checked".to_string()
            ]]
        );
    }

    #[test]
    fn a_heading_of_counts_and_a_check_that_points_back_are_left_out() {
        let c = checkable("Quick check when you're done: four rows, one ticked. Verify that's what the page shows.");
        let lines: Vec<_> = c.iter().flat_map(|c| c.checks.clone()).collect();
        assert_eq!(
            lines,
            vec!["assert 4 items are listed", "assert 1 item is checked"]
        );
        assert_eq!(c.len(), 2, "{c:?}");
        // Not a heading: a check of its own with "and that" after it stays, unmapped.
        let c = checkable("make sure it all looks right and that nothing is ticked");
        assert_eq!(c.len(), 2, "{c:?}");
    }

    #[test]
    fn unmapped_clauses_are_left_for_the_planner() {
        let c = checkable("finish the todo, then check that the page works");
        assert_eq!(c.len(), 1);
        assert!(c[0].checks.is_empty(), "{c:?}");
        // A count of what is left, as a counter writes it.
        let c = checkable("finish the todo, then check that 1 item is left");
        assert_eq!(c[0].checks, vec!["assert screen contains \"1 item left\""]);
        // Other nouns left or remaining count the open items, as a counter does.
        let c = checkable("make sure there are three tasks remaining");
        assert_eq!(c[0].checks, vec!["assert 3 items are not checked"]);
        let c = checkable("make sure the counter reads 3 tasks remaining");
        assert_eq!(
            c[0].checks,
            vec!["assert screen contains \"3 tasks remaining\""]
        );
        // A count of what is shown is left for the planner (no one way to write it).
        let c = checkable("verify that 2 results are listed");
        assert!(c[0].checks.is_empty(), "{c:?}");
        let c = checkable("the footer should say 2 items left");
        assert_eq!(c[0].checks, vec!["assert screen contains \"2 items left\""]);
        // A phrasal verb says nothing the screen shows.
        let c = checkable("add a note and confirm it shows up on the board");
        assert_eq!(c.len(), 1);
        assert!(c[0].checks.is_empty(), "{c:?}");
        let c = checkable("make sure the switch reads Off");
        assert_eq!(c[0].checks, vec!["assert screen contains \"Off\""]);
    }

    #[test]
    fn a_check_before_a_later_step_is_midway() {
        assert!(!checks_midway("add a, then make sure 1 item is left"));
        assert!(!checks_midway("add a"));
        for task in [
            "type a, make sure the box says a, then press Enter",
            "Before pressing Enter, make sure the box says a.",
            "先检查输入框显示 a，再按回车。",
        ] {
            assert!(checks_midway(task), "{task}");
        }
    }

    #[test]
    fn chinese_clauses() {
        let c = checkable("添加 \"买牛奶\"，然后确认页面显示 \"1 项剩余\"");
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].checks, vec!["assert screen contains \"1 项剩余\""]);
        let c = checkable("删除 \"旧笔记\" 并检查 \"旧笔记\" 不再显示");
        assert_eq!(
            c[0].checks,
            vec!["assert screen does not contain \"旧笔记\""]
        );
    }

    #[test]
    fn lead_word_targets() {
        assert!(is_lead_word("Confirm"));
        assert!(is_lead_word("verify."));
        assert!(!is_lead_word("Confirm order"));
        assert!(reads_as_check("verify the total is 3"));
        assert!(!reads_as_check("tap \"Save\""));
    }

    #[test]
    fn a_count_left_is_read_whatever_shows_it() {
        assert_eq!(
            checks("make sure the footer of the list is showing 2 items left"),
            vec![vec!["assert screen contains \"2 items left\"".to_string()]]
        );
        assert_eq!(
            checks("verify it reads one item left after"),
            vec![vec!["assert screen contains \"1 item left\"".to_string()]]
        );
        assert_eq!(
            checks("make sure the banner is showing Saved"),
            vec![vec!["assert screen contains \"Saved\"".to_string()]]
        );
        assert_eq!(
            checks("check that the page shows Welcome after"),
            vec![vec!["assert screen contains \"Welcome\"".to_string()]]
        );
    }

    #[test]
    fn a_check_after_a_when_phrase_is_a_check() {
        let c = checkable("把那条删掉。改完以后检查一下页面显示“2 项”。");
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].checks, vec!["assert screen contains \"2 项\""]);
        assert_eq!(checks("double check that 'x' is gone").len(), 1);
        // 是不是 asks; it negates nothing.
        let c = checkable("弄好以后检查一下底部是不是 2 items left。");
        assert_eq!(c[0].checks, vec!["assert screen contains \"2 items left\""]);
        // "…, and that 'x' is still ticked" goes on with the check before it.
        assert_eq!(
            checks("Make sure there are three entries and that 'x' is still ticked"),
            vec![
                vec!["assert 3 items are listed".to_string()],
                vec!["assert \"x\" is checked".to_string()]
            ]
        );
    }

    #[test]
    fn a_check_after_a_test_case_label_is_a_check() {
        let c = checkable("Add 'y'. Expected outcome: make sure the footer says 4 items left.");
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].checks, vec!["assert screen contains \"4 items left\""]);
        // A label alone, or one that is no test case's, checks nothing.
        assert!(checkable("Expected: nothing.").is_empty());
        assert!(checkable("Groceries: milk and eggs.").is_empty());
    }

    #[test]
    fn no_thing_left_is_no_counter_text_unless_it_counts_items() {
        assert_eq!(
            checkable("Then check that there's no bread left.")[0].checks,
            Vec::<String>::new()
        );
        assert_eq!(
            checkable("Then check that there are no items left.")[0].checks,
            vec!["assert screen contains \"0 items left\""]
        );
    }

    #[test]
    fn none_ticked_is_a_count_of_zero_checked() {
        let c = checkable("Make sure four remain, none of them ticked.");
        assert!(
            c.iter().any(|c| c.checks == ["assert 0 items are checked"]),
            "{c:?}"
        );
        let c = checkable("检查一下剩下四条，而且都没打勾。");
        assert!(
            c.iter().any(|c| c.checks == ["assert 0 items are checked"]),
            "{c:?}"
        );
        assert!(!none_ticked("make sure none of them are missing"));
    }

    #[test]
    fn only_a_state_a_list_order_leaves_makes_a_time_lead() {
        assert_eq!(strip_fillers("once they're gone add 'x'"), "add 'x'");
        assert_eq!(
            strip_fillers("when that's all done, untick it"),
            "untick it"
        );
        // The item's own state is a condition, and "been" no state: the lead stays.
        assert_eq!(
            strip_fillers("when it's been paid add 'file it'"),
            "when it's been paid add 'file it'"
        );
        assert_eq!(
            strip_fillers("once it's bought tick the bread"),
            "once it's bought tick the bread"
        );
    }
}
