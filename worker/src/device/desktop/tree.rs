//! Observing the desktop: the AT-SPI registry's applications, walked over D-Bus into an
//! [`AtspiNode`] tree (role name, name, states, screen extents, text, action names), then
//! normalized by `argus_perception::atspi` with origin (0, 0): boxes are screen px.
//!
//! Subtrees under a node that is not `showing` are not walked (closed menus, hidden pages),
//! which keeps a busy app to a few hundred D-Bus round trips, issued concurrently per level.
//!
//! GTK 4 (4.8, Debian 12) does not set `showing` on the widgets inside a shown window — only
//! the window has it, its content reads `visible` alone — so a GTK 4 app read by the rule above
//! is one empty window (`gnome-text-editor` showed "visible: nothing"). For an application whose
//! toolkit says GTK 4 (`Application.ToolkitName` / `Version`), a `visible` node under a walked
//! (showing) parent is taken as showing, and marked so in its states.
//! Each observed node's AT-SPI object reference (bus name + object path) is kept by its
//! child-index path, so an [`argus_perception::Element`] found in this observation is acted on
//! through the very object it came from.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use argus_perception::atspi::{AtspiNode, Extents};
use atspi::proxy::accessible::{AccessibleProxy, ObjectRefExt};
use atspi::proxy::action::ActionProxy;
use atspi::proxy::application::ApplicationProxy;
use atspi::proxy::component::ComponentProxy;
use atspi::proxy::editable_text::EditableTextProxy;
use atspi::proxy::text::TextProxy;
use atspi::proxy::value::ValueProxy;
use atspi::zbus;
use atspi::{CoordType, Interface, ObjectRefOwned, State};
use futures::future::BoxFuture;
use futures::FutureExt;

use crate::device::DeviceError;

/// Most nodes read per observation; the rest of a huge tree is cut off (logged).
pub(super) const MAX_NODES: usize = 4000;
/// Longest text read from one node, in characters.
const MAX_TEXT_CHARS: i32 = 20_000;
/// Most action names read per node.
const MAX_ACTIONS: i32 = 8;

/// Object references of one observation, by [`argus_perception::Element::path`].
pub(super) type Refs = HashMap<Vec<usize>, ObjectRefOwned>;

/// The registry's root accessible (its children are the applications).
pub(super) async fn registry_root(
    conn: &zbus::Connection,
) -> Result<AccessibleProxy<'static>, DeviceError> {
    AccessibleProxy::builder(conn)
        .destination("org.a11y.atspi.Registry")
        .and_then(|b| b.path("/org/a11y/atspi/accessible/root"))
        .map_err(dbus_err)?
        .cache_properties(zbus::proxy::CacheProperties::No)
        .build()
        .await
        .map_err(dbus_err)
}

/// A D-Bus failure as a device error.
pub(super) fn dbus_err(e: impl std::fmt::Display) -> DeviceError {
    DeviceError::Failed(format!("AT-SPI: {e}"))
}

macro_rules! iface_proxy {
    ($name:ident, $ty:ident) => {
        /// The object's proxy for this interface (no property cache).
        pub(super) async fn $name<'a>(
            conn: &'a zbus::Connection,
            obj: &'a ObjectRefOwned,
        ) -> Result<$ty<'a>, DeviceError> {
            let name = obj
                .name()
                .ok_or_else(|| dbus_err("object reference without a bus name"))?
                .clone();
            $ty::builder(conn)
                .destination(name)
                .and_then(|b| b.path(obj.path().clone()))
                .map_err(dbus_err)?
                .cache_properties(zbus::proxy::CacheProperties::No)
                .build()
                .await
                .map_err(dbus_err)
        }
    };
}

iface_proxy!(action_proxy, ActionProxy);
iface_proxy!(component_proxy, ComponentProxy);
iface_proxy!(text_proxy, TextProxy);
iface_proxy!(value_proxy, ValueProxy);
iface_proxy!(editable_proxy, EditableTextProxy);
iface_proxy!(application_proxy, ApplicationProxy);

/// One whole observation: the registry root and every application under it.
pub(super) async fn snapshot(conn: &zbus::Connection) -> Result<(AtspiNode, Refs), DeviceError> {
    let root = registry_root(conn).await?;
    let apps = root.get_children().await.map_err(dbus_err)?;
    let budget = Arc::new(AtomicUsize::new(MAX_NODES));
    let mut refs = Refs::new();
    let mut children = Vec::with_capacity(apps.len());
    let kinds =
        futures::future::join_all(apps.iter().map(|a| visible_means_showing(conn, a))).await;
    let walks = apps
        .into_iter()
        .zip(kinds)
        .enumerate()
        .map(|(i, (app, gtk4))| walk(conn, app, vec![0, i], budget.clone(), gtk4));
    for (node, r) in futures::future::join_all(walks).await {
        children.push(node);
        refs.extend(r);
    }
    if budget.load(Ordering::Relaxed) == 0 {
        tracing::warn!(max = MAX_NODES, "AT-SPI tree cut off at the node limit");
    }
    let root_node = AtspiNode {
        role: "desktop frame".into(),
        name: "desktop".into(),
        children,
        ..AtspiNode::default()
    };
    Ok((root_node, refs))
}

/// A node that vanished while it was read: kept (so sibling paths stay right) but ignored.
fn defunct() -> AtspiNode {
    AtspiNode {
        role: "unknown".into(),
        states: vec!["defunct".into()],
        ..AtspiNode::default()
    }
}

/// Whether the application's toolkit is GTK 4 (see the module docs).
async fn visible_means_showing(conn: &zbus::Connection, app: &ObjectRefOwned) -> bool {
    let Ok(a) = application_proxy(conn, app).await else {
        return false;
    };
    let (name, version) = futures::join!(a.toolkit_name(), a.version());
    matches!((name, version), (Ok(n), Ok(v)) if n.eq_ignore_ascii_case("gtk") && v.starts_with("4."))
}

fn walk<'a>(
    conn: &'a zbus::Connection,
    obj: ObjectRefOwned,
    path: Vec<usize>,
    budget: Arc<AtomicUsize>,
    gtk4: bool,
) -> BoxFuture<'a, (AtspiNode, Refs)> {
    async move {
        if obj.is_null()
            || budget
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(1))
                .is_err()
        {
            return (defunct(), Refs::new());
        }
        let (mut node, kids) = match read_node(conn, &obj, gtk4).await {
            Ok(v) => v,
            Err(e) => {
                tracing::debug!(error = %e, "AT-SPI node unreadable");
                return (defunct(), Refs::new());
            }
        };
        let mut refs = Refs::new();
        let walks = kids.into_iter().enumerate().map(|(i, c)| {
            let mut p = path.clone();
            p.push(i);
            walk(conn, c, p, budget.clone(), gtk4)
        });
        for (child, r) in futures::future::join_all(walks).await {
            node.children.push(child);
            refs.extend(r);
        }
        refs.insert(path, obj);
        (node, refs)
    }
    .boxed()
}

/// Reads one accessible; returns it (without children) and its children's references when it
/// is showing (else none). `gtk4`: a `visible` node counts as showing (see the module docs).
async fn read_node(
    conn: &zbus::Connection,
    obj: &ObjectRefOwned,
    gtk4: bool,
) -> Result<(AtspiNode, Vec<ObjectRefOwned>), DeviceError> {
    let acc = obj.as_accessible_proxy(conn).await.map_err(dbus_err)?;
    let (role, name, description, states, ifaces, id) = futures::join!(
        acc.get_role_name(),
        acc.name(),
        acc.description(),
        acc.get_state(),
        acc.get_interfaces(),
        acc.accessible_id(),
    );
    let role = role.map_err(dbus_err)?;
    let states = states.map_err(dbus_err)?;
    let ifaces = ifaces.unwrap_or_default();
    let shown_gtk4 = gtk4 && !states.contains(State::Showing) && states.contains(State::Visible);
    let showing = states.contains(State::Showing) || shown_gtk4;
    // An application's root reports no states; its windows decide for themselves.
    let descend = showing || states.iter().next().is_none() || role == "application";
    let mut node = AtspiNode {
        role,
        name: name.unwrap_or_default(),
        description: description.unwrap_or_default(),
        states: states.iter().map(|s| s.to_string()).collect(),
        id: id.ok().filter(|s| !s.is_empty()),
        ..AtspiNode::default()
    };
    if shown_gtk4 {
        node.states.push("showing".into());
    }
    let comp = async {
        if !ifaces.contains(Interface::Component) {
            return None;
        }
        let c = component_proxy(conn, obj).await.ok()?;
        let (x, y, w, h) = c.get_extents(CoordType::Screen).await.ok()?;
        Some(Extents {
            x: x as f64,
            y: y as f64,
            w: w as f64,
            h: h as f64,
        })
    };
    let text = async {
        if !ifaces.contains(Interface::Text) || !showing {
            return None;
        }
        let t = text_proxy(conn, obj).await.ok()?;
        let n = t.character_count().await.ok()?;
        t.get_text(0, n.min(MAX_TEXT_CHARS)).await.ok()
    };
    let actions = async {
        if !ifaces.contains(Interface::Action) {
            return Vec::new();
        }
        let Ok(a) = action_proxy(conn, obj).await else {
            return Vec::new();
        };
        let n = a.n_actions().await.unwrap_or(0).min(MAX_ACTIONS);
        let names = futures::future::join_all((0..n).map(|i| a.get_name(i))).await;
        names.into_iter().filter_map(Result::ok).collect()
    };
    let value = async {
        if !ifaces.contains(Interface::Value) {
            return None;
        }
        let v = value_proxy(conn, obj).await.ok()?;
        v.current_value().await.ok().map(|v| format!("{v}"))
    };
    let kids = async {
        if descend {
            acc.get_children().await.unwrap_or_default()
        } else {
            Vec::new()
        }
    };
    let (extents, text, actions, value, kids) = futures::join!(comp, text, actions, value, kids);
    node.extents = extents;
    node.text = text;
    node.actions = actions;
    node.value = value;
    Ok((node, kids))
}
