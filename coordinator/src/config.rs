//! `argus coordinator` configuration: every field is a flag with an `ARGUS_*` variable.

use std::net::SocketAddr;

use argus_infra::{NatsAuth, S3Settings};

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
    /// Deliveries of a run event the database keeps rejecting (a data error: a value out of
    /// range, a violated constraint) before the applier parks it in `dead_events` (admins:
    /// `GET /api/v1/dead-events`), settles it on the stream and ends its run `errored`.
    /// Failures that are not about the event (the database unreachable, a deadlock) are
    /// retried without bound. Default 5, at least 1.
    #[arg(long, env = "ARGUS_EVENT_MAX_DELIVERIES", default_value_t = 5,
          value_parser = clap::value_parser!(i64).range(1..))]
    pub event_max_deliveries: i64,
    /// Health probes of a quarantined device (issue 27): how long after a probe ended
    /// (failed, errored, timed out) the next one is made, s. A device the health evaluation
    /// quarantined gets its first probe at once; one quarantined by hand gets none. Default 60,
    /// at least 1.
    #[arg(long, env = "ARGUS_HEALTH_PROBE_INTERVAL_S", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub health_probe_interval_s: u64,
    /// Largest accepted request body, bytes. Default 1 MiB.
    #[arg(long, env = "ARGUS_MAX_BODY_BYTES", default_value_t = 1024 * 1024)]
    pub max_body_bytes: usize,
    /// Require API tokens (`Authorization: Bearer …` or the dashboard login cookie) on every
    /// route except `/healthz`. `on` (default) or `off` (single-user laptops only).
    #[arg(long, env = "ARGUS_AUTH", default_value = "on", value_parser = ["on", "off"])]
    pub auth: String,
    /// An admin token for team `default`, created (as its sha256) at start if absent, so a
    /// fresh farm can be used and more tokens minted (`argus token create`). Once revoked
    /// (`argus token revoke`) it is never created again.
    #[arg(long, env = "ARGUS_BOOTSTRAP_TOKEN", hide_env_values = true)]
    pub bootstrap_token: Option<String>,
    #[command(flatten)]
    pub s3: S3Settings,
    /// Per-token request rates and live streams (`ARGUS_RATE_*`, `ARGUS_MAX_STREAMS_PER_TOKEN`).
    #[command(flatten)]
    pub limits: ReadLimits,
}

/// Per-token limits on calling the coordinator: a request rate (a token bucket: `burst`
/// requests at once, refilled at `per_min` a minute) and a number of live run streams held
/// open at once. Over a limit the answer is 429 `rate_limited` with `Retry-After`. Counted
/// per coordinator process (behind N coordinators a token gets up to N times as much).
/// Requests without a token (auth `off`, `/healthz`, `/login`) are not counted.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct ReadLimits {
    /// Requests per minute one user or admin token may make, sustained; 0 = unlimited.
    /// Default 1200 (20/s).
    #[arg(long, env = "ARGUS_RATE_PER_MIN", default_value_t = 1200)]
    pub rate_per_min: u32,
    /// Requests per minute one worker token may make; 0 = unlimited. Default 0: workers
    /// heartbeat on their own schedule and are not throttled.
    #[arg(long, env = "ARGUS_WORKER_RATE_PER_MIN", default_value_t = 0)]
    pub worker_rate_per_min: u32,
    /// Requests a token may make at once above its rate (the bucket's size; a report page
    /// loads each of its screenshots). Default 300.
    #[arg(long, env = "ARGUS_RATE_BURST", default_value_t = 300)]
    pub rate_burst: u32,
    /// Live run streams (`GET /runs/{id}/live`) one token may hold open at once; 0 =
    /// unlimited. Default 8.
    #[arg(long, env = "ARGUS_MAX_STREAMS_PER_TOKEN", default_value_t = 8)]
    pub max_streams_per_token: u32,
}

impl Default for ReadLimits {
    /// The defaults of the flags.
    fn default() -> Self {
        ReadLimits {
            rate_per_min: 1200,
            worker_rate_per_min: 0,
            rate_burst: 300,
            max_streams_per_token: 8,
        }
    }
}

impl ReadLimits {
    /// No limit at all (benches and tests that are not about limits).
    pub fn off() -> Self {
        ReadLimits {
            rate_per_min: 0,
            worker_rate_per_min: 0,
            rate_burst: 0,
            max_streams_per_token: 0,
        }
    }
}

impl CoordinatorConfig {
    /// Refuses the shipped examples' placeholder secrets (`CHANGE-ME…`) in any credential
    /// this coordinator holds, naming the variable.
    pub fn refuse_placeholders(&self) -> anyhow::Result<()> {
        let mut creds = vec![
            ("ARGUS_DATABASE_URL", Some(self.database_url.as_str())),
            ("ARGUS_BOOTSTRAP_TOKEN", self.bootstrap_token.as_deref()),
        ];
        creds.extend(self.nats_auth.credentials());
        creds.extend(self.s3.credentials());
        argus_infra::placeholder::refuse_placeholders(&creds)
    }

    /// The effective public base URL, without a trailing slash.
    pub fn public_url(&self) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.listen))
            .trim_end_matches('/')
            .to_string()
    }
}
