//! A live screen for a device with no screencast of its own (Android so far): a screenshot
//! every [`PeriodicCast`] period through a capture that works beside the run (a clone of the
//! driver's connection, never its `&mut`), shrunk and re-encoded as JPEG on a blocking thread.
//! The capture runs in its own task, so a caller that stops waiting (`select!`) never
//! cancels a screenshot half-way; one frame waits for the caller at most, newer ones wait
//! for it (a slow viewer slows the capture, nothing queues).

use std::future::Future;
use std::io::Cursor;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::{DeviceError, LiveShot, Screencast};

/// How often a device without a screencast is photographed while watched (1 frame/s: an
/// `adb screencap` takes 0.3–1 s on a phone).
pub const EVERY: Duration = Duration::from_secs(1);

/// A screenshot (PNG or JPEG bytes), taken beside the run.
pub type Grab = Arc<
    dyn Fn() -> Pin<Box<dyn Future<Output = Result<Vec<u8>, DeviceError>> + Send>> + Send + Sync,
>;

/// Screenshots every `every` while started.
pub struct PeriodicCast {
    grab: Grab,
    every: Duration,
    rx: Option<mpsc::Receiver<LiveShot>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl PeriodicCast {
    /// Takes a screenshot with `grab` every `every`.
    pub fn new(grab: Grab, every: Duration) -> PeriodicCast {
        PeriodicCast {
            grab,
            every,
            rx: None,
            task: None,
        }
    }
}

impl Drop for PeriodicCast {
    fn drop(&mut self) {
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}

/// `img` as a JPEG of `quality`, at most `max_w` × `max_h` px.
fn to_jpeg(img: &[u8], max_w: u32, max_h: u32, quality: u8) -> Result<Vec<u8>, String> {
    let mut rgb = image::load_from_memory(img)
        .map_err(|e| format!("the screenshot does not decode: {e}"))?
        .to_rgb8();
    let (w, h) = rgb.dimensions();
    let f = (f64::from(max_w) / f64::from(w.max(1))).min(f64::from(max_h) / f64::from(h.max(1)));
    if f < 1.0 {
        let nw = ((f64::from(w) * f).round() as u32).max(1);
        let nh = ((f64::from(h) * f).round() as u32).max(1);
        rgb = image::imageops::resize(&rgb, nw, nh, image::imageops::FilterType::Triangle);
    }
    let mut out = Cursor::new(Vec::new());
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality.clamp(1, 100))
        .encode_image(&rgb)
        .map_err(|e| format!("cannot encode the frame: {e}"))?;
    Ok(out.into_inner())
}

async fn capture(grab: Grab, every: Duration, size: (u32, u32, u8), tx: mpsc::Sender<LiveShot>) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let at = chrono::Utc::now().timestamp_millis();
        let img = match grab().await {
            Ok(b) => b,
            Err(e) => {
                tracing::debug!(error = %e, "live screenshot failed");
                continue;
            }
        };
        let (w, h, q) = size;
        let jpeg = match tokio::task::spawn_blocking(move || to_jpeg(&img, w, h, q)).await {
            Ok(Ok(j)) => j,
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "live frame not encoded");
                continue;
            }
            Err(_) => return,
        };
        let shot = LiveShot {
            jpeg,
            captured_at_ms: at,
        };
        if tx.send(shot).await.is_err() {
            return;
        }
    }
}

#[async_trait]
impl Screencast for PeriodicCast {
    async fn start(
        &mut self,
        max_w_px: u32,
        max_h_px: u32,
        quality: u8,
    ) -> Result<(), DeviceError> {
        self.stop().await;
        let (tx, rx) = mpsc::channel(1);
        let size = (max_w_px, max_h_px, quality);
        self.task = Some(tokio::spawn(capture(
            self.grab.clone(),
            self.every,
            size,
            tx,
        )));
        self.rx = Some(rx);
        Ok(())
    }

    async fn next(&mut self) -> Option<LiveShot> {
        self.rx.as_mut()?.recv().await
    }

    async fn stop(&mut self) {
        self.rx = None;
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_pixel(w, h, image::Rgb([10, 200, 30]));
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[tokio::test]
    async fn frames_come_shrunk_as_jpeg_while_started_and_stop_after() {
        let count = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let c = count.clone();
        let grab: Grab = Arc::new(move || {
            c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Box::pin(async { Ok(png(1080, 2400)) })
        });
        let mut cast = PeriodicCast::new(grab, Duration::from_millis(20));
        cast.start(1024, 768, 60).await.unwrap();
        let shot = cast.next().await.unwrap();
        assert_eq!(&shot.jpeg[..3], b"\xff\xd8\xff");
        let dims = image::load_from_memory(&shot.jpeg).unwrap();
        assert_eq!((dims.width(), dims.height()), (346, 768));
        assert!(cast.next().await.is_some());
        cast.stop().await;
        assert!(cast.next().await.is_none());
        let n = count.load(std::sync::atomic::Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(
            count.load(std::sync::atomic::Ordering::SeqCst),
            n,
            "captures after stop"
        );
    }
}
