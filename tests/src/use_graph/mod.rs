//! Import circles of the workspace's crates: per crate root (a library, a binary), the
//! file → file graph of its `use` declarations and module paths (`read`, `resolve`), and
//! the files that import each other in a loop (strongly connected components, Tarjan).
//!
//! Modules are files (an inline module belongs to its file); `mod` declarations only say
//! which file a module is, and an import of an ancestor module is no edge (see
//! `resolve`). Test-only code is left out.

mod read;
mod resolve;

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// One circle: files (paths relative to the workspace, sorted) that import each other in a
/// loop, and the imports between them.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Circle {
    /// The files, `perception/src/elements.rs`, sorted.
    pub files: Vec<String>,
    /// `(from, to, names taken)` for each import between two files of the circle.
    pub ties: Vec<(String, String, Vec<String>)>,
}

impl fmt::Display for Circle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} files: {}", self.files.len(), self.files.join(", "))?;
        for (from, to, names) in &self.ties {
            writeln!(f, "  {from} -> {to}: {}", names.join(", "))?;
        }
        Ok(())
    }
}

/// Every import circle of every crate under `workspace` (the workspace's own package and
/// each folder beside it with a `Cargo.toml`), sorted. Errors: a source file that cannot
/// be read or parsed.
pub fn circles(workspace: &Path) -> anyhow::Result<Vec<Circle>> {
    let mut out = BTreeSet::new();
    for dir in crate_dirs(workspace)? {
        for root in root_files(&dir.join("src")) {
            let tree = read::read_crate(&root)?;
            let edges = resolve::edges(&tree);
            let name = |i: usize| {
                let f = &tree.files[i];
                f.strip_prefix(workspace)
                    .unwrap_or(f)
                    .to_string_lossy()
                    .into_owned()
            };
            let next: Vec<Vec<usize>> = (0..tree.files.len())
                .map(|i| edges.range((i, 0)..(i + 1, 0)).map(|(k, _)| k.1).collect())
                .collect();
            for scc in components(&next).into_iter().filter(|c| c.len() > 1) {
                let mut files: Vec<String> = scc.iter().map(|&i| name(i)).collect();
                files.sort();
                let ties = edges
                    .iter()
                    .filter(|((a, b), _)| scc.contains(a) && scc.contains(b))
                    .map(|((a, b), n)| (name(*a), name(*b), n.iter().cloned().collect()))
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect();
                out.insert(Circle { files, ties });
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// The workspace folder and every folder in it with a `Cargo.toml` and a `src/`, sorted.
fn crate_dirs(workspace: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut dirs = vec![workspace.to_path_buf()];
    let entries =
        std::fs::read_dir(workspace).with_context(|| format!("list {}", workspace.display()))?;
    for entry in entries {
        let dir = entry?.path();
        if dir.join("Cargo.toml").is_file() && dir.join("src").is_dir() {
            dirs.push(dir);
        }
    }
    dirs.sort();
    Ok(dirs)
}

/// The crate roots under `src`: `lib.rs`, `main.rs`, `bin/*.rs`, `bin/*/main.rs`.
fn root_files(src: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"].iter().map(|f| src.join(f)).collect();
    if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
        for bin in bins.flatten().map(|e| e.path()) {
            roots.push(if bin.is_dir() {
                bin.join("main.rs")
            } else {
                bin
            });
        }
    }
    roots.retain(|r| r.is_file() && r.extension().is_some_and(|e| e == "rs"));
    roots.sort();
    roots
}

/// Strongly connected components of the graph `next` (node → successors), Tarjan's
/// algorithm; each component's nodes in no particular order.
fn components(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct Tarjan<'g> {
        next: &'g [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        count: usize,
        out: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.count);
            self.low[v] = self.count;
            self.count += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in &self.next[v] {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    scc.push(w);
                    if w == v {
                        break;
                    }
                }
                self.out.push(scc);
            }
        }
    }
    let n = next.len();
    let mut t = Tarjan {
        next,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        count: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    t.out
}
