//! Where an action landed, drawn over its before-screenshot by the page itself: an SVG whose
//! `viewBox` is the screen in device px, stretched over the `<img>` (CSS `inset: 0`), so the
//! browser scales the stored geometry by the image's displayed size — the PNG is never
//! re-encoded and the overlay costs a few hundred bytes per action.

use argus_protocol::ActionRecord;

/// The target's box, device px (rounded: the overlay is a drawing), and how it was found.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxMark {
    pub x: i64,
    pub y: i64,
    pub w: i64,
    pub h: i64,
    /// `tree`, `ocr` or `vision` (CSS class: pixel-channel boxes are dashed and coloured).
    pub source: String,
    /// `OCR 0.87` / `vision` for a pixel-channel element, empty for a tree element.
    pub label: String,
    /// Label position as CSS, percent of the screen: `left:10.0%;top:8.5%`.
    pub label_at: String,
}

/// A swipe: start, end and the arrowhead's three corners, device px.
#[derive(Debug, Clone, PartialEq)]
pub struct SwipeMark {
    pub from: [i64; 2],
    pub to: [i64; 2],
    /// `"x1,y1 x2,y2 x3,y3"`.
    pub head: String,
}

/// Everything drawn over one before-screenshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Overlay {
    /// Screen size, device px (the SVG's `viewBox`).
    pub w: u32,
    pub h: u32,
    pub target: Option<BoxMark>,
    pub point: Option<[i64; 2]>,
    pub swipe: Option<SwipeMark>,
    /// Marker radius in device px (scales with the screen).
    pub r: i64,
}

/// The overlay of `a`, or `None` when it has no geometry or no screen size (the action's
/// own, else the run's `fallback`).
pub fn overlay(a: &ActionRecord, fallback: Option<[u32; 2]>) -> Option<Overlay> {
    let [w, h] = a.screen_px.or(fallback)?;
    if w == 0 || h == 0 {
        return None;
    }
    let r = (w.max(h) as f64 / 120.0).max(4.0);
    let target = a.target.as_ref().map(|t| {
        let [x, y, bw, bh] = t.bbox_px;
        let source = t.source.clone().unwrap_or_else(|| "tree".into());
        let label = match source.as_str() {
            "tree" => String::new(),
            s => match t.confidence {
                Some(c) => format!("{} {c:.2}", s.to_uppercase()),
                None => s.to_uppercase(),
            },
        };
        // Above the box when there is room, else inside its top edge.
        let label_y = if y > r * 3.0 { y - r * 3.0 } else { y };
        BoxMark {
            x: px(x),
            y: px(y),
            w: px(bw),
            h: px(bh),
            label,
            label_at: format!(
                "left:{:.1}%;top:{:.1}%",
                pct(x, w as f64),
                pct(label_y, h as f64)
            ),
            source,
        }
    });
    let swipe = a.swipe_px.map(|[x1, y1, x2, y2]| SwipeMark {
        from: [px(x1), px(y1)],
        to: [px(x2), px(y2)],
        head: arrow_head([x1, y1], [x2, y2], r),
    });
    let point = a
        .point_px
        .filter(|_| swipe.is_none())
        .map(|[x, y]| [px(x), px(y)]);
    if target.is_none() && point.is_none() && swipe.is_none() {
        return None;
    }
    Some(Overlay {
        w,
        h,
        target,
        point,
        swipe,
        r: px(r),
    })
}

fn px(v: f64) -> i64 {
    v.round() as i64
}

fn pct(v: f64, of: f64) -> f64 {
    (v / of * 100.0).clamp(0.0, 100.0)
}

/// The arrowhead at `to` of a line from `from`: a triangle `3r` long and `3r` wide.
fn arrow_head(from: [f64; 2], to: [f64; 2], r: f64) -> String {
    let (dx, dy) = (to[0] - from[0], to[1] - from[1]);
    let len = dx.hypot(dy);
    if len < f64::EPSILON {
        return String::new();
    }
    let (ux, uy) = (dx / len, dy / len);
    let (bx, by) = (to[0] - ux * r * 3.0, to[1] - uy * r * 3.0);
    let (nx, ny) = (-uy * r * 1.5, ux * r * 1.5);
    format!(
        "{:.0},{:.0} {:.0},{:.0} {:.0},{:.0}",
        to[0],
        to[1],
        bx + nx,
        by + ny,
        bx - nx,
        by - ny
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_protocol::{Disposition, TargetedElement};

    fn rec() -> ActionRecord {
        ActionRecord::new(
            0,
            0,
            "tap",
            "tap".into(),
            true,
            None,
            Disposition::DeliveredUnverified,
            chrono::Utc::now(),
        )
    }

    #[test]
    fn a_tap_draws_its_box_and_point_in_the_screen_space() {
        let mut a = rec();
        a.target = Some(TargetedElement {
            id: "e3".into(),
            role: "button".into(),
            name: "Add".into(),
            bbox_px: [100.0, 200.0, 80.0, 40.0],
            source: Some("ocr".into()),
            confidence: Some(0.873),
        });
        a.point_px = Some([140.0, 220.0]);
        assert!(overlay(&a, None).is_none(), "no screen size, no overlay");
        let o = overlay(&a, Some([1000, 2000])).unwrap();
        assert_eq!((o.w, o.h), (1000, 2000));
        let b = o.target.unwrap();
        assert_eq!((b.x, b.y, b.w, b.h), (100, 200, 80, 40));
        assert_eq!(b.label, "OCR 0.87");
        assert!(b.label_at.starts_with("left:10.0%;top:"), "{}", b.label_at);
        assert_eq!(o.point, Some([140, 220]));
        // The action's own screen wins over the run's.
        a.screen_px = Some([500, 500]);
        assert_eq!(overlay(&a, Some([1000, 2000])).unwrap().w, 500);
    }

    #[test]
    fn a_swipe_draws_an_arrow_pointing_at_its_end() {
        let mut a = rec();
        a.swipe_px = Some([500.0, 1400.0, 500.0, 600.0]);
        let o = overlay(&a, Some([1000, 2000])).unwrap();
        let s = o.swipe.unwrap();
        assert_eq!(s.to, [500, 600]);
        // Tip at the end; the base 3r further back along the line (downwards).
        let r = 2000.0 / 120.0;
        assert_eq!(
            s.head,
            format!(
                "500,600 {:.0},{:.0} {:.0},{:.0}",
                500.0 + r * 1.5,
                600.0 + r * 3.0,
                500.0 - r * 1.5,
                600.0 + r * 3.0
            )
        );
    }
}
