//! [`RunCtx`]: what one run acts through — its device, its perception stage, its
//! screenshot store, the worker's settings and secrets, the job — and the screens it
//! remembers. Observing and screenshotting go through it.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use argus_perception::{Observation, Rect};
use argus_protocol::{ActionTimings, JobSpec};
use uuid::Uuid;

use super::outcome::ms;
use crate::device::prelude::*;
use crate::device::Shot;
use crate::model::AgentEnv;
use crate::perceive::Perceiver;
use crate::secrets::mask;
use crate::uploads::{Limits, Uploads};

/// One run's device, perception, store, settings and job.
pub(crate) struct RunCtx<'a> {
    /// The device the run drives.
    pub(crate) dev: &'a mut dyn Device,
    /// The run's screenshot upload queue (into the artifact store).
    pub(crate) uploads: &'a mut Uploads,
    /// The run's perception stage (every observation goes through it).
    pub(crate) perceiver: Perceiver,
    /// The worker's model and agent settings and the run's secrets.
    pub(crate) env: &'a AgentEnv,
    /// The job.
    pub(crate) spec: &'a JobSpec,
    /// Run id.
    pub(crate) run_id: Uuid,
    /// Serial of the last observation.
    pub(crate) serial: u64,
    /// Set when the run is cancelled; polled at action boundaries and during model calls.
    pub(crate) cancel: Arc<AtomicBool>,
    /// The screen the first plan was made on: early stop asks what held there, a "does not
    /// contain" expectation and the judge's evidence are judged against its texts (see
    /// `crate::verdict`).
    pub(crate) start_obs: Option<Observation>,
    /// Whether an action of this run went back or opened a page after `start_obs`.
    pub(crate) left_the_screen: bool,
}

impl RunCtx<'_> {
    /// A fresh observation of the screen (the next serial).
    ///
    /// Errors: the device or the perception stage failed, as text.
    pub(crate) async fn observe(&mut self) -> Result<Observation, String> {
        self.serial += 1;
        self.perceiver
            .observe(&mut *self.dev, self.serial)
            .await
            .map_err(|e| e.to_string())
    }

    /// Screenshot for the record, handed to the run's upload queue (which masks `mask`,
    /// boxes to blank in device px, before anything is stored); returns the frame's key, or
    /// `None` (logged) when the screen could not be captured. The upload itself runs in the
    /// background: `upload_ms` counts only the wait for room in the queue.
    pub(crate) async fn shot(
        &mut self,
        step: u32,
        action: u32,
        phase: &str,
        mask: &[Rect],
        t: &mut ActionTimings,
    ) -> Option<String> {
        let start = Instant::now();
        // A frame with boxes to blank is taken as the device-px PNG: the masks are in its
        // pixels, not in a driver's scaled JPEG.
        let limits = Limits::default();
        let shot = if mask.is_empty() {
            self.dev
                .record_shot(limits.max_side_px, limits.jpeg_quality)
                .await
        } else {
            self.dev.screenshot().await.map(Shot::Png)
        };
        t.screenshot_ms += ms(start);
        let shot = match shot {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(run_id = %self.run_id, step, action, phase, error = %e, "screenshot failed");
                return None;
            }
        };
        let start = Instant::now();
        let res = self.uploads.submit(shot, mask).await;
        t.upload_ms += ms(start);
        match res {
            Ok(key) => Some(key),
            Err(e) => {
                tracing::error!(run_id = %self.run_id, step, action, phase, error = %e, "screenshot not queued");
                None
            }
        }
    }

    /// Boxes to blank in a screenshot of `obs`.
    pub(crate) fn mask_for(&self, obs: &Observation) -> Vec<Rect> {
        mask::boxes(obs, &self.env.secrets)
    }
}
