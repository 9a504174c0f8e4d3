//! Pins that a worker holding only what the shipped layouts give it runs a job end to end
//! (issue 24, item 7), all real processes: a private nats-server with
//! `deploy/nats/permissions.conf` as shipped, a private SeaweedFS with
//! `deploy/seaweedfs/s3.json` as shipped (secrets replaced), a coordinator as the NATS user
//! `argus` with the `argus` S3 identity, and worker `web-1` as NATS user `worker-web-1`
//! (inbox `_INBOX_web-1`), the `argus-worker` S3 identity (write under `runs/` only) and a
//! `worker`-role API token. A submitted job succeeds and its screenshot reaches the bucket.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use argus_tests::procs::{free_port, Proc, ProcFarm, ProcFarmOptions};

use crate::s3_worker_prefix::{set_secret, start_weed};

const PERMISSIONS: &str = include_str!("../../../deploy/nats/permissions.conf");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_with_the_shipped_worker_credentials_runs_a_job() {
    let mut farm = ProcFarm::start(ProcFarmOptions::default()).await;
    // NATS with the shipped users and permissions (prefix `argus`, as the file is written).
    let ndir = farm.dir.join("nats-perm");
    std::fs::create_dir_all(&ndir).expect("dir");
    std::fs::write(ndir.join("permissions.conf"), PERMISSIONS).expect("permissions");
    let nport = free_port();
    std::fs::write(
        ndir.join("nats.conf"),
        format!(
            "listen: 127.0.0.1:{nport}\njetstream {{ store_dir: \"{}\" }}\ninclude permissions.conf\n",
            ndir.join("js").display()
        ),
    )
    .expect("config");
    let mut ncmd = std::process::Command::new(
        std::env::var("ARGUS_NATS_SERVER").unwrap_or("nats-server".into()),
    );
    ncmd.arg("-c")
        .arg(ndir.join("nats.conf"))
        .env("ARGUS_NATS_PASSWORD", "coord-nats-pw")
        .env("ARGUS_NATS_WORKER_WEB_1_PASSWORD", "w1-nats-pw");
    let _nats = Proc::spawn("nats-perm", ncmd, &ndir.join("nats.log"));
    let nats_url = format!("nats://127.0.0.1:{nport}");
    // S3 with the shipped identities.
    let mut s3cfg: serde_json::Value =
        serde_json::from_str(include_str!("../../../deploy/seaweedfs/s3.json")).expect("s3.json");
    let admin_key = set_secret(&mut s3cfg, "argus", "coord-s3-secret");
    let worker_key = set_secret(&mut s3cfg, "argus-worker", "worker-s3-secret");
    let weed = start_weed(&s3cfg).await;

    // The coordinator: its own NATS user and S3 identity (it creates the bucket).
    let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().expect("addr");
    let mut c = farm.coordinator_command(addr);
    c.env("ARGUS_NATS_URL", &nats_url)
        .env("ARGUS_NATS_PREFIX", "argus")
        .env("ARGUS_NATS_USER", "argus")
        .env("ARGUS_NATS_PASSWORD", "coord-nats-pw")
        .env("ARGUS_S3_ENDPOINT", &weed.endpoint)
        .env("ARGUS_S3_BUCKET", "argus")
        .env("ARGUS_S3_ACCESS_KEY", &admin_key)
        .env("ARGUS_S3_SECRET_KEY", "coord-s3-secret");
    let mut coord = Proc::spawn("coordinator", c, &farm.dir.join("coordinator-perm.log"));
    let url = format!("http://{addr}");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = farm.http.get(format!("{url}/healthz")).send().await {
            if r.status().is_success() {
                break;
            }
        }
        assert!(coord.alive(), "coordinator exited:\n{}", coord.tail(30));
        assert!(
            Instant::now() < deadline,
            "coordinator not healthy:\n{}",
            coord.tail(30)
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // The worker: a worker-role token, NATS user worker-web-1, the runs/-only S3 identity.
    let token = argus_coordinator::auth::generate();
    argus_coordinator::auth::create_token(
        &farm.pool,
        "default",
        argus_coordinator::auth::Role::Worker,
        "web-1",
        &token,
    )
    .await
    .expect("worker token");
    let mut w = farm.worker_command("web-1", 1, &url, None);
    w.env("ARGUS_API_TOKEN", &token)
        .env("ARGUS_NATS_URL", &nats_url)
        .env("ARGUS_NATS_PREFIX", "argus")
        .env("ARGUS_NATS_USER", "worker-web-1")
        .env("ARGUS_NATS_PASSWORD", "w1-nats-pw")
        .env("ARGUS_NATS_INBOX_PREFIX", "_INBOX_web-1")
        .env("ARGUS_S3_ENDPOINT", &weed.endpoint)
        .env("ARGUS_S3_BUCKET", "argus")
        .env("ARGUS_S3_ACCESS_KEY", &worker_key)
        .env("ARGUS_S3_SECRET_KEY", "worker-s3-secret");
    farm.start_worker_cmd("web-1", 1, w).await;

    let (_, run) = farm
        .submit_to(
            &url,
            &serde_json::json!({"platform": "web", "instruction": "wait 10ms"}),
        )
        .await;
    let end = farm.wait_terminal(run, Duration::from_secs(90)).await;
    assert_eq!(end, "succeeded", "{}\n{}", farm.logs(30), coord.tail(30));
    // Its screenshot is in the bucket, read with the coordinators' identity.
    let admin = argus_infra::s3_client(&argus_infra::S3Settings {
        endpoint: weed.endpoint.clone(),
        region: "us-east-1".into(),
        bucket: "argus".into(),
        access_key: admin_key,
        secret_key: "coord-s3-secret".into(),
    });
    let listed = admin
        .list_objects_v2()
        .bucket("argus")
        .prefix(format!("runs/{run}/"))
        .send()
        .await
        .expect("list");
    assert!(
        !listed.contents().is_empty(),
        "no screenshot of run {run} reached the bucket\n{}",
        farm.logs(30)
    );
}
