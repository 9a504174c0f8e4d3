//! Text detection: PP-OCRv4 DB (Differentiable Binarization) model and its post-processing.
//!
//! Input `[1, 3, H, W]` f32 (BGR, `(v/255 - 0.5)/0.5`, `H`, `W` multiples of 32), output
//! `[1, 1, H, W]`: per-pixel text probability. Post-processing follows PaddleOCR's
//! `DBPostProcess` (as in RapidOCR 1.4.4) with one simplification, the **axis-aligned
//! approximation**: a connected component (8-connected) of the thresholded, dilated map is
//! boxed by its bounding rectangle instead of OpenCV's minimum-area rotated rectangle. UI text
//! is horizontal, where both are the same; rotated text gets a looser box.
//!
//! Per component: drop when its short side < `min_size` (3 px in map space); score = mean
//! probability inside the box ("fast" score mode), drop below `box_thresh`; unclip: grow each
//! side by `d = area · unclip_ratio / perimeter` (the Vatti offset distance PaddleOCR uses);
//! drop when the grown short side < `min_size + 2`; scale back to the image; drop boxes whose
//! width or height ≤ 3 px.

use image::RgbImage;
use ort::session::Session;
use ort::value::Tensor;

use super::prep::{self, PxRect};
use super::OcrError;

/// How [`DetParams::limit_side_len`] limits the detection input size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitType {
    /// Scale down so the longer side is ≤ the limit (PaddleOCR's default, limit 960).
    Max,
    /// Scale up so the shorter side is ≥ the limit (RapidOCR's default, limit 736): a phone
    /// screen is then detected at full resolution.
    Min,
}

/// Detection parameters. Defaults are PaddleOCR's `DBPostProcess` values as shipped in
/// RapidOCR 1.4.4's `config.yaml` (`thresh 0.3, box_thresh 0.5, unclip_ratio 1.6,
/// use_dilation true, max_candidates 1000`), with PaddleOCR's `limit_type max` / 960.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetParams {
    /// Side length limit, px (see [`LimitType`]).
    pub limit_side_len: u32,
    /// Which side is limited.
    pub limit_type: LimitType,
    /// Probability above which a map pixel is text.
    pub thresh: f32,
    /// Minimum mean probability of a box.
    pub box_thresh: f32,
    /// Box growth factor (see the module docs).
    pub unclip_ratio: f32,
    /// At most this many components are boxed.
    pub max_candidates: usize,
    /// Dilate the binary map with a 2×2 kernel before labelling.
    pub use_dilation: bool,
    /// Minimum short side in map px before unclipping.
    pub min_size: f32,
}

impl Default for DetParams {
    fn default() -> Self {
        DetParams {
            limit_side_len: 960,
            limit_type: LimitType::Max,
            thresh: 0.3,
            box_thresh: 0.5,
            unclip_ratio: 1.6,
            max_candidates: 1000,
            use_dilation: true,
            min_size: 3.0,
        }
    }
}

/// One detected text box in image px: corners `(x0, y0)`–`(x1, y1)`, so the crop is
/// `x1 - x0` × `y1 - y0` px; `score` is the mean map probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetBox {
    /// Left, px.
    pub x0: u32,
    /// Top, px.
    pub y0: u32,
    /// Right, px.
    pub x1: u32,
    /// Bottom, px.
    pub y1: u32,
    /// Mean text probability 0..=1.
    pub score: f32,
}

/// Scale factor the limit gives a `w`×`h` image (PaddleOCR `DetResizeForTest`, type 0).
pub fn scale_for(w: u32, h: u32, p: &DetParams) -> f64 {
    let (wf, hf, lim) = (f64::from(w), f64::from(h), f64::from(p.limit_side_len));
    match p.limit_type {
        LimitType::Max if wf.max(hf) > lim => lim / wf.max(hf),
        LimitType::Min if wf.min(hf) < lim => lim / wf.min(hf),
        _ => 1.0,
    }
}

/// Network input size `(w, h)` for a `w`×`h` image scaled by `scale`, each side rounded to a
/// multiple of 32 (at least 32).
pub fn input_size_scaled(w: u32, h: u32, scale: f64) -> (u32, u32) {
    let r32 = |v: u32| ((((f64::from(v) * scale).floor()) / 32.0).round() as u32 * 32).max(32);
    (r32(w), r32(h))
}

/// Network input size `(w, h)` for a `w`×`h` image: scaled by the limit ([`scale_for`]), each
/// side rounded to a multiple of 32 (at least 32).
pub fn input_size(w: u32, h: u32, p: &DetParams) -> (u32, u32) {
    input_size_scaled(w, h, scale_for(w, h, p))
}

/// Runs detection on the whole of `img`; boxes in `img` px, unsorted. `scale` overrides the
/// limit's scale factor (region OCR uses the full screen's, so a region is detected at the
/// same resolution as it would be in a full-screen pass).
pub fn detect(
    session: &mut Session,
    img: &RgbImage,
    p: &DetParams,
    scale: Option<f64>,
) -> Result<Vec<DetBox>, OcrError> {
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 {
        return Ok(Vec::new());
    }
    let (iw, ih) = input_size_scaled(w, h, scale.unwrap_or_else(|| scale_for(w, h, p)));
    let (iwu, ihu) = (iw as usize, ih as usize);
    let mut data = vec![0f32; 3 * iwu * ihu];
    let roi = PxRect { x: 0, y: 0, w, h };
    prep::resize_normalize_into(img, roi, (iw, ih), &prep::HALF, &mut data, (iwu, ihu));
    let input = Tensor::from_array(([1usize, 3, ihu, iwu], data))
        .map_err(|e| OcrError::Inference(format!("det input: {e}")))?;
    let outputs = session
        .run(ort::inputs![input])
        .map_err(|e| OcrError::Inference(format!("det run: {e}")))?;
    let (shape, pred) = outputs[0]
        .try_extract_tensor::<f32>()
        .map_err(|e| OcrError::Inference(format!("det output: {e}")))?;
    let dims: Vec<i64> = shape.iter().copied().collect();
    let (mh, mw) = match dims.as_slice() {
        [_, _, mh, mw] => (*mh as usize, *mw as usize),
        _ => return Err(OcrError::Inference(format!("det output shape {dims:?}"))),
    };
    if pred.len() < mh * mw {
        return Err(OcrError::Inference("det output too short".into()));
    }
    Ok(boxes_from_map(&pred[..mh * mw], mw, mh, w, h, p))
}

/// DB post-processing of a `mw`×`mh` probability map into boxes in a `dest_w`×`dest_h`
/// image (see the module docs).
pub fn boxes_from_map(
    pred: &[f32],
    mw: usize,
    mh: usize,
    dest_w: u32,
    dest_h: u32,
    p: &DetParams,
) -> Vec<DetBox> {
    let n = mw * mh;
    if pred.len() < n || n == 0 {
        return Vec::new();
    }
    let mut mask = text_mask(pred, mw, mh, p);
    let mut out = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut components = 0usize;
    for start in 0..n {
        if mask[start] != 1 {
            continue;
        }
        if components >= p.max_candidates {
            break;
        }
        components += 1;
        let bounds = label_component(&mut mask, &mut stack, start, mw, mh);
        if let Some(b) = component_box(pred, mw, mh, bounds, (dest_w, dest_h), p) {
            out.push(b);
        }
    }
    out
}

/// The thresholded map, dilated when [`DetParams::use_dilation`]: 0 = background, 1 = text
/// (not yet labelled); [`label_component`] marks labelled pixels 2.
fn text_mask(pred: &[f32], mw: usize, mh: usize, p: &DetParams) -> Vec<u8> {
    let mut mask: Vec<u8> = pred.iter().map(|&v| u8::from(v > p.thresh)).collect();
    if p.use_dilation {
        // OpenCV dilate, 2×2 kernel, anchor (1,1): dst(x,y) = max src(x-1..=x, y-1..=y).
        let src = mask.clone();
        for y in 0..mh {
            for x in 0..mw {
                let i = y * mw + x;
                if src[i] == 0
                    && ((x > 0 && src[i - 1] != 0)
                        || (y > 0 && src[i - mw] != 0)
                        || (x > 0 && y > 0 && src[i - mw - 1] != 0))
                {
                    mask[i] = 1;
                }
            }
        }
    }
    mask
}

/// A component's inclusive bounding rectangle in map px: `(x0, y0, x1, y1)`.
type MapBounds = (usize, usize, usize, usize);

/// Labels (marks 2) the 8-connected component of unlabelled text pixels that contains
/// `start`, by flood fill with `stack` (left empty); returns its bounding rectangle.
fn label_component(
    mask: &mut [u8],
    stack: &mut Vec<usize>,
    start: usize,
    mw: usize,
    mh: usize,
) -> MapBounds {
    mask[start] = 2;
    stack.push(start);
    let (mut x0, mut y0, mut x1, mut y1) = (mw, mh, 0usize, 0usize);
    while let Some(i) = stack.pop() {
        let (x, y) = (i % mw, i / mw);
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
        for dy in -1i64..=1 {
            for dx in -1i64..=1 {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                if nx < 0 || ny < 0 || nx >= mw as i64 || ny >= mh as i64 {
                    continue;
                }
                let j = ny as usize * mw + nx as usize;
                if mask[j] == 1 {
                    mask[j] = 2;
                    stack.push(j);
                }
            }
        }
    }
    (x0, y0, x1, y1)
}

/// One component's box in `dest` (`(w, h)`) px: scored, unclipped and scaled back; `None`
/// when it is too small or scores below [`DetParams::box_thresh`].
fn component_box(
    pred: &[f32],
    mw: usize,
    mh: usize,
    (x0, y0, x1, y1): MapBounds,
    (dest_w, dest_h): (u32, u32),
    p: &DetParams,
) -> Option<DetBox> {
    let (bw, bh) = ((x1 - x0) as f32, (y1 - y0) as f32);
    if bw.min(bh) < p.min_size {
        return None;
    }
    let score = mean_score(pred, mw, (x0, y0, x1, y1));
    if score < p.box_thresh {
        return None;
    }
    let d = bw * bh * p.unclip_ratio / (2.0 * (bw + bh));
    if (bw.min(bh) + 2.0 * d) < p.min_size + 2.0 {
        return None;
    }
    let sx = dest_w as f32 / mw as f32;
    let sy = dest_h as f32 / mh as f32;
    let cx = |v: f32| {
        (v * sx)
            .round()
            .clamp(0.0, (dest_w.saturating_sub(1)) as f32) as u32
    };
    let cy = |v: f32| {
        (v * sy)
            .round()
            .clamp(0.0, (dest_h.saturating_sub(1)) as f32) as u32
    };
    let b = DetBox {
        x0: cx(x0 as f32 - d),
        y0: cy(y0 as f32 - d),
        x1: cx(x1 as f32 + d),
        y1: cy(y1 as f32 + d),
        score,
    };
    if b.x1 - b.x0 <= 3 || b.y1 - b.y0 <= 3 {
        return None;
    }
    Some(b)
}

/// Mean map probability inside the bounds ("fast" score mode).
fn mean_score(pred: &[f32], mw: usize, (x0, y0, x1, y1): MapBounds) -> f32 {
    let mut sum = 0f64;
    for row in pred[y0 * mw..=y1 * mw + x1].chunks(mw) {
        sum += row
            .iter()
            .skip(x0)
            .take(x1 - x0 + 1)
            .map(|&v| f64::from(v))
            .sum::<f64>();
    }
    (sum / ((x1 - x0 + 1) * (y1 - y0 + 1)) as f64) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_size_rounds_to_32() {
        let p = DetParams::default();
        assert_eq!(input_size(1080, 1920, &p), (544, 960));
        let min = DetParams {
            limit_type: LimitType::Min,
            limit_side_len: 736,
            ..p
        };
        assert_eq!(input_size(1080, 1920, &min), (1088, 1920));
        assert_eq!(input_size(10, 10, &p), (32, 32));
    }

    #[test]
    fn one_blob_becomes_one_unclipped_box() {
        let (mw, mh) = (40, 20);
        let mut pred = vec![0f32; mw * mh];
        for y in 5..10 {
            for x in 10..30 {
                pred[y * mw + x] = 0.9;
            }
        }
        // a speck too small to keep
        pred[15 * mw + 2] = 0.9;
        let p = DetParams::default();
        let b = boxes_from_map(&pred, mw, mh, 80, 40, &p);
        assert_eq!(b.len(), 1, "{b:?}");
        // dilated blob spans x 10..=30, y 5..=10 (w 20, h 5): d = 100*1.6/50 = 3.2;
        // x: (10-3.2)*2 = 13.6 → 14, (30+3.2)*2 = 66.4 → 66; y: 3.6 → 4, 26.4 → 26.
        assert_eq!((b[0].x0, b[0].y0, b[0].x1, b[0].y1), (14, 4, 66, 26));
        assert!(b[0].score > 0.5);
    }
}
