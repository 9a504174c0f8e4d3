//! The script step language: imperative lines in English or Chinese, one step per line.
//!
//! ```text
//! open http://127.0.0.1:8080/            打开 http://127.0.0.1:8080/
//! type "buy milk" into "What needs to be done?"
//!                                         在 "用户名" 输入 "alice"
//! type "echo hi"                          输入 "echo hi"   (no field: the focused window)
//! press Enter                             按 回车
//! tap "Clear completed"                   点击 "登录"
//! check "buy milk"                        勾选 "buy milk"
//! tap the checkbox left of "buy milk"     点击 "buy milk" 左边的 复选框
//! tap button "Add" in the row of "Users"  点击 "Users" 同一行的 "Add" 按钮
//! wait for "1 item left"                  等待 "欢迎"
//! wait 500ms                              等待 500毫秒
//! swipe up until "Terms" is visible       向上滑动直到 "条款" 出现
//! assert screen contains "buy milk"       断言 页面包含 "欢迎"
//! assert screen does not contain "error"  断言 页面不包含 "错误"
//! assert screen contains "Delete" 2 times 断言 页面包含 "删除" 2 次
//! assert "Remember me" is checked         断言 "记住我" 已勾选
//! assert "Remember me" is not checked     断言 "记住我" 未勾选
//! assert "Email" has value "a@b.c"        断言 "邮箱" 的值为 "a@b.c"
//! assert "Email" is empty                 断言 "邮箱" 为空
//! assert 2 items are checked              断言 共有 2 项已勾选
//! assert 3 items are not checked          断言 共有 3 项未勾选
//! assert 6 items are listed               断言 共有 6 项
//! repeat 3 times:                         重复 3 次:
//!   press Enter                             按 回车
//! if screen contains "Cookies":           如果 页面包含 "Cookies":
//!   tap "Accept"                            点击 "Accept"
//! else:                                   否则:
//!   wait 1s                                 等待 1秒
//! include login.steps                     引入 login.steps
//! type "${var.USER}" into "Username"      (from the job's `vars`)
//! ```
//!
//! Blank lines and lines starting with `#` or `//` are ignored. Text goes in double quotes
//! (`"…"`, `“…”` or `「…」`; `\"` and `\\` escape inside ASCII quotes). A target is a quoted
//! name (accessible name, label, placeholder or visible text), optionally narrowed by a role
//! (`button "Save"`) or placed relative to an anchor (`the checkbox left of "buy milk"`,
//! `the button in the row of "Alice"`). Relations are resolved from element geometry by the
//! worker, never from pixel offsets in the script.
//!
//! Blocks, includes and variables: see [`blocks`] and [`vars`]; the if's condition is
//! evaluated by the worker when the run reaches it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::action::{Action, Aim};
use crate::key::Key;
use crate::target::{Relation, Target};

mod blocks;
mod gesture;
mod items;
mod target;
pub mod vars;
pub use blocks::{
    include_refs, resolve_include, Condition, MAX_BLOCK_DEPTH, MAX_INCLUDE_DEPTH, MAX_PARSED_STEPS,
    MAX_REPEAT,
};
use gesture::parse_gesture;
use target::parse_target;
pub use target::{canonical_role, role_word_zh};

/// Longest accepted `wait` / `wait for` timeout (10 min), in ms.
pub const MAX_WAIT_MS: u64 = 600_000;
/// Default `wait for` timeout, in ms.
pub const DEFAULT_WAIT_FOR_MS: u64 = 5_000;

/// A parsed script: its steps in order, each with its 1-based source line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Script {
    /// Steps in execution order.
    pub steps: Vec<ScriptStep>,
}

/// One step and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScriptStep {
    /// 1-based line number in the instruction.
    pub line: usize,
    /// The line as written (trimmed, variables filled in).
    pub text: String,
    /// The included file the line is in (its key in the job's `files`); `None`: the
    /// instruction itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// What to do.
    pub step: Step,
}

/// One script line: an [`Action`] carried out as written, or a natural-language step the
/// worker's model carries out (`ai: <instruction>`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Do this action.
    Act(Action),
    /// A natural-language step (`ai: <instruction>`) the worker's model carries out, one
    /// tool call at a time.
    Ai { instruction: String },
    /// `repeat N times:` — the body, N (1..=[`MAX_REPEAT`]) times over.
    Repeat { times: u32, body: Vec<ScriptStep> },
    /// `if screen contains "X":` — `then` when the condition holds on the screen the run
    /// sees when it reaches the block, else `otherwise` (the `else:` block, maybe empty).
    If {
        condition: Condition,
        then: Vec<ScriptStep>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        otherwise: Vec<ScriptStep>,
    },
}

/// A line that could not be parsed: where, what, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}line {line}: {message}", file.as_ref().map(|f| format!("{f} ")).unwrap_or_default())]
pub struct ScriptError {
    /// The included file the line is in; `None`: the instruction itself.
    pub file: Option<String>,
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
    /// The line is where the steps counted passed the job's `max_steps` (expansion stopped
    /// there; the job's field at fault is `max_steps`).
    pub over_max_steps: bool,
}

impl Script {
    /// Parses a script that uses no includes and no variables; fails on the first line that
    /// is not a step (an `include` or `${var.…}` line included).
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        Script::parse_with(text, &BTreeMap::new(), &BTreeMap::new())
    }

    /// Parses a job's script: `include`s from `files` (keys as [`resolve_include`] makes
    /// them), `${var.NAME}` from `vars`. Errors name the file (for included lines) and line.
    /// Only [`MAX_PARSED_STEPS`] bounds the expansion; see [`Script::parse_bounded`].
    pub fn parse_with(
        text: &str,
        files: &BTreeMap<String, String>,
        vars: &BTreeMap<String, String>,
    ) -> Result<Script, ScriptError> {
        Script::parse_bounded(text, files, vars, u64::MAX)
    }

    /// [`Script::parse_with`] that stops expanding (an error naming the bound, file and
    /// line) as soon as the script can take more than `max_steps` steps, counted as
    /// [`Script::max_steps`] counts them, or spells out more than [`MAX_PARSED_STEPS`].
    pub fn parse_bounded(
        text: &str,
        files: &BTreeMap<String, String>,
        vars: &BTreeMap<String, String>,
        max_steps: u64,
    ) -> Result<Script, ScriptError> {
        let (steps, _) = blocks::Ctx::new(files, vars, max_steps).parse_file(None, text)?;
        if steps.is_empty() {
            return Err(ScriptError {
                file: None,
                line: 1,
                message: "the script has no steps".into(),
                hint: "write one step per line, e.g. `tap \"Sign in\"`".into(),
                over_max_steps: false,
            });
        }
        Ok(Script { steps })
    }

    /// Every step, blocks' bodies included (each once, in source order).
    pub fn all_steps(&self) -> Vec<&ScriptStep> {
        fn walk<'s>(steps: &'s [ScriptStep], out: &mut Vec<&'s ScriptStep>) {
            for s in steps {
                out.push(s);
                match &s.step {
                    Step::Repeat { body, .. } => walk(body, out),
                    Step::If {
                        then, otherwise, ..
                    } => {
                        walk(then, out);
                        walk(otherwise, out);
                    }
                    Step::Act(_) | Step::Ai { .. } => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.steps, &mut out);
        out
    }

    /// The most steps a run of the script can take: each `repeat` counts its body `times`
    /// over, each `if` one step (the check) plus its longer branch. Saturates.
    pub fn max_steps(&self) -> u64 {
        fn count(steps: &[ScriptStep]) -> u64 {
            steps
                .iter()
                .map(|s| match &s.step {
                    Step::Act(_) | Step::Ai { .. } => 1,
                    Step::Repeat { times, body } => u64::from(*times).saturating_mul(count(body)),
                    Step::If {
                        then, otherwise, ..
                    } => 1 + count(then).max(count(otherwise)),
                })
                .fold(0u64, u64::saturating_add)
        }
        count(&self.steps)
    }
}

type LineResult<T> = Result<T, (String, String)>;

const GRAMMAR_HINT: &str = "steps are: open URL | tap \"X\" | double tap \"X\" | long press \"X\" \
[for 2s] | swipe up|down|left|right [on \"X\"] | scroll until \"X\" is visible | go back | type \"text\" into \"X\" | press KEY | check \"X\" | \
wait for \"X\" | wait 2s | assert screen contains \"X\" [2 times] | assert screen does not contain \"X\" | \
assert \"X\" is [not] checked | assert \"X\" has value \"v\" | assert \"X\" is empty | \
assert 2 items are checked|not checked|listed | ai: \
<instruction for the model> | repeat 3 times: | if screen contains \"X\": | else: | include FILE \
(or 打开 / 点击 / 双击 / 长按 / 上滑 / 在 \"X\" 输入 \"…\" / 按 / 勾选 / 等待 / 断言 页面包含 [2 次] / 断言 页面不包含 / \
断言 \"X\" 已勾选 / 断言 \"X\" 未勾选 / 断言 \"X\" 的值为 \"v\" / 断言 \"X\" 为空 / 断言 共有 2 项已勾选 / \
重复 3 次: / 如果 页面包含 \"X\": / 否则: / 引入 FILE)";

fn err<T>(message: impl Into<String>, hint: impl Into<String>) -> LineResult<T> {
    Err((message.into(), hint.into()))
}

/// Strips a case-insensitive ASCII keyword prefix (followed by whitespace or end).
fn strip_kw<'a>(s: &'a str, kw: &str) -> Option<&'a str> {
    let s = s.trim_start();
    if s.len() < kw.len() || !s.is_char_boundary(kw.len()) {
        return None;
    }
    let (head, tail) = s.split_at(kw.len());
    if !head.eq_ignore_ascii_case(kw) {
        return None;
    }
    if tail.is_empty() || tail.starts_with(char::is_whitespace) {
        return Some(tail.trim_start());
    }
    None
}

/// Strips a prefix that needs no following space (Chinese keywords).
fn strip_cjk<'a>(s: &'a str, kw: &str) -> Option<&'a str> {
    s.trim_start().strip_prefix(kw).map(str::trim_start)
}

/// An `ai: <instruction>` line; `None` when the line is not one.
fn parse_ai(line: &str) -> LineResult<Option<Step>> {
    for kw in ["ai:", "ai：", "AI:", "AI：", "Ai:"] {
        if let Some(rest) = line.strip_prefix(kw) {
            let instruction = rest.trim();
            if instruction.is_empty() {
                return err(
                    "`ai:` needs an instruction",
                    "write ai: sign in and open the settings page",
                );
            }
            return Ok(Some(Step::Ai {
                instruction: instruction.to_string(),
            }));
        }
    }
    Ok(None)
}

/// A `type` step into a named field.
fn type_into(text: String, target: Target) -> Step {
    Step::Act(Action::Type {
        text,
        target: target.into(),
    })
}

/// `type "x" into "F"`, `fill "F" with "x"`, `在 "F" 输入 "x"`, `输入 "x" 到 "F"`; `None` when the line is not one.
fn parse_typing(line: &str) -> LineResult<Option<Step>> {
    for kw in ["type", "enter", "input"] {
        if let Some(rest) = strip_kw(line, kw) {
            if rest.starts_with(is_open_quote) {
                return parse_type_into(rest).map(Some);
            }
        }
    }
    if let Some(rest) = strip_kw(line, "fill") {
        let (target, rest) = parse_target(rest)?;
        let rest = strip_kw(rest, "with").ok_or_else(|| {
            (
                "expected `with` after the field".to_string(),
                "write fill \"Email\" with \"a@b.c\"".to_string(),
            )
        })?;
        let (text, rest) = quoted(rest)?;
        expect_end(rest)?;
        return Ok(Some(type_into(text, target)));
    }
    if let Some(rest) = strip_cjk(line, "在") {
        // 在 "用户名" 输入 "alice"
        let (target, rest) = parse_target(rest)?;
        let rest = strip_cjk(rest, "中")
            .or_else(|| strip_cjk(rest, "里"))
            .unwrap_or(rest);
        let rest = strip_cjk(rest, "输入").ok_or_else(|| {
            (
                "expected 输入 after the field".to_string(),
                "write 在 \"用户名\" 输入 \"alice\"".to_string(),
            )
        })?;
        let (text, rest) = quoted(rest)?;
        expect_end(rest)?;
        return Ok(Some(type_into(text, target)));
    }
    if let Some(rest) = strip_cjk(line, "输入") {
        // 输入 "alice" 到 "用户名"; `输入 "echo hi"` alone: into the focused window.
        let (text, rest) = quoted(rest)?;
        if rest.trim().is_empty() {
            return Ok(Some(Step::Act(Action::Type {
                text,
                target: Aim::Focused,
            })));
        }
        let rest = strip_cjk(rest, "到")
            .or_else(|| strip_cjk(rest, "至"))
            .ok_or_else(|| {
                (
                    "expected 到 and a field after the text".to_string(),
                    "write 输入 \"alice\" 到 \"用户名\"".to_string(),
                )
            })?;
        let (target, rest) = parse_target(rest)?;
        expect_end(rest)?;
        return Ok(Some(type_into(text, target)));
    }
    Ok(None)
}

/// `check` / `uncheck` / `勾选` / `取消勾选`; `None` when the line is not one.
fn parse_set_checked(line: &str) -> LineResult<Option<Step>> {
    for (kw, checked) in [
        ("uncheck", false),
        ("check", true),
        ("取消勾选", false),
        ("勾选", true),
    ] {
        let rest = if kw.is_ascii() {
            strip_kw(line, kw)
        } else {
            strip_cjk(line, kw)
        };
        if let Some(rest) = rest {
            let (mut target, rest) = parse_target(rest)?;
            expect_end(rest)?;
            if target.relation == Relation::Named && target.role.is_none() {
                // `check "buy milk"`: the toggle in that item's row, or the checkbox named so.
                target.relation = Relation::InRowOf;
                target.role = Some("checkbox".into());
            }
            return Ok(Some(Step::Act(Action::SetChecked {
                target: target.into(),
                checked,
            })));
        }
    }
    Ok(None)
}

/// `wait for "X"`, `wait 2s` and their Chinese forms; `None` when the line is not one.
fn parse_wait(line: &str) -> LineResult<Option<Step>> {
    if let Some(rest) = strip_kw(line, "wait for").or_else(|| strip_kw(line, "wait until")) {
        let (text, rest) = quoted(rest)?;
        let rest = rest
            .trim_start_matches(|c: char| c.is_whitespace())
            .trim_start_matches("appears")
            .trim_start_matches("is visible")
            .trim();
        let timeout_ms = parse_optional_timeout(rest)?;
        return Ok(Some(Step::Act(Action::WaitFor { text, timeout_ms })));
    }
    if let Some(rest) = strip_cjk(line, "等待") {
        if rest.starts_with(is_open_quote) {
            let (text, rest) = quoted(rest)?;
            let rest = rest.trim().trim_start_matches("出现").trim();
            let timeout_ms = parse_optional_timeout(rest)?;
            return Ok(Some(Step::Act(Action::WaitFor { text, timeout_ms })));
        }
        return Ok(Some(Step::Act(Action::Sleep {
            ms: parse_duration(rest)?,
        })));
    }
    if let Some(rest) = strip_kw(line, "wait").or_else(|| strip_kw(line, "sleep")) {
        return Ok(Some(Step::Act(Action::Sleep {
            ms: parse_duration(rest)?,
        })));
    }
    Ok(None)
}

fn parse_line(line: &str) -> LineResult<Step> {
    for part in [
        parse_ai,
        parse_typing,
        parse_gesture,
        parse_set_checked,
        parse_wait,
    ] {
        if let Some(step) = part(line)? {
            return Ok(step);
        }
    }
    for kw in ["open", "go to", "goto", "navigate to", "visit"] {
        if let Some(rest) = strip_kw(line, kw) {
            return parse_open(rest);
        }
    }
    if let Some(rest) = strip_cjk(line, "打开") {
        return parse_open(rest);
    }
    for kw in ["press", "hit"] {
        if let Some(rest) = strip_kw(line, kw) {
            return parse_press(rest);
        }
    }
    for kw in ["按下", "按"] {
        if let Some(rest) = strip_cjk(line, kw) {
            return parse_press(rest);
        }
    }
    if let Some(rest) = strip_kw(line, "assert").or_else(|| strip_kw(line, "verify")) {
        return items::parse_en(rest).unwrap_or_else(|| parse_assert(rest, &ASSERT_EN));
    }
    if let Some(rest) = strip_cjk(line, "断言").or_else(|| strip_cjk(line, "检查")) {
        return items::parse_zh(rest).unwrap_or_else(|| parse_assert(rest, &ASSERT_ZH));
    }
    err(
        format!("not a step: {}", first_word(line)),
        GRAMMAR_HINT.to_string(),
    )
}

fn first_word(line: &str) -> String {
    let w: String = line
        .chars()
        .take_while(|c| !c.is_whitespace())
        .take(24)
        .collect();
    format!("`{w}` is not a known step word")
}

fn parse_open(rest: &str) -> LineResult<Step> {
    let url = if rest.starts_with(is_open_quote) {
        let (u, tail) = quoted(rest)?;
        expect_end(tail)?;
        u
    } else {
        rest.trim().to_string()
    };
    if url.is_empty() || url.contains(char::is_whitespace) {
        return err(
            "open needs one URL",
            "write open http://127.0.0.1:8080/ (no spaces in the URL)",
        );
    }
    Ok(Step::Act(Action::Open { url }))
}

fn parse_type_into(rest: &str) -> LineResult<Step> {
    let (text, rest) = quoted(rest)?;
    if rest.trim().is_empty() {
        // `type "echo hi"`: no field named — the keystrokes go to the focused window.
        return Ok(Step::Act(Action::Type {
            text,
            target: Aim::Focused,
        }));
    }
    let rest = strip_kw(rest, "into")
        .or_else(|| strip_kw(rest, "in"))
        .or_else(|| strip_kw(rest, "to"))
        .ok_or_else(|| {
            (
                "expected `into` and a field after the text".to_string(),
                "write type \"buy milk\" into \"What needs to be done?\"".to_string(),
            )
        })?;
    let (target, rest) = parse_target(rest)?;
    expect_end(rest)?;
    Ok(type_into(text, target))
}

/// The key a `press` line names (English or Chinese word, case-insensitive).
fn parse_key(word: &str) -> Option<Key> {
    let w = word.trim().trim_matches('"').to_lowercase();
    Some(match w.as_str() {
        "enter" | "return" | "回车" | "回车键" | "确认键" => Key::Enter,
        "tab" => Key::Tab,
        "escape" | "esc" | "返回键" => Key::Escape,
        "backspace" | "退格" | "退格键" => Key::Backspace,
        "delete" | "del" | "删除键" => Key::Delete,
        "space" | "空格" | "空格键" => Key::Space,
        "arrowup" | "up" => Key::ArrowUp,
        "arrowdown" | "down" => Key::ArrowDown,
        "arrowleft" | "left" => Key::ArrowLeft,
        "arrowright" | "right" => Key::ArrowRight,
        "home" => Key::Home,
        "end" => Key::End,
        "pageup" => Key::PageUp,
        "pagedown" => Key::PageDown,
        _ => return None,
    })
}

fn parse_press(rest: &str) -> LineResult<Step> {
    let word = rest.trim();
    match parse_key(word) {
        Some(key) => Ok(Step::Act(Action::Key { key })),
        None => err(
            format!(
                "unknown key `{}`",
                word.chars().take(24).collect::<String>()
            ),
            "keys: Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp/Down/Left/Right, Home, \
             End, PageUp, PageDown (回车, 空格, 退格); to tap a button write tap \"X\"",
        ),
    }
}

/// What an assertion about one element says of it (the words after its target).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StateWord {
    /// `is checked` (`true`) / `is not checked` (`false`).
    Checked(bool),
    /// `has value "v"`: a quoted value follows.
    Value,
    /// `is empty`: the value is empty.
    Empty,
}

/// The words of one language's assertions: subjects to skip (`screen`), the negative and
/// positive verbs (longest first), what may follow an element's target (longest first), the
/// words after a count (`times`), how a keyword is stripped, and the error's text.
struct AssertWords {
    subjects: &'static [&'static str],
    negative: &'static [&'static str],
    positive: &'static [&'static str],
    states: &'static [(&'static str, StateWord)],
    times: &'static [&'static str],
    strip: for<'a> fn(&'a str, &str) -> Option<&'a str>,
    message: &'static str,
    hint: &'static str,
}

const ASSERT_EN: AssertWords = AssertWords {
    subjects: &["screen", "page", "the screen", "the page"],
    negative: &[
        "does not contain",
        "doesn't contain",
        "not contains",
        "not contain",
    ],
    positive: &["contains", "contain", "displays", "shows", "says", "has"],
    states: &[
        ("is not checked", StateWord::Checked(false)),
        ("isn't checked", StateWord::Checked(false)),
        ("is unchecked", StateWord::Checked(false)),
        ("is checked", StateWord::Checked(true)),
        ("has the value", StateWord::Value),
        ("has value", StateWord::Value),
        ("is empty", StateWord::Empty),
    ],
    times: &["times", "time"],
    strip: strip_kw,
    message: "assert needs `contains \"…\"`, `does not contain \"…\"`, or an element and \
              `is checked`, `is not checked`, `has value \"…\"` or `is empty`",
    hint: "write assert screen contains \"1 item left\" or assert \"Remember me\" is checked",
};

const ASSERT_ZH: AssertWords = AssertWords {
    subjects: &["页面", "屏幕", "界面"],
    negative: &["不包含", "不含", "没有"],
    positive: &["包含", "含有", "显示", "有"],
    states: &[
        ("没有勾选", StateWord::Checked(false)),
        ("未勾选", StateWord::Checked(false)),
        ("未选中", StateWord::Checked(false)),
        ("已勾选", StateWord::Checked(true)),
        ("已选中", StateWord::Checked(true)),
        ("的值为", StateWord::Value),
        ("的值是", StateWord::Value),
        ("值为", StateWord::Value),
        ("为空", StateWord::Empty),
    ],
    times: &["次", "处", "个"],
    strip: strip_cjk,
    message: "断言 needs 包含 \"…\", 不包含 \"…\", or an element and 已勾选, 未勾选, \
              的值为 \"…\" or 为空",
    hint: "write 断言 页面包含 \"欢迎\" or 断言 \"记住我\" 已勾选",
};

fn parse_assert(rest: &str, w: &AssertWords) -> LineResult<Step> {
    if let Some(step) = parse_state(rest, w)? {
        return Ok(step);
    }
    let (present, text, tail) = parse_check(rest, w)?;
    if tail.trim().is_empty() {
        return Ok(Step::Act(if present {
            Action::AssertContains { text }
        } else {
            Action::AssertNotContains { text }
        }));
    }
    if !present {
        return err(
            "a count goes with `contains`, not `does not contain`",
            "write assert screen contains \"X\" 0 times, or assert screen does not contain \"X\"",
        );
    }
    let count = parse_times(tail, w)?;
    Ok(Step::Act(Action::AssertCount { text, count }))
}

/// `2 times` / `2 次` after `contains "X"`: the count.
fn parse_times(tail: &str, w: &AssertWords) -> LineResult<u32> {
    const HINT: &str =
        "write assert screen contains \"Delete\" 2 times (断言 页面包含 \"删除\" 2 次)";
    let tail = tail.trim_start();
    let end = tail
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(tail.len());
    let (num, rest) = tail.split_at(end);
    let Ok(count) = num.parse::<u32>() else {
        return err(
            format!(
                "unexpected words after the text: `{}`; a count is written `2 times` (`2 次`)",
                tail.chars().take(32).collect::<String>()
            ),
            HINT,
        );
    };
    let Some(rest) = w.times.iter().find_map(|t| (w.strip)(rest, t)) else {
        return err("expected `times` (`次`) after the count", HINT);
    };
    expect_end(rest)?;
    Ok(count)
}

/// `"X" is checked`, `"X" is not checked`, `"X" has value "v"`, `"X" is empty` (and the
/// Chinese forms): a check of one element's state; `None` when `rest` is no element target
/// followed by one of those words.
fn parse_state(rest: &str, w: &AssertWords) -> LineResult<Option<Step>> {
    let Ok((mut target, tail)) = parse_target(rest) else {
        return Ok(None);
    };
    let Some((state, tail)) = w
        .states
        .iter()
        .find_map(|(kw, state)| (w.strip)(tail, kw).map(|t| (*state, t)))
    else {
        return Ok(None);
    };
    let action = match state {
        StateWord::Checked(checked) => {
            if target.relation == Relation::Named && target.role.is_none() {
                // Resolved as `check "X"` resolves it: the toggle in X's row, or the one
                // named so.
                target.relation = Relation::InRowOf;
                target.role = Some("checkbox".into());
            }
            expect_end(tail)?;
            Action::AssertChecked {
                target: target.into(),
                checked,
            }
        }
        StateWord::Value => {
            let (value, tail) = quoted(tail).map_err(|(m, _)| {
                (
                    m,
                    "write assert \"Email\" has value \"a@b.c\" (an empty field: assert \"Email\" is empty)"
                        .to_string(),
                )
            })?;
            expect_end(tail)?;
            Action::AssertValue {
                target: target.into(),
                value,
            }
        }
        StateWord::Empty => {
            expect_end(tail)?;
            Action::AssertValue {
                target: target.into(),
                value: String::new(),
            }
        }
    };
    Ok(Some(Step::Act(action)))
}

/// `[screen] contains "X"` / `[screen] does not contain "X"` (an assertion's or an `if`'s):
/// whether the text must be present, the text, and the rest of the line.
fn parse_check<'s>(rest: &'s str, w: &AssertWords) -> LineResult<(bool, String, &'s str)> {
    let rest = w
        .subjects
        .iter()
        .find_map(|s| (w.strip)(rest, s))
        .unwrap_or(rest);
    for (words, negative) in [(w.negative, true), (w.positive, false)] {
        for kw in words {
            if let Some(r) = (w.strip)(rest, kw) {
                let (text, tail) = quoted(r)?;
                return Ok((!negative, text, tail));
            }
        }
    }
    err(w.message, w.hint)
}

fn parse_optional_timeout(rest: &str) -> LineResult<u64> {
    let rest = rest.trim();
    if rest.is_empty() {
        return Ok(DEFAULT_WAIT_FOR_MS);
    }
    let rest = ["up to", "within", "for", "最多"]
        .iter()
        .find_map(|w| {
            if w.is_ascii() {
                strip_kw(rest, w)
            } else {
                strip_cjk(rest, w)
            }
        })
        .unwrap_or(rest);
    parse_duration(rest)
}

/// Parses `500ms`, `2s`, `2 s`, `1.5s`, `3 秒`, `1m`; bounded by [`MAX_WAIT_MS`].
fn parse_duration(s: &str) -> LineResult<u64> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let value: f64 = match num.parse() {
        Ok(v) => v,
        Err(_) => {
            return err(
                "expected a duration such as 500ms or 2s",
                "write wait 2s, wait 500ms or wait for \"X\" up to 10s",
            )
        }
    };
    let factor = match unit.trim().to_lowercase().as_str() {
        "ms" | "毫秒" => 1.0,
        "" | "s" | "sec" | "secs" | "second" | "seconds" | "秒" => 1000.0,
        "m" | "min" | "mins" | "minute" | "minutes" | "分钟" => 60_000.0,
        other => {
            return err(
                format!(
                    "unknown time unit `{}`",
                    other.chars().take(12).collect::<String>()
                ),
                "use ms, s or min",
            )
        }
    };
    let ms = (value * factor).round();
    if !(0.0..=MAX_WAIT_MS as f64).contains(&ms) {
        return err(
            format!("duration {ms} ms is out of range"),
            format!("use at most {} s", MAX_WAIT_MS / 1000),
        );
    }
    Ok(ms as u64)
}

fn is_open_quote(c: char) -> bool {
    matches!(c, '"' | '“' | '「' | '”')
}

/// Reads one quoted string at the start of `s`; returns it and the rest.
fn quoted(s: &str) -> LineResult<(String, &str)> {
    let s = s.trim_start();
    let mut chars = s.char_indices();
    let close = match chars.next() {
        Some((_, '"')) => '"',
        Some((_, '“')) | Some((_, '”')) => '”',
        Some((_, '「')) => '」',
        _ => {
            return err(
                "expected text in double quotes",
                "put names and text in quotes: tap \"Sign in\"",
            )
        }
    };
    let mut out = String::new();
    let mut escaped = false;
    for (i, c) in chars {
        if escaped {
            out.push(c);
            escaped = false;
        } else if c == '\\' && close == '"' {
            escaped = true;
        } else if c == close || (close == '”' && c == '"') {
            if out.is_empty() {
                return err("empty quoted text", "write the text between the quotes");
            }
            return Ok((out, &s[i + c.len_utf8()..]));
        } else {
            out.push(c);
        }
    }
    err("unclosed quote", "close the text with a matching quote")
}

fn expect_end(rest: &str) -> LineResult<()> {
    let rest = rest.trim();
    if rest.is_empty() {
        Ok(())
    } else {
        err(
            format!(
                "unexpected words after the step: `{}`",
                rest.chars().take(32).collect::<String>()
            ),
            "one step per line; put text in quotes",
        )
    }
}

#[cfg(test)]
mod tests;
