//! From the paths a crate's files write to file → file import edges.
//!
//! A path is resolved from the module it is written in: `crate::` from the root, `self::`
//! from that module, each `super::` one module up, and a first segment that is a child module
//! or a name the module imports (`use crate::layout;` then `layout::number`) from there. Its
//! longest prefix that is a module names the file; the item after it, when that module only
//! imports it (`pub use crate::key::Key;`), is followed to where it comes from.
//!
//! An edge from a module to itself or to one of its own ancestors (`super::WebDevice`,
//! `crate::device::ActError` or `super::prelude::*` from inside `device/`) is no edge: a child is part of its parent
//! and looks names up there. External crates are not followed.

use std::collections::{BTreeMap, BTreeSet};

use super::read::{CrateTree, ModPath};

/// How many re-exports one path is followed through, at most.
const MAX_HOPS: usize = 8;

/// File → file edges (indices into [`CrateTree::files`]) with the names each takes.
pub type Edges = BTreeMap<(usize, usize), BTreeSet<String>>;

/// Every import edge of `tree`.
pub fn edges(tree: &CrateTree) -> Edges {
    let mut out = Edges::new();
    for r in &tree.refs {
        let Some((module, item)) = resolve(tree, &r.scope, &r.segs, 0) else {
            continue;
        };
        let Some(&to) = tree.modules.get(&module) else {
            continue;
        };
        // The file of an ancestor (an inline module in it included) is no edge.
        if to == r.file || tree.file_module[r.file].starts_with(&tree.file_module[to]) {
            continue;
        }
        let name = item
            .filter(|i| i != "*")
            .or_else(|| module.last().cloned())
            .unwrap_or_default();
        out.entry((r.file, to)).or_default().insert(name);
    }
    out
}

/// The module `segs` (written in `scope`) lands in and the item it names there, if any;
/// `None` when it names no module of this crate.
fn resolve(
    tree: &CrateTree,
    scope: &[String],
    segs: &[String],
    hops: usize,
) -> Option<(ModPath, Option<String>)> {
    if hops > MAX_HOPS {
        return None;
    }
    let (first, rest) = segs.split_first()?;
    let mut module: ModPath = scope.to_vec();
    let mut rest = rest;
    match first.as_str() {
        "crate" => module.clear(),
        "self" => {}
        "super" => {
            module.pop()?;
            while rest.first().is_some_and(|s| s == "super") {
                module.pop()?;
                rest = &rest[1..];
            }
        }
        _ => {
            module.push(first.clone());
            if !tree.modules.contains_key(&module) {
                let imported = tree.imports.get(scope)?.get(first)?;
                let whole: Vec<String> = imported.iter().chain(rest).cloned().collect();
                return resolve(tree, scope, &whole, hops + 1);
            }
        }
    }
    while let Some(next) = rest.first() {
        module.push(next.clone());
        if !tree.modules.contains_key(&module) {
            module.pop();
            break;
        }
        rest = &rest[1..];
    }
    let item = rest.first().cloned();
    let reexport = item
        .as_ref()
        .and_then(|i| tree.imports.get(&module)?.get(i))
        .filter(|path| path.as_slice() != segs);
    if let Some(path) = reexport {
        if let Some(found) = resolve(tree, &module, path, hops + 1) {
            return Some(found);
        }
    }
    Some((module, item))
}
