//! Lists processes through `/proc`: which live processes carry a marker in their
//! environment. A process a worker starts inherits its environment (the farm's unique
//! `ARGUS_WORKER_DATA_DIR=…`) — except Chromium, which starts from a cleared environment
//! whose `HOME` is its profile folder, inside that same data dir — so after the worker has
//! gone, a live process holding the entry, or a variable whose value contains the entry's
//! value, is one it left behind. Zombies (state `Z`) are dead and not counted: nothing reaps
//! orphans in a container whose PID 1 is not an init.

/// `(pid, state, command line)` of every live, non-zombie process whose environment holds
/// the exact entry `entry` (`NAME=value`), or a variable whose value contains `value`.
pub fn live_with_env(entry: &str) -> Vec<(u32, char, String)> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let Ok(env) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        let value = entry.split_once('=').map_or(entry, |(_, v)| v).as_bytes();
        let marked = |v: &[u8]| {
            v == entry.as_bytes()
                || v.splitn(2, |b| *b == b'=').nth(1).is_some_and(|x| {
                    !value.is_empty() && x.windows(value.len()).any(|w| w == value)
                })
        };
        if !env.split(|b| *b == 0).any(marked) {
            continue;
        }
        if let Some(live) = live_entry(pid, &e.path()) {
            out.push(live);
        }
    }
    out
}

/// Whether a live process with the marker `entry` has `name` as its executable's file name
/// (`/proc/<pid>/comm`, e.g. `chromium`, `Xvfb`).
pub fn has_live(entry: &str, name: &str) -> bool {
    live_with_env(entry).iter().any(|(pid, _, _)| {
        std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == name)
    })
}

/// `(pid, state, command line)` of every live, non-zombie process whose real uid is `uid`
/// (a desktop slot user's apps and session bus start from a cleared environment: they carry
/// no marker, only their owner).
pub fn live_of_uid(uid: u32) -> Vec<(u32, char, String)> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(e.path().join("status")) else {
            continue;
        };
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.trim().to_string())
        };
        let owner = field("Uid:").and_then(|v| v.split_whitespace().next()?.parse::<u32>().ok());
        if owner != Some(uid) {
            continue;
        }
        if let Some(live) = live_entry(pid, &e.path()) {
            out.push(live);
        }
    }
    out
}

/// `(pid, state, command line)` of the process at `dir` (`/proc/<pid>`), or `None` when it
/// is a zombie or gone.
fn live_entry(pid: u32, dir: &std::path::Path) -> Option<(u32, char, String)> {
    let state = std::fs::read_to_string(dir.join("stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .and_then(|(_, rest)| rest.trim().chars().next())
        })
        .unwrap_or('?');
    if state == 'Z' || state == 'X' {
        return None;
    }
    let cmd = std::fs::read(dir.join("cmdline"))
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .unwrap_or_default();
    Some((pid, state, cmd.chars().take(120).collect()))
}
