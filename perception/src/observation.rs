//! What the device showed at one instant, perceived: an [`Observation`] of numbered
//! [`Element`]s. The data every stage (build, layout, regions, fusion, perceive) shares; it
//! sits below them all and imports none of them.

use serde::{Deserialize, Serialize};

use crate::geometry::{Rect, Screen};
use crate::perceived::Perceived;
use crate::role::Role;
use crate::text::{collapse_ws, contains_number_aware};
use crate::tree::{NodeRef, Tri};

/// Where an element came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The platform's accessibility / view tree.
    #[default]
    Tree,
    /// A text box found by OCR on the screenshot.
    Ocr,
    /// A box found by classical vision or an icon detector on the screenshot.
    Vision,
}

/// Ids of the nearest element on each side (filled when the list is numbered, `layout::number`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Neighbours {
    /// Nearest element to the left that shares some of this element's height.
    pub left: Option<String>,
    /// Nearest element to the right that shares some of this element's height.
    pub right: Option<String>,
    /// Nearest element above that shares some of this element's width.
    pub top: Option<String>,
    /// Nearest element below that shares some of this element's width.
    pub bottom: Option<String>,
}

/// One entry of the element list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Element {
    /// Per-observation id, `e1`, `e2`, … in reading order.
    pub id: String,
    /// Canonical role.
    pub role: Role,
    /// The platform's original role.
    pub platform_role: String,
    /// Accessible name, label or visible text (after clustering).
    pub name: String,
    /// Current value (text fields, sliders).
    pub value: Option<String>,
    /// Placeholder / hint.
    pub placeholder: Option<String>,
    pub checked: Tri,
    pub enabled: Tri,
    pub focused: Tri,
    pub editable: Tri,
    pub password: Tri,
    /// Selected (tab, list row).
    pub selected: Tri,
    /// Another node drawn above covers it ([`crate::occlusion`]): a tap at its centre would
    /// not reach it. Unknown for pixel-channel elements.
    pub covered: Tri,
    /// Visible box (clipped to the screen) in logical px.
    pub bbox_logical: Rect,
    /// Visible box in device px.
    pub bbox_px: Rect,
    /// Platform reference for acting on it.
    pub node_ref: NodeRef,
    /// The platform's stable id (Android `resource-id`, HarmonyOS `id`/`key`, WDA `name`,
    /// AT-SPI accessible id), when it has one.
    pub platform_id: Option<String>,
    /// Where the node sits in its tree: top-level node ordinal, then child indices
    /// ([`crate::tree::Tree::path`]); empty for pixel-channel elements.
    pub path: Vec<usize>,
    /// Which channel produced it.
    pub source: Source,
    /// Detector confidence 0..=1 for pixel-channel elements; `None` for tree elements.
    pub confidence: Option<f64>,
    /// Nearest elements on each side.
    pub neighbours: Neighbours,
}

impl Element {
    /// An element seen only in pixels (OCR text, a vision box, a model's point): no tree node,
    /// every state unknown, boxes in logical and device px as given; the id is set when the
    /// list is numbered.
    pub fn from_pixels(
        role: Role,
        platform_role: &str,
        name: String,
        bbox_logical: Rect,
        bbox_px: Rect,
        source: Source,
        confidence: Option<f64>,
    ) -> Element {
        Element {
            id: String::new(),
            role,
            platform_role: platform_role.to_string(),
            name,
            value: None,
            placeholder: None,
            checked: Tri::Unknown,
            enabled: Tri::Unknown,
            focused: Tri::Unknown,
            editable: Tri::Unknown,
            password: Tri::Unknown,
            selected: Tri::Unknown,
            covered: Tri::Unknown,
            bbox_logical,
            bbox_px,
            node_ref: NodeRef::None,
            platform_id: None,
            path: Vec::new(),
            source,
            confidence,
            neighbours: Neighbours::default(),
        }
    }

    /// Every text a step may name this element by: name, placeholder, value.
    pub fn labels(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str())
            .chain(self.placeholder.as_deref())
            .chain(self.value.as_deref())
            .filter(|s| !s.trim().is_empty())
    }

    /// Short one-line description for messages: `e3 button "Clear completed"`.
    pub fn describe(&self) -> String {
        let label = self
            .labels()
            .next()
            .map(|s| s.chars().take(40).collect::<String>())
            .unwrap_or_default();
        format!("{} {} {:?}", self.id, self.role.as_str(), label)
    }
}

/// What the device showed at one instant, perceived.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// Serial of this observation on its device; element ids are valid only with it.
    pub serial: u64,
    /// Screen geometry.
    pub screen: Screen,
    /// Elements in reading order.
    pub elements: Vec<Element>,
    /// All visible text in document order, whitespace-collapsed, one space between runs.
    pub text: String,
    /// Which channel the perception stage trusted for this frame and why (the `perceive`
    /// stage); empty when built by `elements::build` alone.
    #[serde(default)]
    pub perceived: Perceived,
}

impl Observation {
    /// Whether the visible text contains `needle` (case-insensitive, whitespace-collapsed).
    /// A needle that starts or ends with a digit matches only where the text has no digit
    /// right before or after it: "3 items left" is not found in "13 items left".
    pub fn contains_text(&self, needle: &str) -> bool {
        let n = collapse_ws(needle).to_lowercase();
        !n.is_empty() && contains_number_aware(&self.text.to_lowercase(), &n)
    }

    /// Element by id.
    pub fn element(&self, id: &str) -> Option<&Element> {
        self.elements.iter().find(|e| e.id == id)
    }
}
