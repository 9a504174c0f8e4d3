//! Pins that one-character keys are found with no accessibility tree: two keypad pages from
//! the tuning part of the generated keypad set (`perception/sets/generate.py OUT --part tune
//! --only keypad`: `chromium-4` — PIN pad, keyboard and calculator keys in Chromium, dark
//! theme; `gtk-11` — calculator and PIN pads in GTK 3, DejaVu Sans Mono), perceived the way a
//! worker perceives an app without a tree. Every `7` key must come back as an element named
//! `7` whose box lies inside that key — what `tap "7"` aims at — and most one-character keys
//! must be found (the full figure is `perception-bench`'s, on the held-out part).
//!
//! Needs `--features ocr` and the models (`deploy/models.sh`); without the models the tests
//! FAIL, telling to run the script, unless `ARGUS_SKIP_OCR_TESTS=1` (ignored under
//! `ARGUS_REQUIRE_ALL=1`, as in CI).
#![cfg(feature = "ocr")]

#[path = "../../src/bin/perception-bench/pages.rs"]
#[allow(dead_code)]
mod pages;

use std::path::Path;

use argus_perception::ocr::{self, OcrEngine};
use argus_perception::pixel;

fn engine() -> Option<OcrEngine> {
    let dir = ocr::models_dir();
    if !ocr::models_present(&dir) {
        // `ARGUS_REQUIRE_ALL=1` (deploy/test.sh, CI) overrides the skip.
        if std::env::var("ARGUS_SKIP_OCR_TESTS").as_deref() == Ok("1")
            && std::env::var("ARGUS_REQUIRE_ALL").as_deref() != Ok("1")
        {
            eprintln!("OCR models missing: skipped (ARGUS_SKIP_OCR_TESTS=1)");
            return None;
        }
        panic!(
            "OCR models missing in {}: run deploy/models.sh (or set ARGUS_MODELS_DIR), \
             or set ARGUS_SKIP_OCR_TESTS=1 to skip",
            dir.display()
        );
    }
    match OcrEngine::open(&dir, pixel::screen_config(2)) {
        Ok(e) => Some(e),
        Err(e) => panic!("opening the OCR engine: {e}"),
    }
}

/// (keys, found, sevens, sevens found) on one fixture page.
fn keys_found(engine: &mut OcrEngine, name: &str) -> (usize, usize, usize, usize) {
    let json = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/keypad")
        .join(format!("{name}.json"));
    let page = pages::load(&json).unwrap_or_else(|e| panic!("{e}"));
    let (obs, _) = pages::perceive_no_tree(engine, &page.img).unwrap_or_else(|e| panic!("{e}"));
    let mut t = (0, 0, 0, 0);
    for key in page
        .page
        .items
        .iter()
        .filter(|i| i.kind == "button" && i.text.chars().count() == 1)
    {
        let r = key.rect();
        let hit = obs.elements.iter().any(|e| {
            e.name.trim().eq_ignore_ascii_case(&key.text) && pages::inside(&e.bbox_px, &r, 2.0)
        });
        t.0 += 1;
        t.1 += usize::from(hit);
        if key.text == "7" {
            t.2 += 1;
            t.3 += usize::from(hit);
        }
    }
    t
}

#[test]
fn seven_keys_are_found_inside_their_buttons_without_a_tree() {
    let Some(mut engine) = engine() else { return };
    for name in ["chromium-4", "gtk-11"] {
        let (keys, found, sevens, sevens_found) = keys_found(&mut engine, name);
        assert!(sevens >= 3, "{name}: the page has {sevens} 7 keys");
        assert_eq!(sevens_found, sevens, "{name}: 7 keys found");
        assert!(
            found as f64 >= 0.85 * keys as f64,
            "{name}: {found} of {keys} one-character keys found"
        );
    }
}
