//! No import circles: within every crate of the workspace, no files import each other in a
//! loop (`argus_tests::use_graph`). Needs no service.

use std::path::{Path, PathBuf};

use argus_tests::use_graph::{circles, Circle};

/// Circles tolerated, each with the reason (none: the last ones went with the run engine's
/// restructuring). A circle found passes only when all its files lie in one of these.
const ALLOWED: &[&[&str]] = &[];

fn workspace() -> PathBuf {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR"));
    tests.parent().unwrap_or(tests).to_path_buf()
}

fn allowed(c: &Circle) -> bool {
    ALLOWED
        .iter()
        .any(|a| c.files.iter().all(|f| a.contains(&f.as_str())))
}

#[test]
fn no_import_circles_in_the_workspace() {
    let found = circles(&workspace()).expect("read the workspace's sources");
    let new: Vec<String> = found
        .iter()
        .filter(|c| !allowed(c))
        .map(Circle::to_string)
        .collect();
    assert!(
        new.is_empty(),
        "{} import circle(s); move what both sides need into a module below them:\n{}",
        new.len(),
        new.join("\n")
    );
    for a in ALLOWED {
        assert!(
            found
                .iter()
                .any(|c| c.files.iter().any(|f| a.contains(&f.as_str()))),
            "the allowed circle {a:?} is gone: remove it from ALLOWED in {}",
            file!()
        );
    }
}

/// A scratch crate `src/` with `files` (path, text); removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(files: &[(&str, &str)]) -> Scratch {
        let dir = std::env::temp_dir().join(format!("argus-circles-{}", uuid::Uuid::new_v4()));
        for (path, text) in files {
            let p = dir.join("k").join(path);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        }
        std::fs::write(dir.join("k").join("Cargo.toml"), "").expect("write");
        Scratch(dir)
    }

    fn circles(&self) -> Vec<Vec<String>> {
        circles(&self.0)
            .expect("scratch crate reads")
            .into_iter()
            .map(|c| c.files)
            .collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn groups_self_and_super_super_paths_close_circles() {
    let s = Scratch::new(&[
        (
            "src/lib.rs",
            "mod a;\nmod b;\nmod c;\nmod d;\nmod m;\nmod n;\n",
        ),
        ("src/a.rs", "use crate::{x, b::{Y, Z}};\npub fn h() {}\n"),
        (
            "src/b.rs",
            "pub struct Y;\npub struct Z;\nfn f() { crate::a::h(); }\n",
        ),
        ("src/c.rs", "pub fn g() { crate::n::deep::leaf::k(); }\n"),
        ("src/n/mod.rs", "pub mod deep;\n"),
        ("src/n/deep/mod.rs", "pub mod leaf;\n"),
        (
            "src/n/deep/leaf.rs",
            "pub fn k() { super::super::super::c::g(); }\n",
        ),
        ("src/d.rs", "pub fn e() -> crate::m::M { crate::m::M }\n"),
        ("src/m/mod.rs", "mod q;\nuse self::q::Q;\npub struct M;\n"),
        ("src/m/q.rs", "pub struct Q;\nfn f() { crate::d::e(); }\n"),
    ]);
    assert_eq!(
        s.circles(),
        vec![
            vec!["k/src/a.rs", "k/src/b.rs"],
            vec!["k/src/c.rs", "k/src/n/deep/leaf.rs"],
            vec!["k/src/d.rs", "k/src/m/mod.rs", "k/src/m/q.rs"],
        ]
    );
}

#[test]
fn a_reexport_is_followed_to_where_the_item_lives() {
    let s = Scratch::new(&[
        ("src/lib.rs", "pub mod face;\nmod inner;\nmod user;\n"),
        ("src/face.rs", "pub use crate::inner::Thing;\n"),
        (
            "src/inner.rs",
            "pub struct Thing;\nfn f() { crate::user::go(); }\n",
        ),
        ("src/user.rs", "use crate::face::Thing;\npub fn go() {}\n"),
    ]);
    assert_eq!(s.circles(), vec![vec!["k/src/inner.rs", "k/src/user.rs"]]);
}

#[test]
fn test_code_comments_strings_and_parents_close_no_circle() {
    let s = Scratch::new(&[
        ("src/lib.rs", "mod a;\nmod b;\nmod p;\n"),
        (
            "src/a.rs",
            "use crate::b::Y;\n/// see [`crate::b`]\nfn f() {}\n",
        ),
        (
            "src/b.rs",
            "pub struct Y;\n// crate::a::f\nconst S: &str = \"crate::a::f\";\n\
             #[cfg(test)]\nmod tests { use crate::a::f; }\n\
             #[cfg(test)]\nuse crate::a as _;\n\
             #[cfg(all(test, unix))]\nfn t() { crate::a::f(); }\n",
        ),
        (
            "src/p/mod.rs",
            "mod c;\nuse c::C;\npub struct P;\npub mod prelude { pub use super::P; }\n",
        ),
        (
            "src/p/c.rs",
            "use super::P;\nuse super::prelude::*;\nuse crate::p::prelude::P as Q;\npub struct C;\n",
        ),
    ]);
    assert_eq!(s.circles(), Vec::<Vec<String>>::new());
}

#[test]
fn a_macro_call_and_a_pub_use_are_imports() {
    let s = Scratch::new(&[
        ("src/lib.rs", "mod a;\nmod b;\n"),
        ("src/a.rs", "pub use crate::b::Y;\npub fn f() {}\n"),
        (
            "src/b.rs",
            "pub struct Y;\nfn g() { assert!(matches!(1, crate::a::K)); }\n",
        ),
    ]);
    assert_eq!(s.circles(), vec![vec!["k/src/a.rs", "k/src/b.rs"]]);
}
