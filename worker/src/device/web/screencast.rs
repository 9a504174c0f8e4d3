//! The page's live frames for the live screen (`crate::live`): CDP `Page.startScreencast`
//! on the run's session. Chromium sends a `Page.screencastFrame` after each paint that
//! changed the page (none while it is still) and the next only after the previous one is
//! acknowledged, so a slow consumer slows the browser's encoding rather than queueing frames.

use std::sync::Arc;

use async_trait::async_trait;
use base64::Engine;
use serde_json::{json, Value};
use tokio::sync::broadcast::{self, error::RecvError};

use super::cdp::{Cdp, CdpEvent};
use crate::device::{DeviceError, LiveShot, Screencast};

/// The screencast of one run's page.
pub(super) struct PageCast {
    cdp: Arc<Cdp>,
    session: String,
    events: Option<broadcast::Receiver<CdpEvent>>,
}

impl PageCast {
    /// For the page behind CDP session `session`.
    pub(super) fn new(cdp: Arc<Cdp>, session: String) -> PageCast {
        PageCast {
            cdp,
            session,
            events: None,
        }
    }

    /// Acknowledges frame `frame_session` without waiting for the answer.
    fn ack(&self, frame_session: Value) {
        let cdp = self.cdp.clone();
        let session = self.session.clone();
        tokio::spawn(async move {
            let params = json!({ "sessionId": frame_session });
            let _ = cdp
                .call(Some(&session), "Page.screencastFrameAck", params)
                .await;
        });
    }
}

/// `params.metadata.timestamp` (s since the epoch) in ms, or now.
fn captured_at_ms(params: &Value) -> i64 {
    params["metadata"]["timestamp"]
        .as_f64()
        .map(|s| (s * 1000.0).round() as i64)
        .unwrap_or_else(|| chrono::Utc::now().timestamp_millis())
}

#[async_trait]
impl Screencast for PageCast {
    async fn start(
        &mut self,
        max_w_px: u32,
        max_h_px: u32,
        quality: u8,
    ) -> Result<(), DeviceError> {
        // Subscribe before starting: the first frame may come before the answer.
        self.events = Some(self.cdp.events());
        let params = json!({"format": "jpeg", "quality": quality.clamp(1, 100),
                            "maxWidth": max_w_px, "maxHeight": max_h_px, "everyNthFrame": 1});
        self.cdp
            .call(Some(&self.session), "Page.startScreencast", params)
            .await
            .map(|_| ())
            .map_err(|e| DeviceError::Failed(e.to_string()))
    }

    async fn next(&mut self) -> Option<LiveShot> {
        loop {
            let ev = match self.events.as_mut()?.recv().await {
                Ok(ev) => ev,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return None,
            };
            if ev.method != "Page.screencastFrame"
                || ev.session_id.as_deref() != Some(self.session.as_str())
            {
                continue;
            }
            self.ack(ev.params["sessionId"].clone());
            let Some(data) = ev.params["data"].as_str() else {
                continue;
            };
            let Ok(jpeg) = base64::engine::general_purpose::STANDARD.decode(data) else {
                continue;
            };
            return Some(LiveShot {
                jpeg,
                captured_at_ms: captured_at_ms(&ev.params),
            });
        }
    }

    async fn stop(&mut self) {
        self.events = None;
        let _ = self
            .cdp
            .call(Some(&self.session), "Page.stopScreencast", json!({}))
            .await;
    }
}
