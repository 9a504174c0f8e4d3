//! `argus worker` configuration: every field is a flag with an `ARGUS_*` variable.

use std::collections::BTreeMap;
use std::path::PathBuf;

use argus_infra::{NatsAuth, S3Settings};
use argus_protocol::Platform;

use crate::device::web::guard::DialogPolicy;
use crate::device::web::policy::{parse_rules, HostPolicy, HostRule};

/// Parses `1280x800` into `(width, height)` CSS px.
pub fn parse_viewport(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("viewport {s:?} is not WIDTHxHEIGHT (e.g. 1280x800)"))?;
    let w: u32 = w
        .trim()
        .parse()
        .map_err(|_| format!("bad viewport width in {s:?}"))?;
    let h: u32 = h
        .trim()
        .parse()
        .map_err(|_| format!("bad viewport height in {s:?}"))?;
    if !(100..=8000).contains(&w) || !(100..=8000).contains(&h) {
        return Err(format!(
            "viewport {s:?} must be between 100 and 8000 px per side"
        ));
    }
    Ok((w, h))
}

/// Parses `k=v,k2=v2` into labels.
pub fn parse_labels(s: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("label {part:?} is not key=value"))?;
        out.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(out)
}

fn parse_platform(s: &str) -> Result<Platform, String> {
    Platform::parse(s).ok_or_else(|| {
        format!(
            "unknown platform {s:?}; one of: {}",
            Platform::ALL.map(|p| p.as_str()).join(", ")
        )
    })
}

/// Browser settings shared by `argus worker` and `argus run`.
#[derive(Debug, Clone, clap::Args)]
pub struct BrowserConfig {
    /// Chromium binary. Default `/usr/lib/chromium/chromium` (Debian's, without its wrapper).
    #[arg(
        long,
        env = "ARGUS_CHROMIUM",
        default_value = "/usr/lib/chromium/chromium"
    )]
    pub chromium: PathBuf,
    /// Viewport in CSS px, `WIDTHxHEIGHT`. Default `1280x800`.
    #[arg(long, env = "ARGUS_VIEWPORT", default_value = "1280x800", value_parser = parse_viewport)]
    pub viewport: (u32, u32),
    /// Device pixel ratio; screenshots are viewport × DPR px. Default 1.
    #[arg(long, env = "ARGUS_DPR", default_value_t = 1.0)]
    pub dpr: f64,
    /// Internal hosts pages may reach, comma-separated `host[:port]`, `ip[:port]` or
    /// `cidr[:port]` (IPv6 in brackets), e.g. `127.0.0.1:8090,10.0.0.0/8`. Loopback,
    /// private, link-local and CGNAT addresses are blocked unless listed; public hosts are
    /// always allowed. Default: none.
    #[arg(long, env = "ARGUS_ALLOW_HOSTS", default_value = "", value_parser = parse_host_rules)]
    pub allow_hosts: HostRules,
    /// Hosts pages may never reach, even when `--allow-hosts` covers them (same syntax).
    /// The browser's DevTools port, the coordinator, NATS and the object store are always
    /// on this list. Default: none.
    #[arg(long, env = "ARGUS_DENY_HOSTS", default_value = "", value_parser = parse_host_rules)]
    pub deny_hosts: HostRules,
    /// The object store's other ports pages may never reach, on its host (S3's own port is
    /// always on the list): its master, volume and filer HTTP and gRPC listeners,
    /// comma-separated. Default: `weed mini`'s as `deploy/dev-up.sh` starts it,
    /// [`OBJECT_STORE_PORTS`] (filer 8888/18888, master 9333/19333, volume 9340/19340,
    /// S3 gRPC 18333, admin 23646/33646). Empty: none.
    #[arg(
        long,
        env = "ARGUS_OBJECT_STORE_PORTS",
        default_value = OBJECT_STORE_PORTS,
        value_parser = parse_ports
    )]
    pub object_store_ports: Ports,
    /// The database URL pages may never reach (the coordinator's; workers never connect
    /// to it, this only keeps pages away from it). Default: none.
    #[arg(long, env = "ARGUS_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// How JavaScript dialogs are answered: `dismiss` (cancel; `beforeunload` leaves the
    /// page) or `accept`. Each is recorded in the action's detail. Default `dismiss`.
    #[arg(long, env = "ARGUS_DIALOGS", value_enum, default_value = "dismiss")]
    pub dialogs: DialogPolicy,
    /// When the worker runs as root, Chromium runs as this unprivileged user with its sandbox
    /// on (`deploy/dev-up.sh` creates it). `root`: run it as root with `--no-sandbox`.
    /// Ignored when the worker is not root. Default `argus-browser`.
    #[arg(long, env = "ARGUS_BROWSER_USER", default_value = "argus-browser")]
    pub browser_user: String,
}

/// The default `--desktop-slot-user`: `argus-slot0`, `argus-slot1`, …
pub const DESKTOP_SLOT_USER: &str = "argus-slot{n}";

/// SeaweedFS `weed mini`'s other listeners, as `deploy/dev-up.sh` starts it.
pub const OBJECT_STORE_PORTS: &str = "8888,18888,9333,19333,9340,19340,18333,23646,33646";

/// A parsed comma-separated port list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ports(pub Vec<u16>);

fn parse_ports(s: &str) -> Result<Ports, String> {
    s.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.parse::<u16>()
                .map_err(|_| format!("{p:?} is not a port (1-65535)"))
        })
        .collect::<Result<Vec<u16>, String>>()
        .map(Ports)
}

/// A parsed `--allow-hosts` / `--deny-hosts` list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostRules(pub Vec<HostRule>);

fn parse_host_rules(s: &str) -> Result<HostRules, String> {
    parse_rules(s).map(HostRules)
}

impl BrowserConfig {
    /// The host policy of a browser: `--allow-hosts`, with `--deny-hosts`, the database and
    /// `services` (`(url, default port, what)`: coordinator, NATS, object store) never
    /// reachable.
    pub async fn host_policy(&self, services: &[(&str, u16, &str)]) -> HostPolicy {
        let mut p = HostPolicy::new(self.allow_hosts.0.clone());
        for r in &self.deny_hosts.0 {
            p.never_resolved(r.clone(), "listed in --deny-hosts").await;
        }
        if let Some(db) = &self.database_url {
            p.never_url(db, 5432, "the database").await;
        }
        for (url, port, what) in services {
            for one in url.split(',') {
                p.never_url(one.trim(), *port, what).await;
            }
        }
        p
    }
}

impl Default for BrowserConfig {
    fn default() -> Self {
        BrowserConfig {
            chromium: PathBuf::from("/usr/lib/chromium/chromium"),
            viewport: (1280, 800),
            dpr: 1.0,
            allow_hosts: HostRules::default(),
            deny_hosts: HostRules::default(),
            object_store_ports: parse_ports(OBJECT_STORE_PORTS).unwrap_or_default(),
            database_url: None,
            dialogs: DialogPolicy::Dismiss,
            browser_user: "argus-browser".into(),
        }
    }
}

/// Parses `WIDTHxHEIGHT` px for a virtual screen (same limits as the viewport).
pub fn parse_screen(s: &str) -> Result<(u32, u32), String> {
    parse_viewport(s)
}

/// Device-driver settings for the platforms other than web, shared by `argus worker` and
/// `argus run`. Each is read only by its platform's driver.
#[derive(Debug, Clone, clap::Args)]
pub struct DriverConfig {
    /// Desktop: the app to start for every run, a shell command line (e.g. `mousepad`); it
    /// runs in the device's own Xvfb + D-Bus session and is stopped after the run. Without
    /// it the device attaches to what already runs on the display and never stops it.
    #[arg(long, env = "ARGUS_LAUNCH")]
    pub launch: Option<String>,
    /// Desktop: attach to this existing X display (e.g. `:0`) instead of starting Xvfb;
    /// needs `--dbus-address`. Default: a private Xvfb per device slot.
    #[arg(long, env = "ARGUS_DISPLAY", requires = "dbus_address")]
    pub display: Option<String>,
    /// Desktop: session D-Bus address of the attached display (`unix:path=…`).
    #[arg(long, env = "ARGUS_DBUS_ADDRESS")]
    pub dbus_address: Option<String>,
    /// Desktop: Xvfb screen size in px, `WIDTHxHEIGHT`. Default `1280x800`.
    #[arg(long, env = "ARGUS_SCREEN", default_value = "1280x800", value_parser = parse_screen)]
    pub screen: (u32, u32),
    /// Desktop: the unprivileged user each slot's apps (and their session and AT-SPI buses)
    /// run as, with a cleared environment and a private home; the end of every run kills all
    /// of that user's processes, so give each slot (and each worker on a host) its own. A
    /// template where `{n}` is the slot number, or a comma-separated list (one per slot).
    /// `none`: run apps as the worker itself, with no isolation. Needs a root worker
    /// otherwise (it refuses to start desktop slots). Default `argus-slot{n}`
    /// (`deploy/dev-up.sh` creates `argus-slot0..9`).
    #[arg(long, env = "ARGUS_DESKTOP_SLOT_USER", default_value = DESKTOP_SLOT_USER)]
    pub desktop_slot_user: String,
    /// Android: device serial (`adb devices`); required when more than one is attached.
    /// HarmonyOS: the hdc connect key (`hdc list targets`), same rule.
    #[arg(long, env = "ARGUS_SERIAL")]
    pub serial: Option<String>,
    /// Android: ADB server address. Default `127.0.0.1:5037`.
    #[arg(long, env = "ARGUS_ADB_SERVER", default_value = "127.0.0.1:5037")]
    pub adb_server: std::net::SocketAddrV4,
    /// HarmonyOS: the `hdc` executable. Default `hdc` (from `PATH`).
    #[arg(long, env = "ARGUS_HDC", default_value = "hdc")]
    pub hdc: PathBuf,
    /// iOS: WebDriverAgent base URL. Default `http://127.0.0.1:8100`.
    #[arg(long, env = "ARGUS_WDA_URL", default_value = "http://127.0.0.1:8100")]
    pub wda_url: String,
    /// iOS: bundle id to launch for every run (e.g. `com.apple.Preferences`); none: stay
    /// on whatever is in front.
    #[arg(long, env = "ARGUS_BUNDLE_ID")]
    pub bundle_id: Option<String>,
    /// Electron: CDP endpoint of the running app (`--remote-debugging-port`), e.g.
    /// `http://127.0.0.1:9222`. Argus attaches and never stops the app.
    #[arg(long, env = "ARGUS_CDP_URL")]
    pub cdp_url: Option<String>,
    /// Perception: folder holding the OCR runtime and models (`deploy/models.sh`). Default
    /// `/var/lib/argus/models`. Loaded once per worker; when they are missing the worker
    /// says so once and perceives from the tree alone.
    #[arg(
        long,
        env = "ARGUS_MODELS_DIR",
        default_value = "/var/lib/argus/models"
    )]
    pub models_dir: PathBuf,
    /// Perception: turn the pixel channel (OCR + vision anchors) off even where the models
    /// are installed. Default: on.
    #[arg(long, env = "ARGUS_NO_PIXEL_CHANNEL")]
    pub no_pixel_channel: bool,
    /// Perception: OCR threads (detection's intra-op threads, and as many recognition
    /// sessions side by side). Default: the usable cores, at most 4 (a frame's OCR is on the
    /// observation's critical path; the worker runs one OCR at a time); 1 gives the lowest CPU
    /// time per frame.
    #[arg(long, env = "ARGUS_OCR_THREADS", default_value_t = argus_perception::ocr::session::default_threads())]
    pub ocr_threads: usize,
}

impl Default for DriverConfig {
    fn default() -> Self {
        DriverConfig {
            launch: None,
            display: None,
            dbus_address: None,
            screen: (1280, 800),
            desktop_slot_user: DESKTOP_SLOT_USER.into(),
            serial: None,
            adb_server: std::net::SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, 5037),
            hdc: PathBuf::from("hdc"),
            wda_url: "http://127.0.0.1:8100".into(),
            bundle_id: None,
            cdp_url: None,
            models_dir: PathBuf::from("/var/lib/argus/models"),
            no_pixel_channel: false,
            ocr_threads: argus_perception::ocr::session::default_threads(),
        }
    }
}

/// `argus worker`.
#[derive(Debug, Clone, clap::Args)]
pub struct WorkerConfig {
    /// Platform of this worker's devices: `web`, `electron`, `desktop`, `android`,
    /// `harmony` or `ios`. Default `web`.
    #[arg(long, env = "ARGUS_PLATFORM", default_value = "web", value_parser = parse_platform)]
    pub platform: Platform,
    /// Stable worker id (`[A-Za-z0-9_-]`, ≤ 64). Default `<hostname>-<platform>`.
    #[arg(long, env = "ARGUS_WORKER_ID")]
    pub worker_id: Option<String>,
    /// Coordinator base URL for registration and heartbeats. Default `http://127.0.0.1:8080`.
    #[arg(
        long,
        env = "ARGUS_COORDINATOR_URL",
        default_value = "http://127.0.0.1:8080"
    )]
    pub coordinator_url: String,
    /// API token sent to the coordinator (`Authorization: Bearer`), if it requires one.
    #[arg(long, env = "ARGUS_API_TOKEN", hide_env_values = true)]
    pub api_token: Option<String>,
    /// NATS server URL(s), comma-separated for a cluster's seed servers (`tls://…` requires
    /// TLS). Default `nats://127.0.0.1:4222`.
    #[arg(long, env = "ARGUS_NATS_URL", default_value = "nats://127.0.0.1:4222")]
    pub nats_url: String,
    /// Prefix of NATS subjects and streams (must match the coordinator's). Default `argus`.
    #[arg(long, env = "ARGUS_NATS_PREFIX", default_value = "argus")]
    pub nats_prefix: String,
    /// NATS credentials and TLS (`ARGUS_NATS_CREDS`, `ARGUS_NATS_TOKEN`, `ARGUS_NATS_TLS_CA`, …);
    /// boxed to keep the CLI's command enum small.
    #[command(flatten)]
    pub nats_auth: Box<NatsAuth>,
    /// Device slots (parallel runs). Web: browser contexts in one Chromium. Default 1.
    #[arg(long, env = "ARGUS_WORKER_SLOTS", default_value_t = 1)]
    pub slots: u32,
    /// Extra device labels, `k=v,k2=v2`, matched by job selectors.
    #[arg(long, env = "ARGUS_WORKER_LABELS", default_value = "", value_parser = parse_labels)]
    pub labels: BTreeMap<String, String>,
    /// Working directory (browser profile). Default `/tmp/argus-worker-<worker_id>`.
    #[arg(long, env = "ARGUS_WORKER_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Heartbeat interval, ms. Default 2000. Must be well under the coordinator's lease.
    #[arg(long, env = "ARGUS_HEARTBEAT_MS", default_value_t = 2000)]
    pub heartbeat_ms: u64,
    #[command(flatten)]
    pub browser: BrowserConfig,
    #[command(flatten)]
    pub drivers: DriverConfig,
    /// Model endpoint, agent limits and secret source (`llm` / `vlm` jobs, `ai:` lines).
    #[command(flatten)]
    pub model: crate::model::ModelConfig,
    #[command(flatten)]
    pub s3: S3Settings,
}

impl WorkerConfig {
    /// Refuses the shipped examples' placeholder secrets (`CHANGE-ME…`) in any credential
    /// this worker holds, naming the variable.
    pub fn refuse_placeholders(&self) -> anyhow::Result<()> {
        let mut creds = vec![("ARGUS_API_TOKEN", self.api_token.as_deref())];
        creds.extend(self.nats_auth.credentials());
        creds.extend(self.s3.credentials());
        argus_infra::placeholder::refuse_placeholders(&creds)
    }

    /// The effective worker id.
    pub fn worker_id(&self) -> String {
        if let Some(id) = &self.worker_id {
            return id.clone();
        }
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let host: String = host
            .trim()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(48)
            .collect();
        let host = if host.is_empty() {
            "worker".to_string()
        } else {
            host
        };
        format!("{host}-{}", self.platform.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_viewport_and_labels() {
        assert_eq!(parse_viewport("1280x800").unwrap(), (1280, 800));
        assert!(parse_viewport("1280").is_err());
        assert!(parse_viewport("10x10").is_err());
        let l = parse_labels("team=qa, browser=chromium").unwrap();
        assert_eq!(l.get("team").map(String::as_str), Some("qa"));
        assert!(parse_labels("oops").is_err());
    }
}
