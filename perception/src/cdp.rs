//! Chrome DevTools Protocol normalizer (web and Electron).
//!
//! Input: the result of `Accessibility.getFullAXTree` (the accessibility tree, no geometry)
//! and of `DOMSnapshot.captureSnapshot` (layout boxes of every DOM node, in document CSS px),
//! joined on `backendDOMNodeId`. Boxes are made viewport-relative by subtracting the main
//! document's scroll offset. Only the main document's boxes are used; nodes inside iframes
//! keep no box and are dropped (known gap).
//!
//! Role mapping follows Chromium's `ax::mojom::Role` names as they appear on the wire
//! (`button`, `textbox`, `StaticText`, `RootWebArea`, …).

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use crate::geometry::Rect;
use crate::role::Role;
use crate::tree::{Node, NodeRef, Tree, Tri};

/// A malformed CDP payload.
#[derive(Debug, thiserror::Error)]
pub enum CdpError {
    /// The JSON did not have the documented shape.
    #[error("CDP {what} has an unexpected shape: {source}")]
    Shape {
        what: &'static str,
        #[source]
        source: serde_json::Error,
    },
}

#[derive(Deserialize)]
struct AxTree {
    nodes: Vec<AxNode>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AxNode {
    node_id: String,
    #[serde(default)]
    ignored: bool,
    role: Option<AxValue>,
    name: Option<AxValue>,
    value: Option<AxValue>,
    #[serde(default)]
    properties: Vec<AxProperty>,
    #[serde(default)]
    child_ids: Vec<String>,
    parent_id: Option<String>,
    #[serde(rename = "backendDOMNodeId")]
    backend_dom_node_id: Option<i64>,
}

#[derive(Deserialize)]
struct AxValue {
    value: Option<Value>,
    #[serde(default)]
    sources: Vec<AxValueSource>,
}

#[derive(Deserialize)]
struct AxValueSource {
    attribute: Option<String>,
    value: Option<Box<AxValue>>,
}

#[derive(Deserialize)]
struct AxProperty {
    name: String,
    value: AxValue,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Snapshot {
    documents: Vec<SnapDoc>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SnapDoc {
    nodes: SnapNodes,
    layout: SnapLayout,
    #[serde(default)]
    scroll_offset_x: f64,
    #[serde(default)]
    scroll_offset_y: f64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SnapNodes {
    #[serde(default)]
    backend_node_id: Vec<i64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SnapLayout {
    #[serde(default)]
    node_index: Vec<usize>,
    #[serde(default)]
    bounds: Vec<Vec<f64>>,
}

fn as_text(v: &Option<AxValue>) -> String {
    match v.as_ref().and_then(|v| v.value.as_ref()) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// Maps a Chromium role name to the canonical role.
pub fn map_role(cdp_role: &str) -> Role {
    match cdp_role {
        "button" | "PopUpButton" | "ToggleButton" | "DisclosureTriangle" => Role::Button,
        // `Date` / `DateTime` / `InputTime`: Chromium's roles of `<input type=date|datetime-local|
        // month|week|time>` (read off Chromium 156's `Accessibility.getFullAXTree`); typing the
        // digits fills their segments in order.
        "textbox"
        | "searchbox"
        | "TextField"
        | "spinbutton"
        | "TextFieldWithComboBox"
        | "Date"
        | "DateTime"
        | "InputTime" => Role::Textfield,
        "checkbox" | "menuitemcheckbox" => Role::Checkbox,
        "switch" => Role::Switch,
        "radio" | "menuitemradio" => Role::Radio,
        "link" => Role::Link,
        "tab" => Role::Tab,
        "menuitem" | "option" | "MenuListOption" => Role::Menuitem,
        "listitem" => Role::Listitem,
        "combobox" | "ComboBoxMenuButton" | "ComboBoxSelect" => Role::Combobox,
        "slider" => Role::Slider,
        "img" | "image" | "graphics-symbol" => Role::Image,
        "heading" => Role::Heading,
        "StaticText" => Role::Text,
        "dialog" | "alertdialog" => Role::Dialog,
        _ => Role::Other,
    }
}

/// Layout boxes (document CSS px, viewport-relative after scroll) by backend node id.
fn boxes(snapshot: &Value) -> Result<HashMap<i64, Rect>, CdpError> {
    let snap: Snapshot =
        serde_json::from_value(snapshot.clone()).map_err(|source| CdpError::Shape {
            what: "DOMSnapshot.captureSnapshot result",
            source,
        })?;
    let mut out: HashMap<i64, Rect> = HashMap::new();
    let Some(doc) = snap.documents.first() else {
        return Ok(out);
    };
    for (li, &ni) in doc.layout.node_index.iter().enumerate() {
        let (Some(&backend), Some(b)) =
            (doc.nodes.backend_node_id.get(ni), doc.layout.bounds.get(li))
        else {
            continue;
        };
        if b.len() < 4 {
            continue;
        }
        let r = Rect::new(
            b[0] - doc.scroll_offset_x,
            b[1] - doc.scroll_offset_y,
            b[2],
            b[3],
        );
        out.entry(backend)
            .and_modify(|prev| *prev = union(prev, &r))
            .or_insert(r);
    }
    Ok(out)
}

fn union(a: &Rect, b: &Rect) -> Rect {
    if a.area() <= 0.0 {
        return *b;
    }
    if b.area() <= 0.0 {
        return *a;
    }
    let x = a.x.min(b.x);
    let y = a.y.min(b.y);
    Rect::new(
        x,
        y,
        a.right().max(b.right()) - x,
        a.bottom().max(b.bottom()) - y,
    )
}

/// The URL of the top document in a `DOMSnapshot.captureSnapshot` result
/// (`documents[0].documentURL`, an index into `strings`); `None` when the payload has none.
pub fn document_url(snapshot: &Value) -> Option<&str> {
    let i = snapshot["documents"][0]["documentURL"].as_u64()?;
    snapshot["strings"][usize::try_from(i).ok()?].as_str()
}

/// Whether `url` is a browser's own page shown before anything was loaded: an empty URL,
/// `about:blank` (a new target or tab before its first navigation) or an empty new-tab page.
/// A frame showing one has nothing for the pixel channel to read.
pub fn is_blank_url(url: &str) -> bool {
    let url = url.trim();
    let bare = url.split(['#', '?']).next().unwrap_or(url);
    let bare = bare.trim_end_matches('/').to_ascii_lowercase();
    matches!(
        bare.as_str(),
        "" | "about:blank" | "about:newtab" | "chrome://newtab" | "chrome://new-tab-page"
    )
}

/// Normalizes a CDP accessibility tree plus DOM snapshot into a [`Tree`] in pre-order.
///
/// `ax_tree` is the `Accessibility.getFullAXTree` result (`{"nodes": [...]}`), `snapshot`
/// the `DOMSnapshot.captureSnapshot` result (`{"documents": [...], "strings": [...]}`).
/// Errors only when either payload lacks its documented shape.
pub fn normalize(ax_tree: &Value, snapshot: &Value) -> Result<Tree, CdpError> {
    let ax: AxTree = serde_json::from_value(ax_tree.clone()).map_err(|source| CdpError::Shape {
        what: "Accessibility.getFullAXTree result",
        source,
    })?;
    let boxes = boxes(snapshot)?;
    let by_id: HashMap<&str, usize> = ax
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.node_id.as_str(), i))
        .collect();
    let root = ax.nodes.iter().position(|n| {
        n.parent_id
            .as_deref()
            .is_none_or(|p| !by_id.contains_key(p))
    });
    let mut tree = Tree::default();
    let Some(root) = root else { return Ok(tree) };
    // Iterative pre-order walk; (ax index, parent tree index).
    let mut stack: Vec<(usize, Option<usize>)> = vec![(root, None)];
    let mut seen = vec![false; ax.nodes.len()];
    while let Some((ai, parent)) = stack.pop() {
        if std::mem::replace(&mut seen[ai], true) {
            continue;
        }
        let src = &ax.nodes[ai];
        let node = convert(src, &boxes, parent);
        let ti = tree.nodes.len();
        tree.nodes.push(node);
        if let Some(p) = parent {
            tree.nodes[p].children.push(ti);
        }
        for cid in src.child_ids.iter().rev() {
            if let Some(&ci) = by_id.get(cid.as_str()) {
                stack.push((ci, Some(ti)));
            }
        }
    }
    Ok(tree)
}

fn convert(src: &AxNode, boxes: &HashMap<i64, Rect>, parent: Option<usize>) -> Node {
    let platform_role = as_text(&src.role);
    let role = map_role(&platform_role);
    let mut node = Node::new(role, &platform_role, &as_text(&src.name));
    node.parent = parent;
    node.ignored = src.ignored;
    let value = as_text(&src.value);
    node.value = (!value.is_empty()).then_some(value);
    node.placeholder = src.name.as_ref().and_then(|n| {
        n.sources.iter().find_map(|s| {
            if s.attribute.as_deref() == Some("placeholder") {
                s.value.as_ref().and_then(|v| match &v.value {
                    Some(Value::String(p)) if !p.is_empty() => Some(p.clone()),
                    _ => None,
                })
            } else {
                None
            }
        })
    });
    if let Some(id) = src.backend_dom_node_id {
        node.node_ref = NodeRef::Cdp {
            backend_node_id: id,
        };
        node.bounds = boxes.get(&id).copied();
    }
    let mut disabled = false;
    for p in &src.properties {
        let v = p.value.value.as_ref();
        let yes = matches!(v, Some(Value::Bool(true)))
            || matches!(v, Some(Value::String(s)) if s == "true");
        match p.name.as_str() {
            "checked" => {
                node.checked = match v {
                    Some(Value::String(s)) if s == "true" => Tri::Yes,
                    Some(Value::String(s)) if s == "false" => Tri::No,
                    Some(Value::Bool(b)) => Tri::from_opt(Some(*b)),
                    _ => Tri::Unknown,
                }
            }
            "disabled" => disabled = yes,
            "focused" => node.focused = Tri::from_opt(Some(yes)),
            "focusable" => node.focusable = Tri::from_opt(Some(yes)),
            "editable" => node.editable = Tri::Yes,
            "hidden" if yes => node.ignored = true,
            _ => {}
        }
    }
    // Chromium reports `disabled` only when true: absence on an element means enabled.
    node.enabled = Tri::from_opt(Some(!disabled));
    if node.focused == Tri::Unknown && node.focusable.is_yes() {
        node.focused = Tri::No;
    }
    if role == Role::Checkbox && node.checked == Tri::Unknown {
        node.checked = Tri::No;
    }
    if role == Role::Textfield && node.editable == Tri::Unknown {
        node.editable = Tri::Yes;
    }
    node
}
