//! HarmonyOS `uitest dumpLayout` JSON normalizer.
//!
//! Input: the JSON file `hdc shell uitest dumpLayout` writes: a node object
//! `{"attributes": {…}, "children": [node, …]}` (or an array of them, one per window).
//! Attributes read: `type` (ArkUI component: `Button`, `Text`, `TextInput`, `Toggle`,
//! `Checkbox`, `Image`, `Column`, …), `text`, `description`, `hint`, `id`, `key`,
//! `bounds` (`"[x1,y1][x2,y2]"`, device px), `enabled`, `focused`, `focusable`, `selected`,
//! `clickable`, `longClickable`, `scrollable`, `checkable`, `checked`, `visible`, `opacity`.
//! Values are strings (`"true"`) on the wire; JSON booleans and numbers are accepted too.
//! Others (`accessibilityId`, `hashcode`, `hostWindowId`, `zIndex`, …) are read past.
//!
//! Boxes: `bounds` is clipped to the window only, so a row scrolled half out of a `Scroll`
//! keeps a box over the title bar above it, and items the list keeps outside its viewport
//! show up over real rows. The box is therefore `origBounds` (the whole box; `bounds` when
//! absent) clipped to every scrolling ancestor's box ([`VIEWPORT_TYPES`] or
//! `scrollable: true`); a node entirely outside its viewport gets no box and is not shown.
//! Then [`crate::touch::settle`] makes one control one element (as for Android).
//!
//! Units: like [`crate::android`], boxes are divided by `density` (vp = px / density), so the
//! tree is in logical px and pairs with `Screen::from_device_px(w_px, h_px, density)`.
//!
//! Roles: by `type`, then a checkable text/image/layout node becomes a checkbox and a
//! clickable one a button. `visible: false` or `opacity: 0` marks the node ignored.
//! `platform_id` is `id`, else `key`.

use serde_json::{Map, Value};

use crate::geometry::Rect;
use crate::role::Role;
use crate::tree::{Node, Tree, Tri};

/// A malformed layout dump.
#[derive(Debug, thiserror::Error)]
pub enum HarmonyError {
    /// Not a node object or an array of them.
    #[error("HarmonyOS layout: {0}")]
    Shape(&'static str),
}

/// Maps an ArkUI component type to the canonical role, before the clickable / checkable
/// adjustments [`normalize`] applies.
pub fn map_type(ty: &str) -> Role {
    if ty.contains("Dialog") || ty == "ActionSheet" || ty == "Popup" {
        return Role::Dialog;
    }
    match ty {
        "Button" => Role::Button,
        "TextInput" | "TextArea" | "RichEditor" | "SearchField" => Role::Textfield,
        "Checkbox" | "CheckboxGroup" => Role::Checkbox,
        "Toggle" | "Switch" => Role::Switch,
        "Radio" => Role::Radio,
        "Hyperlink" => Role::Link,
        "Select" => Role::Combobox,
        "Slider" | "Rating" => Role::Slider,
        "MenuItem" => Role::Menuitem,
        "ListItem" | "GridItem" => Role::Listitem,
        "Image" | "ImageSpan" | "SymbolGlyph" | "ImageAnimator" => Role::Image,
        "Text" | "Span" => Role::Text,
        _ => Role::Other,
    }
}

fn attr_str(attrs: &Map<String, Value>, key: &str) -> Option<String> {
    match attrs.get(key)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn attr_tri(attrs: &Map<String, Value>, key: &str) -> Tri {
    match attrs.get(key) {
        Some(Value::Bool(b)) => Tri::from_opt(Some(*b)),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Tri::Yes,
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Tri::No,
        _ => Tri::Unknown,
    }
}

fn convert(attrs: &Map<String, Value>, density: f64) -> Node {
    let ty = attr_str(attrs, "type").unwrap_or_default();
    let text = attr_str(attrs, "text");
    let desc = attr_str(attrs, "description");
    let hint = attr_str(attrs, "hint");
    let clickable = match (
        attr_tri(attrs, "clickable"),
        attr_tri(attrs, "longClickable"),
    ) {
        (Tri::Yes, _) | (_, Tri::Yes) => Tri::Yes,
        (c, _) => c,
    };
    let checkable = attr_tri(attrs, "checkable");
    let mut role = map_type(&ty);
    let plain = matches!(
        role,
        Role::Other | Role::Text | Role::Image | Role::Listitem
    );
    if plain && checkable.is_yes() {
        role = Role::Checkbox;
    } else if plain && clickable.is_yes() {
        role = Role::Button;
    }
    let mut node = Node::new(role, &ty, "");
    if role == Role::Textfield {
        node.name = desc.unwrap_or_default();
        node.value = text.filter(|t| Some(t) != hint.as_ref());
        node.editable = Tri::Yes;
    } else {
        node.name = text.or(desc).unwrap_or_default();
    }
    node.placeholder = hint;
    // `bounds` is clipped to the window only; `origBounds` is the whole box, which
    // [`normalize`] clips to the scroll viewports around the node.
    node.bounds = attr_str(attrs, "origBounds")
        .or_else(|| attr_str(attrs, "bounds"))
        .as_deref()
        .and_then(Rect::parse_brackets)
        .map(|r| r.scale(1.0 / density));
    let transparent = attr_str(attrs, "opacity")
        .and_then(|o| o.trim().parse::<f64>().ok())
        .is_some_and(|o| o <= 0.0);
    node.ignored = attr_tri(attrs, "visible") == Tri::No || transparent;
    node.checked = attr_tri(attrs, "checked");
    node.enabled = attr_tri(attrs, "enabled");
    node.focused = attr_tri(attrs, "focused");
    node.focusable = attr_tri(attrs, "focusable");
    node.clickable = clickable;
    node.selected = attr_tri(attrs, "selected");
    node.scrollable = attr_tri(attrs, "scrollable");
    node.platform_id = attr_str(attrs, "id").or_else(|| attr_str(attrs, "key"));
    node
}

/// Normalizes a `uitest dumpLayout` JSON value into a [`Tree`] in pre-order, boxes in logical
/// px (device px / `density`; non-positive or non-finite → 1).
pub fn normalize(layout: &Value, density: f64) -> Result<Tree, HarmonyError> {
    let density = if density.is_finite() && density > 0.0 {
        density
    } else {
        1.0
    };
    let roots: Vec<&Value> = match layout {
        Value::Array(a) => a.iter().collect(),
        Value::Object(_) => vec![layout],
        _ => {
            return Err(HarmonyError::Shape(
                "expected a node object or an array of them",
            ))
        }
    };
    let empty = Map::new();
    let mut tree = Tree::default();
    // Iterative pre-order walk: (json node, parent tree index, viewport of the nearest
    // scrolling ancestors).
    let mut stack: Vec<(&Value, Option<usize>, Option<Rect>)> =
        roots.into_iter().rev().map(|r| (r, None, None)).collect();
    while let Some((v, parent, viewport)) = stack.pop() {
        let Value::Object(obj) = v else {
            return Err(HarmonyError::Shape("a node is not an object"));
        };
        let attrs = match obj.get("attributes") {
            Some(Value::Object(a)) => a,
            None => &empty,
            Some(_) => return Err(HarmonyError::Shape("`attributes` is not an object")),
        };
        let mut node = convert(attrs, density);
        if let (Some(b), Some(vp)) = (node.bounds, viewport) {
            // Outside its scroll viewport (a row scrolled away, a cached item): not shown.
            node.bounds = b.intersect(&vp);
        }
        let inner = if is_viewport(&node) {
            node.bounds.or(viewport)
        } else {
            viewport
        };
        let ti = tree.push(node, parent);
        match obj.get("children") {
            Some(Value::Array(children)) => {
                stack.extend(children.iter().rev().map(|c| (c, Some(ti), inner)));
            }
            None | Some(Value::Null) => {}
            Some(_) => return Err(HarmonyError::Shape("`children` is not an array")),
        }
    }
    crate::touch::settle(&mut tree, map_type);
    Ok(tree)
}

/// Components that show a window onto scrolled content: their children are clipped to them.
pub const VIEWPORT_TYPES: [&str; 5] = ["Scroll", "List", "Grid", "WaterFlow", "Swiper"];

fn is_viewport(n: &Node) -> bool {
    n.scrollable.is_yes() || VIEWPORT_TYPES.contains(&n.platform_role.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_and_booleans_and_shape_errors() {
        let v = json!({"attributes": {"type": "root", "bounds": "[0,0][1260,2720]"}, "children": [
            {"attributes": {"type": "Toggle", "text": "Wi-Fi", "id": "wifi", "bounds": "[40,80][220,136]",
                            "clickable": true, "checked": "true", "enabled": "true"}, "children": []},
            {"attributes": {"type": "Column", "clickable": "true", "key": "row", "opacity": "0",
                            "bounds": "[0,200][1260,300]"}}
        ]});
        let t = normalize(&v, 2.0).unwrap();
        assert_eq!(t.nodes.len(), 3);
        let sw = &t.nodes[1];
        assert_eq!(
            (sw.role, sw.checked, sw.clickable),
            (Role::Switch, Tri::Yes, Tri::Yes)
        );
        assert_eq!(sw.platform_id.as_deref(), Some("wifi"));
        assert_eq!(sw.focused, Tri::Unknown);
        assert_eq!(sw.bounds, Some(Rect::new(20.0, 40.0, 90.0, 28.0)));
        let row = &t.nodes[2];
        assert_eq!((row.role, row.ignored), (Role::Button, true));
        assert_eq!(row.platform_id.as_deref(), Some("row"));
        assert!(normalize(&json!("x"), 1.0).is_err());
        assert!(normalize(&json!({"children": 3}), 1.0).is_err());
    }
}
