//! The multi-host layout of `deploy/` (3-node NATS JetStream cluster with replicated
//! streams, two coordinators, a worker) with real processes on loopback ports, since no
//! container engine runs here: three `nats-server` processes clustered with `-routes`, each
//! with its own JetStream store; two in-process coordinators (`nats_replicas: 3`) given all
//! three NATS URLs; one in-process web worker. A job succeeds; then one NATS node is
//! killed (SIGKILL) and another job, submitted through the *other* coordinator, succeeds.
//!
//! Also checks that the YAML under `deploy/` parses (with python3's `yaml` when present).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use argus_coordinator::CoordinatorConfig;
use argus_tests::{authed_client, Services};
use argus_worker::{BrowserConfig, DriverConfig, WorkerConfig};
use serde_json::{json, Value};
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// One `nats-server` of the cluster.
struct Node {
    child: Child,
    client_port: u16,
    monitor_port: u16,
}

fn start_node(i: usize, dir: &Path, ports: &[(u16, u16, u16)], cluster: &str) -> Node {
    let (client, route, monitor) = ports[i];
    let routes: Vec<String> = ports
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i)
        .map(|(_, p)| format!("nats://127.0.0.1:{}", p.1))
        .collect();
    let sd = dir.join(format!("n{i}"));
    std::fs::create_dir_all(&sd).expect("store dir");
    let child = Command::new("nats-server")
        .args(["-a", "127.0.0.1", "-p", &client.to_string()])
        .args(["-m", &monitor.to_string()])
        .args(["-js", "-sd"])
        .arg(&sd)
        .args(["-server_name", &format!("{cluster}-n{i}")])
        .args(["--cluster_name", cluster])
        .args(["-cluster", &format!("nats://127.0.0.1:{route}")])
        .args(["-routes", &routes.join(",")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("nats-server (apt-get install nats-server)");
    Node {
        child,
        client_port: client,
        monitor_port: monitor,
    }
}

/// Waits until every node reports JetStream healthy (meta leader elected).
async fn wait_healthy(nodes: &[&Node]) {
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    for n in nodes {
        loop {
            let url = format!("http://127.0.0.1:{}/healthz", n.monitor_port);
            if let Ok(r) = http.get(&url).send().await {
                if r.status().is_success() {
                    break;
                }
            }
            assert!(
                Instant::now() < deadline,
                "NATS node {url} not healthy in 30 s"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// Connects a coordinator, retrying while the JetStream cluster elects its leaders.
async fn coordinator(cfg: CoordinatorConfig) -> (String, oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let mut cfg = cfg;
    cfg.listen = addr;
    let deadline = Instant::now() + Duration::from_secs(45);
    let state = loop {
        match argus_coordinator::connect(cfg.clone()).await {
            Ok(s) => break s,
            Err(e) => {
                assert!(Instant::now() < deadline, "coordinator cannot start: {e:#}");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    };
    let (tx, rx) = oneshot::channel::<()>();
    tokio::spawn(argus_coordinator::serve(state, listener, async move {
        let _ = rx.await;
    }));
    (format!("http://{addr}"), tx)
}

async fn run_job(http: &reqwest::Client, base: &str, name: &str) -> Value {
    let r = http
        .post(format!("{base}/api/v1/jobs"))
        .json(
            &json!({"platform": "web", "name": name, "start_url": "about:blank",
            "instruction": "wait 10ms\nassert screen does not contain \"nothing here\""}),
        )
        .send()
        .await
        .expect("submit");
    assert_eq!(r.status().as_u16(), 201, "{:?}", r.text().await);
    let run = r.json::<Value>().await.expect("json")["run_id"]
        .as_str()
        .expect("run id")
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = http.get(format!("{base}/api/v1/runs/{run}")).send().await {
            if let Ok(v) = r.json::<Value>().await {
                let s = v["status"].as_str().unwrap_or("").to_string();
                if !matches!(s.as_str(), "" | "queued" | "assigned" | "running") {
                    return v;
                }
            }
        }
        assert!(
            Instant::now() < deadline,
            "run {run} ({name}) not finished in 60 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_node_nats_cluster_two_coordinators_survive_a_node_loss() {
    let services = Services::from_env();
    let token = uuid::Uuid::new_v4().simple().to_string()[..10].to_string();
    let dir: PathBuf = std::env::temp_dir().join(format!("argus-cluster-{token}"));
    let ports: Vec<(u16, u16, u16)> = (0..3)
        .map(|_| (free_port(), free_port(), free_port()))
        .collect();
    let cluster = format!("c{token}");
    let mut nodes: Vec<Node> = (0..3)
        .map(|i| start_node(i, &dir, &ports, &cluster))
        .collect();
    wait_healthy(&nodes.iter().collect::<Vec<_>>()).await;
    let urls: Vec<String> = nodes
        .iter()
        .map(|n| format!("nats://127.0.0.1:{}", n.client_port))
        .collect();
    let nats_url = urls.join(",");

    // A private database and bucket on the shared PostgreSQL and S3.
    let db_name = format!("argus_c_{token}");
    let admin = sqlx::PgPool::connect(&services.pg_admin_url)
        .await
        .expect("PostgreSQL (run deploy/dev-up.sh)");
    sqlx::query(&format!("create database {db_name}"))
        .execute(&admin)
        .await
        .expect("create database");
    let mut s3 = services.s3.clone();
    s3.bucket = format!("argus-c-{token}");
    let admin_token = format!("admin-{token}");
    let cfg = CoordinatorConfig {
        listen: "127.0.0.1:0".parse().expect("addr"),
        public_url: None,
        database_url: format!("{}/{db_name}", services.pg_base_url),
        db_max_connections: 6,
        nats_url: nats_url.clone(),
        nats_prefix: format!("c{token}"),
        nats_replicas: 3,
        nats_auth: Default::default(),
        lease_s: 30,
        device_ttl_s: 15,
        dispatch_interval_ms: 200,
        health_probe_interval_s: 60,
        event_max_deliveries: 5,
        max_body_bytes: 1024 * 1024,
        auth: "on".into(),
        bootstrap_token: Some(admin_token.clone()),
        s3: s3.clone(),
        limits: argus_coordinator::config::ReadLimits::off(),
    };
    let (c1, stop1) = coordinator(cfg.clone()).await;
    let (c2, stop2) = coordinator(cfg).await;

    // The streams really are replicated three ways.
    let nc = async_nats::connect(urls[1].as_str()).await.expect("nats");
    let js = async_nats::jetstream::new(nc);
    let subjects = argus_protocol::subjects::Subjects::new(&format!("c{token}")).expect("prefix");
    for name in [subjects.events_stream(), subjects.assign_stream()] {
        let mut s = js.get_stream(&name).await.expect("stream exists");
        let info = s.info().await.expect("stream info");
        assert_eq!(info.config.num_replicas, 3, "{name}");
    }

    let worker_dir = dir.join("worker");
    let wcfg = WorkerConfig {
        platform: argus_protocol::Platform::Web,
        worker_id: Some(format!("cw-{token}")),
        coordinator_url: c1.clone(),
        api_token: Some(admin_token.clone()),
        nats_url,
        nats_prefix: format!("c{token}"),
        nats_auth: Default::default(),
        slots: 1,
        labels: Default::default(),
        data_dir: Some(worker_dir),
        heartbeat_ms: 500,
        browser: BrowserConfig {
            chromium: services.chromium.clone(),
            viewport: (800, 600),
            dpr: 1.0,
            ..Default::default()
        },
        drivers: DriverConfig::default(),
        model: Default::default(),
        s3: s3.clone(),
    };
    let (stop_w, rx_w) = oneshot::channel::<()>();
    let worker = tokio::spawn(argus_worker::service::run_until(wcfg, async move {
        let _ = rx_w.await;
    }));
    let http = authed_client(&admin_token);
    let pool = sqlx::PgPool::connect(&format!("{}/{db_name}", services.pg_base_url))
        .await
        .expect("db");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let v: Value = http
            .get(format!("{c1}/api/v1/runs"))
            .send()
            .await
            .expect("runs")
            .json()
            .await
            .unwrap_or(Value::Null);
        let (n,): (i64,) = sqlx::query_as("select count(*) from devices")
            .fetch_one(&pool)
            .await
            .expect("devices");
        if n > 0 && !v.is_null() {
            break;
        }
        assert!(!worker.is_finished(), "worker exited at start");
        assert!(Instant::now() < deadline, "worker did not register in 60 s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let first = run_job(&http, &c1, "before").await;
    assert_eq!(first["status"], "succeeded", "{first}");

    // Lose one NATS node for good; the other two keep quorum for R3 streams.
    let mut lost = nodes.remove(0);
    lost.child.start_kill().expect("kill nats node");
    let _ = lost.child.wait().await;
    let second = run_job(&http, &c2, "after node loss").await;
    assert_eq!(second["status"], "succeeded", "{second}");

    let _ = stop_w.send(());
    let _ = tokio::time::timeout(Duration::from_secs(15), worker).await;
    let _ = stop1.send(());
    let _ = stop2.send(());
    drop(nodes);
    pool.close().await;
    let _ = sqlx::query(&format!("drop database if exists {db_name} with (force)"))
        .execute(&admin)
        .await;
    argus_tests::remove_bucket(&s3).await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Debian's python3, where `python3-yaml` puts the module (a pyenv python3 earlier on `PATH`
/// may lack it).
const PYTHON: &str = "/usr/bin/python3";

/// `deploy/compose.yaml` and every manifest under `deploy/k8s/` parse as YAML. Uses Debian's
/// python3 with its `yaml` module (`python3-yaml`, installed by `deploy/dev-up.sh`), to keep a
/// YAML parser out of the Rust dependency tree; when it is missing the check is skipped (and
/// says so), or fails under `ARGUS_REQUIRE_ALL=1`.
#[test]
fn deploy_yaml_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("deploy");
    let has_yaml = std::process::Command::new(PYTHON)
        .args(["-c", "import yaml"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !argus_tests::require::require(
        "python3's yaml module",
        has_yaml,
        "deploy/dev-up.sh installs it (apt-get install -y python3-yaml)",
    ) {
        return;
    }
    let mut files = vec![root.join("compose.yaml")];
    for e in std::fs::read_dir(root.join("k8s")).expect("deploy/k8s") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "yaml") {
            files.push(p);
        }
    }
    assert!(files.len() >= 4, "{files:?}");
    for f in files {
        let out = std::process::Command::new(PYTHON)
            .args([
                "-c",
                "import sys, yaml; docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]; assert docs, 'empty'; print(len(docs))",
            ])
            .arg(&f)
            .output()
            .expect("python3");
        assert!(
            out.status.success(),
            "{}: {}",
            f.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Starts a private `nats-server` (never the shared one on 4222) with `auth_args`.
fn private_nats(auth_args: &[&str]) -> (Child, String) {
    let port = free_port();
    let child = Command::new("nats-server")
        .args(["-a", "127.0.0.1", "-p", &port.to_string()])
        .args(auth_args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("nats-server");
    (child, format!("nats://127.0.0.1:{port}"))
}

/// Connects with `auth` (the settings coordinators and workers share, `argus_infra::NatsAuth`),
/// twice as two clients would, retrying while the server starts; `Err` once it answers and
/// refuses.
async fn try_connect(url: &str, auth: &argus_infra::NatsAuth) -> Result<(), String> {
    let w = auth.clone();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let c = tokio::time::timeout(Duration::from_secs(5), auth.connect(url, "t")).await;
        match c {
            Ok(Ok(client)) => {
                client.flush().await.map_err(|e| e.to_string())?;
                let wc = tokio::time::timeout(Duration::from_secs(5), w.connect(url, "w"))
                    .await
                    .map_err(|_| "worker connect timed out".to_string())?
                    .map_err(|e| format!("worker: {e:#}"))?;
                wc.flush().await.map_err(|e| e.to_string())?;
                return Ok(());
            }
            Ok(Err(e)) => {
                let msg = format!("{e:#}");
                if !msg.contains("refused") && !msg.contains("Connection") {
                    return Err(msg);
                }
                if Instant::now() > deadline {
                    return Err(msg);
                }
            }
            Err(_) => return Err("connect timed out".into()),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nats_user_password_and_token_are_used() {
    use argus_infra::NatsAuth;
    let (_s1, url) = private_nats(&["--user", "argus", "--pass", "s3cret-pw"]);
    let good = NatsAuth {
        nats_user: Some("argus".into()),
        nats_password: Some("s3cret-pw".into()),
        ..Default::default()
    };
    try_connect(&url, &good)
        .await
        .expect("user + password accepted");
    let none = try_connect(&url, &NatsAuth::default()).await;
    assert!(none.is_err(), "no credentials accepted");
    let wrong = NatsAuth {
        nats_password: Some("nope".into()),
        ..good.clone()
    };
    let e = try_connect(&url, &wrong).await.expect_err("wrong password");
    assert!(e.to_lowercase().contains("auth"), "{e}");

    let (_s2, url2) = private_nats(&["--auth", "tok-123"]);
    let tok = NatsAuth {
        nats_token: Some("tok-123".into()),
        ..Default::default()
    };
    try_connect(&url2, &tok).await.expect("token accepted");
    let bad = NatsAuth {
        nats_token: Some("tok-999".into()),
        ..Default::default()
    };
    assert!(
        try_connect(&url2, &bad).await.is_err(),
        "bad token accepted"
    );

    // Misconfigured files fail at start with a message naming them.
    let missing = NatsAuth {
        nats_creds: Some("/nonexistent/argus.creds".into()),
        ..Default::default()
    };
    let e = try_connect(&url2, &missing)
        .await
        .expect_err("missing creds");
    assert!(e.contains("/nonexistent/argus.creds"), "{e}");
    let no_ca = NatsAuth {
        nats_tls_ca: Some("/nonexistent/ca.pem".into()),
        ..Default::default()
    };
    let e = try_connect(&url2, &no_ca).await.expect_err("missing CA");
    assert!(e.contains("/nonexistent/ca.pem"), "{e}");
    // A server without TLS is refused when TLS is required.
    let tls = NatsAuth {
        nats_require_tls: true,
        ..tok
    };
    assert!(
        try_connect(&url2, &tls).await.is_err(),
        "plain server accepted under require_tls"
    );
}
