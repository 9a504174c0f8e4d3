//! Occlusion: is an element hidden under something drawn above it, so that a tap at its
//! centre would land elsewhere?
//!
//! Drawing order is taken from the tree's pre-order: a node that comes after an element's
//! whole subtree (a later sibling branch) is drawn above it. Ancestors and descendants never
//! cover. An element is **covered** when such a later, visible node `O` is an overlay:
//!
//! - `O` is a dialog ([`Role::Dialog`]: CDP `dialog`, Android class `…Dialog…`, WDA
//!   `Alert`/`Sheet`, AT-SPI `dialog`/`alert`) and the element's centre lies inside `O`; or
//! - `O` takes touches (`clickable` yes: a scrim that dismisses a drawer or sheet on tap, a
//!   transparent tap-catcher, the items of a bottom navigation bar a list card runs under)
//!   and the element's centre lies inside `O` — a tap there lands on `O`. Edges overlapping
//!   a neighbouring control do not count, and a later node that is not clickable lets
//!   touches through (Android dispatch), so it does not count either.
//!
//! Tree elements get yes or no; the rule needs only the tree, so there is no unknown. Not
//! handled: Android `drawing-order` / z-index attributes that reorder siblings, and opacity.

use crate::geometry::Rect;
use crate::role::Role;
use crate::tree::{Tree, Tri};

/// Whether `tree.nodes[i]` can cover what was drawn before it: a dialog, or a node that takes
/// touches.
fn is_overlay(tree: &Tree, i: usize) -> bool {
    let n = &tree.nodes[i];
    n.role == Role::Dialog || n.clickable.is_yes()
}

/// `covered` for each element: `owners[k]` is the tree index of element `k`, `visible` the
/// visible box per tree node ([`crate::elements::visible_boxes`]).
pub fn covered(tree: &Tree, visible: &[Option<Rect>], owners: &[usize]) -> Vec<Tri> {
    let overlays: Vec<(usize, Rect)> = (0..tree.nodes.len())
        .filter(|&i| is_overlay(tree, i))
        .filter_map(|i| Some((i, (*visible.get(i)?)?)))
        .collect();
    owners
        .iter()
        .map(|&i| {
            let Some(b) = visible.get(i).copied().flatten() else {
                return Tri::Unknown;
            };
            let end = tree.subtree_end(i);
            let (cx, cy) = b.center();
            let hit = overlays
                .iter()
                .any(|&(o, ob)| o >= end && ob.contains_point(cx, cy));
            Tri::from_opt(Some(hit))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Node;

    #[test]
    fn later_scrim_and_dialog_cover_earlier_nodes_only() {
        let mut t = Tree::default();
        let mk = |role, b: Rect| {
            let mut n = Node::new(role, "x", "");
            n.bounds = Some(b);
            n
        };
        let root = t.push(mk(Role::Other, Rect::new(0.0, 0.0, 100.0, 100.0)), None);
        let btn = t.push(
            mk(Role::Button, Rect::new(10.0, 10.0, 20.0, 10.0)),
            Some(root),
        );
        let low = t.push(
            mk(Role::Button, Rect::new(10.0, 90.0, 20.0, 10.0)),
            Some(root),
        );
        let mut scrim = mk(Role::Other, Rect::new(0.0, 0.0, 100.0, 60.0));
        scrim.clickable = Tri::Yes;
        t.push(scrim, Some(root));
        let dlg = t.push(
            mk(Role::Dialog, Rect::new(0.0, 80.0, 100.0, 20.0)),
            Some(root),
        );
        let inner = t.push(
            mk(Role::Button, Rect::new(40.0, 85.0, 20.0, 10.0)),
            Some(dlg),
        );
        let vis: Vec<Option<Rect>> = t.nodes.iter().map(|n| n.bounds).collect();
        let got = covered(&t, &vis, &[btn, low, inner]);
        assert_eq!(got, vec![Tri::Yes, Tri::Yes, Tri::No]);
    }
}
