//! The pixel channel of the perception stage (feature `ocr`): OCR ([`crate::ocr`]) on the
//! regions [`crate::perceive::plan`] asked for, then vision anchors ([`crate::vision`]) in the
//! same regions for icon-like boxes that neither the tree nor OCR explains.
//!
//! Everything is in device px (screenshot coordinates). Blocking and CPU-bound: run it off
//! the async threads.

use image::RgbImage;

use crate::fusion::PixelCandidate;
use crate::geometry::Rect;
use crate::ocr::{OcrConfig, OcrEngine, OcrError, RecParams, SessionOptions};
use crate::vision::{anchors, AnchorParams};

/// Margin around each region for OCR, px: a text line cut by a region's edge is still read.
pub const REGION_MARGIN_PX: f64 = 16.0;

/// Recognition input width floor for screens, px (PaddleOCR pads every batch to 320).
pub const SCREEN_REC_MIN_W: u32 = 96;

/// Recognition input height for crops shorter than it, px (see
/// [`RecParams::small_text_height`]): a 1280×800 terminal frame's rec CPU fell 2.6× (its ≈ 24 px
/// boxes no longer scaled up to 48 px) with the same words read; 28 px lost words, and 32 px
/// for every crop lost lines of the larger phone-screen text, which stays at 48.
pub const SCREEN_SMALL_TEXT_H: u32 = 32;

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

/// OCR candidates in `regions` of `img`, then anchor candidates in the same regions that lie
/// outside every `known` box (tree elements, device px) and every OCR box.
pub fn candidates(
    engine: &mut OcrEngine,
    img: &RgbImage,
    regions: &[Rect],
    known: &[Rect],
) -> Result<Vec<PixelCandidate>, OcrError> {
    if regions.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = engine.recognize_regions(img, regions, REGION_MARGIN_PX)?;
    let mut exclude: Vec<Rect> = known.to_vec();
    exclude.extend(out.iter().map(|c| c.bbox_px));
    let params = AnchorParams::default();
    for r in regions {
        out.extend(anchors(img, Some(*r), &exclude, &params));
    }
    Ok(out)
}
