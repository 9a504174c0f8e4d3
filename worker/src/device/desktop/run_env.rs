//! What one run's apps get: fresh private folders (`XDG_RUNTIME_DIR` and `HOME`, mode 700,
//! owned by the slot user), a session `dbus-daemon` of their own started as the slot user
//! (the AT-SPI bus launcher it activates runs as that user too), and a cleared environment
//! with only what a desktop app needs. All of it is thrown away at the end of the run, so
//! nothing a job leaves (dotfiles, bus names, helpers) reaches the next job on the slot.
//!
//! The worker (root) reads the slot's buses: the session bus runs with [`BUS_CONFIG`]
//! (Debian's `session.conf` plus `<allow user="root"/>`: D-Bus `EXTERNAL` auth otherwise
//! admits only the bus's own uid), and Debian's AT-SPI bus config already admits root. The
//! sockets live in the slot's `XDG_RUNTIME_DIR`, which no other slot user can enter.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::process::Command;

use super::owned::{first_line, Owned};
use super::slot_user::SlotUser;
use crate::device::DeviceError;

/// The slot session bus's configuration: Debian's session bus, plus root (the worker) may
/// connect.
pub const BUS_CONFIG: &str = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <include>/usr/share/dbus-1/session.conf</include>
  <policy context="default"><allow user="root"/></policy>
</busconfig>
"#;

/// Where a session keeps its per-run folders.
#[derive(Debug, Clone)]
pub struct RunDirs {
    /// `XDG_RUNTIME_DIR` (the buses' sockets).
    pub runtime: PathBuf,
    /// `HOME` (and the XDG config, cache and data folders under it).
    pub home: PathBuf,
    /// The bus configuration file (root-owned, world-readable).
    pub bus_config: Option<PathBuf>,
}

impl RunDirs {
    /// Empties and recreates both folders (mode 700, owned by `user` when there is one).
    pub fn reset(&self, user: Option<&SlotUser>) -> Result<(), DeviceError> {
        for d in [&self.runtime, &self.home] {
            let fail = |e: std::io::Error| {
                DeviceError::Failed(format!("cannot prepare {}: {e}", d.display()))
            };
            if d.exists() {
                std::fs::remove_dir_all(d).map_err(fail)?;
            }
            std::fs::create_dir_all(d).map_err(fail)?;
            if let Some(u) = user {
                std::os::unix::fs::chown(d, Some(u.uid), Some(u.gid)).map_err(fail)?;
            }
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700)).map_err(fail)?;
        }
        Ok(())
    }

    /// `XDG_RUNTIME_DIR`, `HOME` and the XDG folders under it.
    pub fn vars(&self) -> BTreeMap<String, String> {
        let path = |p: PathBuf| p.to_string_lossy().into_owned();
        let mut vars = BTreeMap::new();
        vars.insert("XDG_RUNTIME_DIR".into(), path(self.runtime.clone()));
        vars.insert("HOME".into(), path(self.home.clone()));
        vars.insert("XDG_CONFIG_HOME".into(), path(self.home.join(".config")));
        vars.insert("XDG_CACHE_HOME".into(), path(self.home.join(".cache")));
        vars.insert("XDG_DATA_HOME".into(), path(self.home.join(".local/share")));
        vars
    }
}

/// Writes [`BUS_CONFIG`] to `path` (mode 644: the slot user's bus reads it).
pub fn write_bus_config(path: &Path) -> Result<(), DeviceError> {
    let fail =
        |e: std::io::Error| DeviceError::Failed(format!("cannot write {}: {e}", path.display()));
    std::fs::write(path, BUS_CONFIG).map_err(fail)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644)).map_err(fail)
}

/// The whole environment of a process of the session: the locale and a fixed `PATH` (see
/// `browser_env`), the display, the folders, the session bus when known, and the user's
/// names when it runs as a slot user. Nothing else of the worker's.
pub fn app_env(
    display: &str,
    dirs: &RunDirs,
    dbus_address: Option<&str>,
    user: Option<&SlotUser>,
) -> Vec<(String, String)> {
    let mut env =
        crate::device::web::browser_env::browser_env(&dirs.home, |k| std::env::var(k).ok());
    env.retain(|(k, _)| k != "HOME");
    env.extend(dirs.vars());
    env.push(("DISPLAY".into(), display.into()));
    if let Some(a) = dbus_address {
        env.push(("DBUS_SESSION_BUS_ADDRESS".into(), a.into()));
    }
    if let Some(u) = user {
        env.push(("USER".into(), u.name.clone()));
        env.push(("LOGNAME".into(), u.name.clone()));
    }
    env
}

/// Starts the run's session `dbus-daemon` (as `user` when there is one) on a socket in the
/// runtime folder; returns it and its address.
pub async fn start_bus(
    display: &str,
    dirs: &RunDirs,
    user: Option<&SlotUser>,
) -> Result<(Owned, String), DeviceError> {
    let mut cmd = Command::new("dbus-daemon");
    match &dirs.bus_config {
        Some(c) => cmd.arg(format!("--config-file={}", c.display())),
        None => cmd.arg("--session"),
    };
    cmd.args(["--nofork", "--print-address=1"])
        .arg(format!("--address=unix:dir={}", dirs.runtime.display()))
        .env_clear()
        .envs(app_env(display, dirs, None, user))
        .current_dir(&dirs.home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(u) = user {
        u.apply(&mut cmd);
    }
    let mut dbus = Owned::spawn(cmd, "dbus-daemon")?;
    let address = first_line(&mut dbus).await?;
    Ok((dbus, address))
}
