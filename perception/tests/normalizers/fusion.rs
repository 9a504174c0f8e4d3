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
