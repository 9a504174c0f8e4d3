//! Real processes for fault-injection tests: `argus coordinator` / `argus worker` children,
//! a private NATS (JetStream, file store), a private PostgreSQL cluster, and a TCP proxy that
//! stands in for a load balancer or lets a test "stop" a server (the S3 endpoint) without
//! touching the shared one.
//!
//! The machine's shared PostgreSQL, NATS and SeaweedFS are never stopped: a [`ProcFarm`]
//! uses a private NATS always, a private PostgreSQL cluster when asked (else a private
//! database on the shared server), and a private bucket on the shared S3 server. Every child
//! runs in its own process group and the whole group is killed with SIGKILL when its [`Proc`]
//! is dropped, so nothing outlives a failed test (a worker's Chromium runs in a group of its
//! own and dies with the worker through `PR_SET_PDEATHSIG`).
//!
//! The `argus` binary is `ARGUS_BIN`, default `<workspace>/target/debug/argus`
//! (`cargo build --bin argus` first; `deploy/test.sh` does).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use argus_infra::S3Settings;
use argus_protocol::subjects::Subjects;
use argus_protocol::RunEvent;
use futures::StreamExt;
use serde_json::Value;

use crate::{authed_client, Services};

/// The `argus` binary under test; panics with what to do when it is missing.
pub fn argus_bin() -> PathBuf {
    let p = std::env::var_os("ARGUS_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target/debug/argus")
        });
    assert!(
        p.is_file(),
        "the argus binary is missing at {} — run `cargo build --bin argus` first \
         (or point ARGUS_BIN at it)",
        p.display()
    );
    p
}

/// A free loopback TCP port (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn signal_group(pid: u32, sig: &str) {
    let _ = Command::new("kill")
        .args([sig, "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// A child process in its own process group, logging to a file; SIGKILLed (group) on drop.
pub struct Proc {
    /// For messages.
    pub name: String,
    /// stdout + stderr.
    pub log: PathBuf,
    child: Option<Child>,
}

impl Proc {
    /// Spawns `cmd` (stdout/stderr appended to `log`) in a new process group.
    pub fn spawn(name: &str, mut cmd: Command, log: &Path) -> Proc {
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("open log file");
        let err = out.try_clone().expect("clone log file");
        cmd.stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        Proc {
            name: name.to_string(),
            log: log.to_path_buf(),
            child: Some(child),
        }
    }

    /// The process id, while it has not been reaped.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// `kill -9` the whole process group and reap the child.
    pub fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            signal_group(c.id(), "-KILL");
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// SIGSTOP the group (the process freezes: no heartbeats, no events).
    pub fn freeze(&self) {
        if let Some(c) = &self.child {
            signal_group(c.id(), "-STOP");
        }
    }

    /// SIGCONT the group.
    pub fn thaw(&self) {
        if let Some(c) = &self.child {
            signal_group(c.id(), "-CONT");
        }
    }

    /// Sends `sig` (`"-TERM"`, `"-INT"`, …) to the process itself, not its group.
    pub fn signal(&self, sig: &str) {
        if let Some(c) = &self.child {
            let _ = Command::new("kill")
                .args([sig, &c.id().to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }

    /// Waits up to `limit` for the process to exit; its exit code (`None`: killed by a
    /// signal). Panics with the log's tail when it is still running.
    pub async fn wait_exit(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(c) = &mut self.child {
                if let Ok(Some(status)) = c.try_wait() {
                    return status.code();
                }
            }
            assert!(
                Instant::now() < deadline,
                "{} still running after {limit:?}:\n{}",
                self.name,
                self.tail(20)
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Still running?
    pub fn alive(&mut self) -> bool {
        match &mut self.child {
            Some(c) => matches!(c.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// The log's last `n` lines (for failure messages).
    pub fn tail(&self, n: usize) -> String {
        let s = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = s.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }

    /// The whole log.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill9();
    }
}

async fn wait_tcp(port: u16, limit: Duration, what: &str) {
    let deadline = Instant::now() + limit;
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            Instant::now() < deadline,
            "{what} did not listen on {port} within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A private NATS server with JetStream on a file store (`-sd`), restartable on the same
/// port and store.
pub struct PrivateNats {
    /// `nats://127.0.0.1:<port>`.
    pub url: String,
    port: u16,
    dir: PathBuf,
    proc: Option<Proc>,
}

impl PrivateNats {
    /// Starts `/usr/sbin/nats-server` (or `ARGUS_NATS_SERVER`) under `dir`.
    pub async fn start(dir: &Path) -> PrivateNats {
        let port = free_port();
        let mut n = PrivateNats {
            url: format!("nats://127.0.0.1:{port}"),
            port,
            dir: dir.join("nats"),
            proc: None,
        };
        std::fs::create_dir_all(&n.dir).expect("nats dir");
        n.restart().await;
        n
    }

    /// `kill -9` the server (its file store stays).
    pub fn kill(&mut self) {
        if let Some(mut p) = self.proc.take() {
            p.kill9();
        }
    }

    /// (Re)starts the server on the same port and store; waits until it accepts.
    pub async fn restart(&mut self) {
        self.kill();
        let bin = std::env::var("ARGUS_NATS_SERVER").unwrap_or("/usr/sbin/nats-server".into());
        let mut cmd = Command::new(&bin);
        cmd.args([
            "-a",
            "127.0.0.1",
            "-p",
            &self.port.to_string(),
            "-js",
            "-sd",
        ])
        .arg(self.dir.join("js"));
        let log = self.dir.join("nats.log");
        self.proc = Some(Proc::spawn("nats-server", cmd, &log));
        wait_tcp(self.port, Duration::from_secs(10), "nats-server").await;
        // JetStream recovers its streams before it answers API requests.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let err = match async_nats::connect(&self.url).await {
                // Any JetStream API answer (here "stream not found") means it is up.
                Ok(nc) => match async_nats::jetstream::new(nc).get_stream("PROBE").await {
                    Ok(_) => return,
                    Err(e) if e.to_string().contains("not found") => return,
                    Err(e) => e.to_string(),
                },
                Err(e) => e.to_string(),
            };
            assert!(
                Instant::now() < deadline,
                "JetStream not ready after (re)start: {err}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for PrivateNats {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A private PostgreSQL cluster (initdb as `postgres`, `fsync=off`), restartable.
pub struct PrivatePg {
    /// `postgres://postgres@127.0.0.1:<port>` (append `/<db>`).
    pub base_url: String,
    bin: PathBuf,
    dir: PathBuf,
}

impl PrivatePg {
    fn pg_cmd(&self, tool: &str) -> Command {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(self.bin.join(tool));
        c
    }

    /// initdb + start on a free port; ~3.5 s.
    pub async fn start(token: &str) -> PrivatePg {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .ok()
            .and_then(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).max())
            .map(|p| p.join("bin"))
            .filter(|p| p.join("initdb").exists())
            .expect("PostgreSQL server binaries under /usr/lib/postgresql/<v>/bin");
        // Not under /root (postgres cannot traverse it); mode 0700 for the data dir.
        let dir = PathBuf::from(format!("/tmp/argus-faults-pg-{token}"));
        std::fs::create_dir_all(dir.join("sock")).expect("pg dir");
        let port = free_port();
        let pg = PrivatePg {
            base_url: format!("postgres://postgres@127.0.0.1:{port}"),
            bin,
            dir,
        };
        let ok = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&pg.dir)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "chown of {} failed", pg.dir.display());
        let st = pg
            .pg_cmd("initdb")
            .args(["-A", "trust", "-U", "postgres", "--no-sync", "-D"])
            .arg(pg.dir.join("data"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run initdb");
        assert!(st.success(), "initdb failed in {}", pg.dir.display());
        let opts = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off \
             -c synchronous_commit=off -c full_page_writes=off",
            pg.dir.join("sock").display()
        );
        let st = pg
            .pg_cmd("pg_ctl")
            .args(["start", "-w", "-t", "30", "-o", &opts, "-D"])
            .arg(pg.dir.join("data"))
            .arg("-l")
            .arg(pg.dir.join("pg.log"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run pg_ctl start");
        assert!(
            st.success(),
            "pg_ctl start failed; see {}/pg.log",
            pg.dir.display()
        );
        wait_tcp(port, Duration::from_secs(10), "postgres").await;
        pg
    }

    /// `pg_ctl restart -m fast`: every connection is closed, the server comes back on the
    /// same port (the options are kept in `postmaster.opts`).
    pub fn restart(&self) {
        let st = self
            .pg_cmd("pg_ctl")
            .args(["restart", "-w", "-t", "30", "-m", "fast", "-D"])
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("pg.log"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run pg_ctl restart");
        assert!(st.success(), "pg_ctl restart failed");
    }
}

impl Drop for PrivatePg {
    fn drop(&mut self) {
        let _ = self
            .pg_cmd("pg_ctl")
            .args(["stop", "-m", "immediate", "-D"])
            .arg(self.dir.join("data"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A TCP proxy on a loopback port: connections go to the first upstream that accepts
/// (a load balancer in front of several coordinators), or — while [`TcpProxy::set_down`] —
/// are accepted and closed at once and counted (the server behind it is "stopped").
pub struct TcpProxy {
    /// The proxy's address.
    pub addr: SocketAddr,
    upstreams: Arc<Mutex<Vec<SocketAddr>>>,
    down: Arc<AtomicBool>,
    refused: Arc<AtomicU64>,
    conns: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    accept: tokio::task::JoinHandle<()>,
}

impl TcpProxy {
    /// Starts proxying to `upstreams`, tried in order (first success wins).
    pub async fn start(upstreams: Vec<SocketAddr>) -> TcpProxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind proxy");
        let addr = listener.local_addr().expect("proxy addr");
        let upstreams = Arc::new(Mutex::new(upstreams));
        let down = Arc::new(AtomicBool::new(false));
        let refused = Arc::new(AtomicU64::new(0));
        let conns: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>> = Arc::default();
        let accept = {
            let (upstreams, down, refused, conns) = (
                upstreams.clone(),
                down.clone(),
                refused.clone(),
                conns.clone(),
            );
            tokio::spawn(async move {
                let mut next = 0usize;
                while let Ok((mut inbound, _)) = listener.accept().await {
                    if down.load(Ordering::SeqCst) {
                        refused.fetch_add(1, Ordering::SeqCst);
                        drop(inbound);
                        continue;
                    }
                    let ups = upstreams.lock().map(|u| u.clone()).unwrap_or_default();
                    next = next.wrapping_add(1);
                    let task = tokio::spawn(async move {
                        for i in 0..ups.len() {
                            let up = ups[(next + i) % ups.len()];
                            if let Ok(mut out) = tokio::net::TcpStream::connect(up).await {
                                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut out).await;
                                return;
                            }
                        }
                    });
                    if let Ok(mut c) = conns.lock() {
                        c.retain(|t| !t.is_finished());
                        c.push(task);
                    }
                }
            })
        };
        TcpProxy {
            addr,
            upstreams,
            down,
            refused,
            conns,
            accept,
        }
    }

    /// `http://<addr>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Down: open connections are cut and new ones closed on accept (and counted). Up:
    /// proxying resumes.
    pub fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
        if down {
            if let Ok(mut c) = self.conns.lock() {
                for t in c.drain(..) {
                    t.abort();
                }
            }
        }
    }

    /// Connections closed while down.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::SeqCst)
    }

    /// Replaces the upstream list.
    pub fn set_upstreams(&self, ups: Vec<SocketAddr>) {
        if let Ok(mut u) = self.upstreams.lock() {
            *u = ups;
        }
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        self.accept.abort();
        if let Ok(mut c) = self.conns.lock() {
            for t in c.drain(..) {
                t.abort();
            }
        }
    }
}

/// Options of a [`ProcFarm`].
#[derive(Debug, Clone)]
pub struct ProcFarmOptions {
    /// A private PostgreSQL cluster (restartable) instead of a database on the shared one.
    pub private_pg: bool,
    /// `ARGUS_LEASE_S` of the coordinators (and `ARGUS_DEVICE_TTL_S`).
    pub lease_s: u64,
    /// The workers' `ARGUS_ALLOW_HOSTS`: the test app's `127.0.0.1:<port>`, nothing more.
    pub allow_hosts: String,
}

impl Default for ProcFarmOptions {
    fn default() -> Self {
        ProcFarmOptions {
            private_pg: false,
            lease_s: 8,
            allow_hosts: String::new(),
        }
    }
}

impl ProcFarmOptions {
    /// These options with the workers' browsers allowed to reach exactly the host and port
    /// of `base_url` (the test app on loopback).
    pub fn allowing(mut self, base_url: &str) -> ProcFarmOptions {
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

/// One coordinator process slot.
pub struct CoordProc {
    /// `127.0.0.1:<port>` (kept across restarts).
    pub addr: SocketAddr,
    /// The process, `None` while killed.
    pub proc: Option<Proc>,
}

/// Coordinators and workers as real `argus` processes on private services.
pub struct ProcFarm {
    /// Unique token.
    pub token: String,
    /// Logs and worker data live here.
    pub dir: PathBuf,
    /// The private NATS.
    pub nats: PrivateNats,
    /// The private PostgreSQL cluster, when asked for.
    pub pg: Option<PrivatePg>,
    /// `ARGUS_DATABASE_URL` of every coordinator.
    pub db_url: String,
    /// The test's own pool on the farm's database.
    pub pool: sqlx::PgPool,
    /// Subjects of the farm's prefix.
    pub subjects: Subjects,
    /// S3 settings (private bucket on the shared server).
    pub s3: S3Settings,
    /// Admin token (bootstrap).
    pub admin_token: String,
    /// Client sending the admin token.
    pub http: reqwest::Client,
    /// Coordinator processes.
    pub coordinators: Vec<CoordProc>,
    /// Worker processes by id.
    pub workers: HashMap<String, Proc>,
    /// Options.
    pub options: ProcFarmOptions,
    services: Services,
    shared_db: Option<String>,
}

fn clean_env(cmd: &mut Command) {
    for (k, _) in std::env::vars() {
        if k.starts_with("ARGUS_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("ARGUS_LOG_FORMAT", "human")
        .env("RUST_LOG", "info,sqlx=warn,aws=warn,hyper=warn");
}

impl ProcFarm {
    /// Private NATS (+ private PostgreSQL when asked), a fresh database and bucket; no
    /// coordinator or worker yet.
    pub async fn start(options: ProcFarmOptions) -> ProcFarm {
        let _ = argus_bin();
        let services = Services::from_env();
        let token = uuid::Uuid::new_v4().simple().to_string()[..10].to_string();
        let dir = std::env::temp_dir().join(format!("argus-faults-{token}"));
        std::fs::create_dir_all(&dir).expect("farm dir");
        let nats = PrivateNats::start(&dir).await;
        let (pg, base, shared_db) = if options.private_pg {
            let pg = PrivatePg::start(&token).await;
            let base = pg.base_url.clone();
            (Some(pg), base, None)
        } else {
            (
                None,
                services.pg_base_url.clone(),
                Some(format!("argus_f_{token}")),
            )
        };
        let db = shared_db.clone().unwrap_or_else(|| "argus".into());
        let admin = sqlx::PgPool::connect(&format!("{base}/postgres"))
            .await
            .unwrap_or_else(|e| panic!("PostgreSQL not reachable at {base} ({e})"));
        sqlx::query(&format!("create database {db}"))
            .execute(&admin)
            .await
            .expect("create database");
        admin.close().await;
        let db_url = format!("{base}/{db}");
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(20))
            .connect(&db_url)
            .await
            .expect("connect to the farm database");
        let mut s3 = services.s3.clone();
        s3.bucket = format!("argus-f-{token}");
        let admin_token = format!("admin-{token}");
        ProcFarm {
            subjects: Subjects::new(&format!("f{token}")).expect("prefix"),
            http: authed_client(&admin_token),
            token,
            dir,
            nats,
            pg,
            db_url,
            pool,
            s3,
            admin_token,
            coordinators: Vec::new(),
            workers: HashMap::new(),
            options,
            services,
            shared_db,
        }
    }

    /// Starts one more coordinator process; returns its index.
    pub async fn start_coordinator(&mut self) -> usize {
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().expect("addr");
        self.coordinators.push(CoordProc { addr, proc: None });
        let i = self.coordinators.len() - 1;
        self.restart_coordinator(i).await;
        i
    }

    /// (Re)starts coordinator `i` on its address; waits for `/healthz`.
    pub async fn restart_coordinator(&mut self, i: usize) {
        let addr = self.coordinators[i].addr;
        let cmd = self.coordinator_command(addr);
        let log = self.dir.join(format!("coordinator-{i}.log"));
        let mut p = Proc::spawn(&format!("coordinator-{i}"), cmd, &log);
        let url = format!("http://{addr}/healthz");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(r) = self.http.get(&url).send().await {
                if r.status().is_success() {
                    break;
                }
            }
            assert!(
                p.alive(),
                "coordinator-{i} exited at start:\n{}",
                p.tail(30)
            );
            assert!(
                Instant::now() < deadline,
                "coordinator-{i} not healthy in 30 s:\n{}",
                p.tail(30)
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        self.coordinators[i].proc = Some(p);
    }

    /// The command line of a coordinator of this farm listening on `addr`; callers may
    /// override its environment before spawning.
    pub fn coordinator_command(&self, addr: SocketAddr) -> Command {
        let mut cmd = Command::new(argus_bin());
        clean_env(&mut cmd);
        cmd.arg("coordinator")
            .env("ARGUS_LISTEN", addr.to_string())
            .env("ARGUS_DATABASE_URL", &self.db_url)
            .env("ARGUS_DB_MAX_CONNECTIONS", "6")
            .env("ARGUS_NATS_URL", &self.nats.url)
            .env("ARGUS_NATS_PREFIX", format!("f{}", self.token))
            .env("ARGUS_LEASE_S", self.options.lease_s.to_string())
            .env("ARGUS_DEVICE_TTL_S", self.options.lease_s.to_string())
            .env("ARGUS_DISPATCH_INTERVAL_MS", "200")
            .env("ARGUS_AUTH", "on")
            .env("ARGUS_BOOTSTRAP_TOKEN", &self.admin_token);
        s3_env(&mut cmd, &self.s3);
        cmd
    }

    /// `kill -9` coordinator `i`.
    pub fn kill_coordinator(&mut self, i: usize) {
        if let Some(mut p) = self.coordinators[i].proc.take() {
            p.kill9();
        }
    }

    /// `http://<addr>` of coordinator `i`.
    pub fn coordinator_url(&self, i: usize) -> String {
        format!("http://{}", self.coordinators[i].addr)
    }

    /// Starts a web worker process with `slots` Chromium contexts that heartbeats to
    /// `coordinator_url` and uploads to `s3_endpoint` (default the farm's); waits until its
    /// devices are registered.
    pub async fn start_worker(
        &mut self,
        id: &str,
        slots: u32,
        coordinator_url: &str,
        s3_endpoint: Option<&str>,
    ) {
        let cmd = self.worker_command(id, slots, coordinator_url, s3_endpoint);
        self.start_worker_cmd(id, slots, cmd).await;
    }

    /// Starts worker `id` from `cmd` (see [`ProcFarm::worker_command`]); waits until its
    /// `slots` devices are registered and it logged "worker ready".
    pub async fn start_worker_cmd(&mut self, id: &str, slots: u32, cmd: Command) {
        let log = self.dir.join(format!("worker-{id}.log"));
        let mut p = Proc::spawn(&format!("worker-{id}"), cmd, &log);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let n: (i64,) = sqlx::query_as(
                "select count(*) from devices where worker_id = $1
                   and last_seen > now() - interval '2 seconds'",
            )
            .bind(id)
            .fetch_one(&self.pool)
            .await
            .expect("count devices");
            // Registered, and its assignment consumer is up ("worker ready").
            if n.0 as u32 >= slots && p.log_text().contains("worker ready") {
                break;
            }
            assert!(p.alive(), "worker {id} exited at start:\n{}", p.tail(30));
            assert!(
                Instant::now() < deadline,
                "worker {id} not ready in 60 s:\n{}",
                p.tail(30)
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        self.workers.insert(id.to_string(), p);
    }

    /// The command line of a web worker `id` of this farm (`slots` Chromium contexts, data
    /// dir [`ProcFarm::worker_dir`]); callers may override its environment before spawning.
    pub fn worker_command(
        &self,
        id: &str,
        slots: u32,
        coordinator_url: &str,
        s3_endpoint: Option<&str>,
    ) -> Command {
        let mut cmd = Command::new(argus_bin());
        clean_env(&mut cmd);
        let mut s3 = self.s3.clone();
        if let Some(e) = s3_endpoint {
            s3.endpoint = e.to_string();
        }
        cmd.arg("worker")
            .env("ARGUS_PLATFORM", "web")
            .env("ARGUS_WORKER_ID", id)
            .env("ARGUS_COORDINATOR_URL", coordinator_url)
            .env("ARGUS_API_TOKEN", &self.admin_token)
            .env("ARGUS_NATS_URL", &self.nats.url)
            .env("ARGUS_NATS_PREFIX", format!("f{}", self.token))
            .env("ARGUS_WORKER_SLOTS", slots.to_string())
            .env("ARGUS_WORKER_DATA_DIR", self.worker_dir(id))
            .env("ARGUS_HEARTBEAT_MS", "500")
            .env("ARGUS_CHROMIUM", &self.services.chromium)
            .env("ARGUS_ALLOW_HOSTS", &self.options.allow_hosts);
        s3_env(&mut cmd, &s3);
        cmd
    }

    /// `ARGUS_WORKER_DATA_DIR` of worker `id`: unique to this farm, and inherited in the
    /// environment of every process the worker starts.
    pub fn worker_dir(&self, id: &str) -> PathBuf {
        self.dir.join(format!("w-{id}"))
    }

    /// `kill -9` worker `id` (its Chromium dies with it: `PR_SET_PDEATHSIG`).
    pub fn kill_worker(&mut self, id: &str) {
        if let Some(mut p) = self.workers.remove(id) {
            p.kill9();
        }
    }

    /// Submits `spec` through coordinator `url`; returns `(job_id, run_id)`.
    pub async fn submit_to(&self, url: &str, spec: &Value) -> (uuid::Uuid, uuid::Uuid) {
        let r = self
            .http
            .post(format!("{url}/api/v1/jobs"))
            .json(spec)
            .send()
            .await
            .expect("POST /api/v1/jobs");
        let status = r.status().as_u16();
        let body: Value = r.json().await.unwrap_or(Value::Null);
        assert_eq!(status, 201, "submit refused: {body}");
        let id = |k: &str| -> uuid::Uuid {
            body[k]
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("{k} in {body}"))
        };
        (id("job_id"), id("run_id"))
    }

    /// A run's status straight from the database (works while coordinators are down).
    pub async fn status(&self, run: uuid::Uuid) -> String {
        let r: (String,) = sqlx::query_as("select status from runs where id = $1")
            .bind(run)
            .fetch_one(&self.pool)
            .await
            .expect("run status");
        r.0
    }

    /// Polls until `cond(status)` holds; panics with the logs after `limit`.
    pub async fn wait_status(
        &self,
        run: uuid::Uuid,
        limit: Duration,
        cond: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some((s,))) =
                sqlx::query_as::<_, (String,)>("select status from runs where id = $1")
                    .bind(run)
                    .fetch_optional(&self.pool)
                    .await
            {
                if cond(&s) {
                    return s;
                }
                if Instant::now() >= deadline {
                    panic!("run {run} is {s} after {limit:?}\n{}", self.logs(25));
                }
            } else if Instant::now() >= deadline {
                panic!("run {run}: no answer after {limit:?}\n{}", self.logs(25));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits for a terminal status.
    pub async fn wait_terminal(&self, run: uuid::Uuid, limit: Duration) -> String {
        self.wait_status(run, limit, |s| {
            !matches!(s, "queued" | "assigned" | "running")
        })
        .await
    }

    /// Polls until `sql` (one bound uuid, returns one bigint) reaches `n`.
    pub async fn wait_count(&self, sql: &str, run: uuid::Uuid, n: i64, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            let c: Result<(i64,), _> = sqlx::query_as(sql).bind(run).fetch_one(&self.pool).await;
            if matches!(c, Ok((x,)) if x >= n) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{sql} for {run} did not reach {n} in {limit:?} (last {c:?})\n{}",
                self.logs(25)
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The last `n` lines of every process log, for failure messages.
    pub fn logs(&self, n: usize) -> String {
        let mut out = String::new();
        for c in self.coordinators.iter().filter_map(|c| c.proc.as_ref()) {
            out += &format!("--- {} ---\n{}\n", c.name, c.tail(n));
        }
        for w in self.workers.values() {
            out += &format!("--- {} ---\n{}\n", w.name, w.tail(n));
        }
        out
    }

    /// Every event the JetStream events stream holds for `run` (what workers published: a
    /// lone event on its run's subject, or a worker's group of events, a JSON array, on its
    /// first event's run subject), in stream order. A publish retried after the stream had
    /// stored it shows twice (a lone event's repeat is deduplicated by its `Nats-Msg-Id`).
    pub async fn stream_events(&self, run: uuid::Uuid) -> Vec<RunEvent> {
        let nc = async_nats::connect(&self.nats.url).await.expect("nats");
        let js = async_nats::jetstream::new(nc);
        let stream = js
            .get_stream(self.subjects.events_stream())
            .await
            .expect("events stream");
        let consumer = stream
            .create_consumer(async_nats::jetstream::consumer::pull::OrderedConfig {
                filter_subject: self.subjects.events_all(),
                ..Default::default()
            })
            .await
            .expect("ordered consumer");
        let pending = consumer.cached_info().num_pending;
        let mut msgs = consumer.messages().await.expect("messages");
        let mut out = Vec::new();
        let mut read = 0_u64;
        while read < pending {
            match tokio::time::timeout(Duration::from_secs(5), msgs.next()).await {
                Ok(Some(Ok(m))) => {
                    read += 1;
                    if let Ok(evs) = argus_coordinator::ingest::decode_group(&m.payload) {
                        out.extend(evs.into_iter().flatten().filter(|e| e.run_id == run));
                    }
                }
                _ => break,
            }
        }
        out
    }
}

fn s3_env(cmd: &mut Command, s3: &S3Settings) {
    cmd.env("ARGUS_S3_ENDPOINT", &s3.endpoint)
        .env("ARGUS_S3_REGION", &s3.region)
        .env("ARGUS_S3_BUCKET", &s3.bucket)
        .env("ARGUS_S3_ACCESS_KEY", &s3.access_key)
        .env("ARGUS_S3_SECRET_KEY", &s3.secret_key);
}

impl Drop for ProcFarm {
    fn drop(&mut self) {
        for w in self.workers.values_mut() {
            w.kill9();
        }
        for c in &mut self.coordinators {
            if let Some(mut p) = c.proc.take() {
                p.kill9();
            }
        }
        let services = self.services.clone();
        let shared_db = self.shared_db.take();
        let s3 = self.s3.clone();
        let dir = self.dir.clone();
        self.nats.kill();
        let keep = std::env::var_os("ARGUS_KEEP_FAULT_LOGS").is_some() || std::thread::panicking();
        if keep {
            eprintln!("fault-test logs kept in {}", self.dir.display());
        }
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                if let Some(db) = shared_db {
                    if let Ok(admin) = sqlx::PgPool::connect(&services.pg_admin_url).await {
                        let _ = sqlx::query(&format!("drop database if exists {db} with (force)"))
                            .execute(&admin)
                            .await;
                    }
                }
                crate::remove_bucket(&s3).await;
            });
            if !keep {
                let _ = std::fs::remove_dir_all(dir);
            }
        })
        .join();
    }
}
