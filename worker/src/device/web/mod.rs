//! Web driver: one headless Chromium, one device slot per [`WebDevice`]; each run gets its
//! own browser context (cookies, storage) and page, disposed at teardown.
//!
//! The same driver serves Electron ([`WebDevice::attached`], see `device::electron`): it
//! attaches to an app it did not start, acts on the app's newest window, measures that
//! window's size and device pixel ratio instead of overriding them, and at teardown only
//! detaches — it never closes a window or the app.
//!
//! `tree` observes (AX tree + DOM snapshot → perception), `actions` acts (CDP Input events
//! in CSS px), `screen` takes screenshots (device px). A launched browser enforces the
//! navigation and dialog policy on every target (`guard`, deciding with `policy`); what it
//! blocked or answered during an action is drained into that action's record. An attached
//! Electron app loads its own `file:` resources, so it gets only the scheme check on `open`.

mod actions;
mod arm;
pub mod browser;
pub(crate) mod browser_env;
pub mod cdp;
mod cdp_call;
mod date_value;
mod dom_click;
mod egress;
pub mod guard;
pub mod lookup;
pub mod policy;
pub mod relaunch;
mod screen;
mod screencast;
mod select_option;
mod tree;

use std::sync::Arc;

use argus_perception::Element;
use argus_protocol::{Key, Platform};
use async_trait::async_trait;
use serde_json::json;

use super::{Act, ActError, Capture, Channel, DeviceError, Input, Observe, Screencast, System};
use browser::Browser;
use cdp::Cdp;

/// Longest wait for the navigation policy to be armed on a run's new page.
const ARM_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Viewport of a web device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    /// Width, CSS px.
    pub width: u32,
    /// Height, CSS px.
    pub height: u32,
    /// Device pixel ratio (screenshots are `width*dpr × height*dpr` px).
    pub dpr: f64,
}

/// The page of one run.
struct Session {
    /// The run's own browser context; `None` when attached to an app's window.
    context_id: Option<String>,
    session_id: String,
}

/// Whose browser this is.
enum Owner {
    /// Argus launched it (web): contexts are created and disposed per run.
    Launched(Arc<Browser>),
    /// Argus attached to it (Electron): windows are only attached to and detached from.
    /// `http` is the DevTools HTTP base (`http://host:port`), when known.
    /// `guard` answers the window's JavaScript dialogs.
    Attached {
        cdp: Arc<Cdp>,
        http: Option<String>,
        guard: Arc<guard::Guard>,
    },
}

/// One slot of a Chromium browser, or one attached Electron app.
pub struct WebDevice {
    owner: Owner,
    viewport: Viewport,
    session: Option<Session>,
    /// Starts a launched browser again when it died (see [`Self::revive`]); `None`: never.
    relaunch: Option<Arc<relaunch::Relaunch>>,
}

impl WebDevice {
    /// A slot on `browser` with the given viewport.
    pub fn new(browser: Arc<Browser>, viewport: Viewport) -> WebDevice {
        WebDevice {
            owner: Owner::Launched(browser),
            viewport,
            session: None,
            relaunch: None,
        }
    }

    /// A slot on `relaunch`'s browser, which is started again when it died before a run
    /// begins (a crashed browser does not keep its slots broken).
    pub async fn relaunching(relaunch: Arc<relaunch::Relaunch>, viewport: Viewport) -> WebDevice {
        WebDevice {
            owner: Owner::Launched(relaunch.current().await),
            viewport,
            session: None,
            relaunch: Some(relaunch),
        }
    }

    /// Before a run: when this slot's launched browser died, takes a live one from its
    /// [`relaunch::Relaunch`] (starting it) and drops the dead one's session.
    ///
    /// Errors: the relaunch's (a `device` failure of the run that begins).
    async fn revive(&mut self) -> Result<(), DeviceError> {
        let (Owner::Launched(b), Some(r)) = (&self.owner, &self.relaunch) else {
            return Ok(());
        };
        if !b.cdp.is_closed() {
            return Ok(());
        }
        let fresh = r.clone().alive().await?;
        self.session = None;
        self.owner = Owner::Launched(fresh);
        Ok(())
    }

    /// A device on an app Argus did not start, over its browser-level CDP connection
    /// (`http`: its DevTools HTTP base, used to find the newest window); `viewport` is a
    /// first guess, measured again at every `begin`.
    pub fn attached(cdp: Arc<Cdp>, http: Option<String>, viewport: Viewport) -> WebDevice {
        let guard = guard::Guard::dialogs_only(cdp.clone(), guard::DialogPolicy::Dismiss);
        WebDevice {
            owner: Owner::Attached { cdp, http, guard },
            viewport,
            session: None,
            relaunch: None,
        }
    }

    /// The dialog (and, on a launched browser, navigation) policy enforcer.
    fn guard(&self) -> &guard::Guard {
        match &self.owner {
            Owner::Launched(b) => &b.guard,
            Owner::Attached { guard, .. } => guard,
        }
    }

    /// The host-policy enforcer: a launched browser's guard (`None` when attached to an app,
    /// which loads its own resources).
    fn host_guard(&self) -> Option<&guard::Guard> {
        match &self.owner {
            Owner::Launched(b) => Some(&b.guard),
            Owner::Attached { .. } => None,
        }
    }

    /// Where this run's notes are filed: its browser context, or its session on an app.
    fn notes_key(&self) -> Option<&str> {
        let s = self.session.as_ref()?;
        Some(s.context_id.as_deref().unwrap_or(&s.session_id))
    }

    /// Blocked requests and answered dialogs of this run since the last call.
    fn drain_notes(&self) -> Vec<String> {
        match self.notes_key() {
            Some(key) => self.guard().take_notes(key),
            None => Vec::new(),
        }
    }

    /// The browser connection, shared.
    fn cdp_shared(&self) -> Arc<Cdp> {
        match &self.owner {
            Owner::Launched(b) => b.cdp.clone(),
            Owner::Attached { cdp, .. } => cdp.clone(),
        }
    }

    fn cdp(&self) -> &Cdp {
        match &self.owner {
            Owner::Launched(b) => &b.cdp,
            Owner::Attached { cdp, .. } => cdp,
        }
    }

    /// The newest window's target id: the first page of the DevTools HTTP `/json/list`
    /// (Chromium sorts it by last activity, newest first); without an HTTP base, the last
    /// page of `Target.getTargets`.
    async fn newest_page(&self) -> Result<String, DeviceError> {
        let is_page = |t: &serde_json::Value| {
            t["type"] == "page" && !t["url"].as_str().unwrap_or("").starts_with("devtools://")
        };
        if let Owner::Attached {
            http: Some(base), ..
        } = &self.owner
        {
            let list: serde_json::Value = reqwest::get(format!("{base}/json/list"))
                .await
                .map_err(|e| DeviceError::Failed(format!("{base}/json/list: {e}")))?
                .json()
                .await
                .map_err(|e| DeviceError::Failed(format!("{base}/json/list: {e}")))?;
            return list
                .as_array()
                .into_iter()
                .flatten()
                .find(|t| is_page(t))
                .and_then(|t| t["id"].as_str().map(String::from))
                .ok_or_else(|| DeviceError::Failed("the app has no open window".into()));
        }
        let targets = self
            .cdp()
            .call(None, "Target.getTargets", json!({}))
            .await
            .map_err(|e| DeviceError::Failed(e.to_string()))?;
        targets["targetInfos"]
            .as_array()
            .into_iter()
            .flatten()
            .rfind(|t| is_page(t))
            .and_then(|t| t["targetId"].as_str().map(String::from))
            .ok_or_else(|| DeviceError::Failed("the app has no open window".into()))
    }

    /// Attaches to the app's newest window ([`Self::newest_page`]) and measures its
    /// viewport.
    async fn attach_newest(&mut self) -> Result<(), DeviceError> {
        let fail = |e: cdp::CdpError| DeviceError::Failed(e.to_string());
        let newest = self.newest_page().await?;
        let att = self
            .cdp()
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": newest, "flatten": true}),
            )
            .await
            .map_err(fail)?;
        let session_id = att["sessionId"].as_str().unwrap_or_default().to_string();
        self.guard().watch(&session_id, &session_id);
        self.session = Some(Session {
            context_id: None,
            session_id,
        });
        self.call("Page.enable", json!({})).await?;
        self.call("DOM.enable", json!({})).await?;
        self.call("Accessibility.enable", json!({})).await?;
        let m = self
            .call(
                "Runtime.evaluate",
                json!({"expression": "[innerWidth, innerHeight, devicePixelRatio]",
                       "returnByValue": true}),
            )
            .await?;
        let v = &m["result"]["value"];
        if let (Some(w), Some(h), Some(dpr)) = (v[0].as_f64(), v[1].as_f64(), v[2].as_f64()) {
            self.viewport = Viewport {
                width: w.round() as u32,
                height: h.round() as u32,
                dpr,
            };
        }
        Ok(())
    }

    fn session_id(&self) -> Result<&str, DeviceError> {
        self.session
            .as_ref()
            .map(|s| s.session_id.as_str())
            .ok_or_else(|| DeviceError::Failed("no page is open (begin() not called)".into()))
    }

    async fn call(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, DeviceError> {
        let sid = self.session_id()?;
        if let (Some(g), Some(ctx)) = (self.host_guard(), self.notes_key()) {
            // A popup, frame or worker of this run could not be policed: it was closed,
            // and the run goes no further.
            if let Some(why) = g.refusal(ctx) {
                return Err(DeviceError::Failed(why));
            }
        }
        self.cdp()
            .call(Some(sid), method, params)
            .await
            .map_err(|e| DeviceError::Failed(e.to_string()))
    }
}

#[async_trait]
impl System for WebDevice {
    fn platform(&self) -> Platform {
        match self.owner {
            Owner::Launched(_) => Platform::Web,
            Owner::Attached { .. } => Platform::Electron,
        }
    }

    async fn begin(&mut self) -> Result<(), DeviceError> {
        self.revive().await?;
        self.end().await?;
        if matches!(self.owner, Owner::Attached { .. }) {
            return self.attach_newest().await;
        }
        let fail = |e: cdp::CdpError| DeviceError::Failed(e.to_string());
        let ctx = self
            .cdp()
            .call(
                None,
                "Target.createBrowserContext",
                json!({"disposeOnDetach": true}),
            )
            .await
            .map_err(fail)?;
        let context_id = ctx["browserContextId"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let target = self
            .cdp()
            .call(
                None,
                "Target.createTarget",
                json!({"url": "about:blank", "browserContextId": context_id}),
            )
            .await
            .map_err(fail)?;
        let target_id = target["targetId"].as_str().unwrap_or_default().to_string();
        if let Some(g) = self.host_guard() {
            // Never run on a page the policy is not enforced on: refuse the slot instead.
            if let Err(why) = g.wait_armed(&target_id, ARM_TIMEOUT).await {
                g.forget(&context_id);
                let _ = self
                    .cdp()
                    .call(
                        None,
                        "Target.disposeBrowserContext",
                        json!({"browserContextId": context_id}),
                    )
                    .await;
                return Err(DeviceError::Failed(why));
            }
        }
        let att = self
            .cdp()
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target_id, "flatten": true}),
            )
            .await
            .map_err(fail)?;
        let session_id = att["sessionId"].as_str().unwrap_or_default().to_string();
        self.session = Some(Session {
            context_id: Some(context_id),
            session_id,
        });
        self.call("Page.enable", json!({})).await?;
        self.call("DOM.enable", json!({})).await?;
        self.call("Accessibility.enable", json!({})).await?;
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({
                "width": self.viewport.width,
                "height": self.viewport.height,
                "deviceScaleFactor": self.viewport.dpr,
                "mobile": false
            }),
        )
        .await?;
        Ok(())
    }

    async fn end(&mut self) -> Result<(), DeviceError> {
        match self.session.take() {
            Some(Session {
                context_id: Some(ctx),
                ..
            }) => {
                self.guard().forget(&ctx);
                self.cdp()
                    .call(
                        None,
                        "Target.disposeBrowserContext",
                        json!({"browserContextId": ctx}),
                    )
                    .await
                    .map_err(|e| DeviceError::Failed(e.to_string()))?;
            }
            Some(Session {
                context_id: None,
                session_id,
            }) => {
                self.guard().forget(&session_id);
                // Attached to someone else's window: let go of it, never close it.
                let _ = self
                    .cdp()
                    .call(
                        None,
                        "Target.detachFromTarget",
                        json!({"sessionId": session_id}),
                    )
                    .await;
            }
            None => {}
        }
        Ok(())
    }

    async fn open(&mut self, url: &str) -> Result<(), ActError> {
        actions::open(self, url).await
    }

    async fn back(&mut self) -> Result<(), ActError> {
        actions::back(self).await
    }

    fn take_notes(&mut self) -> Vec<String> {
        self.drain_notes()
    }

    fn screencast(&self) -> Option<Box<dyn Screencast>> {
        let s = self.session.as_ref()?;
        Some(Box::new(screencast::PageCast::new(
            self.cdp_shared(),
            s.session_id.clone(),
        )))
    }
}

#[async_trait]
impl Observe for WebDevice {
    fn screen_px(&self) -> (u32, u32) {
        (
            (self.viewport.width as f64 * self.viewport.dpr).round() as u32,
            (self.viewport.height as f64 * self.viewport.dpr).round() as u32,
        )
    }

    async fn capture(&mut self) -> Result<Capture, DeviceError> {
        tree::capture(self).await
    }

    async fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        screen::screenshot(self).await
    }

    async fn record_shot(
        &mut self,
        max_side_px: u32,
        jpeg_quality: u8,
    ) -> Result<crate::device::Shot, DeviceError> {
        screen::record_shot(self, max_side_px, jpeg_quality)
            .await
            .map(crate::device::Shot::Jpeg)
    }
}

#[async_trait]
impl Act for WebDevice {
    async fn tap(&mut self, el: &Element) -> Result<(), ActError> {
        actions::tap(self, el).await
    }

    async fn tap_through(&mut self, el: &Element, n: usize) -> Result<Channel, ActError> {
        actions::tap_through(self, el, n).await
    }

    async fn double_tap(&mut self, el: &Element) -> Result<(), ActError> {
        actions::double_tap(self, el).await
    }

    async fn long_press(&mut self, el: &Element, duration_ms: u64) -> Result<(), ActError> {
        actions::long_press(self, el, duration_ms).await
    }

    async fn type_text(&mut self, el: &Element, text: &str) -> Result<(), ActError> {
        actions::type_text(self, el, text).await
    }

    async fn hover(&mut self, el: &Element) -> Result<(), ActError> {
        actions::hover(self, el).await
    }
}

#[async_trait]
impl Input for WebDevice {
    async fn key(&mut self, key: Key) -> Result<(), ActError> {
        actions::key(self, key).await
    }

    async fn swipe(
        &mut self,
        from: (f64, f64),
        to: (f64, f64),
        _duration_ms: u64,
    ) -> Result<(), ActError> {
        actions::swipe(self, from, to, self.viewport.dpr).await
    }
}
