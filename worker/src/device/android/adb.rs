//! The ADB link: device listing over the server's host service, and shell commands through
//! `adb_client` (blocking; every call runs on a blocking thread).
//!
//! Listing is a small raw `host:devices` query rather than `adb_client::ADBServer`, because
//! that type runs `adb start-server` (default port) on every connection to a loopback
//! address, whatever port it was given. [`ensure_server`] starts Debian's `adb` on the
//! configured port only when nothing answers there.

use std::io::{Read, Write};
use std::net::{SocketAddrV4, TcpStream};
use std::time::Duration;

use adb_client::server_device::ADBServerDevice;
use adb_client::ADBDeviceExt;

use crate::device::DeviceError;

/// Longest time one shell command may take.
pub(super) const SHELL_TIMEOUT: Duration = Duration::from_secs(60);
/// Connect / read timeout of a host-service query.
const HOST_TIMEOUT: Duration = Duration::from_secs(5);

/// One attached device as `host:devices` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Serial.
    pub serial: String,
    /// `device`, `offline`, `unauthorized`, …
    pub state: String,
}

/// Sends one host-service request and returns its length-prefixed answer.
fn host_query(addr: SocketAddrV4, request: &str) -> Result<String, DeviceError> {
    let fail = |e: std::io::Error| {
        DeviceError::Failed(format!(
            "ADB server at {addr}: {e} (is `adb start-server` running?)"
        ))
    };
    let mut s = TcpStream::connect_timeout(&addr.into(), HOST_TIMEOUT).map_err(fail)?;
    s.set_read_timeout(Some(HOST_TIMEOUT)).map_err(fail)?;
    s.write_all(format!("{:04x}{request}", request.len()).as_bytes())
        .map_err(fail)?;
    let mut status = [0u8; 4];
    s.read_exact(&mut status).map_err(fail)?;
    let mut len = [0u8; 4];
    s.read_exact(&mut len).map_err(fail)?;
    let n = std::str::from_utf8(&len)
        .ok()
        .and_then(|l| usize::from_str_radix(l, 16).ok())
        .ok_or_else(|| DeviceError::Failed(format!("ADB server at {addr}: bad length")))?;
    let mut body = vec![0u8; n];
    s.read_exact(&mut body).map_err(fail)?;
    let body = String::from_utf8_lossy(&body).into_owned();
    if &status != b"OKAY" {
        return Err(DeviceError::Failed(format!("ADB server at {addr}: {body}")));
    }
    Ok(body)
}

/// Devices the server knows (any state). Blocking.
pub fn list_devices(addr: SocketAddrV4) -> Result<Vec<Listed>, DeviceError> {
    let body = host_query(addr, "host:devices")?;
    Ok(body
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some(Listed {
                serial: it.next()?.to_string(),
                state: it.next().unwrap_or("unknown").to_string(),
            })
        })
        .collect())
}

/// Starts `adb` on `addr`'s port when the address is loopback and nothing answers there.
/// Blocking.
pub fn ensure_server(addr: SocketAddrV4) -> Result<(), DeviceError> {
    if host_query(addr, "host:version").is_ok() || !addr.ip().is_loopback() {
        return Ok(());
    }
    let out = std::process::Command::new("adb")
        .args(["-P", &addr.port().to_string(), "start-server"])
        .output()
        .map_err(|e| DeviceError::Failed(format!("cannot run `adb start-server`: {e}")))?;
    if !out.status.success() {
        return Err(DeviceError::Failed(format!(
            "`adb -P {} start-server` failed: {}",
            addr.port(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

/// Picks the device: the given serial (which must be attached and online), else the only
/// online device. Never "the first one" of several.
pub fn select(listed: &[Listed], serial: Option<&str>) -> Result<String, DeviceError> {
    let online: Vec<&Listed> = listed.iter().filter(|d| d.state == "device").collect();
    match serial {
        Some(s) => match listed.iter().find(|d| d.serial == s) {
            Some(d) if d.state == "device" => Ok(s.to_string()),
            Some(d) => Err(DeviceError::Failed(format!(
                "Android device {s} is {} (authorize it / reconnect)",
                d.state
            ))),
            None => Err(DeviceError::Failed(format!(
                "Android device {s} is not attached; attached: [{}]",
                listed
                    .iter()
                    .map(|d| d.serial.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        },
        None => match online.as_slice() {
            [one] => Ok(one.serial.clone()),
            [] => Err(DeviceError::Failed(
                "no Android device is attached (adb devices lists none online)".into(),
            )),
            many => Err(DeviceError::Failed(format!(
                "{} Android devices are attached ({}); choose one with --serial",
                many.len(),
                many.iter()
                    .map(|d| d.serial.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        },
    }
}

/// One device behind an ADB server.
#[derive(Debug, Clone)]
pub struct Adb {
    /// Server address.
    pub addr: SocketAddrV4,
    /// Device serial.
    pub serial: String,
}

/// What one shell command printed.
#[derive(Debug, Clone, Default)]
pub struct ShellOut {
    /// Standard output (binary-clean: shell protocol v2 where the device offers it).
    pub stdout: Vec<u8>,
    /// Standard error (v2 only; v1 merges it into stdout).
    pub stderr: Vec<u8>,
    /// Exit code when the device reported it (v2).
    pub exit: Option<u8>,
}

impl ShellOut {
    /// Stdout and stderr as text.
    pub fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.stdout).into_owned();
        s.push_str(&String::from_utf8_lossy(&self.stderr));
        s
    }
}

impl Adb {
    /// Runs `command` in the device's shell.
    pub async fn shell(&self, command: &str) -> Result<ShellOut, DeviceError> {
        let (addr, serial, cmd) = (self.addr, self.serial.clone(), command.to_string());
        let task = tokio::task::spawn_blocking(move || {
            let mut dev = ADBServerDevice::new(serial, Some(addr));
            let mut out = ShellOut::default();
            let exit = dev
                .shell_command(&cmd, Some(&mut out.stdout), Some(&mut out.stderr))
                .map_err(|e| DeviceError::Failed(format!("adb shell: {e}")))?;
            out.exit = exit;
            Ok::<ShellOut, DeviceError>(out)
        });
        match tokio::time::timeout(SHELL_TIMEOUT, task).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => Err(DeviceError::Failed(format!("adb shell task: {e}"))),
            Err(_) => Err(DeviceError::Failed(format!(
                "adb shell did not answer within {} s",
                SHELL_TIMEOUT.as_secs()
            ))),
        }
    }
}

/// Quotes `s` for the device's `sh` (single quotes; `'` as `'\''`).
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}
