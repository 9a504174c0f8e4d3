//! The pixel channel of the perception stage (feature `ocr`): the regions
//! [`crate::perceive::plan`] asked for are first narrowed to the bands where anything is drawn
//! ([`crate::ink`]: blank regions are skipped outright), then OCR ([`crate::ocr`]) reads the
//! bands, the small isolated glyphs OCR's detector misses (keypad keys) are read one by one
//! ([`crate::glyph_read`]), and vision anchors ([`crate::vision`]) look in them for icon-like boxes that neither
//! the tree nor OCR explains.
//!
//! Everything is in device px (screenshot coordinates). Blocking and CPU-bound: run it off
//! the async threads.

use image::RgbImage;

use crate::fusion::PixelCandidate;
use crate::geometry::Rect;
use crate::glyph_read::{read_glyphs, settle_keys};
use crate::ink::{ink_bands, InkParams};
use crate::ocr::{OcrConfig, OcrEngine, OcrError, RecParams, SessionOptions};
use crate::vision::{anchors, AnchorParams};

/// Margin around each region for OCR, px: a text line cut by a region's edge is still read.
pub const REGION_MARGIN_PX: f64 = 16.0;

/// Recognition input width floor for screens, px (PaddleOCR pads every batch to 320).
pub const SCREEN_REC_MIN_W: u32 = 96;

/// Recognition input height for crops shorter than it, px (see
/// [`RecParams::small_text_height`]). It was 32, chosen on one xterm frame (rec CPU fell 2.6×
/// with its twelve names still read); on generated UI text in Chromium and GTK
/// (`perception/sets/generate.py`, tuning part, 943 words at 12–22 px) 32 px read 0.735 of
/// the words, 36 px 0.920, 40 px 0.979, 44 px 0.996, 48 px (no small height) 0.990: small
/// proportional text loses letters (`fle`, `setings`) and word spaces when squeezed.
pub const SCREEN_SMALL_TEXT_H: u32 = 44;

/// The OCR configuration for screens (what the worker uses):
/// - no 0°/180° classifier (screens are upright);
/// - recognition batches padded to [`SCREEN_REC_MIN_W`] instead of 320 px: a terminal or a
///   list is mostly short words, and padding each to 320 px cost a dense 1280×800 terminal
///   frame 20% more CPU (measured 4.5 → 3.6 s, the same words read);
/// - crops shorter than [`SCREEN_SMALL_TEXT_H`] are read at that height, not 48 px;
/// - `threads`: ONNX Runtime intra-op threads for detection, and as many recognition
///   sessions side by side ([`OcrConfig::rec_workers`]).
pub fn screen_config(threads: usize) -> OcrConfig {
    OcrConfig {
        skip_cls: true,
        rec: RecParams {
            min_width: SCREEN_REC_MIN_W,
            small_text_height: Some(SCREEN_SMALL_TEXT_H),
            ..RecParams::default()
        },
        session: SessionOptions {
            intra_threads: threads.max(1),
            ..SessionOptions::default()
        },
        rec_workers: threads.max(1),
        ..OcrConfig::default()
    }
}

/// Margin around each ink band for vision anchors, px: an icon's outline at a band's edge is
/// still whole.
pub const ANCHOR_MARGIN_PX: f64 = 4.0;

/// The parts of `regions` (device px) where `img` has ink ([`ink_bands`] with the default
/// [`InkParams`]): what the pixel channel actually reads. Empty when every region is blank.
pub fn inked(img: &RgbImage, regions: &[Rect]) -> Vec<Rect> {
    let p = InkParams::default();
    regions.iter().flat_map(|r| ink_bands(img, r, &p)).collect()
}

/// OCR candidates in the inked parts of `regions` of `img` ([`inked`]), then lone glyphs
/// there that OCR did not read ([`read_glyphs`]), then anchor candidates that lie outside
/// every `known` box (tree elements, device px) and every box read.
pub fn candidates(
    engine: &mut OcrEngine,
    img: &RgbImage,
    regions: &[Rect],
    known: &[Rect],
) -> Result<Vec<PixelCandidate>, OcrError> {
    candidates_in(engine, img, &inked(img, regions), known)
}

/// [`candidates`] on `areas` as they are (no ink narrowing): OCR and glyphs in each area grown
/// by [`REGION_MARGIN_PX`], anchors in each grown by [`ANCHOR_MARGIN_PX`].
pub fn candidates_in(
    engine: &mut OcrEngine,
    img: &RgbImage,
    areas: &[Rect],
    known: &[Rect],
) -> Result<Vec<PixelCandidate>, OcrError> {
    let bands = areas;
    if bands.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = engine.recognize_regions(img, bands, REGION_MARGIN_PX)?;
    // Only OCR's boxes: a tree element over a region (an opaque canvas) may hold keys.
    let read: Vec<Rect> = out.iter().map(|c| c.bbox_px).collect();
    out.extend(read_glyphs(engine, img, bands, &read, REGION_MARGIN_PX)?);
    settle_keys(img, &mut out);
    let mut exclude: Vec<Rect> = known.to_vec();
    exclude.extend(out.iter().map(|c| c.bbox_px));
    let params = AnchorParams::default();
    for b in bands {
        let grown = b.grown(ANCHOR_MARGIN_PX);
        out.extend(anchors(img, Some(grown), &exclude, &params));
    }
    Ok(out)
}
