use argus_perception::{android, build, fuse, PixelCandidate, PixelKind, Rect, Screen, Source};

use crate::fixture;

fn inbox() -> argus_perception::Observation {
    let d = android::normalize(&fixture("android_inbox.xml"), 2.625).unwrap();
    build(&d.tree, Screen::from_device_px(1080.0, 2400.0, 2.625), 1)
}

fn ocr(x: f64, y: f64, w: f64, h: f64, text: &str) -> PixelCandidate {
    PixelCandidate {
        bbox_px: Rect::new(x, y, w, h),
        text: text.into(),
        kind: PixelKind::Ocr,
        confidence: 0.9,
    }
}

/// OCR over the inbox: text inside a named row is a duplicate, text inside the unnamed
/// filter icon names it, text in empty space is added, a vision box overlapping a button is
/// dropped and one in empty space is added; ids are renumbered in reading order.
#[test]
fn ocr_and_vision_candidates_fuse_into_the_tree() {
    let obs = inbox();
    assert_eq!(obs.element("e20").unwrap().name, "");
    let cands = vec![
        ocr(210.0, 600.0, 200.0, 50.0, "GitHub"), // inside row e9 that says it
        ocr(60.0, 1980.0, 90.0, 40.0, "Filter"),  // inside the unnamed icon e20
        ocr(300.0, 1860.0, 480.0, 50.0, "You're all caught up"), // nothing there
        PixelCandidate {
            bbox_px: Rect::new(650.0, 1940.0, 380.0, 160.0), // ≈ the Compose button
            text: String::new(),
            kind: PixelKind::Vision,
            confidence: 0.3,
        },
        PixelCandidate {
            bbox_px: Rect::new(900.0, 1860.0, 60.0, 60.0), // empty space, right of the OCR line
            text: String::new(),
            kind: PixelKind::Vision,
            confidence: 0.3,
        },
    ];
    let fused = fuse(&obs, &cands, 0.1);
    assert_eq!(fused.elements.len(), obs.elements.len() + 2);
    let filter = fused
        .elements
        .iter()
        .find(|e| e.platform_id.as_deref() == Some("com.example.mail:id/filter"))
        .unwrap();
    assert_eq!(filter.name, "Filter");
    let added: Vec<String> = fused
        .elements
        .iter()
        .filter(|e| e.source != Source::Tree)
        .map(|e| format!("{} {} {:?} {:?}", e.id, e.role.as_str(), e.name, e.covered))
        .collect();
    assert_eq!(
        added,
        vec![
            "e20 text \"You're all caught up\" Unknown",
            "e21 image \"\" Unknown"
        ]
    );
    assert!(fused.contains_text("all caught up"));
    assert!(fused.contains_text("Filter"));
    let compact = fused.compact();
    assert!(
        compact.contains("e20 \"You're all caught up\" ocr U:e19 D:e23"),
        "{compact}"
    );
    // The filter icon moved from e20 to e22 and now has a name.
    assert!(compact.contains("e22 button \"Filter\""), "{compact}");
}

/// A dense terminal with no tree: detection grows each line's box, so neighbouring lines
/// overlap (IoU ≈ 0.2 here); both are kept. The same line read twice (overlapping regions)
/// is kept once.
#[test]
fn overlapping_ocr_lines_are_not_duplicates() {
    let screen = Screen::from_device_px(1280.0, 800.0, 1.0);
    let empty = build(&argus_perception::Tree::default(), screen, 1);
    let cands = vec![
        ocr(258.0, 3.0, 311.0, 24.0, "4096 Dec 1 09:46 avahi-daemon"),
        ocr(339.0, 21.0, 218.0, 26.0, "1 09:46 avahi-utils"),
        ocr(340.0, 22.0, 216.0, 25.0, "1 09:46 avahi-utils"),
        // The next line down, its text starting with the line above's.
        ocr(339.0, 41.0, 218.0, 26.0, "1 09:46 avahi-utils-extra"),
    ];
    let a = cands[0].bbox_px.iou(&cands[1].bbox_px);
    assert!(a > 0.1 && a < 0.5, "{a}");
    let fused = fuse(&empty, &cands, 0.1);
    let names: Vec<&str> = fused.elements.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "4096 Dec 1 09:46 avahi-daemon",
            "1 09:46 avahi-utils",
            "1 09:46 avahi-utils-extra"
        ]
    );
    assert!(fused.contains_text("avahi-daemon") && fused.contains_text("avahi-utils"));
}
