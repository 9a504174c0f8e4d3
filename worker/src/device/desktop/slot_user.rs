//! The unprivileged user a desktop slot's apps run as. A job drives a real app (`xterm` is a
//! shell), so whatever the app's uid can read, the job can read: the worker runs its apps,
//! their session bus and the AT-SPI bus as the slot's own user (`argus-slot<n>`, created by
//! `deploy/dev-up.sh`), never as itself, and at the end of every run kills every process of
//! that user (`kill(-1, SIGKILL)` from a helper running as the user: no process group,
//! session or double fork escapes it).
//!
//! Switching users needs root (`setuid`/`setgid`, and `chown` of the private folders): a
//! worker that is not root refuses to start desktop slots unless `--desktop-slot-user none`
//! says to run the apps as the worker itself.

use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::process::Command;

use crate::device::DeviceError;

/// The value of `--desktop-slot-user` that runs apps as the worker itself (unconfined).
pub const AS_WORKER: &str = "none";

/// A slot's user: its name and ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotUser {
    /// Login name (e.g. `argus-slot0`).
    pub name: String,
    /// Its uid (never 0, never the worker's).
    pub uid: u32,
    /// Its primary gid.
    pub gid: u32,
}

/// The user name slot `slot` gets from `spec`: a comma-separated list (slot `i` takes the
/// `i`-th), or one template where `{n}` becomes the slot number. `None` for [`AS_WORKER`].
pub fn slot_user_name(spec: &str, slot: usize) -> Result<Option<String>, DeviceError> {
    let spec = spec.trim();
    if spec == AS_WORKER {
        return Ok(None);
    }
    let names: Vec<&str> = spec.split(',').map(str::trim).collect();
    let name = match names.as_slice() {
        [one] if one.contains("{n}") => one.replace("{n}", &slot.to_string()),
        [one] if slot == 0 && !one.is_empty() => (*one).to_string(),
        list => list
            .get(slot)
            .filter(|n| !n.is_empty())
            .map(|n| (*n).to_string())
            .ok_or_else(|| {
                DeviceError::Failed(format!(
                    "--desktop-slot-user {spec:?} names no user for slot {slot} \
                     (one per slot, or a template with {{n}})"
                ))
            })?,
    };
    Ok(Some(name))
}

impl SlotUser {
    /// Looks `name` up and checks that the worker can run apps as it: the worker is root,
    /// and the user exists and is neither root nor the worker.
    pub fn resolve(name: &str) -> Result<SlotUser, DeviceError> {
        let fail = |why: String| DeviceError::Failed(format!("desktop slot user {name}: {why}"));
        // SAFETY: plain syscalls without arguments.
        let (euid, uid) = unsafe { (libc::geteuid(), libc::getuid()) };
        if euid != 0 {
            return Err(fail(format!(
                "the worker runs as uid {euid} and cannot start apps as another user (it \
                 needs root); run it as root, or set ARGUS_DESKTOP_SLOT_USER={AS_WORKER} to \
                 run apps as the worker itself with no isolation"
            )));
        }
        let (u, g) = lookup(name)
            .ok_or_else(|| fail("no such user (deploy/dev-up.sh creates argus-slot0..9)".into()))?;
        if u == 0 || u == uid {
            return Err(fail(format!("uid {u} is root or the worker itself")));
        }
        Ok(SlotUser {
            name: name.to_string(),
            uid: u,
            gid: g,
        })
    }

    /// Makes `cmd` run as this user (std drops the supplementary groups when root sets a
    /// uid).
    pub fn apply(&self, cmd: &mut Command) {
        cmd.uid(self.uid).gid(self.gid);
    }

    /// Kills every process of this user and waits (at most 2 s) until none is left; returns
    /// how many were still there at the end (0 normally).
    pub fn sweep(&self) -> usize {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            let mut cmd = std::process::Command::new("/bin/sh");
            cmd.args(["-c", "kill -KILL -1"])
                .env_clear()
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            std::os::unix::process::CommandExt::uid(&mut cmd, self.uid);
            std::os::unix::process::CommandExt::gid(&mut cmd, self.gid);
            if let Err(e) = cmd.status() {
                tracing::warn!(user = %self.name, "cannot sweep the slot user's processes: {e}");
            }
            let left = processes_of(self.uid);
            if left == 0 || Instant::now() >= deadline {
                if left > 0 {
                    tracing::warn!(user = %self.name, left, "processes survived the sweep");
                }
                return left;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The uid and gid of `user` from `/etc/passwd`.
fn lookup(user: &str) -> Option<(u32, u32)> {
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

/// How many live (not zombie) processes have real or effective uid `uid`.
fn processes_of(uid: u32) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let want = uid.to_string();
    dir.flatten()
        .filter(|e| {
            let Ok(s) = std::fs::read_to_string(e.path().join("status")) else {
                return false;
            };
            let zombie = s
                .lines()
                .any(|l| l.starts_with("State:") && l.contains('Z'));
            let ids = s.lines().find_map(|l| l.strip_prefix("Uid:"));
            !zombie && ids.is_some_and(|ids| ids.split_whitespace().take(2).any(|i| i == want))
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_per_slot() {
        let n = |s: &str, i| slot_user_name(s, i).map_err(|e| e.to_string());
        assert_eq!(n("argus-slot{n}", 3), Ok(Some("argus-slot3".into())));
        assert_eq!(n("a,b", 1), Ok(Some("b".into())));
        assert_eq!(n("solo", 0), Ok(Some("solo".into())));
        assert!(n("solo", 1).is_err(), "two slots must not share a user");
        assert!(n("a,b", 2).is_err());
        assert_eq!(n("none", 5), Ok(None));
    }
}
