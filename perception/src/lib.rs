//! Argus perception: what a device shows → one numbered element list a planner can act on.
//!
//! Pure library (no network, no devices). The flow for every platform is:
//!
//! 1. a platform normalizer ([`cdp`], …) turns the platform's tree into a [`tree::Tree`] of
//!    [`tree::Node`]s with tri-state properties ([`tree::Tri`]) and boxes in logical px;
//! 2. [`elements::build`] cleans it (ignored, invisible, zero-area, off-screen and empty
//!    layout-only nodes go), clusters it (an actionable node absorbs its descendants' text),
//!    converts boxes to device px through [`geometry::Screen`], and numbers what is left in
//!    reading order; the result is an [`Observation`].
//!
//! Element ids (`e1`, `e2`, …) are valid for one observation only.

pub mod cdp;
pub mod elements;
pub mod geometry;
pub mod role;
pub mod tree;

pub use elements::{build, Element, Observation};
pub use geometry::{Rect, Screen};
pub use role::Role;
pub use tree::{Node, NodeRef, Tree, Tri};
