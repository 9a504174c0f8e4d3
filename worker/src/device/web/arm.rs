//! Arming one freshly attached (and paused) target: turning on the policing of its requests
//! and the auto-attach of its children, then letting it run — or, when any of that is
//! refused, closing it before it runs a line of script.
//!
//! Why fail closed: a target whose `Fetch.enable` was refused would load whatever it asked
//! for, and one whose `Target.setAutoAttach` was refused would start its workers and
//! out-of-process frames unpoliced. Before issue 24 both refusals were ignored (only a
//! `tab` and a dedicated `worker` lack Fetch legitimately, see [`NO_NETWORK`]).

use serde_json::json;

use super::cdp::Cdp;

/// Target types without a Fetch domain of their own that need none: a `tab` loads nothing
/// itself (its page attaches below it and is armed then); a dedicated `worker`'s requests
/// are paused by its page's Fetch domain (pinned by `nav_policy.rs`: a worker's fetch to
/// a blocked host fails). Every other type must accept `Fetch.enable` or is closed.
const NO_NETWORK: [&str; 2] = ["tab", "worker"];

/// Arms the target behind session `sid` (of type `kind`) and resumes it; `Err(why)` when
/// its policing could not be turned on (it is then still paused: close it with
/// [`refuse`]). `fault` injects a refusal of `Fetch.enable` (tests).
pub async fn arm(cdp: &Cdp, sid: &str, kind: &str, fault: bool) -> Result<(), String> {
    let s = Some(sid);
    if !NO_NETWORK.contains(&kind) {
        let fetch = json!({"patterns": [{"urlPattern": "*", "requestStage": "Request"}]});
        // A fault injected by a test is a real refusal: Chromium answers an unknown method
        // with an error, as it would a domain the target lacks.
        let method = if fault {
            "Fetch.argusInjectedFault"
        } else {
            "Fetch.enable"
        };
        cdp.call(s, method, fetch)
            .await
            .map_err(|e| format!("request interception was refused ({e})"))?;
    }
    if matches!(kind, "page" | "iframe") {
        // Dialogs: a refusal here leaves a dialog unanswered, not a request unpoliced.
        let _ = cdp.call(s, "Page.enable", json!({})).await;
    }
    cdp.call(
        s,
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
    )
    .await
    .map_err(|e| format!("watching its child targets was refused ({e})"))?;
    let _ = cdp
        .call(s, "Runtime.runIfWaitingForDebugger", json!({}))
        .await;
    Ok(())
}

/// Closes a target that could not be armed (it never ran: it was paused at attach).
pub async fn refuse(cdp: &Cdp, target_id: &str) {
    if let Err(e) = cdp
        .call(None, "Target.closeTarget", json!({"targetId": target_id}))
        .await
    {
        // Still paused, and its context is failed: the run ends and disposes it.
        tracing::warn!(error = %e, target_id, "could not close a target the navigation policy could not arm");
    }
}
