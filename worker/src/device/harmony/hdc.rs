//! The hdc link: every command runs the configured `hdc` executable (never `adb`, never a
//! bare `hdc` from `PATH` when a path was given) as `hdc -t <connect key> shell "<command>"`,
//! the device command passed as one argument so the device shell sees the quoting Argus
//! wrote.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use crate::device::DeviceError;

/// Longest time one hdc command may take.
pub(super) const HDC_TIMEOUT: Duration = Duration::from_secs(60);

/// One HarmonyOS device behind an hdc binary.
#[derive(Debug, Clone)]
pub struct Hdc {
    /// The hdc executable.
    pub bin: PathBuf,
    /// The device's connect key (`hdc list targets`).
    pub key: String,
}

/// Runs `bin args…`; returns stdout, or an error naming the command.
pub async fn run(bin: &Path, args: &[&str]) -> Result<Vec<u8>, DeviceError> {
    let child = tokio::process::Command::new(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let out = match tokio::time::timeout(HDC_TIMEOUT, child).await {
        Ok(Ok(o)) => o,
        Ok(Err(e)) => {
            return Err(DeviceError::Failed(format!(
                "cannot run {}: {e} (set --hdc)",
                bin.display()
            )))
        }
        Err(_) => {
            return Err(DeviceError::Failed(format!(
                "hdc did not answer within {} s",
                HDC_TIMEOUT.as_secs()
            )))
        }
    };
    if !out.status.success() {
        return Err(DeviceError::Failed(format!(
            "hdc {} exited with {}: {}",
            args.first().copied().unwrap_or(""),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

/// Connect keys `hdc list targets` reports (`[Empty]` means none).
pub async fn list_targets(bin: &Path) -> Result<Vec<String>, DeviceError> {
    let out = run(bin, &["list", "targets"]).await?;
    Ok(String::from_utf8_lossy(&out)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.eq_ignore_ascii_case("[empty]"))
        .map(String::from)
        .collect())
}

/// The given key (which must be listed) or the only target; never the first of several.
pub fn select(targets: &[String], key: Option<&str>) -> Result<String, DeviceError> {
    match (key, targets) {
        (Some(k), t) if t.iter().any(|x| x == k) => Ok(k.to_string()),
        (Some(k), t) => Err(DeviceError::Failed(format!(
            "HarmonyOS device {k} is not connected; hdc lists [{}]",
            t.join(", ")
        ))),
        (None, [one]) => Ok(one.clone()),
        (None, []) => Err(DeviceError::Failed(
            "no HarmonyOS device is connected (hdc list targets is empty)".into(),
        )),
        (None, many) => Err(DeviceError::Failed(format!(
            "{} HarmonyOS devices are connected ({}); choose one with --serial",
            many.len(),
            many.join(", ")
        ))),
    }
}

impl Hdc {
    /// `hdc -t <key> shell "<command>"`; returns stdout as text.
    pub async fn shell(&self, command: &str) -> Result<String, DeviceError> {
        let out = run(&self.bin, &["-t", &self.key, "shell", command]).await?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    /// `hdc -t <key> file recv <remote> <local>`.
    pub async fn recv(&self, remote: &str, local: &Path) -> Result<(), DeviceError> {
        let local = local.to_string_lossy();
        run(
            &self.bin,
            &["-t", &self.key, "file", "recv", remote, &local],
        )
        .await?;
        Ok(())
    }
}

/// Quotes `s` for the device's shell (single quotes; `'` as `'\''`).
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}
