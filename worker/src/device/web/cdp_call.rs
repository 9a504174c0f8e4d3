//! The CDP calls the web's delivery channels share: let the page settle after an input,
//! resolve a DOM node to its JS object, and call a JS function on it. A leaf of the web
//! device: the channels (`actions`, `dom_click`, `select_option`) import it, it imports none
//! of them.

use serde_json::{json, Value};

use super::WebDevice;
use crate::device::{ActError, DeviceError};

const SETTLE_JS: &str = "new Promise(r => { let done = false; \
    requestAnimationFrame(() => requestAnimationFrame(() => { done = true; r(true); })); \
    setTimeout(() => { if (!done) r(false); }, 100); })";

/// Waits for the page to settle: two animation frames, or 100 ms if frames are throttled
/// (a failed wait is ignored: the caller verifies the effect).
pub(super) async fn settle(dev: &WebDevice) {
    let _ = dev
        .call(
            "Runtime.evaluate",
            json!({"expression": SETTLE_JS, "awaitPromise": true}),
        )
        .await;
}

/// Calls the JS `function` with `this` = the object `object_id` and `args` as its arguments;
/// the returned value (by value), or the CDP error.
pub(super) async fn call_on(
    dev: &WebDevice,
    object_id: &str,
    function: &str,
    args: &[Value],
) -> Result<Value, DeviceError> {
    let arguments: Vec<Value> = args.iter().map(|v| json!({"value": v})).collect();
    let r = dev
        .call(
            "Runtime.callFunctionOn",
            json!({"objectId": object_id, "returnByValue": true, "arguments": arguments,
                   "functionDeclaration": function}),
        )
        .await?;
    Ok(r["result"]["value"].clone())
}

/// The JS object id of a DOM node, for `Runtime.callFunctionOn`.
pub(super) async fn object_id(dev: &WebDevice, backend_node_id: i64) -> Result<String, ActError> {
    let obj = dev
        .call("DOM.resolveNode", json!({"backendNodeId": backend_node_id}))
        .await
        .map_err(|e| ActError::not_delivered(e.to_string()))?;
    obj["object"]["objectId"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| ActError::not_delivered("the element has no JS object"))
}
