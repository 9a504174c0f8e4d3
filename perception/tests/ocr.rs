//! OCR on screens rendered here with Debian fonts (see `tests/fixtures/ocr/render.py`):
//! mixed English and Chinese lines, ≥ 95% of lines exact.
//!
//! Needs `--features ocr` and the models (`deploy/models.sh`). Without the models the tests
//! FAIL, telling to run the script, unless `ARGUS_SKIP_OCR_TESTS=1` (ignored under
//! `ARGUS_REQUIRE_ALL=1`, as in CI).
//!
//! "Exact" compares whitespace-collapsed text with spaces next to CJK characters removed:
//! PP-OCR's recognizer does not emit a space between Chinese and Latin text (`已连接到
//! Office-5G` reads `已连接到Office-5G`), which carries no meaning for matching.
#![cfg(feature = "ocr")]

/// The keypad tests (one test binary for OCR, see `keypad/mod.rs`).
mod keypad;

use std::path::{Path, PathBuf};

use argus_perception::ocr::{self, OcrConfig, OcrEngine};
use argus_perception::regions::{pixel_regions, RegionParams, RegionReason};
use argus_perception::{build, Node, Rect, Role, Screen, Tree};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ocr")
}

/// The engine, or `None` when the tests are skipped on purpose.
fn engine() -> Option<OcrEngine> {
    let dir = ocr::models_dir();
    if !ocr::models_present(&dir) {
        // `ARGUS_REQUIRE_ALL=1` (deploy/test.sh, CI) overrides the skip.
        if std::env::var("ARGUS_SKIP_OCR_TESTS").as_deref() == Ok("1")
            && std::env::var("ARGUS_REQUIRE_ALL").as_deref() != Ok("1")
        {
            eprintln!(
                "OCR models missing in {}: skipped (ARGUS_SKIP_OCR_TESTS=1)",
                dir.display()
            );
            return None;
        }
        panic!(
            "OCR models missing in {}: run deploy/models.sh (or set ARGUS_MODELS_DIR), \
             or set ARGUS_SKIP_OCR_TESTS=1 to skip",
            dir.display()
        );
    }
    match OcrEngine::open(&dir, OcrConfig::default()) {
        Ok(e) => Some(e),
        Err(e) => panic!("opening the OCR engine from {}: {e}", dir.display()),
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3000}'..='\u{9fff}' | '\u{ff00}'..='\u{ffef}')
}

fn norm(s: &str) -> String {
    let words: Vec<&str> = s.split_whitespace().collect();
    let mut out = String::new();
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            let prev = out.chars().last().is_some_and(is_cjk);
            let next = w.chars().next().is_some_and(is_cjk);
            if !prev && !next {
                out.push(' ');
            }
        }
        out.push_str(w);
    }
    out
}

struct Line {
    rect: Rect,
    text: String,
}

fn expected(name: &str) -> Vec<Line> {
    let tsv = std::fs::read_to_string(fixtures().join(format!("{name}.tsv"))).unwrap();
    tsv.lines()
        .map(|l| {
            let f: Vec<&str> = l.splitn(5, '\t').collect();
            let n = |i: usize| f[i].parse::<f64>().unwrap();
            Line {
                rect: Rect::new(n(0), n(1), n(2), n(3)),
                text: f[4].to_string(),
            }
        })
        .collect()
}

fn load(name: &str) -> image::RgbImage {
    image::open(fixtures().join(format!("{name}.png")))
        .unwrap()
        .to_rgb8()
}

/// Expected lines found exactly (multiset), and the misses for the message.
fn score(expected: &[Line], got: &[String]) -> (usize, Vec<String>) {
    let mut pool: Vec<String> = got.iter().map(|s| norm(s)).collect();
    let mut hits = 0;
    let mut misses = Vec::new();
    for e in expected {
        let want = norm(&e.text);
        if let Some(k) = pool.iter().position(|g| *g == want) {
            pool.swap_remove(k);
            hits += 1;
        } else {
            misses.push(want);
        }
    }
    (hits, misses)
}

#[test]
fn full_screen_ocr_reads_95_percent_of_lines_exactly() {
    let Some(mut engine) = engine() else { return };
    assert_eq!(engine.classes(), 6625);
    reads_95_percent(&mut engine);
}

/// The worker's configuration (small text read at 32 px, two recognition sessions side by
/// side) reads the phone screens as well, and every name of a dense 1280×800 terminal frame.
#[test]
fn screen_config_keeps_accuracy() {
    if engine().is_none() {
        return;
    }
    let config = argus_perception::pixel::screen_config(2);
    assert_eq!(config.rec_workers, 2);
    let mut engine = OcrEngine::open(&ocr::models_dir(), config).unwrap();
    reads_95_percent(&mut engine);
    let img =
        image::open(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/desktop/xterm.png"))
            .unwrap()
            .to_rgb8();
    let lines = engine.recognize(&img).unwrap();
    let text: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
    let text = text.join("\n");
    for name in [
        "avahi-daemon",
        "bigreqsproto",
        "binutils-x86-64-linux-gnu",
        "libbinutils",
        "ca-certificates-java",
        "gcc-12-base",
        "dbus-session-bus-common",
        "debian-archive-keyring",
        "dictionaries-common",
    ] {
        assert!(text.contains(name), "{name:?} not read:\n{text}");
    }
    // Lines come back in reading order (top to bottom), whichever session read them.
    let ys: Vec<f64> = lines.iter().map(|l| l.bbox_px.y).collect();
    assert!(ys.windows(2).all(|w| w[1] + 10.0 >= w[0]), "{ys:?}");
}

fn reads_95_percent(engine: &mut OcrEngine) {
    let (mut hits, mut total) = (0, 0);
    let mut report = String::new();
    for name in ["screen_list", "screen_canvas"] {
        let img = load(name);
        let lines = engine.recognize(&img).unwrap();
        let want = expected(name);
        let got: Vec<String> = lines.iter().map(|l| l.text.clone()).collect();
        let (h, misses) = score(&want, &got);
        hits += h;
        total += want.len();
        report.push_str(&format!(
            "{name}: {h}/{} exact; missed {misses:?}; got {got:?}\n",
            want.len()
        ));
        // boxes are where the text was drawn
        for l in &lines {
            assert!(
                want.iter().any(|w| w.rect.iou(&l.bbox_px) > 0.3),
                "{name}: box {:?} of {:?} matches no drawn line",
                l.bbox_px,
                l.text
            );
        }
    }
    eprintln!("{report}");
    assert!(
        hits * 100 >= total * 95,
        "only {hits}/{total} lines exact:\n{report}"
    );
}

fn node(role: Role, platform: &str, name: &str, b: Rect) -> Node {
    let mut n = Node::new(role, platform, name);
    n.bounds = Some(b);
    n
}

#[test]
fn region_ocr_reads_the_canvas_the_tree_cannot_see() {
    let Some(mut engine) = engine() else { return };
    let img = load("screen_canvas");
    // What a tree of this screen would hold: the texts around a canvas (dpr 2).
    let mut t = Tree::default();
    let root = t.push(
        node(
            Role::Other,
            "android.widget.FrameLayout",
            "",
            Rect::new(0.0, 0.0, 540.0, 960.0),
        ),
        None,
    );
    t.push(
        node(
            Role::Heading,
            "android.widget.TextView",
            "Map view",
            Rect::new(20.0, 20.0, 200.0, 30.0),
        ),
        Some(root),
    );
    t.push(
        node(
            Role::Text,
            "android.widget.TextView",
            "离线地图",
            Rect::new(380.0, 24.0, 100.0, 26.0),
        ),
        Some(root),
    );
    t.push(
        node(
            Role::Other,
            "android.view.SurfaceView",
            "",
            Rect::new(0.0, 80.0, 540.0, 620.0),
        ),
        Some(root),
    );
    t.push(
        node(
            Role::Heading,
            "android.widget.TextView",
            "Nearby places",
            Rect::new(20.0, 730.0, 300.0, 30.0),
        ),
        Some(root),
    );
    for (k, s) in [
        "咖啡店 Coffee House 0.3 km",
        "加油站 Gas Station 1.2 km",
        "Pharmacy open until 22:00",
    ]
    .iter()
    .enumerate()
    {
        t.push(
            node(
                Role::Text,
                "android.widget.TextView",
                s,
                Rect::new(20.0, 770.0 + 35.0 * k as f64, 500.0, 25.0),
            ),
            Some(root),
        );
    }
    t.push(
        node(
            Role::Button,
            "android.widget.Button",
            "开始导航",
            Rect::new(20.0, 890.0, 500.0, 50.0),
        ),
        Some(root),
    );
    let obs = build(&t, Screen::from_device_px(1080.0, 1920.0, 2.0), 1);
    let regions = pixel_regions(&t, &obs, &RegionParams::default());
    assert_eq!(
        regions[0].reason,
        RegionReason::OpaqueNode("android.view.SurfaceView".into())
    );
    let rects: Vec<Rect> = regions.iter().map(|r| r.rect).collect();
    let cands = engine.recognize_regions(&img, &rects, 16.0).unwrap();
    let want: Vec<Line> = expected("screen_canvas")
        .into_iter()
        .filter(|l| l.rect.y > 160.0 && l.rect.bottom() < 1400.0)
        .collect();
    let got: Vec<String> = cands.iter().map(|c| c.text.clone()).collect();
    let (hits, misses) = score(&want, &got);
    assert!(
        hits + 1 >= want.len(),
        "{hits}/{} canvas labels; missed {misses:?}; got {got:?}",
        want.len()
    );
    // full-screen coordinates
    for w in &want {
        if let Some(c) = cands.iter().find(|c| norm(&c.text) == norm(&w.text)) {
            assert!(
                c.bbox_px.iou(&w.rect) > 0.4,
                "{:?}: {:?} vs drawn {:?}",
                w.text,
                c.bbox_px,
                w.rect
            );
        }
    }
    // fused: the canvas labels join the tree's elements
    let fused = argus_perception::fuse(&obs, &cands, 0.1);
    assert!(fused.contains_text("Harbor Bridge"));
    assert!(fused.elements.len() >= obs.elements.len() + want.len() - 1);
}

/// The folded det / rec models (`deploy/fuse_ppocr.py`) read exactly what the originals read,
/// box for box, on the phone screens and the terminal frame. Skipped (with a note) when the
/// models directory has no folded models; failed under `ARGUS_REQUIRE_ALL=1` (CI), where
/// `deploy/models.sh` has made them.
#[test]
fn folded_models_read_the_same_text() {
    if engine().is_none() {
        return;
    }
    let dir = ocr::models_dir();
    if !dir.join(ocr::REC_MODEL_FOLDED).is_file() || !dir.join(ocr::DET_MODEL_FOLDED).is_file() {
        assert!(
            std::env::var("ARGUS_REQUIRE_ALL").as_deref() != Ok("1"),
            "required component folded OCR models missing in {}: run deploy/models.sh \
             (ARGUS_REQUIRE_ALL=1 turns skips into failures)",
            dir.display()
        );
        eprintln!("no folded models in {}: skipped", dir.display());
        return;
    }
    let open = |use_folded: bool| {
        let config = OcrConfig {
            use_folded,
            ..argus_perception::pixel::screen_config(1)
        };
        OcrEngine::open(&dir, config).unwrap()
    };
    let (mut folded, mut plain) = (open(true), open(false));
    assert!(folded.folded() && !plain.folded());
    let desktop = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/desktop/xterm.png");
    let frames = [
        load("screen_list"),
        load("screen_canvas"),
        image::open(desktop).unwrap().to_rgb8(),
    ];
    for img in &frames {
        let a = folded.recognize(img).unwrap();
        let b = plain.recognize(img).unwrap();
        let texts = |v: &[ocr::OcrLine]| -> Vec<(String, Rect)> {
            v.iter().map(|l| (l.text.clone(), l.bbox_px)).collect()
        };
        assert_eq!(texts(&a), texts(&b));
    }
}

/// Reading crops that show the same ink once ([`ocr::same_ink`], the screen default) gives
/// the text reading every crop gives, box for box, on the phone screens and the terminal
/// frame (whose `ls -la` columns repeat: about half its crops are read once for several).
#[test]
fn same_ink_once_reads_the_same_text() {
    if engine().is_none() {
        return;
    }
    let open = |same_ink_once: bool| {
        let mut config = argus_perception::pixel::screen_config(1);
        config.rec.same_ink_once = same_ink_once;
        OcrEngine::open(&ocr::models_dir(), config).unwrap()
    };
    let (mut once, mut every) = (open(true), open(false));
    let desktop = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/desktop/xterm.png");
    let frames = [
        load("screen_list"),
        load("screen_canvas"),
        image::open(desktop).unwrap().to_rgb8(),
    ];
    for img in &frames {
        let texts = |v: &[ocr::OcrLine]| -> Vec<(String, Rect)> {
            v.iter().map(|l| (l.text.clone(), l.bbox_px)).collect()
        };
        let a = once.recognize(img).unwrap();
        let b = every.recognize(img).unwrap();
        assert_eq!(texts(&a), texts(&b));
    }
}

/// The pixel channel skips the blank parts of its regions: on the real mousepad frame, the
/// regions its tree leaves uncovered are the empty black desktop around the window, so
/// nothing is read there; with no tree, only the window is read, not the desktop.
#[test]
fn blank_regions_are_skipped() {
    let img = image::open(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/desktop/mousepad.png"),
    )
    .unwrap()
    .to_rgb8();
    // the desktop right of and below the 640x480 window: black
    let desktop = [
        Rect::new(672.0, 0.0, 608.0, 800.0),
        Rect::new(0.0, 528.0, 672.0, 272.0),
    ];
    assert!(argus_perception::pixel::inked(&img, &desktop).is_empty());
    let whole = argus_perception::pixel::inked(&img, &[Rect::new(0.0, 0.0, 1280.0, 800.0)]);
    assert_eq!(whole.len(), 1, "{whole:?}");
    assert!(
        whole[0].right() <= 641.0 && whole[0].bottom() <= 481.0,
        "{whole:?}"
    );
}
