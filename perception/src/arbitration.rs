//! Arbitration between the tree channel and the pixel channel: a small pure state machine
//! with hysteresis, fed once per observed frame.
//!
//! States ([`ArbState`]) and what each asks for ([`Channel`]):
//! - **tree-dominant** → [`Channel::Tree`]: the tree alone;
//! - **tree-unstable** → [`Channel::TreeAndRegions`]: the tree plus pixel channel on the
//!   regions it does not cover ([`crate::regions`]);
//! - **pixel-fallback** → [`Channel::Pixel`]: full-screen OCR and anchors, the tree as a hint.
//!
//! Each frame is graded from its [`FrameSignals`]:
//! - **severe**: no elements at all, or opaque content (canvas / SurfaceView / empty WebView)
//!   covering ≥ [`ArbParams::severe_opaque_fraction`] of the screen;
//! - **weak**: fewer elements than [`ArbParams::few_fraction`] × the median element count of
//!   the last healthy frames, or opaque content ≥ [`ArbParams::weak_opaque_fraction`], or the
//!   tree unchanged for ≥ [`ArbParams::stale_frames`] frames while the screen changed;
//! - **healthy** otherwise (only healthy frames enter the element-count history).
//!
//! Transitions (streaks count consecutive frames; a transition resets them):
//! - dominant → pixel after [`ArbParams::enter`] severe frames, dominant → unstable after
//!   `enter` weak-or-severe frames; while no healthy frame has been seen yet (a fresh arbiter:
//!   a run that starts on a terminal or a game), [`ArbParams::cold_enter`] severe frames are
//!   enough — there is no evidence the tree ever worked, and a first `assert screen contains`
//!   must not be answered from an empty tree;
//! - unstable → pixel after `enter` severe frames, or after 2 × `enter` weak-or-severe frames;
//! - unstable → dominant after [`ArbParams::recover`] healthy frames;
//! - pixel → unstable after `recover` healthy frames (so returning to dominant takes at
//!   least 2 × `recover` healthy frames).
//!
//! One odd frame never flips the channel, and alternating good/bad frames keep it where it is.

use std::collections::VecDeque;

/// Per-frame inputs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrameSignals {
    /// Elements in the observation (tree channel only).
    pub elements: usize,
    /// Fraction 0..=1 of the screen covered by opaque nodes (canvas, SurfaceView, empty
    /// WebView — [`crate::regions::RegionReason::OpaqueNode`] regions).
    pub opaque_fraction: f64,
    /// Consecutive frames (including this one) whose tree did not change although the
    /// screenshot did; 0 when the tree changed or the screen did not.
    pub unchanged_frames: u32,
}

/// The three states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArbState {
    /// The tree is trusted alone.
    TreeDominant,
    /// The tree is suspect: add the pixel channel where it is blind.
    TreeUnstable,
    /// The tree is useless: perceive from pixels.
    PixelFallback,
}

impl ArbState {
    /// Kebab-case name: `tree-dominant`, `tree-unstable`, `pixel-fallback`.
    pub fn as_str(self) -> &'static str {
        match self {
            ArbState::TreeDominant => "tree-dominant",
            ArbState::TreeUnstable => "tree-unstable",
            ArbState::PixelFallback => "pixel-fallback",
        }
    }
}

/// What to run for this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// Tree only.
    Tree,
    /// Tree plus region-only OCR / anchors.
    TreeAndRegions,
    /// Full-screen pixel channel.
    Pixel,
}

impl Channel {
    /// Stable name for records and reports: `tree`, `tree+regions`, `pixel`.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Tree => "tree",
            Channel::TreeAndRegions => "tree+regions",
            Channel::Pixel => "pixel",
        }
    }
}

/// The decision for one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// State after this frame.
    pub state: ArbState,
    /// Channel to use.
    pub channel: Channel,
    /// Why, one line (e.g. `tree-unstable: 12 elements vs median 80 (2 frames)`).
    pub reason: String,
}

/// Thresholds and hysteresis lengths.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArbParams {
    /// Bad frames needed to leave a state towards pixels.
    pub enter: u32,
    /// Healthy frames needed to step back towards the tree.
    pub recover: u32,
    /// "Few nodes": below this fraction of the recent median.
    pub few_fraction: f64,
    /// Opaque fraction that makes a frame weak.
    pub weak_opaque_fraction: f64,
    /// Opaque fraction that makes a frame severe.
    pub severe_opaque_fraction: f64,
    /// Unchanged-tree frames that make a frame weak.
    pub stale_frames: u32,
    /// Healthy element counts remembered.
    pub history: usize,
    /// Severe frames needed to leave tree-dominant for pixels before any healthy frame.
    pub cold_enter: u32,
}

impl Default for ArbParams {
    /// enter 2, recover 3, few 0.5, weak opaque 0.15, severe opaque 0.6, stale 3, history 8,
    /// cold enter 1.
    fn default() -> Self {
        ArbParams {
            enter: 2,
            recover: 3,
            few_fraction: 0.5,
            weak_opaque_fraction: 0.15,
            severe_opaque_fraction: 0.6,
            stale_frames: 3,
            history: 8,
            cold_enter: 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grade {
    Healthy,
    Weak,
    Severe,
}

/// The state machine. Start with [`Arbiter::new`]; call [`Arbiter::observe`] per frame.
#[derive(Debug, Clone)]
pub struct Arbiter {
    params: ArbParams,
    state: ArbState,
    history: VecDeque<usize>,
    bad: u32,
    severe: u32,
    good: u32,
}

impl Arbiter {
    /// Starts tree-dominant with no history.
    pub fn new(params: ArbParams) -> Arbiter {
        Arbiter {
            params,
            state: ArbState::TreeDominant,
            history: VecDeque::new(),
            bad: 0,
            severe: 0,
            good: 0,
        }
    }

    /// Current state.
    pub fn state(&self) -> ArbState {
        self.state
    }

    fn median(&self) -> Option<usize> {
        let mut v: Vec<usize> = self.history.iter().copied().collect();
        if v.is_empty() {
            return None;
        }
        v.sort_unstable();
        Some(v[v.len() / 2])
    }

    fn grade(&self, f: &FrameSignals) -> (Grade, String) {
        let p = &self.params;
        if f.elements == 0 {
            return (Grade::Severe, "no elements in the tree".into());
        }
        if f.opaque_fraction >= p.severe_opaque_fraction {
            return (
                Grade::Severe,
                format!(
                    "opaque content covers {:.0}% of the screen",
                    f.opaque_fraction * 100.0
                ),
            );
        }
        if let Some(m) = self.median() {
            if (f.elements as f64) < p.few_fraction * m as f64 {
                return (
                    Grade::Weak,
                    format!("{} elements vs recent median {m}", f.elements),
                );
            }
        }
        if f.opaque_fraction >= p.weak_opaque_fraction {
            return (
                Grade::Weak,
                format!(
                    "opaque content covers {:.0}% of the screen",
                    f.opaque_fraction * 100.0
                ),
            );
        }
        if f.unchanged_frames >= p.stale_frames {
            return (
                Grade::Weak,
                format!(
                    "tree unchanged for {} frames while the screen changed",
                    f.unchanged_frames
                ),
            );
        }
        (Grade::Healthy, format!("{} elements", f.elements))
    }

    /// Feeds one frame and returns the decision for it.
    pub fn observe(&mut self, f: &FrameSignals) -> Decision {
        let (grade, why) = self.grade(f);
        match grade {
            Grade::Healthy => {
                self.good += 1;
                self.bad = 0;
                self.severe = 0;
                self.history.push_back(f.elements);
                while self.history.len() > self.params.history {
                    self.history.pop_front();
                }
            }
            Grade::Weak => {
                self.good = 0;
                self.bad += 1;
                self.severe = 0;
            }
            Grade::Severe => {
                self.good = 0;
                self.bad += 1;
                self.severe += 1;
            }
        }
        let p = self.params;
        let cold = self.history.is_empty();
        let next = match self.state {
            ArbState::TreeDominant if cold && self.severe >= p.cold_enter => {
                Some(ArbState::PixelFallback)
            }
            ArbState::TreeDominant if self.severe >= p.enter => Some(ArbState::PixelFallback),
            ArbState::TreeDominant if self.bad >= p.enter => Some(ArbState::TreeUnstable),
            ArbState::TreeUnstable if self.severe >= p.enter || self.bad >= 2 * p.enter => {
                Some(ArbState::PixelFallback)
            }
            ArbState::TreeUnstable if self.good >= p.recover => Some(ArbState::TreeDominant),
            ArbState::PixelFallback if self.good >= p.recover => Some(ArbState::TreeUnstable),
            _ => None,
        };
        let streak = match grade {
            Grade::Healthy => self.good,
            Grade::Weak | Grade::Severe => self.bad,
        };
        if let Some(n) = next {
            self.state = n;
            self.bad = 0;
            self.severe = 0;
            self.good = 0;
        }
        let channel = match self.state {
            ArbState::TreeDominant => Channel::Tree,
            ArbState::TreeUnstable => Channel::TreeAndRegions,
            ArbState::PixelFallback => Channel::Pixel,
        };
        let kind = match grade {
            Grade::Healthy => "healthy",
            Grade::Weak => "weak",
            Grade::Severe => "severe",
        };
        let reason = format!(
            "{}{}: {kind} frame, {why} ({streak} in a row)",
            self.state.as_str(),
            if next.is_some() { " (switched)" } else { "" },
        );
        Decision {
            state: self.state,
            channel,
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(elements: usize) -> FrameSignals {
        FrameSignals {
            elements,
            ..FrameSignals::default()
        }
    }

    fn run(a: &mut Arbiter, frames: &[FrameSignals]) -> Vec<ArbState> {
        frames.iter().map(|f| a.observe(f).state).collect()
    }

    use ArbState::{PixelFallback as P, TreeDominant as D, TreeUnstable as U};

    #[test]
    fn one_odd_frame_does_not_flip() {
        let mut a = Arbiter::new(ArbParams::default());
        let s = run(
            &mut a,
            &[
                frame(80),
                frame(80),
                frame(0),
                frame(80),
                frame(10),
                frame(80),
            ],
        );
        assert_eq!(s, vec![D, D, D, D, D, D]);
    }

    #[test]
    fn alternating_frames_keep_the_state() {
        let mut a = Arbiter::new(ArbParams::default());
        let mut frames = vec![frame(80); 4];
        for _ in 0..5 {
            frames.push(frame(5));
            frames.push(frame(80));
        }
        assert!(run(&mut a, &frames).iter().all(|&s| s == D));
    }

    #[test]
    fn few_nodes_go_unstable_then_pixel_then_recover_slowly() {
        let mut a = Arbiter::new(ArbParams::default());
        run(&mut a, &[frame(80); 4]);
        // few nodes vs the median 80: weak
        let d = a.observe(&frame(10));
        assert_eq!(d.state, D);
        let d = a.observe(&frame(10));
        assert_eq!((d.state, d.channel), (U, Channel::TreeAndRegions));
        assert!(
            d.reason.starts_with(
                "tree-unstable (switched): weak frame, 10 elements vs recent median 80"
            ),
            "{}",
            d.reason
        );
        // weak frames keep coming: pixel after 4 more
        assert_eq!(run(&mut a, &[frame(10); 4]), vec![U, U, U, P]);
        // a healthy frame or two is not enough
        assert_eq!(
            run(&mut a, &[frame(80), frame(80), frame(10)]),
            vec![P, P, P]
        );
        // three healthy → unstable, three more → dominant
        assert_eq!(run(&mut a, &[frame(80); 6]), vec![P, P, U, U, U, D]);
        assert_eq!(a.observe(&frame(80)).channel, Channel::Tree);
    }

    #[test]
    fn canvas_and_empty_tree_go_straight_to_pixels() {
        let mut a = Arbiter::new(ArbParams::default());
        run(&mut a, &[frame(40); 3]);
        let canvas = FrameSignals {
            elements: 3,
            opaque_fraction: 0.8,
            unchanged_frames: 0,
        };
        assert_eq!(run(&mut a, &[canvas, canvas]), vec![D, P]);
        let d = a.observe(&canvas);
        assert_eq!(d.channel, Channel::Pixel);
        assert!(
            d.reason.contains("opaque content covers 80%"),
            "{}",
            d.reason
        );
        let mut b = Arbiter::new(ArbParams::default());
        run(&mut b, &[frame(40); 3]);
        assert_eq!(run(&mut b, &[frame(0), frame(0)]), vec![D, P]);
    }

    #[test]
    fn a_run_that_starts_with_no_tree_goes_to_pixels_at_once() {
        let mut a = Arbiter::new(ArbParams::default());
        let d = a.observe(&frame(0));
        assert_eq!((d.state, d.channel), (P, Channel::Pixel));
        assert!(
            d.reason
                .starts_with("pixel-fallback (switched): severe frame, no elements in the tree"),
            "{}",
            d.reason
        );
        // a weak (not severe) first frame still waits for a second one
        let mut b = Arbiter::new(ArbParams::default());
        let half = FrameSignals {
            elements: 5,
            opaque_fraction: 0.3,
            unchanged_frames: 0,
        };
        assert_eq!(run(&mut b, &[half, half]), vec![D, U]);
    }

    #[test]
    fn a_stale_tree_makes_it_unstable() {
        let mut a = Arbiter::new(ArbParams::default());
        let stale = |n| FrameSignals {
            elements: 40,
            opaque_fraction: 0.0,
            unchanged_frames: n,
        };
        assert_eq!(
            run(&mut a, &[stale(1), stale(2), stale(3), stale(4)]),
            vec![D, D, D, U]
        );
    }
}
