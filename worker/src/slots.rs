//! Opening a worker's devices for its platform: one entry per device slot, with the
//! `DeviceInfo` (id, labels, screen) it registers under.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use argus_protocol::{DeviceInfo, Platform};

use crate::config::{DriverConfig, WorkerConfig};
use crate::device::prelude::*;
use crate::device::web::browser::LaunchOptions;
use crate::device::web::relaunch::Relaunch;
use crate::device::web::{Viewport, WebDevice};

/// A device and the labels it registers with (`platform` and the driver's own: model, OS
/// version, screen size).
pub struct Opened {
    /// Labels (the worker's `--labels` are added by the caller).
    pub labels: BTreeMap<String, String>,
    /// Screen size, device px.
    pub screen_px: (u32, u32),
    /// The device.
    pub device: Box<dyn Device>,
}

/// Starts the platform's devices. Errors name the platform and what is missing.
pub async fn open_devices(
    cfg: &WorkerConfig,
    worker_id: &str,
) -> anyhow::Result<Vec<(DeviceInfo, Box<dyn Device>)>> {
    match cfg.platform {
        Platform::Web => open_web(cfg, worker_id).await,
        platform => {
            let dir = work_dir(cfg, worker_id);
            let slots = cfg.slots.max(1);
            if slots > 1 && !multi_slot(platform, &cfg.drivers) {
                return Err(anyhow!(
                    "{platform} drives one device per worker; start one worker per device \
                     (--slots 1)"
                ));
            }
            let mut out: Vec<(DeviceInfo, Box<dyn Device>)> = Vec::new();
            for i in 0..slots {
                let slot_dir = dir.join(format!("slot-{i}"));
                let o = open_device_slot(platform, &cfg.drivers, &slot_dir, i as usize).await?;
                let mut labels = cfg.labels.clone();
                labels.extend(o.labels);
                let info = DeviceInfo {
                    device_id: format!("{worker_id}-{i}"),
                    platform,
                    labels,
                    screen_w_px: o.screen_px.0,
                    screen_h_px: o.screen_px.1,
                };
                out.push((info, o.device));
            }
            Ok(out)
        }
    }
}

/// The worker's working directory.
fn work_dir(cfg: &WorkerConfig, worker_id: &str) -> PathBuf {
    cfg.data_dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("argus-worker-{worker_id}")))
}

/// Whether one worker can run several slots of `platform` (desktop: one Xvfb each).
fn multi_slot(platform: Platform, drivers: &DriverConfig) -> bool {
    platform == Platform::Desktop && drivers.display.is_none()
}

/// Opens one device of a non-web platform (slot 0); `dir` is its private working folder.
pub async fn open_device(
    platform: Platform,
    drivers: &DriverConfig,
    dir: &Path,
) -> anyhow::Result<Opened> {
    open_device_slot(platform, drivers, dir, 0).await
}

/// Opens the device of slot `slot` (desktop: it picks the slot's user).
pub async fn open_device_slot(
    platform: Platform,
    drivers: &DriverConfig,
    dir: &Path,
    slot: usize,
) -> anyhow::Result<Opened> {
    match platform {
        Platform::Desktop => open_desktop(drivers, dir, slot).await,
        Platform::Android => open_android(drivers).await,
        Platform::Harmony => open_harmony(drivers, dir).await,
        Platform::Ios => open_ios(drivers).await,
        Platform::Electron => open_electron(drivers).await,
        Platform::Web => Err(anyhow!("web devices are opened with their browser")),
    }
}

async fn open_desktop(drivers: &DriverConfig, dir: &Path, slot: usize) -> anyhow::Result<Opened> {
    use crate::device::desktop::session::Session;
    use crate::device::desktop::{display_size, DesktopDevice};
    let (session, kind) = match (&drivers.display, &drivers.dbus_address) {
        (Some(d), Some(a)) => (Session::attach(d.clone(), a.clone()), "attached"),
        (Some(_), None) => return Err(anyhow!("--display needs --dbus-address")),
        _ => (
            Session::start_as(
                dir,
                drivers.screen.0,
                drivers.screen.1,
                slot_user(&drivers.desktop_slot_user, slot)?,
            )
            .await
            .map_err(|e| anyhow!("desktop session: {e}"))?,
            "xvfb",
        ),
    };
    let display = session.env.display.clone();
    let screen = tokio::task::spawn_blocking(move || display_size(&display))
        .await?
        .map_err(|e| anyhow!(e.to_string()))?;
    let mut labels = BTreeMap::new();
    labels.insert("platform".into(), "desktop".into());
    labels.insert("display".into(), kind.into());
    labels.insert("os".into(), "linux".into());
    if let Some(v) = os_version() {
        labels.insert("os_version".into(), v);
    }
    labels.insert("screen".into(), format!("{}x{}", screen.0, screen.1));
    if let Some(app) = drivers
        .launch
        .as_deref()
        .and_then(|l| l.split_whitespace().next())
    {
        let app = app.rsplit('/').next().unwrap_or(app);
        labels.insert("app".into(), app.to_string());
    }
    Ok(Opened {
        labels,
        screen_px: screen,
        device: Box::new(DesktopDevice::new(session, screen, drivers.launch.clone())),
    })
}

/// The user slot `slot`'s apps run as (`None`: the worker itself, said in the log).
fn slot_user(
    spec: &str,
    slot: usize,
) -> anyhow::Result<Option<crate::device::desktop::slot_user::SlotUser>> {
    use crate::device::desktop::slot_user::{slot_user_name, SlotUser};
    let err = |e: crate::device::DeviceError| anyhow!("desktop slot {slot}: {e}");
    match slot_user_name(spec, slot).map_err(err)? {
        Some(name) => Ok(Some(SlotUser::resolve(&name).map_err(err)?)),
        None => {
            tracing::warn!(
                slot,
                "desktop apps run as the worker itself with its environment reachable \
                 (--desktop-slot-user none): no isolation between jobs and the worker"
            );
            Ok(None)
        }
    }
}

async fn open_android(drivers: &DriverConfig) -> anyhow::Result<Opened> {
    use crate::device::android::adb::{ensure_server, list_devices, select, Adb};
    use crate::device::android::AndroidDevice;
    let addr = drivers.adb_server;
    let serial = drivers.serial.clone();
    let serial = tokio::task::spawn_blocking(move || {
        ensure_server(addr)?;
        select(&list_devices(addr)?, serial.as_deref())
    })
    .await?
    .map_err(|e| anyhow!(e.to_string()))?;
    let (dev, facts) = AndroidDevice::connect(Adb {
        addr,
        serial: serial.clone(),
    })
    .await
    .map_err(|e| anyhow!("Android {serial}: {e}"))?;
    let labels = phone_labels(
        "android",
        Some(serial),
        facts.model,
        facts.os_version,
        facts.screen_px,
    );
    Ok(Opened {
        labels,
        screen_px: facts.screen_px,
        device: Box::new(dev),
    })
}

/// A phone's labels: `platform`, `serial` (when it has one), `model` (when known),
/// `os_version`, `screen` (`WxH`, device px).
fn phone_labels(
    platform: &str,
    serial: Option<String>,
    model: String,
    os_version: String,
    screen_px: (u32, u32),
) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    labels.insert("platform".into(), platform.into());
    if let Some(serial) = serial {
        labels.insert("serial".into(), serial);
    }
    if !model.is_empty() {
        labels.insert("model".into(), model);
    }
    labels.insert("os_version".into(), os_version);
    labels.insert("screen".into(), format!("{}x{}", screen_px.0, screen_px.1));
    labels
}

async fn open_harmony(drivers: &DriverConfig, dir: &Path) -> anyhow::Result<Opened> {
    use crate::device::harmony::hdc::{list_targets, select, Hdc};
    use crate::device::harmony::HarmonyDevice;
    let targets = list_targets(&drivers.hdc)
        .await
        .map_err(|e| anyhow!(e.to_string()))?;
    let key = select(&targets, drivers.serial.as_deref()).map_err(|e| anyhow!(e.to_string()))?;
    let hdc = Hdc {
        bin: drivers.hdc.clone(),
        key: key.clone(),
    };
    let (dev, facts) = HarmonyDevice::connect(hdc, dir.to_path_buf())
        .await
        .map_err(|e| anyhow!("HarmonyOS {key}: {e}"))?;
    let screen = dev.screen_px();
    let labels = phone_labels("harmony", Some(key), facts.model, facts.os_version, screen);
    Ok(Opened {
        labels,
        screen_px: screen,
        device: Box::new(dev),
    })
}

async fn open_ios(drivers: &DriverConfig) -> anyhow::Result<Opened> {
    use crate::device::ios::IosDevice;
    let (dev, facts) = IosDevice::connect(&drivers.wda_url, drivers.bundle_id.clone())
        .await
        .map_err(|e| anyhow!("iOS at {}: {e}", drivers.wda_url))?;
    let labels = phone_labels("ios", None, facts.model, facts.os_version, facts.screen_px);
    Ok(Opened {
        labels,
        screen_px: facts.screen_px,
        device: Box::new(dev),
    })
}

async fn open_electron(drivers: &DriverConfig) -> anyhow::Result<Opened> {
    let url = drivers.cdp_url.as_deref().ok_or_else(|| {
        anyhow!("--platform electron needs --cdp-url (the app's --remote-debugging-port)")
    })?;
    let (mut dev, facts) = crate::device::electron::attach(url)
        .await
        .map_err(|e| anyhow!("Electron at {url}: {e}"))?;
    // Measure the window once for the registration; every run measures again.
    dev.begin()
        .await
        .map_err(|e| anyhow!("Electron at {url}: {e}"))?;
    let screen = dev.screen_px();
    dev.end().await.map_err(|e| anyhow!(e.to_string()))?;
    let mut labels = BTreeMap::new();
    labels.insert("platform".into(), "electron".into());
    if let Some(v) = facts
        .user_agent
        .split_whitespace()
        .find(|t| t.starts_with("Electron/"))
    {
        labels.insert(
            "electron_version".into(),
            v["Electron/".len()..].to_string(),
        );
    }
    if !facts.product.is_empty() {
        labels.insert("browser".into(), facts.product);
    }
    labels.insert("screen".into(), format!("{}x{}", screen.0, screen.1));
    Ok(Opened {
        labels,
        screen_px: screen,
        device: Box::new(dev),
    })
}

/// `<ID>-<VERSION_ID>` of this host from `/etc/os-release` (e.g. `debian-12`).
fn os_version() -> Option<String> {
    let s = std::fs::read_to_string("/etc/os-release").ok()?;
    let field = |k: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix(k))
            .map(|v| v.trim_matches('"').to_string())
    };
    Some(format!("{}-{}", field("ID=")?, field("VERSION_ID=")?))
}

async fn open_web(
    cfg: &WorkerConfig,
    worker_id: &str,
) -> anyhow::Result<Vec<(DeviceInfo, Box<dyn Device>)>> {
    let dir = work_dir(cfg, worker_id);
    let mut policy = cfg
        .browser
        .host_policy(&[
            (&cfg.coordinator_url, 80, "the coordinator"),
            (&cfg.nats_url, 4222, "the NATS server"),
            (&cfg.s3.endpoint, 80, "the object store"),
        ])
        .await;
    policy
        .never_ports(
            &cfg.s3.endpoint,
            &cfg.browser.object_store_ports.0,
            "the object store",
        )
        .await;
    let opts = LaunchOptions {
        dialogs: cfg.browser.dialogs,
        sandbox_user: Some(cfg.browser.browser_user.clone()),
        ..Default::default()
    };
    let relaunch = Relaunch::launch(&cfg.browser.chromium, &dir.join("chromium"), policy, opts)
        .await
        .map_err(|e| anyhow!(e.to_string()))?;
    let browser = relaunch.current().await;
    let version = browser
        .cdp
        .call(None, "Browser.getVersion", serde_json::json!({}))
        .await
        .ok()
        .and_then(|v| v["product"].as_str().map(String::from))
        .unwrap_or_default();
    let viewport = Viewport {
        width: cfg.browser.viewport.0,
        height: cfg.browser.viewport.1,
        dpr: cfg.browser.dpr,
    };
    let mut out: Vec<(DeviceInfo, Box<dyn Device>)> = Vec::new();
    for i in 0..cfg.slots.max(1) {
        let dev = WebDevice::relaunching(relaunch.clone(), viewport).await;
        let (w, h) = dev.screen_px();
        let mut labels = cfg.labels.clone();
        labels.insert("platform".into(), "web".into());
        labels.insert("browser".into(), "chromium".into());
        if let Some(v) = version.split('/').nth(1) {
            labels.insert(
                "browser_version".into(),
                v.split('.').next().unwrap_or(v).to_string(),
            );
        }
        let info = DeviceInfo {
            device_id: format!("{worker_id}-{i}"),
            platform: cfg.platform,
            labels,
            screen_w_px: w,
            screen_h_px: h,
        };
        out.push((info, Box::new(dev)));
    }
    Ok(out)
}
