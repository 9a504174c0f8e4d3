//! Argus perception: what a device shows → one numbered element list a planner can act on.
//!
//! Pure library (no network, no devices). The stages, in order (the worker's perception stage
//! drives them per frame through [`perceive`]):
//!
//! | stage | modules |
//! |---|---|
//! | normalize | [`cdp`], [`android`], [`harmony`], [`wda`], [`atspi`] → [`tree`]; [`touch`] (one control, one element) |
//! | build | [`elements`] (clean, cluster), [`occlusion`], [`layout`] (order, neighbours) |
//! | arbitrate | [`arbitration`] (which channel this frame), [`regions`] (where the tree is blind) |
//! | pixel | [`ink`] (skip blank parts), `pixel` (feature `ocr`): `ocr`, lone glyphs ([`glyphs`], `glyph_read`) + [`vision`] on the chosen regions |
//! | fuse | [`fusion`] (IoU dedupe, tree first), then [`compact`] / [`som`] for prompts |
//!
//! In detail:
//!
//! 1. a platform normalizer turns the platform's tree into a [`tree::Tree`] of
//!    [`tree::Node`]s with tri-state properties ([`tree::Tri`]) and boxes in logical px:
//!    [`cdp`] (web, Electron), [`android`] (`uiautomator dump` XML), [`harmony`]
//!    (`uitest dumpLayout` JSON), [`wda`] (WebDriverAgent `/source` XML), [`atspi`] (Linux
//!    desktop);
//! 2. [`elements::build`] cleans it (ignored, invisible, zero-area, off-screen and empty
//!    layout-only nodes go), clusters it (an actionable node absorbs its descendants' text),
//!    flags covered elements ([`occlusion`]), converts boxes to device px through
//!    [`geometry::Screen`], and numbers what is left in reading order with neighbours
//!    ([`layout`]); the result is an [`Observation`];
//! 3. [`fusion::fuse`] adds pixel-channel candidates (OCR, vision boxes) the tree lacks;
//! 4. [`Observation::compact`] renders it for a prompt ([`compact`]);
//! 5. [`perceive::plan`] / [`perceive::finish`] run 2–3 for one frame with the arbiter's
//!    decision and record it in [`Observation::perceived`].
//!
//! Pixel channel: [`regions`] picks what the tree does not cover, `ocr` (cargo feature `ocr`,
//! PP-OCRv4 through ONNX Runtime) reads text there, [`vision`] finds icon-like boxes, and
//! [`arbitration`] decides per frame which channel to trust, with hysteresis.
//!
//! Element ids (`e1`, `e2`, …) are valid for one observation only.

pub mod android;
pub mod arbitration;
pub mod atspi;
pub mod cdp;
pub mod compact;
pub mod elements;
pub mod fusion;
pub mod geometry;
#[cfg(feature = "ocr")]
pub mod glyph_read;
pub mod glyph_shape;
pub mod glyphs;
pub mod harmony;
pub mod ink;
pub mod key_rows;
pub mod layout;
pub mod observation;
pub mod occlusion;
#[cfg(feature = "ocr")]
pub mod ocr;
pub mod perceive;
pub mod perceived;
#[cfg(feature = "ocr")]
pub mod pixel;
pub mod regions;
pub mod role;
pub mod row_label;
pub mod som;
pub mod text;
pub mod touch;
pub mod tree;
pub mod vision;
pub mod wda;
pub mod xml;

pub use elements::build;
pub use fusion::{fuse, PixelCandidate, PixelKind};
pub use geometry::{NormScale, Rect, Screen};
pub use observation::{Element, Neighbours, Observation, Source};
pub use perceived::Perceived;
pub use role::Role;
pub use tree::{Node, NodeRef, Tree, Tri};
