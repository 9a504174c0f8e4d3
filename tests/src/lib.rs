//! Test harness for Argus end-to-end tests: a whole farm in one process against the real
//! services on this machine (PostgreSQL, NATS JetStream, the S3 server started by
//! `deploy/dev-up.sh`, Debian's Chromium).
//!
//! Every [`Farm`] gets its own database (`argus_t_<token>`), NATS prefix (`t<token>`, so
//! its own streams) and bucket (`argus-t-<token>`), and removes all three when dropped, so
//! tests run in parallel and leave nothing behind on the shared services.

pub mod adb_peer;
pub mod chat_stub;
pub mod hdc_stub;
pub mod junit_read;
pub mod live_view;
pub mod proc_list;
pub mod procs;
pub mod require;
pub mod scripted_device;
pub mod sim;
pub mod site;
pub mod use_graph;
pub mod wda_peer;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use argus_coordinator::CoordinatorConfig;
use argus_infra::S3Settings;
use argus_protocol::subjects::Subjects;
use argus_protocol::Platform;
use argus_protocol::RunDetail;
use argus_worker::config::HostRules;
use argus_worker::device::web::policy::parse_rules;
use argus_worker::{BrowserConfig, DriverConfig, WorkerConfig};
use serde_json::Value;
use tokio::sync::oneshot;

fn env_or(key: &str, default: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| default.to_string())
}

/// Where the shared services are (the `ARGUS_*` variables dev-up prints, or its defaults).
#[derive(Debug, Clone)]
pub struct Services {
    /// A database the test role can `create database` from.
    pub pg_admin_url: String,
    /// Base URL for per-test databases (database name appended).
    pub pg_base_url: String,
    pub nats_url: String,
    pub s3: S3Settings,
    pub chromium: PathBuf,
    pub todomvc_dir: PathBuf,
    /// npm `chart.js`'s UMD build (`deploy/dev-up.sh` installs it).
    pub chartjs: PathBuf,
}

impl Services {
    /// Reads `ARGUS_TEST_PG_URL` (default `postgres://postgres@127.0.0.1:5432`),
    /// `ARGUS_NATS_URL`, `ARGUS_S3_*`, `ARGUS_CHROMIUM`, `ARGUS_TODOMVC_DIR`, `ARGUS_CHARTJS`.
    pub fn from_env() -> Services {
        let pg = env_or("ARGUS_TEST_PG_URL", "postgres://postgres@127.0.0.1:5432");
        Services {
            pg_admin_url: format!("{pg}/postgres"),
            pg_base_url: pg,
            nats_url: env_or("ARGUS_NATS_URL", "nats://127.0.0.1:4222"),
            s3: S3Settings {
                endpoint: env_or("ARGUS_S3_ENDPOINT", "http://127.0.0.1:8333"),
                region: env_or("ARGUS_S3_REGION", "us-east-1"),
                bucket: String::new(),
                access_key: env_or("ARGUS_S3_ACCESS_KEY", "argus"),
                secret_key: env_or("ARGUS_S3_SECRET_KEY", "argus-secret-key"),
            },
            chromium: env_or("ARGUS_CHROMIUM", "/usr/lib/chromium/chromium").into(),
            todomvc_dir: env_or("ARGUS_TODOMVC_DIR", "/var/lib/argus/todomvc").into(),
            chartjs: env_or("ARGUS_CHARTJS", "/var/lib/argus/chartjs/chart.umd.js").into(),
        }
    }
}

/// Options of a test farm.
#[derive(Debug, Clone)]
pub struct FarmOptions {
    /// Web worker slots; `None` starts no worker.
    pub worker_slots: Option<u32>,
    /// Viewport, CSS px.
    pub viewport: (u32, u32),
    /// Device pixel ratio.
    pub dpr: f64,
    /// Lease, s.
    pub lease_s: u64,
    /// The worker's platform. Default web.
    pub platform: Platform,
    /// The worker's driver settings (desktop `launch`, Android `serial`, …).
    pub drivers: DriverConfig,
    /// The worker's model settings and secret source.
    pub model: argus_worker::model::ModelConfig,
    /// The worker's `--allow-hosts` (comma-separated): tests allow exactly their app's
    /// `127.0.0.1:<port>` ([`FarmOptions::allowing`]). Default: none.
    pub allow_hosts: String,
    /// The coordinator's per-token limits. Default: none (tests poll fast).
    pub limits: argus_coordinator::config::ReadLimits,
    /// The coordinator's `health_probe_interval_s`. Default 60 (the flag's).
    pub health_probe_interval_s: u64,
}

impl FarmOptions {
    /// These options with the worker's browser allowed to reach exactly the host and port
    /// of `base_url` (a test app on loopback), as a farm would list its app under test.
    pub fn allowing(mut self, base_url: &str) -> FarmOptions {
        let host = base_url
            .trim_start_matches("http://")
            .trim_start_matches("https://")
            .split('/')
            .next()
            .unwrap_or_default();
        if !self.allow_hosts.is_empty() {
            self.allow_hosts.push(',');
        }
        self.allow_hosts.push_str(host);
        self
    }
}

impl Default for FarmOptions {
    fn default() -> Self {
        FarmOptions {
            worker_slots: Some(1),
            viewport: (1280, 800),
            dpr: 1.0,
            lease_s: 30,
            platform: Platform::Web,
            drivers: DriverConfig::default(),
            model: Default::default(),
            allow_hosts: String::new(),
            limits: argus_coordinator::config::ReadLimits::off(),
            health_probe_interval_s: 60,
        }
    }
}

/// A coordinator and (optionally) one web worker, in this process, on private names.
pub struct Farm {
    /// Unique token of this farm.
    pub token: String,
    pub services: Services,
    /// Coordinator base URL, `http://127.0.0.1:<port>`.
    pub base_url: String,
    pub pool: sqlx::PgPool,
    pub subjects: Subjects,
    pub s3: S3Settings,
    pub s3_client: aws_sdk_s3::Client,
    pub worker_id: String,
    /// The worker's data dir (its Chromium profile is `<dir>/chromium`).
    pub worker_dir: PathBuf,
    /// A client that sends the farm's admin token (team `default`).
    pub http: reqwest::Client,
    /// The bootstrap admin token.
    pub admin_token: String,
    pub options: FarmOptions,
    db_name: String,
    stop_coordinator: Option<oneshot::Sender<()>>,
    coord_cfg: CoordinatorConfig,
    extra: Vec<oneshot::Sender<()>>,
    stop_worker: Option<oneshot::Sender<()>>,
    worker_task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    /// Workers started by [`Farm::start_worker`]: stop signal, task, data dir.
    extra_workers: Vec<ExtraWorker>,
}

/// A worker started by [`Farm::start_worker`]: its stop signal, task and data dir.
type ExtraWorker = (
    oneshot::Sender<()>,
    tokio::task::JoinHandle<anyhow::Result<()>>,
    PathBuf,
);

impl Farm {
    /// Starts a farm; panics with a clear message when a service is missing (tests only).
    pub async fn start(options: FarmOptions) -> Farm {
        let services = Services::from_env();
        let token = uuid::Uuid::new_v4().simple().to_string()[..10].to_string();
        let db_name = format!("argus_t_{token}");
        let admin = sqlx::PgPool::connect(&services.pg_admin_url)
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "PostgreSQL not reachable at {} ({e}); run deploy/dev-up.sh",
                    services.pg_admin_url
                )
            });
        sqlx::query(&format!("create database {db_name}"))
            .execute(&admin)
            .await
            .expect("create test database");
        admin.close().await;
        let db_url = format!("{}/{db_name}", services.pg_base_url);
        let mut s3 = services.s3.clone();
        s3.bucket = format!("argus-t-{token}");
        let cfg = CoordinatorConfig {
            listen: "127.0.0.1:0".parse().expect("addr"),
            public_url: None,
            database_url: db_url.clone(),
            db_max_connections: 8,
            nats_url: services.nats_url.clone(),
            nats_prefix: format!("t{token}"),
            nats_replicas: 1,
            nats_auth: Default::default(),
            lease_s: options.lease_s,
            device_ttl_s: 15,
            dispatch_interval_ms: 200,
            health_probe_interval_s: options.health_probe_interval_s,
            event_max_deliveries: 5,
            max_body_bytes: 1024 * 1024,
            auth: "on".into(),
            bootstrap_token: Some(format!("admin-{token}")),
            s3: s3.clone(),
            limits: options.limits.clone(),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind coordinator");
        let addr = listener.local_addr().expect("local addr");
        let base_url = format!("http://{addr}");
        let mut cfg = cfg;
        cfg.listen = addr;
        let coord_cfg = cfg.clone();
        let state = argus_coordinator::connect(cfg).await.unwrap_or_else(|e| {
            panic!("coordinator cannot start (services up? run deploy/dev-up.sh): {e:#}")
        });
        let pool = state.pool.clone();
        let subjects = state.subjects.clone();
        let (stop_c, rx_c) = oneshot::channel::<()>();
        tokio::spawn(argus_coordinator::serve(state, listener, async move {
            let _ = rx_c.await;
        }));
        let worker_id = format!("tw-{token}");
        let worker_dir = std::env::temp_dir().join(format!("argus-test-worker-{token}"));
        let mut farm = Farm {
            token: token.clone(),
            services: services.clone(),
            base_url: base_url.clone(),
            pool,
            subjects,
            s3: s3.clone(),
            s3_client: argus_infra::s3_client(&s3),
            worker_id: worker_id.clone(),
            worker_dir: worker_dir.clone(),
            http: authed_client(&format!("admin-{token}")),
            admin_token: format!("admin-{token}"),
            options: options.clone(),
            db_name,
            stop_coordinator: Some(stop_c),
            coord_cfg,
            extra: Vec::new(),
            stop_worker: None,
            worker_task: None,
            extra_workers: Vec::new(),
        };
        if let Some(slots) = options.worker_slots {
            let wcfg = farm.worker_config(worker_id, format!("admin-{token}"), slots, worker_dir);
            let (stop_w, rx_w) = oneshot::channel::<()>();
            farm.stop_worker = Some(stop_w);
            farm.worker_task = Some(tokio::spawn(argus_worker::service::run_until(
                wcfg,
                async move {
                    let _ = rx_w.await;
                },
            )));
            farm.wait_for_devices(slots as usize).await;
        }
        farm
    }

    /// The configuration of a web worker of this farm (the options' platform, drivers,
    /// model and allowed hosts) with id `worker_id`, heartbeating with `api_token`.
    fn worker_config(
        &self,
        worker_id: String,
        api_token: String,
        slots: u32,
        data_dir: PathBuf,
    ) -> WorkerConfig {
        let options = &self.options;
        WorkerConfig {
            platform: options.platform,
            worker_id: Some(worker_id),
            coordinator_url: self.base_url.clone(),
            api_token: Some(api_token),
            nats_url: self.services.nats_url.clone(),
            nats_prefix: format!("t{}", self.token),
            nats_auth: Default::default(),
            slots,
            labels: [("team".to_string(), "qa".to_string())].into(),
            data_dir: Some(data_dir),
            heartbeat_ms: 500,
            browser: BrowserConfig {
                chromium: self.services.chromium.clone(),
                viewport: options.viewport,
                dpr: options.dpr,
                allow_hosts: HostRules(
                    parse_rules(&options.allow_hosts).expect("allow_hosts parses"),
                ),
                ..Default::default()
            },
            drivers: options.drivers.clone(),
            model: options.model.clone(),
            s3: self.s3.clone(),
        }
    }

    /// Starts another web worker (one slot) that heartbeats with `api_token`, as a second
    /// host of the farm would; returns its worker id (`<name>-<farm token>`) once its slot
    /// is registered. It stops when the farm is dropped.
    pub async fn start_worker(&mut self, name: &str, api_token: &str) -> String {
        self.start_worker_with_slots(name, api_token, 1).await
    }

    /// [`Farm::start_worker`] with `slots` device slots (web: browser contexts of one
    /// Chromium), for runs that start other runs and wait for them.
    pub async fn start_worker_with_slots(
        &mut self,
        name: &str,
        api_token: &str,
        slots: u32,
    ) -> String {
        let worker_id = format!("{name}-{}", self.token);
        let dir = std::env::temp_dir().join(format!("argus-test-worker-{worker_id}"));
        let wcfg = self.worker_config(worker_id.clone(), api_token.to_string(), slots, dir.clone());
        let (tx, rx) = oneshot::channel::<()>();
        let task = tokio::spawn(argus_worker::service::run_until(wcfg, async move {
            let _ = rx.await;
        }));
        self.extra_workers.push((tx, task, dir));
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (n,): (i64,) = sqlx::query_as("select count(*) from devices where worker_id = $1")
                .bind(&worker_id)
                .fetch_one(&self.pool)
                .await
                .expect("count devices");
            if n > 0 {
                return worker_id;
            }
            let exited = self.extra_workers.last().is_some_and(|w| w.1.is_finished());
            assert!(
                !exited,
                "worker {worker_id} exited at start; see the log above"
            );
            assert!(
                Instant::now() < deadline,
                "worker {worker_id} did not register within 60 s"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn wait_for_devices(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let count: (i64,) = sqlx::query_as("select count(*) from devices")
                .fetch_one(&self.pool)
                .await
                .expect("count devices");
            if count.0 as usize >= n {
                return;
            }
            if let Some(t) = &self.worker_task {
                assert!(
                    !t.is_finished(),
                    "the worker exited at start; see the log above"
                );
            }
            assert!(
                Instant::now() < deadline,
                "worker did not register within 60 s"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// POSTs a raw body to `/api/v1/jobs`; returns `(status, json)`.
    pub async fn post_job_raw(&self, body: impl Into<reqwest::Body>) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}/api/v1/jobs", self.base_url))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("POST /api/v1/jobs");
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// POSTs `body` as JSON to `path` (`/api/v1/…`) with the farm's token; panics when the
    /// request cannot be sent. Returns the response, whatever its status.
    pub async fn post_json(&self, path: &str, body: &Value) -> reqwest::Response {
        self.http
            .post(format!("{}{path}", self.base_url))
            .json(body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("POST {path}: {e}"))
    }

    /// Submits a job spec; panics unless 201. Returns the run id.
    pub async fn submit(&self, spec: &Value) -> uuid::Uuid {
        let (status, body) = self.post_job_raw(spec.to_string()).await;
        assert_eq!(status, 201, "submit refused: {body}");
        body["run_id"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .expect("run_id in the answer")
    }

    /// The run's HTML report (`GET /runs/{id}`), as text.
    pub async fn report_html(&self, run_id: uuid::Uuid) -> String {
        self.http
            .get(format!("{}/runs/{run_id}", self.base_url))
            .send()
            .await
            .expect("report")
            .text()
            .await
            .expect("body")
    }

    /// Polls `GET /api/v1/runs/{id}` until the run is terminal.
    pub async fn wait_run(&self, run_id: uuid::Uuid, limit: Duration) -> RunDetail {
        let deadline = Instant::now() + limit;
        loop {
            let r = self
                .http
                .get(format!("{}/api/v1/runs/{run_id}", self.base_url))
                .send()
                .await
                .expect("GET run");
            let d: RunDetail = r.json().await.expect("run detail JSON");
            if d.status.is_terminal() {
                return d;
            }
            assert!(
                Instant::now() < deadline,
                "run {run_id} still {} after {limit:?}",
                d.status.as_str()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Reads an object straight from S3 (not through the coordinator).
    pub async fn s3_get(&self, key: &str) -> Option<Vec<u8>> {
        let out = self
            .s3_client
            .get_object()
            .bucket(&self.s3.bucket)
            .key(key)
            .send()
            .await
            .ok()?;
        Some(out.body.collect().await.ok()?.into_bytes().to_vec())
    }

    /// Page targets currently open in the worker's Chromium (`/json/list`).
    pub async fn open_pages(&self) -> Vec<Value> {
        let port_file = self.worker_dir.join("chromium").join("DevToolsActivePort");
        let port = std::fs::read_to_string(port_file).expect("DevToolsActivePort");
        let port = port.lines().next().unwrap_or_default().trim().to_string();
        let list: Vec<Value> = self
            .http
            .get(format!("http://127.0.0.1:{port}/json/list"))
            .send()
            .await
            .expect("json/list")
            .json()
            .await
            .expect("json/list JSON");
        list.into_iter().filter(|t| t["type"] == "page").collect()
    }
}

/// A client sending `Authorization: Bearer <token>` on every request.
pub fn authed_client(token: &str) -> reqwest::Client {
    let mut h = reqwest::header::HeaderMap::new();
    if let Ok(v) = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}")) {
        h.insert(reqwest::header::AUTHORIZATION, v);
    }
    reqwest::Client::builder()
        .default_headers(h)
        .build()
        .expect("http client")
}

impl Farm {
    /// Starts another coordinator on the same database, NATS prefix and bucket (as a second
    /// replica behind a load balancer would be); returns its base URL.
    pub async fn start_extra_coordinator(&mut self) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind coordinator");
        let addr = listener.local_addr().expect("addr");
        let mut cfg = self.coord_cfg.clone();
        cfg.listen = addr;
        let state = argus_coordinator::connect(cfg)
            .await
            .expect("second coordinator");
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(argus_coordinator::serve(state, listener, async move {
            let _ = rx.await;
        }));
        self.extra.push(tx);
        format!("http://{addr}")
    }

    /// The URL of this farm's private database (what `argus token …` needs).
    pub fn database_url(&self) -> String {
        self.coord_cfg.database_url.clone()
    }

    /// Mints a token for `team` with `role`; returns a client that sends it.
    pub async fn client_for(&self, team: &str, role: &str) -> reqwest::Client {
        let token = argus_coordinator::auth::generate();
        argus_coordinator::auth::create_token(
            &self.pool,
            team,
            role.parse().expect("a role"),
            "test",
            &token,
        )
        .await
        .expect("create token");
        authed_client(&token)
    }

    /// Registers a simulated device (no worker behind it) so selectors can be matched; it
    /// serves every team, as a shared-pool worker's slot does.
    pub async fn register_sim_device(
        &self,
        id: &str,
        platform: &str,
        labels: Value,
        last_seen_ago_s: i64,
    ) {
        sqlx::query("insert into workers (id) values ('sim') on conflict do nothing")
            .execute(&self.pool)
            .await
            .expect("sim worker");
        sqlx::query(
            "insert into devices (id, worker_id, platform, labels, screen_w_px, screen_h_px, last_seen,
                                  serves_all)
             values ($1, 'sim', $2, $3, 100, 100, now() - make_interval(secs => $4::float8),
                     true)",
        )
        .bind(id)
        .bind(platform)
        .bind(labels)
        .bind(last_seen_ago_s as f64)
        .execute(&self.pool)
        .await
        .expect("sim device");
    }
}

/// Decodes a stored screenshot's header (a JPEG, as the worker stores them since issue 25):
/// `(width, height)` px; `None` when it is not a JPEG.
pub fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    image::ImageReader::with_format(std::io::Cursor::new(bytes), image::ImageFormat::Jpeg)
        .into_dimensions()
        .ok()
}

/// The size a screenshot of `w × h` device px is stored at: scaled down (aspect kept,
/// rounded) so its longer side is at most the worker's bound (1,600 px).
pub fn stored_size(w: u32, h: u32) -> (u32, u32) {
    let max = argus_worker::uploads::Limits::default().max_side_px;
    let longer = w.max(h);
    if longer <= max {
        return (w, h);
    }
    let f = f64::from(max) / f64::from(longer);
    (
        ((f64::from(w) * f).round() as u32).max(1),
        ((f64::from(h) * f).round() as u32).max(1),
    )
}

/// Removes a test's private bucket with every object in it (best effort: a test's cleanup
/// must not fail the test).
pub async fn remove_bucket(s3: &argus_infra::S3Settings) {
    let client = argus_infra::s3_client(s3);
    if let Ok(list) = client.list_objects_v2().bucket(&s3.bucket).send().await {
        for o in list.contents() {
            if let Some(k) = o.key() {
                let _ = client
                    .delete_object()
                    .bucket(&s3.bucket)
                    .key(k)
                    .send()
                    .await;
            }
        }
    }
    let _ = client.delete_bucket().bucket(&s3.bucket).send().await;
}

impl Drop for Farm {
    fn drop(&mut self) {
        if let Some(tx) = self.stop_worker.take() {
            let _ = tx.send(());
        }
        if let Some(tx) = self.stop_coordinator.take() {
            let _ = tx.send(());
        }
        for tx in self.extra.drain(..) {
            let _ = tx.send(());
        }
        if let Some(t) = self.worker_task.take() {
            t.abort();
        }
        let mut extra_dirs = Vec::new();
        for (tx, task, dir) in self.extra_workers.drain(..) {
            let _ = tx.send(());
            task.abort();
            extra_dirs.push(dir);
        }
        let services = self.services.clone();
        let db_name = self.db_name.clone();
        let subjects = self.subjects.clone();
        let s3 = self.s3.clone();
        let dir = self.worker_dir.clone();
        // Async cleanup on a private runtime: the test's runtime may be shutting down.
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                if let Ok(admin) = sqlx::PgPool::connect(&services.pg_admin_url).await {
                    let _ = sqlx::query(&format!("drop database if exists {db_name} with (force)"))
                        .execute(&admin)
                        .await;
                }
                if let Ok(nc) = async_nats::connect(&services.nats_url).await {
                    let js = async_nats::jetstream::new(nc);
                    let _ = js.delete_stream(subjects.assign_stream()).await;
                    let _ = js.delete_stream(subjects.events_stream()).await;
                }
                remove_bucket(&s3).await;
            });
            let _ = std::fs::remove_dir_all(dir);
            for d in extra_dirs {
                let _ = std::fs::remove_dir_all(d);
            }
        })
        .join();
    }
}
