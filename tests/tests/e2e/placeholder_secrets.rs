//! Pins that the shipped examples' placeholder secrets cannot reach production (issue 24,
//! item 7): a real `argus coordinator` or `argus worker` process given one credential
//! copied from a shipped example file (`CHANGE-ME…`), everything else valid, exits 2 at
//! start — before it connects to anything — with an error that names the variable.

use std::net::SocketAddr;
use std::time::Duration;

use argus_tests::procs::{free_port, Proc, ProcFarm, ProcFarmOptions};

/// Every shipped example environment, as a user copies it.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "deploy/argus.env.example",
        include_str!("../../../deploy/argus.env.example"),
    ),
    (
        "deploy/worker.env.example",
        include_str!("../../../deploy/worker.env.example"),
    ),
    (
        "deploy/systemd/argus.env.example",
        include_str!("../../../deploy/systemd/argus.env.example"),
    ),
    (
        "deploy/k8s/secrets.yaml",
        include_str!("../../../deploy/k8s/secrets.yaml"),
    ),
];

/// The value `var` has in the first shipped example that sets it (`K=V` or `K: "V"`).
fn shipped_value(var: &str) -> String {
    for (file, text) in EXAMPLES {
        for line in text.lines() {
            let line = line.trim();
            let rest = line
                .strip_prefix(var)
                .and_then(|r| r.strip_prefix('=').or_else(|| r.strip_prefix(':')));
            if let Some(v) = rest {
                let v = v.trim().trim_matches('"');
                if !v.is_empty() {
                    eprintln!("{var} from {file}");
                    return v.to_string();
                }
            }
        }
    }
    panic!("no shipped example sets {var}");
}

/// Starts `cmd` with `var` set to its shipped value; asserts it refuses naming `var`.
async fn refused(name: &str, mut cmd: std::process::Command, var: &str, dir: &std::path::Path) {
    let value = shipped_value(var);
    cmd.env(var, &value);
    if var == "ARGUS_NATS_PASSWORD" {
        cmd.env("ARGUS_NATS_USER", "argus");
    }
    let log = dir.join(format!("{name}-{var}.log"));
    let mut p = Proc::spawn(name, cmd, &log);
    let code = p.wait_exit(Duration::from_secs(20)).await;
    let text = p.log_text();
    assert_eq!(code, Some(2), "{name} with a placeholder {var}:\n{text}");
    assert!(
        text.contains(var) && text.contains("placeholder"),
        "{name}'s error does not name {var} as a placeholder:\n{text}"
    );
    assert!(
        !text.contains(&value),
        "{name} printed the refused value:\n{text}"
    );
    assert!(
        !text.contains("coordinator listening") && !text.contains("chromium started"),
        "{name} started before refusing:\n{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_coordinator_refuses_placeholder_secrets() {
    let farm = ProcFarm::start(ProcFarmOptions::default()).await;
    for var in [
        "ARGUS_BOOTSTRAP_TOKEN",
        "ARGUS_NATS_PASSWORD",
        "ARGUS_S3_SECRET_KEY",
        "ARGUS_DATABASE_URL",
    ] {
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().expect("addr");
        refused(
            "coordinator",
            farm.coordinator_command(addr),
            var,
            &farm.dir,
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_refuses_placeholder_secrets() {
    let farm = ProcFarm::start(ProcFarmOptions::default()).await;
    let nowhere = format!("http://127.0.0.1:{}", free_port());
    for var in [
        "ARGUS_API_TOKEN",
        "ARGUS_NATS_PASSWORD",
        "ARGUS_S3_SECRET_KEY",
    ] {
        let cmd = farm.worker_command("phw", 1, &nowhere, None);
        refused("worker", cmd, var, &farm.dir).await;
    }
}
