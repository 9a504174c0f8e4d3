//! A process Argus started in its own process group, killed (the whole group) when it is
//! stopped or dropped, and reading what it announces on stdout at start.

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;
use tokio::process::Command;

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

/// Reads the first non-empty line the process prints on stdout, within [`START_TIMEOUT`].
pub(super) async fn first_line(p: &mut Owned) -> Result<String, DeviceError> {
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
