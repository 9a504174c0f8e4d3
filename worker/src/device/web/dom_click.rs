//! The web's second delivery channel for a tap: the element's own DOM `click()`, called on
//! the node the element was observed as (CDP `DOM.resolveNode` + `Runtime.callFunctionOn`).
//! It fires `click` on the element whatever the pointer would have hit at its centre — a
//! transparent layer that swallows mouse events, a handler that only listens to `click` on
//! the element itself — so it is tried only after mouse events showed no effect.

use argus_perception::{Element, NodeRef};

use super::cdp_call::{call_on, object_id, settle};
use super::WebDevice;
use crate::device::ActError;

const CLICK_JS: &str = "function () { this.click(); return true; }";

/// Calls the element's `click()`, then lets the page settle. An element from the pixel
/// channel (no DOM node behind it) cannot be clicked this way: `not_delivered`.
pub(super) async fn click(dev: &WebDevice, el: &Element) -> Result<(), ActError> {
    let NodeRef::Cdp { backend_node_id } = el.node_ref else {
        return Err(ActError::not_delivered(format!(
            "{} has no DOM node to click()",
            el.describe()
        )));
    };
    let object_id = object_id(dev, backend_node_id).await?;
    call_on(dev, &object_id, CLICK_JS, &[])
        .await
        .map_err(|e| ActError::uncertain(format!("DOM click(): {e}")))?;
    settle(dev).await;
    Ok(())
}
