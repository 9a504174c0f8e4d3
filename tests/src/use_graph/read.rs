//! Reading one crate root's module tree with `syn`: which file holds each module, what each
//! module imports by name (`use`), and every path written in it that may name a module of
//! the crate (`crate::…`, `super::…`, `self::…`, `child::…`, also inside macro calls).
//! Test-only code (`#[cfg(test)]` items, `mod tests`) is left out; comments and strings are
//! never read.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};

use anyhow::Context;
use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::{self, Visit};

/// A module path inside a crate: `[]` is the crate root, `["device", "web"]` is
/// `crate::device::web`.
pub type ModPath = Vec<String>;

/// A path written in a module: in which file, in which module (inline modules included),
/// and its segments as written (`["super", "actions", "settle"]`).
#[derive(Debug, Clone)]
pub struct PathRef {
    /// Index into [`CrateTree::files`].
    pub file: usize,
    /// The module the path is written in.
    pub scope: ModPath,
    /// The segments, `*` for a glob.
    pub segs: Vec<String>,
}

/// One crate root's modules as read from disk.
#[derive(Debug, Default)]
pub struct CrateTree {
    /// Every file of the tree, the root first.
    pub files: Vec<PathBuf>,
    /// The module each file is (index as in `files`).
    pub file_module: Vec<ModPath>,
    /// Which file holds each module (an inline module is held by its file).
    pub modules: BTreeMap<ModPath, usize>,
    /// Per module, the names its `use` declarations bring in and the paths they name.
    pub imports: BTreeMap<ModPath, BTreeMap<String, Vec<String>>>,
    /// Every path that may name a module of this crate.
    pub refs: Vec<PathRef>,
}

/// Reads the module tree under the crate root file `root` (`src/lib.rs`, `src/main.rs`, a
/// binary's file), following `mod name;` declarations (and `#[path]`). A declared module
/// whose file is missing (compiled out on this platform) is skipped. Errors: a file that
/// cannot be read or does not parse.
pub fn read_crate(root: &Path) -> anyhow::Result<CrateTree> {
    let mut tree = CrateTree::default();
    let mut queue = VecDeque::from([(root.to_path_buf(), ModPath::new(), true)]);
    while let Some((path, module, mod_rs)) = queue.pop_front() {
        let text =
            std::fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))?;
        let parsed = syn::parse_file(&text).with_context(|| format!("parse {}", path.display()))?;
        let file = tree.files.len();
        tree.files.push(path.clone());
        tree.file_module.push(module.clone());
        tree.modules.insert(module.clone(), file);
        let mut reader = Reader {
            tree: &mut tree,
            file,
            scope: module.clone(),
            children: Vec::new(),
        };
        reader.visit_file(&parsed);
        let children = reader.children;
        // A crate root, a `mod.rs` or a `#[path]` file holds its children beside it; `a.rs`
        // holds them in `a/`.
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let base = if mod_rs {
            dir.clone()
        } else {
            dir.join(path.file_stem().unwrap_or_default())
        };
        for (child, attr) in children {
            let found = match &attr {
                Some(p) => Some(dir.join(p)),
                None => child_file(&base, &child[module.len()..]),
            };
            let Some(found) = found.filter(|f| f.is_file()) else {
                continue;
            };
            let mod_rs = attr.is_some() || found.ends_with("mod.rs");
            queue.push_back((found, child, mod_rs));
        }
    }
    Ok(tree)
}

/// `base/a/b.rs` or `base/a/b/mod.rs` for the module path `[a, b]` below a file.
fn child_file(base: &Path, rel: &[String]) -> Option<PathBuf> {
    let (last, dirs) = rel.split_last()?;
    let dir = dirs.iter().fold(base.to_path_buf(), |d, s| d.join(s));
    let flat = dir.join(format!("{last}.rs"));
    Some(if flat.is_file() {
        flat
    } else {
        dir.join(last).join("mod.rs")
    })
}

/// Walks one file: records its inline modules, `use` leaves and paths; collects its
/// `mod name;` children (module path, `#[path]`).
struct Reader<'t> {
    tree: &'t mut CrateTree,
    file: usize,
    scope: ModPath,
    children: Vec<(ModPath, Option<String>)>,
}

impl Reader<'_> {
    fn push_ref(&mut self, segs: Vec<String>) {
        self.tree.refs.push(PathRef {
            file: self.file,
            scope: self.scope.clone(),
            segs,
        });
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        if !test_only(item_attrs(i)) {
            visit::visit_item(self, i);
        }
    }

    fn visit_impl_item(&mut self, i: &'ast syn::ImplItem) {
        let attrs = match i {
            syn::ImplItem::Fn(f) => &f.attrs[..],
            syn::ImplItem::Const(c) => &c.attrs,
            _ => &[],
        };
        if !test_only(attrs) {
            visit::visit_impl_item(self, i);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let mut module = self.scope.clone();
        module.push(m.ident.to_string());
        let Some((_, items)) = &m.content else {
            self.children.push((module, path_attr(&m.attrs)));
            return;
        };
        self.tree.modules.insert(module.clone(), self.file);
        let outer = std::mem::replace(&mut self.scope, module);
        for item in items {
            self.visit_item(item);
        }
        self.scope = outer;
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if u.leading_colon.is_some() {
            return;
        }
        let mut leaves = Vec::new();
        use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
        for (segs, name) in leaves {
            if let Some(name) = name {
                let names = self.tree.imports.entry(self.scope.clone()).or_default();
                names.insert(name, segs.clone());
            }
            self.push_ref(segs);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() && p.segments.len() >= 2 {
            self.push_ref(p.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        for segs in macro_paths(m.tokens.clone()) {
            self.push_ref(segs);
        }
        visit::visit_macro(self, m);
    }

    /// Attributes (docs, derives, `cfg`) name no module of the crate.
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
}

/// The leaves of a use tree: the full path and the name it binds (`None` for a glob or
/// `as _`). `use a::{self, b as c}` gives `([a], a)` and `([a, b], c)`.
fn use_leaves(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<LeafUse>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) if n.ident == "self" => {
            out.push((prefix.clone(), prefix.last().cloned()));
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            out.push((extended(prefix, &name), Some(name)));
        }
        syn::UseTree::Rename(r) => {
            let segs = if r.ident == "self" {
                prefix.clone()
            } else {
                extended(prefix, &r.ident.to_string())
            };
            let alias = Some(r.rename.to_string()).filter(|a| a != "_");
            out.push((segs, alias));
        }
        syn::UseTree::Glob(_) => out.push((extended(prefix, "*"), None)),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, out);
            }
        }
    }
}

/// One leaf of a use tree: its path and the name it binds.
type LeafUse = (Vec<String>, Option<String>);

fn extended(prefix: &[String], last: &str) -> Vec<String> {
    let mut v = prefix.to_vec();
    v.push(last.to_string());
    v
}

/// `crate::a::b`, `super::x`, `self::y` written in a macro call's tokens (not `$crate::…`).
fn macro_paths(tokens: TokenStream) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let toks: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < toks.len() {
        if let TokenTree::Group(g) = &toks[i] {
            out.extend(macro_paths(g.stream()));
        }
        let starts = matches!(&toks[i], TokenTree::Ident(id) if id == "crate" || id == "super" || id == "self")
            && !(i > 0 && matches!(&toks[i - 1], TokenTree::Punct(p) if p.as_char() == '$'));
        if !starts {
            i += 1;
            continue;
        }
        let mut segs = vec![toks[i].to_string()];
        let mut j = i + 1;
        while let (
            Some(TokenTree::Punct(a)),
            Some(TokenTree::Punct(b)),
            Some(TokenTree::Ident(id)),
        ) = (toks.get(j), toks.get(j + 1), toks.get(j + 2))
        {
            if a.as_char() != ':' || a.spacing() != Spacing::Joint || b.as_char() != ':' {
                break;
            }
            segs.push(id.to_string());
            j += 3;
        }
        if segs.len() >= 2 {
            out.push(segs);
        }
        i = j;
    }
    out
}

/// The attributes of an item (those that can be `#[cfg(test)]`).
fn item_attrs(i: &syn::Item) -> &[syn::Attribute] {
    match i {
        syn::Item::Const(x) => &x.attrs,
        syn::Item::Enum(x) => &x.attrs,
        syn::Item::Fn(x) => &x.attrs,
        syn::Item::Impl(x) => &x.attrs,
        syn::Item::Macro(x) => &x.attrs,
        syn::Item::Mod(x) => &x.attrs,
        syn::Item::Static(x) => &x.attrs,
        syn::Item::Struct(x) => &x.attrs,
        syn::Item::Trait(x) => &x.attrs,
        syn::Item::Type(x) => &x.attrs,
        syn::Item::Use(x) => &x.attrs,
        _ => &[],
    }
}

/// Whether the attributes hold a `#[cfg(…)]` that needs `test` (`cfg(test)`,
/// `cfg(all(test, …))`; not `cfg(not(test))`).
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let Ok(list) = a.meta.require_list() else {
            return false;
        };
        let cfg = list.tokens.to_string();
        a.path().is_ident("cfg")
            && cfg
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == "test")
            && !cfg.contains("not")
    })
}

/// The `#[path = "…"]` of a `mod name;`, if any.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| {
        let nv = a.meta.require_name_value().ok()?;
        if !a.path().is_ident("path") {
            return None;
        }
        match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        }
    })
}
