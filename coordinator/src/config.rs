//! `argus coordinator` configuration: every field is a flag with an `ARGUS_*` variable.

use std::net::SocketAddr;
use std::path::PathBuf;

use argus_storage::S3Settings;

/// `argus coordinator`.
#[derive(Debug, Clone, clap::Args)]
pub struct CoordinatorConfig {
    /// HTTP listen address. Default `127.0.0.1:8080`.
    #[arg(long, env = "ARGUS_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Base URL people and the CLI reach this coordinator at (for report links).
    /// Default `http://<listen>`.
    #[arg(long, env = "ARGUS_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// PostgreSQL URL. Default `postgres://postgres@127.0.0.1:5432/argus`.
    #[arg(
        long,
        env = "ARGUS_DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/argus"
    )]
    pub database_url: String,
    /// Most PostgreSQL connections. Default 10.
    #[arg(long, env = "ARGUS_DB_MAX_CONNECTIONS", default_value_t = 10)]
    pub db_max_connections: u32,
    /// NATS server URL(s), comma-separated for a cluster's seed servers (`tls://…` requires
    /// TLS). Default `nats://127.0.0.1:4222`.
    #[arg(long, env = "ARGUS_NATS_URL", default_value = "nats://127.0.0.1:4222")]
    pub nats_url: String,
    /// Prefix of NATS subjects and streams (must match the workers'). Default `argus`.
    #[arg(long, env = "ARGUS_NATS_PREFIX", default_value = "argus")]
    pub nats_prefix: String,
    /// JetStream stream replicas (1 on one node, 3 in a cluster). Default 1.
    #[arg(long, env = "ARGUS_NATS_REPLICAS", default_value_t = 1)]
    pub nats_replicas: usize,
    /// NATS credentials and TLS (`ARGUS_NATS_CREDS`, `ARGUS_NATS_TOKEN`, `ARGUS_NATS_TLS_CA`, …);
    /// boxed to keep the CLI's command enum small.
    #[command(flatten)]
    pub nats_auth: Box<NatsAuth>,
    /// Lease length, s: a run whose worker stops heartbeating is reaped this long after its
    /// last heartbeat. Default 30.
    #[arg(long, env = "ARGUS_LEASE_S", default_value_t = 30)]
    pub lease_s: u64,
    /// A device not heard from for this long, s, gets no new runs. Default 15.
    #[arg(long, env = "ARGUS_DEVICE_TTL_S", default_value_t = 15)]
    pub device_ttl_s: u64,
    /// Dispatcher and reaper poll interval, ms (submits and finishes also wake it). Default 500.
    #[arg(long, env = "ARGUS_DISPATCH_INTERVAL_MS", default_value_t = 500)]
    pub dispatch_interval_ms: u64,
    /// Largest accepted request body, bytes. Default 1 MiB.
    #[arg(long, env = "ARGUS_MAX_BODY_BYTES", default_value_t = 1024 * 1024)]
    pub max_body_bytes: usize,
    /// Require API tokens (`Authorization: Bearer …` or the dashboard login cookie) on every
    /// route except `/healthz`. `on` (default) or `off` (single-user laptops only).
    #[arg(long, env = "ARGUS_AUTH", default_value = "on", value_parser = ["on", "off"])]
    pub auth: String,
    /// An admin token for team `default`, created (as its sha256) at start if absent, so a
    /// fresh farm can be used and more tokens minted (`argus token create`).
    #[arg(long, env = "ARGUS_BOOTSTRAP_TOKEN", hide_env_values = true)]
    pub bootstrap_token: Option<String>,
    #[command(flatten)]
    pub s3: S3Settings,
}

impl CoordinatorConfig {
    /// The effective public base URL, without a trailing slash.
    pub fn public_url(&self) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.listen))
            .trim_end_matches('/')
            .to_string()
    }
}

/// How to reach NATS securely: credentials (a `.creds` file, user + password, or a token)
/// and TLS (a private CA, an optional client certificate, `tls://` URLs). Every field is
/// optional; none set means a plain connection (a laptop's loopback NATS).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct NatsAuth {
    /// NATS credentials file (user JWT + NKey seed, as `nsc` writes it).
    #[arg(long, env = "ARGUS_NATS_CREDS")]
    pub nats_creds: Option<PathBuf>,
    /// NATS user name (with `--nats-password`).
    #[arg(long, env = "ARGUS_NATS_USER", requires = "nats_password")]
    pub nats_user: Option<String>,
    /// NATS password (with `--nats-user`).
    #[arg(
        long,
        env = "ARGUS_NATS_PASSWORD",
        hide_env_values = true,
        requires = "nats_user"
    )]
    pub nats_password: Option<String>,
    /// NATS authorization token (`authorization { token: … }` on the server).
    #[arg(long, env = "ARGUS_NATS_TOKEN", hide_env_values = true)]
    pub nats_token: Option<String>,
    /// PEM file of the CA that signed the NATS servers' certificates; implies TLS.
    #[arg(long, env = "ARGUS_NATS_TLS_CA")]
    pub nats_tls_ca: Option<PathBuf>,
    /// PEM client certificate for mutual TLS (with `--nats-tls-key`).
    #[arg(long, env = "ARGUS_NATS_TLS_CERT", requires = "nats_tls_key")]
    pub nats_tls_cert: Option<PathBuf>,
    /// PEM private key of `--nats-tls-cert`.
    #[arg(long, env = "ARGUS_NATS_TLS_KEY", requires = "nats_tls_cert")]
    pub nats_tls_key: Option<PathBuf>,
    /// Refuse to talk to NATS without TLS (also implied by `tls://` URLs and
    /// `--nats-tls-ca`).
    #[arg(long, env = "ARGUS_NATS_REQUIRE_TLS")]
    pub nats_require_tls: bool,
}

impl NatsAuth {
    /// Connects to `urls` (one URL or several, comma-separated: the seed servers of a
    /// cluster; `tls://` URLs require TLS) with these credentials and TLS settings.
    pub async fn connect(&self, urls: &str, name: &str) -> anyhow::Result<async_nats::Client> {
        let servers: Vec<&str> = urls
            .split(',')
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .collect();
        anyhow::ensure!(!servers.is_empty(), "no NATS URL given (ARGUS_NATS_URL)");
        let mut opts = async_nats::ConnectOptions::new().name(name);
        if let Some(path) = &self.nats_creds {
            opts = opts.credentials_file(path).await.map_err(|e| {
                anyhow::anyhow!("cannot read NATS credentials {} ({e})", path.display())
            })?;
        }
        if let (Some(user), Some(pass)) = (&self.nats_user, &self.nats_password) {
            opts = opts.user_and_password(user.clone(), pass.clone());
        }
        if let Some(token) = &self.nats_token {
            opts = opts.token(token.clone());
        }
        if let Some(ca) = &self.nats_tls_ca {
            anyhow::ensure!(ca.is_file(), "NATS TLS CA {} is not a file", ca.display());
            opts = opts.add_root_certificates(ca.clone());
        }
        if let (Some(cert), Some(key)) = (&self.nats_tls_cert, &self.nats_tls_key) {
            opts = opts.add_client_certificate(cert.clone(), key.clone());
        }
        let tls = self.nats_require_tls
            || self.nats_tls_ca.is_some()
            || servers.iter().any(|u| u.starts_with("tls://"));
        if tls {
            opts = opts.require_tls(true);
        }
        opts.connect(servers)
            .await
            .map_err(|e| anyhow::anyhow!("cannot connect to NATS at {urls}: {e}"))
    }
}
