//! Local OCR: PaddleOCR PP-OCRv4 models run by ONNX Runtime (`ort`). Feature `ocr`.
//!
//! Pipeline (as PaddleOCR / RapidOCR 1.4.4 do it, same models):
//! 1. [`det`]: DB text detection on the screenshot resized per [`det::DetParams`]
//!    (default: longer side ≤ 960 px, multiples of 32) → axis-aligned text boxes;
//! 2. boxes sorted top-to-bottom, left-to-right (same row when tops differ < 10 px), each
//!    cropped from the full-resolution image (a crop taller than 1.5× its width is turned 90°
//!    counter-clockwise);
//! 3. [`cls`] (optional, on by default): upside-down crops are turned 180°;
//! 4. [`rec`]: CRNN recognition batched by width, CTC greedy decoding with the dictionary
//!    from the rec model's `character` metadata; lines below `text_score` are dropped. Crops
//!    that show the same ink are run once and share the reading ([`same_ink`]).
//!
//! Files (installed by `deploy/models.sh` into [`models_dir`]): [`RUNTIME_LIB`], [`DET_MODEL`],
//! [`REC_MODEL`], [`CLS_MODEL`], and optionally [`DET_MODEL_FOLDED`] / [`REC_MODEL_FOLDED`]:
//! the same det / rec networks with the backbone's per-convolution scalar affines and
//! four-operator hard-swishes folded into the convolutions and one `HardSwish` each
//! (`deploy/fuse_ppocr.py`; same function, outputs within 1e-5), which ONNX Runtime would
//! otherwise run as seven elementwise passes per convolution: rec 20–30% and det ~15% less CPU,
//! the same text. [`OcrEngine::open`] prefers them when present ([`OcrConfig::use_folded`]).
//! A missing runtime or model is an [`OcrError`], never a panic.
//! Session options (threads, memory arena, spinning) are in [`session`].
//!
//! [`OcrEngine::recognize_regions`] OCRs only parts of a screen (see [`crate::regions`] for
//! choosing them) and returns [`PixelCandidate`]s for [`crate::fusion::fuse`].

pub mod cls;
pub mod det;
pub mod prep;
pub mod rec;
pub mod same_ink;
pub mod session;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use image::RgbImage;
use ort::session::Session;

use crate::fusion::{PixelCandidate, PixelKind};
use crate::geometry::Rect;
pub use det::{DetParams, LimitType};
pub use rec::RecParams;
pub use session::SessionOptions;

/// ONNX Runtime shared library file name inside the models directory.
pub const RUNTIME_LIB: &str = "libonnxruntime.so.1.32.0";
/// PP-OCRv4 detection model (from `rapidocr-onnxruntime==1.4.4`).
pub const DET_MODEL: &str = "ch_PP-OCRv4_det_infer.onnx";
/// PP-OCRv4 recognition model, Chinese + English dictionary in its metadata.
pub const REC_MODEL: &str = "ch_PP-OCRv4_rec_infer.onnx";
/// [`DET_MODEL`] with its elementwise chains folded (`deploy/fuse_ppocr.py`); optional.
pub const DET_MODEL_FOLDED: &str = "ch_PP-OCRv4_det_infer.fused.onnx";
/// [`REC_MODEL`] with its elementwise chains folded (`deploy/fuse_ppocr.py`); optional.
pub const REC_MODEL_FOLDED: &str = "ch_PP-OCRv4_rec_infer.fused.onnx";
/// PP-OCR mobile v2.0 direction classifier.
pub const CLS_MODEL: &str = "ch_ppocr_mobile_v2.0_cls_infer.onnx";
/// Default models directory (`deploy/models.sh`).
pub const DEFAULT_MODELS_DIR: &str = "/var/lib/argus/models";

/// Two boxes whose tops differ by less than this many px are on one line for sorting
/// (RapidOCR `sorted_boxes`).
pub const SAME_LINE_PX: u32 = 10;

/// Why OCR could not run.
#[derive(Debug, thiserror::Error)]
pub enum OcrError {
    /// The ONNX Runtime library is missing or failed to load.
    #[error("ONNX Runtime: {0}")]
    Runtime(String),
    /// A model file is missing, unreadable or not what was expected.
    #[error("OCR model: {0}")]
    Model(String),
    /// An inference call failed.
    #[error("OCR inference: {0}")]
    Inference(String),
}

/// `$ARGUS_MODELS_DIR`, else [`DEFAULT_MODELS_DIR`].
pub fn models_dir() -> PathBuf {
    std::env::var_os("ARGUS_MODELS_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_MODELS_DIR))
}

/// Whether the runtime and all three models are present in `dir`.
pub fn models_present(dir: &Path) -> bool {
    [RUNTIME_LIB, DET_MODEL, REC_MODEL, CLS_MODEL]
        .iter()
        .all(|f| dir.join(f).is_file())
}

/// OCR configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrConfig {
    /// Detection parameters.
    pub det: DetParams,
    /// Recognition parameters.
    pub rec: RecParams,
    /// Skip the 0°/180° classifier (screens are upright; saves ~5% CPU).
    pub skip_cls: bool,
    /// ONNX Runtime session options.
    pub session: SessionOptions,
    /// Recognition sessions run side by side, each on its own thread with one intra-op
    /// thread, each taking the next batch left, largest first (0 or 1: one session with
    /// [`SessionOptions::intra_threads`]). Rec is many small operators per batch, which
    /// split across cores better by batch than inside each operator.
    pub rec_workers: usize,
    /// Load [`DET_MODEL_FOLDED`] / [`REC_MODEL_FOLDED`] instead of the originals when they are
    /// in the models directory (default true; same output, less CPU).
    pub use_folded: bool,
}

impl Default for OcrConfig {
    fn default() -> Self {
        OcrConfig {
            det: DetParams::default(),
            rec: RecParams::default(),
            skip_cls: false,
            session: SessionOptions::default(),
            rec_workers: 0,
            use_folded: true,
        }
    }
}

/// `dir/folded` when `use_folded` and that file exists, else `dir/original`.
fn model_path(dir: &Path, original: &str, folded: &str, use_folded: bool) -> PathBuf {
    let f = dir.join(folded);
    if use_folded && f.is_file() {
        f
    } else {
        dir.join(original)
    }
}

/// One recognized line.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrLine {
    /// Box in image px (full-screen coordinates for region OCR).
    pub bbox_px: Rect,
    /// Recognized text, trimmed.
    pub text: String,
    /// Recognition confidence 0..=1 (mean CTC step probability).
    pub confidence: f32,
}

impl OcrLine {
    /// As a fusion candidate.
    pub fn to_candidate(&self) -> PixelCandidate {
        PixelCandidate {
            bbox_px: self.bbox_px,
            text: self.text.clone(),
            kind: PixelKind::Ocr,
            confidence: f64::from(self.confidence),
        }
    }
}

/// Wall time of the stages of the last call.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StageTimes {
    /// Detection (resize, inference, post-processing).
    pub det: Duration,
    /// Direction classification.
    pub cls: Duration,
    /// Recognition and decoding.
    pub rec: Duration,
}

/// The three PP-OCR sessions and the dictionary. Not `Sync`: one engine per thread.
pub struct OcrEngine {
    det: Session,
    cls: Option<Session>,
    /// One session per recognition worker (at least one).
    rec: Vec<Session>,
    dict: rec::Dictionary,
    config: OcrConfig,
    /// Whether the folded det and rec models were loaded.
    folded: bool,
    /// Stage times of the last [`OcrEngine::recognize`] call (summed over regions).
    pub last_times: StageTimes,
}

impl std::fmt::Debug for OcrEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OcrEngine")
            .field("classes", &self.dict.len())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl OcrEngine {
    /// Loads the runtime and models from `dir` (see [`models_dir`]).
    pub fn open(dir: &Path, config: OcrConfig) -> Result<OcrEngine, OcrError> {
        let env = session::environment(&dir.join(RUNTIME_LIB))?;
        let det_path = model_path(dir, DET_MODEL, DET_MODEL_FOLDED, config.use_folded);
        let rec_path = model_path(dir, REC_MODEL, REC_MODEL_FOLDED, config.use_folded);
        let folded = det_path.ends_with(DET_MODEL_FOLDED) && rec_path.ends_with(REC_MODEL_FOLDED);
        let det = session::open(&env, &det_path, &config.session)?;
        let rec = if config.rec_workers > 1 {
            let one = SessionOptions {
                intra_threads: 1,
                ..config.session.clone()
            };
            (0..config.rec_workers)
                .map(|_| session::open(&env, &rec_path, &one))
                .collect::<Result<Vec<_>, _>>()?
        } else {
            vec![session::open(&env, &rec_path, &config.session)?]
        };
        let cls = if config.skip_cls {
            None
        } else {
            Some(session::open(&env, &dir.join(CLS_MODEL), &config.session)?)
        };
        let first = rec
            .first()
            .ok_or_else(|| OcrError::Model("no recognition session".into()))?;
        let dict = rec::Dictionary::from_session(first)?;
        Ok(OcrEngine {
            det,
            cls,
            rec,
            dict,
            config,
            folded,
            last_times: StageTimes::default(),
        })
    }

    /// The configuration in use.
    pub fn config(&self) -> &OcrConfig {
        &self.config
    }

    /// Whether the folded det and rec models ([`DET_MODEL_FOLDED`], [`REC_MODEL_FOLDED`]) are
    /// the ones running.
    pub fn folded(&self) -> bool {
        self.folded
    }

    /// Number of recognition classes (6625 for PP-OCRv4: blank + 6623 + space).
    pub fn classes(&self) -> usize {
        self.dict.len()
    }

    /// OCRs the whole image; lines in reading order, boxes in image px.
    pub fn recognize(&mut self, img: &RgbImage) -> Result<Vec<OcrLine>, OcrError> {
        self.last_times = StageTimes::default();
        self.run(img, 0.0, 0.0, None)
    }

    fn run(
        &mut self,
        img: &RgbImage,
        ox: f64,
        oy: f64,
        scale: Option<f64>,
    ) -> Result<Vec<OcrLine>, OcrError> {
        let t0 = Instant::now();
        let mut boxes = det::detect(&mut self.det, img, &self.config.det, scale)?;
        sort_boxes(&mut boxes);
        let mut crops: Vec<RgbImage> = boxes
            .iter()
            .map(|b| {
                let roi = prep::PxRect {
                    x: b.x0,
                    y: b.y0,
                    w: b.x1 - b.x0,
                    h: b.y1 - b.y0,
                };
                let c = prep::crop(img, roi);
                if f64::from(c.height()) >= 1.5 * f64::from(c.width()) {
                    image::imageops::rotate270(&c)
                } else {
                    c
                }
            })
            .collect();
        let t1 = Instant::now();
        if let Some(cls) = self.cls.as_mut() {
            cls::fix_orientation(cls, &mut crops)?;
        }
        let t2 = Instant::now();
        let texts = rec::recognize(&mut self.rec, &self.dict, &crops, &self.config.rec)?;
        let t3 = Instant::now();
        self.last_times.det += t1 - t0;
        self.last_times.cls += t2 - t1;
        self.last_times.rec += t3 - t2;
        Ok(boxes
            .iter()
            .zip(texts)
            .filter(|(_, (text, conf))| *conf >= self.config.rec.text_score && !text.is_empty())
            .map(|(b, (text, confidence))| (b, (text.trim().to_string(), confidence)))
            .filter(|(_, (text, _))| !text.is_empty())
            .map(|(b, (text, confidence))| OcrLine {
                bbox_px: Rect::new(
                    ox + f64::from(b.x0),
                    oy + f64::from(b.y0),
                    f64::from(b.x1 - b.x0),
                    f64::from(b.y1 - b.y0),
                ),
                text,
                confidence,
            })
            .collect())
    }

    /// Reads each crop as one line of text, without detection (the small glyphs detection
    /// misses, [`crate::glyphs`]): text (untrimmed) and confidence per crop, in order.
    pub fn read_lines(&mut self, crops: &[RgbImage]) -> Result<Vec<(String, f32)>, OcrError> {
        if crops.is_empty() {
            return Ok(Vec::new());
        }
        rec::recognize(&mut self.rec, &self.dict, crops, &self.config.rec)
    }

    /// OCRs only `regions` (device px, screenshot coordinates) of `img`, each grown by
    /// `margin_px` on every side and clipped to the image, and returns OCR candidates in
    /// full-screen coordinates. Each region is detected at the scale a full-screen pass would
    /// use, so detection cost is proportional to the regions' area. A line found twice (overlapping regions: same text, IoU > 0.5)
    /// is kept once. Regions smaller than 8×8 px after clipping are skipped.
    pub fn recognize_regions(
        &mut self,
        img: &RgbImage,
        regions: &[Rect],
        margin_px: f64,
    ) -> Result<Vec<PixelCandidate>, OcrError> {
        self.last_times = StageTimes::default();
        let scale = det::scale_for(img.width(), img.height(), &self.config.det);
        let mut lines: Vec<OcrLine> = Vec::new();
        for r in regions {
            let Some(roi) = clip_region(r, margin_px, img.width(), img.height()) else {
                continue;
            };
            let crop = prep::crop(img, roi);
            for l in self.run(&crop, f64::from(roi.x), f64::from(roi.y), Some(scale))? {
                let dup = lines
                    .iter()
                    .any(|o| o.text == l.text && o.bbox_px.iou(&l.bbox_px) > 0.5);
                if !dup {
                    lines.push(l);
                }
            }
        }
        Ok(lines.iter().map(OcrLine::to_candidate).collect())
    }
}

/// `r` grown by `margin` px and clipped to a `w`×`h` image, in whole px; `None` when less than
/// 8×8 px remain.
pub fn clip_region(r: &Rect, margin: f64, w: u32, h: u32) -> Option<prep::PxRect> {
    let x0 = (r.x - margin).floor().clamp(0.0, f64::from(w));
    let y0 = (r.y - margin).floor().clamp(0.0, f64::from(h));
    let x1 = (r.right() + margin).ceil().clamp(0.0, f64::from(w));
    let y1 = (r.bottom() + margin).ceil().clamp(0.0, f64::from(h));
    if x1 - x0 < 8.0 || y1 - y0 < 8.0 {
        return None;
    }
    Some(prep::PxRect {
        x: x0 as u32,
        y: y0 as u32,
        w: (x1 - x0) as u32,
        h: (y1 - y0) as u32,
    })
}

/// RapidOCR's `sorted_boxes`: by top then left, then a bubble pass that puts boxes whose tops
/// differ by < [`SAME_LINE_PX`] left to right.
fn sort_boxes(boxes: &mut [det::DetBox]) {
    boxes.sort_by_key(|b| (b.y0, b.x0));
    for i in 0..boxes.len().saturating_sub(1) {
        for j in (0..=i).rev() {
            let (a, b) = (boxes[j], boxes[j + 1]);
            if a.y0.abs_diff(b.y0) < SAME_LINE_PX && b.x0 < a.x0 {
                boxes.swap(j, j + 1);
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x0: u32, y0: u32) -> det::DetBox {
        det::DetBox {
            x0,
            y0,
            x1: x0 + 10,
            y1: y0 + 10,
            score: 1.0,
        }
    }

    #[test]
    fn boxes_sort_in_rows() {
        let mut v = vec![b(500, 103), b(10, 100), b(10, 200), b(300, 95)];
        sort_boxes(&mut v);
        let xs: Vec<(u32, u32)> = v.iter().map(|b| (b.x0, b.y0)).collect();
        assert_eq!(xs, vec![(10, 100), (300, 95), (500, 103), (10, 200)]);
    }

    #[test]
    fn regions_are_clipped_with_margin() {
        let r = clip_region(&Rect::new(10.0, 10.0, 100.0, 50.0), 16.0, 100, 1000);
        assert_eq!(
            r,
            Some(prep::PxRect {
                x: 0,
                y: 0,
                w: 100,
                h: 76
            })
        );
        assert_eq!(
            clip_region(&Rect::new(200.0, 0.0, 5.0, 5.0), 0.0, 100, 100),
            None
        );
    }

    #[test]
    fn missing_runtime_is_an_error_not_a_panic() {
        let dir = std::env::temp_dir().join("argus-no-models-here");
        let e = OcrEngine::open(&dir, OcrConfig::default());
        assert!(matches!(e, Err(OcrError::Runtime(_))), "{e:?}");
    }
}
