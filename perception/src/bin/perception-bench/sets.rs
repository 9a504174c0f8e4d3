//! The generated-set line of the perception bench: OCR accuracy on UI text and one-character
//! keys found on keypads, both read with no accessibility tree ([`pages::perceive_no_tree`],
//! the worker's pixel channel configuration, [`super::observe::engine_config`]).
//!
//! The pages come from `perception/sets/generate.py` (Chromium and GTK, several fonts and
//! sizes, seeded): `$ARGUS_BENCH_SETS` (default `target/perception-sets` in the workspace),
//! generated there first when missing (needs chromium, xvfb, python3-gi). The **held-out**
//! part is scored unless `ARGUS_BENCH_PART=tune` (the part tuning may look at). Printed: a
//! table by font size, renderer and font (text) and by button size and renderer (keypads);
//! with `ARGUS_BENCH_VERBOSE=1` every item read wrong. Last line fields: `sets_part`,
//! `ocr_words`, `ocr_word_accuracy`, `ocr_char_accuracy`, `ocr_word_accuracy_worst_size`
//! (`accuracy@px`), `keypad_keys`, `keypad_found`, `sets_frame_ms` (median wall ms of one
//! no-tree page).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use argus_perception::ocr::{self, OcrEngine};

use super::keypad_score::{self, KeyTally};
use super::pages::{self, Loaded};
use super::text_score::{self, Tally};

/// The fields of the sets line (`NA` when not measured).
pub struct SetFields(Vec<(&'static str, String)>);

impl SetFields {
    /// `key=value …`.
    pub fn line(&self) -> String {
        self.0
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

const KEYS: [&str; 8] = [
    "sets_part",
    "ocr_words",
    "ocr_word_accuracy",
    "ocr_char_accuracy",
    "ocr_word_accuracy_worst_size",
    "keypad_keys",
    "keypad_found",
    "sets_frame_ms",
];

fn na(why: &str) -> SetFields {
    println!("sets: {why}; set fields print NA");
    SetFields(KEYS.iter().map(|k| (*k, "NA".to_string())).collect())
}

fn sets_dir() -> PathBuf {
    std::env::var_os("ARGUS_BENCH_SETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/perception-sets"))
}

/// Runs the generator for `part` into `dir` (blocking, about a minute).
fn generate(dir: &Path, part: &str) -> Result<(), String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("sets/generate.py");
    println!("sets: generating the {part} part into {}", dir.display());
    let st = std::process::Command::new("/usr/bin/python3")
        .arg(&script)
        .arg(dir)
        .args(["--part", part])
        .status()
        .map_err(|e| format!("{}: {e}", script.display()))?;
    if st.success() {
        Ok(())
    } else {
        Err(format!("{} exited with {st}", script.display()))
    }
}

fn load(dir: &Path, set: &str, part: &str) -> Result<Vec<Loaded>, String> {
    let d = dir.join(set).join(part);
    if !d.is_dir() {
        generate(dir, part)?;
    }
    pages::load_dir(&d)
}

fn verbose() -> bool {
    std::env::var("ARGUS_BENCH_VERBOSE").as_deref() == Ok("1")
}

/// Text set: tallies by size, renderer, font and overall.
fn text(engine: &mut OcrEngine, pages: &[Loaded], ms: &mut Vec<f64>) -> Result<Scored, String> {
    let mut s = Scored::default();
    for p in pages {
        let (obs, t) = pages::perceive_no_tree(engine, &p.img)?;
        ms.push(t);
        let (tally, wrong) = text_score::score_page(&p.page, &obs);
        if verbose() && !wrong.is_empty() {
            println!("  {}: {}", p.path.display(), wrong.join("; "));
        }
        s.by_size.entry(p.page.size_px).or_default().add(tally);
        s.by_other
            .entry(format!("{} {}", p.renderer, p.page.font))
            .or_default()
            .add(tally);
        s.all.add(tally);
    }
    Ok(s)
}

#[derive(Default)]
struct Scored {
    by_size: BTreeMap<u32, Tally>,
    by_other: BTreeMap<String, Tally>,
    all: Tally,
}

/// Keypad set: tallies by "size class renderer" and overall.
fn keypads(
    engine: &mut OcrEngine,
    pages: &[Loaded],
    ms: &mut Vec<f64>,
) -> Result<(BTreeMap<String, KeyTally>, KeyTally), String> {
    let (mut by, mut all) = (BTreeMap::new(), KeyTally::default());
    for p in pages {
        let (obs, t) = pages::perceive_no_tree(engine, &p.img)?;
        ms.push(t);
        let k = keypad_score::score_page(&p.page, &obs);
        if verbose() && !k.missed.is_empty() {
            println!("  {}: missed {}", p.path.display(), k.missed.join("; "));
        }
        let class = p.page.size_class.clone().unwrap_or_default();
        by.entry(format!("{class} {}", p.renderer))
            .or_insert_with(KeyTally::default)
            .add(&k);
        all.add(&k);
    }
    Ok((by, all))
}

fn print_text(s: &Scored, pages: usize) {
    println!(
        "\nsets: UI text, {pages} pages, no tree: {} words",
        s.all.words
    );
    println!(
        "{:<36} {:>7} {:>9} {:>9}",
        "group", "words", "word acc", "char acc"
    );
    let row = |name: &str, t: &Tally| {
        println!(
            "{name:<36} {:>7} {:>9.3} {:>9.3}",
            t.words,
            t.word_accuracy(),
            t.char_accuracy()
        );
    };
    for (size, t) in &s.by_size {
        row(&format!("font size {size} px"), t);
    }
    for (k, t) in &s.by_other {
        row(k, t);
    }
    row("all", &s.all);
}

/// Runs the set evaluation; prints its tables and returns the fields of its line.
pub fn run() -> SetFields {
    let models = ocr::models_dir();
    if !ocr::models_present(&models) {
        return na("OCR models missing");
    }
    let part = std::env::var("ARGUS_BENCH_PART").unwrap_or_else(|_| "held".into());
    let dir = sets_dir();
    let loaded = load(&dir, "text", &part).and_then(|t| Ok((t, load(&dir, "keypad", &part)?)));
    let (text_pages, key_pages) = match loaded {
        Ok(l) => l,
        Err(e) => return na(&e),
    };
    let config = super::observe::engine_config();
    let mut engine = match OcrEngine::open(&models, config) {
        Ok(e) => e,
        Err(e) => return na(&e.to_string()),
    };
    let mut ms = Vec::new();
    let scored = match text(&mut engine, &text_pages, &mut ms)
        .and_then(|s| Ok((s, keypads(&mut engine, &key_pages, &mut ms)?)))
    {
        Ok(s) => s,
        Err(e) => return na(&e),
    };
    let (s, (by_key, keys)) = scored;
    print_text(&s, text_pages.len());
    println!(
        "\nsets: keypads, {} pages, no tree: {} one-character keys",
        key_pages.len(),
        keys.keys
    );
    println!("{:<36} {:>7} {:>9}", "group", "keys", "found");
    for (k, t) in by_key.iter().chain([(&"all".to_string(), &keys)]) {
        println!("{k:<36} {:>7} {:>9.3}", t.keys, t.share());
    }
    for (name, (n, found)) in keypad_score::KINDS.iter().zip(keys.by_kind) {
        let share = if n == 0 { 1.0 } else { found as f64 / n as f64 };
        println!("{:<36} {n:>7} {share:>9.3}", format!("{name} keys"));
    }
    let worst = s
        .by_size
        .iter()
        .map(|(size, t)| (t.word_accuracy(), *size))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    SetFields(vec![
        ("sets_part", part),
        ("ocr_words", s.all.words.to_string()),
        ("ocr_word_accuracy", format!("{:.3}", s.all.word_accuracy())),
        ("ocr_char_accuracy", format!("{:.3}", s.all.char_accuracy())),
        (
            "ocr_word_accuracy_worst_size",
            worst.map_or("NA".into(), |(a, px)| format!("{a:.3}@{px}px")),
        ),
        ("keypad_keys", keys.keys.to_string()),
        ("keypad_found", format!("{:.3}", keys.share())),
        ("sets_frame_ms", format!("{:.0}", super::median(&mut ms))),
    ])
}
