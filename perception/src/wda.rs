//! WebDriverAgent `GET /source` XML normalizer (iOS, XCUITest).
//!
//! Input: the XML source: elements named by their type (`<XCUIElementTypeButton …>`), each
//! with `type, name, label, value, placeholderValue, enabled, visible, accessible, selected,
//! focused, x, y, width, height, index`. Appium's `<AppiumAUT>` wrapper, if present, is
//! skipped. `x/y/width/height` are points, which are the tree's logical px as they come
//! (pair with `Screen { width, height, dpr: UIScreen scale }`).
//!
//! Roles: by element type (`XCUIElementTypeStaticText` → text, `…Cell` → button since a cell
//! is the tap target of a table row and absorbs its texts, `…Alert`/`…Sheet` → dialog, …).
//! Name: `label`, else `name`, else (static text) `value`. A switch's or checkbox's `value`
//! `"1"`/`"0"` becomes `checked`. A text field's `value` is its typed text when the document
//! carries `placeholderValue` (an empty field reports its placeholder as its value); a source
//! without any `placeholderValue` (older WDA) cannot tell the two apart, so there the value
//! only labels the field (its name), claimed neither as value nor as placeholder. `visible="false"` marks the node ignored (`accessible` is
//! read past: non-accessible containers still hold visible text). `platform_id` is `name`
//! (WDA reports the accessibility identifier there, falling back to the label).

use crate::geometry::Rect;
use crate::role::Role;
use crate::tree::{Node, Tree, Tri};
use crate::xml::{self, tri_attr, XmlElement, XmlError};

/// Maps an `XCUIElementType…` name to the canonical role.
pub fn map_type(ty: &str) -> Role {
    match ty.strip_prefix("XCUIElementType").unwrap_or(ty) {
        "Button" | "Cell" | "Key" | "MenuButton" | "PopUpButton" => Role::Button,
        "TextField" | "SecureTextField" | "SearchField" | "TextView" => Role::Textfield,
        "Switch" | "Toggle" => Role::Switch,
        "CheckBox" => Role::Checkbox,
        "RadioButton" => Role::Radio,
        "Link" => Role::Link,
        "Tab" => Role::Tab,
        "MenuItem" => Role::Menuitem,
        "ComboBox" | "Picker" | "PickerWheel" | "DatePicker" => Role::Combobox,
        "Slider" | "Stepper" => Role::Slider,
        "Image" | "Icon" => Role::Image,
        "StaticText" => Role::Text,
        "Alert" | "Sheet" | "Dialog" => Role::Dialog,
        _ => Role::Other,
    }
}

fn non_empty(el: &XmlElement, name: &str) -> Option<String> {
    el.attr(name)
        .filter(|v| !v.trim().is_empty())
        .map(str::to_string)
}

fn num(el: &XmlElement, name: &str) -> Option<f64> {
    el.attr(name)?.trim().parse::<f64>().ok()
}

/// `placeholders`: whether the document carries `placeholderValue` at all (older WDA builds
/// do not; there an empty field's `value` is its placeholder and cannot be told from text).
fn convert(el: &XmlElement, placeholders: bool) -> Node {
    let ty = el.attr("type").unwrap_or(&el.tag).to_string();
    let role = map_type(&ty);
    let label = non_empty(el, "label");
    let name = non_empty(el, "name");
    let value = non_empty(el, "value");
    let placeholder = non_empty(el, "placeholderValue");
    let mut node = Node::new(role, &ty, "");
    match role {
        Role::Textfield => {
            let secure = ty.ends_with("SecureTextField");
            if placeholders {
                node.name = label.unwrap_or_default();
                node.value = value.filter(|v| Some(v) != placeholder.as_ref());
            } else {
                // Typed text or placeholder, the source cannot tell: a label, not a value.
                node.name = label.or(value.filter(|_| !secure)).unwrap_or_default();
            }
            node.editable = Tri::Yes;
            node.password = Tri::from_opt(Some(secure));
        }
        Role::Switch | Role::Checkbox | Role::Radio => {
            node.name = label.or(name.clone()).unwrap_or_default();
            node.checked = match value.as_deref() {
                Some("1") => Tri::Yes,
                Some("0") => Tri::No,
                _ => Tri::Unknown,
            };
        }
        // A StaticText may carry its text only in `name` (no label, no value).
        Role::Text => node.name = label.or(value).or(name.clone()).unwrap_or_default(),
        _ => {
            node.name = label.or(name.clone()).unwrap_or_default();
            node.value = value;
        }
    }
    node.placeholder = placeholder;
    if let (Some(x), Some(y), Some(w), Some(h)) = (
        num(el, "x"),
        num(el, "y"),
        num(el, "width"),
        num(el, "height"),
    ) {
        node.bounds = Some(Rect::new(x, y, w, h));
    }
    node.ignored = tri_attr(el, "visible") == Tri::No;
    node.enabled = tri_attr(el, "enabled");
    node.selected = tri_attr(el, "selected");
    node.focused = tri_attr(el, "focused");
    node.platform_id = name;
    node
}

/// Normalizes a WDA `/source` XML document into a [`Tree`] in pre-order, boxes in points.
pub fn normalize(source: &str) -> Result<Tree, XmlError> {
    let els = xml::parse(source)?;
    if !els.iter().any(|e| e.tag.starts_with("XCUIElementType")) {
        let root = els.first().map(|e| e.tag.clone()).unwrap_or_default();
        return Err(XmlError::WrongFormat {
            expected: "WebDriverAgent source",
            root,
        });
    }
    let placeholders = els.iter().any(|e| e.attr("placeholderValue").is_some());
    let mut tree = Tree::default();
    let mut map: Vec<Option<usize>> = vec![None; els.len()];
    for (i, el) in els.iter().enumerate() {
        if !el.tag.starts_with("XCUIElementType") {
            continue;
        }
        let parent = el.parent.and_then(|p| map[p]);
        map[i] = Some(tree.push(convert(el, placeholders), parent));
    }
    Ok(tree)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_values_and_wrapper() {
        let src = r#"<?xml version="1.0" encoding="UTF-8"?><AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Settings" label="Settings" enabled="true" visible="true" accessible="false" x="0" y="0" width="390" height="844" index="0"><XCUIElementTypeSwitch type="XCUIElementTypeSwitch" name="Airplane Mode" label="Airplane Mode" value="0" enabled="true" visible="true" accessible="true" x="16" y="120" width="358" height="44" index="0"/><XCUIElementTypeSecureTextField type="XCUIElementTypeSecureTextField" value="Password" placeholderValue="Password" enabled="true" visible="false" x="16" y="200" width="358" height="44" index="1"/></XCUIElementTypeApplication></AppiumAUT>"#;
        let t = normalize(src).unwrap();
        assert_eq!(t.nodes.len(), 3);
        assert_eq!(t.nodes[1].role, Role::Switch);
        assert_eq!(t.nodes[1].checked, Tri::No);
        assert_eq!(t.nodes[1].bounds, Some(Rect::new(16.0, 120.0, 358.0, 44.0)));
        let android = r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]"/></hierarchy>"#;
        assert_eq!(
            normalize(android).unwrap_err().to_string(),
            "not a WebDriverAgent source document: its root element is <hierarchy>"
        );
        let only_name = r#"<XCUIElementTypeApplication type="XCUIElementTypeApplication" x="0" y="0" width="390" height="844"><XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="Balance: 42.00" enabled="true" visible="true" x="16" y="100" width="300" height="30"/></XCUIElementTypeApplication>"#;
        assert_eq!(
            normalize(only_name).unwrap().nodes[1].name,
            "Balance: 42.00"
        );
        let pw = &t.nodes[2];
        assert_eq!(
            (pw.role, pw.password, pw.ignored),
            (Role::Textfield, Tri::Yes, true)
        );
        assert_eq!(pw.value, None);
        assert_eq!(pw.placeholder.as_deref(), Some("Password"));
        assert_eq!(pw.focused, Tri::Unknown);
    }
}
