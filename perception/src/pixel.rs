//! The pixel channel of the perception stage (feature `ocr`): OCR ([`crate::ocr`]) on the
//! regions [`crate::perceive::plan`] asked for, then vision anchors ([`crate::vision`]) in the
//! same regions for icon-like boxes that neither the tree nor OCR explains.
//!
//! Everything is in device px (screenshot coordinates). Blocking and CPU-bound: run it off
//! the async threads.

use image::RgbImage;

use crate::fusion::PixelCandidate;
use crate::geometry::Rect;
use crate::ocr::{OcrEngine, OcrError};
use crate::vision::{anchors, AnchorParams};

/// Margin around each region for OCR, px: a text line cut by a region's edge is still read.
pub const REGION_MARGIN_PX: f64 = 16.0;

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
