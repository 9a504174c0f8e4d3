//! Android `uiautomator dump` XML normalizer.
//!
//! Input: the XML `uiautomator dump` writes: `<hierarchy rotation="0..3">` holding one
//! `<node>` per window root (one in a plain dump, several in a multi-window dump), each
//! `<node>` with the attributes `index, text, resource-id, class, package, content-desc,
//! checkable, checked, clickable, enabled, focusable, focused, scrollable, long-clickable,
//! password, selected, bounds="[x1,y1][x2,y2]"` and, on newer releases, `visible-to-user,
//! drawing-order, hint, display-id, NAF`. A trailing `UI hierchary dumped to: /dev/tty` line
//! (from `uiautomator dump /dev/tty`) is tolerated.
//!
//! Units: `bounds` are device px; the tree is in **logical px (dp)**: every box is divided by
//! the `density` passed in (`ro.sf.lcd_density / 160`, e.g. 2.625 for 420 dpi), so it pairs
//! with [`Screen::from_device_px`](crate::Screen::from_device_px)`(w_px, h_px, density)` and
//! the element list's `bbox_px` comes back in device px. Boxes are already in the rotated
//! display frame; `rotation` is reported, not applied.
//!
//! Roles: by the class's simple name (`Button`, `EditText`, `CheckBox`, `Switch`, …); then
//! a `checkable` text/image/layout node becomes a checkbox, and a `clickable` or
//! `long-clickable` text/image/layout node a button (so a clickable row absorbs its text).
//! A class name containing `Dialog` is a dialog. `platform_role` keeps the full class name.
//! Then [`crate::touch::settle`] makes one control one element: a non-clickable `Button` /
//! `RadioButton` / `CheckBox` / `CheckedTextView` inside a clickable node is folded into it
//! (a list row with a radio button is one radio with the row's text and the button's state),
//! a selected non-clickable tab keeps its siblings' role, an unnamed clickable wrapper or
//! full-screen scrim is not a control, and a dump of a dialog's window alone is a dialog.
//!
//! Text fields: `text` is the typed value and `hint` the placeholder when the dump carries
//! `hint`; older dumps do not, and an empty field reports its hint as its text, so there the
//! text only labels the field (name), claimed neither as value nor as hint.
//! Properties missing from the dump stay [`Tri::Unknown`]. `visible-to-user="false"` marks
//! the node ignored. `drawing-order`, `display-id` and `NAF` are read past (pre-order is taken
//! as drawing order).

use crate::geometry::Rect;
use crate::role::Role;
use crate::tree::{Node, Tree, Tri};
use crate::xml::{self, tri_attr, XmlElement, XmlError};

/// A normalized `uiautomator dump`.
#[derive(Debug, Clone, PartialEq)]
pub struct AndroidDump {
    /// The node tree, boxes in dp (device px / density).
    pub tree: Tree,
    /// Display rotation in degrees (0, 90, 180, 270) from `<hierarchy rotation>`; `None` when
    /// absent.
    pub rotation: Option<u16>,
}

/// Maps an Android widget class to the canonical role, before the clickable / checkable
/// adjustments [`normalize`] applies.
pub fn map_class(class: &str) -> Role {
    let simple = class.rsplit(['.', '$']).next().unwrap_or(class);
    if class.contains("Dialog") {
        return Role::Dialog;
    }
    match simple {
        "Button"
        | "ImageButton"
        | "MaterialButton"
        | "AppCompatButton"
        | "AppCompatImageButton"
        | "FloatingActionButton"
        | "ExtendedFloatingActionButton" => Role::Button,
        "EditText"
        | "AutoCompleteTextView"
        | "MultiAutoCompleteTextView"
        | "AppCompatEditText"
        | "TextInputEditText"
        | "SearchAutoComplete" => Role::Textfield,
        "CheckBox" | "AppCompatCheckBox" | "MaterialCheckBox" | "CheckedTextView" => Role::Checkbox,
        "Switch" | "SwitchCompat" | "SwitchMaterial" | "MaterialSwitch" | "ToggleButton" => {
            Role::Switch
        }
        "RadioButton" | "AppCompatRadioButton" | "MaterialRadioButton" => Role::Radio,
        "Spinner" | "AppCompatSpinner" => Role::Combobox,
        "SeekBar" | "AppCompatSeekBar" | "RatingBar" | "Slider" | "RangeSlider" => Role::Slider,
        "TabView" | "Tab" => Role::Tab,
        "ImageView" | "AppCompatImageView" | "ShapeableImageView" => Role::Image,
        "TextView" | "AppCompatTextView" | "MaterialTextView" => Role::Text,
        _ => Role::Other,
    }
}

fn non_empty(el: &XmlElement, name: &str) -> Option<String> {
    el.attr(name)
        .filter(|v| !v.trim().is_empty())
        .map(str::to_string)
}

fn convert(el: &XmlElement, density: f64) -> Node {
    let class = el.attr("class").unwrap_or("");
    let text = non_empty(el, "text");
    let desc = non_empty(el, "content-desc");
    let hint = non_empty(el, "hint");
    let clickable = tri_attr(el, "clickable");
    let long_clickable = tri_attr(el, "long-clickable");
    let checkable = tri_attr(el, "checkable");
    let mut role = map_class(class);
    let plain = matches!(role, Role::Other | Role::Text | Role::Image);
    if plain && checkable.is_yes() {
        role = Role::Checkbox;
    } else if plain && (clickable.is_yes() || long_clickable.is_yes()) {
        role = Role::Button;
    }
    let mut node = Node::new(role, class, "");
    if role == Role::Textfield {
        node.editable = Tri::Yes;
        if el.attr("hint").is_some() {
            node.name = desc.unwrap_or_default();
            // Some releases report the hint as the text of an empty field too.
            node.value = text.filter(|t| Some(t) != hint.as_ref());
            node.placeholder = hint;
        } else {
            // Older dumps carry no `hint`: an empty field reports its hint as its text, so
            // the text is the typed value or the hint and the dump cannot tell which. It
            // labels the field (a step can name it) but is claimed as neither.
            let password = tri_attr(el, "password").is_yes();
            node.name = desc.or(text.filter(|_| !password)).unwrap_or_default();
        }
    } else {
        node.name = text.or(desc).unwrap_or_default();
        node.placeholder = hint;
    }
    node.bounds = el
        .attr("bounds")
        .and_then(Rect::parse_brackets)
        .map(|r| r.scale(1.0 / density));
    node.ignored = tri_attr(el, "visible-to-user") == Tri::No;
    node.checked = tri_attr(el, "checked");
    node.enabled = tri_attr(el, "enabled");
    node.focused = tri_attr(el, "focused");
    node.focusable = tri_attr(el, "focusable");
    node.clickable = match (clickable, long_clickable) {
        (Tri::Yes, _) | (_, Tri::Yes) => Tri::Yes,
        (c, _) => c,
    };
    node.password = tri_attr(el, "password");
    node.selected = tri_attr(el, "selected");
    node.scrollable = tri_attr(el, "scrollable");
    node.platform_id = non_empty(el, "resource-id");
    node
}

/// Normalizes a `uiautomator dump` into a [`Tree`] in pre-order, boxes in dp (device px /
/// `density`; a non-positive or non-finite density is taken as 1). Errors only when the XML
/// is malformed or empty.
pub fn normalize(dump: &str, density: f64) -> Result<AndroidDump, XmlError> {
    let density = if density.is_finite() && density > 0.0 {
        density
    } else {
        1.0
    };
    let els = xml::parse(dump)?;
    let (rotation, skip_root) = match els.first() {
        Some(root) if root.tag == "hierarchy" => (
            root.attr("rotation")
                .and_then(|r| r.trim().parse::<u16>().ok())
                .map(|r| (r % 4) * 90),
            true,
        ),
        _ => (None, false),
    };
    let mut tree = Tree::default();
    // XML element index → tree index.
    let mut map: Vec<Option<usize>> = vec![None; els.len()];
    for (i, el) in els.iter().enumerate() {
        if (skip_root && i == 0) || el.tag != "node" {
            continue;
        }
        let parent = el.parent.and_then(|p| map[p]);
        map[i] = Some(tree.push(convert(el, density), parent));
    }
    crate::touch::settle(&mut tree, map_class);
    Ok(AndroidDump { tree, rotation })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_roles_units_and_trailer() {
        let xml = r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="1"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]"><node index="0" text="hint me" resource-id="p:id/q" class="android.widget.EditText" package="p" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="true" password="false" selected="false" bounds="[42,210][1038,336]" hint="hint me" /><node index="1" text="Row" class="android.widget.LinearLayout" clickable="true" bounds="[0,400][1080,500]" visible-to-user="false"/></node></hierarchy>
UI hierchary dumped to: /dev/tty"#;
        let d = normalize(xml, 2.0).unwrap();
        assert_eq!(d.rotation, Some(90));
        let t = &d.tree;
        assert_eq!(t.nodes.len(), 3);
        assert_eq!(t.nodes[0].children, vec![1, 2]);
        let f = &t.nodes[1];
        assert_eq!(f.role, Role::Textfield);
        assert_eq!(f.value, None);
        assert_eq!(f.placeholder.as_deref(), Some("hint me"));
        assert_eq!(f.bounds, Some(Rect::new(21.0, 105.0, 498.0, 63.0)));
        assert_eq!(f.platform_id.as_deref(), Some("p:id/q"));
        assert_eq!(f.focused, Tri::Yes);
        let row = &t.nodes[2];
        assert_eq!(row.role, Role::Button);
        assert!(row.ignored);
        // Attributes the dump did not carry stay unknown.
        assert_eq!(row.enabled, Tri::Unknown);
        assert_eq!(row.password, Tri::Unknown);
    }
}
