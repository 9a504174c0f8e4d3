//! Arbitration between the tree channel and the pixel channel: a small pure state machine
//! with hysteresis, fed once per observed frame.
//!
//! States ([`ArbState`]) and what each asks for ([`Channel`]):
//! - **tree-dominant** → [`Channel::Tree`]: the tree alone;
//! - **tree-unstable** → [`Channel::TreeAndRegions`]: the tree plus pixel channel on the
//!   regions it does not cover ([`crate::regions`]) — after one re-read of the tree
//!   ([`Decision::wants_reread`], [`Arbiter::reread`]): a re-read that comes back healthy
//!   is used alone and no OCR is paid for;
//! - **pixel-fallback** → [`Channel::Pixel`]: full-screen OCR and anchors, the tree as a hint.
//!
//! Each frame is graded from its [`FrameSignals`]:
//! - **blank**: the device says nothing has been loaded yet ([`FrameSignals::blank`]: a
//!   browser tab before its first navigation, `about:blank`, an empty new tab) and the tree
//!   is empty. Neutral: it counts towards no streak, changes no state and is perceived from
//!   the tree alone — there is nothing on it for pixels to read, and it is no evidence that
//!   the tree of the page to come is missing;
//! - **severe**: no elements at all, or opaque content (canvas / SurfaceView / empty WebView)
//!   covering ≥ [`ArbParams::severe_opaque_fraction`] of the screen;
//! - **weak**: fewer elements than [`ArbParams::few_fraction`] × the median element count of
//!   the last healthy frames, or opaque content ≥ [`ArbParams::weak_opaque_fraction`], or the
//!   tree unchanged for ≥ [`ArbParams::stale_frames`] frames while the screen changed;
//! - **healthy** otherwise (only healthy frames enter the element-count history).
//!
//! Transitions (streaks count consecutive frames; a transition resets them):
//! - any state → dominant on one healthy frame: a healthy tree is trusted at once;
//! - dominant → pixel after [`ArbParams::enter`] severe frames, dominant → unstable after
//!   `enter` weak-or-severe frames; while no healthy frame has been seen yet (a fresh arbiter:
//!   a run that starts on a terminal or a game), [`ArbParams::cold_enter`] severe frames are
//!   enough — there is no evidence the tree ever worked, and a first `assert screen contains`
//!   must not be answered from an empty tree (a blank frame is no such evidence either way);
//! - unstable → pixel after `enter` severe frames, or after 2 × `enter` weak-or-severe frames;
//! - pixel → unstable after [`ArbParams::recover`] weak (not severe) frames.
//!
//! So hysteresis applies only between the unhealthy states and on the way out of
//! tree-dominant: one odd frame never leaves it, and alternating good/bad frames keep it
//! there.

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
    /// The device reports that nothing has been loaded yet (a browser tab before its first
    /// navigation: `about:blank`, an empty new tab). With no elements the frame is graded
    /// blank (neutral); a blank page whose tree has elements (content written by a script)
    /// is graded as usual.
    pub blank: bool,
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

    fn channel(self) -> Channel {
        match self {
            ArbState::TreeDominant => Channel::Tree,
            ArbState::TreeUnstable => Channel::TreeAndRegions,
            ArbState::PixelFallback => Channel::Pixel,
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
    /// Why, one line (e.g. `tree-unstable: weak frame, 12 elements vs recent median 80 (2 in
    /// a row)`).
    pub reason: String,
    /// Whether this decision is for a re-read of the frame ([`Arbiter::reread`]).
    pub reread: bool,
}

impl Decision {
    /// Whether the caller should read the tree once more before paying for the pixel
    /// channel: the tree is unstable ([`Channel::TreeAndRegions`]) and this is not already
    /// the re-read.
    pub fn wants_reread(&self) -> bool {
        self.channel == Channel::TreeAndRegions && !self.reread
    }
}

/// Thresholds and hysteresis lengths.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArbParams {
    /// Bad frames needed to leave a state towards pixels.
    pub enter: u32,
    /// Weak (not severe) frames in a row that step pixel-fallback back to tree-unstable (a
    /// healthy frame returns to tree-dominant at once).
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
    Blank,
    Healthy,
    Weak,
    Severe,
}

impl Grade {
    fn as_str(self) -> &'static str {
        match self {
            Grade::Blank => "blank",
            Grade::Healthy => "healthy",
            Grade::Weak => "weak",
            Grade::Severe => "severe",
        }
    }
}

/// The state machine. Start with [`Arbiter::new`]; call [`Arbiter::observe`] per frame, and
/// [`Arbiter::reread`] when the decision [wants a re-read](Decision::wants_reread).
#[derive(Debug, Clone)]
pub struct Arbiter {
    params: ArbParams,
    state: ArbState,
    /// State before the last observed frame (what "switched" is measured against, also
    /// across its re-read).
    before: ArbState,
    history: VecDeque<usize>,
    bad: u32,
    severe: u32,
    weak: u32,
    good: u32,
}

impl Arbiter {
    /// Starts tree-dominant with no history.
    pub fn new(params: ArbParams) -> Arbiter {
        Arbiter {
            params,
            state: ArbState::TreeDominant,
            before: ArbState::TreeDominant,
            history: VecDeque::new(),
            bad: 0,
            severe: 0,
            weak: 0,
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
        let opaque = || {
            format!(
                "opaque content covers {:.0}% of the screen",
                f.opaque_fraction * 100.0
            )
        };
        if f.elements == 0 {
            if f.blank {
                return (Grade::Blank, "nothing loaded yet".into());
            }
            return (Grade::Severe, "no elements in the tree".into());
        }
        if f.opaque_fraction >= p.severe_opaque_fraction {
            return (Grade::Severe, opaque());
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
            return (Grade::Weak, opaque());
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

    /// Updates the streaks and the element-count history for one graded frame.
    fn count(&mut self, grade: Grade, elements: usize) {
        match grade {
            Grade::Blank => {}
            Grade::Healthy => {
                self.good += 1;
                self.bad = 0;
                self.severe = 0;
                self.weak = 0;
                self.history.push_back(elements);
                while self.history.len() > self.params.history {
                    self.history.pop_front();
                }
            }
            Grade::Weak => {
                self.good = 0;
                self.bad += 1;
                self.weak += 1;
                self.severe = 0;
            }
            Grade::Severe => {
                self.good = 0;
                self.bad += 1;
                self.severe += 1;
                self.weak = 0;
            }
        }
    }

    /// The state the streaks call for after a frame of `grade`, if it differs.
    fn next_state(&self, grade: Grade) -> Option<ArbState> {
        let p = self.params;
        let cold = self.history.is_empty();
        match (self.state, grade) {
            (_, Grade::Blank) => None,
            (ArbState::TreeDominant, Grade::Healthy) => None,
            (_, Grade::Healthy) => Some(ArbState::TreeDominant),
            (ArbState::TreeDominant, _) if cold && self.severe >= p.cold_enter => {
                Some(ArbState::PixelFallback)
            }
            (ArbState::TreeDominant, _) if self.severe >= p.enter => Some(ArbState::PixelFallback),
            (ArbState::TreeDominant, _) if self.bad >= p.enter => Some(ArbState::TreeUnstable),
            (ArbState::TreeUnstable, _) if self.severe >= p.enter || self.bad >= 2 * p.enter => {
                Some(ArbState::PixelFallback)
            }
            (ArbState::PixelFallback, Grade::Weak) if self.weak >= p.recover => {
                Some(ArbState::TreeUnstable)
            }
            _ => None,
        }
    }

    /// Moves to `next` (resetting the streaks) when given.
    fn switch(&mut self, next: Option<ArbState>) {
        if let Some(n) = next {
            self.state = n;
            self.bad = 0;
            self.severe = 0;
            self.weak = 0;
            self.good = 0;
        }
    }

    /// The decision for a frame of `grade` (streak `streak`), in the current state.
    fn decision(&self, grade: Grade, why: &str, streak: u32, reread: bool) -> Decision {
        let (channel, tail) = match grade {
            // Nothing to read on a blank page, whatever the state.
            Grade::Blank if self.state != ArbState::TreeDominant => {
                (Channel::Tree, "; tree only for this frame".to_string())
            }
            Grade::Blank => (Channel::Tree, String::new()),
            _ => (self.state.channel(), format!(" ({streak} in a row)")),
        };
        let reason = format!(
            "{}{}: {} frame{}, {why}{tail}",
            self.state.as_str(),
            if self.state != self.before {
                " (switched)"
            } else {
                ""
            },
            grade.as_str(),
            if reread { " on re-read" } else { "" },
        );
        Decision {
            state: self.state,
            channel,
            reason,
            reread,
        }
    }

    fn streak(&self, grade: Grade) -> u32 {
        match grade {
            Grade::Blank => 0,
            Grade::Healthy => self.good,
            Grade::Weak | Grade::Severe => self.bad,
        }
    }

    /// Feeds one frame and returns the decision for it.
    pub fn observe(&mut self, f: &FrameSignals) -> Decision {
        self.before = self.state;
        let (grade, why) = self.grade(f);
        self.count(grade, f.elements);
        let next = self.next_state(grade);
        let streak = self.streak(grade);
        self.switch(next);
        self.decision(grade, &why, streak, false)
    }

    /// Feeds a second read of the tree of the frame last given to [`Arbiter::observe`]
    /// (asked for by [`Decision::wants_reread`]) and returns the decision that replaces the
    /// first one. A healthy re-read counts as a healthy frame (back to tree-dominant, tree
    /// only); any other re-read confirms the first decision without counting as another
    /// bad frame.
    pub fn reread(&mut self, f: &FrameSignals) -> Decision {
        let (grade, why) = self.grade(f);
        if grade == Grade::Healthy {
            self.count(grade, f.elements);
            let streak = self.streak(grade);
            let next = self.next_state(grade);
            self.switch(next);
            return self.decision(grade, &why, streak, true);
        }
        self.decision(grade, &why, self.streak(grade), true)
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
    fn few_nodes_go_unstable_then_pixel_and_stay_there_while_weak() {
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
        // two more weak frames stay in pixels; the third steps back to unstable only
        assert_eq!(run(&mut a, &[frame(10); 3]), vec![P, P, U]);
    }

    #[test]
    fn canvas_and_empty_tree_go_straight_to_pixels() {
        let mut a = Arbiter::new(ArbParams::default());
        run(&mut a, &[frame(40); 3]);
        let canvas = FrameSignals {
            elements: 3,
            opaque_fraction: 0.8,
            ..FrameSignals::default()
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
            ..FrameSignals::default()
        };
        assert_eq!(run(&mut b, &[half, half]), vec![D, U]);
    }

    #[test]
    fn a_stale_tree_makes_it_unstable() {
        let mut a = Arbiter::new(ArbParams::default());
        let stale = |n| FrameSignals {
            elements: 40,
            unchanged_frames: n,
            ..FrameSignals::default()
        };
        assert_eq!(
            run(&mut a, &[stale(1), stale(2), stale(3), stale(4)]),
            vec![D, D, D, U]
        );
    }

    fn blank() -> FrameSignals {
        FrameSignals {
            blank: true,
            ..FrameSignals::default()
        }
    }

    #[test]
    fn a_healthy_frame_returns_to_the_tree_at_once() {
        // the quickstart's first two actions: an empty first frame, then a healthy page
        let mut a = Arbiter::new(ArbParams::default());
        assert_eq!(a.observe(&frame(0)).channel, Channel::Pixel);
        let d = a.observe(&frame(17));
        assert_eq!((d.state, d.channel), (D, Channel::Tree));
        assert!(
            d.reason
                .starts_with("tree-dominant (switched): healthy frame, 17 elements"),
            "{}",
            d.reason
        );
        // from tree-unstable too
        let mut b = Arbiter::new(ArbParams::default());
        run(&mut b, &[frame(80); 4]);
        assert_eq!(run(&mut b, &[frame(10), frame(10)]), vec![D, U]);
        assert_eq!(b.observe(&frame(80)).channel, Channel::Tree);
    }

    #[test]
    fn a_blank_page_before_the_first_navigation_never_switches_to_pixels() {
        let mut a = Arbiter::new(ArbParams::default());
        for _ in 0..5 {
            let d = a.observe(&blank());
            assert_eq!((d.state, d.channel), (D, Channel::Tree));
            assert_eq!(
                d.reason, "tree-dominant: blank frame, nothing loaded yet",
                "{}",
                d.reason
            );
        }
        // blank frames are no evidence either way: an empty page after them is still a
        // cold start, and a healthy one is trusted
        let mut b = a.clone();
        assert_eq!(a.observe(&frame(0)).state, P);
        assert_eq!(b.observe(&frame(17)).channel, Channel::Tree);
        // in pixel-fallback, a blank frame is read from the tree and changes nothing
        let d = a.observe(&blank());
        assert_eq!((d.state, d.channel), (P, Channel::Tree));
        assert!(
            d.reason.ends_with("tree only for this frame"),
            "{}",
            d.reason
        );
        assert_eq!(a.observe(&frame(0)).state, P);
    }

    #[test]
    fn a_blank_page_with_content_is_graded_as_usual() {
        let mut a = Arbiter::new(ArbParams::default());
        let canvas = FrameSignals {
            elements: 2,
            opaque_fraction: 0.9,
            blank: true,
            ..FrameSignals::default()
        };
        assert_eq!(a.observe(&canvas).state, P);
    }

    #[test]
    fn an_unstable_tree_is_read_again_and_a_healthy_reread_skips_the_pixels() {
        let mut a = Arbiter::new(ArbParams::default());
        run(&mut a, &[frame(80); 4]);
        assert!(!a.observe(&frame(80)).wants_reread());
        assert!(!a.observe(&frame(10)).wants_reread(), "one odd frame: tree");
        let d = a.observe(&frame(10));
        assert_eq!(d.channel, Channel::TreeAndRegions);
        assert!(d.wants_reread());
        let d = a.reread(&frame(78));
        assert_eq!((d.state, d.channel, d.reread), (D, Channel::Tree, true));
        assert!(!d.wants_reread());
        assert_eq!(
            d.reason,
            "tree-dominant: healthy frame on re-read, 78 elements (1 in a row)"
        );
    }

    #[test]
    fn a_weak_reread_keeps_the_regions_and_is_not_counted_twice() {
        let mut a = Arbiter::new(ArbParams::default());
        run(&mut a, &[frame(80); 4]);
        run(&mut a, &[frame(10), frame(10)]);
        assert_eq!(a.state(), U);
        let d = a.reread(&frame(12));
        assert_eq!((d.state, d.channel), (U, Channel::TreeAndRegions));
        assert!(!d.wants_reread());
        assert!(
            d.reason.starts_with(
                "tree-unstable (switched): weak frame on re-read, 12 elements vs recent median 80"
            ),
            "{}",
            d.reason
        );
        // four weak frames, each read twice, still take four frames to reach pixels
        let mut states = Vec::new();
        for _ in 0..4 {
            let d = a.observe(&frame(10));
            states.push(if d.wants_reread() {
                a.reread(&frame(10)).state
            } else {
                d.state
            });
        }
        assert_eq!(states, vec![U, U, U, P]);
        // full-screen pixels: no re-read asked
        assert!(!a.observe(&frame(0)).wants_reread());
    }
}
