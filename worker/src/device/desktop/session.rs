//! A private X + D-Bus session per desktop device: `Xvfb -displayfd`, a session
//! `dbus-daemon`, and a private `XDG_RUNTIME_DIR` (mode 700) so two sessions never share
//! `~/.cache/at-spi/bus` ("Server GUID mismatch"). The AT-SPI bus is activated by D-Bus when
//! the first application asks for it.
//!
//! Every process Argus starts here runs in its own process group, and only those groups are
//! ever signalled: an app or display Argus attached to (`--display`) is never killed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::device::child::{kill_group, DROP_GRACE};
use crate::device::DeviceError;

/// How long Xvfb and dbus-daemon get to announce themselves.
const START_TIMEOUT: Duration = Duration::from_secs(15);

/// A process Argus started in its own process group; killed (the whole group) on drop.
pub(super) struct Owned {
    child: Child,
    what: &'static str,
}

impl Owned {
    /// Spawns `cmd` as the leader of a new process group.
    pub(super) fn spawn(mut cmd: Command, what: &'static str) -> Result<Owned, DeviceError> {
        crate::device::child::own(&mut cmd);
        let child = cmd
            .spawn()
            .map_err(|e| DeviceError::Failed(format!("cannot start {what}: {e}")))?;
        Ok(Owned { child, what })
    }

    /// Whether the process is still running.
    pub(super) fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// SIGTERM to the group, then SIGKILL after `grace`; reaps the leader.
    pub(super) async fn stop(&mut self, grace: Duration) {
        let Some(pid) = self.child.id() else { return };
        kill_group(pid, libc::SIGTERM);
        if tokio::time::timeout(grace, self.child.wait())
            .await
            .is_err()
        {
            kill_group(pid, libc::SIGKILL);
            let _ = self.child.wait().await;
        }
        // Helpers the leader started (same group) get the same treatment.
        kill_group(pid, libc::SIGKILL);
        tracing::debug!(what = self.what, pid, "stopped");
    }

    fn stdout(&mut self) -> Option<tokio::process::ChildStdout> {
        self.child.stdout.take()
    }
}

impl Drop for Owned {
    /// SIGTERM to the group (Xvfb then removes its socket and lock file), a short blocking
    /// grace of at most [`DROP_GRACE`], then SIGKILL. [`Owned::stop`] is the async way.
    fn drop(&mut self) {
        if let Some(pid) = self.child.id() {
            kill_group(pid, libc::SIGTERM);
            let deadline = std::time::Instant::now() + DROP_GRACE;
            while std::time::Instant::now() < deadline {
                if matches!(self.child.try_wait(), Ok(Some(_))) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            kill_group(pid, libc::SIGKILL);
        }
    }
}

impl Drop for Session {
    /// Removes a runtime folder kept outside the session folder (the processes themselves
    /// are killed by their own drop).
    fn drop(&mut self) {
        if let Some(d) = self.runtime.take() {
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

/// Reads the first non-empty line the process prints on stdout, within [`START_TIMEOUT`].
async fn first_line(p: &mut Owned) -> Result<String, DeviceError> {
    let out = p
        .stdout()
        .ok_or_else(|| DeviceError::Failed(format!("{} has no stdout", p.what)))?;
    let mut lines = BufReader::new(out).lines();
    let read = async {
        while let Ok(Some(l)) = lines.next_line().await {
            if !l.trim().is_empty() {
                return Some(l.trim().to_string());
            }
        }
        None
    };
    match tokio::time::timeout(START_TIMEOUT, read).await {
        Ok(Some(l)) => Ok(l),
        Ok(None) => Err(DeviceError::Failed(format!(
            "{} exited before it was ready (is it installed?)",
            p.what
        ))),
        Err(_) => Err(DeviceError::Failed(format!(
            "{} did not start within {} s",
            p.what,
            START_TIMEOUT.as_secs()
        ))),
    }
}

/// The environment of one desktop session: what an app needs to show up on its display and
/// on its accessibility bus.
#[derive(Debug, Clone)]
pub struct SessionEnv {
    /// X display, e.g. `:5`.
    pub display: String,
    /// Session D-Bus address.
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
}

impl Session {
    /// Starts `Xvfb` (`width`×`height`×24, no TCP) and a session `dbus-daemon` with a private
    /// runtime/config/home under `dir` (created, mode 700).
    pub async fn start(dir: &Path, width: u32, height: u32) -> Result<Session, DeviceError> {
        let fail = |what: &str, e: std::io::Error| {
            DeviceError::Failed(format!(
                "cannot prepare {what} under {}: {e}",
                dir.display()
            ))
        };
        let runtime = runtime_dir(dir);
        let home = dir.join("home");
        for d in [&runtime, &home] {
            std::fs::create_dir_all(d).map_err(|e| fail("the session folder", e))?;
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| fail("XDG_RUNTIME_DIR", e))?;

        let mut cmd = Command::new("Xvfb");
        cmd.args(["-displayfd", "1", "-screen", "0"])
            .arg(format!("{width}x{height}x24"))
            .args(["-nolisten", "tcp", "-noreset"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut xvfb = Owned::spawn(cmd, "Xvfb")?;
        let n = first_line(&mut xvfb).await?;
        let disp = format!(":{n}");

        let mut vars = BTreeMap::new();
        let path = |p: PathBuf| p.to_string_lossy().into_owned();
        vars.insert("XDG_RUNTIME_DIR".to_string(), path(runtime.clone()));
        vars.insert("HOME".to_string(), path(home.clone()));
        vars.insert("XDG_CONFIG_HOME".to_string(), path(home.join(".config")));
        vars.insert("XDG_CACHE_HOME".to_string(), path(home.join(".cache")));
        vars.insert("XDG_DATA_HOME".to_string(), path(home.join(".local/share")));

        let mut cmd = Command::new("dbus-daemon");
        cmd.args(["--session", "--nofork", "--print-address=1"])
            .arg(format!("--address=unix:dir={}", runtime.display()))
            .env("DISPLAY", &disp)
            .envs(&vars)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut dbus = Owned::spawn(cmd, "dbus-daemon")?;
        let dbus_address = first_line(&mut dbus).await?;
        tracing::info!(x_display = %disp, dbus = %dbus_address, "desktop session started");
        Ok(Session {
            env: SessionEnv {
                display: disp,
                dbus_address,
                vars,
            },
            xvfb: Some(xvfb),
            dbus: Some(dbus),
            dir: Some(dir.to_path_buf()),
            runtime: (!runtime.starts_with(dir)).then_some(runtime),
        })
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
        }
    }

    /// Whether the processes this session started are alive (always true when attached).
    pub fn healthy(&mut self) -> bool {
        self.xvfb.as_mut().is_none_or(Owned::running)
            && self.dbus.as_mut().is_none_or(Owned::running)
    }

    /// Stops what this session started and removes its folder.
    pub async fn stop(&mut self) {
        for p in [self.dbus.take(), self.xvfb.take()].into_iter().flatten() {
            let mut p = p;
            p.stop(Duration::from_secs(2)).await;
        }
        if let Some(d) = self.runtime.take() {
            let _ = std::fs::remove_dir_all(d);
        }
        if let Some(d) = self.dir.take() {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    /// A command that runs `command_line` (through `sh -c`) inside the session.
    pub fn command(&self, command_line: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("exec {command_line}"))
            .env("DISPLAY", &self.env.display)
            .env("DBUS_SESSION_BUS_ADDRESS", &self.env.dbus_address)
            .envs(&self.env.vars)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd
    }
}
