//! Test screens for the reader: a list app with the given items, and the steps read on it.

use super::read;
use argus_perception::{build, Node, Observation, Rect, Role, Screen, Tree, Tri};

/// A list app's shape: a new-item field, one row per item (a toggle named by the item),
/// a "Clear done" button.
pub(crate) fn list(items: &[(&str, bool)]) -> Observation {
    list_with(items, &[])
}

/// [`list`] with more buttons after "Clear done" ("Order by name").
pub(super) fn list_with(items: &[(&str, bool)], buttons: &[&str]) -> Observation {
    let mut tree = Tree::default();
    let mut root = Node::new(Role::Other, "main", "");
    root.bounds = Some(Rect::new(0.0, 0.0, 400.0, 400.0));
    tree.nodes.push(root);
    let mut field = Node::new(Role::Textfield, "textbox", "");
    field.placeholder = Some("New item".into());
    field.bounds = Some(Rect::new(10.0, 10.0, 300.0, 24.0));
    field.parent = Some(0);
    tree.nodes.push(field);
    for (i, (name, done)) in items.iter().enumerate() {
        let mut n = Node::new(Role::Checkbox, "checkbox", name);
        n.checked = if *done { Tri::Yes } else { Tri::No };
        n.bounds = Some(Rect::new(10.0, 50.0 + 30.0 * i as f64, 200.0, 24.0));
        n.parent = Some(0);
        tree.nodes.push(n);
    }
    for (i, name) in ["Clear done"].iter().chain(buttons).enumerate() {
        let mut b = Node::new(Role::Button, "button", name);
        b.bounds = Some(Rect::new(10.0 + 110.0 * i as f64, 360.0, 100.0, 24.0));
        b.parent = Some(0);
        tree.nodes.push(b);
    }
    tree.nodes[0].children = (1..tree.nodes.len()).collect();
    build(
        &tree,
        Screen {
            width: 400.0,
            height: 400.0,
            dpr: 1.0,
        },
        1,
    )
}

/// The steps read from `instruction` on `obs`, with the descriptions left out.
pub(super) fn steps(instruction: &str, obs: &Observation) -> Option<Vec<String>> {
    read(instruction, obs).map(|r| r.without_asks().steps)
}
