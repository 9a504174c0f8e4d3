//! Device drivers behind one trait, one folder per platform (`web`, `desktop`, `android`,
//! `harmony`, `ios`; Electron reuses the web driver over an attached CDP endpoint), each with
//! the same sub-files: `tree` (observe), `actions` (act), `screen` (geometry, screenshots).
//!
//! A driver implements four capability traits (as agent-desktop's adapters do): [`System`]
//! (platform, run session, open), [`Observe`] (geometry, what it captured — the normalized
//! tree and the screen geometry as a [`Capture`] — and screenshots), [`Act`] (tap, double tap, long press, type — aimed at an element; a tap through
//! one of several delivery [`Channel`]s) and
//! [`Input`] (keys, swipes). [`Device`] is all four. Every action method defaults to a typed
//! [`ActErrorKind::NotSupported`] error, so a capability a platform lacks fails closed
//! instead of being silently substituted. Errors from actions carry a [`Disposition`]:
//! whether the input may have reached the device.
//!
//! Drivers never build element lists themselves: the worker's perception stage
//! ([`crate::perceive`]) turns a [`Capture`] into an `Observation`, and is the one place the
//! pixel channel plugs in.

pub mod android;
mod channel;
pub mod child;
pub mod desktop;
pub mod electron;
pub mod harmony;
pub mod ios;
pub mod periodic;
pub mod web;

pub use channel::Channel;

use argus_perception::{Element, Screen, Tree};
use argus_protocol::{Disposition, Key, Platform};
use async_trait::async_trait;

/// A device-level failure outside an action (launch, session, observe).
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// The platform cannot do this at all.
    #[error("{what} is not supported on {platform}")]
    NotSupported {
        what: &'static str,
        platform: Platform,
    },
    /// The device or its driver failed.
    #[error("{0}")]
    Failed(String),
}

/// What kind of failure an action met; code matches on this, never on the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActErrorKind {
    /// The platform (or this driver) cannot do this at all; nothing was sent.
    NotSupported,
    /// The device, its driver or the transport failed.
    Failed,
    /// A policy of the worker refused it (the navigation policy); nothing was sent and
    /// repeating it cannot help.
    Refused,
}

impl ActErrorKind {
    /// Stable lowercase name (`not_supported`, `failed`) for records and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            ActErrorKind::NotSupported => "not_supported",
            ActErrorKind::Failed => "failed",
            ActErrorKind::Refused => "refused",
        }
    }
}

/// A failed action: what kind of failure, whether its input may have landed, and a message
/// for a person (never holding typed text or secrets).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ActError {
    /// The kind of failure.
    pub kind: ActErrorKind,
    /// What went wrong, for a person.
    pub message: String,
    /// Whether the input reached the device.
    pub disposition: Disposition,
}

impl ActError {
    /// Nothing was sent.
    pub fn not_delivered(message: impl Into<String>) -> ActError {
        ActError {
            kind: ActErrorKind::Failed,
            message: message.into(),
            disposition: Disposition::NotDelivered,
        }
    }
    /// Something was sent; its fate is unknown.
    pub fn uncertain(message: impl Into<String>) -> ActError {
        ActError {
            kind: ActErrorKind::Failed,
            message: message.into(),
            disposition: Disposition::DeliveryUncertain,
        }
    }
    /// A worker policy refused the input; nothing was sent.
    pub fn refused(message: impl Into<String>) -> ActError {
        ActError {
            kind: ActErrorKind::Refused,
            message: message.into(),
            disposition: Disposition::NotDelivered,
        }
    }
    /// The platform cannot do `what`; nothing was sent.
    pub fn not_supported(what: &'static str, platform: Platform) -> ActError {
        ActError {
            kind: ActErrorKind::NotSupported,
            message: DeviceError::NotSupported { what, platform }.to_string(),
            disposition: Disposition::NotDelivered,
        }
    }
}

impl From<DeviceError> for ActError {
    fn from(e: DeviceError) -> ActError {
        match e {
            DeviceError::NotSupported { what, platform } => ActError::not_supported(what, platform),
            DeviceError::Failed(m) => ActError::not_delivered(m),
        }
    }
}

/// System capability: what the device is, the run session's lifecycle, opening apps / URLs.
#[async_trait]
pub trait System: Send {
    /// The platform.
    fn platform(&self) -> Platform;

    /// Prepares a fresh session for a run (web: a new browser context and page).
    async fn begin(&mut self) -> Result<(), DeviceError>;

    /// Tears the run's session down (web: disposes the browser context). Always called, on
    /// success, failure, timeout and cancel; must be safe to call twice.
    async fn end(&mut self) -> Result<(), DeviceError>;

    /// Opens a URL or deep link.
    async fn open(&mut self, _url: &str) -> Result<(), ActError> {
        Err(ActError::not_supported("open", self.platform()))
    }

    /// Goes back: the browser's history entry before this one, the phone's system back.
    async fn back(&mut self) -> Result<(), ActError> {
        Err(ActError::not_supported("back", self.platform()))
    }

    /// What the device noticed on its own since the last call, for the running action's
    /// record: requests the navigation policy blocked, JavaScript dialogs it answered.
    fn take_notes(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// A live view of the run's screen, once [`System::begin`] has run (web: the page's CDP
    /// screencast); `None` where the platform has none yet. It works beside the run, never
    /// through `&mut self`, so watching never waits for an action.
    fn screencast(&self) -> Option<Box<dyn Screencast>> {
        None
    }
}

/// One live frame: a JPEG and when the device produced it.
#[derive(Debug, Clone)]
pub struct LiveShot {
    /// The JPEG bytes.
    pub jpeg: Vec<u8>,
    /// Capture time, ms since the Unix epoch.
    pub captured_at_ms: i64,
}

/// A stream of the screen's frames while started (see `crate::live`).
#[async_trait]
pub trait Screencast: Send {
    /// Starts producing frames: JPEG, at most `max_w_px` × `max_h_px`, `quality` 1–100.
    async fn start(&mut self, max_w_px: u32, max_h_px: u32, quality: u8)
        -> Result<(), DeviceError>;
    /// The next frame; `None` once the device or its session is gone. Cancel-safe.
    async fn next(&mut self) -> Option<LiveShot>;
    /// Stops producing frames (best effort).
    async fn stop(&mut self);
}

/// What a device captured at one instant, before perception: its tree, normalized into the
/// platform-neutral node model, and the screen geometry (logical size and scale; device px
/// = logical × dpr). The screenshot is taken separately ([`Observe::screenshot`]) and only
/// when the perception stage needs pixels.
#[derive(Debug, Clone)]
pub struct Capture {
    /// The normalized tree (empty when the platform shows nothing accessible).
    pub tree: Tree,
    /// Screen geometry of this capture.
    pub screen: Screen,
    /// The device reports that nothing has been loaded yet (a browser tab before its first
    /// navigation: `about:blank`, an empty new tab); `false` when it cannot tell. The
    /// arbiter never switches to pixels for such a frame.
    pub blank: bool,
}

/// A screenshot taken for the run's record ([`Observe::record_shot`]), still unmasked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shot {
    /// A PNG in device px, as [`Observe::screenshot`] returns it.
    Png(Vec<u8>),
    /// A JPEG already within the size asked for.
    Jpeg(Vec<u8>),
}

/// Observe capability: geometry, the platform tree ([`Capture`]), screenshots.
#[async_trait]
pub trait Observe: System {
    /// Screen / viewport size in device px.
    fn screen_px(&self) -> (u32, u32);

    /// Captures the screen's tree and geometry (no perception: see [`crate::perceive`]).
    async fn capture(&mut self) -> Result<Capture, DeviceError>;

    /// A PNG screenshot in device px.
    async fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError>;

    /// A screenshot for the run's record (an action's before or after image), as cheap to
    /// take as the driver can make it: a driver that can encode a JPEG itself answers
    /// [`Shot::Jpeg`] at most `max_side_px` on its longer side with quality `jpeg_quality`
    /// (1–100; web: Chromium encodes it). Defaults to the PNG of [`Observe::screenshot`],
    /// which the upload queue ([`crate::uploads`]) shrinks and re-encodes off the action's
    /// path.
    async fn record_shot(
        &mut self,
        max_side_px: u32,
        jpeg_quality: u8,
    ) -> Result<Shot, DeviceError> {
        let _ = (max_side_px, jpeg_quality);
        Ok(Shot::Png(self.screenshot().await?))
    }

    /// The screen as RGB pixels in device px: what the pixel channel reads. Defaults to
    /// [`Observe::screenshot`] decoded on a blocking thread; a driver that holds raw pixels
    /// overrides it and skips the PNG round trip (the desktop driver: X `GetImage` only —
    /// on a 1280×800 screen the PNG encode and decode were most of the pixel channel's
    /// cost on a mostly covered frame, see `perception-bench`).
    async fn frame(&mut self) -> Result<image::RgbImage, DeviceError> {
        let png = self.screenshot().await?;
        tokio::task::spawn_blocking(move || {
            image::load_from_memory_with_format(&png, image::ImageFormat::Png)
                .map(|i| i.to_rgb8())
                .map_err(|e| DeviceError::Failed(format!("screenshot is not a PNG: {e}")))
        })
        .await
        .map_err(|e| DeviceError::Failed(format!("decode task: {e}")))?
    }
}

/// Act capability: gestures and typing aimed at one element of the last observation.
/// Every method defaults to a typed [`ActErrorKind::NotSupported`] error (fails closed).
#[async_trait]
pub trait Act: System {
    /// Taps the element's centre.
    async fn tap(&mut self, _el: &Element) -> Result<(), ActError> {
        Err(ActError::not_supported("tap", self.platform()))
    }

    /// Two taps in quick succession at the element's centre (a double click).
    async fn double_tap(&mut self, _el: &Element) -> Result<(), ActError> {
        Err(ActError::not_supported("double tap", self.platform()))
    }

    /// Presses the element's centre for `duration_ms`.
    async fn long_press(&mut self, _el: &Element, _duration_ms: u64) -> Result<(), ActError> {
        Err(ActError::not_supported("long press", self.platform()))
    }

    /// Taps the element through its `n`-th delivery channel (`0`: the one [`Act::tap`] uses;
    /// later ones are tried only when the last showed no effect) and says which channel that
    /// was. The default has one channel, `tap`: any later one fails `NotSupported`.
    async fn tap_through(&mut self, el: &Element, n: usize) -> Result<Channel, ActError> {
        if n == 0 {
            self.tap(el).await.map(|()| Channel::Platform)
        } else {
            Err(ActError::not_supported(
                "another delivery channel for a tap",
                self.platform(),
            ))
        }
    }

    /// Focuses the element and types text into it.
    async fn type_text(&mut self, _el: &Element, _text: &str) -> Result<(), ActError> {
        Err(ActError::not_supported("type", self.platform()))
    }

    /// Rests the pointer over the element's centre without pressing (a mouse hover), so
    /// controls a page shows only under the pointer (a list row's delete button) appear.
    /// Touch screens have no hover: the default fails `NotSupported`.
    async fn hover(&mut self, _el: &Element) -> Result<(), ActError> {
        Err(ActError::not_supported("hover", self.platform()))
    }
}

/// Input capability: raw keys and pointer gestures not tied to an element.
/// Every method defaults to a typed [`ActErrorKind::NotSupported`] error (fails closed).
#[async_trait]
pub trait Input: System {
    /// Presses one key on the focused element.
    async fn key(&mut self, _key: Key) -> Result<(), ActError> {
        Err(ActError::not_supported("key", self.platform()))
    }

    /// Types text as key strokes into whatever holds the keyboard focus (a terminal, a canvas
    /// app): for screens whose tree offers no element to type into.
    async fn type_focused(&mut self, _text: &str) -> Result<(), ActError> {
        Err(ActError::not_supported(
            "typing into the focused window",
            self.platform(),
        ))
    }

    /// Swipes (drags) from `from` to `to`, device px, over `duration_ms` (scrolls the
    /// content the other way).
    async fn swipe(
        &mut self,
        _from: (f64, f64),
        _to: (f64, f64),
        _duration_ms: u64,
    ) -> Result<(), ActError> {
        Err(ActError::not_supported("swipe", self.platform()))
    }
}

/// One device slot: every capability, for one run at a time.
pub trait Device: System + Observe + Act + Input {}

impl<T: System + Observe + Act + Input + ?Sized> Device for T {}

/// The capability traits, to call device methods on a `dyn Device` or a concrete driver:
/// `use crate::device::prelude::*;`.
pub mod prelude {
    pub use super::{Act, Device, Input, Observe, System};
}
