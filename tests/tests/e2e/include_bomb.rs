//! Pins that one submit cannot stall the coordinator (issue 24, item 2): `include` is
//! expanded with a step count and stops at the first line past a bound, so a job whose files
//! include each other 4,000 × 4,000 times (16 M steps from 128 KB of text, each file under
//! the 64 KiB limit) is answered with a 4xx envelope naming `max_steps` in well under a
//! second, and `/healthz` answers while it is being refused and after.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// `n` lines of `include <file>`.
fn includes(file: &str, n: usize) -> String {
    (0..n).map(|_| format!("include {file}\n")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_include_bomb_is_refused_at_once() {
    let farm = crate::bare_farm().await;
    let a = includes("b.steps", 4000);
    let b = includes("c.steps", 4000);
    assert!(a.len() < 64 * 1024 && b.len() < 64 * 1024);
    let bomb = json!({"platform": "web", "instruction": "include a.steps",
        "files": {"a.steps": a, "b.steps": b, "c.steps": "wait 1ms"}});
    let body = bomb.to_string();
    // A submit that expands in full runs for minutes: bound the wait so the test fails.
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client");
    let url = format!("{}/api/v1/jobs", farm.base_url);
    let health = format!("{}/healthz", farm.base_url);
    let post = {
        let h = farm.http.clone();
        let url = url.clone();
        tokio::spawn(async move {
            let t0 = Instant::now();
            let r = h
                .post(url)
                .header("content-type", "application/json")
                .timeout(Duration::from_secs(10))
                .body(body)
                .send()
                .await;
            (t0.elapsed(), r)
        })
    };
    // The coordinator answers its liveness probe while the bomb is in flight.
    let t0 = Instant::now();
    let h = client.get(&health).send().await.expect("healthz during");
    assert_eq!(h.status().as_u16(), 200);
    eprintln!("healthz during the bomb: {:?}", t0.elapsed());
    let (took, r) = post.await.expect("post task");
    let r = r.unwrap_or_else(|e| panic!("the bomb's submit did not answer in {took:?}: {e}"));
    let status = r.status().as_u16();
    let env: Value = r.json().await.unwrap_or(Value::Null);
    eprintln!("bomb answered {status} in {took:?}: {env}");
    assert!((400..500).contains(&status), "{status}: {env}");
    assert_eq!(env["field"], "max_steps", "{env}");
    let msg = env["message"].as_str().unwrap_or_default();
    assert!(msg.contains("max_steps is 50"), "names the bound: {msg}");
    assert!(
        took < Duration::from_millis(500),
        "the bomb took {took:?} to refuse"
    );
    let h = client.get(&health).send().await.expect("healthz after");
    assert_eq!(h.status().as_u16(), 200);
    let n: (i64,) = sqlx::query_as("select count(*) from jobs")
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(n.0, 0, "nothing stored");

    // Whatever the job's max_steps, a parse stops at the hard cap: `if` / `else` both
    // including the next level, seven levels deep, over 900 steps, is a script a run takes
    // 907 steps of (under max_steps = 1000) that spells out 115,200 (the cap is 10,000).
    let fork = |next: &str| {
        format!("if screen contains \"x\":\n  include {next}\nelse:\n  include {next}\n")
    };
    let mut files = serde_json::Map::new();
    for k in 1..7 {
        files.insert(
            format!("l{k}.steps"),
            json!(fork(&format!("l{}.steps", k + 1))),
        );
    }
    files.insert("l7.steps".into(), json!("wait 1ms\n".repeat(900)));
    let capped = json!({"platform": "web", "instruction": fork("l1.steps"), "max_steps": 1000,
        "files": files});
    let t0 = Instant::now();
    let r = client
        .post(&url)
        .bearer_auth(&farm.admin_token)
        .json(&capped)
        .send()
        .await
        .expect("capped submit");
    let took = t0.elapsed();
    let status = r.status().as_u16();
    let env: Value = r.json().await.unwrap_or(Value::Null);
    eprintln!("forked script answered {status} in {took:?}: {env}");
    assert!((400..500).contains(&status), "{status}: {env}");
    let msg = env["message"].as_str().unwrap_or_default();
    assert!(msg.contains("10000"), "names the cap: {msg}");
    assert!(took < Duration::from_millis(500), "took {took:?}");
}
