//! Where a region of a screenshot has anything drawn on it: the pixel channel's cheap first
//! look, so OCR and anchors never run on blank parts of the screen (an empty desktop beside a
//! window, a blank canvas, the margins of a page).
//!
//! Per region (device px, clipped to the image):
//!
//! 1. **background**: the most frequent colour, counted on a 4-bit-per-channel histogram, as
//!    the mean of the pixels in that bin;
//! 2. **ink**: pixels with any channel more than [`InkParams::delta`] away from it;
//! 3. **bands**: runs of rows holding ink, merged across gaps shorter than
//!    [`InkParams::gap_px`]; each band becomes one rectangle spanning its ink's columns.
//!    A band with fewer than [`InkParams::min_pixels`] ink pixels is dropped.
//!
//! A uniform region yields nothing (skipped); a region with text yields its text's bands,
//! which the OCR grows by its margin again. About 1 ms per megapixel.

use image::RgbImage;

use crate::geometry::Rect;

/// Tuning of [`ink_bands`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InkParams {
    /// Largest per-channel difference (0..=255) from the background that is still background.
    pub delta: u8,
    /// Blank rows shorter than this (px) do not split a band.
    pub gap_px: u32,
    /// Fewest ink pixels a band needs.
    pub min_pixels: usize,
}

impl Default for InkParams {
    /// `delta` 24 (anti-aliased grey text on white is ≥ 60 away at its core), bands split at
    /// 32 blank rows (more than a blank line of 13–16 px text: paragraphs stay together),
    /// at least 12 ink pixels (a lone dot or cursor is not text).
    fn default() -> Self {
        InkParams {
            delta: 24,
            gap_px: 32,
            min_pixels: 12,
        }
    }
}

/// The bands of `region` (device px) of `img` that hold ink, in full-image px, top to bottom;
/// empty when the region is blank or lies outside the image. See the module docs.
pub fn ink_bands(img: &RgbImage, region: &Rect, p: &InkParams) -> Vec<Rect> {
    let (iw, ih) = img.dimensions();
    let x0 = region.x.floor().clamp(0.0, f64::from(iw)) as usize;
    let y0 = region.y.floor().clamp(0.0, f64::from(ih)) as usize;
    let x1 = region.right().ceil().clamp(0.0, f64::from(iw)) as usize;
    let y1 = region.bottom().ceil().clamp(0.0, f64::from(ih)) as usize;
    if x1 <= x0 || y1 <= y0 {
        return Vec::new();
    }
    let raw = img.as_raw();
    let stride = iw as usize * 3;
    let row = |y: usize| &raw[y * stride + x0 * 3..y * stride + x1 * 3];

    // 1. background: the fullest 4-bit bin, and the mean colour inside it
    let mut count = vec![0u32; 4096];
    let mut sum = vec![[0u64; 3]; 4096];
    for y in y0..y1 {
        for px in row(y).chunks_exact(3) {
            let bin = (usize::from(px[0]) >> 4) << 8
                | (usize::from(px[1]) >> 4) << 4
                | usize::from(px[2]) >> 4;
            count[bin] += 1;
            for c in 0..3 {
                sum[bin][c] += u64::from(px[c]);
            }
        }
    }
    let Some((bin, &n)) = count.iter().enumerate().max_by_key(|(_, &n)| n) else {
        return Vec::new();
    };
    let n = u64::from(n.max(1));
    let bg = [0, 1, 2].map(|c| (sum[bin][c] / n) as i16);
    let is_ink =
        |px: &[u8]| (0..3).any(|c| (i16::from(px[c]) - bg[c]).unsigned_abs() > u16::from(p.delta));

    // 2.–3. rows with ink → bands
    let mut out = Vec::new();
    // current band: first row, last ink row, column extent, ink pixels
    let mut band: Option<(usize, usize, usize, usize, usize)> = None;
    let flush = |b: (usize, usize, usize, usize, usize), out: &mut Vec<Rect>| {
        let (top, bottom, left, right, pixels) = b;
        if pixels >= p.min_pixels {
            out.push(Rect::new(
                left as f64,
                top as f64,
                (right + 1 - left) as f64,
                (bottom + 1 - top) as f64,
            ));
        }
    };
    for y in y0..y1 {
        let (mut l, mut r, mut k) = (usize::MAX, 0usize, 0usize);
        for (i, px) in row(y).chunks_exact(3).enumerate() {
            if is_ink(px) {
                l = l.min(x0 + i);
                r = r.max(x0 + i);
                k += 1;
            }
        }
        if k == 0 {
            if let Some(b) = band {
                if y - b.1 > p.gap_px as usize {
                    flush(b, &mut out);
                    band = None;
                }
            }
            continue;
        }
        band = Some(match band {
            Some((top, _, bl, br, bk)) => (top, y, bl.min(l), br.max(r), bk + k),
            None => (y, y, l, r, k),
        });
    }
    if let Some(b) = band {
        flush(b, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canvas(w: u32, h: u32, bg: [u8; 3]) -> RgbImage {
        RgbImage::from_pixel(w, h, image::Rgb(bg))
    }

    fn fill(img: &mut RgbImage, (x, y, w, h): (u32, u32, u32, u32), c: [u8; 3]) {
        for yy in y..y + h {
            for xx in x..x + w {
                img.put_pixel(xx, yy, image::Rgb(c));
            }
        }
    }

    #[test]
    fn a_blank_region_has_no_bands() {
        let img = canvas(200, 100, [0, 0, 0]);
        let r = Rect::new(0.0, 0.0, 200.0, 100.0);
        assert!(ink_bands(&img, &r, &InkParams::default()).is_empty());
        // faint noise below delta is still blank
        let mut img = canvas(200, 100, [240, 240, 240]);
        fill(&mut img, (10, 10, 50, 5), [225, 240, 240]);
        assert!(ink_bands(&img, &r, &InkParams::default()).is_empty());
    }

    #[test]
    fn text_blocks_become_bands_split_at_long_gaps() {
        let mut img = canvas(400, 300, [255, 255, 255]);
        // two "lines" 10 px apart: one band; a third 100 px lower: a second band
        fill(&mut img, (20, 20, 100, 12), [30, 30, 30]);
        fill(&mut img, (40, 42, 150, 12), [30, 30, 30]);
        fill(&mut img, (300, 200, 60, 10), [200, 0, 0]);
        let r = Rect::new(0.0, 0.0, 400.0, 300.0);
        let b = ink_bands(&img, &r, &InkParams::default());
        assert_eq!(
            b,
            vec![
                Rect::new(20.0, 20.0, 170.0, 34.0),
                Rect::new(300.0, 200.0, 60.0, 10.0)
            ]
        );
        // bands are in full-image px and clipped to the region
        let part = Rect::new(250.0, 150.0, 1000.0, 1000.0);
        assert_eq!(
            ink_bands(&img, &part, &InkParams::default()),
            vec![Rect::new(300.0, 200.0, 60.0, 10.0)]
        );
    }

    #[test]
    fn a_speck_is_not_a_band() {
        let mut img = canvas(100, 100, [0, 0, 0]);
        fill(&mut img, (50, 50, 2, 2), [255, 255, 255]);
        let r = Rect::new(0.0, 0.0, 100.0, 100.0);
        assert!(ink_bands(&img, &r, &InkParams::default()).is_empty());
    }
}
