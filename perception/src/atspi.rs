//! AT-SPI (Linux desktop accessibility) normalizer.
//!
//! Input: an [`AtspiNode`] tree the worker fills from D-Bus (`org.a11y.atspi.Accessible`:
//! `GetRoleName`, `Name`, `Description`, `GetState`, `GetChildren`, `AccessibleId`;
//! `org.a11y.atspi.Component.GetExtents`; `org.a11y.atspi.Text.GetText` for editable text;
//! `org.a11y.atspi.Value.CurrentValue`; `org.a11y.atspi.Action` names). It is plain serde, so
//! fixtures are JSON.
//!
//! Units: extents in px of the coordinate frame the worker asked for (screen or window); the
//! `origin` passed to [`normalize`] is subtracted so boxes are relative to the observed
//! screen/window. On X11 these are device px: use `dpr` 1.
//!
//! States: AT-SPI reports a complete state set, so when `states` is non-empty a missing state
//! means no (`enabled`/`sensitive`, `focused`, `focusable`, `editable`, `selected`); when it is
//! empty (the worker could not read it) everything stays unknown. A node that is not both
//! `showing` and `visible` is ignored. `checked` (or `pressed` on a toggle) is yes when
//! present, no on a checkable role or with `checkable`, unknown elsewhere. `clickable` comes
//! from the action names (`click`, `press`, `activate`, `toggle`) when there are any.
//!
//! Role names are matched case-insensitively with `-`/`_` read as spaces (`push button`,
//! `PUSH_BUTTON`, `push-button`).

use serde::{Deserialize, Serialize};

use crate::geometry::Rect;
use crate::role::Role;
use crate::tree::{Node, Tree, Tri};

/// A box as `Component.GetExtents` returns it: x, y, width, height (px).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Extents {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

/// One accessible, as read over D-Bus.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AtspiNode {
    /// Role name (`GetRoleName`), e.g. `push button`, `check box`, `label`.
    pub role: String,
    /// Accessible name.
    #[serde(default)]
    pub name: String,
    /// Accessible description.
    #[serde(default)]
    pub description: String,
    /// State names (`enabled`, `sensitive`, `showing`, `visible`, `focused`, `checked`, …).
    #[serde(default)]
    pub states: Vec<String>,
    /// Box; `None` when the node has no Component interface.
    #[serde(default)]
    pub extents: Option<Extents>,
    /// Text interface content (editable fields).
    #[serde(default)]
    pub text: Option<String>,
    /// Value interface current value, formatted.
    #[serde(default)]
    pub value: Option<String>,
    /// Placeholder text when the toolkit exposes one (object attribute `placeholder-text`).
    #[serde(default)]
    pub placeholder: Option<String>,
    /// Action names (Action interface).
    #[serde(default)]
    pub actions: Vec<String>,
    /// `AccessibleId` (toolkit widget name), when set.
    #[serde(default)]
    pub id: Option<String>,
    /// Children in order.
    #[serde(default)]
    pub children: Vec<AtspiNode>,
}

fn norm_role(r: &str) -> String {
    r.trim().to_ascii_lowercase().replace(['_', '-'], " ")
}

/// Maps an AT-SPI role name (any case, `-`/`_`/space separated) to the canonical role;
/// `editable` decides whether a `text` node is a field or static text.
pub fn map_role(role: &str, editable: bool) -> Role {
    match norm_role(role).as_str() {
        "push button" | "button" | "push button menu" | "menu button" => Role::Button,
        "toggle button" | "switch" => Role::Switch,
        "check box" | "check menu item" => Role::Checkbox,
        "radio button" | "radio menu item" => Role::Radio,
        "entry" | "password text" | "spin button" | "editbar" => Role::Textfield,
        // GTK 4 names its text views and entries `text box`.
        "text" | "text box" if editable => Role::Textfield,
        "text" | "text box" | "label" | "static" | "caption" | "paragraph" => Role::Text,
        "link" => Role::Link,
        "page tab" => Role::Tab,
        "menu item" | "menu" => Role::Menuitem,
        "list item" | "table cell" | "tree item" => Role::Listitem,
        "combo box" => Role::Combobox,
        "slider" => Role::Slider,
        "image" | "icon" | "animation" => Role::Image,
        "heading" => Role::Heading,
        "dialog" | "alert" | "file chooser" | "color chooser" => Role::Dialog,
        _ => Role::Other,
    }
}

fn convert(src: &AtspiNode, origin: (f64, f64)) -> Node {
    let has = |s: &str| src.states.iter().any(|x| x.eq_ignore_ascii_case(s));
    let known = !src.states.is_empty();
    let state = |s: &str| {
        if known {
            Tri::from_opt(Some(has(s)))
        } else {
            Tri::Unknown
        }
    };
    let editable = has("editable");
    let role = map_role(&src.role, editable);
    let mut node = Node::new(role, &src.role, &src.name);
    let text = src.text.clone().filter(|t| !t.is_empty());
    if role == Role::Textfield {
        node.value = text.or_else(|| src.value.clone());
    } else {
        node.value = src.value.clone();
        if node.name.trim().is_empty() {
            node.name = text.unwrap_or_default();
        }
    }
    node.placeholder = src.placeholder.clone().filter(|p| !p.is_empty());
    node.bounds = src
        .extents
        .map(|e| Rect::new(e.x - origin.0, e.y - origin.1, e.w, e.h));
    node.ignored = known && !(has("showing") && has("visible")) || has("defunct");
    node.enabled = if known {
        Tri::from_opt(Some(has("enabled") || has("sensitive")))
    } else {
        Tri::Unknown
    };
    node.focused = state("focused");
    node.focusable = state("focusable");
    node.editable = state("editable");
    node.selected = state("selected");
    node.password = if norm_role(&src.role) == "password text" {
        Tri::Yes
    } else if role == Role::Textfield && known {
        Tri::No
    } else {
        Tri::Unknown
    };
    let checkable_role = matches!(role, Role::Checkbox | Role::Radio | Role::Switch);
    node.checked = if has("checked") || (role == Role::Switch && has("pressed")) {
        Tri::Yes
    } else if known && (checkable_role || has("checkable")) {
        Tri::No
    } else {
        Tri::Unknown
    };
    node.clickable = if src.actions.is_empty() {
        Tri::Unknown
    } else {
        Tri::from_opt(Some(src.actions.iter().any(|a| {
            matches!(
                a.to_ascii_lowercase().as_str(),
                "click" | "press" | "activate" | "toggle"
            )
        })))
    };
    node.platform_id = src.id.clone().filter(|i| !i.is_empty());
    node
}

/// Normalizes an AT-SPI tree into a [`Tree`] in pre-order; `origin` (x, y) is subtracted
/// from every extent.
pub fn normalize(root: &AtspiNode, origin: (f64, f64)) -> Tree {
    let mut tree = Tree::default();
    let mut stack: Vec<(&AtspiNode, Option<usize>)> = vec![(root, None)];
    while let Some((n, parent)) = stack.pop() {
        let ti = tree.push(convert(n, origin), parent);
        stack.extend(n.children.iter().rev().map(|c| (c, Some(ti))));
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_complete_or_unknown() {
        let root = AtspiNode {
            role: "frame".into(),
            name: "App".into(),
            states: vec!["enabled".into(), "showing".into(), "visible".into()],
            extents: Some(Extents {
                x: 100.0,
                y: 50.0,
                w: 400.0,
                h: 300.0,
            }),
            children: vec![
                AtspiNode {
                    role: "CHECK_BOX".into(),
                    name: "Bold".into(),
                    states: vec!["sensitive".into(), "showing".into(), "visible".into()],
                    extents: Some(Extents {
                        x: 110.0,
                        y: 60.0,
                        w: 80.0,
                        h: 20.0,
                    }),
                    ..Default::default()
                },
                AtspiNode {
                    role: "push button".into(),
                    name: "OK".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let t = normalize(&root, (100.0, 50.0));
        assert_eq!(t.nodes[0].bounds, Some(Rect::new(0.0, 0.0, 400.0, 300.0)));
        let cb = &t.nodes[1];
        assert_eq!(
            (cb.role, cb.checked, cb.enabled, cb.focused),
            (Role::Checkbox, Tri::No, Tri::Yes, Tri::No)
        );
        let ok = &t.nodes[2];
        assert_eq!(
            (ok.enabled, ok.focused, ok.ignored),
            (Tri::Unknown, Tri::Unknown, false)
        );
        assert_eq!(map_role("text", true), Role::Textfield);
        assert_eq!(map_role("Text", false), Role::Text);
        assert_eq!(map_role("text box", true), Role::Textfield);
        assert_eq!(map_role("text box", false), Role::Text);
    }
}
