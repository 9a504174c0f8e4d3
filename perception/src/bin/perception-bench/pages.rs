//! The generated evaluation pages (`perception/sets/generate.py`): each a screenshot (PNG,
//! 1× device px) and its JSON (font, size and every item's text and box as drawn), read with
//! no accessibility tree, the way a worker perceives an app that has none.
//!
//! Shared by the bench ([`super::sets`]) and the keypad test (`tests/keypad.rs`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use argus_perception::arbitration::{ArbParams, Arbiter};
use argus_perception::ocr::OcrEngine;
use argus_perception::perceive::{finish, plan, FrameHints, PixelResult};
use argus_perception::{pixel, Observation, Rect, Screen, Tree};
use serde::Deserialize;

/// One drawn item: a label or a button.
#[derive(Debug, Clone, Deserialize)]
pub struct Item {
    /// `label` or `button`.
    pub kind: String,
    /// The text drawn.
    pub text: String,
    /// Box as laid out, px: x, y, w, h.
    #[serde(rename = "box")]
    pub bbox: [f64; 4],
}

impl Item {
    /// The item's box.
    pub fn rect(&self) -> Rect {
        Rect::new(self.bbox[0], self.bbox[1], self.bbox[2], self.bbox[3])
    }
}

/// One page's description.
#[derive(Debug, Clone, Deserialize)]
pub struct Page {
    /// Font family.
    pub font: String,
    /// Font size, CSS px.
    pub size_px: u32,
    /// Keypad pages: `small`, `medium` or `large` buttons.
    #[serde(default)]
    pub size_class: Option<String>,
    /// Everything drawn.
    pub items: Vec<Item>,
}

/// A page with its screenshot and the renderer that drew it (`chromium` or `gtk`).
pub struct Loaded {
    /// `chromium` or `gtk` (from the file name).
    pub renderer: String,
    /// The page.
    pub page: Page,
    /// The screenshot.
    pub img: image::RgbImage,
    /// The PNG's path.
    pub path: PathBuf,
}

/// Every `<renderer>-<seed>.json` + `.png` pair in `dir`, sorted by file name.
pub fn load_dir(dir: &Path) -> Result<Vec<Loaded>, String> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    names.iter().map(|p| load(p)).collect()
}

/// One page from its JSON path (the PNG beside it).
pub fn load(json: &Path) -> Result<Loaded, String> {
    let page: Page = serde_json::from_slice(
        &std::fs::read(json).map_err(|e| format!("{}: {e}", json.display()))?,
    )
    .map_err(|e| format!("{}: {e}", json.display()))?;
    let png = json.with_extension("png");
    let img = image::open(&png)
        .map_err(|e| format!("{}: {e}", png.display()))?
        .to_rgb8();
    let renderer = json
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| s.split('-').next())
        .unwrap_or("")
        .to_string();
    Ok(Loaded {
        renderer,
        page,
        img,
        path: png,
    })
}

/// The worker's perception of `img` with no accessibility tree: a fresh arbiter goes to
/// pixels on the first frame, the pixel channel ([`pixel::candidates`]) reads the regions it
/// asks for, fusion numbers the result. Returns the observation and its wall ms.
pub fn perceive_no_tree(
    engine: &mut OcrEngine,
    img: &image::RgbImage,
) -> Result<(Observation, f64), String> {
    let t0 = Instant::now();
    let screen = Screen::from_device_px(f64::from(img.width()), f64::from(img.height()), 1.0);
    let mut arb = Arbiter::new(ArbParams::default());
    let p = plan(&Tree::default(), screen, 1, &mut arb, FrameHints::default());
    let c = pixel::candidates(engine, img, &p.regions, &[]).map_err(|e| e.to_string())?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let obs = finish(p, PixelResult::Ran { candidates: c, ms });
    Ok((obs, t0.elapsed().as_secs_f64() * 1e3))
}

/// Whether `inner` lies inside `outer` grown by `slack_px` on every side.
pub fn inside(inner: &Rect, outer: &Rect, slack_px: f64) -> bool {
    inner.x >= outer.x - slack_px
        && inner.y >= outer.y - slack_px
        && inner.right() <= outer.right() + slack_px
        && inner.bottom() <= outer.bottom() + slack_px
}
