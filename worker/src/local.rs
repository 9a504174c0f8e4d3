//! `argus run`: one job in this process, no services. The device is opened locally (web: a
//! fresh Chromium; other platforms: their driver, e.g. a private Xvfb session with the
//! `--launch` app for desktop), screenshots go to `<out_dir>/runs/<run_id>/…`, events are kept in memory and folded into
//! a [`RunDetail`] for the report.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use argus_infra::DirStore;
use argus_protocol::{JobSpec, Platform, RunDetail};
use chrono::Utc;
use uuid::Uuid;

use crate::config::{BrowserConfig, DriverConfig};
use crate::device::prelude::*;
use crate::device::web::browser::Browser;
use crate::device::web::policy::HostRule;
use crate::device::web::{Viewport, WebDevice};
use crate::executor::{execute, RunInput};
use crate::run::events::MemorySink;

/// Runs `spec` on a fresh local device of `spec.platform`; returns the folded run detail.
///
/// Errors only when the device cannot be opened; job failures are in the detail's status.
pub async fn run_local(
    browser: &BrowserConfig,
    drivers: &DriverConfig,
    agent: &crate::model::AgentEnv,
    spec: JobSpec,
    out_dir: &Path,
) -> Result<RunDetail, String> {
    let run_id = Uuid::new_v4();
    let job_id = Uuid::new_v4();
    let profile = out_dir.join(format!("device-{run_id}"));
    let mut dev: Box<dyn Device> = if spec.platform == Platform::Web {
        // `argus run` is one person's own job on their own machine: the host of its
        // start URL is allowed on top of `--allow-hosts`.
        let mut cfg = browser.clone();
        if let Some(rule) = spec.start_url.as_deref().and_then(start_host_rule) {
            cfg.allow_hosts.0.push(rule);
        }
        let policy = cfg.host_policy(&[]).await;
        let b = Browser::launch_as(
            &browser.chromium,
            &profile.join("chromium"),
            policy,
            browser.dialogs,
            Some(&browser.browser_user),
        )
        .await
        .map_err(|e| e.to_string())?;
        Box::new(WebDevice::new(
            Arc::new(b),
            Viewport {
                width: browser.viewport.0,
                height: browser.viewport.1,
                dpr: browser.dpr,
            },
        ))
    } else {
        crate::slots::open_device(spec.platform, drivers, &profile)
            .await
            .map_err(|e| format!("{e:#}"))?
            .device
    };
    let sink = Arc::new(MemorySink::default());
    let store = Arc::new(DirStore::new(out_dir.to_path_buf()));
    // A local run has no coordinator, so no team: it is the quickstart's `default`.
    let mut agent = agent.clone();
    agent.secrets = Arc::new(agent.secrets.for_team(crate::secrets::DEFAULT_TEAM));
    let input = RunInput {
        run_id,
        attempt_id: Uuid::new_v4(),
        device_id: format!("local-{}", spec.platform.as_str()),
        spec: spec.clone(),
        agent,
        pixel: crate::perceive::PixelChannel::load_async(drivers).await,
        replay: None,
        live: None,
    };
    let created = Utc::now();
    execute(
        &input,
        dev.as_mut(),
        store,
        sink.clone(),
        Arc::new(AtomicBool::new(false)),
    )
    .await;
    drop(dev);
    let _ = std::fs::remove_dir_all(&profile);
    let mut detail = RunDetail::new(run_id, job_id, spec, created);
    let events = sink.events.lock().map_err(|_| "event log poisoned")?;
    for ev in events.iter() {
        detail.apply(ev);
    }
    Ok(detail)
}

/// An allow rule for exactly the host and port of an http(s) `url`.
fn start_host_rule(url: &str) -> Option<HostRule> {
    let u = reqwest::Url::parse(url).ok()?;
    if !matches!(u.scheme(), "http" | "https") {
        return None;
    }
    let host = u.host_str()?;
    let port = u.port_or_known_default()?;
    let host = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_string()
    };
    HostRule::parse(&format!("{host}:{port}")).ok()
}
