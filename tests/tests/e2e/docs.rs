//! Pins that the docs cannot drift from the code. A blind replace once turned every
//! `ARGUS_S…` name in README into `21.0…`, and README's configuration table fell behind the
//! variables the code reads; these tests read the files as shipped and fail listing every
//! offender:
//!
//! - every `ARGUS_*` variable README names exists in the code (Rust, shell, Python and the
//!   deploy files), and the first column of README's configuration tables holds only such
//!   names;
//! - every variable the code reads from the environment (Rust `env::var` / `env::var_os` /
//!   a clap `env = …`, Python `os.environ`, a script's `${NAME:-…}`, a NATS config's `$NAME`)
//!   is in a configuration table (a `<NAME>` placeholder there covers a family);
//! - every flag README shows on an `argus …` command line is a flag of that subcommand, as the
//!   built binary's `--help` lists it, and every other `--flag` README names is a flag of some
//!   `argus` subcommand or appears in the workspace's sources (a script's, a benchmark's, the
//!   Chromium launch flags);
//! - ARCHITECTURE.md's folder table lists exactly the repository's top-level folders, each
//!   crate under its package name.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use argus_tests::procs::argus_bin;

/// This file: its literals are examples, not reads.
const SELF: &str = "tests/tests/e2e/docs.rs";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
}

/// The repository's files (tracked, and untracked ones git does not ignore), as relative
/// paths: what a clean clone holds, never build output.
fn repo_files() -> Vec<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root())
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .expect("git ls-files (the docs tests read the repository's file list)");
    assert!(
        out.status.success(),
        "git ls-files: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|p| !p.is_empty() && root().join(p).is_file())
        .map(str::to_string)
        .collect()
}

/// How a source file reads the environment.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    /// `env::var("X")`, `env::var_os("X")`, `env = "X"` (clap), `env_or("X", …)`.
    Rust,
    /// `${X:-…}`, `${X-…}`, `${X:=…}`, `${X:?…}`, `${X+…}` (sh, compose, systemd units).
    Shell,
    /// `os.environ.get("X")`, `os.environ["X"]`, `os.getenv("X")`.
    Python,
    /// `$X` (NATS server configuration).
    NatsConf,
    /// Names only (example env files, manifests, JavaScript): counts as "exists", reads nothing.
    Other,
}

/// The code files and how each reads the environment; READMEs and this file are not code.
fn code_files() -> Vec<(String, Kind, String)> {
    repo_files()
        .into_iter()
        .filter(|p| p != SELF)
        .filter_map(|p| {
            let ext = p.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
            let kind = match ext {
                _ if p == ".ci/run" => Kind::Shell,
                "rs" => Kind::Rust,
                "sh" | "yaml" | "yml" | "service" => Kind::Shell,
                "py" => Kind::Python,
                "conf" if p.starts_with("deploy/nats/") => Kind::NatsConf,
                "conf" | "example" | "toml" | "js" => Kind::Other,
                _ => return None,
            };
            let text = read(&p);
            Some((p, kind, text))
        })
        .collect()
}

/// `ARGUS_…` names in `text` with their byte offsets: upper-case letters, digits and `_`,
/// plus `<NAME>` placeholders and `*` (templates such as `ARGUS_SECRET_<TEAM>__<NAME>`).
/// A name glued to a longer identifier (`__ARGUS_PP__`, `set_ARGUS_X`) is not one.
fn names(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("ARGUS_") {
        let at = from + i;
        from = at + "ARGUS_".len();
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let mut end = from;
        while end < b.len() {
            match b[end] {
                c if c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_' || c == b'*' => {
                    end += 1
                }
                b'<' => match text[end..].find('>') {
                    Some(j)
                        if j > 1
                            && text[end + 1..end + j]
                                .bytes()
                                .all(|c| c.is_ascii_uppercase() || c == b'_') =>
                    {
                        end += j + 1
                    }
                    _ => break,
                },
                _ => break,
            }
        }
        if end > from {
            out.push((at, text[at..end].to_string()));
        }
    }
    out
}

fn is_template(name: &str) -> bool {
    name.contains('<') || name.contains('*')
}

/// Whether `name` fits `template`, where `*` and `<…>` each stand for one or more characters.
fn fits(template: &str, name: &str) -> bool {
    fn go(t: &[u8], s: &[u8]) -> bool {
        match t.first() {
            None => s.is_empty(),
            Some(b'*') => (1..=s.len()).any(|k| go(&t[1..], &s[k..])),
            Some(b'<') => {
                let close = t.iter().position(|&c| c == b'>').unwrap_or(t.len() - 1);
                (1..=s.len()).any(|k| go(&t[close + 1..], &s[k..]))
            }
            Some(&c) => s.first() == Some(&c) && go(&t[1..], &s[1..]),
        }
    }
    go(template.as_bytes(), name.as_bytes())
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The text just before byte `at`, whitespace removed, at most `n` characters.
fn before(text: &str, at: usize, n: usize) -> String {
    let mut v: Vec<char> = text[..at]
        .chars()
        .rev()
        .filter(|c| !c.is_whitespace())
        .take(n)
        .collect();
    v.reverse();
    v.into_iter().collect()
}

/// Whether the name at `at` (ending at `end`) in a file of `kind` is read from the
/// environment there.
fn is_read(kind: Kind, text: &str, at: usize, end: usize) -> bool {
    let b = text.as_bytes();
    let prev = |k: usize| at.checked_sub(k).map(|i| b[i]);
    match kind {
        Kind::Rust | Kind::Python if prev(1) == Some(b'"') => {
            let pre = before(text, at - 1, 24);
            let call = |f: &str| {
                pre.strip_suffix(f).is_some_and(|rest| {
                    !rest
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
            };
            match kind {
                Kind::Rust => {
                    ["env::var(", "env::var_os(", "env_or(", "env="]
                        .iter()
                        .any(|s| pre.ends_with(s))
                        || call("var(")
                }
                _ => ["environ.get(", "environ[", "getenv("]
                    .iter()
                    .any(|s| pre.ends_with(s)),
            }
        }
        Kind::Shell => {
            prev(1) == Some(b'{')
                && prev(2) == Some(b'$')
                && [":-", ":=", ":?", ":+", "-", "=", "?", "+"]
                    .iter()
                    .any(|op| text[end..].starts_with(op))
        }
        Kind::NatsConf => prev(1) == Some(b'$'),
        _ => false,
    }
}

/// README's `## Configuration` section: from its heading to the next `## ` heading.
fn config_section(readme: &str) -> &str {
    let start = readme
        .find("\n## Configuration\n")
        .expect("README has a `## Configuration` section");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// The first cells of the configuration section's variable tables (those whose header's
/// first cell is `variable`), header and rule left out.
fn config_first_cells(readme: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_table = false;
    for line in config_section(readme).lines() {
        let Some(first) = line.strip_prefix('|').and_then(|l| l.split('|').next()) else {
            in_table = false;
            continue;
        };
        let first = first.trim();
        if line.starts_with("|---") {
            continue;
        }
        if first == "variable" {
            in_table = true;
        } else if in_table {
            out.push(first.to_string());
        }
    }
    out
}

/// The backticked spans of `cell`.
fn spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

#[test]
fn readme_names_only_variables_the_code_has() {
    let readme = read("README.md");
    let code: BTreeSet<String> = code_files()
        .iter()
        .flat_map(|(_, _, t)| names(t).into_iter().map(|(_, n)| n))
        .collect();
    let mut unknown = BTreeMap::<String, Vec<usize>>::new();
    for (at, name) in names(&readme) {
        let known = if is_template(&name) {
            let stem = &name[..name.find(['<', '*']).unwrap_or(name.len())];
            code.iter().any(|c| fits(&name, c) || c == stem)
        } else {
            code.contains(&name)
        };
        if !known {
            unknown.entry(name).or_default().push(line_of(&readme, at));
        }
    }
    // The tables' first column: nothing but variable names (a corrupted name such as
    // `21.03_ENDPOINT` has no `ARGUS_` to be caught by above).
    let mut not_names = Vec::new();
    for cell in config_first_cells(&readme) {
        for span in spans(&cell) {
            let whole = names(span)
                .first()
                .is_some_and(|(at, n)| *at == 0 && n == span);
            if !whole {
                not_names.push(format!("`{span}` in the row: {cell}"));
            }
        }
    }
    assert!(
        unknown.is_empty() && not_names.is_empty(),
        "README.md names variables the code does not have (name → README lines): {unknown:#?}\n\
         and its configuration tables' first column holds what is no variable name: \
         {not_names:#?}\nFix the name, or remove it if the variable is gone."
    );
}

#[test]
fn every_variable_the_code_reads_is_in_readmes_configuration_tables() {
    let readme = read("README.md");
    let documented: Vec<String> = config_first_cells(&readme)
        .iter()
        .flat_map(|c| names(c).into_iter().map(|(_, n)| n))
        .collect();
    assert!(
        documented.len() > 50,
        "README's configuration tables list only {} variables: {documented:?}",
        documented.len()
    );
    let is_documented = |name: &str| {
        documented
            .iter()
            .any(|d| d == name || (is_template(d) && !d.ends_with('*') && fits(d, name)))
    };
    let mut missing = BTreeMap::<String, Vec<String>>::new();
    let mut reads = 0;
    for (path, kind, text) in code_files() {
        for (at, name) in names(&text) {
            if is_template(&name) || !is_read(kind, &text, at, at + name.len()) {
                continue;
            }
            reads += 1;
            if !is_documented(&name) {
                missing
                    .entry(name)
                    .or_default()
                    .push(format!("{path}:{}", line_of(&text, at)));
            }
        }
    }
    assert!(
        reads > 100,
        "only {reads} environment reads found: is the scan broken?"
    );
    assert!(
        missing.is_empty(),
        "variables the code reads that README's configuration tables (## Configuration) do \
         not list (name → where it is read): {missing:#?}\nAdd a row for each: the variable, \
         who reads it, its default and a line saying what it does."
    );
}

/// `argus … --help` of one subcommand path: its subcommands and its flags.
struct Help {
    subs: Vec<String>,
    flags: BTreeSet<String>,
}

/// `--flag` tokens in `text`: `--` then a lower-case letter, then letters, digits and `-`,
/// not glued to a longer word; a `=value` is left off.
fn flag_tokens(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("--") {
        let at = from + i;
        from = at + 2;
        let glued = at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'-');
        if glued || !b.get(at + 2).is_some_and(u8::is_ascii_lowercase) {
            continue;
        }
        let mut end = at + 2;
        while end < b.len()
            && (b[end].is_ascii_lowercase() || b[end].is_ascii_digit() || b[end] == b'-')
        {
            end += 1;
        }
        out.push(text[at..end].trim_end_matches('-').to_string());
        from = end;
    }
    out
}

fn help<'a>(cache: &'a mut HashMap<Vec<String>, Help>, path: &[String]) -> &'a Help {
    cache.entry(path.to_vec()).or_insert_with(|| {
        let out = Command::new(argus_bin())
            .args(path)
            .arg("--help")
            .output()
            .expect("run argus --help");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "argus {} --help failed",
            path.join(" ")
        );
        let subs = text
            .lines()
            .skip_while(|l| l.trim() != "Commands:")
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .filter_map(|l| l.split_whitespace().next())
            .filter(|n| *n != "help")
            .map(str::to_string)
            .collect();
        let flags = text
            .lines()
            .filter(|l| l.trim_start().starts_with('-'))
            .flat_map(|l| flag_tokens(l.trim_start().split("  ").next().unwrap_or("")))
            .collect();
        Help { subs, flags }
    })
}

/// README's code: each line of its fenced blocks (a shell `# comment` cut off) and each
/// inline code span of the rest.
fn readme_code(readme: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut prose = String::new();
    let mut fenced = false;
    for line in readme.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if fenced {
            out.push(line.split(" #").next().unwrap_or("").to_string());
        } else {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    out.extend(spans(&prose).into_iter().map(str::to_string));
    out
}

/// The `argus …` command lines inside `code`: the words after each `argus ` up to a shell
/// operator.
fn invocations(code: &str) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for (at, _) in code.match_indices("argus ") {
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b"_-.".contains(&b[at - 1])) {
            continue;
        }
        let words = code[at + "argus ".len()..]
            .split_whitespace()
            .take_while(|w| !matches!(*w, ">" | "|" | ";" | "&&" | "||" | "<" | "2>&1"))
            .map(str::to_string)
            .collect();
        out.push(words);
    }
    out
}

#[test]
fn every_flag_readme_shows_exists() {
    let readme = read("README.md");
    let mut cache = HashMap::new();
    // Every subcommand path, for the flags README names outside a command line.
    let mut all_flags = BTreeSet::new();
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        let h = help(&mut cache, &path);
        all_flags.extend(h.flags.iter().cloned());
        for s in h.subs.clone() {
            let mut p = path.clone();
            p.push(s);
            todo.push(p);
        }
    }
    let mut wrong = Vec::new();
    let mut checked = BTreeSet::new();
    for code in readme_code(&readme) {
        for words in invocations(&code) {
            let mut path: Vec<String> = Vec::new();
            let mut rest = words.as_slice();
            while let Some((w, tail)) = rest.split_first() {
                if !help(&mut cache, &path).subs.contains(w) {
                    break;
                }
                path.push(w.clone());
                rest = tail;
            }
            let flags = &help(&mut cache, &path).flags;
            for f in rest.iter().flat_map(|w| flag_tokens(w)) {
                checked.insert(f.clone());
                if !flags.contains(&f) {
                    wrong.push(format!(
                        "argus {} {f}   (README: `argus {}`)",
                        path.join(" "),
                        words.join(" ")
                    ));
                }
            }
        }
    }
    assert!(
        checked.len() > 15,
        "only {} flags found on README's argus command lines: {checked:?}",
        checked.len()
    );
    // Every other `--flag` README names: an argus flag, or one the sources spell out.
    let in_sources: BTreeSet<String> = code_files()
        .iter()
        .flat_map(|(_, _, t)| flag_tokens(t))
        .collect();
    let mut unknown = BTreeSet::new();
    for f in flag_tokens(&readme) {
        if !checked.contains(&f) && !all_flags.contains(&f) && !in_sources.contains(&f) {
            unknown.insert(f);
        }
    }
    assert!(
        wrong.is_empty() && unknown.is_empty(),
        "README shows flags the argus binary does not have on that subcommand (per its \
         --help): {wrong:#?}\nand names flags that are no argus flag and appear in no \
         source file: {unknown:#?}"
    );
}

/// The package name in `Cargo.toml` text.
fn package_name(toml: &str) -> Option<String> {
    let pkg = &toml[toml.find("[package]")?..];
    let line = pkg.lines().find(|l| l.trim_start().starts_with("name"))?;
    Some(line.split('"').nth(1)?.to_string())
}

#[test]
fn architecture_lists_the_top_level_folders() {
    let arch = read("ARCHITECTURE.md");
    let tree: BTreeSet<String> = repo_files()
        .iter()
        .filter_map(|p| p.split_once('/').map(|(d, _)| d.to_string()))
        .filter(|d| !d.starts_with('.'))
        .collect();
    let mut listed = BTreeMap::new();
    for l in arch.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = l.split('|').map(str::trim).collect();
        let Some(dir) = cells[1]
            .strip_prefix('`')
            .and_then(|c| c.strip_suffix("/`"))
        else {
            continue;
        };
        listed.insert(
            dir.to_string(),
            cells.get(2).copied().unwrap_or("").to_string(),
        );
    }
    let missing: Vec<&String> = tree.iter().filter(|d| !listed.contains_key(*d)).collect();
    let stale: Vec<&String> = listed.keys().filter(|d| !tree.contains(*d)).collect();
    let mut crates = Vec::new();
    for (dir, krate) in &listed {
        let manifest = if dir == "src" {
            root().join("Cargo.toml")
        } else {
            root().join(dir).join("Cargo.toml")
        };
        let want = std::fs::read_to_string(&manifest)
            .ok()
            .and_then(|t| package_name(&t))
            .unwrap_or_else(|| "—".to_string());
        if *krate != want {
            crates.push(format!(
                "{dir}/: the table says {krate:?}, the tree {want:?}"
            ));
        }
    }
    assert!(
        missing.is_empty() && stale.is_empty() && crates.is_empty(),
        "ARCHITECTURE.md's folder table and the tree disagree: folders it leaves out: \
         {missing:?}; folders it lists that are not there: {stale:?}; crate names: {crates:#?}"
    );
}
