//! The live screen, worker side: while a coordinator renews a watch lease for a run
//! (`<prefix>.live.watch.<worker>.<run>`, core NATS, once a second per viewer), the run's
//! device streams its screen ([`crate::device::Screencast`]) and each frame goes out on
//! `<prefix>.live.frame.<worker>.<run>` (core NATS, never stored) with the step and target
//! of [`now`]. No lease for [`LEASE`] → the screencast stops; no viewer ever → it never
//! starts, and the run pays nothing.
//!
//! One task per run ([`spawn`]), aborted when the run ends (the guard it returns). At most
//! [`MAX_FPS`] frames a second leave the worker: a frame that comes sooner waits, and a newer
//! one replaces it.

pub mod now;

use std::time::Duration;

use argus_protocol::live::{encode, FrameMeta, MAX_FRAME_BYTES};
use argus_protocol::subjects::Subjects;
use futures::StreamExt;
use tokio::time::Instant;
use uuid::Uuid;

use crate::device::{LiveShot, Screencast};
use now::NowCell;

/// How long one watch lease lasts without renewal.
pub const LEASE: Duration = Duration::from_secs(3);
/// Most frames published per second per run.
pub const MAX_FPS: u32 = 5;
/// Frame bounds, px, and JPEG quality asked of the device.
pub const MAX_W_PX: u32 = 1024;
/// See [`MAX_W_PX`].
pub const MAX_H_PX: u32 = 768;
/// See [`MAX_W_PX`].
pub const QUALITY: u8 = 60;

/// Where a worker's live frames go.
#[derive(Clone)]
pub struct Link {
    /// The worker's NATS connection.
    pub nats: async_nats::Client,
    /// Subject names.
    pub subjects: Subjects,
    /// This worker's id (the subjects name it).
    pub worker_id: String,
    /// The run's position, fed by its event sink ([`now::NowSink`]).
    pub now: NowCell,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("worker_id", &self.worker_id)
            .finish_non_exhaustive()
    }
}

/// Aborts the run's live task when dropped.
pub struct LiveTask(tokio::task::JoinHandle<()>);

impl Drop for LiveTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Starts the live task of run `run_id` on `cast`; `screen_px` is the device's screen size.
pub fn spawn(
    link: &Link,
    run_id: Uuid,
    cast: Box<dyn Screencast>,
    screen_px: [u32; 2],
) -> LiveTask {
    let link = link.clone();
    LiveTask(tokio::spawn(serve(link, run_id, cast, screen_px)))
}

async fn serve(link: Link, run_id: Uuid, mut cast: Box<dyn Screencast>, screen_px: [u32; 2]) {
    let subject = link.subjects.live_watch(&link.worker_id, &run_id);
    let mut sub = match link.nats.subscribe(subject).await {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(%run_id, error = %e, "live screen unavailable: cannot subscribe");
            return;
        }
    };
    let out = Out {
        link: &link,
        subject: link.subjects.live_frame(&link.worker_id, &run_id),
        screen_px,
    };
    // Idle until a watch arrives; stream until the lease lapses; again.
    while sub.next().await.is_some() {
        if let Err(e) = cast.start(MAX_W_PX, MAX_H_PX, QUALITY).await {
            tracing::warn!(%run_id, error = %e, "cannot start the screencast");
            tokio::time::sleep(LEASE).await;
            continue;
        }
        tracing::debug!(%run_id, "live screen: watched");
        let go_on = stream(&mut sub, cast.as_mut(), &out).await;
        cast.stop().await;
        tracing::debug!(%run_id, "live screen: no longer watched");
        if !go_on {
            return;
        }
    }
}

/// Where frames are published.
struct Out<'a> {
    link: &'a Link,
    subject: String,
    screen_px: [u32; 2],
}

impl Out<'_> {
    async fn publish(&self, shot: LiveShot, seq: u64) {
        if shot.jpeg.len() > MAX_FRAME_BYTES {
            tracing::debug!(bytes = shot.jpeg.len(), "live frame too large; skipped");
            return;
        }
        let now = self.link.now.lock().map(|n| n.clone()).unwrap_or_default();
        let meta = FrameMeta {
            captured_at_ms: shot.captured_at_ms,
            seq,
            step: now.step,
            text: now.text,
            target_px: now.target_px,
            screen_px: self.screen_px,
        };
        let Ok(msg) = encode(&meta, &shot.jpeg) else {
            return;
        };
        if let Err(e) = self
            .link
            .nats
            .publish(self.subject.clone(), msg.into())
            .await
        {
            tracing::debug!(error = %e, "live frame not published");
        }
    }
}

/// Publishes frames (at most [`MAX_FPS`] a second) while leases keep coming. `false` when
/// the watch subscription or the screencast ended (the run's session is gone).
async fn stream(
    sub: &mut async_nats::Subscriber,
    cast: &mut dyn Screencast,
    out: &Out<'_>,
) -> bool {
    let gap = Duration::from_secs(1) / MAX_FPS;
    let mut lapse = Instant::now() + LEASE;
    let mut next_slot = Instant::now();
    let mut pending: Option<LiveShot> = None;
    let mut seq = 0u64;
    loop {
        tokio::select! {
            m = sub.next() => match m {
                Some(_) => lapse = Instant::now() + LEASE,
                None => return false,
            },
            _ = tokio::time::sleep_until(lapse) => return true,
            _ = tokio::time::sleep_until(next_slot), if pending.is_some() => {
                if let Some(shot) = pending.take() {
                    seq += 1;
                    out.publish(shot, seq).await;
                    next_slot = Instant::now() + gap;
                }
            }
            shot = cast.next() => {
                let Some(shot) = shot else { return false };
                pending = Some(shot);
            }
        }
    }
}
