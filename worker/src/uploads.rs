//! A run's screenshot upload queue: storing screenshots off the action's critical path.
//!
//! Every action still captures its before and after screenshots (the effect check and the
//! report need both); only the capture stays on the action's path. The action hands the
//! frame to [`Uploads::submit`], which names it by content and answers its key at once:
//!
//! - **One object per distinct frame.** The key is `runs/<run>/<digest>.jpg`
//!   ([`argus_infra::frame_key`]), the digest the first 128 bits of a SHA-256 over the
//!   captured bytes and the boxes masked in them. A frame already submitted in this run (the
//!   after of one action is often the before of the next) is not queued again: its key is
//!   reused.
//! - **Bounded, with back-pressure.** A new frame goes on a queue of [`Limits::queue_frames`];
//!   when it is full, `submit` waits for room, so the action waits and nothing is dropped.
//! - **Compact.** The queue's task (one per run, [`Limits::parallel`] frames at once) masks,
//!   shrinks to [`Limits::max_side_px`] and encodes a JPEG on a blocking thread ([`compact`]);
//!   a driver's own bounded JPEG goes out as it is. Masking a JPEG is refused (its pixels
//!   are not the device's), so a frame with boxes to blank must come as the PNG.
//! - **Loud at the end.** A put that fails is tried [`Limits::put_tries`] times in all;
//!   [`Uploads::finish`] closes the queue, waits for every upload (at most
//!   [`Limits::drain_timeout`]) and answers an [`UploadError`] when a frame could not be
//!   stored, so the run does not end as if its evidence were complete.
//!
//! The run's engine owns its queue; the queue's task is the only writer of the run's
//! screenshots.

use std::collections::HashSet;
use std::io::Cursor;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use argus_infra::ArtifactStore;
use argus_perception::Rect;
use futures::StreamExt;
use image::{ImageFormat, RgbImage};
use sha2::{Digest, Sha256};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::device::Shot;
use crate::secrets::mask::MASK_RGBA;

/// How the queue stores a run's screenshots.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest side of a stored screenshot, px (a larger frame is scaled down, aspect
    /// kept). Default 1,600.
    pub max_side_px: u32,
    /// JPEG quality, 1–100. Default 80.
    pub jpeg_quality: u8,
    /// Frames that may wait in the queue before `submit` waits. Default 8.
    pub queue_frames: usize,
    /// Frames encoded and uploaded at once. Default 2.
    pub parallel: usize,
    /// Attempts per frame before it counts as lost (each S3 put also has the SDK's own
    /// retries). Default 4.
    pub put_tries: u32,
    /// Wait before the second attempt; doubled before each later one. Default 250 ms
    /// (250 + 500 + 1,000 ms over four attempts).
    pub first_retry: Duration,
    /// Longest wait in [`Uploads::finish`] for the queue to drain. Default 60 s.
    pub drain_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_side_px: 1600,
            jpeg_quality: 80,
            queue_frames: 8,
            parallel: 2,
            put_tries: 4,
            first_retry: Duration::from_millis(250),
            drain_timeout: Duration::from_secs(60),
        }
    }
}

/// Why a run's screenshots are not all stored.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// Frames whose every attempt failed (or that could not be encoded).
    #[error("{lost} of {total} screenshots could not be stored (first: {first})")]
    Lost {
        lost: usize,
        total: usize,
        first: String,
    },
    /// The queue did not drain in time; its task was stopped.
    #[error(
        "the screenshot uploads did not finish within {} s ({pending} of {total} still pending)",
        .timeout.as_secs()
    )]
    TimedOut {
        timeout: Duration,
        pending: usize,
        total: usize,
    },
    /// The queue's task is gone (it panicked): nothing more can be stored.
    #[error("the screenshot upload task stopped: {0}")]
    Stopped(String),
}

/// What a drained queue did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UploadSummary {
    /// Objects stored.
    pub stored: usize,
    /// Submits answered with the key of a frame already submitted (nothing queued).
    pub reused: usize,
    /// Bytes stored.
    pub bytes: u64,
    /// Time spent in the store's puts, summed over frames, ms (off the actions' path).
    pub put_ms: f64,
}

/// One frame on its way to the store.
struct Frame {
    key: String,
    shot: Shot,
    mask: Vec<Rect>,
}

/// What the task did, frame by frame.
#[derive(Default)]
struct Drained {
    stored: usize,
    bytes: u64,
    put_ms: f64,
    /// `(key, why)` of each frame not stored.
    lost: Vec<(String, String)>,
}

/// The upload queue of one run (see the module docs).
pub struct Uploads {
    run_id: Uuid,
    tx: mpsc::Sender<Frame>,
    task: JoinHandle<Drained>,
    /// Keys submitted so far.
    seen: HashSet<String>,
    reused: usize,
    /// Frames the task has finished with (stored or lost).
    done: Arc<AtomicUsize>,
    drain_timeout: Duration,
}

impl Uploads {
    /// Starts the queue of run `run_id` writing to `store`, its task on the current tokio
    /// runtime.
    pub fn start(store: Arc<dyn ArtifactStore>, run_id: Uuid, limits: Limits) -> Uploads {
        let (tx, rx) = mpsc::channel(limits.queue_frames.max(1));
        let done = Arc::new(AtomicUsize::new(0));
        let task = tokio::spawn(drain(rx, store, limits, done.clone(), run_id));
        Uploads {
            run_id,
            tx,
            task,
            seen: HashSet::new(),
            reused: 0,
            done,
            drain_timeout: limits.drain_timeout,
        }
    }

    /// Names `shot` (with `mask`, device px boxes to blank) by content and queues it unless
    /// this run already submitted the same frame; answers its key either way. Waits while
    /// the queue is full. Errors only when the queue's task is gone.
    pub async fn submit(&mut self, shot: Shot, mask: &[Rect]) -> Result<String, UploadError> {
        let key = argus_infra::frame_key(&self.run_id, &digest(&shot, mask));
        if self.seen.contains(&key) {
            self.reused += 1;
            return Ok(key);
        }
        let frame = Frame {
            key: key.clone(),
            shot,
            mask: mask.to_vec(),
        };
        self.tx
            .send(frame)
            .await
            .map_err(|_| UploadError::Stopped("its queue is closed".into()))?;
        self.seen.insert(key.clone());
        Ok(key)
    }

    /// Closes the queue and waits (at most [`Limits::drain_timeout`]) until every frame is
    /// stored or lost. `Err` when one was lost, the wait ran out or the task died.
    pub async fn finish(self) -> Result<UploadSummary, UploadError> {
        let Uploads {
            tx,
            mut task,
            seen,
            reused,
            done,
            drain_timeout,
            ..
        } = self;
        drop(tx);
        let total = seen.len();
        let drained = match tokio::time::timeout(drain_timeout, &mut task).await {
            Ok(Ok(d)) => d,
            Ok(Err(e)) => return Err(UploadError::Stopped(e.to_string())),
            Err(_) => {
                task.abort();
                return Err(UploadError::TimedOut {
                    timeout: drain_timeout,
                    pending: total.saturating_sub(done.load(Ordering::Relaxed)),
                    total,
                });
            }
        };
        if let Some((_, why)) = drained.lost.first() {
            return Err(UploadError::Lost {
                lost: drained.lost.len(),
                total,
                first: why.clone(),
            });
        }
        Ok(UploadSummary {
            stored: drained.stored,
            reused,
            bytes: drained.bytes,
            put_ms: drained.put_ms,
        })
    }
}

/// The queue's task: takes frames while the queue is open, `limits.parallel` at a time.
async fn drain(
    rx: mpsc::Receiver<Frame>,
    store: Arc<dyn ArtifactStore>,
    limits: Limits,
    done: Arc<AtomicUsize>,
    run_id: Uuid,
) -> Drained {
    let frames =
        futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|f| (f, rx)) });
    frames
        .map(|f| store_frame(store.clone(), f, limits))
        .buffer_unordered(limits.parallel.max(1))
        .fold(Drained::default(), |mut d, r| {
            done.fetch_add(1, Ordering::Relaxed);
            match r {
                Ok((bytes, put_ms)) => {
                    d.stored += 1;
                    d.bytes += bytes;
                    d.put_ms += put_ms;
                }
                Err((key, why)) => {
                    tracing::error!(run_id = %run_id, key, error = %why, "screenshot lost");
                    d.lost.push((key, why));
                }
            }
            futures::future::ready(d)
        })
        .await
}

/// Encodes one frame and puts it, retrying; answers `(bytes stored, put ms)` or
/// `(key, why)`.
async fn store_frame(
    store: Arc<dyn ArtifactStore>,
    f: Frame,
    limits: Limits,
) -> Result<(u64, f64), (String, String)> {
    let Frame { key, shot, mask } = f;
    let (max, q) = (limits.max_side_px, limits.jpeg_quality);
    let jpeg = match tokio::task::spawn_blocking(move || compact(shot, &mask, max, q)).await {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => return Err((key.clone(), format!("{key}: {e}"))),
        Err(e) => return Err((key.clone(), format!("{key}: encoding stopped: {e}"))),
    };
    let bytes = jpeg.len() as u64;
    let start = Instant::now();
    let mut wait = limits.first_retry;
    for attempt in 1..=limits.put_tries.max(1) {
        match store.put(&key, jpeg.clone(), "image/jpeg").await {
            Ok(()) => return Ok((bytes, start.elapsed().as_secs_f64() * 1000.0)),
            // The store's error names the key.
            Err(e) if attempt >= limits.put_tries => {
                return Err((key, format!("{e} ({attempt} attempts)")))
            }
            Err(e) => {
                tracing::warn!(key, attempt, error = %e, "screenshot upload failed; trying again");
                tokio::time::sleep(wait).await;
                wait = wait.saturating_mul(2);
            }
        }
    }
    Err((key.clone(), format!("{key}: no attempt made")))
}

/// 32 hex digits naming a frame: SHA-256 over its format, bytes and mask boxes.
fn digest(shot: &Shot, mask: &[Rect]) -> String {
    let mut h = Sha256::new();
    let (tag, bytes): (&[u8], &[u8]) = match shot {
        Shot::Png(b) => (b"png", b),
        Shot::Jpeg(b) => (b"jpeg", b),
    };
    h.update(tag);
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
    for r in mask {
        for v in [r.x, r.y, r.w, r.h] {
            h.update(v.to_le_bytes());
        }
    }
    hex::encode(&h.finalize()[..16])
}

/// The stored form of a frame: a JPEG (quality `jpeg_quality`) at most `max_side_px` on its
/// longer side, `mask`'s boxes (device px) filled with [`MASK_RGBA`]. A JPEG already within
/// the bound and with nothing to mask is returned as it is. Errors when the image does not
/// decode or encode, or when boxes are to be masked in a JPEG — never an unmasked image.
pub fn compact(
    shot: Shot,
    mask: &[Rect],
    max_side_px: u32,
    jpeg_quality: u8,
) -> Result<Vec<u8>, String> {
    let (bytes, format) = match shot {
        Shot::Png(b) => (b, ImageFormat::Png),
        Shot::Jpeg(b) if !mask.is_empty() => {
            drop(b);
            return Err("a JPEG screenshot cannot be masked (take the PNG)".into());
        }
        Shot::Jpeg(b) => {
            let (w, h) = image::ImageReader::with_format(Cursor::new(&b), ImageFormat::Jpeg)
                .into_dimensions()
                .map_err(|e| format!("the screenshot is not a JPEG: {e}"))?;
            if w.max(h) <= max_side_px {
                return Ok(b);
            }
            (b, ImageFormat::Jpeg)
        }
    };
    let mut rgb = image::load_from_memory_with_format(&bytes, format)
        .map_err(|e| format!("the screenshot does not decode: {e}"))?
        .to_rgb8();
    drop(bytes);
    paint(&mut rgb, mask);
    let (w, h) = rgb.dimensions();
    let longer = w.max(h);
    if longer > max_side_px && max_side_px > 0 {
        let f = f64::from(max_side_px) / f64::from(longer);
        let nw = ((f64::from(w) * f).round() as u32).max(1);
        let nh = ((f64::from(h) * f).round() as u32).max(1);
        rgb = image::imageops::resize(&rgb, nw, nh, image::imageops::FilterType::Triangle);
    }
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, jpeg_quality.clamp(1, 100))
        .encode_image(&rgb)
        .map_err(|e| format!("cannot encode the screenshot: {e}"))?;
    Ok(out)
}

/// Fills each box (px, clipped to the image) with [`MASK_RGBA`].
fn paint(rgb: &mut RgbImage, rects: &[Rect]) {
    let (w, h) = rgb.dimensions();
    let fill = image::Rgb([MASK_RGBA[0], MASK_RGBA[1], MASK_RGBA[2]]);
    for r in rects {
        let x0 = r.x.floor().max(0.0) as u32;
        let y0 = r.y.floor().max(0.0) as u32;
        let x1 = (r.right().ceil().max(0.0) as u32).min(w);
        let y1 = (r.bottom().ceil().max(0.0) as u32).min(h);
        for y in y0..y1 {
            for x in x0..x1 {
                rgb.put_pixel(x, y, fill);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use async_trait::async_trait;
    use tokio::sync::Semaphore;

    use super::*;

    /// A store that records puts; `fail_first` puts fail, and with a gate each put first
    /// takes a permit from it (none given: it waits).
    #[derive(Default)]
    struct TestStore {
        puts: Mutex<Vec<String>>,
        entered: AtomicUsize,
        fail_first: usize,
        gate: Option<Semaphore>,
    }

    #[async_trait]
    impl ArtifactStore for TestStore {
        async fn put(&self, key: &str, _bytes: Vec<u8>, ct: &str) -> Result<(), String> {
            assert_eq!(ct, "image/jpeg");
            let n = self.entered.fetch_add(1, Ordering::SeqCst);
            if let Some(g) = &self.gate {
                g.acquire().await.expect("gate").forget();
            }
            if n < self.fail_first {
                return Err(format!("store refused {key}"));
            }
            self.puts.lock().expect("puts").push(key.to_string());
            Ok(())
        }
    }

    fn png(w: u32, h: u32, shade: u8) -> Vec<u8> {
        let img = RgbImage::from_pixel(w, h, image::Rgb([shade, 250, 250]));
        let mut out = Vec::new();
        img.write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .expect("png");
        out
    }

    fn quick() -> Limits {
        Limits {
            first_retry: Duration::from_millis(1),
            ..Limits::default()
        }
    }

    #[tokio::test]
    async fn a_full_queue_makes_the_action_wait_and_drops_nothing() {
        let store = Arc::new(TestStore {
            gate: Some(Semaphore::new(0)),
            ..Default::default()
        });
        let limits = Limits {
            queue_frames: 2,
            parallel: 1,
            ..quick()
        };
        let mut up = Uploads::start(store.clone(), Uuid::new_v4(), limits);
        up.submit(Shot::Png(png(4, 4, 1)), &[]).await.expect("1");
        // The task has taken frame 1 and is held in its put.
        while store.entered.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        for shade in [2, 3] {
            let fast = tokio::time::timeout(
                Duration::from_secs(5),
                up.submit(Shot::Png(png(4, 4, shade)), &[]),
            );
            fast.await.expect("room in the queue").expect("queued");
        }
        let gate = store.gate.as_ref().expect("gate");
        {
            let fourth = up.submit(Shot::Png(png(4, 4, 4)), &[]);
            tokio::pin!(fourth);
            let waited = tokio::time::timeout(Duration::from_millis(200), &mut fourth).await;
            assert!(waited.is_err(), "the queue was full: submit must wait");
            gate.add_permits(1);
            tokio::time::timeout(Duration::from_secs(5), fourth)
                .await
                .expect("room after one upload")
                .expect("queued");
        }
        gate.add_permits(3);
        let s = up.finish().await.expect("all stored");
        assert_eq!(s.stored, 4);
        assert_eq!(store.puts.lock().expect("puts").len(), 4);
    }

    #[tokio::test]
    async fn an_unchanged_frame_is_stored_once_under_one_key() {
        let store = Arc::new(TestStore::default());
        let run = Uuid::new_v4();
        let mut up = Uploads::start(store.clone(), run, quick());
        let a = up.submit(Shot::Png(png(8, 8, 7)), &[]).await.expect("a");
        let b = up.submit(Shot::Png(png(8, 8, 7)), &[]).await.expect("b");
        let masked = up
            .submit(Shot::Png(png(8, 8, 7)), &[Rect::new(1.0, 1.0, 2.0, 2.0)])
            .await
            .expect("masked");
        let other = up.submit(Shot::Png(png(8, 8, 9)), &[]).await.expect("c");
        assert_eq!(a, b, "same frame, same key");
        assert_ne!(a, masked, "a masked frame is another object");
        assert_ne!(a, other);
        assert!(
            a.starts_with(&format!("runs/{run}/")) && a.ends_with(".jpg"),
            "{a}"
        );
        let s = up.finish().await.expect("stored");
        assert_eq!((s.stored, s.reused), (3, 1));
        let mut puts = store.puts.lock().expect("puts").clone();
        puts.sort();
        let mut want = vec![a, masked, other];
        want.sort();
        assert_eq!(puts, want);
    }

    #[tokio::test]
    async fn a_lost_upload_fails_the_wait_naming_it() {
        let store = Arc::new(TestStore {
            fail_first: usize::MAX,
            ..Default::default()
        });
        let limits = Limits {
            put_tries: 3,
            ..quick()
        };
        let mut up = Uploads::start(store.clone(), Uuid::new_v4(), limits);
        let key = up
            .submit(Shot::Png(png(4, 4, 1)), &[])
            .await
            .expect("queued");
        match up.finish().await {
            Err(UploadError::Lost { lost, total, first }) => {
                assert_eq!((lost, total), (1, 1));
                assert!(first.contains(&key), "{first}");
            }
            other => panic!("expected a lost upload, got {other:?}"),
        }
        assert_eq!(store.entered.load(Ordering::SeqCst), 3, "tried 3 times");
    }

    #[tokio::test]
    async fn a_failed_put_is_tried_again() {
        let store = Arc::new(TestStore {
            fail_first: 2,
            ..Default::default()
        });
        let mut up = Uploads::start(store.clone(), Uuid::new_v4(), quick());
        up.submit(Shot::Png(png(4, 4, 1)), &[])
            .await
            .expect("queued");
        assert_eq!(up.finish().await.expect("stored").stored, 1);
        assert_eq!(store.entered.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_queue_that_does_not_drain_in_time_fails_the_wait() {
        let store = Arc::new(TestStore {
            gate: Some(Semaphore::new(0)),
            ..Default::default()
        });
        let limits = Limits {
            drain_timeout: Duration::from_millis(100),
            ..quick()
        };
        let mut up = Uploads::start(store, Uuid::new_v4(), limits);
        up.submit(Shot::Png(png(4, 4, 1)), &[])
            .await
            .expect("queued");
        match up.finish().await {
            Err(e @ UploadError::TimedOut { pending: 1, .. }) => {
                assert!(e.to_string().contains("1 of 1 still pending"), "{e}")
            }
            other => panic!("expected a timeout, got {other:?}"),
        }
    }

    #[test]
    fn compact_masks_then_shrinks_to_a_bounded_jpeg() {
        let out = compact(
            Shot::Png(png(2000, 1000, 255)),
            &[Rect::new(0.0, 0.0, 1000.0, 1000.0)],
            1600,
            80,
        )
        .expect("compact");
        let img = image::load_from_memory_with_format(&out, ImageFormat::Jpeg)
            .expect("a JPEG")
            .to_rgb8();
        assert_eq!(img.dimensions(), (1600, 800));
        let masked = img.get_pixel(400, 400);
        let open = img.get_pixel(1200, 400);
        assert!(masked[0] < 60 && masked[1] < 60, "masked half: {masked:?}");
        assert!(open[1] > 200, "unmasked half: {open:?}");
        // A driver's JPEG within the bound goes out untouched; one too large is shrunk.
        let again = compact(Shot::Jpeg(out.clone()), &[], 1600, 80).expect("as is");
        assert_eq!(again, out);
        let smaller = compact(Shot::Jpeg(out.clone()), &[], 800, 80).expect("shrunk");
        let (w, h) = image::ImageReader::with_format(Cursor::new(&smaller), ImageFormat::Jpeg)
            .into_dimensions()
            .expect("dims");
        assert_eq!((w, h), (800, 400));
        assert!(compact(Shot::Jpeg(out), &[Rect::new(0.0, 0.0, 1.0, 1.0)], 1600, 80).is_err());
    }
}
