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

use crate::geometry::{Rect, Screen};
use crate::layout;
pub use crate::layout::ROW_TOLERANCE_PX;
// `Element` and `collapse_ws` keep their old paths here for the worker.
pub use crate::observation::Element;
use crate::observation::{Neighbours, Observation, Source};
use crate::occlusion;
use crate::perceived::Perceived;
use crate::role::Role;
use crate::row_label;
pub use crate::text::collapse_ws;
use crate::tree::{Node, Tree, Tri};

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
    let visible = visible_boxes(tree, &screen);
    let cluster_of = cluster_owners(tree);
    let (absorbed, mut text_runs) = absorb_text(tree, &visible, &cluster_of);
    text_runs.extend(own_labels(tree, &visible, &absorbed.text, &text_runs));
    text_runs.sort_by_key(|(i, _)| *i);
    let text_runs: Vec<String> = text_runs.into_iter().map(|(_, t)| t).collect();

    let in_control: Vec<bool> = cluster_of.iter().map(Option::is_some).collect();
    let mut out: Vec<Element> = Vec::new();
    let mut owners: Vec<usize> = Vec::new();
    for (i, node) in tree.nodes.iter().enumerate() {
        let Some(vis) = visible[i] else { continue };
        if !becomes_element(node, cluster_of[i]) {
            continue;
        }
        let name = element_name(tree, &visible, &in_control, &absorbed, i);
        owners.push(i);
        out.push(tree_element(tree, &screen, i, vis, name));
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
        perceived: Perceived::default(),
    }
}

/// Nearest clustering ancestor (actionable or heading, not ignored) of each node.
fn cluster_owners(tree: &Tree) -> Vec<Option<usize>> {
    let mut cluster_of: Vec<Option<usize>> = vec![None; tree.nodes.len()];
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
    cluster_of
}

/// Names absorbed per clustering node from the nodes it clusters, by the role they had.
struct Absorbed {
    /// Text runs.
    text: Vec<Vec<String>>,
    /// Image names (the fallback when there is no text).
    img: Vec<Vec<String>>,
    /// Plain containers' own labels (the last fallback).
    other: Vec<Vec<String>>,
}

/// What each clustering node absorbs, and the screen's text runs and typed (non-password)
/// values as `(node index, text)` in document order.
fn absorb_text(
    tree: &Tree,
    visible: &[Option<Rect>],
    cluster_of: &[Option<usize>],
) -> (Absorbed, Vec<(usize, String)>) {
    let n = tree.nodes.len();
    let mut absorbed = Absorbed {
        text: vec![Vec::new(); n],
        img: vec![Vec::new(); n],
        other: vec![Vec::new(); n],
    };
    let mut text_runs: Vec<(usize, String)> = Vec::new();
    for (i, node) in tree.nodes.iter().enumerate() {
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
                absorbed.text[c].push(node.name.clone());
            }
        }
        if node.role == Role::Image && named {
            if let Some(c) = names_cluster {
                absorbed.img[c].push(node.name.clone());
            }
        }
        // A plain container's own label (a non-clickable Compose `View`'s `content-desc`).
        if node.role == Role::Other && named {
            if let Some(c) = names_cluster {
                absorbed.other[c].push(node.name.clone());
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
    (absorbed, text_runs)
}

/// A control or heading named by its own label (a clickable TextView, a `content-desc`, an
/// iOS `label`) shows that label on screen: it joins the text unless text below it already
/// says it. `absorbed_text` is [`Absorbed::text`], `text_runs` what [`absorb_text`] found.
fn own_labels(
    tree: &Tree,
    visible: &[Option<Rect>],
    absorbed_text: &[Vec<String>],
    text_runs: &[(usize, String)],
) -> Vec<(usize, String)> {
    let mut own_labels: Vec<(usize, String)> = Vec::new();
    for (i, node) in tree.nodes.iter().enumerate() {
        let labelled =
            node.role.is_actionable() || matches!(node.role, Role::Heading | Role::Dialog);
        if visible[i].is_some()
            && labelled
            && !node.name.trim().is_empty()
            && !node.password.is_yes()
            && absorbed_text[i].is_empty()
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
    own_labels
}

/// Whether a visible node is listed: controls and headings always, named texts and images
/// outside any control, named dialogs; layout-only roles never.
fn becomes_element(node: &Node, cluster: Option<usize>) -> bool {
    match node.role {
        r if r.is_actionable() => true,
        Role::Heading => true,
        Role::Text | Role::Image => cluster.is_none() && !node.name.trim().is_empty(),
        Role::Dialog => !node.name.trim().is_empty(),
        _ => false,
    }
}

/// Node `i`'s element name: its own, else its absorbed text, image names, container labels,
/// else its row's label ([`row_label::row_name`]); whitespace collapsed.
fn element_name(
    tree: &Tree,
    visible: &[Option<Rect>],
    in_control: &[bool],
    absorbed: &Absorbed,
    i: usize,
) -> String {
    let mut name = collapse_ws(&tree.nodes[i].name);
    if name.is_empty() && !absorbed.text[i].is_empty() {
        name = collapse_ws(&absorbed.text[i].join(" "));
    }
    if name.is_empty() && !absorbed.img[i].is_empty() {
        name = collapse_ws(&absorbed.img[i].join(" "));
    }
    if name.is_empty() && !absorbed.other[i].is_empty() {
        name = collapse_ws(&absorbed.other[i].join(" "));
    }
    if name.is_empty() {
        if let Some(row) = row_label::row_name(tree, visible, in_control, i) {
            name = collapse_ws(&row);
        }
    }
    name
}

/// The unnumbered, not yet occlusion-checked element of node `i`, visible at `vis`.
fn tree_element(tree: &Tree, screen: &Screen, i: usize, vis: Rect, name: String) -> Element {
    let node = &tree.nodes[i];
    Element {
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
