//! The script step language: imperative lines in English or Chinese, one step per line.
//!
//! ```text
//! open http://127.0.0.1:8080/            打开 http://127.0.0.1:8080/
//! type "buy milk" into "What needs to be done?"
//!                                         在 "用户名" 输入 "alice"
//! type "echo hi"                          (no field: into the focused window, e.g. a terminal)
//! press Enter                             按 回车
//! tap "Clear completed"                   点击 "登录"
//! check "buy milk"                        勾选 "buy milk"
//! tap the checkbox left of "buy milk"     点击 "buy milk" 左边的 复选框
//! wait for "1 item left"                  等待 "欢迎"
//! wait 500ms
//! assert screen contains "buy milk"       断言 页面包含 "欢迎"
//! assert screen does not contain "error"  断言 页面不包含 "错误"
//! ```
//!
//! Blank lines and lines starting with `#` or `//` are ignored. Text goes in double quotes
//! (`"…"`, `“…”` or `「…」`; `\"` and `\\` escape inside ASCII quotes). A target is a quoted
//! name (accessible name, label, placeholder or visible text), optionally narrowed by a role
//! (`button "Save"`) or placed relative to an anchor (`the checkbox left of "buy milk"`,
//! `the button in the row of "Alice"`). Relations are resolved from element geometry by the
//! worker, never from pixel offsets in the script.

use serde::{Deserialize, Serialize};

use crate::action::{Action, Aim, Direction, DEFAULT_LONG_PRESS_MS, LONG_PRESS_RANGE_MS};

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
    /// The line as written (trimmed).
    pub text: String,
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
}

/// A key name accepted by `press`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Key {
    Enter,
    Tab,
    Escape,
    Backspace,
    Delete,
    Space,
    ArrowUp,
    ArrowDown,
    ArrowLeft,
    ArrowRight,
    Home,
    End,
    PageUp,
    PageDown,
}

impl Key {
    /// Every key, in the order the model's tool schema lists them.
    pub const ALL: [Key; 14] = [
        Key::Enter,
        Key::Tab,
        Key::Escape,
        Key::Backspace,
        Key::Delete,
        Key::Space,
        Key::ArrowUp,
        Key::ArrowDown,
        Key::ArrowLeft,
        Key::ArrowRight,
        Key::Home,
        Key::End,
        Key::PageUp,
        Key::PageDown,
    ];

    /// The key's name as written in tool calls: [`Key::as_str`], but `Space` for the space
    /// bar.
    pub fn name(self) -> &'static str {
        match self {
            Key::Space => "Space",
            k => k.as_str(),
        }
    }

    /// The key named `name` (case-insensitive [`Key::name`] or [`Key::as_str`]).
    pub fn from_name(name: &str) -> Option<Key> {
        Key::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name) || k.as_str() == name)
    }

    /// Canonical (DOM `KeyboardEvent.key`) name, e.g. `"Enter"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Key::Enter => "Enter",
            Key::Tab => "Tab",
            Key::Escape => "Escape",
            Key::Backspace => "Backspace",
            Key::Delete => "Delete",
            Key::Space => " ",
            Key::ArrowUp => "ArrowUp",
            Key::ArrowDown => "ArrowDown",
            Key::ArrowLeft => "ArrowLeft",
            Key::ArrowRight => "ArrowRight",
            Key::Home => "Home",
            Key::End => "End",
            Key::PageUp => "PageUp",
            Key::PageDown => "PageDown",
        }
    }

    fn parse(word: &str) -> Option<Key> {
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
}

/// How a target relates to its quoted anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// The element whose own name/label/placeholder/text is the anchor.
    Named,
    /// Nearest element of the role in the same row, left of the anchor.
    LeftOf,
    /// Nearest element of the role in the same row, right of the anchor.
    RightOf,
    /// Nearest element of the role above the anchor, overlapping it horizontally.
    Above,
    /// Nearest element of the role below the anchor, overlapping it horizontally.
    Below,
    /// Nearest element of the role in the anchor's row, either side.
    InRowOf,
}

/// Which element a step acts on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// Canonical role the element must have (`button`, `checkbox`, …), if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The quoted text: the element's own name for [`Relation::Named`], else the anchor's.
    pub name: String,
    /// How the element relates to `name`.
    pub relation: Relation,
}

impl Target {
    /// A target named by its own text.
    pub fn named(name: &str) -> Target {
        Target {
            role: None,
            name: name.to_string(),
            relation: Relation::Named,
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let role = self.role.as_deref().unwrap_or("element");
        match self.relation {
            Relation::Named => match &self.role {
                Some(r) => write!(f, "{r} {:?}", self.name),
                None => write!(f, "{:?}", self.name),
            },
            Relation::LeftOf => write!(f, "the {role} left of {:?}", self.name),
            Relation::RightOf => write!(f, "the {role} right of {:?}", self.name),
            Relation::Above => write!(f, "the {role} above {:?}", self.name),
            Relation::Below => write!(f, "the {role} below {:?}", self.name),
            Relation::InRowOf => write!(f, "the {role} in the row of {:?}", self.name),
        }
    }
}

/// A line that could not be parsed: where, what, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ScriptError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

/// Role words accepted in targets, mapped to canonical roles.
const ROLE_WORDS: &[(&str, &str)] = &[
    ("button", "button"),
    ("checkbox", "checkbox"),
    ("check box", "checkbox"),
    ("toggle", "checkbox"),
    ("switch", "switch"),
    ("link", "link"),
    ("textbox", "textfield"),
    ("text field", "textfield"),
    ("textfield", "textfield"),
    ("input", "textfield"),
    ("field", "textfield"),
    ("tab", "tab"),
    ("menu item", "menuitem"),
    ("menuitem", "menuitem"),
    ("radio", "radio"),
    ("radio button", "radio"),
    ("image", "image"),
    ("icon", "image"),
    ("heading", "heading"),
    ("text", "text"),
    ("label", "text"),
    ("list item", "listitem"),
    ("listitem", "listitem"),
    ("combobox", "combobox"),
    ("dropdown", "combobox"),
    ("slider", "slider"),
    ("按钮", "button"),
    ("复选框", "checkbox"),
    ("勾选框", "checkbox"),
    ("开关", "switch"),
    ("链接", "link"),
    ("输入框", "textfield"),
    ("文本框", "textfield"),
    ("标签页", "tab"),
    ("菜单项", "menuitem"),
    ("单选框", "radio"),
    ("图标", "image"),
    ("图片", "image"),
    ("标题", "heading"),
    ("文本", "text"),
];

/// Canonical role for a role word (`"check box"` → `"checkbox"`), if known.
pub fn canonical_role(word: &str) -> Option<&'static str> {
    let w = word.trim().to_lowercase();
    let w = w.trim_start_matches("the ").trim();
    ROLE_WORDS
        .iter()
        .find(|(k, _)| *k == w || format!("{k}s") == w)
        .map(|(_, v)| *v)
}

impl Script {
    /// Parses every line; fails on the first line that is not a step.
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        let mut steps = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
                continue;
            }
            let step = parse_line(line).map_err(|(message, hint)| ScriptError {
                line: i + 1,
                message,
                hint,
            })?;
            steps.push(ScriptStep {
                line: i + 1,
                text: line.to_string(),
                step,
            });
        }
        if steps.is_empty() {
            return Err(ScriptError {
                line: 1,
                message: "the script has no steps".into(),
                hint: "write one step per line, e.g. `tap \"Sign in\"`".into(),
            });
        }
        Ok(Script { steps })
    }
}

type LineResult<T> = Result<T, (String, String)>;

const GRAMMAR_HINT: &str = "steps are: open URL | tap \"X\" | double tap \"X\" | long press \"X\" \
[for 2s] | swipe up|down|left|right [on \"X\"] | type \"text\" into \"X\" | press KEY | check \"X\" | \
wait for \"X\" | wait 2s | assert screen contains \"X\" | assert screen does not contain \"X\" | ai: \
<instruction for the model> (or 打开 / 点击 / 双击 / 长按 / 上滑 / 在 \"X\" 输入 \"…\" / 按 / 勾选 / 等待 / 断言 \
页面包含 / 断言 页面不包含)";

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
        return Ok(Some(Step::Act(Action::Type {
            text,
            target: target.into(),
        })));
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
        return Ok(Some(Step::Act(Action::Type {
            text,
            target: target.into(),
        })));
    }
    if let Some(rest) = strip_cjk(line, "输入") {
        // 输入 "alice" 到 "用户名"
        let (text, rest) = quoted(rest)?;
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
        return Ok(Some(Step::Act(Action::Type {
            text,
            target: target.into(),
        })));
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
        return parse_assert_en(rest);
    }
    if let Some(rest) = strip_cjk(line, "断言").or_else(|| strip_cjk(line, "检查")) {
        return parse_assert_zh(rest);
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
    Ok(Step::Act(Action::Type {
        text,
        target: target.into(),
    }))
}

/// A pointer gesture aimed at a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gesture {
    Tap,
    DoubleTap,
    LongPress,
}

/// The gesture grammar: leading words (English, then Chinese) → gesture. Longer phrases
/// first, so `double tap` is never read as `tap`.
const GESTURE_WORDS: &[(&str, Gesture)] = &[
    ("double tap on", Gesture::DoubleTap),
    ("double-tap on", Gesture::DoubleTap),
    ("double click on", Gesture::DoubleTap),
    ("double-click on", Gesture::DoubleTap),
    ("double tap", Gesture::DoubleTap),
    ("double-tap", Gesture::DoubleTap),
    ("double click", Gesture::DoubleTap),
    ("double-click", Gesture::DoubleTap),
    ("doubleclick", Gesture::DoubleTap),
    ("long press on", Gesture::LongPress),
    ("long-press on", Gesture::LongPress),
    ("long press", Gesture::LongPress),
    ("long-press", Gesture::LongPress),
    ("press and hold", Gesture::LongPress),
    ("tap on", Gesture::Tap),
    ("click on", Gesture::Tap),
    ("tap", Gesture::Tap),
    ("click", Gesture::Tap),
    ("双击", Gesture::DoubleTap),
    ("长按", Gesture::LongPress),
    ("点击", Gesture::Tap),
    ("单击", Gesture::Tap),
];

/// Swipe words: `swipe up [on "X"]`, `scroll down` (= swipe up), `上滑`, `向上滑动 "列表"`.
fn parse_swipe(line: &str) -> LineResult<Option<Step>> {
    let (dir_word, rest, invert) = if let Some(r) = strip_kw(line, "swipe") {
        let w = r.split_whitespace().next().unwrap_or("");
        (w.to_string(), r[w.len()..].to_string(), false)
    } else if let Some(r) = strip_kw(line, "scroll") {
        let w = r.split_whitespace().next().unwrap_or("");
        (w.to_string(), r[w.len()..].to_string(), true)
    } else {
        let t = line.trim_start();
        let t = t.strip_prefix("向").unwrap_or(t);
        let Some(d) = t.chars().next().filter(|c| "上下左右".contains(*c)) else {
            return Ok(None);
        };
        let t = &t[d.len_utf8()..];
        let Some(r) = t.strip_prefix("滑动").or_else(|| t.strip_prefix("滑")) else {
            return Ok(None);
        };
        (d.to_string(), r.to_string(), false)
    };
    let Some(mut direction) = Direction::parse(&dir_word) else {
        return err(
            format!(
                "unknown direction `{}`",
                dir_word.chars().take(12).collect::<String>()
            ),
            "write swipe up|down|left|right [on \"X\"] (上滑 / 下滑 / 左滑 / 右滑)",
        );
    };
    if invert {
        // `scroll down` moves the content down: the finger goes up.
        direction = match direction {
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
            Direction::Left => Direction::Right,
            Direction::Right => Direction::Left,
        };
    }
    let rest = rest.trim();
    let rest = strip_kw(rest, "on")
        .or_else(|| strip_kw(rest, "in"))
        .or_else(|| strip_kw(rest, "across"))
        .or_else(|| strip_cjk(rest, "在"))
        .unwrap_or(rest);
    if rest.trim().is_empty() {
        return Ok(Some(Step::Act(Action::Swipe {
            direction,
            on: None,
        })));
    }
    let (target, tail) = parse_target(rest)?;
    expect_end(tail)?;
    Ok(Some(Step::Act(Action::Swipe {
        direction,
        on: Some(target.into()),
    })))
}

/// Tap, double tap, long press (`long press "X" [for 2s]`) and swipe lines; `None` when the
/// line is none of them.
fn parse_gesture(line: &str) -> LineResult<Option<Step>> {
    if let Some(step) = parse_swipe(line)? {
        return Ok(Some(step));
    }
    let Some((rest, gesture)) = GESTURE_WORDS.iter().find_map(|(kw, g)| {
        let r = if kw.is_ascii() {
            strip_kw(line, kw)
        } else {
            strip_cjk(line, kw)
        };
        r.map(|r| (r, *g))
    }) else {
        return Ok(None);
    };
    let (target, rest) = parse_target(rest)?;
    let target = target.into();
    let action = match gesture {
        Gesture::Tap => {
            expect_end(rest)?;
            Action::Tap { target }
        }
        Gesture::DoubleTap => {
            expect_end(rest)?;
            Action::DoubleTap { target }
        }
        Gesture::LongPress => {
            let rest = rest.trim();
            let duration_ms = if rest.is_empty() {
                DEFAULT_LONG_PRESS_MS
            } else {
                let r = strip_kw(rest, "for").unwrap_or(rest);
                let ms = parse_duration(r)?;
                let (lo, hi) = LONG_PRESS_RANGE_MS;
                if !(lo..=hi).contains(&ms) {
                    return err(
                        format!("a long press of {ms} ms is out of range"),
                        format!("hold between {lo} ms and {} s", hi / 1000),
                    );
                }
                ms
            };
            Action::LongPress {
                target,
                duration_ms,
            }
        }
    };
    Ok(Some(Step::Act(action)))
}

fn parse_press(rest: &str) -> LineResult<Step> {
    let word = rest.trim();
    match Key::parse(word) {
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

fn parse_assert_en(rest: &str) -> LineResult<Step> {
    let rest = ["screen", "page", "the screen", "the page"]
        .iter()
        .find_map(|w| strip_kw(rest, w))
        .unwrap_or(rest);
    for kw in [
        "does not contain",
        "doesn't contain",
        "not contains",
        "not contain",
    ] {
        if let Some(r) = strip_kw(rest, kw) {
            let (text, tail) = quoted(r)?;
            expect_end(tail)?;
            return Ok(Step::Act(Action::AssertNotContains { text }));
        }
    }
    for kw in ["contains", "contain", "shows", "has"] {
        if let Some(r) = strip_kw(rest, kw) {
            let (text, tail) = quoted(r)?;
            expect_end(tail)?;
            return Ok(Step::Act(Action::AssertContains { text }));
        }
    }
    err(
        "assert needs `contains \"…\"` or `does not contain \"…\"`",
        "write assert screen contains \"1 item left\"",
    )
}

fn parse_assert_zh(rest: &str) -> LineResult<Step> {
    let rest = ["页面", "屏幕", "界面"]
        .iter()
        .find_map(|w| strip_cjk(rest, w))
        .unwrap_or(rest);
    for kw in ["不包含", "不含", "没有"] {
        if let Some(r) = strip_cjk(rest, kw) {
            let (text, tail) = quoted(r)?;
            expect_end(tail)?;
            return Ok(Step::Act(Action::AssertNotContains { text }));
        }
    }
    for kw in ["包含", "含有", "显示", "有"] {
        if let Some(r) = strip_cjk(rest, kw) {
            let (text, tail) = quoted(r)?;
            expect_end(tail)?;
            return Ok(Step::Act(Action::AssertContains { text }));
        }
    }
    err(
        "断言 needs 包含 \"…\" or 不包含 \"…\"",
        "write 断言 页面包含 \"欢迎\"",
    )
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

const RELATIONS_EN: &[(&str, Relation)] = &[
    ("to the left of", Relation::LeftOf),
    ("left of", Relation::LeftOf),
    ("to the right of", Relation::RightOf),
    ("right of", Relation::RightOf),
    ("above", Relation::Above),
    ("below", Relation::Below),
    ("under", Relation::Below),
    ("in the row of", Relation::InRowOf),
    ("in row of", Relation::InRowOf),
    ("next to", Relation::InRowOf),
    ("beside", Relation::InRowOf),
    ("for", Relation::InRowOf),
    ("of", Relation::InRowOf),
];

const RELATIONS_ZH: &[(&str, Relation)] = &[
    ("左边的", Relation::LeftOf),
    ("左侧的", Relation::LeftOf),
    ("右边的", Relation::RightOf),
    ("右侧的", Relation::RightOf),
    ("上面的", Relation::Above),
    ("上方的", Relation::Above),
    ("下面的", Relation::Below),
    ("下方的", Relation::Below),
    ("同一行的", Relation::InRowOf),
    ("旁边的", Relation::InRowOf),
];

/// Parses a target at the start of `s`: `"X"`, `button "X"`, `the checkbox left of "X"`,
/// or (Chinese) `"X"`, `"X" 按钮`, `"X" 左边的 复选框`. Returns the target and the rest.
fn parse_target(s: &str) -> LineResult<(Target, &str)> {
    let s = s.trim_start();
    if s.starts_with(is_open_quote) {
        let (name, rest) = quoted(s)?;
        let rest_t = rest.trim_start();
        for (kw, rel) in RELATIONS_ZH {
            if let Some(after) = strip_cjk(rest_t, kw) {
                let (word, tail) = split_role_word(after);
                let role = canonical_role(word).ok_or_else(|| unknown_role(word))?;
                return Ok((
                    Target {
                        role: Some(role.into()),
                        name,
                        relation: *rel,
                    },
                    tail,
                ));
            }
        }
        // `"Save" button` / `"保存" 按钮`
        let (word, tail) = split_role_word(rest_t);
        if !word.is_empty() {
            if let Some(role) = canonical_role(word) {
                return Ok((
                    Target {
                        role: Some(role.into()),
                        name,
                        relation: Relation::Named,
                    },
                    tail,
                ));
            }
        }
        return Ok((Target::named(&name), rest));
    }
    // `the checkbox left of "X"`, `button "Save"`
    let Some(q) = s.find(is_open_quote) else {
        return err(
            "expected a quoted name for the target",
            "write tap \"Sign in\" or tap the checkbox left of \"buy milk\"",
        );
    };
    let head = s[..q].trim();
    let head_lc = head.to_lowercase();
    let head_lc = head_lc.strip_prefix("the ").unwrap_or(&head_lc).trim();
    for (kw, rel) in RELATIONS_EN {
        if let Some(role_word) = head_lc.strip_suffix(kw) {
            let role_word = role_word.trim();
            if role_word.is_empty() {
                continue;
            }
            let role = canonical_role(role_word).ok_or_else(|| unknown_role(role_word))?;
            let (name, rest) = quoted(&s[q..])?;
            return Ok((
                Target {
                    role: Some(role.into()),
                    name,
                    relation: *rel,
                },
                rest,
            ));
        }
    }
    let role = canonical_role(head_lc).ok_or_else(|| unknown_role(head))?;
    let (name, rest) = quoted(&s[q..])?;
    Ok((
        Target {
            role: Some(role.into()),
            name,
            relation: Relation::Named,
        },
        rest,
    ))
}

fn split_role_word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    // Chinese role words may be followed directly by more text; try the longest known word.
    for (k, _) in ROLE_WORDS {
        if !k.is_ascii() {
            if let Some(rest) = s.strip_prefix(k) {
                return (k, rest);
            }
        }
    }
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

fn unknown_role(word: &str) -> (String, String) {
    (
        format!(
            "unknown element kind `{}`",
            word.chars().take(24).collect::<String>()
        ),
        "kinds: button, checkbox, switch, link, textbox, tab, menu item, radio, image, heading, \
         text, list item, combobox, slider (按钮, 复选框, 输入框, 链接 …)"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::Aim;

    fn one(line: &str) -> Step {
        Script::parse(line).unwrap().steps.remove(0).step
    }

    #[test]
    fn ai_lines_mix_with_script_lines() {
        let s = Script::parse("tap \"OK\"\nai: add a todo called milk\nAI： 完成登录").unwrap();
        assert_eq!(
            s.steps[1].step,
            Step::Ai {
                instruction: "add a todo called milk".into()
            }
        );
        assert_eq!(
            s.steps[2].step,
            Step::Ai {
                instruction: "完成登录".into()
            }
        );
        assert_eq!(Script::parse("ai:   ").unwrap_err().line, 1);
    }

    #[test]
    fn type_without_a_field_goes_to_the_focused_window() {
        assert_eq!(
            one(r#"type "echo hello-argus""#),
            Step::Act(Action::Type {
                text: "echo hello-argus".into(),
                target: Aim::Focused
            })
        );
        assert!(Script::parse(r#"type "x" onto "F""#).is_err());
    }

    #[test]
    fn english_steps() {
        assert_eq!(
            one("open http://127.0.0.1:8080/"),
            Step::Act(Action::Open {
                url: "http://127.0.0.1:8080/".into()
            })
        );
        assert_eq!(
            one(r#"type "buy milk" into "What needs to be done?""#),
            Step::Act(Action::Type {
                text: "buy milk".into(),
                target: Target::named("What needs to be done?").into()
            })
        );
        assert_eq!(
            one("press Enter"),
            Step::Act(Action::Key { key: Key::Enter })
        );
        assert_eq!(
            one(r#"tap "Clear completed""#),
            Step::Act(Action::Tap {
                target: Target::named("Clear completed").into()
            })
        );
        assert_eq!(
            one(r#"wait for "1 item left""#),
            Step::Act(Action::WaitFor {
                text: "1 item left".into(),
                timeout_ms: DEFAULT_WAIT_FOR_MS
            })
        );
        assert_eq!(
            one(r#"wait for "done" up to 10s"#),
            Step::Act(Action::WaitFor {
                text: "done".into(),
                timeout_ms: 10_000
            })
        );
        assert_eq!(
            one(r#"assert screen contains "buy milk""#),
            Step::Act(Action::AssertContains {
                text: "buy milk".into()
            })
        );
        assert_eq!(
            one(r#"assert screen does not contain "error""#),
            Step::Act(Action::AssertNotContains {
                text: "error".into()
            })
        );
        assert_eq!(one("wait 500ms"), Step::Act(Action::Sleep { ms: 500 }));
    }

    #[test]
    fn relations_and_roles() {
        assert_eq!(
            one(r#"tap the checkbox left of "buy milk""#),
            Step::Act(Action::Tap {
                target: Aim::Target(Target {
                    role: Some("checkbox".into()),
                    name: "buy milk".into(),
                    relation: Relation::LeftOf
                })
            })
        );
        assert_eq!(
            one(r#"check "buy milk""#),
            Step::Act(Action::SetChecked {
                target: Aim::Target(Target {
                    role: Some("checkbox".into()),
                    name: "buy milk".into(),
                    relation: Relation::InRowOf
                }),
                checked: true
            })
        );
        assert_eq!(
            one(r#"tap button "Save""#),
            Step::Act(Action::Tap {
                target: Aim::Target(Target {
                    role: Some("button".into()),
                    name: "Save".into(),
                    relation: Relation::Named
                })
            })
        );
    }

    #[test]
    fn chinese_steps() {
        assert_eq!(
            one(r#"点击 "登录""#),
            Step::Act(Action::Tap {
                target: Target::named("登录").into()
            })
        );
        assert_eq!(
            one(r#"在 "用户名" 输入 "alice""#),
            Step::Act(Action::Type {
                text: "alice".into(),
                target: Target::named("用户名").into()
            })
        );
        assert_eq!(
            one(r#"断言 页面包含 "欢迎""#),
            Step::Act(Action::AssertContains {
                text: "欢迎".into()
            })
        );
        assert_eq!(
            one("断言 页面不包含 “错误”"),
            Step::Act(Action::AssertNotContains {
                text: "错误".into()
            })
        );
        assert_eq!(one("按 回车"), Step::Act(Action::Key { key: Key::Enter }));
        assert_eq!(
            one(r#"点击 "buy milk" 左边的 复选框"#),
            Step::Act(Action::Tap {
                target: Aim::Target(Target {
                    role: Some("checkbox".into()),
                    name: "buy milk".into(),
                    relation: Relation::LeftOf
                })
            })
        );
    }

    #[test]
    fn errors_name_the_line_and_never_panic() {
        let e = Script::parse("open http://x\n\nfly to the moon").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("fly"), "{e:?}");
        assert!(Script::parse(r#"tap "unclosed"#).is_err());
        assert!(Script::parse("press Hyper").is_err());
        assert!(Script::parse("tap the gizmo left of \"x\"").is_err());
        assert!(Script::parse("# only a comment").is_err());
        assert!(Script::parse("wait 99999999s").is_err());
        for junk in [
            "\"",
            "“",
            "在",
            "断言",
            "tap",
            "type \"x\"",
            "「",
            "wait for",
            "é",
        ] {
            let _ = Script::parse(junk);
        }
    }

    #[test]
    fn gestures_in_english_and_chinese() {
        let row = || -> Aim { Target::named("Row").into() };
        for line in [
            r#"double tap "Row""#,
            r#"double-click "Row""#,
            r#"double click on "Row""#,
            r#"双击 "Row""#,
        ] {
            assert_eq!(
                one(line),
                Step::Act(Action::DoubleTap { target: row() }),
                "{line}"
            );
        }
        assert_eq!(
            one(r#"long press "Row""#),
            Step::Act(Action::LongPress {
                target: row(),
                duration_ms: DEFAULT_LONG_PRESS_MS
            })
        );
        assert_eq!(
            one(r#"长按 "Row" 2秒"#),
            Step::Act(Action::LongPress {
                target: row(),
                duration_ms: 2000
            })
        );
        assert!(Script::parse(r#"long press "Row" for 20 min"#).is_err());
        assert_eq!(
            one("swipe up"),
            Step::Act(Action::Swipe {
                direction: Direction::Up,
                on: None
            })
        );
        assert_eq!(
            one("scroll down"),
            Step::Act(Action::Swipe {
                direction: Direction::Up,
                on: None
            })
        );
        assert_eq!(
            one(r#"swipe left on "Row""#),
            Step::Act(Action::Swipe {
                direction: Direction::Left,
                on: Some(row())
            })
        );
        assert_eq!(
            one(r#"向右滑动 "Row""#),
            Step::Act(Action::Swipe {
                direction: Direction::Right,
                on: Some(row())
            })
        );
        assert_eq!(
            one("下滑"),
            Step::Act(Action::Swipe {
                direction: Direction::Down,
                on: None
            })
        );
        assert!(Script::parse("swipe sideways").is_err());
        // `press and hold` is a gesture, not a key.
        assert!(matches!(
            one(r#"press and hold "Row""#),
            Step::Act(Action::LongPress { .. })
        ));
    }

    #[test]
    fn escapes_inside_quotes() {
        assert_eq!(
            one(r#"type "say \"hi\"" into "Message""#),
            Step::Act(Action::Type {
                text: "say \"hi\"".into(),
                target: Target::named("Message").into()
            })
        );
    }
}
