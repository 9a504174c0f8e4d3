//! The worker's perception stage: the one place a perception channel plugs in.
//!
//! Every observation of every mode (script steps, model steps, actionability waits, the
//! popup policy, `wait for`) goes through [`Perceiver::observe`]:
//!
//! 1. the device captures its normalized tree and geometry ([`Observe::capture`]);
//! 2. [`argus_perception::perceive::plan`] builds the tree channel's element list and asks the
//!    run's [`Arbiter`] which channel to trust for this frame (and which regions the tree
//!    cannot see);
//! 3. when the tree is unstable, the tree is read once more (after a short pause,
//!    `REREAD_PAUSE`) and [`argus_perception::perceive::reread`] decides again: a healthy
//!    re-read needs no pixels;
//! 4. only when the arbiter still asks for pixels: the screen's pixels ([`Observe::frame`]: raw
//!    where the driver has them, else the screenshot decoded), read by the pixel channel (OCR + vision anchors, [`argus_perception::pixel`]) on a
//!    blocking thread;
//! 5. [`argus_perception::perceive::finish`] fuses by IoU, numbers in reading order and
//!    records the decision in `Observation::perceived`, which every action record carries as
//!    its [`PerceptionNote`].
//!
//! The OCR models are loaded once per worker ([`PixelChannel::load`]) and shared by its
//! device slots behind a mutex (one OCR at a time; each call is CPU-bound). A worker without
//! them starts, says once that the pixel channel is off, and perceives from the tree alone;
//! its records say why (`pixel channel off: …`). One [`Arbiter`] per run: hysteresis
//! carries from frame to frame within a run, never across runs.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use argus_perception::arbitration::{ArbParams, Arbiter};
use argus_perception::ocr::{self, OcrEngine};
use argus_perception::perceive::{finish, plan, reread, FrameHints, FramePlan, PixelResult};
use argus_perception::som::SomRenderer;
use argus_perception::{Observation, PixelCandidate, Rect};
use argus_protocol::PerceptionNote;

use crate::config::DriverConfig;
use crate::device::{Capture, DeviceError, Observe};

/// Pause before reading an unstable tree again, so a page that is still settling (a list
/// rendering, a late script) gets a chance to come back whole before OCR is paid for.
const REREAD_PAUSE: std::time::Duration = std::time::Duration::from_millis(100);

fn hints(cap: &Capture) -> FrameHints {
    FrameHints {
        unchanged_frames: 0,
        blank: cap.blank,
    }
}

/// The worker's pixel channel: the OCR engine (shared by all slots) or why there is none.
#[derive(Clone)]
pub struct PixelChannel {
    engine: Option<Arc<Mutex<OcrEngine>>>,
    off: Arc<str>,
}

impl std::fmt::Debug for PixelChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PixelChannel")
            .field("on", &self.engine.is_some())
            .field("off", &self.off)
            .finish()
    }
}

impl Default for PixelChannel {
    /// Off ("not configured").
    fn default() -> Self {
        PixelChannel::off("not configured")
    }
}

impl PixelChannel {
    /// A channel that never runs; `why` goes into every record that wanted it.
    pub fn off(why: &str) -> PixelChannel {
        PixelChannel {
            engine: None,
            off: Arc::from(why),
        }
    }

    /// Loads the OCR runtime and models named by `cfg` (once per worker) and logs once
    /// whether the pixel channel is on. Never fails: a missing model turns the channel off.
    pub fn load(cfg: &DriverConfig) -> PixelChannel {
        if cfg.no_pixel_channel {
            tracing::info!(
                "pixel channel off (--no-pixel-channel): observations use the tree alone"
            );
            return PixelChannel::off("turned off by --no-pixel-channel");
        }
        let t0 = Instant::now();
        match open_engine(&cfg.models_dir, cfg.ocr_threads) {
            Ok(engine) => {
                tracing::info!(
                    models_dir = %cfg.models_dir.display(),
                    load_ms = t0.elapsed().as_millis() as u64,
                    "pixel channel on: OCR models loaded"
                );
                PixelChannel {
                    engine: Some(Arc::new(Mutex::new(engine))),
                    off: Arc::from(""),
                }
            }
            Err(e) => {
                tracing::warn!(
                    models_dir = %cfg.models_dir.display(),
                    error = %e,
                    "pixel channel off: OCR models not usable (deploy/models.sh installs them); observations use the tree alone"
                );
                PixelChannel::off(&format!(
                    "OCR models not installed in {}",
                    cfg.models_dir.display()
                ))
            }
        }
    }

    /// [`PixelChannel::load`] on a blocking thread (loading the models takes a while).
    pub async fn load_async(cfg: &DriverConfig) -> PixelChannel {
        let cfg = cfg.clone();
        tokio::task::spawn_blocking(move || PixelChannel::load(&cfg))
            .await
            .unwrap_or_else(|e| PixelChannel::off(&format!("loading the OCR models failed: {e}")))
    }

    /// Whether OCR can run.
    pub fn is_on(&self) -> bool {
        self.engine.is_some()
    }
}

fn open_engine(dir: &Path, threads: usize) -> Result<OcrEngine, ocr::OcrError> {
    if !ocr::models_present(dir) {
        return Err(ocr::OcrError::Model(format!(
            "runtime or models missing in {}",
            dir.display()
        )));
    }
    let config = argus_perception::pixel::screen_config(threads);
    OcrEngine::open(dir, config)
}

/// One run's perception stage: the worker's pixel channel, the run's arbiter and its
/// Set-of-Mark renderer (glyphs cached across the run's frames).
#[derive(Debug)]
pub struct Perceiver {
    pixel: PixelChannel,
    arbiter: Arbiter,
    som: SomRenderer,
}

impl Perceiver {
    /// A fresh stage (arbiter with no history) over `pixel`.
    pub fn new(pixel: PixelChannel) -> Perceiver {
        Perceiver {
            pixel,
            arbiter: Arbiter::new(ArbParams::default()),
            som: SomRenderer::new(),
        }
    }

    /// The Set-of-Mark image of `obs` drawn on `png`, a screenshot of the same frame (device
    /// px): every element's box outlined and labelled with its id in its role's colour
    /// ([`argus_perception::som`]), line width and glyphs scaled by the device pixel ratio
    /// (rounded, at least 1). PNG in, PNG out, same size. Errors when `png` does not decode.
    pub fn set_of_mark(&mut self, png: &[u8], obs: &Observation) -> Result<Vec<u8>, String> {
        let shot = image::load_from_memory_with_format(png, image::ImageFormat::Png)
            .map_err(|e| format!("screenshot is not a PNG: {e}"))?
            .to_rgb8();
        let scale = obs.screen.dpr.round().max(1.0) as u32;
        let marked = self.som.render(&shot, obs, scale);
        let mut out = std::io::Cursor::new(Vec::new());
        marked
            .write_to(&mut out, image::ImageFormat::Png)
            .map_err(|e| format!("Set-of-Mark image: {e}"))?;
        Ok(out.into_inner())
    }

    /// Captures `dev` and perceives the frame (see the module docs); `serial` names the
    /// observation. Only the capture can fail: a failing screenshot or OCR leaves the
    /// observation tree-only, with the reason recorded.
    pub async fn observe<D: Observe + ?Sized>(
        &mut self,
        dev: &mut D,
        serial: u64,
    ) -> Result<Observation, DeviceError> {
        let cap = dev.capture().await?;
        let mut planned = plan(
            &cap.tree,
            cap.screen,
            serial,
            &mut self.arbiter,
            hints(&cap),
        );
        if planned.decision.wants_reread() {
            planned = self.read_again(dev, planned).await;
        }
        if planned.regions.is_empty() {
            return Ok(finish(planned, PixelResult::NotAsked));
        }
        let Some(engine) = self.pixel.engine.clone() else {
            return Ok(finish(
                planned,
                PixelResult::Skipped(self.pixel.off.to_string()),
            ));
        };
        let t0 = Instant::now();
        let img = match dev.frame().await {
            Ok(i) => i,
            Err(e) => {
                return Ok(finish(
                    planned,
                    PixelResult::Skipped(format!("screenshot failed: {e}")),
                ))
            }
        };
        let regions = planned.regions.clone();
        let known: Vec<Rect> = planned.obs.elements.iter().map(|e| e.bbox_px).collect();
        let read = tokio::task::spawn_blocking(move || pixel_pass(&engine, &img, &regions, &known))
            .await
            .map_err(|e| format!("pixel task: {e}"))
            .and_then(|r| r);
        let result = match read {
            Ok(candidates) => PixelResult::Ran {
                candidates,
                ms: t0.elapsed().as_secs_f64() * 1e3,
            },
            Err(e) => {
                tracing::warn!(error = %e, "pixel channel failed on a frame; using the tree alone");
                PixelResult::Skipped(e)
            }
        };
        Ok(finish(planned, result))
    }

    /// Reads an unstable frame's tree once more and lets the arbiter decide again. A failed
    /// capture keeps the first plan (its regions still go to the pixel channel).
    async fn read_again<D: Observe + ?Sized>(
        &mut self,
        dev: &mut D,
        first: FramePlan,
    ) -> FramePlan {
        tokio::time::sleep(REREAD_PAUSE).await;
        match dev.capture().await {
            Ok(cap) => reread(
                &first,
                &cap.tree,
                cap.screen,
                &mut self.arbiter,
                hints(&cap),
            ),
            Err(e) => {
                tracing::debug!(error = %e, "re-reading an unstable tree failed; using the first read");
                first
            }
        }
    }
}

/// Runs OCR + anchors on `regions` of `img` (blocking).
fn pixel_pass(
    engine: &Mutex<OcrEngine>,
    img: &image::RgbImage,
    regions: &[Rect],
    known: &[Rect],
) -> Result<Vec<PixelCandidate>, String> {
    let mut eng = engine
        .lock()
        .map_err(|_| "OCR engine lock poisoned".to_string())?;
    argus_perception::pixel::candidates(&mut eng, img, regions, known)
        .map_err(|e| format!("OCR: {e}"))
}

/// The record's view of how `obs` was perceived.
pub fn note(obs: &Observation) -> Option<PerceptionNote> {
    let p = &obs.perceived;
    if p.channel.is_empty() {
        return None;
    }
    let reason = match p.pixel_summary() {
        Some(px) => format!("{}; {px}", p.reason),
        None => p.reason.clone(),
    };
    Some(PerceptionNote {
        channel: p.channel.clone(),
        reason,
        ocr_elements: p.ocr_elements as u32,
        vision_elements: p.vision_elements as u32,
        pixel_ms: p.pixel_ms,
    })
}
