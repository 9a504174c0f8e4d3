//! The checks that read one element's state or count what the screen shows, on one
//! observation: `assert "X" is [not] checked`, `assert "X" has value "v"` / `is empty` and
//! `assert screen contains "X" N times`. Pure: the caller resolves the target (waiting for it
//! as for any target, [`crate::run::aim`]) and hands over the element it found.
//!
//! - **Checked**: the element's checked state as the platform reports it (a checkbox, switch or
//!   radio button); an element with no such state fails, naming it.
//! - **Value**: the element's current value, and the wanted one, each trimmed with runs of
//!   whitespace collapsed to one space, compared **case-sensitively** (a value is what was
//!   typed or chosen; `"Alice"` is not `"alice"`). The empty value means an empty field. Only
//!   fields have values (text fields, comboboxes / dropdowns, sliders, anything the platform
//!   says is editable); a password field's value is never read.
//! - **Count**: the number of elements of the element list whose *shown text* contains the
//!   text, matched as `assert screen contains` matches (case-insensitive, whitespace-collapsed,
//!   anywhere in the text). An element's shown text is what the page draws for it: a text
//!   field's or combobox's value (never a password's); the name of a text, heading, button,
//!   link, tab or menu item; a checkbox's, switch's or radio button's name only when no text
//!   element in its row already shows it (its label, counted once, as the text). Images,
//!   dialogs and containers show nothing of their own. So two todos "buy milk" and "buy
//!   bread" count 2 for `"buy"`, and a row "buy milk" with its checkbox counts 1.
//! - **Items**: `assert 2 items are checked` counts the screen's list items — its named
//!   checkboxes and switches (a todo's toggle carries its row's text), but select-all ones
//!   ("Mark all as complete", "全选", [`is_all_toggle`]) — in the state asked (or all of them).

use argus_perception::elements::collapse_ws;
use argus_perception::{Element, Observation, Role, Tri};

use crate::resolve::{is_toggle, takes_text, ROW_OVERLAP};

/// Longest value quoted back in a failure, chars.
const MAX_VALUE_SHOWN: usize = 80;
/// Most elements named in a count's failure.
const MAX_LISTED: usize = 8;

/// `assert "X" is [not] checked` on the resolved element: `Ok` with a detail line, or why not.
pub fn checked(el: &Element, want: bool) -> Result<String, String> {
    let word = |b: bool| if b { "checked" } else { "not checked" };
    match el.checked {
        Tri::Unknown if !is_toggle(el) => Err(format!(
            "{} has no checked state (it is no checkbox, switch or radio button)",
            el.describe()
        )),
        Tri::Unknown => Err(format!(
            "{} does not say whether it is checked",
            el.describe()
        )),
        state if state.is_yes() == want => Ok(format!("{} is {}", el.describe(), word(want))),
        state => Err(format!("{} is {}", el.describe(), word(state.is_yes()))),
    }
}

/// Whether `el` has a value a check may read.
fn has_value(el: &Element) -> bool {
    takes_text(el) || el.role == Role::Slider
}

/// `assert "X" has value "v"` (`want` empty: `is empty`) on the resolved element. `want` is
/// the wanted value with any secret already filled in; `shown_want` is how a message may
/// name it (the line as written).
pub fn value(el: &Element, want: &str, shown_want: &str) -> Result<String, String> {
    if !has_value(el) {
        return Err(format!(
            "{} is not a field: it has no value to check",
            el.describe()
        ));
    }
    if el.password.is_yes() {
        return Err(format!(
            "{} is a password field; its value is never read",
            el.describe()
        ));
    }
    let have = collapse_ws(el.value.as_deref().unwrap_or_default());
    let want = collapse_ws(want);
    let wanted = if want.is_empty() {
        "empty".to_string()
    } else {
        format!("{shown_want:?}")
    };
    if have == want {
        return Ok(format!("{} is {wanted}", el.describe()));
    }
    let had = if have.is_empty() {
        "is empty".to_string()
    } else {
        let cut: String = have.chars().take(MAX_VALUE_SHOWN).collect();
        let more = if have.chars().count() > MAX_VALUE_SHOWN {
            "…"
        } else {
            ""
        };
        format!("holds {cut:?}{more}")
    };
    Err(format!(
        "{} {had}, not {wanted} (values compare case-sensitively)",
        el.describe()
    ))
}

/// The text the page draws for `el` (see the module docs), if any.
pub fn shown_text<'o>(el: &'o Element, obs: &'o Observation) -> Option<&'o str> {
    if takes_text(el) {
        return el
            .value
            .as_deref()
            .filter(|v| !v.trim().is_empty() && !el.password.is_yes());
    }
    let name = Some(el.name.as_str()).filter(|n| !n.trim().is_empty())?;
    match el.role {
        Role::Text
        | Role::Heading
        | Role::Button
        | Role::Link
        | Role::Tab
        | Role::Menuitem
        | Role::Listitem => Some(name),
        Role::Checkbox | Role::Switch | Role::Radio => {
            let key = collapse_ws(name).to_lowercase();
            let labelled = obs.elements.iter().any(|t| {
                t.role == Role::Text
                    && collapse_ws(&t.name).to_lowercase() == key
                    && t.bbox_logical.v_overlap(&el.bbox_logical) >= ROW_OVERLAP
            });
            (!labelled).then_some(name)
        }
        _ => None,
    }
}

/// The elements that show `text` (the `assert screen contains` matching, per element).
pub fn showing<'o>(obs: &'o Observation, text: &str) -> Vec<&'o Element> {
    let want = collapse_ws(text).to_lowercase();
    if want.is_empty() {
        return Vec::new();
    }
    obs.elements
        .iter()
        .filter(|e| {
            shown_text(e, obs).is_some_and(|t| collapse_ws(t).to_lowercase().contains(&want))
        })
        .collect()
}

/// `assert screen contains "X" N times`: `Ok` with a detail line, or the count seen and the
/// elements that showed it.
pub fn count(obs: &Observation, text: &str, want: u32) -> Result<String, String> {
    let found = showing(obs, text);
    let times = |n: usize| {
        if n == 1 {
            "1 element shows".to_string()
        } else {
            format!("{n} elements show")
        }
    };
    if found.len() == want as usize {
        return Ok(format!("{} {text:?}", times(found.len())));
    }
    Err(format!(
        "{} {text:?}, not {want}{}",
        times(found.len()),
        listing(&found, Element::describe)
    ))
}

/// `": a, b, … N more"` naming at most [`MAX_LISTED`] of `found` (each by `name`), or `""`.
fn listing(found: &[&Element], name: impl Fn(&Element) -> String) -> String {
    let mut listed: Vec<String> = found.iter().take(MAX_LISTED).map(|e| name(e)).collect();
    if found.len() > MAX_LISTED {
        listed.push(format!("… {} more", found.len() - MAX_LISTED));
    }
    if listed.is_empty() {
        String::new()
    } else {
        format!(": {}", listed.join(", "))
    }
}

/// `check every item`-like toggles ("Mark all as complete", "Select all", "全选", "全部完成")
/// are no list items.
pub fn is_all_toggle(name: &str) -> bool {
    let lower = name.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w == "all")
        || name.contains("全部")
        || name.contains("全选")
}

/// The screen's list items (see the module docs), in screen order.
pub fn list_items(obs: &Observation) -> Vec<&Element> {
    obs.elements
        .iter()
        .filter(|e| matches!(e.role, Role::Checkbox | Role::Switch))
        .filter(|e| !e.name.trim().is_empty() && !is_all_toggle(&e.name))
        .collect()
}

/// `assert N items are checked | not checked | listed` (`checked`: `Some(true)`,
/// `Some(false)`, `None`): `Ok` with a detail line, or the count seen and the items.
pub fn items(obs: &Observation, checked: Option<bool>, want: u32) -> Result<String, String> {
    let all = list_items(obs);
    let found: Vec<&Element> = all
        .iter()
        .copied()
        .filter(|e| checked.is_none_or(|c| e.checked.is_yes() == c))
        .collect();
    let state = match checked {
        Some(true) => " checked",
        Some(false) => " not checked",
        None => "",
    };
    let said = |n: usize| {
        format!(
            "{n} list item{}{state} (of {})",
            if n == 1 { "" } else { "s" },
            all.len()
        )
    };
    if found.len() == want as usize {
        return Ok(said(found.len()));
    }
    Err(format!(
        "{}, not {want}{}",
        said(found.len()),
        listing(&found, |e| format!("{:?}", e.name.trim()))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_perception::{build, Node, Rect, Screen, Tree};

    struct N {
        role: Role,
        name: &'static str,
        b: Rect,
        value: Option<&'static str>,
        checked: Tri,
        password: bool,
    }

    fn n(role: Role, name: &'static str, b: Rect) -> N {
        N {
            role,
            name,
            b,
            value: None,
            checked: Tri::Unknown,
            password: false,
        }
    }

    fn obs(nodes: Vec<N>) -> Observation {
        let mut tree = Tree::default();
        tree.nodes.push(Node::new(Role::Other, "root", ""));
        tree.nodes[0].bounds = Some(Rect::new(0.0, 0.0, 500.0, 500.0));
        for x in nodes {
            let mut node = Node::new(x.role, x.role.as_str(), x.name);
            node.bounds = Some(x.b);
            node.parent = Some(0);
            node.value = x.value.map(str::to_string);
            node.checked = x.checked;
            if x.password {
                node.password = Tri::Yes;
            }
            tree.nodes.push(node);
        }
        let screen = Screen {
            width: 500.0,
            height: 500.0,
            dpr: 1.0,
        };
        build(&tree, screen, 7)
    }

    fn el(o: &Observation, role: Role) -> &Element {
        o.elements.iter().find(|e| e.role == role).unwrap()
    }

    #[test]
    fn checked_reads_the_state_and_names_what_has_none() {
        let o = obs(vec![
            N {
                checked: Tri::Yes,
                ..n(
                    Role::Checkbox,
                    "Remember me",
                    Rect::new(0.0, 0.0, 20.0, 20.0),
                )
            },
            n(Role::Button, "Save", Rect::new(0.0, 50.0, 60.0, 20.0)),
        ]);
        let cb = el(&o, Role::Checkbox);
        assert!(checked(cb, true).is_ok());
        let e = checked(cb, false).unwrap_err();
        assert!(e.ends_with("\"Remember me\" is checked"), "{e}");
        let e = checked(el(&o, Role::Button), true).unwrap_err();
        assert!(
            e.contains("has no checked state") && e.contains("Save"),
            "{e}"
        );
    }

    #[test]
    fn values_compare_trimmed_and_case_sensitively() {
        let o = obs(vec![
            N {
                value: Some("  Alice   Smith "),
                ..n(Role::Textfield, "Name", Rect::new(0.0, 0.0, 100.0, 20.0))
            },
            n(Role::Textfield, "Notes", Rect::new(0.0, 40.0, 100.0, 20.0)),
            N {
                value: Some("hunter2"),
                password: true,
                ..n(
                    Role::Textfield,
                    "Password",
                    Rect::new(0.0, 80.0, 100.0, 20.0),
                )
            },
            n(Role::Text, "Hello", Rect::new(0.0, 120.0, 100.0, 20.0)),
        ]);
        let name = &o.elements[0];
        assert!(value(name, "Alice Smith", "Alice Smith").is_ok());
        let e = value(name, "alice smith", "alice smith").unwrap_err();
        assert!(
            e.contains("holds \"Alice Smith\"") && e.contains("case"),
            "{e}"
        );
        let notes = &o.elements[1];
        assert!(value(notes, "", "").is_ok(), "no value is empty");
        let e = value(name, "", "").unwrap_err();
        assert!(e.contains("not empty"), "{e}");
        let e = value(notes, "x", "x").unwrap_err();
        assert!(e.contains("is empty, not \"x\""), "{e}");
        let e = value(&o.elements[2], "hunter2", "${secret.PW}").unwrap_err();
        assert!(e.contains("password") && !e.contains("hunter2"), "{e}");
        let e = value(el(&o, Role::Text), "Hello", "Hello").unwrap_err();
        assert!(e.contains("not a field"), "{e}");
    }

    #[test]
    fn counts_elements_that_show_the_text_once_each() {
        // Two todo rows, each a checkbox named by its row's text and the text itself; a
        // field holding "buy" and a password field holding it (never counted).
        let o = obs(vec![
            n(Role::Checkbox, "buy milk", Rect::new(0.0, 0.0, 20.0, 20.0)),
            n(Role::Text, "buy milk", Rect::new(30.0, 0.0, 100.0, 20.0)),
            n(
                Role::Checkbox,
                "buy bread",
                Rect::new(0.0, 40.0, 20.0, 20.0),
            ),
            n(Role::Text, "Buy  bread", Rect::new(30.0, 40.0, 100.0, 20.0)),
            N {
                value: Some("to buy"),
                ..n(Role::Textfield, "New", Rect::new(0.0, 80.0, 100.0, 20.0))
            },
            N {
                value: Some("buy"),
                password: true,
                ..n(Role::Textfield, "PW", Rect::new(0.0, 120.0, 100.0, 20.0))
            },
            n(Role::Checkbox, "Buy now", Rect::new(0.0, 160.0, 20.0, 20.0)),
            n(Role::Image, "buy icon", Rect::new(0.0, 200.0, 20.0, 20.0)),
        ]);
        // Texts 2, the field's value 1, the checkbox with no text of its own in its row 1.
        assert_eq!(showing(&o, "buy").len(), 4);
        assert!(count(&o, "buy", 4).is_ok());
        assert!(count(&o, "BUY MILK", 1).is_ok());
        let e = count(&o, "buy milk", 2).unwrap_err();
        assert!(e.starts_with("1 element shows \"buy milk\", not 2"), "{e}");
        assert!(count(&o, "nothing here", 0).is_ok());
        let e = count(&o, "nothing here", 1).unwrap_err();
        assert!(e.starts_with("0 elements"), "{e}");
    }

    #[test]
    fn items_count_named_toggles_by_state_but_select_all() {
        let tick = |name: &'static str, y: f64, on: bool| N {
            checked: if on { Tri::Yes } else { Tri::No },
            ..n(Role::Checkbox, name, Rect::new(0.0, y, 200.0, 20.0))
        };
        let o = obs(vec![
            tick("Mark all as complete", 0.0, false),
            tick("buy milk", 40.0, true),
            tick("walk dog", 80.0, false),
            tick("pay rent", 120.0, true),
            n(
                Role::Button,
                "Clear completed",
                Rect::new(0.0, 160.0, 100.0, 20.0),
            ),
        ]);
        assert_eq!(list_items(&o).len(), 3);
        assert!(items(&o, Some(true), 2).is_ok());
        assert!(items(&o, Some(false), 1).is_ok());
        assert!(items(&o, None, 3).is_ok());
        let e = items(&o, Some(true), 1).unwrap_err();
        assert!(
            e.contains("2 list items checked (of 3), not 1")
                && e.contains("\"buy milk\"")
                && e.contains("\"pay rent\""),
            "{e}"
        );
        let e = items(&o, None, 4).unwrap_err();
        assert!(e.starts_with("3 list items (of 3), not 4"), "{e}");
        assert!(is_all_toggle("Select-all") && is_all_toggle("全选") && !is_all_toggle("call Al"));
    }
}
