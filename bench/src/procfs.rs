//! What `/proc` says about a coordinator process: resident memory and CPU time.

use anyhow::Context;

/// Resident set size of `pid`, kB (`VmRSS` of `/proc/<pid>/status`).
pub fn rss_kb(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .context("no VmRSS")
}

/// CPU time `pid` has used, user + system, in clock ticks (`utime` + `stime`, fields 14
/// and 15 of `/proc/<pid>/stat`).
pub fn cpu_ticks(pid: u32) -> anyhow::Result<u64> {
    stat_sum(pid, 14)
}

/// The sum of fields `n` and `n + 1` of `/proc/<pid>/stat` (numbered from 1, as proc(5)
/// does).
fn stat_sum(pid: u32, n: usize) -> anyhow::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name (field 2) may hold spaces; the fields after its `)` do not.
    let rest = stat.rsplit_once(')').context("no `)` in stat")?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state), so field n is f[n - 3].
    let a: u64 = f.get(n - 3).context("stat too short")?.parse()?;
    let b: u64 = f.get(n - 2).context("stat too short")?.parse()?;
    Ok(a + b)
}

/// Clock ticks per second (`getconf CLK_TCK`; 100, Linux's value on every common
/// architecture, if that cannot be run).
pub fn ticks_per_s() -> f64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

/// The machine's load averages (`/proc/loadavg`, first three fields), for printing beside
/// a figure measured on a shared machine.
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// CPU time of every process whose command name is `name` (`postgres`, `nats-server`), in
/// clock ticks, with the time of their children that have exited and been waited for
/// (`cutime` + `cstime`: a PostgreSQL backend that exits takes its ticks to the
/// postmaster's); a process that ends between listing and reading is left out.
pub fn ticks_of_named(name: &str) -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == name)
        })
        .filter_map(|pid| Some(cpu_ticks(pid).ok()? + children_ticks(pid).unwrap_or(0)))
        .sum()
}

/// CPU time of `pid`'s exited, waited-for children, in clock ticks (`cutime` + `cstime`,
/// fields 16 and 17 of `/proc/<pid>/stat`).
fn children_ticks(pid: u32) -> anyhow::Result<u64> {
    stat_sum(pid, 16)
}

/// CPU time of `pid`, in clock ticks (0 when it cannot be read).
pub fn ticks_of_pid(pid: u32) -> u64 {
    cpu_ticks(pid).unwrap_or(0)
}
