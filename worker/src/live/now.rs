//! What a live frame says beside its pixels: the step running now and the last action's
//! target, read off the run's own events as they are published ([`NowSink`]) — the run
//! engine does not know it is watched.

use std::sync::{Arc, Mutex};

use argus_protocol::{EventBody, RunEvent};
use async_trait::async_trait;

use crate::run::events::EventSink;

/// The run's position now.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Now {
    /// The step running, 0-based.
    pub step: Option<u32>,
    /// Its text as written (redacted like its event).
    pub text: Option<String>,
    /// The last target an action was aimed at, device px `[x, y, width, height]` (kept
    /// through later steps that aim at nothing, such as a wait, so the viewer sees where the
    /// run last acted).
    pub target_px: Option<[f64; 4]>,
}

/// Shared between the run's sink and its live task.
pub type NowCell = Arc<Mutex<Now>>;

/// Forwards every event to `inner` and notes the step and target in `now`.
pub struct NowSink {
    inner: Arc<dyn EventSink>,
    now: NowCell,
}

impl NowSink {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn EventSink>, now: NowCell) -> NowSink {
        NowSink { inner, now }
    }
}

/// `now` after `body`.
fn note(now: &mut Now, body: &EventBody) {
    match body {
        EventBody::StepStarted { step, text } => {
            now.step = Some(*step);
            now.text = Some(text.clone());
        }
        EventBody::ActionFinished(r) => {
            if let Some(t) = &r.target {
                now.target_px = Some(t.bbox_px);
            }
        }
        _ => {}
    }
}

#[async_trait]
impl EventSink for NowSink {
    async fn publish(&self, ev: &RunEvent) -> Result<(), String> {
        if let Ok(mut now) = self.now.lock() {
            note(&mut now, &ev.body);
        }
        self.inner.publish(ev).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_moves_on_and_keeps_the_last_target() {
        let mut now = Now {
            target_px: Some([1.0, 1.0, 2.0, 2.0]),
            ..Now::default()
        };
        note(
            &mut now,
            &EventBody::StepStarted {
                step: 2,
                text: "wait 2 s".into(),
            },
        );
        assert_eq!(now.step, Some(2));
        assert_eq!(now.text.as_deref(), Some("wait 2 s"));
        assert_eq!(now.target_px, Some([1.0, 1.0, 2.0, 2.0]));
    }
}
