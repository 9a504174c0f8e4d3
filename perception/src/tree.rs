//! The platform-neutral node model every normalizer produces.
//!
//! Properties are tri-state: a platform may say yes, say no, or not say at all
//! ([`Tri::Unknown`]). Unknown is never collapsed into no; the only flattening helper,
//! [`Tri::is_yes`], asks "did it say yes".

use serde::{Deserialize, Serialize};

use crate::geometry::Rect;
use crate::role::Role;

/// A tri-state property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tri {
    /// The platform said yes.
    Yes,
    /// The platform said no (or the property is absent where the platform always reports it).
    No,
    /// The platform did not say.
    #[default]
    Unknown,
}

impl Tri {
    /// From an optional bool: `None` → `Unknown`.
    pub fn from_opt(v: Option<bool>) -> Tri {
        match v {
            Some(true) => Tri::Yes,
            Some(false) => Tri::No,
            None => Tri::Unknown,
        }
    }
    /// True only when the platform said yes.
    pub fn is_yes(self) -> bool {
        self == Tri::Yes
    }
}

/// How to find a node again on its platform (for acting on it).
///
/// Only platforms with a live handle get a variant. Mobile and desktop trees are re-found by
/// [`crate::Element::platform_id`] (Android `resource-id`, HarmonyOS `id`/`key`, WDA
/// `name`) and [`crate::Element::path`] (child-index path from the root), which every
/// normalizer fills alike; they stay [`NodeRef::None`] here so matches on this enum elsewhere
/// stay exhaustive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NodeRef {
    /// CDP `backendDOMNodeId`.
    Cdp { backend_node_id: i64 },
    /// Nothing to refer to (act by coordinates).
    None,
}

/// One node of a normalized tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Canonical role.
    pub role: Role,
    /// The platform's own role / class string.
    pub platform_role: String,
    /// Accessible name, label or visible text (may be empty).
    pub name: String,
    /// Current value of an editable or ranged control.
    pub value: Option<String>,
    /// Placeholder / hint text of an empty field.
    pub placeholder: Option<String>,
    /// Box in logical px, viewport-relative; `None` when the platform gave none.
    pub bounds: Option<Rect>,
    /// Platform says the node is hidden / ignored.
    pub ignored: bool,
    pub checked: Tri,
    pub enabled: Tri,
    pub focused: Tri,
    pub focusable: Tri,
    pub clickable: Tri,
    pub editable: Tri,
    pub password: Tri,
    /// Selected (tab, list row).
    pub selected: Tri,
    /// Scrolls its content.
    pub scrollable: Tri,
    /// The platform's stable id for the node, when it has one (Android `resource-id`, HarmonyOS
    /// `id` or `key`, WDA `name`, AT-SPI accessible id). `None` when absent or empty.
    pub platform_id: Option<String>,
    /// Parent index in [`Tree::nodes`].
    pub parent: Option<usize>,
    /// Child indices in document order.
    pub children: Vec<usize>,
    /// Platform reference.
    pub node_ref: NodeRef,
}

impl Node {
    /// A node with the given role and name, everything else unknown.
    pub fn new(role: Role, platform_role: &str, name: &str) -> Node {
        Node {
            role,
            platform_role: platform_role.to_string(),
            name: name.to_string(),
            value: None,
            placeholder: None,
            bounds: None,
            ignored: false,
            checked: Tri::Unknown,
            enabled: Tri::Unknown,
            focused: Tri::Unknown,
            focusable: Tri::Unknown,
            clickable: Tri::Unknown,
            editable: Tri::Unknown,
            password: Tri::Unknown,
            selected: Tri::Unknown,
            scrollable: Tri::Unknown,
            platform_id: None,
            parent: None,
            children: Vec::new(),
            node_ref: NodeRef::None,
        }
    }
}

/// A normalized tree: nodes in document (pre-)order; `nodes[0]` is the root when non-empty.
///
/// Pre-order is also taken as drawing order: a node later in it that is not a descendant is
/// drawn above (see [`crate::occlusion`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// Nodes in pre-order.
    pub nodes: Vec<Node>,
}

impl Tree {
    /// Appends `node` as the last child of `parent` (or as a root), returning its index.
    /// Normalizers call it in pre-order, so the tree stays in pre-order.
    pub fn push(&mut self, mut node: Node, parent: Option<usize>) -> usize {
        let i = self.nodes.len();
        node.parent = parent;
        self.nodes.push(node);
        if let Some(p) = parent {
            if let Some(pn) = self.nodes.get_mut(p) {
                pn.children.push(i);
            }
        }
        i
    }

    /// Where `i` sits: the ordinal of its top-level node (0 for the first root; a multi-window
    /// dump has several), then the child index at each level down to `i`. `[0]` is the first
    /// root itself.
    pub fn path(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut cur = i;
        while let Some(p) = self.nodes.get(cur).and_then(|n| n.parent) {
            let pos = self
                .nodes
                .get(p)
                .and_then(|pn| pn.children.iter().position(|&c| c == cur));
            out.push(pos.unwrap_or(0));
            if p >= cur {
                break; // malformed (a parent must precede its child): stop rather than loop
            }
            cur = p;
        }
        let end = cur.min(self.nodes.len());
        out.push(
            self.nodes[..end]
                .iter()
                .filter(|n| n.parent.is_none())
                .count(),
        );
        out.reverse();
        out
    }

    /// Index one past the last node of `i`'s subtree (pre-order makes a subtree contiguous).
    pub fn subtree_end(&self, i: usize) -> usize {
        let mut cur = i;
        loop {
            match self.nodes.get(cur).and_then(|n| n.children.last()) {
                Some(&last) if last > cur => cur = last,
                _ => return cur + 1,
            }
        }
    }
}
