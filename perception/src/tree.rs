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
            parent: None,
            children: Vec::new(),
            node_ref: NodeRef::None,
        }
    }
}

/// A normalized tree: nodes in document (pre-)order; `nodes[0]` is the root when non-empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    pub nodes: Vec<Node>,
}
