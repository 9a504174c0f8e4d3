//! Linux desktop driver: apps under a private Xvfb + session D-Bus (or an attached display),
//! observed and driven through AT-SPI (`atspi` crate, zbus on tokio).
//!
//! `session` owns the display and bus; `tree` observes (AT-SPI → `argus_perception::atspi`);
//! `actions` acts through Action / EditableText / the device event controller; `screen` takes
//! screenshots of the display. With `--launch`, every run gets a fresh instance of the app
//! (started in `begin`, its process group stopped in `end`); without it the device attaches to
//! whatever runs on the display and never stops it. Every run also gets a fresh session bus
//! and private folders, as the slot's user (`session::Session::start_as`); its end kills every
//! process of that user.

mod actions;
mod owned;
mod run_env;
mod screen;
#[cfg(test)]
mod screen_tests;
pub mod session;
mod shm;
pub mod slot_user;
mod tree;
mod window;
mod xauth;
mod xtest;

use std::time::{Duration, Instant};

/// The AT-SPI crate this driver is built on (for tools and tests that read the bus
/// themselves).
pub use atspi;

use argus_perception::{Element, Screen};
use argus_protocol::{Key, Platform};
use async_trait::async_trait;
use atspi::zbus;

use super::{Act, ActError, Capture, Channel, DeviceError, Input, Observe, System};
use owned::Owned;
use session::Session;
use tree::Refs;

/// Longest wait for a launched app to show a window on the accessibility bus.
const APP_START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a mapped X window must stay without an accessible window before the app is taken
/// as one with no accessibility at all (xterm): then perception reads its pixels.
const NO_A11Y_GRACE: Duration = Duration::from_secs(3);
/// Grace period between SIGTERM and SIGKILL when stopping a launched app.
const APP_STOP_GRACE: Duration = Duration::from_secs(3);

/// One desktop session (one device slot).
pub struct DesktopDevice {
    session: Session,
    launch: Option<String>,
    app: Option<Owned>,
    a11y: Option<zbus::Connection>,
    refs: Refs,
    screen: (u32, u32),
    /// Where the pointer was last put (screen px): keys go to the window under it.
    pointer: Option<(f64, f64)>,
    /// The display connection (and MIT-SHM segment) screenshots and frames are grabbed
    /// through, kept between grabs; `None` until the first or after one failed.
    grabber: Option<screen::Grabber>,
}

impl DesktopDevice {
    /// A device on `session` whose screen is `screen` px; `launch` (a shell command line)
    /// is started for every run.
    pub fn new(session: Session, screen: (u32, u32), launch: Option<String>) -> DesktopDevice {
        DesktopDevice {
            session,
            launch,
            app: None,
            a11y: None,
            refs: Refs::new(),
            screen,
            pointer: None,
            grabber: None,
        }
    }

    /// Stops the launched app and the session's Xvfb and dbus-daemon (if it started them).
    pub async fn shutdown(&mut self) {
        self.stop_app().await;
        self.a11y = None;
        self.grabber = None;
        self.session.stop().await;
    }

    /// The raw AT-SPI tree of everything on the bus (for tools and fixtures; observing goes
    /// through [`Observe::capture`]).
    pub async fn atspi_snapshot(
        &mut self,
    ) -> Result<argus_perception::atspi::AtspiNode, DeviceError> {
        let c = self.conn().await?;
        Ok(tree::snapshot(&c).await?.0)
    }

    /// The session's environment (display, bus address).
    pub fn session_env(&self) -> &session::SessionEnv {
        &self.session.env
    }

    /// The accessibility bus connection, opened on first use: the session bus's
    /// `org.a11y.Bus.GetAddress` (which activates the AT-SPI bus), then that address.
    async fn conn(&mut self) -> Result<zbus::Connection, DeviceError> {
        if let Some(c) = &self.a11y {
            return Ok(c.clone());
        }
        let c = connect_a11y(&self.session.env.dbus_address).await?;
        self.a11y = Some(c.clone());
        Ok(c)
    }

    /// Stops the app this device launched, if any.
    async fn stop_app(&mut self) {
        if let Some(mut app) = self.app.take() {
            app.stop(APP_STOP_GRACE).await;
        }
    }

    /// The topmost mapped X window (screen px), if any.
    async fn top_window(&self) -> Result<Option<(i32, i32, u32, u32)>, DeviceError> {
        let display = self.session.env.display.clone();
        tokio::task::spawn_blocking(move || window::topmost(&display))
            .await
            .map_err(|e| DeviceError::Failed(format!("X window query task: {e}")))?
    }

    /// Waits until some application shows a window on the accessibility bus, or — for an app
    /// with no accessibility at all — until an X window has been mapped for
    /// [`NO_A11Y_GRACE`] with nothing on the bus.
    async fn wait_for_window(&mut self) -> Result<(), DeviceError> {
        let deadline = Instant::now() + APP_START_TIMEOUT;
        let mut mapped_since: Option<Instant> = None;
        loop {
            match self.top_window().await {
                Ok(Some(_)) => {
                    let since = *mapped_since.get_or_insert_with(Instant::now);
                    if since.elapsed() >= NO_A11Y_GRACE {
                        tracing::info!(
                            "the app shows an X window but nothing on the accessibility bus; perception will read its pixels"
                        );
                        return Ok(());
                    }
                }
                _ => mapped_since = None,
            }
            if let Some(app) = self.app.as_mut() {
                if !app.running() {
                    return Err(DeviceError::Failed(
                        "the launched app exited at start (check --launch)".into(),
                    ));
                }
            }
            if let Ok(c) = self.conn().await {
                if let Ok((root, _)) = tree::snapshot(&c).await {
                    let showing = root.children.iter().any(|app| {
                        app.children
                            .iter()
                            .any(|w| w.states.iter().any(|s| s == "showing"))
                    });
                    if showing {
                        return Ok(());
                    }
                }
            }
            if Instant::now() >= deadline {
                return Err(DeviceError::Failed(format!(
                    "no application window appeared on the accessibility bus within {} s",
                    APP_START_TIMEOUT.as_secs()
                )));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// Opens the AT-SPI bus of the session bus at `session_address`.
pub async fn connect_a11y(session_address: &str) -> Result<zbus::Connection, DeviceError> {
    let err = tree::dbus_err;
    let session = zbus::connection::Builder::address(session_address)
        .map_err(err)?
        .build()
        .await
        .map_err(err)?;
    let bus = atspi::proxy::bus::BusProxy::new(&session)
        .await
        .map_err(err)?;
    if let Ok(status) = atspi::proxy::bus::StatusProxy::new(&session).await {
        let _ = status.set_is_enabled(true).await;
    }
    let addr = bus.get_address().await.map_err(err)?;
    zbus::connection::Builder::address(addr.as_str())
        .map_err(err)?
        .build()
        .await
        .map_err(err)
}

#[async_trait]
impl System for DesktopDevice {
    fn platform(&self) -> Platform {
        Platform::Desktop
    }

    async fn begin(&mut self) -> Result<(), DeviceError> {
        self.end().await?;
        if !self.session.healthy() {
            return Err(DeviceError::Failed(
                "the desktop session (Xvfb / dbus-daemon) is gone".into(),
            ));
        }
        self.session.begin_run().await?;
        self.a11y = None;
        if let Some(cmd) = self.launch.clone() {
            self.app = Some(Owned::spawn(self.session.command(&cmd), "the app")?);
        }
        self.wait_for_window().await
    }

    async fn end(&mut self) -> Result<(), DeviceError> {
        self.stop_app().await;
        self.a11y = None;
        self.session.end_run().await;
        self.refs.clear();
        self.pointer = None;
        Ok(())
    }
}

#[async_trait]
impl Observe for DesktopDevice {
    fn screen_px(&self) -> (u32, u32) {
        self.screen
    }

    async fn capture(&mut self) -> Result<Capture, DeviceError> {
        let c = self.conn().await?;
        let (root, refs) = tree::snapshot(&c).await?;
        self.refs = refs;
        let tree = argus_perception::atspi::normalize(&root, (0.0, 0.0));
        let screen = Screen::from_device_px(self.screen.0 as f64, self.screen.1 as f64, 1.0);
        Ok(Capture {
            tree,
            screen,
            blank: false,
        })
    }

    async fn screenshot(&mut self) -> Result<Vec<u8>, DeviceError> {
        let img = self.grab().await?;
        let (w, h) = img.dimensions();
        tokio::task::spawn_blocking(move || screen::encode_png(img.as_raw(), w, h))
            .await
            .map_err(|e| DeviceError::Failed(format!("screenshot task: {e}")))?
    }

    async fn frame(&mut self) -> Result<image::RgbImage, DeviceError> {
        self.grab().await
    }
}

impl DesktopDevice {
    /// The whole screen as RGB through the kept [`screen::Grabber`] (connected, or connected
    /// again, on a blocking thread).
    async fn grab(&mut self) -> Result<image::RgbImage, DeviceError> {
        let display = self.session.env.display.clone();
        let cached = self.grabber.take();
        let (kept, img) = tokio::task::spawn_blocking(move || screen::grab_with(cached, &display))
            .await
            .map_err(|e| DeviceError::Failed(format!("frame task: {e}")))?;
        self.grabber = kept;
        img
    }
}

#[async_trait]
impl Act for DesktopDevice {
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
}

#[async_trait]
impl Input for DesktopDevice {
    async fn key(&mut self, key: Key) -> Result<(), ActError> {
        actions::key(self, key).await
    }

    async fn type_focused(&mut self, text: &str) -> Result<(), ActError> {
        actions::type_focused(self, text).await
    }
}

/// Screen size of an X display in px (one blocking round trip; call off the async threads).
pub fn display_size(display: &str) -> Result<(u32, u32), DeviceError> {
    screen::size(display)
}
