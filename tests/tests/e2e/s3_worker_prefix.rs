//! Pins the workers' S3 identity of `deploy/seaweedfs/s3.json` as shipped (issue 24, item 7),
//! on a private real SeaweedFS (`weed mini`, its own ports, data dir and bucket, removed at
//! the end) started with that file (only the CHANGE-ME secrets replaced):
//! - the worker's start path (`S3Store::connect_writer`) accepts the limited identity, and
//!   refuses a wrong secret;
//! - the worker can upload a screenshot under `runs/` (read back by the coordinators'
//!   identity, independently);
//! - it cannot write outside `runs/` (nor under a look-alike `runsX/`), read anything (its
//!   own uploads included), list the bucket, delete outside `runs/` or create a bucket.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use argus_infra::{ArtifactStore, S3Settings, S3Store};
use argus_tests::procs::{free_port, Proc};

const SHIPPED: &str = include_str!("../../../deploy/seaweedfs/s3.json");

/// A private `weed mini` with the shipped identities; dropped = killed, its folder removed.
pub(crate) struct Weed {
    proc: Proc,
    dir: PathBuf,
    pub(crate) endpoint: String,
}

impl Drop for Weed {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn settings(endpoint: &str, key: &str, secret: &str) -> S3Settings {
    S3Settings {
        endpoint: endpoint.into(),
        region: "us-east-1".into(),
        bucket: "argus".into(),
        access_key: key.into(),
        secret_key: secret.into(),
    }
}

/// Starts a private `weed mini` and waits until its S3 port accepts connections. Its ~11
/// ports are picked free just before the start, so another process can take one in between
/// (CI failed once: S3 never listened in 60 s under a full e2e run); a start that exits or
/// does not listen within 40 s is killed and tried again on fresh ports, up to 3 times, and
/// the last failure panics with weed's own log.
pub(crate) async fn start_weed(config: &serde_json::Value) -> Weed {
    let mut last = String::new();
    for attempt in 1..=3 {
        let mut weed = spawn_weed(config);
        let port: u16 = weed
            .endpoint
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("endpoint port");
        let deadline = Instant::now() + Duration::from_secs(40);
        loop {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return weed;
            }
            if !weed.proc.alive() || Instant::now() >= deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        last = format!(
            "attempt {attempt}: S3 port {port} not listening (alive: {})\n{}\n{}",
            weed.proc.alive(),
            weed.proc.tail(20),
            weed_logs(&weed.dir)
        );
        eprintln!("[s3] weed mini did not come up, retrying on fresh ports: {last}");
    }
    panic!("SeaweedFS did not start in 3 attempts; {last}");
}

/// The last lines of every file in weed's `-logdir` (for failure messages).
fn weed_logs(dir: &std::path::Path) -> String {
    let mut out = String::new();
    if let Ok(entries) = std::fs::read_dir(dir.join("log")) {
        for e in entries.flatten() {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            let tail = lines[lines.len().saturating_sub(10)..].join("\n");
            out.push_str(&format!("--- {}\n{tail}\n", e.path().display()));
        }
    }
    out
}

fn spawn_weed(config: &serde_json::Value) -> Weed {
    let dir = std::env::temp_dir().join(format!("argus-weed-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(dir.join("data")).expect("data dir");
    std::fs::create_dir_all(dir.join("log")).expect("log dir");
    std::fs::write(dir.join("s3.json"), config.to_string()).expect("s3.json");
    let bin = std::env::var("ARGUS_WEED_BIN").unwrap_or("/var/lib/argus/bin/weed".into());
    let s3_port = free_port();
    let mut cmd = std::process::Command::new(bin);
    cmd.current_dir(&dir)
        .arg(format!("-logdir={}", dir.join("log").display()))
        .arg("mini")
        .arg(format!("-dir={}", dir.join("data").display()))
        .args([
            "-ip=127.0.0.1",
            "-ip.bind=127.0.0.1",
            "-master.telemetry=false",
        ])
        .args([
            "-webdav=false",
            "-admin.ui=false",
            "-s3.port.iceberg=0",
            "-s3.port.lance=0",
        ])
        .arg(format!("-s3.port={s3_port}"))
        .arg(format!("-s3.config={}", dir.join("s3.json").display()))
        .arg(format!(
            "-filer.localSocket={}",
            dir.join("filer.sock").display()
        ))
        .arg(format!("-s3.localSocket={}", dir.join("s3.sock").display()));
    for flag in [
        "s3.port.grpc",
        "master.port",
        "master.port.grpc",
        "volume.port",
        "volume.port.grpc",
        "filer.port",
        "filer.port.grpc",
        "admin.port",
        "admin.port.grpc",
        "debug.port",
    ] {
        cmd.arg(format!("-{flag}={}", free_port()));
    }
    let proc = Proc::spawn("weed", cmd, &dir.join("weed.log"));
    Weed {
        proc,
        dir,
        endpoint: format!("http://127.0.0.1:{s3_port}"),
    }
}

/// The identity named `name` in `config`: its access key (the secret is set by the test).
pub(crate) fn set_secret(config: &mut serde_json::Value, name: &str, secret: &str) -> String {
    let ident = config["identities"]
        .as_array_mut()
        .expect("identities")
        .iter_mut()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("deploy/seaweedfs/s3.json has no identity {name}"));
    ident["credentials"][0]["secretKey"] = secret.into();
    ident["credentials"][0]["accessKey"]
        .as_str()
        .expect("accessKey")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_s3_identity_writes_only_under_runs() {
    let mut config: serde_json::Value = serde_json::from_str(SHIPPED).expect("s3.json");
    let admin_key = set_secret(&mut config, "argus", "coordinator-secret-1");
    let worker_key = set_secret(&mut config, "argus-worker", "worker-secret-1");
    let weed = start_weed(&config).await;
    let admin_s = settings(&weed.endpoint, &admin_key, "coordinator-secret-1");
    let admin = argus_infra::s3_client(&admin_s);
    // Up, identities loaded: the coordinators' identity creates the bucket.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match argus_infra::ensure_bucket(&admin, &admin_s).await {
            Ok(()) => break,
            Err(e) => assert!(Instant::now() < deadline, "SeaweedFS not ready: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    for key in ["other/secret.txt", "runs/r1/1-1-before.png"] {
        admin
            .put_object()
            .bucket("argus")
            .key(key)
            .body(b"coordinator".to_vec().into())
            .send()
            .await
            .unwrap_or_else(|e| panic!("admin put {key}: {e:?}"));
    }

    let worker_s = settings(&weed.endpoint, &worker_key, "worker-secret-1");
    let store = S3Store::connect_writer(&worker_s)
        .await
        .expect("the worker's start path accepts its prefix-limited identity");
    let wrong = settings(&weed.endpoint, &worker_key, "not-the-secret");
    assert!(
        S3Store::connect_writer(&wrong).await.is_err(),
        "a wrong secret passed the worker's start check"
    );

    // Its own prefix: written, and the coordinators' identity reads it back.
    let key = argus_infra::frame_key(&uuid::Uuid::new_v4(), "0123456789abcdef0123456789abcdef");
    store
        .put(&key, b"png".to_vec(), "image/jpeg")
        .await
        .expect("upload under runs/");
    let back = admin
        .get_object()
        .bucket("argus")
        .key(&key)
        .send()
        .await
        .expect("read back");
    let bytes = back.body.collect().await.expect("body").into_bytes();
    assert_eq!(&bytes[..], b"png");

    // Outside it: refused.
    for k in ["other/forged.txt", "runsX/a.png", "report.html"] {
        assert!(
            store.put(k, b"x".to_vec(), "text/html").await.is_err(),
            "the worker wrote {k} outside runs/"
        );
    }
    let worker = argus_infra::s3_client(&worker_s);
    for k in ["other/secret.txt", "runs/r1/1-1-before.png", key.as_str()] {
        assert!(
            worker
                .get_object()
                .bucket("argus")
                .key(k)
                .send()
                .await
                .is_err(),
            "the worker read {k}"
        );
    }
    assert!(
        worker
            .list_objects_v2()
            .bucket("argus")
            .send()
            .await
            .is_err(),
        "the worker listed the bucket"
    );
    assert!(
        worker
            .delete_object()
            .bucket("argus")
            .key("other/secret.txt")
            .send()
            .await
            .is_err(),
        "the worker deleted outside runs/"
    );
    assert!(
        worker
            .create_bucket()
            .bucket("argus-else")
            .send()
            .await
            .is_err(),
        "the worker created a bucket"
    );
    let still = admin
        .get_object()
        .bucket("argus")
        .key("other/secret.txt")
        .send()
        .await
        .expect("the coordinators' object is still there");
    assert_eq!(
        &still.body.collect().await.expect("body").into_bytes()[..],
        b"coordinator"
    );
}
