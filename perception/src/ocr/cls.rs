//! Text direction classifier (PaddleOCR `ch_ppocr_mobile_v2.0_cls`): 0° or 180°.
//!
//! Input `[N, 3, 48, 192]` f32 (BGR, `(v/255 - 0.5)/0.5`, each crop resized to height 48,
//! width `min(192, ceil(48·w/h))`, zero-padded right), output `[N, 2]` probabilities for the
//! labels `0` and `180`. A crop is turned 180° when label `180` wins with probability above
//! [`CLS_THRESH`]. Batches of [`CLS_BATCH`], crops sorted by aspect ratio (RapidOCR 1.4.4
//! `Cls` config: `cls_image_shape [3, 48, 192]`, `cls_batch_num 6`, `cls_thresh 0.9`).

use image::RgbImage;
use ort::session::Session;
use ort::value::Tensor;

use super::prep;
use super::OcrError;

/// Input height, px.
pub const CLS_H: u32 = 48;
/// Input width, px.
pub const CLS_W: u32 = 192;
/// Crops per inference call.
pub const CLS_BATCH: usize = 6;
/// Probability above which the `180` label turns a crop.
pub const CLS_THRESH: f32 = 0.9;

/// Classifies every crop and turns the upside-down ones in place.
pub fn fix_orientation(session: &mut Session, crops: &mut [RgbImage]) -> Result<(), OcrError> {
    let mut order: Vec<usize> = (0..crops.len()).collect();
    let ratio = prep::aspect;
    order.sort_by(|&a, &b| ratio(&crops[a]).total_cmp(&ratio(&crops[b])));
    let (w, h) = (CLS_W as usize, CLS_H as usize);
    for batch in order.chunks(CLS_BATCH) {
        let data = prep::pack_lines(crops, batch, (w, h));
        let input = Tensor::from_array(([batch.len(), 3, h, w], data))
            .map_err(|e| OcrError::Inference(format!("cls input: {e}")))?;
        let outputs = session
            .run(ort::inputs![input])
            .map_err(|e| OcrError::Inference(format!("cls run: {e}")))?;
        let (_, probs) = outputs[0]
            .try_extract_tensor::<f32>()
            .map_err(|e| OcrError::Inference(format!("cls output: {e}")))?;
        for (k, &i) in batch.iter().enumerate() {
            let (p0, p180) = (probs.get(2 * k), probs.get(2 * k + 1));
            if let (Some(&p0), Some(&p180)) = (p0, p180) {
                if p180 > p0 && p180 > CLS_THRESH {
                    image::imageops::rotate180_in_place(&mut crops[i]);
                }
            }
        }
    }
    Ok(())
}
