//! Launching Debian's Chromium headless with its own profile and a loopback-only DevTools
//! port, and connecting to it.
//!
//! Flags are the set measured to work here (see ENVIRONMENT.md): new headless, no GPU, no
//! background networking (the closed network refuses those connections), a fresh
//! `--user-data-dir` per browser, `--remote-debugging-address=127.0.0.1` and port 0, the real
//! port read back from `<user-data-dir>/DevToolsActivePort`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};

use super::cdp::Cdp;
use super::guard::{DialogPolicy, Guard};
use super::policy::{HostPolicy, HostRule};
use crate::device::DeviceError;

/// How long to wait for Chromium to write its DevTools port.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(30);

/// A running Chromium owned by this process (its whole process group is killed when
/// dropped; see [`crate::device::child`]).
pub struct Browser {
    _child: Child,
    /// The browser-level CDP connection.
    pub cdp: Arc<Cdp>,
    /// The DevTools port on 127.0.0.1.
    pub port: u16,
    /// The profile directory.
    pub user_data_dir: PathBuf,
    /// The navigation and dialog policy enforcer of this browser.
    pub guard: Arc<Guard>,
}

impl Drop for Browser {
    /// SIGKILL to Chromium's process group: the browser, its zygote and renderers.
    fn drop(&mut self) {
        if let Some(pid) = self._child.id() {
            crate::device::child::kill_group(pid, libc::SIGKILL);
        }
    }
}

fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

impl Browser {
    /// Starts `binary` with a fresh profile in `user_data_dir` (emptied first), enforcing
    /// `policy` (plus: the browser's own DevTools port is never reachable) and `dialogs` on
    /// every target before it runs.
    ///
    /// Errors when the binary is missing, exits early, or does not open its DevTools port
    /// within [`LAUNCH_TIMEOUT`].
    pub async fn launch(
        binary: &Path,
        user_data_dir: &Path,
        mut policy: HostPolicy,
        dialogs: DialogPolicy,
    ) -> Result<Browser, DeviceError> {
        if !binary.exists() {
            return Err(DeviceError::Failed(format!(
                "Chromium not found at {} (install it with `apt-get install -y chromium` or \
                 set ARGUS_CHROMIUM)",
                binary.display()
            )));
        }
        let _ = std::fs::remove_dir_all(user_data_dir);
        std::fs::create_dir_all(user_data_dir).map_err(|e| {
            DeviceError::Failed(format!(
                "cannot create the browser profile dir {}: {e}",
                user_data_dir.display()
            ))
        })?;
        let log = std::fs::File::create(user_data_dir.join("chromium.log"))
            .map_err(|e| DeviceError::Failed(format!("cannot create chromium.log: {e}")))?;
        let mut cmd = Command::new(binary);
        cmd.args([
            "--headless",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--mute-audio",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
        ]);
        if running_as_root() {
            cmd.arg("--no-sandbox");
        }
        cmd.arg(format!("--user-data-dir={}", user_data_dir.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        crate::device::child::own(&mut cmd);
        let mut child = cmd
            .spawn()
            .map_err(|e| DeviceError::Failed(format!("cannot start {}: {e}", binary.display())))?;
        let port_file = user_data_dir.join("DevToolsActivePort");
        let deadline = Instant::now() + LAUNCH_TIMEOUT;
        let (port, path) = loop {
            if let Ok(s) = std::fs::read_to_string(&port_file) {
                let mut lines = s.lines();
                if let (Some(p), Some(path)) = (lines.next(), lines.next()) {
                    if let Ok(port) = p.trim().parse::<u16>() {
                        break (port, path.trim().to_string());
                    }
                }
            }
            if let Ok(Some(status)) = child.try_wait() {
                return Err(DeviceError::Failed(format!(
                    "Chromium exited at start ({status}); see {}",
                    user_data_dir.join("chromium.log").display()
                )));
            }
            if Instant::now() > deadline {
                return Err(DeviceError::Failed(format!(
                    "Chromium did not open its DevTools port within {} s",
                    LAUNCH_TIMEOUT.as_secs()
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let cdp = Cdp::connect(&format!("ws://127.0.0.1:{port}{path}"))
            .await
            .map_err(|e| DeviceError::Failed(e.to_string()))?;
        policy.never(
            HostRule::exact(std::net::SocketAddr::from(([127, 0, 0, 1], port))),
            "the browser's DevTools port",
        );
        let guard = Guard::start(cdp.clone(), policy, dialogs)
            .await
            .map_err(|e| DeviceError::Failed(format!("cannot arm the navigation policy: {e}")))?;
        tracing::info!(port, dir = %user_data_dir.display(), "chromium started");
        Ok(Browser {
            _child: child,
            cdp,
            port,
            user_data_dir: user_data_dir.to_path_buf(),
            guard,
        })
    }
}
