//! Roles settled by touch attributes, for the formats that report `clickable` on every node
//! ([`crate::android`], [`crate::harmony`]): one control a person taps becomes one element.
//!
//! Run by those normalizers after the tree is built, in this order:
//!
//! 1. **Folded parts** ([`fold_parts`]): a node whose role comes from its class (a Compose
//!    `Button`, a `RadioButton NAF="true"`, a `CheckBox`, a `CheckedTextView`) but that says
//!    `clickable="false"` inside a clickable ancestor is a part of that ancestor, not a second
//!    control: its checked state moves to the ancestor (which becomes a radio when any folded
//!    part is a radio button, else a switch, else a checkbox) and the part becomes plain text
//!    (named) or layout (unnamed), so its text names the ancestor. A classic list row
//!    (clickable layout + checkable `RadioButton` + `CheckedTextView`) is one radio element
//!    with the row's text as its name and the button's checked state.
//! 2. **Selected tabs** ([`keep_selected_tabs`]): a `selected="true"`, non-clickable node outside
//!    any clickable ancestor whose siblings of the same class are clickable (the current tab
//!    of a tab bar) keeps the control role of those siblings (a tab class stays a tab).
//! 3. **Wrappers** ([`drop_wrappers`]): a node that is a control only because it is
//!    clickable (its class is a layout, text or image) and has no label of its own stops
//!    being a control when it wraps other controls and has no text of its own to be named by
//!    (or is a bar, [`BAR_CLASSES`]: a clickable toolbar is not a button named by its title),
//!    or when it is a scrim: nothing below it, ≥ [`SCRIM_FRACTION`] of the first window, over
//!    content drawn before it (another window included) or under a panel drawn after it (a
//!    bottom sheet's `touch_outside`). It stays `clickable`, so [`crate::occlusion`] still
//!    marks what it covers. A lone full-screen clickable view with nothing before or over it
//!    (a game's canvas) is kept, so the arbiter sees it.
//! 4. **Floating window** ([`floating_window`]): a dump whose only window root starts away from
//!    the screen's origin (uiautomator dumps only the dialog's window while one is shown) is a
//!    dialog, named by its first text when it has no label.
//!
//! Nodes whose `clickable` is unknown are never changed.

use crate::role::Role;
use crate::tree::{Tree, Tri};

/// Share of the first window's area from which an unnamed clickable overlay is a scrim.
pub const SCRIM_FRACTION: f64 = 0.5;

/// Applies the four rules of the module docs; `class_role` maps a platform role string to the
/// role its class alone implies (`android::map_class`, `harmony::map_type`).
pub fn settle(tree: &mut Tree, class_role: fn(&str) -> Role) {
    fold_parts(tree);
    keep_selected_tabs(tree);
    drop_wrappers(tree, class_role);
    floating_window(tree);
}

fn is_toggle(r: Role) -> bool {
    matches!(r, Role::Radio | Role::Checkbox | Role::Switch)
}

/// Radio over switch over checkbox: a row with a radio button and a `CheckedTextView` is a
/// radio.
fn toggle_rank(r: Role) -> u8 {
    match r {
        Role::Radio => 3,
        Role::Switch => 2,
        Role::Checkbox => 1,
        _ => 0,
    }
}

fn nearest_clickable_ancestor(tree: &Tree, i: usize) -> Option<usize> {
    let mut p = tree.nodes.get(i)?.parent;
    while let Some(pi) = p {
        let n = &tree.nodes[pi];
        if n.clickable.is_yes() && !n.ignored {
            return Some(pi);
        }
        p = n.parent;
    }
    None
}

fn merge_checked(a: Tri, b: Tri) -> Tri {
    match (a, b) {
        (Tri::Yes, _) | (_, Tri::Yes) => Tri::Yes,
        (Tri::No, _) | (_, Tri::No) => Tri::No,
        _ => Tri::Unknown,
    }
}

/// Rule 1 of the module docs.
pub fn fold_parts(tree: &mut Tree) {
    for i in 0..tree.nodes.len() {
        let n = &tree.nodes[i];
        let part = n.clickable == Tri::No
            && matches!(
                n.role,
                Role::Button | Role::Radio | Role::Checkbox | Role::Switch
            );
        if !part {
            continue;
        }
        let Some(a) = nearest_clickable_ancestor(tree, i) else {
            continue;
        };
        let (role, checked, named) = (n.role, n.checked, !n.name.trim().is_empty());
        let anc = &mut tree.nodes[a];
        let had_toggle = is_toggle(anc.role);
        if is_toggle(role) && (had_toggle || matches!(anc.role, Role::Button | Role::Other)) {
            if toggle_rank(role) > toggle_rank(anc.role) {
                anc.role = role;
            }
            anc.checked = if had_toggle {
                merge_checked(anc.checked, checked)
            } else {
                // A plain row reports checked="false" for itself; the part's state is the
                // row's state.
                match checked {
                    Tri::Unknown => anc.checked,
                    c => c,
                }
            };
        }
        tree.nodes[i].role = if named { Role::Text } else { Role::Other };
    }
}

/// Rule 2 of the module docs.
pub fn keep_selected_tabs(tree: &mut Tree) {
    for i in 0..tree.nodes.len() {
        let n = &tree.nodes[i];
        let candidate = n.selected.is_yes()
            && n.clickable == Tri::No
            && matches!(n.role, Role::Other | Role::Text | Role::Image | Role::Tab);
        if !candidate || nearest_clickable_ancestor(tree, i).is_some() {
            continue;
        }
        let Some(p) = n.parent else { continue };
        let sibling_role = tree.nodes[p].children.iter().find_map(|&s| {
            let sn = &tree.nodes[s];
            (s != i
                && sn.clickable.is_yes()
                && sn.platform_role == n.platform_role
                && sn.role.is_actionable())
            .then_some(sn.role)
        });
        if let Some(r) = sibling_role {
            if n.role != Role::Tab {
                tree.nodes[i].role = r;
            }
        }
    }
}

fn has_label(tree: &Tree, i: usize) -> bool {
    let n = &tree.nodes[i];
    !n.name.trim().is_empty() || n.value.as_deref().is_some_and(|v| !v.trim().is_empty())
}

/// Class-name fragments of bars that hold controls and are never one themselves.
pub const BAR_CLASSES: [&str; 5] = [
    "Toolbar",
    "ActionBar",
    "AppBar",
    "NavigationBar",
    "BottomNavigation",
];

/// Labelled nodes and controls in `from..to`, not counting what lies inside a control.
fn contents(tree: &Tree, from: usize, to: usize) -> (usize, usize) {
    let (mut controls, mut labels) = (0, 0);
    let mut k = from;
    while k < to {
        let d = &tree.nodes[k];
        if d.ignored {
            k = tree.subtree_end(k);
            continue;
        }
        if d.role.is_actionable() {
            controls += 1;
            k = tree.subtree_end(k);
            continue;
        }
        if has_label(tree, k) {
            labels += 1;
        }
        k += 1;
    }
    (controls, labels)
}

/// Rule 3 of the module docs.
pub fn drop_wrappers(tree: &mut Tree, class_role: fn(&str) -> Role) {
    let first_window = tree
        .nodes
        .first()
        .and_then(|r| r.bounds)
        .map(|b| b.area())
        .unwrap_or(0.0);
    for i in 0..tree.nodes.len() {
        let n = &tree.nodes[i];
        let by_touch_only = n.clickable.is_yes()
            && n.role == Role::Button
            && !class_role(&n.platform_role).is_actionable();
        if !by_touch_only || has_label(tree, i) {
            continue;
        }
        let Some(b) = n.bounds.filter(|b| b.area() > 0.0) else {
            continue;
        };
        let bar = BAR_CLASSES.iter().any(|c| n.platform_role.contains(c));
        let end = tree.subtree_end(i);
        let (controls, labels) = contents(tree, i + 1, end);
        let wrapper = controls > 0 && (labels == 0 || bar);
        let scrim = labels == 0
            && controls == 0
            && first_window > 0.0
            && b.area() >= SCRIM_FRACTION * first_window
            && (drawn_over(tree, i, &b) || holds_panel_after(tree, i, end, &b));
        if wrapper || scrim {
            tree.nodes[i].role = Role::Other;
        }
    }
}

/// Whether a labelled node or control drawn before `i` (not an ancestor) lies under `b`.
fn drawn_over(tree: &Tree, i: usize, b: &crate::geometry::Rect) -> bool {
    (0..i).any(|e| {
        let en = &tree.nodes[e];
        tree.subtree_end(e) <= i
            && !en.ignored
            && (has_label(tree, e) || en.role.is_actionable())
            && en.bounds.and_then(|eb| eb.intersect(b)).is_some()
    })
}

/// Whether a later sibling of `i` inside `b` holds a panel (two or more labels or controls):
/// a sheet or drawer over its own scrim, as a dialog's window dumped alone shows it.
fn holds_panel_after(tree: &Tree, i: usize, end: usize, b: &crate::geometry::Rect) -> bool {
    let Some(p) = tree.nodes[i].parent else {
        return false;
    };
    tree.nodes[p].children.iter().any(|&s| {
        s >= end && tree.nodes[s].bounds.is_some_and(|sb| b.contains_rect(&sb)) && {
            let (c, l) = contents(tree, s, tree.subtree_end(s));
            c + l >= 2
        }
    })
}

/// Rule 4 of the module docs.
pub fn floating_window(tree: &mut Tree) {
    let roots: Vec<usize> = (0..tree.nodes.len())
        .filter(|&i| tree.nodes[i].parent.is_none())
        .collect();
    let [root] = roots[..] else { return };
    let r = &tree.nodes[root];
    let Some(b) = r.bounds.filter(|b| b.area() > 0.0) else {
        return;
    };
    if r.role != Role::Other || (b.x <= 1.0 && b.y <= 1.0) {
        return;
    }
    let title = if r.name.trim().is_empty() {
        (root + 1..tree.subtree_end(root)).find_map(|k| {
            let n = &tree.nodes[k];
            (n.role == Role::Text && !n.ignored && !n.name.trim().is_empty())
                .then(|| n.name.clone())
        })
    } else {
        None
    };
    let r = &mut tree.nodes[root];
    r.role = Role::Dialog;
    if let Some(t) = title {
        r.name = t;
    }
}
