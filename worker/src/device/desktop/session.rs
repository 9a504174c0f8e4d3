//! A private X + D-Bus session per desktop device: `Xvfb -displayfd` for the device's life,
//! and for every run a fresh session `dbus-daemon` with fresh private `XDG_RUNTIME_DIR` and
//! `HOME` (mode 700, see `run_env`), so two sessions never share `~/.cache/at-spi/bus`
//! ("Server GUID mismatch") and two runs share nothing. The AT-SPI bus is activated by D-Bus
//! when the first application asks for it.
//!
//! With a slot user (see `slot_user`), the bus and the apps run as that user with a cleared
//! environment; Xvfb (root) requires a cookie and admits only the worker and the slot user
//! (`xhost +SI:localuser:…`), so no other slot can connect to this display; and the end of a
//! run kills every process of the slot user.
//!
//! Every process Argus starts here runs in its own process group, and only those groups are
//! ever signalled: an app or display Argus attached to (`--display`) is never killed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

use super::owned::{first_line, Owned};
use super::run_env::{self, RunDirs};
use super::slot_user::SlotUser;
use crate::device::DeviceError;

impl Drop for Session {
    /// Removes the folders kept outside the session folder and kills what is left of the
    /// slot user (the processes themselves are killed by their own drop).
    fn drop(&mut self) {
        self.dbus = None;
        if let Some(u) = &self.user {
            u.sweep();
        }
        for d in [self.runtime.take(), self.slot_root.take()]
            .into_iter()
            .flatten()
        {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Longest `XDG_RUNTIME_DIR` kept under the session folder, bytes. The session bus and the
/// AT-SPI bus put sockets in it (`…/dbus-XXXXXXXXXX`, `…/at-spi/bus_0`), and a Unix socket
/// path holds at most 107 bytes: past that `dbus-daemon` exits at start.
const MAX_RUNTIME_DIR_LEN: usize = 64;

/// `<dir>/runtime`, or a fresh `argus-xdg-…` folder in the system temp dir when that path
/// is too long for socket names (a deep `--out` or `--data-dir`).
fn runtime_dir(dir: &Path) -> PathBuf {
    let inside = dir.join("runtime");
    if inside.as_os_str().len() <= MAX_RUNTIME_DIR_LEN {
        return inside;
    }
    let id = uuid::Uuid::new_v4().simple().to_string();
    std::env::temp_dir().join(format!("argus-xdg-{}", &id[..12]))
}

/// The environment of one desktop session: what an app needs to show up on its display and
/// on its accessibility bus.
#[derive(Debug, Clone)]
pub struct SessionEnv {
    /// X display, e.g. `:5`.
    pub display: String,
    /// Session D-Bus address (the current run's bus; a new one every run).
    pub dbus_address: String,
    /// Extra variables for apps started in the session (`XDG_RUNTIME_DIR`, `HOME`, …).
    pub vars: BTreeMap<String, String>,
}

/// A running private session (or an attached one, which owns nothing).
pub struct Session {
    /// Where apps go.
    pub env: SessionEnv,
    xvfb: Option<Owned>,
    dbus: Option<Owned>,
    dir: Option<PathBuf>,
    /// The runtime folder when it lives outside `dir` (see [`runtime_dir`]).
    runtime: Option<PathBuf>,
    /// The slot user's folder (runtime, home, bus config), outside `dir`.
    slot_root: Option<PathBuf>,
    /// The per-run folders (none when attached).
    dirs: Option<RunDirs>,
    /// Who the bus and the apps run as (`None`: the worker itself).
    user: Option<SlotUser>,
}

impl Session {
    /// [`Session::start_as`] with the apps running as the worker itself (no isolation).
    pub async fn start(dir: &Path, width: u32, height: u32) -> Result<Session, DeviceError> {
        Session::start_as(dir, width, height, None).await
    }

    /// Starts `Xvfb` (`width`×`height`×24, no TCP) under `dir` (created) and the first run's
    /// session bus. With `user`, the bus and the apps run as that user, in folders only it
    /// (and root) can enter, and only it and the worker may connect to the display.
    pub async fn start_as(
        dir: &Path,
        width: u32,
        height: u32,
        user: Option<SlotUser>,
    ) -> Result<Session, DeviceError> {
        let fail = |what: &str, e: std::io::Error| {
            DeviceError::Failed(format!(
                "cannot prepare {what} under {}: {e}",
                dir.display()
            ))
        };
        std::fs::create_dir_all(dir).map_err(|e| fail("the session folder", e))?;
        let (dirs, slot_root) = match &user {
            Some(_) => {
                let id = uuid::Uuid::new_v4().simple().to_string();
                let root = std::env::temp_dir().join(format!("argus-slot-{}", &id[..12]));
                std::fs::create_dir_all(&root).map_err(|e| fail("the slot folder", e))?;
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o711))
                    .map_err(|e| fail("the slot folder", e))?;
                let conf = root.join("bus.conf");
                run_env::write_bus_config(&conf)?;
                let dirs = RunDirs {
                    runtime: root.join("run"),
                    home: root.join("home"),
                    bus_config: Some(conf),
                };
                (dirs, Some(root))
            }
            None => {
                let dirs = RunDirs {
                    runtime: runtime_dir(dir),
                    home: dir.join("home"),
                    bus_config: None,
                };
                (dirs, None)
            }
        };
        let (xvfb, display) = start_xvfb(dir, width, height, user.as_ref()).await?;
        let runtime = dirs.runtime.clone();
        let mut session = Session {
            env: SessionEnv {
                display,
                dbus_address: String::new(),
                vars: dirs.vars(),
            },
            xvfb: Some(xvfb),
            dbus: None,
            dir: Some(dir.to_path_buf()),
            runtime: (slot_root.is_none() && !runtime.starts_with(dir)).then_some(runtime),
            slot_root,
            dirs: Some(dirs),
            user,
        };
        session.begin_run().await?;
        Ok(session)
    }

    /// Attaches to an existing display and session bus; owns (and later stops) nothing.
    pub fn attach(display: String, dbus_address: String) -> Session {
        Session {
            env: SessionEnv {
                display,
                dbus_address,
                vars: BTreeMap::new(),
            },
            xvfb: None,
            dbus: None,
            dir: None,
            runtime: None,
            slot_root: None,
            dirs: None,
            user: None,
        }
    }

    /// The slot user the apps run as, if any.
    pub fn user(&self) -> Option<&SlotUser> {
        self.user.as_ref()
    }

    /// Starts a run: ends the last one ([`Session::end_run`]), recreates the private folders
    /// and starts a fresh session bus. Nothing to do when attached.
    pub async fn begin_run(&mut self) -> Result<(), DeviceError> {
        let Some(dirs) = self.dirs.clone() else {
            return Ok(());
        };
        self.end_run().await;
        dirs.reset(self.user.as_ref())?;
        let (dbus, address) =
            run_env::start_bus(&self.env.display, &dirs, self.user.as_ref()).await?;
        tracing::info!(x_display = %self.env.display, dbus = %address,
            user = self.user.as_ref().map(|u| u.name.as_str()).unwrap_or("(the worker)"),
            "desktop run session started");
        self.dbus = Some(dbus);
        self.env.dbus_address = address;
        self.env.vars = dirs.vars();
        Ok(())
    }

    /// Ends a run: stops its session bus (and the AT-SPI bus it started) and kills every
    /// process left of the slot user.
    pub async fn end_run(&mut self) {
        if let Some(mut d) = self.dbus.take() {
            d.stop(Duration::from_secs(1)).await;
        }
        if let Some(u) = self.user.clone() {
            let _ = tokio::task::spawn_blocking(move || u.sweep()).await;
        }
    }

    /// Whether the processes this session started are alive (always true when attached).
    pub fn healthy(&mut self) -> bool {
        self.xvfb.as_mut().is_none_or(Owned::running)
            && self.dbus.as_mut().is_none_or(Owned::running)
    }

    /// Stops what this session started and removes its folders.
    pub async fn stop(&mut self) {
        self.end_run().await;
        if let Some(mut x) = self.xvfb.take() {
            x.stop(Duration::from_secs(2)).await;
            remove_display_files(&self.env.display);
        }
        let dirs = [self.runtime.take(), self.slot_root.take(), self.dir.take()];
        for d in dirs.into_iter().flatten() {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    /// A command that runs `command_line` (through `sh -c`) inside the session: as the slot
    /// user with only the session's environment ([`run_env::app_env`]), or, attached, with
    /// the worker's environment plus the display and bus.
    pub fn command(&self, command_line: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("exec {command_line}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        match &self.dirs {
            Some(dirs) => {
                let env = run_env::app_env(
                    &self.env.display,
                    dirs,
                    Some(&self.env.dbus_address),
                    self.user.as_ref(),
                );
                cmd.env_clear().envs(env).current_dir(&dirs.home);
                if let Some(u) = &self.user {
                    u.apply(&mut cmd);
                }
            }
            None => {
                cmd.env("DISPLAY", &self.env.display)
                    .env("DBUS_SESSION_BUS_ADDRESS", &self.env.dbus_address);
            }
        }
        cmd
    }
}

/// Starts Xvfb under `dir` and returns it with its display. With a slot user the server
/// requires a cookie (kept in `dir`, which only the worker reads) and then admits, by uid,
/// only the worker and that user.
async fn start_xvfb(
    dir: &Path,
    width: u32,
    height: u32,
    user: Option<&SlotUser>,
) -> Result<(Owned, String), DeviceError> {
    let mut cmd = Command::new("Xvfb");
    cmd.args(["-displayfd", "1", "-screen", "0"])
        .arg(format!("{width}x{height}x24"))
        .args(["-nolisten", "tcp", "-noreset"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let cookie = dir.join("xauthority");
    if user.is_some() {
        super::xauth::write_cookie_file(&cookie)?;
        cmd.arg("-auth").arg(&cookie);
    }
    let mut xvfb = Owned::spawn(cmd, "Xvfb")?;
    let display = format!(":{}", first_line(&mut xvfb).await?);
    if let Some(u) = user {
        super::xauth::admit(&display, &cookie, &u.name).await?;
    }
    Ok((xvfb, display))
}

/// Removes the socket and lock file of display `display` (`:N`) that this session's Xvfb
/// leaves behind when it had to be killed (SIGKILL after the grace: a loaded machine) and
/// could not remove them itself; a stale socket would look like a live display. Called
/// only for a display this session started.
fn remove_display_files(display: &str) {
    let n = display.trim_start_matches(':');
    if n.is_empty() || !n.chars().all(|c| c.is_ascii_digit()) {
        return;
    }
    for f in [format!("/tmp/.X11-unix/X{n}"), format!("/tmp/.X{n}-lock")] {
        let _ = std::fs::remove_file(f);
    }
}
