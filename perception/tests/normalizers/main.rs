//! Golden tests: real-format fixtures of every tree format → exact element lists.
//!
//! One line per element: `id role/platform-class "name" [=value] [hint=…] tri-states
//! @x,y,w,h (device px, rounded) [#platform_id]`. Tri-states print `+` yes, `-` no,
//! `?` unknown for chk(ecked) en(abled) foc(used) sel(ected) ed(itable) pw cov(ered).
//! The expected lists were written by reading the fixtures, not regenerated.

mod android;
mod arbiter;
mod atspi;
mod cdp;
mod fusion;
mod harmony;
mod wda;

use argus_perception::{Element, Observation, Tri};

pub fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn t(v: Tri) -> char {
    match v {
        Tri::Yes => '+',
        Tri::No => '-',
        Tri::Unknown => '?',
    }
}

pub fn golden_line(e: &Element) -> String {
    let short = e.platform_role.rsplit(['.', '$']).next().unwrap_or("");
    let mut s = format!("{} {}/{} {:?}", e.id, e.role.as_str(), short, e.name);
    if let Some(v) = &e.value {
        s += &format!(" ={v:?}");
    }
    if let Some(p) = &e.placeholder {
        s += &format!(" hint={p:?}");
    }
    s += &format!(
        " chk{} en{} foc{} sel{} ed{} pw{} cov{}",
        t(e.checked),
        t(e.enabled),
        t(e.focused),
        t(e.selected),
        t(e.editable),
        t(e.password),
        t(e.covered)
    );
    let b = e.bbox_px;
    s += &format!(
        " @{},{},{},{}",
        b.x.round(),
        b.y.round(),
        b.w.round(),
        b.h.round()
    );
    if let Some(id) = &e.platform_id {
        s += &format!(" #{}", id.rsplit('/').next().unwrap_or(id));
    }
    s
}

/// Compares line by line so a failure names the first differing element.
pub fn assert_golden(obs: &Observation, expected: &str) {
    let got: Vec<String> = obs.elements.iter().map(golden_line).collect();
    let want: Vec<&str> = expected
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(
            g,
            w,
            "element {} differs\nall got:\n{}",
            i + 1,
            got.join("\n")
        );
    }
    assert_eq!(
        got.len(),
        want.len(),
        "element count differs\nall got:\n{}",
        got.join("\n")
    );
}

/// Same for the compact text.
pub fn assert_lines(got: &str, expected: &str) {
    let want: Vec<&str> = expected
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let got_l: Vec<&str> = got.lines().collect();
    for (i, (g, w)) in got_l.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "line {} differs\nall got:\n{got}", i + 1);
    }
    assert_eq!(
        got_l.len(),
        want.len(),
        "line count differs\nall got:\n{got}"
    );
}
