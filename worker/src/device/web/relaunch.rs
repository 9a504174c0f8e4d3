//! A worker's launched Chromium, started again when it died. Before this, a browser that
//! crashed or was killed stayed dead for the worker's life: every later run on its slots
//! errored (a `device` failure), the coordinator quarantined the device, and no health probe
//! could ever pass on it. Now each run's `begin` on a slot whose browser's DevTools
//! connection closed asks [`Relaunch::alive`] for a live one: the first slot to ask starts
//! a fresh Chromium (same binary, profile folder, host policy and options), the others get
//! that one. A browser that keeps dying is started again at every run, and each of those
//! runs that it kills is still a `device` failure.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::Mutex;

use super::browser::{Browser, LaunchOptions};
use super::policy::HostPolicy;
use crate::device::DeviceError;

/// How to start the browser again, and the one running now.
pub struct Relaunch {
    binary: PathBuf,
    user_data_dir: PathBuf,
    policy: HostPolicy,
    opts: LaunchOptions,
    current: Mutex<Arc<Browser>>,
}

impl Relaunch {
    /// Starts the browser ([`Browser::launch_with`]) and keeps what it takes to start it
    /// again.
    ///
    /// Errors: [`Browser::launch_with`]'s.
    pub async fn launch(
        binary: &Path,
        user_data_dir: &Path,
        policy: HostPolicy,
        opts: LaunchOptions,
    ) -> Result<Arc<Relaunch>, DeviceError> {
        let first =
            Browser::launch_with(binary, user_data_dir, policy.clone(), opts.clone()).await?;
        Ok(Arc::new(Relaunch {
            binary: binary.to_path_buf(),
            user_data_dir: user_data_dir.to_path_buf(),
            policy,
            opts,
            current: Mutex::new(Arc::new(first)),
        }))
    }

    /// The browser running now (possibly dead: see [`Relaunch::alive`]).
    pub async fn current(&self) -> Arc<Browser> {
        self.current.lock().await.clone()
    }

    /// A live browser: the current one while its DevTools connection is open, else a fresh
    /// one started now (the dead one's process group is killed when its last slot lets go
    /// of it).
    ///
    /// Errors: the launch's (the binary gone, no DevTools port within the launch timeout);
    /// the dead browser stays current then and the next run tries again.
    pub async fn alive(&self) -> Result<Arc<Browser>, DeviceError> {
        let mut current = self.current.lock().await;
        if !current.cdp.is_closed() {
            return Ok(current.clone());
        }
        tracing::warn!(
            profile = %self.user_data_dir.display(),
            "the browser died (crashed or killed); starting it again"
        );
        let fresh = Browser::launch_with(
            &self.binary,
            &self.user_data_dir,
            self.policy.clone(),
            self.opts.clone(),
        )
        .await?;
        *current = Arc::new(fresh);
        Ok(current.clone())
    }
}
