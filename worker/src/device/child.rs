//! Processes the worker starts for its devices (headless Chromium, Xvfb, the session
//! D-Bus, desktop apps) never outlive it, however it ends:
//!
//! - each runs as the leader of its own process group, so a terminal's Ctrl-C reaches only
//!   the worker (which then shuts down in order), and stopping it means signalling the group:
//!   Chromium's zygote and renderers, or helpers an app forked, go with their leader;
//! - the owner kills the whole group when it is dropped (a clean shutdown, a fatal error, or a
//!   start-up abandoned on SIGTERM/SIGINT all drop the devices);
//! - `PR_SET_PDEATHSIG(SIGKILL)` is the backstop for a worker that dies without running any
//!   destructor (`kill -9`, a crash): the kernel kills the leader, and Chromium's children
//!   exit when their browser process is gone. The signal follows the death of the *thread*
//!   that spawned the child; these are spawned from the async runtime's worker threads, which
//!   live as long as the process.

use std::time::Duration;

use tokio::process::Command;

/// Prepares `cmd` to start a process the worker owns: a new process group, SIGKILL to the
/// leader when the worker dies (`PR_SET_PDEATHSIG`), and SIGKILL to the leader when its
/// `tokio::process::Child` is dropped (owners also kill the group with [`kill_group`]).
pub fn own(cmd: &mut Command) {
    cmd.process_group(0).kill_on_drop(true);
    let parent = libc::pid_t::try_from(std::process::id()).unwrap_or(0);
    // SAFETY: the closure runs in the forked child before exec and only calls the
    // async-signal-safe `prctl` and `getppid`; it allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            // The parent died between fork and prctl: nobody would ever deliver the signal.
            if libc::getppid() != parent {
                return Err(std::io::Error::other(
                    "the worker exited while starting a child",
                ));
            }
            Ok(())
        });
    }
}

/// Sends `sig` (e.g. `libc::SIGTERM`) to process group `pgid`. A group that is already gone
/// is not an error; `pgid` 0 or one that does not fit a pid is ignored (never "every
/// process").
pub fn kill_group(pgid: u32, sig: libc::c_int) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: plain syscall on a group id this process created; no memory is shared.
    unsafe {
        libc::kill(-pgid, sig);
    }
}

/// How long a blocking drop waits between SIGTERM and SIGKILL.
pub const DROP_GRACE: Duration = Duration::from_millis(500);
