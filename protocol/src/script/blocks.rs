//! Script structure: `repeat N times:` and `if screen contains "X":` / `else:` blocks, and
//! `include FILE` lines, read from a file's lines before each line is parsed as a step.
//!
//! **Blocks.** A block header's body is every following line indented deeper than the header
//! (spaces); the block ends at the first line indented no deeper. Outside blocks indentation
//! means nothing (as before blocks existed). In a script that has any block, a tab in a
//! line's indentation is refused (line named): its width is ambiguous. Blocks nest up to
//! [`MAX_BLOCK_DEPTH`] deep; `repeat` runs its body 1..=[`MAX_REPEAT`] times.
//!
//! **Includes.** `include login.steps` (`引入 login.steps`) splices the steps of another file
//! in place, at the include line's block. Files come from the job's `files` map, keyed by the
//! path relative to the main script's folder ([`resolve_include`]: an include is relative to
//! the file that includes it); the CLI fills the map from disk. A file not in the map, a cycle,
//! or more than [`MAX_INCLUDE_DEPTH`] nested includes is an error naming the file and line.
//!
//! **Bounded expansion.** Includes multiply: a file that includes another 4,000 times, which
//! includes a third 4,000 times, is 16 M steps from 128 KB of text. So steps are counted while
//! they are spliced, and expansion stops at the first line past a bound: the job's step
//! budget (each block counts its steps the way [`super::Script::max_steps`] does — a block's
//! count never exceeds the whole script's, so a block over the budget means the script is)
//! and, whatever the budget, [`MAX_PARSED_STEPS`] steps parsed in all (`if` / `else`
//! branches both count). The error names the bound, the file and the line.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::vars::substitute;
use super::{
    err, parse_check, parse_line, quoted, strip_cjk, strip_kw, LineResult, ScriptError, ScriptStep,
    Step, ASSERT_EN, ASSERT_ZH,
};

/// Most times a `repeat` block may run its body.
pub const MAX_REPEAT: u32 = 100;
/// Deepest nesting of `repeat` / `if` blocks.
pub const MAX_BLOCK_DEPTH: usize = 8;
/// Deepest chain of nested includes.
pub const MAX_INCLUDE_DEPTH: usize = 8;
/// Most steps parsed for one script, includes spliced and both branches of every `if`
/// counted, whatever the step budget: bounds the work of one parse.
pub const MAX_PARSED_STEPS: usize = 10_000;

/// The condition of an `if` block: whether the screen's text (the same matching as `assert
/// screen contains`) holds `text`, evaluated when the run reaches the block.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Condition {
    /// The text to look for.
    pub text: String,
    /// `true`: `contains`; `false`: `does not contain`.
    pub present: bool,
}

impl Condition {
    /// Whether the condition holds for a screen that does (`shown`) or does not show the text.
    pub fn holds(&self, shown: bool) -> bool {
        shown == self.present
    }
}

impl std::fmt::Display for Condition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.present {
            write!(f, "screen contains {:?}", self.text)
        } else {
            write!(f, "screen does not contain {:?}", self.text)
        }
    }
}

/// The key under which an `include` written as `written` in the file keyed `from` (`None`:
/// the main script) is found in the job's `files`: the path joined to `from`'s folder, with
/// `.` and `..` folded (`sub/a.steps` including `../b.steps` → `b.steps`). Absolute paths
/// stay absolute. Pure string work: the CLI reads the same key from disk, relative to the
/// main script's folder.
pub fn resolve_include(from: Option<&str>, written: &str) -> String {
    let absolute = written.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    if !absolute {
        if let Some(from) = from {
            let from_abs = from.starts_with('/');
            parts.extend(from.split('/').filter(|p| !p.is_empty()));
            parts.pop(); // the including file's own name
            if from_abs {
                return fold("/", parts, written);
            }
        }
    }
    fold(if absolute { "/" } else { "" }, parts, written)
}

fn fold<'a>(root: &str, mut parts: Vec<&'a str>, written: &'a str) -> String {
    for p in written.split('/') {
        match p {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            ".." if !root.is_empty() => {}
            p => parts.push(p),
        }
    }
    format!("{root}{}", parts.join("/"))
}

/// One line that is not blank or a comment, variables filled in.
struct Line {
    no: usize,
    indent: usize,
    tab: bool,
    text: String,
}

/// A block header (or an include, which also shapes the script rather than acting).
enum Header {
    Repeat(u32),
    If(Condition),
    Else,
    Include(String),
}

/// Parsing state shared across included files.
pub(super) struct Ctx<'a> {
    pub(super) files: &'a BTreeMap<String, String>,
    pub(super) vars: &'a BTreeMap<String, String>,
    /// The include chain being parsed (file keys), for cycles and depth.
    chain: Vec<String>,
    /// Most steps a run of the script may take (the job's `max_steps`).
    budget: u64,
    /// Steps parsed so far, for [`MAX_PARSED_STEPS`].
    parsed: usize,
    /// Each included file's lines, read once however often it is included.
    read: HashMap<String, Rc<Vec<Line>>>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(
        files: &'a BTreeMap<String, String>,
        vars: &'a BTreeMap<String, String>,
        budget: u64,
    ) -> Ctx<'a> {
        Ctx {
            files,
            vars,
            chain: Vec::new(),
            budget,
            parsed: 0,
            read: HashMap::new(),
        }
    }

    /// The steps of one file (`file`: its key; `None` for the main script) and how many a
    /// run of them can take.
    pub(super) fn parse_file(
        &mut self,
        file: Option<&str>,
        text: &str,
    ) -> Result<(Vec<ScriptStep>, u64), ScriptError> {
        let lines = match file.and_then(|k| self.read.get(k)) {
            Some(l) => l.clone(),
            None => {
                let l = Rc::new(self.lines(file, text)?);
                if let Some(k) = file {
                    self.read.insert(k.to_string(), l.clone());
                }
                l
            }
        };
        self.block(file, &lines, 0)
    }

    /// Counts `n` more parsed steps and `add` more run steps for a block that has `run`
    /// so far; errors at the line past a bound.
    fn count(
        &mut self,
        file: Option<&str>,
        line: usize,
        run: &mut u64,
        add: u64,
        n: usize,
    ) -> Result<(), ScriptError> {
        *run = run.saturating_add(add);
        self.parsed = self.parsed.saturating_add(n);
        if *run > self.budget {
            let mut e = error(
                file,
                line,
                format!(
                    "the script can take at least {run} steps (repeats counted out, includes \
                     spliced) but max_steps is {}; expansion stopped at {}line {line}",
                    self.budget,
                    file.map(|f| format!("{f} ")).unwrap_or_default()
                ),
                "raise max_steps (at most 1000) or repeat and include less".into(),
            );
            e.over_max_steps = true;
            return Err(e);
        }
        if self.parsed > MAX_PARSED_STEPS {
            return Err(error(
                file,
                line,
                format!(
                    "the script spells out more than {MAX_PARSED_STEPS} steps (includes spliced, \
                     both branches of each if counted); stopped expanding here"
                ),
                "include files fewer times or split the job".into(),
            ));
        }
        Ok(())
    }

    fn lines(&self, file: Option<&str>, text: &str) -> Result<Vec<Line>, ScriptError> {
        let mut out = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
                continue;
            }
            let lead = &raw[..raw.len() - raw.trim_start().len()];
            let text =
                substitute(line, self.vars, true).map_err(|(m, h)| error(file, i + 1, m, h))?;
            out.push(Line {
                no: i + 1,
                indent: lead.chars().count(),
                tab: lead.contains('\t'),
                text: text.trim().to_string(),
            });
        }
        let has_blocks = out.iter().any(|l| {
            matches!(
                header(&l.text),
                Ok(Some(Header::Repeat(_) | Header::If(_) | Header::Else))
            )
        });
        if let Some(l) = out.iter().find(|l| has_blocks && l.tab) {
            return Err(error(
                file,
                l.no,
                "a tab in the indentation of a script with blocks".into(),
                "indent the lines of a `repeat` / `if` block with spaces".into(),
            ));
        }
        Ok(out)
    }

    /// Sibling lines (and the bodies of their headers) as steps.
    fn block(
        &mut self,
        file: Option<&str>,
        lines: &[Line],
        depth: usize,
    ) -> Result<(Vec<ScriptStep>, u64), ScriptError> {
        let mut out = Vec::new();
        let mut run = 0u64;
        let mut i = 0;
        while i < lines.len() {
            let l = &lines[i];
            let at = |m: String, h: String| error(file, l.no, m, h);
            let head = header(&l.text).map_err(|(m, h)| at(m, h))?;
            let step = |step: Step| ScriptStep {
                line: l.no,
                text: l.text.clone(),
                file: file.map(str::to_string),
                step,
            };
            match head {
                None => {
                    let s = parse_line(&l.text).map_err(|(m, h)| at(m, h))?;
                    out.push(step(s));
                    self.count(file, l.no, &mut run, 1, 1)?;
                    i += 1;
                }
                Some(Header::Include(path)) => {
                    let (steps, n) = self.include(file, l.no, &path)?;
                    out.extend(steps);
                    self.count(file, l.no, &mut run, n, 0)?;
                    i += 1;
                }
                Some(Header::Else) => {
                    return Err(at(
                        "`else:` without an `if …:` block just above it".into(),
                        "put else: at the same indentation as its if, right after the if's block"
                            .into(),
                    ))
                }
                Some(Header::Repeat(times)) => {
                    let (body, n, end) = self.body(file, lines, i, depth)?;
                    out.push(step(Step::Repeat { times, body }));
                    self.count(file, l.no, &mut run, u64::from(times).saturating_mul(n), 1)?;
                    i = end;
                }
                Some(Header::If(condition)) => {
                    let (then, n_then, end) = self.body(file, lines, i, depth)?;
                    i = end;
                    let (mut otherwise, mut n_else) = (Vec::new(), 0);
                    let is_else = |e: &Line| {
                        e.indent == l.indent && matches!(header(&e.text), Ok(Some(Header::Else)))
                    };
                    if lines.get(i).is_some_and(is_else) {
                        let (body, n, end) = self.body(file, lines, i, depth)?;
                        (otherwise, n_else) = (body, n);
                        i = end;
                    }
                    out.push(step(Step::If {
                        condition,
                        then,
                        otherwise,
                    }));
                    self.count(file, l.no, &mut run, 1 + n_then.max(n_else), 1)?;
                }
            }
        }
        Ok((out, run))
    }

    /// The block under the header at `lines[i]`: its steps, how many a run of them can
    /// take, and the index after it.
    fn body(
        &mut self,
        file: Option<&str>,
        lines: &[Line],
        i: usize,
        depth: usize,
    ) -> Result<(Vec<ScriptStep>, u64, usize), ScriptError> {
        let head = &lines[i];
        let at = |m: String, h: &str| error(file, head.no, m, h.to_string());
        if depth >= MAX_BLOCK_DEPTH {
            return Err(at(
                format!("blocks nest more than {MAX_BLOCK_DEPTH} deep"),
                "move the inner steps into an included file or flatten them",
            ));
        }
        let end = i
            + 1
            + lines[i + 1..]
                .iter()
                .take_while(|m| m.indent > head.indent)
                .count();
        if end == i + 1 {
            return Err(at(
                format!("`{}` needs an indented block under it", head.text),
                "indent the block's steps deeper than its header (spaces), e.g. `repeat 3 \
                 times:` and then `  press Enter` on the next line",
            ));
        }
        let (steps, n) = self.block(file, &lines[i + 1..end], depth + 1)?;
        Ok((steps, n, end))
    }

    fn include(
        &mut self,
        from: Option<&str>,
        line: usize,
        written: &str,
    ) -> Result<(Vec<ScriptStep>, u64), ScriptError> {
        let key = resolve_include(from, written);
        let at = |m: String, h: &str| error(from, line, m, h.to_string());
        if self.chain.contains(&key) {
            let mut cycle: Vec<&str> = self.chain.iter().map(String::as_str).collect();
            cycle.push(&key);
            return Err(at(
                format!("include cycle: {}", cycle.join(" → ")),
                "a file may not include itself, directly or through others",
            ));
        }
        if self.chain.len() >= MAX_INCLUDE_DEPTH {
            return Err(at(
                format!("includes nest more than {MAX_INCLUDE_DEPTH} deep"),
                "include the files from fewer levels",
            ));
        }
        let Some(text) = self.files.get(&key) else {
            return Err(at(
                format!("include {written}: the file {key:?} was not sent with the job"),
                "argus submit/run --steps FILE and argus suite run send included files (read \
                 next to the file that includes them) in the job's `files`; over the API, put \
                 the file's text in \"files\": {\"<path>\": \"…\"}",
            ));
        };
        self.chain.push(key.clone());
        let steps = self.parse_file(Some(&key), text);
        self.chain.pop();
        steps
    }
}

/// The `include` lines of one file's text, as `(line, written path)`, variables filled in
/// from `vars` (lines whose variables do not resolve are left out: parsing names them). For
/// the CLI, which reads each included file from disk at [`resolve_include`]'s key.
pub fn include_refs(text: &str, vars: &BTreeMap<String, String>) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, raw)| {
            let line = substitute(raw.trim(), vars, true).ok()?;
            match header(&line) {
                Ok(Some(Header::Include(p))) => Some((i + 1, p)),
                _ => None,
            }
        })
        .collect()
}

fn error(file: Option<&str>, line: usize, message: String, hint: String) -> ScriptError {
    ScriptError {
        file: file.map(str::to_string),
        line,
        message,
        hint,
        over_max_steps: false,
    }
}

/// `repeat 3 times:`, `if screen contains "X":`, `else:`, `include FILE` and their Chinese
/// forms (`重复 3 次:`, `如果 页面包含 "X":`, `否则:`, `引入 FILE`); `None` for any other line.
fn header(line: &str) -> LineResult<Option<Header>> {
    let body = line
        .trim()
        .strip_suffix(':')
        .or_else(|| line.trim().strip_suffix('：'))
        .unwrap_or(line)
        .trim();
    if ["else", "otherwise", "否则", "不然"]
        .iter()
        .any(|w| body.eq_ignore_ascii_case(w))
    {
        return Ok(Some(Header::Else));
    }
    if let Some(rest) = strip_kw(body, "repeat") {
        let (n, unit) = count(rest, "repeat 3 times:")?;
        if !["times", "time", "x", ""].contains(&unit.to_lowercase().as_str()) {
            return err(
                format!("expected `times` after the count, not `{unit}`"),
                "write repeat 3 times:",
            );
        }
        return Ok(Some(Header::Repeat(n)));
    }
    if let Some(rest) = strip_cjk(body, "重复").or_else(|| strip_cjk(body, "循环")) {
        let (n, unit) = count(rest, "重复 3 次:")?;
        if !["次", "遍", ""].contains(&unit) {
            return err(
                format!("expected 次 after the count, not `{unit}`"),
                "write 重复 3 次:",
            );
        }
        return Ok(Some(Header::Repeat(n)));
    }
    if let Some(rest) = strip_kw(line, "if") {
        return condition(rest, false).map(|c| Some(Header::If(c)));
    }
    if let Some(rest) = strip_cjk(line, "如果").or_else(|| strip_cjk(line, "若")) {
        return condition(rest, true).map(|c| Some(Header::If(c)));
    }
    for (kw, ascii) in [("include", true), ("引入", false), ("导入", false)] {
        let rest = if ascii {
            strip_kw(line, kw)
        } else {
            strip_cjk(line, kw)
        };
        if let Some(rest) = rest {
            return include_path(rest).map(|p| Some(Header::Include(p)));
        }
    }
    Ok(None)
}

/// `3 times` → (3, "times"), bounded by [`MAX_REPEAT`].
fn count<'s>(rest: &'s str, example: &str) -> LineResult<(u32, &'s str)> {
    let rest = rest.trim();
    let split = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (num, unit) = rest.split_at(split);
    let n: u64 = match num.parse() {
        Ok(n) => n,
        Err(_) => return err("repeat needs a count", format!("write {example}")),
    };
    if n == 0 || n > u64::from(MAX_REPEAT) {
        return err(
            format!("repeat count {n} is out of range"),
            format!("repeat 1 to {MAX_REPEAT} times; for more, split the job"),
        );
    }
    Ok((n as u32, unit.trim()))
}

/// The condition after `if` / `如果`, with an optional `then` / `则` and colon after it.
fn condition(rest: &str, chinese: bool) -> LineResult<Condition> {
    let words = if chinese { &ASSERT_ZH } else { &ASSERT_EN };
    let example = if chinese {
        "write 如果 页面包含 \"欢迎\":"
    } else {
        "write if screen contains \"Welcome\":"
    };
    let (present, text, tail) = parse_check(rest, words).map_err(|(m, _)| {
        (
            m.replace("assert", "if").replace("断言", "如果"),
            example.to_string(),
        )
    })?;
    let tail = tail.trim();
    let tail = tail
        .strip_suffix(':')
        .or_else(|| tail.strip_suffix('：'))
        .unwrap_or(tail)
        .trim()
        .trim_start_matches(['，', ','])
        .trim();
    if !["", "then", "则", "那么"].contains(&tail.to_lowercase().as_str()) {
        return err(
            format!(
                "unexpected words after the condition: `{}`",
                tail.chars().take(32).collect::<String>()
            ),
            example,
        );
    }
    Ok(Condition { text, present })
}

fn include_path(rest: &str) -> LineResult<String> {
    let rest = rest.trim();
    let path = if rest.starts_with(super::is_open_quote) {
        let (p, tail) = quoted(rest)?;
        super::expect_end(tail)?;
        p
    } else {
        rest.to_string()
    };
    if path.is_empty() || path.contains(char::is_whitespace) || path.len() > 256 {
        return err(
            "include needs one file path (no spaces, at most 256 bytes)",
            "write include login.steps (relative to the including file)",
        );
    }
    Ok(path)
}
