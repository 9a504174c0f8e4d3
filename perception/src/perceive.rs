//! The per-frame perception stage, pure: a normalized tree and the screen geometry in, one
//! fused, numbered [`Observation`] out, with the arbiter's choice and reason attached
//! ([`Perceived`]). The caller (the worker) owns the I/O between the two halves:
//!
//! 1. [`plan`]: **build** the tree channel's element list ([`crate::elements::build`]), find
//!    the regions the tree cannot see ([`crate::regions`]), ask the [`Arbiter`] which channel
//!    to trust for this frame and return the regions the **pixel** channel should read
//!    (none for [`Channel::Tree`], the uncovered / opaque regions for
//!    [`Channel::TreeAndRegions`], the whole screen for [`Channel::Pixel`]);
//! 2. when the tree is unstable ([`Channel::TreeAndRegions`]) the caller reads the tree once
//!    more and calls [`reread`]: a healthy re-read is perceived from the tree alone, so OCR is
//!    paid for only where the tree stays missing or unstable;
//! 3. the caller takes a screenshot only when regions were asked for, and runs the pixel
//!    channel on them (`crate::pixel`, feature `ocr`: OCR + vision anchors);
//! 4. [`finish`]: **fuse** the pixel candidates into the tree's list by IoU
//!    ([`crate::fusion::fuse`], tree first), renumber in reading order with neighbours, and
//!    record what happened in [`Observation::perceived`].
//!
//! The tree channel costs no screenshot: a frame whose tree is healthy is perceived from
//! the tree alone.

use std::time::Instant;

use crate::arbitration::{Arbiter, Channel, Decision, FrameSignals};
use crate::elements::build;
use crate::fusion::{fuse, PixelCandidate, DEFAULT_IOU_THRESHOLD};
use crate::geometry::{Rect, Screen};
use crate::observation::{Observation, Source};
pub use crate::perceived::Perceived;
use crate::regions::{pixel_regions, RegionParams, RegionReason};
use crate::tree::Tree;

/// The first half of a frame: the tree's element list, the arbiter's decision and the
/// regions (device px) the pixel channel should read.
#[derive(Debug, Clone)]
pub struct FramePlan {
    /// The tree channel's observation.
    pub obs: Observation,
    /// The arbiter's decision for this frame.
    pub decision: Decision,
    /// Regions for the pixel channel, device px; empty for [`Channel::Tree`].
    pub regions: Vec<Rect>,
    /// Building the tree channel's list, ms.
    pub build_ms: f64,
}

/// What the pixel channel did for a frame.
#[derive(Debug, Clone, PartialEq)]
pub enum PixelResult {
    /// Not asked for (no regions).
    NotAsked,
    /// Asked for but not run; why, for the record.
    Skipped(String),
    /// Ran: its candidates (device px) and its time (ms, screenshot decode included).
    Ran {
        /// OCR and vision candidates.
        candidates: Vec<PixelCandidate>,
        /// Time spent, ms.
        ms: f64,
    },
}

/// Fraction 0..=1 of the screen covered by opaque-node regions.
fn opaque_fraction(regions: &[crate::regions::PixelRegion], screen: &Screen) -> f64 {
    let (w, h) = screen.device_size();
    let area = f64::from(w) * f64::from(h);
    if area <= 0.0 {
        return 0.0;
    }
    let opaque: f64 = regions
        .iter()
        .filter(|r| matches!(r.reason, RegionReason::OpaqueNode(_)))
        .map(|r| r.rect.area())
        .sum();
    (opaque / area).clamp(0.0, 1.0)
}

/// What the device knows about a frame beyond its tree, for the arbiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FrameHints {
    /// The arbiter's stale-tree signal ([`FrameSignals::unchanged_frames`]; 0 when unknown).
    pub unchanged_frames: u32,
    /// Nothing loaded yet: a browser tab before its first navigation
    /// ([`FrameSignals::blank`]; `false` when unknown).
    pub blank: bool,
}

/// The tree channel's list for one read of the tree, its pixel regions and its signals.
struct Read {
    obs: Observation,
    regions: Vec<crate::regions::PixelRegion>,
    signals: FrameSignals,
    build_ms: f64,
}

fn read(tree: &Tree, screen: Screen, serial: u64, hints: FrameHints) -> Read {
    let t0 = Instant::now();
    let obs = build(tree, screen, serial);
    let build_ms = t0.elapsed().as_secs_f64() * 1e3;
    let regions = pixel_regions(tree, &obs, &RegionParams::default());
    let signals = FrameSignals {
        elements: obs.elements.len(),
        opaque_fraction: opaque_fraction(&regions, &screen),
        unchanged_frames: hints.unchanged_frames,
        blank: hints.blank,
    };
    Read {
        obs,
        regions,
        signals,
        build_ms,
    }
}

/// The plan for `read` under `decision`: the regions its channel asks for.
fn frame_plan(read: Read, decision: Decision, build_ms: f64) -> FramePlan {
    let regions = match decision.channel {
        Channel::Tree => Vec::new(),
        Channel::TreeAndRegions => read.regions.into_iter().map(|r| r.rect).collect(),
        Channel::Pixel => {
            let (w, h) = read.obs.screen.device_size();
            vec![Rect::new(0.0, 0.0, f64::from(w), f64::from(h))]
        }
    };
    FramePlan {
        obs: read.obs,
        decision,
        regions,
        build_ms,
    }
}

/// Builds the tree channel's list for `tree`, asks `arbiter` about the frame and returns the
/// regions for the pixel channel (see the module docs). When the plan's decision
/// [wants a re-read](Decision::wants_reread), the caller reads the tree once more and calls
/// [`reread`] before running the pixel channel.
pub fn plan(
    tree: &Tree,
    screen: Screen,
    serial: u64,
    arbiter: &mut Arbiter,
    hints: FrameHints,
) -> FramePlan {
    let r = read(tree, screen, serial, hints);
    let decision = arbiter.observe(&r.signals);
    let build_ms = r.build_ms;
    frame_plan(r, decision, build_ms)
}

/// The second read of an unstable frame ([`Arbiter::reread`]): builds `tree` (read again)
/// under the first plan's serial and replaces `first`. A healthy re-read is perceived from
/// the tree alone; otherwise the pixel channel reads the regions the re-read tree misses
/// (uncovered or opaque). `build_ms` adds both builds.
pub fn reread(
    first: &FramePlan,
    tree: &Tree,
    screen: Screen,
    arbiter: &mut Arbiter,
    hints: FrameHints,
) -> FramePlan {
    let r = read(tree, screen, first.obs.serial, hints);
    let decision = arbiter.reread(&r.signals);
    let build_ms = first.build_ms + r.build_ms;
    frame_plan(r, decision, build_ms)
}

/// Fuses the pixel channel's result into the plan's observation (tree first, IoU dedupe,
/// renumbered) and records the decision in [`Observation::perceived`].
pub fn finish(plan: FramePlan, pixel: PixelResult) -> Observation {
    let tree_elements = plan.obs.elements.len();
    let mut p = Perceived {
        state: plan.decision.state.as_str().to_string(),
        channel: plan.decision.channel.as_str().to_string(),
        reason: plan.decision.reason.clone(),
        regions: plan.regions.len(),
        tree_elements,
        build_ms: plan.build_ms,
        ..Perceived::default()
    };
    let mut obs = match pixel {
        PixelResult::NotAsked => plan.obs,
        PixelResult::Skipped(why) => {
            p.pixel_note = Some(why);
            plan.obs
        }
        PixelResult::Ran { candidates, ms } => {
            let t0 = Instant::now();
            let fused = fuse(&plan.obs, &candidates, DEFAULT_IOU_THRESHOLD);
            p.pixel_ran = true;
            p.pixel_ms = ms + t0.elapsed().as_secs_f64() * 1e3;
            p.ocr_elements = fused
                .elements
                .iter()
                .filter(|e| e.source == Source::Ocr)
                .count();
            p.vision_elements = fused
                .elements
                .iter()
                .filter(|e| e.source == Source::Vision)
                .count();
            fused
        }
    };
    obs.perceived = p;
    obs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arbitration::ArbParams;
    use crate::fusion::PixelKind;

    #[test]
    fn an_empty_tree_asks_for_the_whole_screen_and_fuses_ocr_text() {
        let mut arb = Arbiter::new(ArbParams::default());
        let screen = Screen::from_device_px(640.0, 400.0, 1.0);
        let plan = plan(&Tree::default(), screen, 3, &mut arb, FrameHints::default());
        assert_eq!(plan.decision.channel, Channel::Pixel);
        assert_eq!(plan.regions, vec![Rect::new(0.0, 0.0, 640.0, 400.0)]);
        let obs = finish(
            plan,
            PixelResult::Ran {
                candidates: vec![PixelCandidate {
                    bbox_px: Rect::new(10.0, 20.0, 120.0, 16.0),
                    text: "hello-argus".into(),
                    kind: PixelKind::Ocr,
                    confidence: 0.97,
                }],
                ms: 5.0,
            },
        );
        assert_eq!(obs.serial, 3);
        assert!(obs.contains_text("hello-argus"), "{}", obs.text);
        assert_eq!(obs.elements.len(), 1);
        assert_eq!(obs.elements[0].id, "e1");
        assert_eq!(obs.elements[0].source, Source::Ocr);
        assert_eq!(obs.perceived.channel, "pixel");
        assert_eq!(obs.perceived.ocr_elements, 1);
        assert!(obs.perceived.pixel_ran);
        assert!(
            obs.perceived.reason.contains("no elements in the tree"),
            "{}",
            obs.perceived.reason
        );
    }

    #[test]
    fn a_skipped_pixel_channel_says_why() {
        let mut arb = Arbiter::new(ArbParams::default());
        let screen = Screen::from_device_px(640.0, 400.0, 1.0);
        let plan = plan(&Tree::default(), screen, 1, &mut arb, FrameHints::default());
        let obs = finish(plan, PixelResult::Skipped("models not installed".into()));
        assert!(obs.elements.is_empty());
        assert!(!obs.perceived.pixel_ran);
        assert!(
            obs.perceived
                .summary()
                .ends_with("pixel channel off: models not installed"),
            "{}",
            obs.perceived.summary()
        );
    }

    /// A page of `n` named buttons in a column (CSS px = device px).
    fn page(n: usize) -> Tree {
        use crate::role::Role;
        use crate::tree::Node;
        let mut tree = Tree::default();
        let mut root = Node::new(Role::Other, "RootWebArea", "");
        root.bounds = Some(Rect::new(0.0, 0.0, 640.0, 400.0));
        let r = tree.push(root, None);
        for i in 0..n {
            let mut b = Node::new(Role::Button, "button", &format!("item {i}"));
            b.bounds = Some(Rect::new(10.0, 10.0 + 20.0 * i as f64, 200.0, 16.0));
            tree.push(b, Some(r));
        }
        tree
    }

    #[test]
    fn a_blank_page_is_perceived_from_the_tree_without_pixels() {
        let mut arb = Arbiter::new(ArbParams::default());
        let screen = Screen::from_device_px(640.0, 400.0, 1.0);
        let hints = FrameHints {
            blank: true,
            ..FrameHints::default()
        };
        let plan = plan(&Tree::default(), screen, 1, &mut arb, hints);
        assert_eq!(plan.decision.channel, Channel::Tree);
        assert!(plan.regions.is_empty());
        let obs = finish(plan, PixelResult::NotAsked);
        assert_eq!(obs.perceived.channel, "tree");
        assert!(
            obs.perceived.reason.contains("blank frame"),
            "{}",
            obs.perceived.reason
        );
    }

    #[test]
    fn an_unstable_frame_read_again_healthy_asks_for_no_regions() {
        let mut arb = Arbiter::new(ArbParams::default());
        let screen = Screen::from_device_px(640.0, 400.0, 1.0);
        let h = FrameHints::default();
        for serial in 0..4 {
            let p = plan(&page(16), screen, serial, &mut arb, h);
            assert_eq!(p.decision.channel, Channel::Tree);
        }
        plan(&page(2), screen, 4, &mut arb, h);
        let first = plan(&page(2), screen, 5, &mut arb, h);
        assert!(first.decision.wants_reread());
        assert!(!first.regions.is_empty());
        let again = reread(&first, &page(16), screen, &mut arb, h);
        assert_eq!(again.obs.serial, 5);
        assert_eq!(again.decision.channel, Channel::Tree);
        assert!(again.regions.is_empty());
        assert_eq!(again.obs.elements.len(), 16);
        // still thin on the re-read: the regions of the re-read tree
        plan(&page(2), screen, 6, &mut arb, h);
        let first = plan(&page(2), screen, 7, &mut arb, h);
        let again = reread(&first, &page(3), screen, &mut arb, h);
        assert_eq!(again.decision.channel, Channel::TreeAndRegions);
        assert!(!again.decision.wants_reread());
        assert!(!again.regions.is_empty());
        assert_eq!(again.obs.elements.len(), 3);
    }
}
