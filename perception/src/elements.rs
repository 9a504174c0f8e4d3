//! Clean, cluster and number a normalized [`Tree`] into the element list of one
//! [`Observation`].
//!
//! - Clean: ignored nodes, nodes without a box, zero-area boxes and boxes entirely outside
//!   the screen are dropped; layout-only roles ([`Role::Other`], list items, dialogs without
//!   a name) never become elements.
//! - Cluster: an actionable node (button, link, checkbox …) or a heading absorbs its
//!   descendants' text: it gets their text as its name when it has none, and the text nodes
//!   under it are not listed separately.
//!   When an actionable node has no text below it, the names of images below it are used,
//!   then the labels of plain containers below it (a non-clickable Compose `View`'s
//!   `content-desc`). An unnamed checkbox, switch or radio takes its row's text,
//!   an unnamed text field the short label before it in its row ([`crate::row_label`]). A zero-size descendant (Compose's `[0,0][0,0]` merged texts) still names
//!   its visible control, though it is not screen text itself.
//! - Occlusion: each element's `covered` is decided by [`crate::occlusion`].
//! - Number: elements get ids `e1…` in reading order and their left/right/top/bottom
//!   neighbours ([`crate::layout`]).
//! - Text: the observation's text is every visible text run, typed (non-password) value and
//!   the own label of a control or heading that no text below it repeats, in document order —
//!   so `assert screen contains "Update now"` sees a button labelled only by its
//!   `content-desc`; a dialog named by a title inside it shows the title once.

use serde::{Deserialize, Serialize};

use crate::geometry::{Rect, Screen};
use crate::layout;
pub use crate::layout::ROW_TOLERANCE_PX;
use crate::occlusion;
use crate::role::Role;
use crate::row_label;
use crate::tree::{NodeRef, Tree, Tri};

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

/// Ids of the nearest element on each side (see [`crate::layout::neighbours`]).
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
    /// ([`Tree::path`]); empty for pixel-channel elements.
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
    /// Which channel the perception stage trusted for this frame and why
    /// ([`crate::perceive`]); empty when built by [`build`] alone.
    #[serde(default)]
    pub perceived: crate::perceive::Perceived,
}

/// `hay.contains(needle)`, except that a needle starting (ending) with a digit must not be
/// preceded (followed) by a digit in `hay`.
pub fn contains_number_aware(hay: &str, needle: &str) -> bool {
    let starts = needle.chars().next().is_some_and(|c| c.is_ascii_digit());
    let ends = needle.chars().last().is_some_and(|c| c.is_ascii_digit());
    if !starts && !ends {
        return hay.contains(needle);
    }
    hay.match_indices(needle).any(|(at, m)| {
        let before = hay[..at].chars().last().is_some_and(|c| c.is_ascii_digit());
        let after = hay[at + m.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit());
        !(starts && before || ends && after)
    })
}

/// Collapses runs of whitespace to one space and trims.
pub fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
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

/// Visible box per node in logical px (clipped to the screen); `None` for ignored nodes,
/// nodes without a box, zero-area boxes and boxes entirely off-screen.
pub fn visible_boxes(tree: &Tree, screen: &Screen) -> Vec<Option<Rect>> {
    let screen_rect = screen.logical_rect();
    tree.nodes
        .iter()
        .map(|node| {
            if node.ignored {
                return None;
            }
            let b = node.bounds?;
            if b.area() <= 0.0 {
                return None;
            }
            b.intersect(&screen_rect)
        })
        .collect()
}

/// Builds the observation from a normalized tree.
pub fn build(tree: &Tree, screen: Screen, serial: u64) -> Observation {
    let n = tree.nodes.len();
    let visible = visible_boxes(tree, &screen);

    // Nearest clustering ancestor (actionable or heading) of each node.
    let mut cluster_of: Vec<Option<usize>> = vec![None; n];
    for (slot, node) in cluster_of.iter_mut().zip(&tree.nodes) {
        let mut p = node.parent;
        while let Some(pi) = p {
            let r = tree.nodes[pi].role;
            if !tree.nodes[pi].ignored && (r.is_actionable() || r == Role::Heading) {
                *slot = Some(pi);
                break;
            }
            p = tree.nodes[pi].parent;
        }
    }
    // Absorbed text (and image names, as a fallback) per clustering node.
    let mut absorbed: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut absorbed_img: Vec<Vec<String>> = vec![Vec::new(); n];
    let mut absorbed_other: Vec<Vec<String>> = vec![Vec::new(); n];
    // (node index, text) in document order.
    let mut text_runs: Vec<(usize, String)> = Vec::new();
    for i in 0..n {
        let node = &tree.nodes[i];
        let shown = visible[i].is_some();
        // A zero-size child (Compose reports merged Text children as [0,0][0,0]) is not on the
        // screen itself, but still names the visible control it belongs to.
        let names_cluster = cluster_of[i].filter(|&c| {
            shown
                || (!node.ignored
                    && node.bounds.is_some_and(|b| b.area() <= 0.0)
                    && visible[c].is_some())
        });
        if !shown && names_cluster.is_none() {
            continue;
        }
        let named = !node.name.trim().is_empty();
        if node.role == Role::Text && named {
            if shown {
                text_runs.push((i, node.name.clone()));
            }
            if let Some(c) = names_cluster {
                absorbed[c].push(node.name.clone());
            }
        }
        if node.role == Role::Image && named {
            if let Some(c) = names_cluster {
                absorbed_img[c].push(node.name.clone());
            }
        }
        // A plain container's own label (a non-clickable Compose `View`'s `content-desc`).
        if node.role == Role::Other && named {
            if let Some(c) = names_cluster {
                absorbed_other[c].push(node.name.clone());
            }
        }
        if !shown {
            continue;
        }
        if node.role == Role::Textfield {
            if let Some(v) = node.value.as_ref().filter(|v| !v.is_empty()) {
                if !node.password.is_yes() {
                    text_runs.push((i, v.clone()));
                }
            }
        }
    }

    // A control or heading named by its own label (a clickable TextView, a `content-desc`, an
    // iOS `label`) shows that label on screen: it joins the text unless text below it already
    // says it.
    let mut own_labels: Vec<(usize, String)> = Vec::new();
    for (i, node) in tree.nodes.iter().enumerate() {
        let labelled =
            node.role.is_actionable() || matches!(node.role, Role::Heading | Role::Dialog);
        if visible[i].is_some()
            && labelled
            && !node.name.trim().is_empty()
            && !node.password.is_yes()
            && absorbed[i].is_empty()
        {
            // A dialog titled by a text inside it shows that title once.
            let end = tree.subtree_end(i);
            let name = collapse_ws(&node.name);
            let repeated = node.role == Role::Dialog
                && text_runs
                    .iter()
                    .any(|(k, t)| *k > i && *k < end && collapse_ws(t) == name);
            if !repeated {
                own_labels.push((i, node.name.clone()));
            }
        }
    }
    text_runs.extend(own_labels);
    text_runs.sort_by_key(|(i, _)| *i);
    let text_runs: Vec<String> = text_runs.into_iter().map(|(_, t)| t).collect();

    let in_control: Vec<bool> = cluster_of.iter().map(Option::is_some).collect();
    let mut out: Vec<Element> = Vec::new();
    let mut owners: Vec<usize> = Vec::new();
    for i in 0..n {
        let node = &tree.nodes[i];
        let Some(vis) = visible[i] else { continue };
        let keep = match node.role {
            r if r.is_actionable() => true,
            Role::Heading => true,
            Role::Text | Role::Image => cluster_of[i].is_none() && !node.name.trim().is_empty(),
            Role::Dialog => !node.name.trim().is_empty(),
            _ => false,
        };
        if !keep {
            continue;
        }
        let mut name = collapse_ws(&node.name);
        if name.is_empty() && !absorbed[i].is_empty() {
            name = collapse_ws(&absorbed[i].join(" "));
        }
        if name.is_empty() && !absorbed_img[i].is_empty() {
            name = collapse_ws(&absorbed_img[i].join(" "));
        }
        if name.is_empty() && !absorbed_other[i].is_empty() {
            name = collapse_ws(&absorbed_other[i].join(" "));
        }
        if name.is_empty() {
            if let Some(row) = row_label::row_name(tree, &visible, &in_control, i) {
                name = collapse_ws(&row);
            }
        }
        owners.push(i);
        out.push(Element {
            id: String::new(),
            role: node.role,
            platform_role: node.platform_role.clone(),
            name,
            value: node.value.clone(),
            placeholder: node.placeholder.clone(),
            checked: node.checked,
            enabled: node.enabled,
            focused: node.focused,
            editable: node.editable,
            password: node.password,
            selected: node.selected,
            covered: Tri::Unknown,
            bbox_logical: vis,
            bbox_px: screen.to_device(&vis),
            node_ref: node.node_ref.clone(),
            platform_id: node.platform_id.clone(),
            path: tree.path(i),
            source: Source::Tree,
            confidence: None,
            neighbours: Neighbours::default(),
        });
    }
    let covered = occlusion::covered(tree, &visible, &owners);
    for (e, c) in out.iter_mut().zip(covered) {
        e.covered = c;
    }
    layout::number(&mut out);
    Observation {
        serial,
        screen,
        elements: out,
        text: collapse_ws(&text_runs.join(" ")),
        perceived: crate::perceive::Perceived::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Node;

    fn node(role: Role, name: &str, b: Rect, parent: Option<usize>) -> Node {
        let mut n = Node::new(role, role.as_str(), name);
        n.bounds = Some(b);
        n.parent = parent;
        n
    }

    #[test]
    fn clusters_orders_and_drops_offscreen() {
        let screen = Screen {
            width: 100.0,
            height: 100.0,
            dpr: 2.0,
        };
        let tree = Tree {
            nodes: vec![
                node(Role::Other, "", Rect::new(0.0, 0.0, 100.0, 100.0), None),
                node(Role::Button, "", Rect::new(50.0, 10.0, 20.0, 10.0), Some(0)),
                node(Role::Text, "OK", Rect::new(52.0, 12.0, 10.0, 6.0), Some(1)),
                node(
                    Role::Text,
                    "Title",
                    Rect::new(5.0, 11.0, 30.0, 8.0),
                    Some(0),
                ),
                node(
                    Role::Text,
                    "below",
                    Rect::new(5.0, 150.0, 30.0, 8.0),
                    Some(0),
                ),
                node(Role::Text, "zero", Rect::new(5.0, 50.0, 0.0, 8.0), Some(0)),
            ],
        };
        let obs = build(&tree, screen, 7);
        let names: Vec<_> = obs
            .elements
            .iter()
            .map(|e| (e.id.as_str(), e.name.as_str()))
            .collect();
        assert_eq!(names, vec![("e1", "Title"), ("e2", "OK")]);
        assert_eq!(obs.elements[1].bbox_px, Rect::new(100.0, 20.0, 40.0, 20.0));
        assert_eq!(obs.text, "OK Title");
        assert!(obs.contains_text("ok  title"));
        assert!(!obs.contains_text("below"));
    }
}

#[cfg(test)]
mod number_aware_tests {
    use super::contains_number_aware as c;

    #[test]
    fn a_count_is_not_found_inside_a_bigger_number() {
        assert!(c("3 items left", "3 items left"));
        assert!(!c("13 items left", "3 items left"));
        assert!(c("13 items left · 3 items left", "3 items left"));
        assert!(!c("total 1,230", "1,23"));
        assert!(c("buy milk", "milk"));
        assert!(c("page 2 of 5", "2 of 5"));
    }
}
