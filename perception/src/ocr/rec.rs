//! Text recognition: PP-OCRv4 CRNN (SVTR-LCNet) with CTC greedy decoding.
//!
//! Input `[N, 3, H, W]` f32 (BGR, `(v/255 - 0.5)/0.5`), `H` = 48 (or a smaller height for
//! small text, [`RecParams::small_text_height`]); each crop is resized to height `H` and
//! width `ceil(H·w/h)` (capped at `W`) and zero-padded right, where
//! `W = int(H · max(320/48, widest w/h in the batch))` — crops are sorted by aspect ratio and
//! batched by [`RecParams::batch`] (RapidOCR 1.4.4: `rec_img_shape [3, 48, 320]`,
//! `rec_batch_num 6`). Output `[N, T, C]` per-timestep class probabilities, `C` = 6625: index 0
//! is the CTC blank, then the 6623 dictionary lines of the model's metadata key `character`,
//! then a space. Decoding: argmax per step, drop repeats and blanks; the confidence is the mean
//! probability of the kept steps.

use std::sync::atomic::{AtomicUsize, Ordering};

use image::RgbImage;
use ort::session::Session;
use ort::value::Tensor;

use super::prep;
use super::same_ink;
use super::OcrError;

/// Input height, px.
pub const REC_H: u32 = 48;
/// PaddleOCR's minimum input width, px (`rec_image_shape` 3,48,320).
pub const REC_MIN_W: u32 = 320;

/// Recognition parameters (RapidOCR 1.4.4 / PaddleOCR defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecParams {
    /// Crops shorter than this many px are read at this input height instead of [`REC_H`]
    /// (the model's input height is dynamic). `None`: every crop at [`REC_H`] (PaddleOCR).
    /// Small text (a terminal's 13 px font, boxes ≈ 24 px) gains nothing from being scaled
    /// up twice to 48 px, and the cost grows with the square of the input height.
    pub small_text_height: Option<u32>,
    /// Crops per inference call (RapidOCR: 6).
    pub batch: usize,
    /// Lines whose confidence is below this are dropped (RapidOCR `text_score` 0.5).
    pub text_score: f32,
    /// Minimum batch input width, px at [`REC_H`] (scaled with the input height). PaddleOCR
    /// pads every batch to at least [`REC_MIN_W`]; the network is fully convolutional in
    /// width, so a smaller floor saves the compute spent on padding for short labels.
    pub min_width: u32,
    /// Read crops that show the same ink once per call ([`super::same_ink`]; default true):
    /// the same text, less recognition on screens that repeat words.
    pub same_ink_once: bool,
}

impl RecParams {
    /// Input height for a crop `crop_h` px tall.
    pub fn height_for(&self, crop_h: u32) -> u32 {
        match self.small_text_height {
            Some(s) if crop_h < s => s.clamp(8, REC_H),
            _ => REC_H,
        }
    }
}

impl Default for RecParams {
    fn default() -> Self {
        RecParams {
            small_text_height: None,
            batch: 6,
            text_score: 0.5,
            min_width: REC_MIN_W,
            same_ink_once: true,
        }
    }
}

/// The CTC class list: blank, the model's dictionary, space.
#[derive(Debug, Clone)]
pub struct Dictionary {
    classes: Vec<String>,
}

impl Dictionary {
    /// Builds it from the text of the rec model's `character` metadata (one entry a line).
    pub fn from_metadata(text: &str) -> Dictionary {
        let mut classes = Vec::with_capacity(6625);
        classes.push(String::new()); // blank
        classes.extend(text.lines().map(str::to_string));
        classes.push(" ".to_string());
        Dictionary { classes }
    }

    /// Reads the `character` metadata of a rec session.
    pub fn from_session(session: &Session) -> Result<Dictionary, OcrError> {
        let meta = session
            .metadata()
            .map_err(|e| OcrError::Model(format!("rec model metadata: {e}")))?;
        let text = meta.custom("character").ok_or_else(|| {
            OcrError::Model("rec model has no `character` metadata (dictionary)".into())
        })?;
        Ok(Dictionary::from_metadata(&text))
    }

    /// Number of classes including blank and space (6625 for PP-OCRv4 Chinese).
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Whether there are no classes at all.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// Greedy CTC decoding of one `[T, C]` probability matrix (row-major, `c` = C):
    /// text and mean confidence of the kept steps (0 when nothing is kept).
    pub fn decode(&self, probs: &[f32], c: usize) -> (String, f32) {
        let mut text = String::new();
        let (mut sum, mut kept) = (0f32, 0usize);
        let mut prev = usize::MAX;
        for step in probs.chunks_exact(c.max(1)) {
            let (idx, p) =
                step.iter()
                    .copied()
                    .enumerate()
                    .fold(
                        (0usize, f32::MIN),
                        |m, (i, v)| if v > m.1 { (i, v) } else { m },
                    );
            if idx != 0 && idx != prev {
                if let Some(s) = self.classes.get(idx) {
                    text.push_str(s);
                    sum += p;
                    kept += 1;
                }
            }
            prev = idx;
        }
        let conf = if kept == 0 { 0.0 } else { sum / kept as f32 };
        (text, conf)
    }
}

/// A crop's index and its `(text, confidence)`.
type Read = (usize, (String, f32));

/// Recognizes every crop; returns `(text, confidence)` per crop, in input order. With
/// [`RecParams::same_ink_once`], a crop showing the same ink as an earlier one
/// ([`same_ink`]) is not run but given that one's reading. Crops are
/// grouped by input height ([`RecParams::height_for`]), sorted by aspect ratio within a group
/// and batched, so padding stays small. With several `sessions`, each runs on a scoped thread
/// of its own and takes the next batch left (largest first) whenever it is free.
pub fn recognize(
    sessions: &mut [Session],
    dict: &Dictionary,
    crops: &[RgbImage],
    p: &RecParams,
) -> Result<Vec<(String, f32)>, OcrError> {
    if !p.same_ink_once {
        return recognize_all(sessions, dict, crops, (0..crops.len()).collect(), p);
    }
    let kind = same_ink::first_of_kind(crops);
    let firsts: Vec<usize> = (0..crops.len()).filter(|&i| kind[i] == i).collect();
    let mut out = recognize_all(sessions, dict, crops, firsts, p)?;
    for (i, &k) in kind.iter().enumerate() {
        if k != i {
            out[i] = out[k].clone();
        }
    }
    Ok(out)
}

/// [`recognize`] of the crops `order` names, each run (the others' readings stay empty).
fn recognize_all(
    sessions: &mut [Session],
    dict: &Dictionary,
    crops: &[RgbImage],
    mut order: Vec<usize>,
    p: &RecParams,
) -> Result<Vec<(String, f32)>, OcrError> {
    let ratio = prep::aspect;
    order.sort_by(|&a, &b| {
        p.height_for(crops[a].height())
            .cmp(&p.height_for(crops[b].height()))
            .then(ratio(&crops[a]).total_cmp(&ratio(&crops[b])))
    });
    let batches: Vec<&[usize]> = order
        .chunk_by(|&a, &b| p.height_for(crops[a].height()) == p.height_for(crops[b].height()))
        .flat_map(|g| g.chunks(p.batch.max(1)))
        .collect();
    let n = sessions.len().min(batches.len()).max(1);
    let mut out = vec![(String::new(), 0f32); crops.len()];
    if n == 1 {
        let s = sessions
            .first_mut()
            .ok_or_else(|| OcrError::Model("no recognition session".into()))?;
        for b in &batches {
            for (i, r) in b.iter().zip(recognize_batch(s, dict, crops, b, p)?) {
                out[*i] = r;
            }
        }
        return Ok(out);
    }
    // Largest batches first, each worker taking the next one left when it is free: a worker
    // that the OS leaves waiting (the cores are shared) holds back one batch, not every n-th.
    let mut queue = batches;
    queue.sort_by(|a, b| batch_cost(crops, b, p).total_cmp(&batch_cost(crops, a, p)));
    let next = AtomicUsize::new(0);
    let (queue, next) = (&queue, &next);
    let results: Vec<Result<Vec<Read>, OcrError>> = std::thread::scope(|sc| {
        let handles: Vec<_> = sessions
            .iter_mut()
            .take(n)
            .map(|s| {
                sc.spawn(move || {
                    let mut got = Vec::new();
                    while let Some(b) = queue.get(next.fetch_add(1, Ordering::Relaxed)) {
                        got.extend(
                            b.iter()
                                .copied()
                                .zip(recognize_batch(s, dict, crops, b, p)?),
                        );
                    }
                    Ok(got)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(OcrError::Inference("a rec worker panicked".into())))
            })
            .collect()
    });
    for r in results {
        for (i, t) in r? {
            out[i] = t;
        }
    }
    Ok(out)
}

/// What a batch costs the recognizer, in input px: its height × its width (the widest crop's,
/// at that height) × its crops.
fn batch_cost(crops: &[RgbImage], batch: &[usize], p: &RecParams) -> f32 {
    let Some(&first) = batch.first() else {
        return 0.0;
    };
    let h = p.height_for(crops[first].height()) as f32;
    let widest = batch
        .iter()
        .map(|&i| prep::aspect(&crops[i]))
        .fold(p.min_width as f32 / REC_H as f32, f32::max);
    h * h * widest * batch.len() as f32
}

/// One inference call over `crops[batch]` (all of one input height): `(text, confidence)`
/// per crop of the batch, in batch order.
fn recognize_batch(
    session: &mut Session,
    dict: &Dictionary,
    crops: &[RgbImage],
    batch: &[usize],
    p: &RecParams,
) -> Result<Vec<(String, f32)>, OcrError> {
    let Some(&first) = batch.first() else {
        return Ok(Vec::new());
    };
    let rec_h = p.height_for(crops[first].height());
    let ratio = prep::aspect;
    let max_ratio = batch
        .iter()
        .map(|&i| ratio(&crops[i]))
        .fold(p.min_width as f32 / REC_H as f32, f32::max);
    let w = ((rec_h as f32 * max_ratio) as usize).max(1);
    let h = rec_h as usize;
    let data = prep::pack_lines(crops, batch, (w, h));
    let input = Tensor::from_array(([batch.len(), 3, h, w], data))
        .map_err(|e| OcrError::Inference(format!("rec input: {e}")))?;
    let outputs = session
        .run(ort::inputs![input])
        .map_err(|e| OcrError::Inference(format!("rec run: {e}")))?;
    let (shape, probs) = outputs[0]
        .try_extract_tensor::<f32>()
        .map_err(|e| OcrError::Inference(format!("rec output: {e}")))?;
    let dims: Vec<i64> = shape.iter().copied().collect();
    let (t, c) = match dims.as_slice() {
        [_, t, c] => (*t as usize, *c as usize),
        _ => return Err(OcrError::Inference(format!("rec output shape {dims:?}"))),
    };
    if c != dict.len() {
        return Err(OcrError::Model(format!(
            "rec model has {c} classes, dictionary {}",
            dict.len()
        )));
    }
    Ok((0..batch.len())
        .map(|k| {
            probs
                .get(k * t * c..(k + 1) * t * c)
                .map(|m| dict.decode(m, c))
                .unwrap_or_default()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctc_greedy_drops_blanks_and_repeats() {
        let d = Dictionary::from_metadata("a\nb\n中");
        assert_eq!(d.len(), 5); // blank, a, b, 中, space
        let c = 5;
        let step = |i: usize, p: f32| {
            let mut v = vec![0.0; c];
            v[i] = p;
            v
        };
        // a a blank a b space 中 → "aab 中"
        let m: Vec<f32> = [
            (1, 0.9),
            (1, 0.9),
            (0, 0.9),
            (1, 0.8),
            (2, 0.7),
            (4, 0.6),
            (3, 1.0),
        ]
        .iter()
        .flat_map(|&(i, p)| step(i, p))
        .collect();
        let (t, conf) = d.decode(&m, c);
        assert_eq!(t, "aab 中");
        assert!((conf - (0.9 + 0.8 + 0.7 + 0.6 + 1.0) / 5.0).abs() < 1e-6);
        assert_eq!(d.decode(&step(0, 1.0), c), (String::new(), 0.0));
    }
}
