//! Reading the small isolated glyphs text detection misses ([`crate::glyphs`] finds them):
//! each glyph box is cropped with padding and read by the recognizer alone
//! ([`OcrEngine::read_lines`]); a reading is kept when its confidence is at least
//! [`GLYPH_MIN_CONF`] and it is at most [`GLYPH_MAX_CHARS`] characters. Feature `ocr`.
//!
//! The recognizer's dictionary is Chinese + English: a lone bar key (`-`) reads as `一` or a
//! full-width form; [`fold`] maps those look-alikes to the ASCII a user types in `tap "-"`.

use image::RgbImage;

use crate::fusion::{PixelCandidate, PixelKind};
use crate::geometry::Rect;
use crate::glyph_shape::{ink_box, is_times_sign, operator_by_shape};
use crate::glyphs::{glyph_boxes, Glyph, GlyphParams};
use crate::ocr::{prep, OcrEngine, OcrError};

/// Lowest recognizer confidence (mean CTC step probability) for a glyph reading; below it
/// a box is a speck, an icon or a border, not a character. Chosen on the keypad set's tuning
/// part (`perception/sets/generate.py`): 0.8 lost `=`, `*`, `/` and `8` keys read at
/// 0.5–0.75.
pub const GLYPH_MIN_CONF: f32 = 0.5;

/// Lowest confidence for a reading of one letter or digit, which its row then settles
/// ([`crate::key_rows`]): 12 px glyphs on the keypad set's tuning parts read `0` as `o` at
/// 0.49, `U` as `u` and a serif `×` as `X` at 0.44, a dotted monospace `0` as `0` at 0.38 and
/// `I` as `1` at 0.36; every letter or digit read at 0.35–0.5 there was the key's own glyph
/// or its look-alike but `=` read `8`, which its shape then names ([`operator_by_shape`])
/// (`tune_more`: 0.965 → 0.971 at 0.4, 0.989 → 0.991 at 0.35).
/// Punctuation stays at [`GLYPH_MIN_CONF`]: a `-` read at 0.4–0.5 was a backquote.
pub const GLYPH_MIN_CONF_ALNUM: f32 = 0.35;

/// The confidence a glyph reading `t` needs to be kept.
fn min_conf(t: &str) -> f32 {
    let mut it = t.chars();
    match (it.next(), it.next()) {
        (Some(c), None) if c.is_alphanumeric() => GLYPH_MIN_CONF_ALNUM,
        _ => GLYPH_MIN_CONF,
    }
}

/// Longest glyph reading kept, chars (a few-letter key like `DEG`; a longer one is text
/// detection's to find).
pub const GLYPH_MAX_CHARS: usize = 6;

/// Padding around a glyph box for the recognizer, as a share of its height (at least 3 px).
/// Tight crops read best on the keypad set's tuning part: 0.2 found 90% of the keys, 0.3
/// 86%, 0.45 84%; widening a narrow glyph's crop to its height cost 4–13 points.
pub const GLYPH_PAD: f64 = 0.2;

/// A glyph box shorter than this share of the page's typical glyph height is read in a crop
/// of the typical height ([`crop_box`]).
pub const SMALL_GLYPH: f64 = 0.35;

/// A glyph reading with look-alikes mapped to ASCII: full-width forms (U+FF01..=U+FF5E) to
/// their ASCII, CJK bars and dashes (`一 — – −`) to `-`, `。 ·` to `.`.
pub fn fold(s: &str) -> String {
    s.trim()
        .chars()
        .map(|c| match c {
            '一' | '—' | '–' | '−' => '-',
            '。' | '·' => '.',
            _ => crate::key_rows::half_width_char(c),
        })
        .collect()
}

/// The crop read for glyph box `b`: grown by [`GLYPH_PAD`] × its height (at least 3 px); a
/// box shorter than [`SMALL_GLYPH`] × `typical_h` (a `-` or `.` key) is first grown to
/// `typical_h` tall (and at least 0.6 × as wide), centred, so the recognizer sees it at
/// its size among the other keys.
fn crop_box(b: &Rect, typical_h: f64, iw: u32, ih: u32) -> Option<prep::PxRect> {
    let r = if typical_h > 0.0 && b.h < SMALL_GLYPH * typical_h {
        let w = b.w.max(0.6 * typical_h);
        Rect::new(
            b.x + b.w / 2.0 - w / 2.0,
            b.y + b.h / 2.0 - typical_h / 2.0,
            w,
            typical_h,
        )
    } else {
        *b
    };
    crate::ocr::clip_region(&r, (GLYPH_PAD * r.h).max(3.0), iw, ih)
}

/// Confidence given to a bar read by shape ([`is_bar`]); any reading of the recognizer at
/// least this sure replaces it.
pub const BAR_CONF: f32 = 0.6;

/// Confidence given to an operator told by its shape ([`operator_by_shape`]): the shape
/// decides over the recognizer, which reads `÷` as `+` and a lone `.` as `:`.
pub const SHAPE_CONF: f32 = 0.9;

/// Whether `b` is a lone horizontal bar among glyphs `typical_h` tall: shorter than
/// [`SMALL_GLYPH`] × `typical_h`, at least twice as wide as tall and narrower than
/// `typical_h`. The recognizer reads a lone `-` key as `"` or `一` or nothing (tuning part of
/// the keypad set: 3 of 3 missed); its shape says what it is.
fn is_bar(b: &Rect, typical_h: f64) -> bool {
    typical_h > 0.0 && b.h < SMALL_GLYPH * typical_h && b.w >= 2.0 * b.h && b.w <= typical_h
}

/// Median height of the glyph boxes at least 6 px tall (0 when none): the page's key glyph
/// size.
fn typical_height(glyphs: &[Glyph]) -> f64 {
    let mut h: Vec<f64> = glyphs
        .iter()
        .map(|g| g.rect.h)
        .filter(|h| *h >= 6.0)
        .collect();
    h.sort_by(f64::total_cmp);
    h.get(h.len() / 2).copied().unwrap_or(0.0)
}

/// Settles the one-character readings of `cands` (every channel's, after the glyph pass):
/// look-alikes by their row on their ink boxes ([`crate::key_rows::settle_in`]); an operator
/// its ink's shape draws ([`operator_by_shape`]: OCR's detector reads a lone `÷` as `+`); the
/// letter `x` renamed `×` where it stands like the sign ([`is_times_sign`], on ink boxes).
/// Readings of more than [`GLYPH_MAX_CHARS`] characters are lines of text, not keys, and left
/// out of the rows.
pub fn settle_keys(img: &RgbImage, cands: &mut [PixelCandidate]) {
    let chars = |c: &PixelCandidate| c.text.trim().chars().count();
    let inks: Vec<Option<Rect>> = cands
        .iter()
        .map(|c| (1..=GLYPH_MAX_CHARS).contains(&chars(c)))
        .zip(cands.iter())
        .map(|(short, c)| short.then(|| ink_box(img, &c.bbox_px)).flatten())
        .collect();
    let boxes: Vec<Rect> = cands
        .iter()
        .zip(&inks)
        .map(|(c, ink)| ink.unwrap_or(c.bbox_px))
        .collect();
    crate::key_rows::settle_in(cands, &boxes);
    let mut heights: Vec<f64> = cands
        .iter()
        .zip(&inks)
        .filter(|(c, _)| chars(c) == 1)
        .filter_map(|(_, r)| r.map(|r| r.h))
        .filter(|h| *h >= 6.0)
        .collect();
    heights.sort_by(f64::total_cmp);
    let Some(typical_h) = heights.get(heights.len() / 2).copied() else {
        return;
    };
    for i in 0..cands.len() {
        let Some(ink) = inks[i] else { continue };
        if chars(&cands[i]) != 1 {
            continue;
        }
        if let Some(op) = operator_by_shape(img, &ink, SMALL_GLYPH * typical_h) {
            cands[i].text = op.to_string();
            continue;
        }
        if !cands[i].text.trim().eq_ignore_ascii_case("x") {
            continue;
        }
        let row: Vec<Rect> = inks
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .filter_map(|(_, r)| *r)
            .collect();
        if is_times_sign(&ink, &row, typical_h) {
            cands[i].text = "×".to_string();
        }
    }
}

/// Glyph candidates in `areas` (device px) of `img`: boxes [`glyph_boxes`] finds outside
/// `read` (boxes OCR already read), each read alone (a container and what it holds both,
/// the more confident reading kept). Boxes found twice (overlapping areas) are read once.
pub fn read_glyphs(
    engine: &mut OcrEngine,
    img: &RgbImage,
    areas: &[Rect],
    read: &[Rect],
    margin_px: f64,
) -> Result<Vec<PixelCandidate>, OcrError> {
    let p = GlyphParams::default();
    let mut glyphs: Vec<Glyph> = Vec::new();
    for a in areas {
        let grown = a.grown(margin_px);
        for g in glyph_boxes(img, &grown, read, &p) {
            if !glyphs.iter().any(|o| o.rect.iou(&g.rect) > 0.5) {
                glyphs.push(g);
            }
        }
    }
    let typical_h = typical_height(&glyphs);
    let (iw, ih) = img.dimensions();
    let mut jobs: Vec<(usize, Rect)> = Vec::new();
    let mut crops: Vec<RgbImage> = Vec::new();
    for (i, g) in glyphs.iter().enumerate() {
        for r in std::iter::once(g.rect).chain(g.alt) {
            if let Some(c) = crop_box(&r, typical_h, iw, ih) {
                jobs.push((i, r));
                crops.push(prep::crop(img, c));
            }
        }
    }
    let texts = engine.read_lines(&crops)?;
    let by_shape: Vec<Option<(Rect, &str)>> = glyphs
        .iter()
        .map(|g| {
            std::iter::once(g.rect)
                .chain(g.alt)
                .find_map(|r| operator_by_shape(img, &r, SMALL_GLYPH * typical_h).map(|op| (r, op)))
        })
        .collect();
    let mut best: Vec<Option<(Rect, String, f32)>> = glyphs
        .iter()
        .map(|g| is_bar(&g.rect, typical_h).then(|| (g.rect, "-".to_string(), BAR_CONF)))
        .collect();
    for ((i, r), (t, conf)) in jobs.into_iter().zip(texts) {
        let t = fold(&t);
        let fits = !t.is_empty() && t.chars().count() <= GLYPH_MAX_CHARS;
        if fits && conf >= min_conf(&t) && best[i].as_ref().is_none_or(|b| conf > b.2) {
            best[i] = Some((r, t, conf));
        }
    }
    for (b, shape) in best.iter_mut().zip(&by_shape) {
        if let Some((r, op)) = shape {
            *b = Some((*r, (*op).to_string(), SHAPE_CONF));
        }
    }
    Ok(best
        .into_iter()
        .flatten()
        .map(|(bbox_px, text, conf)| PixelCandidate {
            bbox_px,
            text,
            kind: PixelKind::Ocr,
            confidence: f64::from(conf),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_fold_to_ascii() {
        assert_eq!(fold(" 一 "), "-");
        assert_eq!(fold("＋"), "+");
        assert_eq!(fold("7"), "7");
        assert_eq!(fold("÷"), "÷");
    }
}
