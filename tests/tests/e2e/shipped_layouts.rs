//! Pins what the shipped layouts hand a worker (issue 24, item 7). For each of compose
//! (`deploy/compose.yaml` + its env files), Kubernetes (`deploy/k8s/`) and systemd
//! (`deploy/systemd/`), the environment a worker process receives is read from the files as
//! shipped and must hold:
//! - no coordinator secret: no `ARGUS_BOOTSTRAP_TOKEN`, no `ARGUS_DATABASE_URL`, no
//!   PostgreSQL password, and an `ARGUS_API_TOKEN` that is not the bootstrap admin token and
//!   is documented as a `worker`-role token;
//! - the NATS worker user of `deploy/nats/permissions.conf` (a user with `permissions:`,
//!   not the coordinators' `argus`), its password variable, and the inbox prefix and worker
//!   id that user's permissions name; the NATS servers of the layout load that file;
//! - an S3 key that is not the coordinators', whose identity in `deploy/seaweedfs/s3.json`
//!   may only write under `<bucket>/runs/`.
//!   (The worker's S3 limits themselves are pinned on a real SeaweedFS by `s3_worker_prefix`.)

use std::collections::BTreeMap;
use std::path::Path;

type Env = BTreeMap<String, String>;

fn read(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("shipped file {rel}: {e}"))
}

/// `KEY=VALUE` lines of an env file (comments and blanks skipped).
fn env_file(rel: &str) -> Env {
    read(rel)
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// The lines of one compose service (from `  name:` to the next line indented by two).
fn compose_service<'a>(compose: &'a str, name: &str) -> Vec<&'a str> {
    let head = format!("  {name}:");
    let mut out = Vec::new();
    let mut inside = false;
    for l in compose.lines() {
        if inside && l.starts_with("  ") && !l.starts_with("   ") && !l.trim().is_empty() {
            break;
        }
        if !inside && l.starts_with("  ") && !l.starts_with("   ") && l.trim_end() == head {
            inside = true;
            continue;
        }
        if inside {
            out.push(l);
        }
    }
    assert!(!out.is_empty(), "compose.yaml has no service {name}");
    out
}

/// Each `KEY: "value"` of the Secret/ConfigMap named `name` in a k8s manifest.
fn k8s_data(manifest: &str, name: &str) -> Env {
    for doc in manifest.split("\n---") {
        let named = doc.lines().any(|l| l.trim() == format!("name: {name}"));
        if !named {
            continue;
        }
        let mut env = Env::new();
        let mut in_data = false;
        for l in doc.lines() {
            if l.starts_with("data:") || l.starts_with("stringData:") {
                in_data = true;
                continue;
            }
            if in_data && !l.starts_with(' ') && !l.trim().is_empty() {
                in_data = false;
            }
            if in_data && !l.trim_start().starts_with('#') {
                if let Some((k, v)) = l.trim().split_once(": ") {
                    if k.starts_with("ARGUS_") {
                        env.insert(k.to_string(), v.trim().trim_matches('"').to_string());
                    }
                }
            }
        }
        return env;
    }
    panic!("no Secret/ConfigMap {name}");
}

/// The environment of the k8s worker container: its `env:` entries (values, and keys taken
/// from secrets) and everything its `envFrom:` maps in.
fn k8s_worker_env() -> Env {
    let worker = read("deploy/k8s/worker.yaml");
    let secrets = read("deploy/k8s/secrets.yaml");
    let config = read("deploy/k8s/config.yaml");
    let mut env = Env::new();
    let lines: Vec<&str> = worker.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim().trim_start_matches("- ");
        if let Some(rest) = t.strip_prefix("{name: ") {
            // - {name: K, value: "V"}
            if let Some((k, v)) = rest.split_once(", value: ") {
                env.insert(
                    k.to_string(),
                    v.trim_end_matches('}').trim_matches('"').into(),
                );
            }
        } else if let Some(k) = t.strip_prefix("name: ARGUS_") {
            let next = lines.get(i + 1).copied().unwrap_or("");
            if let Some(r) = next.split("secretKeyRef: {name: ").nth(1) {
                let (secret, key) = r.split_once(", key: ").expect("secretKeyRef");
                let key = key.trim_end_matches('}').trim();
                let data = k8s_data(&secrets, secret);
                let v = data
                    .get(key)
                    .unwrap_or_else(|| panic!("{secret} has no {key}"));
                env.insert(format!("ARGUS_{k}"), v.clone());
            }
        } else if let Some(r) = t
            .strip_prefix("- secretRef: {name: ")
            .or(t.strip_prefix("secretRef: {name: "))
        {
            env.extend(k8s_data(&secrets, r.trim_end_matches('}').trim()));
        } else if let Some(r) = t.strip_prefix("configMapRef: {name: ") {
            env.extend(k8s_data(&config, r.trim_end_matches('}').trim()));
        }
    }
    env
}

/// What every layout must give a worker, `coord` being the coordinators' environment and
/// `token_doc` the text that documents the worker's ARGUS_API_TOKEN.
fn assert_worker_env(layout: &str, worker: &Env, coord: &Env, token_doc: &str) {
    for k in [
        "ARGUS_BOOTSTRAP_TOKEN",
        "ARGUS_DATABASE_URL",
        "ARGUS_PG_PASSWORD",
    ] {
        assert!(!worker.contains_key(k), "{layout}: the worker receives {k}");
    }
    let token = worker
        .get("ARGUS_API_TOKEN")
        .unwrap_or_else(|| panic!("{layout}: no ARGUS_API_TOKEN for the worker"));
    assert_ne!(
        Some(token),
        coord.get("ARGUS_BOOTSTRAP_TOKEN"),
        "{layout}: the worker's API token is the bootstrap admin token"
    );
    assert!(
        token_doc.contains("--role worker"),
        "{layout}: the worker's token is not documented as `argus token create --role worker`"
    );

    // NATS: the worker user of the shipped permissions file.
    let perms = read("deploy/nats/permissions.conf");
    let user = worker
        .get("ARGUS_NATS_USER")
        .unwrap_or_else(|| panic!("{layout}: no ARGUS_NATS_USER for the worker"));
    assert_ne!(
        user, "argus",
        "{layout}: the worker is the coordinators' NATS user"
    );
    let entry = perms
        .lines()
        .find(|l| l.contains(&format!("user: {user},")))
        .unwrap_or_else(|| panic!("{layout}: NATS user {user} is not in permissions.conf"));
    assert!(
        entry.contains("permissions:"),
        "{layout}: {user} has no permissions: {entry}"
    );
    let id = worker
        .get("ARGUS_WORKER_ID")
        .unwrap_or_else(|| panic!("{layout}: no fixed ARGUS_WORKER_ID (its NATS user names one)"));
    assert!(
        perms.contains(&format!(".argus.assign.{id}\""))
            && perms.contains(&format!("_INBOX_{id}.>")),
        "{layout}: permissions.conf does not scope a user to worker id {id}"
    );
    assert_eq!(
        worker.get("ARGUS_NATS_INBOX_PREFIX").map(String::as_str),
        Some(format!("_INBOX_{id}").as_str()),
        "{layout}: the worker's inbox prefix is not the one its permissions allow"
    );
    let pw_var = entry
        .split("password: $")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .expect("a password variable");
    assert!(
        worker.contains_key("ARGUS_NATS_PASSWORD"),
        "{layout}: no NATS password for the worker ({pw_var})"
    );
    assert!(
        !worker.contains_key("ARGUS_NATS_CREDS") && !worker.contains_key("ARGUS_NATS_TOKEN"),
        "{layout}: the worker gets other NATS credentials"
    );

    // S3: its own key, limited to runs/ of the bucket.
    let key = worker
        .get("ARGUS_S3_ACCESS_KEY")
        .unwrap_or_else(|| panic!("{layout}: no ARGUS_S3_ACCESS_KEY for the worker"));
    assert_ne!(
        Some(key),
        coord.get("ARGUS_S3_ACCESS_KEY"),
        "{layout}: the worker has the coordinators' S3 key"
    );
    let bucket = worker
        .get("ARGUS_S3_BUCKET")
        .cloned()
        .unwrap_or("argus".into());
    let s3: serde_json::Value =
        serde_json::from_str(&read("deploy/seaweedfs/s3.json")).expect("s3.json");
    let ident = s3["identities"]
        .as_array()
        .expect("identities")
        .iter()
        .find(|i| {
            i["credentials"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c["accessKey"] == key.as_str()))
        })
        .unwrap_or_else(|| panic!("{layout}: S3 key {key} has no identity in s3.json"));
    let actions = ident["actions"].as_array().expect("actions");
    assert!(!actions.is_empty());
    for a in actions {
        let a = a.as_str().expect("action");
        assert_eq!(
            a,
            format!("Write:{bucket}/runs/*"),
            "{layout}: the worker's S3 identity may do more than write under runs/"
        );
    }
}

#[test]
fn compose_gives_workers_worker_credentials() {
    let compose = read("deploy/compose.yaml");
    let worker_svc = compose_service(&compose, "worker-web-1").join("\n");
    assert!(
        worker_svc.contains("env_file: [worker.env]"),
        "the compose worker does not read its own env file:\n{worker_svc}"
    );
    assert!(
        !worker_svc.contains("argus.env"),
        "the compose worker reads argus.env"
    );
    let coord = env_file("deploy/argus.env.example");
    let mut worker = env_file("deploy/worker.env.example");
    for l in worker_svc.lines() {
        if let Some((k, v)) = l.trim().split_once(": ") {
            if k.starts_with("ARGUS_") {
                worker.insert(k.into(), v.trim_matches('"').into());
            }
        }
    }
    assert_worker_env(
        "compose",
        &worker,
        &coord,
        &read("deploy/worker.env.example"),
    );
    // The NATS servers load the shipped permissions file.
    assert!(read("deploy/nats/nats.conf").contains("include permissions.conf"));
}

#[test]
fn k8s_gives_workers_worker_credentials() {
    let worker_yaml = read("deploy/k8s/worker.yaml");
    assert!(
        !worker_yaml.contains("name: argus-secrets"),
        "the k8s worker reads the coordinators' secret argus-secrets"
    );
    let coord = k8s_data(&read("deploy/k8s/secrets.yaml"), "argus-secrets");
    let worker = k8s_worker_env();
    assert_worker_env("k8s", &worker, &coord, &read("deploy/k8s/secrets.yaml"));
    let nats = read("deploy/k8s/nats.yaml");
    assert!(
        nats.contains("include permissions.conf") && nats.contains("deploy/nats/permissions.conf"),
        "the k8s NATS servers do not load deploy/nats/permissions.conf"
    );
}

#[test]
fn systemd_gives_workers_worker_credentials() {
    let unit = read("deploy/systemd/argus-worker@.service");
    assert!(
        !unit.contains("EnvironmentFile=/etc/argus/argus.env"),
        "the worker unit reads the coordinators' /etc/argus/argus.env"
    );
    assert!(unit.contains("EnvironmentFile=/etc/argus/worker.env"));
    let coord = env_file("deploy/systemd/argus.env.example");
    let worker = env_file("deploy/systemd/worker.env.example");
    assert_worker_env(
        "systemd",
        &worker,
        &coord,
        &read("deploy/systemd/worker.env.example"),
    );
    assert!(read("deploy/systemd/nats-cluster.conf.example").contains("include permissions.conf"));
}
