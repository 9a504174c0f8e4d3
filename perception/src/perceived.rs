//! How one observation was perceived ([`Perceived`]): the record the perception stage
//! (`perceive`) attaches to every observation it makes. A leaf: the observation holds it,
//! the stage fills it.

use serde::{Deserialize, Serialize};

/// How one observation was perceived: the arbiter's choice for the frame and why, and what
/// the pixel channel added. Empty (`Default`) for an observation built by
/// `elements::build` alone.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Perceived {
    /// Arbiter state after this frame: `tree-dominant`, `tree-unstable`, `pixel-fallback`.
    pub state: String,
    /// Channel chosen: `tree`, `tree+regions`, `pixel` (`arbitration::Channel::as_str`).
    pub channel: String,
    /// The arbiter's reason, one line.
    pub reason: String,
    /// Whether the pixel channel ran on this frame.
    pub pixel_ran: bool,
    /// Why the pixel channel did not run although the channel asked for it (models not
    /// installed, screenshot failed, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pixel_note: Option<String>,
    /// Regions handed to the pixel channel.
    pub regions: usize,
    /// Elements the tree channel gave.
    pub tree_elements: usize,
    /// Elements OCR added (after fusion).
    pub ocr_elements: usize,
    /// Elements vision anchors added (after fusion).
    pub vision_elements: usize,
    /// Building the tree channel's list (clean, cluster, occlusion, order), ms.
    pub build_ms: f64,
    /// Screenshot decode + OCR + anchors + fusion, ms (0 when the pixel channel did not run).
    pub pixel_ms: f64,
}

impl Perceived {
    /// What the pixel channel did, one clause: `pixel channel read 1 region(s): +3 ocr, +0
    /// vision in 412 ms`, `pixel channel off: …`, or `None` when it was not asked for.
    pub fn pixel_summary(&self) -> Option<String> {
        if self.pixel_ran {
            Some(format!(
                "pixel channel read {} region(s): +{} ocr, +{} vision in {:.0} ms",
                self.regions, self.ocr_elements, self.vision_elements, self.pixel_ms
            ))
        } else {
            self.pixel_note
                .as_ref()
                .map(|n| format!("pixel channel off: {n}"))
        }
    }

    /// One line for reports and logs: `<channel> (<arbiter's reason>)[; <pixel summary>]`.
    pub fn summary(&self) -> String {
        match self.pixel_summary() {
            Some(p) => format!("{} ({}); {p}", self.channel, self.reason),
            None => format!("{} ({})", self.channel, self.reason),
        }
    }
}
