//! Perception bench: the tree channel on a synthetic 1,000-node Android dump, and the OCR
//! pixel channel against RapidOCR's Python pipeline on the same frame.
//!
//! `cargo run --release -p argus-perception --features ocr --bin perception-bench`
//! (without `--features ocr`, or without the models of `deploy/models.sh`, the OCR fields
//! print `NA`).
//!
//! Tree: builds a `uiautomator dump` XML of exactly 1,000 nodes (111 clickable rows of 9 nodes:
//! row, avatar, text column, sender, subject, snippet, time, star checkbox, badge; plus the
//! root), all on a 1080×2400 screen, then times over ≥ 10 runs and prints medians (ms) of:
//! normalize (XML → tree), build (clean, cluster, occlusion, reading order, neighbours),
//! fuse (40 OCR/vision candidates) and compact, and their sum `tree_1k_ms`
//! (normalize + build + fuse).
//!
//! OCR (feature `ocr`): the frame is `tests/fixtures/ocr/screen_canvas.png` (1080×1920,
//! rendered here with Debian fonts; a map canvas the tree cannot see plus ordinary text).
//! Medians of [`OCR_RUNS`] runs after one warm-up, **CPU time** (user + sys of the whole
//! process, all threads, `getrusage`) and wall time, of: our full-screen OCR; our region-only
//! OCR of the canvas region [`pixel_regions`] finds; RapidOCR 1.4.4 (`rapidocr-onnxruntime`,
//! same ONNX models, its stock `config.yaml`) on the same PNG in a Python subprocess
//! (`$ARGUS_RAPIDOCR_PYTHON`, default `$ARGUS_MODELS_DIR/rapidocr-venv/bin/python`), timed
//! inside that process with `time.process_time()`. Ratios: `ocr_full_cpu_ratio` = ours full /
//! RapidOCR full; `ocr_step_cpu_ratio` = (tree_1k CPU + our region OCR) / RapidOCR full;
//! `text_match` = 2·|common lines| / (|ours| + |RapidOCR|), lines compared whitespace-collapsed
//! with spaces next to CJK removed. Peak RSS is `VmHWM` (ours) and `ru_maxrss` (Python).
//!
//! Observe (feature `ocr`, `perception-bench/observe.rs`): a desktop worker's observation of
//! real 1280×800 frames — `observe_capture_ms` (the recorded AT-SPI capture + report
//! screenshot of the mousepad window), `observe_tree_ms` (that + the tree channel),
//! `observe_fused_ms` (that + the pixel channel on the regions the tree does not cover),
//! their ratio `observe_fused_ratio`, `observe_no_tree_ms` (no tree: full-screen OCR) and
//! `ocr_accuracy` on the no-tree frame; printed as a second last line
//! (`ARGUS_BENCH_ONLY=observe` prints only it).

#[cfg(feature = "ocr")]
#[path = "perception-bench/keypad_score.rs"]
mod keypad_score;
#[cfg(feature = "ocr")]
#[path = "perception-bench/observe.rs"]
mod observe;
#[cfg(feature = "ocr")]
#[path = "perception-bench/pages.rs"]
mod pages;
#[cfg(feature = "ocr")]
#[path = "perception-bench/sets.rs"]
mod sets;
#[cfg(feature = "ocr")]
#[path = "perception-bench/text_score.rs"]
mod text_score;

use std::fmt::Write as _;
use std::time::Instant;

use argus_perception::{android, build, fuse, PixelCandidate, PixelKind, Rect, Screen};

const RUNS: usize = 15;
/// Runs per OCR measurement (after one warm-up).
#[cfg(feature = "ocr")]
const OCR_RUNS: usize = 10;
const ROWS: usize = 111;
const PLAIN: &str = r#"checkable="false" checked="false" clickable="false""#;

/// Appends one `<node>`; `extra` holds its `checkable`, `checked` and `clickable` attributes.
fn node(
    out: &mut String,
    class: &str,
    text: &str,
    b: (i32, i32, i32, i32),
    extra: &str,
    close: bool,
) {
    let _ = write!(
        out,
        r#"<node index="0" text="{text}" resource-id="com.example:id/n" class="{class}" package="com.example" content-desc="" {extra} enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[{},{}][{},{}]""#,
        b.0, b.1, b.2, b.3
    );
    out.push_str(if close { "/>" } else { ">" });
}

fn synthetic_dump() -> String {
    let mut s = String::from(
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">",
    );
    node(
        &mut s,
        "android.widget.FrameLayout",
        "",
        (0, 0, 1080, 2400),
        PLAIN,
        false,
    );
    for r in 0..ROWS as i32 {
        let y = r * 21;
        node(
            &mut s,
            "android.widget.LinearLayout",
            "",
            (0, y, 1080, y + 21),
            r#"checkable="false" checked="false" clickable="true""#,
            false,
        );
        node(
            &mut s,
            "android.widget.ImageView",
            "",
            (4, y + 2, 20, y + 18),
            PLAIN,
            true,
        );
        node(
            &mut s,
            "android.widget.LinearLayout",
            "",
            (24, y, 800, y + 21),
            PLAIN,
            false,
        );
        node(
            &mut s,
            "android.widget.TextView",
            &format!("Sender {r}"),
            (24, y, 200, y + 7),
            PLAIN,
            true,
        );
        node(
            &mut s,
            "android.widget.TextView",
            &format!("Subject line {r}"),
            (24, y + 7, 800, y + 14),
            PLAIN,
            true,
        );
        node(
            &mut s,
            "android.widget.TextView",
            "Snippet of the message body",
            (24, y + 14, 800, y + 21),
            PLAIN,
            true,
        );
        s.push_str("</node>");
        node(
            &mut s,
            "android.widget.TextView",
            "10:42",
            (900, y, 1000, y + 10),
            PLAIN,
            true,
        );
        node(
            &mut s,
            "android.widget.CheckBox",
            "",
            (1000, y, 1076, y + 21),
            r#"checkable="true" checked="false" clickable="true""#,
            true,
        );
        node(
            &mut s,
            "android.view.View",
            "",
            (880, y + 12, 890, y + 20),
            PLAIN,
            true,
        );
        s.push_str("</node>");
    }
    s.push_str("</node></hierarchy>");
    s
}

fn candidates() -> Vec<PixelCandidate> {
    (0..40)
        .map(|i| {
            let y = f64::from(i) * 55.0;
            PixelCandidate {
                bbox_px: if i % 2 == 0 {
                    Rect::new(30.0, y + 1.0, 150.0, 6.0)
                } else {
                    Rect::new(820.0, y, 50.0, 20.0)
                },
                text: if i % 2 == 0 {
                    format!("Sender {i}")
                } else {
                    String::new()
                },
                kind: if i % 2 == 0 {
                    PixelKind::Ocr
                } else {
                    PixelKind::Vision
                },
                confidence: 0.5,
            }
        })
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() {
    #[cfg(feature = "ocr")]
    match std::env::var("ARGUS_BENCH_ONLY").as_deref() {
        Ok("observe") => {
            println!("{}", observe::run().line());
            return;
        }
        Ok("sets") => {
            println!("{}", sets::run().line());
            return;
        }
        _ => {}
    }
    let xml = synthetic_dump();
    let cands = candidates();
    let screen = Screen::from_device_px(1080.0, 2400.0, 1.0);
    let (mut tn, mut tb, mut tf, mut tc, mut total) = (vec![], vec![], vec![], vec![], vec![]);
    let mut nodes = 0;
    let mut elements = 0;
    let mut compact_chars = 0;
    for run in 0..RUNS + 1 {
        let t0 = Instant::now();
        let dump = match android::normalize(&xml, 1.0) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("synthetic dump failed to parse: {e}");
                std::process::exit(1);
            }
        };
        let t1 = Instant::now();
        let obs = build(&dump.tree, screen, run as u64);
        let t2 = Instant::now();
        let fused = fuse(&obs, &cands, 0.1);
        let t3 = Instant::now();
        let compact = fused.compact();
        let t4 = Instant::now();
        nodes = dump.tree.nodes.len();
        elements = fused.elements.len();
        compact_chars = compact.len();
        if run == 0 {
            continue; // warm-up
        }
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        tn.push(ms(t0, t1));
        tb.push(ms(t1, t2));
        tf.push(ms(t2, t3));
        tc.push(ms(t3, t4));
        total.push(ms(t0, t3));
    }
    println!("perception-bench: synthetic uiautomator dump, {nodes} nodes, {} bytes, {elements} elements after fusion, {RUNS} runs (medians)", xml.len());
    println!("{:<34} {:>10}", "step", "median ms");
    println!(
        "{:<34} {:>10.3}",
        "normalize (XML -> tree)",
        median(&mut tn)
    );
    println!(
        "{:<34} {:>10.3}",
        "build (clean/cluster/occl/order)",
        median(&mut tb)
    );
    println!(
        "{:<34} {:>10.3}",
        "fuse (40 candidates, rstar)",
        median(&mut tf)
    );
    println!("{:<34} {:>10.3}", "compact text", median(&mut tc));
    println!(
        "{:<34} {:>10.3}",
        "tree_1k = normalize+build+fuse",
        median(&mut total.clone())
    );
    println!(
        "compact text: {compact_chars} chars (~{} tokens)",
        compact_chars / 4
    );
    match peak_rss_mib() {
        Some(m) => println!("peak RSS: {m:.1} MiB"),
        None => println!("peak RSS: NA"),
    }
    let tree_ms = median(&mut total);
    let o = ocr_bench::run(tree_ms);
    println!(
        "tree_1k_ms={tree_ms:.3} ocr_full_cpu_ratio={} ocr_step_cpu_ratio={} text_match={}",
        o.full_ratio, o.step_ratio, o.text_match
    );
    #[cfg(feature = "ocr")]
    {
        let obs = observe::run();
        let sets = sets::run();
        println!("{}", obs.line());
        println!("{}", sets.line());
    }
    #[cfg(not(feature = "ocr"))]
    println!(
        "observe_capture_ms=NA observe_tree_ms=NA observe_fused_ms=NA observe_no_tree_ms=NA observe_fused_ratio=NA ocr_accuracy=NA"
    );
}

/// The OCR fields of the last line (`NA` when not measured).
struct OcrFields {
    full_ratio: String,
    step_ratio: String,
    text_match: String,
}

#[cfg(not(feature = "ocr"))]
mod ocr_bench {
    pub fn run(_tree_ms: f64) -> super::OcrFields {
        println!("OCR: built without the `ocr` feature; OCR fields print NA");
        super::OcrFields {
            full_ratio: "NA".into(),
            step_ratio: "NA".into(),
            text_match: "NA".into(),
        }
    }
}

#[cfg(feature = "ocr")]
mod ocr_bench {
    use std::path::{Path, PathBuf};
    use std::time::Instant;

    use argus_perception::ocr::{self, OcrConfig, OcrEngine};
    use argus_perception::regions::{pixel_regions, RegionParams};
    use argus_perception::{build, Node, Rect, Role, Screen, Tree};
    use image::RgbImage;

    use super::{median, peak_rss_mib, OcrFields, OCR_RUNS};

    const FRAME: &str = "tests/fixtures/ocr/screen_canvas.png";

    /// RapidOCR timing script: argv = image, runs; prints one JSON object.
    const PY: &str = r#"
import json, resource, sys, time
from rapidocr_onnxruntime import RapidOCR
path, runs = sys.argv[1], int(sys.argv[2])
eng = RapidOCR()
res, _ = eng(path)
cpu, wall = [], []
for _ in range(runs):
    c0, w0 = time.process_time(), time.perf_counter()
    res, _ = eng(path)
    cpu.append(time.process_time() - c0)
    wall.append(time.perf_counter() - w0)
texts = [r[1] for r in (res or [])]
print(json.dumps({"cpu": cpu, "wall": wall, "texts": texts,
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"#;

    fn na() -> OcrFields {
        OcrFields {
            full_ratio: "NA".into(),
            step_ratio: "NA".into(),
            text_match: "NA".into(),
        }
    }

    /// User + sys CPU seconds of this process (all threads).
    fn cpu_s() -> f64 {
        // SAFETY: getrusage only writes the struct we pass.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
        if rc != 0 {
            return 0.0;
        }
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        tv(ru.ru_utime) + tv(ru.ru_stime)
    }

    fn is_cjk(c: char) -> bool {
        matches!(c, '\u{3000}'..='\u{9fff}' | '\u{ff00}'..='\u{ffef}')
    }

    /// Whitespace collapsed, spaces next to CJK removed.
    fn norm(s: &str) -> String {
        let mut out = String::new();
        for w in s.split_whitespace() {
            let prev = out.chars().last();
            if prev.is_some_and(|p| !is_cjk(p)) && w.chars().next().is_some_and(|c| !is_cjk(c)) {
                out.push(' ');
            }
            out.push_str(w);
        }
        out
    }

    fn text_match(a: &[String], b: &[String]) -> f64 {
        if a.is_empty() && b.is_empty() {
            return 1.0;
        }
        let mut pool: Vec<String> = b.iter().map(|s| norm(s)).collect();
        let mut common = 0usize;
        for s in a {
            if let Some(k) = pool.iter().position(|p| *p == norm(s)) {
                pool.swap_remove(k);
                common += 1;
            }
        }
        2.0 * common as f64 / (a.len() + b.len()) as f64
    }

    /// The tree a platform would give for the frame: texts around an opaque SurfaceView.
    fn frame_tree() -> Tree {
        let mut t = Tree::default();
        let mut n = |role, platform: &str, name: &str, b: Rect, parent| {
            let mut node = Node::new(role, platform, name);
            node.bounds = Some(b);
            t.push(node, parent)
        };
        let root = n(
            Role::Other,
            "android.widget.FrameLayout",
            "",
            Rect::new(0.0, 0.0, 540.0, 960.0),
            None,
        );
        n(
            Role::Heading,
            "android.widget.TextView",
            "Map view",
            Rect::new(20.0, 20.0, 200.0, 30.0),
            Some(root),
        );
        n(
            Role::Text,
            "android.widget.TextView",
            "离线地图",
            Rect::new(380.0, 24.0, 100.0, 26.0),
            Some(root),
        );
        n(
            Role::Other,
            "android.view.SurfaceView",
            "",
            Rect::new(0.0, 80.0, 540.0, 620.0),
            Some(root),
        );
        n(
            Role::Heading,
            "android.widget.TextView",
            "Nearby places",
            Rect::new(20.0, 730.0, 300.0, 30.0),
            Some(root),
        );
        n(
            Role::Text,
            "android.widget.TextView",
            "Coffee House",
            Rect::new(20.0, 770.0, 500.0, 25.0),
            Some(root),
        );
        n(
            Role::Text,
            "android.widget.TextView",
            "Gas Station",
            Rect::new(20.0, 805.0, 500.0, 25.0),
            Some(root),
        );
        n(
            Role::Text,
            "android.widget.TextView",
            "Pharmacy",
            Rect::new(20.0, 840.0, 500.0, 25.0),
            Some(root),
        );
        n(
            Role::Button,
            "android.widget.Button",
            "开始导航",
            Rect::new(20.0, 890.0, 500.0, 50.0),
            Some(root),
        );
        t
    }

    struct Timed {
        cpu_ms: f64,
        wall_ms: f64,
    }

    fn time_runs<F: FnMut() -> Result<usize, ocr::OcrError>>(
        mut f: F,
    ) -> Result<(Timed, usize), ocr::OcrError> {
        let mut n = f()?; // warm-up
        let (mut cpu, mut wall) = (Vec::new(), Vec::new());
        for _ in 0..OCR_RUNS {
            let (c0, w0) = (cpu_s(), Instant::now());
            n = f()?;
            cpu.push((cpu_s() - c0) * 1e3);
            wall.push(w0.elapsed().as_secs_f64() * 1e3);
        }
        Ok((
            Timed {
                cpu_ms: median(&mut cpu),
                wall_ms: median(&mut wall),
            },
            n,
        ))
    }

    struct Rapid {
        cpu_ms: f64,
        wall_ms: f64,
        texts: Vec<String>,
        rss_mib: f64,
    }

    fn rapidocr(models: &Path, frame: &Path) -> Result<Rapid, String> {
        let python = std::env::var_os("ARGUS_RAPIDOCR_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| models.join("rapidocr-venv/bin/python"));
        let out = std::process::Command::new(&python)
            .arg("-c")
            .arg(PY)
            .arg(frame)
            .arg(OCR_RUNS.to_string())
            .output()
            .map_err(|e| format!("running {}: {e}", python.display()))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let tail: String = err.lines().rev().take(3).collect::<Vec<_>>().join(" | ");
            return Err(format!("{} failed: {tail}", python.display()));
        }
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).map_err(|e| format!("RapidOCR output: {e}"))?;
        let list = |k: &str| -> Vec<f64> {
            v[k].as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_f64())
                        .map(|s| s * 1e3)
                        .collect()
                })
                .unwrap_or_default()
        };
        Ok(Rapid {
            cpu_ms: median(&mut list("cpu")),
            wall_ms: median(&mut list("wall")),
            texts: v["texts"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            rss_mib: v["rss_mib"].as_f64().unwrap_or(0.0),
        })
    }

    /// Runs the OCR comparison (see the crate docs), printing its table; the fields of the
    /// last line, `NA` where something is missing.
    pub fn run(tree_ms: f64) -> OcrFields {
        let Some(Setup {
            models,
            frame,
            img,
            mut engine,
            threads,
        }) = setup()
        else {
            return na();
        };
        let mut ours: Vec<String> = Vec::new();
        let full = time_runs(|| {
            let lines = engine.recognize(&img)?;
            ours = lines.iter().map(|l| l.text.clone()).collect();
            Ok(lines.len())
        });
        let stages = engine.last_times;
        let regions = canvas_regions(&img);
        let region = time_runs(|| Ok(engine.recognize_regions(&img, &regions, 16.0)?.len()));
        let rss = peak_rss_mib();
        let ((full, full_n), (region, region_n)) = match (full, region) {
            (Ok(f), Ok(r)) => (f, r),
            (Err(e), _) | (_, Err(e)) => {
                println!("OCR: {e}; OCR fields print NA");
                return na();
            }
        };
        let timings = OursTimed {
            full,
            full_n,
            region,
            region_n,
            stages,
        };
        print_ours(&img, threads, &timings, &regions);
        let rapid = match rapidocr(&models, &frame) {
            Ok(r) => r,
            Err(e) => {
                println!("RapidOCR: {e}; ratios print NA");
                match rss {
                    Some(m) => println!("peak RSS ours: {m:.1} MiB"),
                    None => println!("peak RSS ours: NA"),
                }
                return na();
            }
        };
        compare(tree_ms, &timings, &ours, &rapid, rss)
    }

    /// What the OCR runs need: the models, the frame (path and pixels), an open engine and
    /// its ORT intra-op thread count.
    struct Setup {
        models: PathBuf,
        frame: PathBuf,
        img: RgbImage,
        engine: OcrEngine,
        threads: usize,
    }

    /// Finds the models, reads the frame and opens the engine; `None` (after saying why)
    /// when one of them fails.
    fn setup() -> Option<Setup> {
        let models = ocr::models_dir();
        if !ocr::models_present(&models) {
            println!(
                "OCR: models missing in {} (run deploy/models.sh); OCR fields print NA",
                models.display()
            );
            return None;
        }
        let frame = Path::new(env!("CARGO_MANIFEST_DIR")).join(FRAME);
        let img = match image::open(&frame) {
            Ok(i) => i.to_rgb8(),
            Err(e) => {
                println!(
                    "OCR: cannot read {}: {e}; OCR fields print NA",
                    frame.display()
                );
                return None;
            }
        };
        let config = OcrConfig {
            session: ocr::SessionOptions::from_env(),
            ..OcrConfig::default()
        };
        let threads = config.session.intra_threads;
        let engine = match OcrEngine::open(&models, config) {
            Ok(e) => e,
            Err(e) => {
                println!("OCR: {e}; OCR fields print NA");
                return None;
            }
        };
        Some(Setup {
            models,
            frame,
            img,
            engine,
            threads,
        })
    }

    /// The pixel regions [`pixel_regions`] finds on the frame under [`frame_tree`].
    fn canvas_regions(img: &RgbImage) -> Vec<Rect> {
        let tree = frame_tree();
        let obs = build(
            &tree,
            Screen::from_device_px(f64::from(img.width()), f64::from(img.height()), 2.0),
            1,
        );
        pixel_regions(&tree, &obs, &RegionParams::default())
            .iter()
            .map(|r| r.rect)
            .collect()
    }

    /// Our two OCR measurements: full screen (with its stage times) and regions only, each
    /// with the number of lines read.
    struct OursTimed {
        full: Timed,
        full_n: usize,
        region: Timed,
        region_n: usize,
        stages: ocr::StageTimes,
    }

    /// Prints the table's header and our rows.
    fn print_ours(img: &RgbImage, threads: usize, t: &OursTimed, regions: &[Rect]) {
        let region_px: f64 = regions.iter().map(|r| r.area()).sum();
        println!();
        println!(
            "OCR frame {} ({}x{}), {OCR_RUNS} runs after a warm-up (medians), ORT intra threads {threads}",
            FRAME,
            img.width(),
            img.height()
        );
        println!(
            "{:<44} {:>9} {:>9} {:>6}",
            "pipeline", "cpu ms", "wall ms", "lines"
        );
        println!(
            "{:<44} {:>9.1} {:>9.1} {:>6}",
            "ours: full screen", t.full.cpu_ms, t.full.wall_ms, t.full_n
        );
        println!(
            "{:<44} {:>9} {:>9} {:>6}",
            format!(
                "  stages det/cls/rec wall ms {:.0}/{:.0}/{:.0}",
                t.stages.det.as_secs_f64() * 1e3,
                t.stages.cls.as_secs_f64() * 1e3,
                t.stages.rec.as_secs_f64() * 1e3
            ),
            "",
            "",
            ""
        );
        println!(
            "{:<44} {:>9.1} {:>9.1} {:>6}",
            format!(
                "ours: regions only ({} region, {:.0}% of screen)",
                regions.len(),
                100.0 * region_px / (f64::from(img.width()) * f64::from(img.height()))
            ),
            t.region.cpu_ms,
            t.region.wall_ms,
            t.region_n
        );
    }

    /// Prints RapidOCR's row, the ratios and peak RSS; returns the last line's fields.
    fn compare(
        tree_ms: f64,
        t: &OursTimed,
        ours: &[String],
        rapid: &Rapid,
        rss: Option<f64>,
    ) -> OcrFields {
        println!(
            "{:<44} {:>9.1} {:>9.1} {:>6}",
            "RapidOCR 1.4.4 (python): full screen",
            rapid.cpu_ms,
            rapid.wall_ms,
            rapid.texts.len()
        );
        let step_cpu = tree_ms + t.region.cpu_ms;
        let full_ratio = t.full.cpu_ms / rapid.cpu_ms;
        let step_ratio = step_cpu / rapid.cpu_ms;
        let tm = text_match(ours, &rapid.texts);
        println!(
            "full-screen CPU ours/RapidOCR {full_ratio:.3}; step (tree_1k {tree_ms:.1} + regions {:.1} ms) / RapidOCR full {step_ratio:.3}; text match {tm:.3}",
            t.region.cpu_ms
        );
        match rss {
            Some(m) => println!(
                "peak RSS: ours {m:.1} MiB (tree + OCR), RapidOCR {:.1} MiB",
                rapid.rss_mib
            ),
            None => println!("peak RSS: ours NA, RapidOCR {:.1} MiB", rapid.rss_mib),
        }
        OcrFields {
            full_ratio: format!("{full_ratio:.3}"),
            step_ratio: format!("{step_ratio:.3}"),
            text_match: format!("{tm:.3}"),
        }
    }
}
