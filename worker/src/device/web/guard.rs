//! The browser-side enforcer of the navigation policy and the JavaScript-dialog policy, one
//! task per launched Chromium.
//!
//! At launch it turns on browser-level auto-attach (`Target.setAutoAttach`, paused until
//! released), so every target any run opens — its page, `window.open` popups, out-of-process
//! iframes, workers and service workers (auto-attached recursively) — gets, before it runs a
//! line of script: `Fetch.enable` for every URL (each request, redirect hop included, pauses
//! until [`HostPolicy::check_url`] passes it or it is failed as `BlockedByClient`) and
//! `Page.enable` (so `alert` / `confirm` / `prompt` / `beforeunload` are answered at once by
//! the [`DialogPolicy`] and never hang a run).
//!
//! Each blocked request and each dialog becomes a note filed under the run's browser
//! context; the run's device drains them into the action that was running
//! ([`Guard::take_notes`]). This task owns the session → context map and the notes.
//!
//! A target whose policing cannot be armed is closed before it runs (`arm`), and its run
//! stops ([`Guard::refusal`], [`Guard::wait_armed`]). WebSocket handshakes are not seen by
//! the Fetch domain; the egress proxy (`egress`) decides them, as it decides every
//! connection the browser opens.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::json;

use super::cdp::{Cdp, CdpEvent};
use super::policy::HostPolicy;

/// Longest URL or dialog text kept in a note, chars.
const NOTE_CHARS: usize = 200;

/// How JavaScript dialogs are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DialogPolicy {
    /// Cancel `alert` / `confirm` / `prompt`; leave the page on `beforeunload`. The default.
    #[default]
    Dismiss,
    /// Press OK on every dialog (`prompt` gets its default text).
    Accept,
}

/// Notes per browser context, and which context each CDP session belongs to.
#[derive(Default)]
struct State {
    /// Session → where its notes go (a browser context id).
    contexts: HashMap<String, String>,
    /// Target → the one session that armed it (a run's own `attachToTarget` opens a second
    /// session on its page; arming both would decide every request and dialog twice).
    armed: HashMap<String, String>,
    notes: HashMap<String, Vec<String>>,
    /// Target → whether arming it succeeded (`Ok`) or why it failed; a failed target is
    /// closed.
    outcome: HashMap<String, Result<(), String>>,
    /// Browser context → why one of its targets could not be armed: the run of that
    /// context stops ([`Guard::refusal`]).
    refused: HashMap<String, String>,
}

/// The enforcer of one browser.
pub struct Guard {
    state: Mutex<State>,
    policy: Arc<HostPolicy>,
    /// Whether new targets are armed (a launched browser) or only watched sessions get
    /// their dialogs answered (an attached app).
    arm: bool,
    /// Failure injection ([`super::browser::LaunchOptions::arm_fault`]): the target type
    /// whose arming fails.
    arm_fault: Option<String>,
    /// Woken whenever a target's arming ends.
    armed: tokio::sync::Notify,
}

/// `s` cut to [`NOTE_CHARS`] chars on one line.
pub fn clip(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= NOTE_CHARS {
        return one_line;
    }
    let mut out: String = one_line.chars().take(NOTE_CHARS).collect();
    out.push('…');
    out
}

impl Guard {
    /// Starts enforcing on `cdp` (a browser-level connection): subscribes first, then turns
    /// on auto-attach so no target escapes.
    pub async fn start(
        cdp: Arc<Cdp>,
        policy: HostPolicy,
        dialogs: DialogPolicy,
        arm_fault: Option<String>,
    ) -> Result<Arc<Guard>, super::cdp::CdpError> {
        let guard = Guard::spawn(cdp.clone(), policy, dialogs, true, arm_fault);
        cdp.call(
            None,
            "Target.setAutoAttach",
            json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
        )
        .await?;
        Ok(guard)
    }

    /// Dialogs only, on the sessions named with [`Guard::watch`]: for an app Argus attached
    /// to (Electron), whose own `file:` loads are not the job's to police.
    pub fn dialogs_only(cdp: Arc<Cdp>, dialogs: DialogPolicy) -> Arc<Guard> {
        Guard::spawn(cdp, HostPolicy::default(), dialogs, false, None)
    }

    /// Files the notes of `session_id` under `key`.
    pub fn watch(&self, session_id: &str, key: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.contexts.insert(session_id.to_string(), key.to_string());
        }
    }

    /// The event task, without arming any target.
    fn spawn(
        cdp: Arc<Cdp>,
        policy: HostPolicy,
        dialogs: DialogPolicy,
        arm: bool,
        arm_fault: Option<String>,
    ) -> Arc<Guard> {
        let policy = Arc::new(policy);
        let guard = Arc::new(Guard {
            state: Mutex::new(State::default()),
            policy: policy.clone(),
            arm,
            arm_fault,
            armed: tokio::sync::Notify::new(),
        });
        let mut events = cdp.events();
        let g = guard.clone();
        let c = cdp.clone();
        tokio::spawn(async move {
            loop {
                match events.recv().await {
                    Ok(ev) => g.on_event(&c, &policy, dialogs, ev),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                        tracing::error!(missed = n, "navigation guard fell behind CDP events");
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                }
            }
        });
        guard
    }

    /// Decides a URL before a job navigates to it (the same check every request gets).
    pub async fn check_url(&self, url: &str) -> Result<(), String> {
        self.policy.check_url(url).await
    }

    /// Takes the notes filed for `context_id` since the last call.
    pub fn take_notes(&self, context_id: &str) -> Vec<String> {
        self.state
            .lock()
            .ok()
            .and_then(|mut s| s.notes.remove(context_id))
            .unwrap_or_default()
    }

    /// Records how arming `target` (of `kind`, in `ctx`) ended and wakes the waiters.
    fn armed_outcome(&self, target: &str, ctx: Option<&str>, kind: &str, res: Result<(), String>) {
        if let Ok(mut s) = self.state.lock() {
            if let (Err(why), Some(ctx)) = (&res, ctx) {
                s.refused.entry(ctx.to_string()).or_insert_with(|| {
                    format!("the navigation policy could not be armed on a {kind} of this run: {why}; it was closed")
                });
            }
            s.outcome.insert(target.to_string(), res);
        }
        self.armed.notify_waiters();
    }

    /// Waits (at most `timeout`) until `target` is armed: `Err(why)` when arming failed (the
    /// target was closed) or did not end in time. A run starts on its page only after this.
    pub async fn wait_armed(
        &self,
        target: &str,
        timeout: std::time::Duration,
    ) -> Result<(), String> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let woken = self.armed.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            let done = self
                .state
                .lock()
                .map_err(|_| "the navigation guard's state is poisoned".to_string())?
                .outcome
                .get(target)
                .cloned();
            match done {
                Some(Ok(())) => return Ok(()),
                Some(Err(why)) => {
                    return Err(format!(
                        "the navigation policy could not be armed on the run's page: {why}; it was closed"
                    ))
                }
                None => {}
            }
            if tokio::time::timeout_at(deadline, woken).await.is_err() {
                return Err(format!(
                    "the navigation policy could not be armed on the run's page within {} s",
                    timeout.as_secs()
                ));
            }
        }
    }

    /// Why a target of `context_id` could not be armed, if one could not: that run stops.
    pub fn refusal(&self, context_id: &str) -> Option<String> {
        self.state.lock().ok()?.refused.get(context_id).cloned()
    }

    /// Forgets a disposed context.
    pub fn forget(&self, context_id: &str) {
        if let Ok(mut s) = self.state.lock() {
            s.notes.remove(context_id);
            s.refused.remove(context_id);
            s.contexts.retain(|_, c| c != context_id);
        }
    }

    fn context_of(&self, session: Option<&str>) -> Option<String> {
        let s = self.state.lock().ok()?;
        s.contexts.get(session?).cloned()
    }

    fn note(&self, session: Option<&str>, note: String) {
        let Some(ctx) = self.context_of(session) else {
            return;
        };
        if let Ok(mut s) = self.state.lock() {
            let v = s.notes.entry(ctx).or_default();
            if v.len() < 50 {
                v.push(note);
            }
        }
    }

    /// Arms a target that just attached (paused), once per target; one that cannot be
    /// armed is closed and its context's run stops ([`Guard::refusal`]).
    fn on_attached(self: &Arc<Self>, cdp: &Arc<Cdp>, ev: &CdpEvent) {
        let p = &ev.params;
        let Some(sid) = p["sessionId"].as_str().map(String::from) else {
            return;
        };
        let info = &p["targetInfo"];
        let target = info["targetId"].as_str().unwrap_or_default().to_string();
        let kind = info["type"].as_str().unwrap_or_default().to_string();
        let ctx = info["browserContextId"]
            .as_str()
            .map(String::from)
            .or_else(|| self.context_of(ev.session_id.as_deref()));
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        if s.armed.contains_key(&target) {
            return;
        }
        s.armed.insert(target.clone(), sid.clone());
        if let Some(ctx) = &ctx {
            s.contexts.insert(sid.clone(), ctx.clone());
        }
        drop(s);
        let (g, cdp) = (self.clone(), cdp.clone());
        let fault = self.arm_fault.as_deref() == Some(kind.as_str());
        tokio::spawn(async move {
            let res = super::arm::arm(&cdp, &sid, &kind, fault).await;
            if let Err(why) = &res {
                tracing::error!(target_id = %target, kind, reason = %why, "the navigation policy could not be armed; the target is closed");
                super::arm::refuse(&cdp, &target).await;
            }
            g.armed_outcome(&target, ctx.as_deref(), &kind, res);
        });
    }

    fn on_event(
        self: &Arc<Self>,
        cdp: &Arc<Cdp>,
        policy: &Arc<HostPolicy>,
        dialogs: DialogPolicy,
        ev: CdpEvent,
    ) {
        match ev.method.as_str() {
            "Target.attachedToTarget" if self.arm => self.on_attached(cdp, &ev),
            "Target.detachedFromTarget" => {
                if let (Some(sid), Ok(mut s)) = (ev.params["sessionId"].as_str(), self.state.lock())
                {
                    s.contexts.remove(sid);
                    let gone: Vec<String> = s
                        .armed
                        .iter()
                        .filter(|(_, armed_by)| *armed_by == sid)
                        .map(|(t, _)| t.clone())
                        .collect();
                    for t in gone {
                        s.armed.remove(&t);
                        // A refusal stays on record for whoever waits on that target.
                        if matches!(s.outcome.get(&t), Some(Ok(()))) {
                            s.outcome.remove(&t);
                        }
                    }
                }
            }
            "Fetch.requestPaused" => {
                let (g, cdp, policy) = (self.clone(), cdp.clone(), policy.clone());
                tokio::spawn(async move { g.on_request(&cdp, &policy, ev).await });
            }
            "Page.javascriptDialogOpening" => {
                // Every session with Page enabled hears the dialog; answer on ours only.
                if self.context_of(ev.session_id.as_deref()).is_none() {
                    return;
                }
                let p = &ev.params;
                let kind = p["type"].as_str().unwrap_or("dialog").to_string();
                let accept = dialogs == DialogPolicy::Accept || kind == "beforeunload";
                let mut params = json!({"accept": accept});
                if accept && kind == "prompt" {
                    params["promptText"] = p["defaultPrompt"].clone();
                }
                self.note(
                    ev.session_id.as_deref(),
                    format!(
                        "{kind} dialog {:?} {}",
                        clip(p["message"].as_str().unwrap_or_default()),
                        if accept { "accepted" } else { "dismissed" }
                    ),
                );
                let cdp = cdp.clone();
                tokio::spawn(async move {
                    if let Err(e) = cdp
                        .call(
                            ev.session_id.as_deref(),
                            "Page.handleJavaScriptDialog",
                            params,
                        )
                        .await
                    {
                        tracing::warn!(error = %e, "could not answer a JavaScript dialog");
                    }
                });
            }
            _ => {}
        }
    }

    async fn on_request(&self, cdp: &Cdp, policy: &HostPolicy, ev: CdpEvent) {
        let p = &ev.params;
        let Some(id) = p["requestId"].as_str() else {
            return;
        };
        let url = p["request"]["url"].as_str().unwrap_or_default();
        let sid = ev.session_id.as_deref();
        let res = match policy.check_url(url).await {
            Ok(()) => {
                cdp.call(sid, "Fetch.continueRequest", json!({"requestId": id}))
                    .await
            }
            Err(why) => {
                let kind = p["resourceType"].as_str().unwrap_or("request");
                tracing::info!(url = %clip(url), reason = %why, "request blocked by the navigation policy");
                self.note(
                    sid,
                    format!("blocked {} {}: {why}", kind.to_ascii_lowercase(), clip(url)),
                );
                cdp.call(
                    sid,
                    "Fetch.failRequest",
                    json!({"requestId": id, "errorReason": "BlockedByClient"}),
                )
                .await
            }
        };
        if let Err(e) = res {
            tracing::debug!(error = %e, "paused request already gone");
        }
    }
}

/// The notes as a suffix for an action's detail (`""` when none).
pub fn notes_suffix(notes: &[String]) -> String {
    if notes.is_empty() {
        String::new()
    } else {
        format!(" [{}]", notes.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_one_short_line() {
        assert_eq!(clip("a\n  b"), "a b");
        let long = "x".repeat(500);
        assert_eq!(clip(&long).chars().count(), NOTE_CHARS + 1);
    }
}
