//! Classical vision anchors: boxes of icon-like controls found from edges, for screens where
//! the tree misses them (canvas UIs, games, custom-drawn views).
//!
//! Own implementation, no `imageproc`: that crate pulls `nalgebra`, `rand`, `ab_glyph` and
//! more, far heavier to build than the ~100 lines needed here:
//!
//! 1. luma (BT.601 integer weights) of the region;
//! 2. Sobel gradient magnitude `|gx| + |gy|`, thresholded at [`AnchorParams::edge_thresh`];
//! 3. 8-connected components of the edge map (one 3×3 dilation first, so an outline broken by
//!    anti-aliasing stays one component);
//! 4. each component's bounding box is kept when both sides are within
//!    [`AnchorParams::min_side_px`]..=[`AnchorParams::max_side_px`] and its aspect ratio is at
//!    most [`AnchorParams::max_aspect`] (icons are squarish; text lines are wide);
//! 5. boxes mostly (≥ 80% of their area) inside another kept box or inside an `exclude` box
//!    (known text or tree elements) are dropped.
//!
//! Every anchor is a [`PixelKind::Vision`] candidate with confidence
//! [`ANCHOR_CONFIDENCE`]: a hint, never stronger than the tree or OCR.

use image::RgbImage;

use crate::fusion::{PixelCandidate, PixelKind};
use crate::geometry::Rect;

/// Confidence of every anchor candidate.
pub const ANCHOR_CONFIDENCE: f64 = 0.2;

/// Tuning of [`anchors`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnchorParams {
    /// Sobel `|gx| + |gy|` above which a pixel is an edge (range 0..=2040).
    pub edge_thresh: u16,
    /// Smallest box side, px.
    pub min_side_px: u32,
    /// Largest box side, px.
    pub max_side_px: u32,
    /// Largest long side / short side.
    pub max_aspect: f64,
}

impl Default for AnchorParams {
    /// Edge threshold 160 (a clear contrast step), sides 24..=240 px (touch targets on 1×–3×
    /// screens), aspect ≤ 2.
    fn default() -> Self {
        AnchorParams {
            edge_thresh: 160,
            min_side_px: 24,
            max_side_px: 240,
            max_aspect: 2.0,
        }
    }
}

fn inside_fraction(inner: &Rect, outer: &Rect) -> f64 {
    let a = inner.area();
    if a <= 0.0 {
        return 0.0;
    }
    inner.intersect(outer).map_or(0.0, |r| r.area()) / a
}

/// Anchor candidates inside `region` (device px; the whole image when `None`), skipping boxes
/// inside `exclude` boxes. Boxes are in full-image px.
pub fn anchors(
    img: &RgbImage,
    region: Option<Rect>,
    exclude: &[Rect],
    p: &AnchorParams,
) -> Vec<PixelCandidate> {
    let (iw, ih) = img.dimensions();
    let full = Rect::new(0.0, 0.0, f64::from(iw), f64::from(ih));
    let Some(r) = region.unwrap_or(full).intersect(&full) else {
        return Vec::new();
    };
    let (x0, y0) = (r.x.floor() as usize, r.y.floor() as usize);
    let w = (r.right().ceil() as usize)
        .min(iw as usize)
        .saturating_sub(x0);
    let h = (r.bottom().ceil() as usize)
        .min(ih as usize)
        .saturating_sub(y0);
    if w < 3 || h < 3 {
        return Vec::new();
    }
    let edge = crate::glyphs::edges(img, (x0, y0, w, h), i32::from(p.edge_thresh));
    // 3×3 dilation
    let mut mask = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            if edge[y * w + x] {
                for yy in y.saturating_sub(1)..(y + 2).min(h) {
                    for xx in x.saturating_sub(1)..(x + 2).min(w) {
                        mask[yy * w + xx] = 1;
                    }
                }
            }
        }
    }
    let mut boxes: Vec<Rect> = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if mask[start] != 1 {
            continue;
        }
        mask[start] = 2;
        stack.push(start);
        let (mut bx0, mut by0, mut bx1, mut by1) = (w, h, 0, 0);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            bx0 = bx0.min(x);
            bx1 = bx1.max(x);
            by0 = by0.min(y);
            by1 = by1.max(y);
            for yy in y.saturating_sub(1)..(y + 2).min(h) {
                for xx in x.saturating_sub(1)..(x + 2).min(w) {
                    let j = yy * w + xx;
                    if mask[j] == 1 {
                        mask[j] = 2;
                        stack.push(j);
                    }
                }
            }
        }
        let (bw, bh) = ((bx1 - bx0 + 1) as u32, (by1 - by0 + 1) as u32);
        let (lo, hi) = (bw.min(bh), bw.max(bh));
        if lo < p.min_side_px || hi > p.max_side_px || f64::from(hi) > p.max_aspect * f64::from(lo)
        {
            continue;
        }
        boxes.push(Rect::new(
            (x0 + bx0) as f64,
            (y0 + by0) as f64,
            f64::from(bw),
            f64::from(bh),
        ));
    }
    // largest first, so nested boxes fall inside an already kept one
    boxes.sort_by(|a, b| b.area().total_cmp(&a.area()));
    let mut kept: Vec<Rect> = Vec::new();
    for b in boxes {
        if exclude
            .iter()
            .chain(kept.iter())
            .any(|o| inside_fraction(&b, o) >= 0.8)
        {
            continue;
        }
        kept.push(b);
    }
    kept.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
    kept.into_iter()
        .map(|b| PixelCandidate {
            bbox_px: b,
            text: String::new(),
            kind: PixelKind::Vision,
            confidence: ANCHOR_CONFIDENCE,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_square_icon_is_found_and_a_wide_bar_is_not() {
        let mut img = RgbImage::from_pixel(400, 300, image::Rgb([255, 255, 255]));
        for y in 50..110 {
            for x in 50..110 {
                img.put_pixel(x, y, image::Rgb([30, 30, 30]));
            }
        }
        for y in 200..230 {
            for x in 20..380 {
                img.put_pixel(x, y, image::Rgb([30, 30, 30]));
            }
        }
        let a = anchors(&img, None, &[], &AnchorParams::default());
        assert_eq!(a.len(), 1, "{a:?}");
        assert!(a[0].bbox_px.iou(&Rect::new(50.0, 50.0, 60.0, 60.0)) > 0.8);
        assert_eq!(a[0].kind, PixelKind::Vision);
        let none = anchors(
            &img,
            None,
            &[Rect::new(40.0, 40.0, 80.0, 80.0)],
            &AnchorParams::default(),
        );
        assert!(none.is_empty());
    }
}
