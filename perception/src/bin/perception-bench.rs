//! Perception bench: the tree channel on a synthetic 1,000-node Android dump.
//!
//! `cargo run --release -p argus-perception --bin perception-bench`
//!
//! Builds a `uiautomator dump` XML of exactly 1,000 nodes (111 clickable rows of 9 nodes:
//! row, avatar, text column, sender, subject, snippet, time, star checkbox, badge; plus the
//! root), all on a 1080×2400 screen, then times over ≥ 10 runs and prints medians (ms) of:
//! normalize (XML → tree), build (clean, cluster, occlusion, reading order, neighbours),
//! fuse (40 OCR/vision candidates) and compact, and their sum `tree_1k_ms`
//! (normalize + build + fuse). OCR is not part of this crate yet, so the OCR columns of the
//! last line print `NA`. Peak RSS is read from `/proc/self/status` (`VmHWM`) where present.

use std::fmt::Write as _;
use std::time::Instant;

use argus_perception::{android, build, fuse, PixelCandidate, PixelKind, Rect, Screen};

const RUNS: usize = 15;
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
    println!("OCR: not implemented in this crate yet; OCR ratios print NA");
    println!(
        "tree_1k_ms={:.3} ocr_full_cpu_ratio=NA ocr_step_cpu_ratio=NA text_match=NA",
        median(&mut total)
    );
}
