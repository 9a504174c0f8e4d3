//! Device drivers behind one trait, one folder per platform (`web`, `desktop`, `android`,
//! `harmony`, `ios`; Electron reuses the web driver over an attached CDP endpoint), each with
//! the same sub-files: `tree` (observe), `actions` (act), `screen` (geometry, screenshots).
//!
//! A driver observes (screenshot + tree → [`Observation`]) and acts (open, tap, type, key,
//! long press, swipe).
//! Every action method defaults to a structured "not supported on <platform>" error, so a
//! capability a platform lacks fails closed instead of being silently substituted.
//! Errors from actions carry a [`Disposition`]: whether the input may have reached the device.

pub mod android;
pub mod desktop;
pub mod electron;
pub mod harmony;
pub mod ios;
mod open;
pub mod web;

pub use open::{open_device, open_devices, Opened};

use argus_perception::{Element, Observation};
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

/// A failed action and whether its input may have landed.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct ActError {
    /// What went wrong, for a person.
    pub message: String,
    /// Whether the input reached the device.
    pub disposition: Disposition,
}

impl ActError {
    /// Nothing was sent.
    pub fn not_delivered(message: impl Into<String>) -> ActError {
        ActError {
            message: message.into(),
            disposition: Disposition::NotDelivered,
        }
    }
    /// Something was sent; its fate is unknown.
    pub fn uncertain(message: impl Into<String>) -> ActError {
        ActError {
            message: message.into(),
            disposition: Disposition::DeliveryUncertain,
        }
    }
}

impl From<DeviceError> for ActError {
    fn from(e: DeviceError) -> ActError {
        ActError::not_delivered(e.to_string())
    }
}

/// One device slot: observes and acts for one run at a time.
#[async_trait]
pub trait Device: Send {
    /// The platform.
    fn platform(&self) -> Platform;

    /// Prepares a fresh session for a run (web: a new browser context and page).
    async fn begin(&mut self) -> Result<(), DeviceError>;

    /// Tears the run's session down (web: disposes the browser context). Always called, on
    /// success, failure, timeout and cancel; must be safe to call twice.
    async fn end(&mut self) -> Result<(), DeviceError>;

    /// Screen / viewport size in device px.
    fn screen_px(&self) -> (u32, u32);

    /// Observes the screen: tree → element list. `serial` names the observation.
    async fn observe(&mut self, serial: u64) -> Result<Observation, DeviceError>;

    /// A PNG screenshot in device px.
    async fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError>;

    /// Opens a URL or deep link.
    async fn open(&mut self, _url: &str) -> Result<(), ActError> {
        Err(not_supported("open", self.platform()))
    }

    /// Taps the element's centre.
    async fn tap(&mut self, _el: &Element) -> Result<(), ActError> {
        Err(not_supported("tap", self.platform()))
    }

    /// Focuses the element and types text into it.
    async fn type_text(&mut self, _el: &Element, _text: &str) -> Result<(), ActError> {
        Err(not_supported("type", self.platform()))
    }

    /// Presses one key on the focused element.
    async fn key(&mut self, _key: Key) -> Result<(), ActError> {
        Err(not_supported("key", self.platform()))
    }

    /// What the device noticed on its own since the last call, for the running action's
    /// record: requests the navigation policy blocked, JavaScript dialogs it answered.
    fn take_notes(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// Presses the element's centre for `duration_ms`.
    async fn long_press(&mut self, _el: &Element, _duration_ms: u64) -> Result<(), ActError> {
        Err(not_supported("long press", self.platform()))
    }

    /// Swipes (drags) from `from` to `to`, device px, over `duration_ms` (scrolls the
    /// content the other way).
    async fn swipe(
        &mut self,
        _from: (f64, f64),
        _to: (f64, f64),
        _duration_ms: u64,
    ) -> Result<(), ActError> {
        Err(not_supported("swipe", self.platform()))
    }
}

fn not_supported(what: &'static str, platform: Platform) -> ActError {
    ActError::not_delivered(DeviceError::NotSupported { what, platform }.to_string())
}
