//! Classical vision anchors on a rendered screen (no models needed): the icon-like controls
//! of the map canvas (zoom in, zoom out, compass) are found; text boxes are excluded.

use std::path::Path;

use argus_perception::vision::{anchors, AnchorParams};
use argus_perception::Rect;

#[test]
fn icons_of_the_canvas_screen_are_anchors() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ocr");
    let img = image::open(dir.join("screen_canvas.png"))
        .unwrap()
        .to_rgb8();
    let text: Vec<Rect> = std::fs::read_to_string(dir.join("screen_canvas.tsv"))
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<f64> = l.split('\t').take(4).map(|v| v.parse().unwrap()).collect();
            // label plates are drawn 16 px around the text
            Rect::new(f[0] - 20.0, f[1] - 20.0, f[2] + 40.0, f[3] + 40.0)
        })
        .collect();
    let canvas = Rect::new(0.0, 160.0, 1080.0, 1240.0);
    let found = anchors(&img, Some(canvas), &text, &AnchorParams::default());
    let icons = [
        ("zoom in", Rect::new(920.0, 1160.0, 81.0, 81.0)),
        ("zoom out", Rect::new(920.0, 1260.0, 81.0, 81.0)),
        ("compass", Rect::new(40.0, 1240.0, 101.0, 101.0)),
    ];
    for (name, r) in icons {
        assert!(
            found.iter().any(|c| c.bbox_px.iou(&r) > 0.7),
            "{name} {r:?} not among {:?}",
            found.iter().map(|c| c.bbox_px).collect::<Vec<_>>()
        );
    }
    assert!(found.len() <= 6, "too many anchors: {found:?}");
    assert!(found.iter().all(|c| c.confidence < 0.5));
}
