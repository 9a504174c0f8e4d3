//! Pins that the worker's Chromium does not inherit the worker's environment (issue 24,
//! item 4): a real `argus worker` process, started with its credentials in its environment
//! (API token, S3 keys, a database URL, an `ARGUS_SECRET_*`), runs a job; then every process
//! below it that is Chromium (browser, zygotes, renderers) is read from
//! `/proc/<pid>/environ`: no `ARGUS_*` entry and no credential value may be there.

use std::collections::HashMap;
use std::time::Duration;

use argus_tests::procs::{ProcFarm, ProcFarmOptions};

/// Every live descendant of `root`, from `/proc/*/stat`.
fn descendants(root: u32) -> Vec<u32> {
    let mut parent: HashMap<u32, u32> = HashMap::new();
    for e in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse().ok());
        if let Some(ppid) = ppid {
            parent.insert(pid, ppid);
        }
    }
    let below = |mut p: u32| {
        while let Some(&up) = parent.get(&p) {
            if up == root {
                return true;
            }
            if up <= 1 {
                return false;
            }
            p = up;
        }
        false
    };
    parent.keys().copied().filter(|&p| below(p)).collect()
}

fn comm(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .unwrap_or_default()
        .trim()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_gets_none_of_the_workers_credentials() {
    let mut farm = ProcFarm::start(ProcFarmOptions::default()).await;
    farm.start_coordinator().await;
    let url = farm.coordinator_url(0);
    let canary = format!("canary-{}", uuid::Uuid::new_v4().simple());
    let mut cmd = farm.worker_command("envw", 1, &url, None);
    cmd.env("ARGUS_SECRET_PASSWORD", &canary).env(
        "ARGUS_DATABASE_URL",
        format!("postgres://argus:{canary}@db/argus"),
    );
    farm.start_worker_cmd("envw", 1, cmd).await;
    let (_, run) = farm
        .submit_to(
            &url,
            &serde_json::json!({"platform": "web", "instruction": "wait 10ms"}),
        )
        .await;
    let end = farm.wait_terminal(run, Duration::from_secs(60)).await;
    assert_eq!(end, "succeeded", "{}", farm.logs(20));
    let worker = &farm.workers["envw"];
    let pid = worker.pid().expect("worker pid");
    let worker_env = std::fs::read(format!("/proc/{pid}/environ")).expect("worker environ");
    // The worker's credentials: its `ARGUS_*` entries whose names say so.
    let secrets: Vec<Vec<u8>> = worker_env
        .split(|b| *b == 0)
        .filter_map(|e| {
            let (k, v) = std::str::from_utf8(e).ok()?.split_once('=')?;
            let credential = ["TOKEN", "SECRET", "PASSWORD", "DATABASE_URL", "ACCESS_KEY"]
                .iter()
                .any(|w| k.contains(w));
            (k.starts_with("ARGUS_") && credential && v.len() >= 8).then(|| v.as_bytes().to_vec())
        })
        .collect();
    assert!(
        secrets.iter().any(|v| v == canary.as_bytes()),
        "the worker itself holds the canary"
    );
    let chromes: Vec<u32> = descendants(pid)
        .into_iter()
        .filter(|p| comm(*p).starts_with("chrom"))
        .collect();
    assert!(!chromes.is_empty(), "no Chromium below the worker");
    let mut leaks = Vec::new();
    for p in &chromes {
        let Ok(env) = std::fs::read(format!("/proc/{p}/environ")) else {
            continue; // exited meanwhile
        };
        let entries: Vec<String> = env
            .split(|b| *b == 0)
            .filter(|e| !e.is_empty())
            .map(|e| String::from_utf8_lossy(e).into_owned())
            .collect();
        let names: Vec<&str> = entries
            .iter()
            .map(|e| e.split('=').next().unwrap_or(""))
            .collect();
        eprintln!("chromium {p} ({}) environment: {names:?}", comm(*p));
        for n in names.iter().filter(|n| n.starts_with("ARGUS_")) {
            leaks.push(format!("{p} ({}) has {n}", comm(*p)));
        }
        if secrets
            .iter()
            .any(|v| env.windows(v.len()).any(|w| w == v.as_slice()))
        {
            leaks.push(format!("{p} ({}) holds a credential value", comm(*p)));
        }
    }
    assert!(
        leaks.is_empty(),
        "Chromium inherited the worker's credentials: {leaks:#?}"
    );
}
