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
    /// The proxy all of this browser's traffic goes through (stops when dropped).
    _egress: super::egress::Egress,
}

impl Drop for Browser {
    /// SIGKILL to Chromium's process group: the browser, its zygote and renderers.
    fn drop(&mut self) {
        if let Some(pid) = self._child.id() {
            crate::device::child::kill_group(pid, libc::SIGKILL);
        }
    }
}

/// The uid and gid of `user` from `/etc/passwd`, if it exists.
fn lookup_user(user: &str) -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        match f.as_slice() {
            [name, _, uid, gid, ..] if *name == user => {
                Some((uid.parse().ok()?, gid.parse().ok()?))
            }
            _ => None,
        }
    })
}

/// Whether every ancestor of `dir` lets other users through (mode `o+x`), so a browser
/// running as another user can reach its profile.
fn others_can_reach(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    dir.ancestors().skip(1).all(|a| {
        a.as_os_str().is_empty()
            || std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0)
    })
}

/// Who Chromium runs as: `Some((uid, gid))` of `sandbox_user` when the worker runs as root
/// and that user exists and can reach the profile (then the sandbox stays on); `None` to run
/// as the worker itself (root: with `--no-sandbox`, said once in the log).
fn browser_identity(sandbox_user: Option<&str>, profile: &Path) -> Option<(u32, u32)> {
    if !running_as_root() {
        return None;
    }
    let user = sandbox_user.filter(|u| !u.is_empty() && *u != "root")?;
    let Some(ids) = lookup_user(user) else {
        tracing::warn!(user, "the browser user does not exist (deploy/dev-up.sh creates it): Chromium runs as root WITHOUT its sandbox");
        return None;
    };
    if !others_can_reach(profile) {
        tracing::warn!(user, profile = %profile.display(), "the browser user cannot reach the profile folder (an ancestor lacks o+x): Chromium runs as root WITHOUT its sandbox");
        return None;
    }
    Some(ids)
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

/// How a browser is launched, beyond its binary, profile folder and host policy.
#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    /// How JavaScript dialogs are answered.
    pub dialogs: DialogPolicy,
    /// When the worker runs as root, the unprivileged user Chromium runs as (see
    /// [`Browser::launch_as`]).
    pub sandbox_user: Option<String>,
    /// Further Chromium flags, after Argus's own (tests: `--host-resolver-rules=…`, so
    /// Chromium's own look-up answers differently from the policy's).
    pub extra_args: Vec<String>,
    /// Failure injection for tests: arming the navigation policy fails on every target of
    /// this type (`page`, `worker`, …), as if Chromium refused `Fetch.enable` there.
    pub arm_fault: Option<String>,
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
        policy: HostPolicy,
        dialogs: DialogPolicy,
    ) -> Result<Browser, DeviceError> {
        let opts = LaunchOptions {
            dialogs,
            ..Default::default()
        };
        Browser::launch_with(binary, user_data_dir, policy, opts).await
    }

    /// [`Browser::launch`] (Chromium always starts with a cleared environment, see
    /// `browser_env`), and when the worker runs as root, Chromium runs as
    /// `sandbox_user` (a dedicated unprivileged user, created by `deploy/dev-up.sh`) with its
    /// sandbox on; the profile folder is handed to that user. Without such a user (or as
    /// root on purpose: `root`) Chromium runs as root with `--no-sandbox`, and the log says
    /// so.
    pub async fn launch_as(
        binary: &Path,
        user_data_dir: &Path,
        policy: HostPolicy,
        dialogs: DialogPolicy,
        sandbox_user: Option<&str>,
    ) -> Result<Browser, DeviceError> {
        let opts = LaunchOptions {
            dialogs,
            sandbox_user: sandbox_user.map(String::from),
            ..Default::default()
        };
        Browser::launch_with(binary, user_data_dir, policy, opts).await
    }

    /// [`Browser::launch_as`] with every option spelled out.
    pub async fn launch_with(
        binary: &Path,
        user_data_dir: &Path,
        mut policy: HostPolicy,
        opts: LaunchOptions,
    ) -> Result<Browser, DeviceError> {
        let sandbox_user = opts.sandbox_user.as_deref();
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
        let identity = browser_identity(sandbox_user, user_data_dir);
        if let Some((uid, gid)) = identity {
            std::os::unix::fs::chown(user_data_dir, Some(uid), Some(gid)).map_err(|e| {
                DeviceError::Failed(format!(
                    "cannot hand the profile {} to the browser user: {e}",
                    user_data_dir.display()
                ))
            })?;
        }
        let egress = super::egress::bind()
            .await
            .map_err(|e| DeviceError::Failed(format!("cannot start the egress proxy: {e}")))?;
        let egress_addr = egress
            .local_addr()
            .map_err(|e| DeviceError::Failed(format!("cannot start the egress proxy: {e}")))?;
        let mut cmd = chromium_command(binary, user_data_dir, identity, sandbox_user);
        cmd.arg(format!("--proxy-server=http://{egress_addr}"));
        cmd.args(&opts.extra_args);
        cmd.arg(format!("--user-data-dir={}", user_data_dir.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::from(log));
        crate::device::child::own(&mut cmd);
        let mut child = cmd
            .spawn()
            .map_err(|e| DeviceError::Failed(format!("cannot start {}: {e}", binary.display())))?;
        let (port, path) = devtools_port(&mut child, user_data_dir).await?;
        let cdp = Cdp::connect(&format!("ws://127.0.0.1:{port}{path}"))
            .await
            .map_err(|e| DeviceError::Failed(e.to_string()))?;
        policy.never(
            HostRule::exact(std::net::SocketAddr::from(([127, 0, 0, 1], port))),
            "the browser's DevTools port",
        );
        policy.never(HostRule::exact(egress_addr), "the worker's egress proxy");
        let egress = super::egress::serve(egress, policy.clone())
            .map_err(|e| DeviceError::Failed(format!("cannot start the egress proxy: {e}")))?;
        let guard = Guard::start(cdp.clone(), policy, opts.dialogs, opts.arm_fault)
            .await
            .map_err(|e| DeviceError::Failed(format!("cannot arm the navigation policy: {e}")))?;
        tracing::info!(port, dir = %user_data_dir.display(), "chromium started");
        Ok(Browser {
            _child: child,
            cdp,
            port,
            user_data_dir: user_data_dir.to_path_buf(),
            guard,
            _egress: egress,
        })
    }
}

/// Chromium's command with Argus's flags, its cleared environment and its identity (the
/// browser user's uid and gid; without one, as root, `--no-sandbox`).
fn chromium_command(
    binary: &Path,
    user_data_dir: &Path,
    identity: Option<(u32, u32)>,
    sandbox_user: Option<&str>,
) -> Command {
    let mut cmd = Command::new(binary);
    // None of the worker's environment (its tokens, keys and secrets live there).
    super::browser_env::apply(&mut cmd, user_data_dir);
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
        // Every request, loopback included, through the egress proxy: Chromium then
        // resolves no name itself.
        "--proxy-bypass-list=<-loopback>",
        // WebRTC's UDP (STUN, ICE candidates) never crosses the egress proxy: no UDP but
        // what a proxy carries, so a page cannot reach a private address that way.
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    ]);
    match identity {
        Some((uid, gid)) => {
            tracing::info!(
                user = sandbox_user.unwrap_or_default(),
                uid,
                "Chromium runs as the browser user with its sandbox on"
            );
            cmd.uid(uid).gid(gid);
        }
        None if running_as_root() => {
            cmd.arg("--no-sandbox");
        }
        None => {}
    }
    cmd
}

/// Waits (at most `LAUNCH_TIMEOUT`) for Chromium to write its DevTools port and path to
/// `<user_data_dir>/DevToolsActivePort`; fails when it exits first or never writes it.
async fn devtools_port(
    child: &mut tokio::process::Child,
    user_data_dir: &Path,
) -> Result<(u16, String), DeviceError> {
    let port_file = user_data_dir.join("DevToolsActivePort");
    let deadline = Instant::now() + LAUNCH_TIMEOUT;
    loop {
        if let Ok(s) = std::fs::read_to_string(&port_file) {
            let mut lines = s.lines();
            if let (Some(p), Some(path)) = (lines.next(), lines.next()) {
                if let Ok(port) = p.trim().parse::<u16>() {
                    return Ok((port, path.trim().to_string()));
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
    }
}
