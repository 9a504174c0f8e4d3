//! A name for an unlabelled toggle from the text of its row.
//!
//! Many pages draw a checkbox with no accessible name beside a text that is not its `<label>`
//! (TodoMVC's `<input class="toggle">` next to `<label>buy milk</label>`, a `div` row in a
//! settings list, an Android row whose text is a sibling view). A sighted user reads the row's
//! text as the checkbox's name; the tree says `checkbox ""`, and a model asked to "mark 'buy
//! milk' as done" cannot tell which checkbox that is.
//!
//! Rule: an unnamed, visible [`Role::Checkbox`], [`Role::Switch`] or [`Role::Radio`] takes the
//! visible text of its nearest ancestor (at most [`MAX_LEVELS`] up) that holds some text —
//! text inside another control (a link's, a button's) does not count. When that ancestor also
//! holds another toggle, the toggle stays unnamed (`[ ] Email [ ] SMS` in one row: whose text
//! is whose is not known). Other controls do not stop it: TodoMVC shows an unnamed delete
//! button in the row while the pointer hovers it. This is the "encapsulated label" heuristic of WAI-ARIA
//! Authoring Practices' name computation applied to a row container rather than a `<label>`.
//!
//! Text fields the same way, narrower (a form row `<p><label>Username</label><input></p>`
//! whose label is not tied to the field — MiniWoB++ `login-user`; `type "cierra" into
//! "Username"` otherwise reached the label): an unnamed [`Role::Textfield`] or
//! [`Role::Combobox`] takes the last text *before* it in its nearest ancestor with such text,
//! at most [`FIELD_LEVELS`] up, when that text is a label's length (≤ [`FIELD_LABEL_CHARS`]
//! chars) and the ancestor holds no other field.

use crate::geometry::Rect;
use crate::role::Role;
use crate::tree::Tree;

/// How many ancestors up the row container is looked for (toggle → cell → row → list).
pub const MAX_LEVELS: usize = 3;

/// How many ancestors up a field's label container is looked for (field → row → table row).
pub const FIELD_LEVELS: usize = 2;
/// Longest text taken as a field's label, chars (a sentence before a form is no label).
pub const FIELD_LABEL_CHARS: usize = 40;

/// Whether `role` is a toggle that may take its row's text as its name.
pub fn is_toggle(role: Role) -> bool {
    matches!(role, Role::Checkbox | Role::Switch | Role::Radio)
}

/// Whether `role` is a text field that may take its row's label as its name.
pub fn is_field(role: Role) -> bool {
    matches!(role, Role::Textfield | Role::Combobox)
}

/// The row text that names the toggle or field at node `i` (see the module docs), or `None`
/// (also for any other role).
///
/// `visible` is each node's visible box ([`crate::elements::visible_boxes`]); `in_control[k]`
/// says node `k` sits inside an actionable or heading node (its text names that one).
/// Texts are joined with one space, in document order.
pub fn row_name(
    tree: &Tree,
    visible: &[Option<Rect>],
    in_control: &[bool],
    i: usize,
) -> Option<String> {
    let role = tree.nodes.get(i)?.role;
    let field = is_field(role);
    if !field && !is_toggle(role) {
        return None;
    }
    let same_kind = |r: Role| if field { is_field(r) } else { is_toggle(r) };
    let levels = if field { FIELD_LEVELS } else { MAX_LEVELS };
    let mut p = tree.nodes.get(i)?.parent;
    for _ in 0..levels {
        let a = p?;
        let end = tree.subtree_end(a);
        let mut texts: Vec<&str> = Vec::new();
        let mut same_kind_elsewhere = false;
        for k in a..end.min(tree.nodes.len()) {
            if k == i || visible[k].is_none() {
                continue;
            }
            let node = &tree.nodes[k];
            if node.ignored {
                continue;
            }
            if same_kind(node.role) {
                same_kind_elsewhere = true;
            } else if node.role == Role::Text
                && !in_control[k]
                && !node.name.trim().is_empty()
                && (!field || k < i)
            {
                texts.push(node.name.trim());
            }
        }
        if same_kind_elsewhere {
            return None;
        }
        if field {
            // The label nearest before the field.
            if let Some(label) = texts.last() {
                return (label.chars().count() <= FIELD_LABEL_CHARS).then(|| label.to_string());
            }
        } else if !texts.is_empty() {
            return Some(texts.join(" "));
        }
        p = tree.nodes[a].parent;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Screen;
    use crate::tree::Node;

    fn node(role: Role, name: &str, y: f64, parent: Option<usize>) -> Node {
        let mut n = Node::new(role, role.as_str(), name);
        n.bounds = Some(Rect::new(10.0, y, 200.0, 20.0));
        n.parent = parent;
        n
    }

    fn tree(nodes: Vec<Node>) -> Tree {
        let mut t = Tree { nodes };
        for i in 0..t.nodes.len() {
            if let Some(p) = t.nodes[i].parent {
                t.nodes[p].children.push(i);
            }
        }
        t
    }

    fn screen() -> Screen {
        Screen {
            width: 400.0,
            height: 400.0,
            dpr: 1.0,
        }
    }

    /// TodoMVC's shape: list > item > (checkbox, label text), item > (checkbox, label text).
    #[test]
    fn todo_rows_name_their_checkboxes() {
        let t = tree(vec![
            node(Role::Other, "", 0.0, None),
            node(Role::Listitem, "", 0.0, Some(0)),
            node(Role::Checkbox, "", 0.0, Some(1)),
            node(Role::Text, "buy milk", 0.0, Some(1)),
            node(Role::Listitem, "", 30.0, Some(0)),
            node(Role::Checkbox, "", 30.0, Some(4)),
            node(Role::Other, "", 30.0, Some(4)),
            node(Role::Text, "walk dog", 30.0, Some(6)),
        ]);
        let obs = crate::elements::build(&t, screen(), 1);
        let boxes: Vec<_> = obs
            .elements
            .iter()
            .map(|e| (e.role, e.name.as_str()))
            .collect();
        assert_eq!(
            boxes,
            vec![
                (Role::Checkbox, "buy milk"),
                (Role::Text, "buy milk"),
                (Role::Checkbox, "walk dog"),
                (Role::Text, "walk dog"),
            ]
        );
    }

    /// Text inside another control never names the toggle; an unnamed button beside it (a
    /// hover-only delete button) does not stop the row's text.
    #[test]
    fn text_of_other_controls_is_theirs() {
        let t = tree(vec![
            node(Role::Listitem, "", 0.0, None),
            node(Role::Checkbox, "", 0.0, Some(0)),
            node(Role::Link, "", 0.0, Some(0)),
            node(Role::Text, "Open report", 0.0, Some(2)),
            node(Role::Listitem, "", 30.0, None),
            node(Role::Checkbox, "", 30.0, Some(4)),
            node(Role::Text, "buy milk", 30.0, Some(4)),
            node(Role::Button, "", 30.0, Some(4)),
        ]);
        let obs = crate::elements::build(&t, screen(), 1);
        let names: Vec<_> = obs
            .elements
            .iter()
            .map(|e| (e.role, e.name.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![
                (Role::Checkbox, ""),
                (Role::Link, "Open report"),
                (Role::Checkbox, "buy milk"),
                (Role::Text, "buy milk"),
                (Role::Button, ""),
            ]
        );
    }

    /// A form: each unlabelled field takes the label before it in its row; a sentence before
    /// the form and text after a field name nothing.
    #[test]
    fn form_rows_name_their_fields() {
        let t = tree(vec![
            node(Role::Other, "", 0.0, None),
            node(
                Role::Text,
                "Enter the username and the password into the text fields.",
                0.0,
                Some(0),
            ),
            node(Role::Other, "", 30.0, Some(0)),
            node(Role::Other, "", 30.0, Some(2)),
            node(Role::Text, "Username", 30.0, Some(3)),
            node(Role::Textfield, "", 30.0, Some(3)),
            node(Role::Other, "", 60.0, Some(2)),
            node(Role::Text, "Password", 60.0, Some(6)),
            node(Role::Textfield, "", 60.0, Some(6)),
            node(Role::Other, "", 90.0, Some(2)),
            node(Role::Textfield, "", 90.0, Some(9)),
            node(Role::Text, "e.g. 12/31", 90.0, Some(9)),
        ]);
        let obs = crate::elements::build(&t, screen(), 1);
        let fields: Vec<_> = obs
            .elements
            .iter()
            .filter(|e| e.role == Role::Textfield)
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(fields, vec!["Username", "Password", ""]);
    }

    /// Two toggles in one row: whose text is whose is not known; both stay unnamed.
    #[test]
    fn two_toggles_in_a_row_stay_unnamed() {
        let t = tree(vec![
            node(Role::Listitem, "", 0.0, None),
            node(Role::Checkbox, "", 0.0, Some(0)),
            node(Role::Text, "Email", 0.0, Some(0)),
            node(Role::Checkbox, "", 0.0, Some(0)),
            node(Role::Text, "SMS", 0.0, Some(0)),
        ]);
        let obs = crate::elements::build(&t, screen(), 1);
        assert!(obs
            .elements
            .iter()
            .filter(|e| e.role == Role::Checkbox)
            .all(|e| e.name.is_empty()));
    }
}
