//! The live screen's wire format: one frame of a watched run, as a worker publishes it on
//! core NATS (`<prefix>.live.frame.<worker>.<run>`, [`crate::subjects::Subjects::live_frame`])
//! and the coordinator relays it to viewers.
//!
//! A message is `u32` big-endian length of the JSON [`FrameMeta`], the JSON, then the JPEG
//! bytes ([`encode`] / [`decode`]). Frames are not stored anywhere: a frame nobody receives is
//! gone.

use serde::{Deserialize, Serialize};

/// Most bytes of one frame's JPEG a worker publishes; a larger frame is skipped (NATS's
/// default `max_payload` is 1 MiB). With the screencast bounded to 1024 × 768 at quality 60 a
/// frame is typically 20–120 KiB.
pub const MAX_FRAME_BYTES: usize = 512 * 1024;

/// What a viewer needs beside the pixels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameMeta {
    /// When the device produced the frame, ms since the Unix epoch (the worker's clock; CDP's
    /// `metadata.timestamp` for a browser).
    pub captured_at_ms: i64,
    /// Frame number within this watch, from 1.
    pub seq: u64,
    /// The step running now, 0-based; `None` before the first step.
    pub step: Option<u32>,
    /// That step's text as written (secrets already redacted, as in its event).
    pub text: Option<String>,
    /// The last target an action of the run was aimed at, device px `[x, y, width, height]`.
    pub target_px: Option<[f64; 4]>,
    /// The screen's size in device px `[width, height]`: the space of `target_px` (a viewer
    /// scales it to the frame's own size).
    pub screen_px: [u32; 2],
}

/// Why a run's screen is not streamed at all, if it is not: a job that references a secret
/// (`${secret.NAME}` anywhere in it). Recorded screenshots mask the fields holding a
/// secret; live frames are not masked, and a secret typed into a field would show while it
/// is typed — so such a run has no live screen, on the worker and the coordinator alike.
pub fn withheld(spec: &crate::JobSpec) -> Option<&'static str> {
    let text = serde_json::to_string(spec).ok()?;
    text.contains("${secret.").then_some(
        "this job uses secrets: its screen is not streamed live (live frames are not masked)",
    )
}

/// One frame as published: meta length (u32 BE), meta JSON, JPEG.
pub fn encode(meta: &FrameMeta, jpeg: &[u8]) -> Result<Vec<u8>, serde_json::Error> {
    let m = serde_json::to_vec(meta)?;
    let len = u32::try_from(m.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(4 + m.len() + jpeg.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&m);
    out.extend_from_slice(jpeg);
    Ok(out)
}

/// The meta and the JPEG of a published frame; `None` when it is not one.
pub fn decode(msg: &[u8]) -> Option<(FrameMeta, &[u8])> {
    let len = u32::from_be_bytes(msg.get(..4)?.try_into().ok()?) as usize;
    let end = 4usize.checked_add(len)?;
    let meta = serde_json::from_slice(msg.get(4..end)?).ok()?;
    Some((meta, msg.get(end..)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_with_a_secret_is_not_streamed() {
        let mut spec = crate::JobSpec::script(
            crate::Platform::Web,
            None,
            "type \"${secret.PW}\" into \"Password\"".into(),
        );
        assert!(withheld(&spec).is_some());
        spec.instruction = "tap \"Go\"".into();
        assert!(withheld(&spec).is_none());
    }

    #[test]
    fn a_frame_round_trips_and_garbage_is_refused() {
        let meta = FrameMeta {
            captured_at_ms: 1_700_000_000_123,
            seq: 3,
            step: Some(2),
            text: Some("tap \"Añadir\"".into()),
            target_px: Some([1.0, 2.0, 30.0, 40.0]),
            screen_px: [1280, 800],
        };
        let msg = encode(&meta, b"\xff\xd8jpeg").unwrap();
        let (back, jpeg) = decode(&msg).unwrap();
        assert_eq!(back, meta);
        assert_eq!(jpeg, b"\xff\xd8jpeg");
        assert!(decode(b"\x00\x00\x00\x09{}").is_none());
        assert!(decode(b"\x00").is_none());
    }
}
