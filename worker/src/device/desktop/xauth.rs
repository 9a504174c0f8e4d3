//! X access for a slot's display: Xvfb starts with `-auth` on a fresh cookie (so nobody may
//! connect by default), and the worker then admits by uid (server-interpreted
//! `localuser:`) only itself and the slot user. Another slot's user, having neither the
//! cookie nor an entry, is refused.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use tokio::process::Command;

use crate::device::DeviceError;

/// Writes an Xauthority file with one `MIT-MAGIC-COOKIE-1` for any display (family
/// `FamilyWild`), mode 600.
pub fn write_cookie_file(path: &Path) -> Result<(), DeviceError> {
    let name = b"MIT-MAGIC-COOKIE-1";
    let cookie: Vec<u8> = [uuid::Uuid::new_v4(), uuid::Uuid::new_v4()]
        .iter()
        .flat_map(|u| u.as_bytes()[..8].to_vec())
        .collect();
    let mut data = vec![0xff, 0xff, 0, 0, 0, 0];
    data.extend_from_slice(&(name.len() as u16).to_be_bytes());
    data.extend_from_slice(name);
    data.extend_from_slice(&(cookie.len() as u16).to_be_bytes());
    data.extend_from_slice(&cookie);
    let fail =
        |e: std::io::Error| DeviceError::Failed(format!("cannot write {}: {e}", path.display()));
    std::fs::write(path, &data).map_err(fail)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(fail)
}

/// Admits the worker (root) and `user` to `display` with `xhost`, authenticating with the
/// cookie in `cookie_file`.
pub async fn admit(display: &str, cookie_file: &Path, user: &str) -> Result<(), DeviceError> {
    let out = Command::new("xhost")
        .arg("+SI:localuser:root")
        .arg(format!("+SI:localuser:{user}"))
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("DISPLAY", display)
        .env("XAUTHORITY", cookie_file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .await
        .map_err(|e| DeviceError::Failed(format!("cannot run xhost (x11-xserver-utils): {e}")))?;
    if !out.status.success() {
        return Err(DeviceError::Failed(format!(
            "xhost could not admit {user} to {display}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}
