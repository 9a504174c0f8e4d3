//! Pins issue 27 items 4 and 5 on real services and real Chromium.
//!
//! * Builds: one job name run on app builds 1.3.0 (passes; submitted with `argus submit
//!   --app-build`), then 1.4.0 and 1.4.1 (a failing assertion; `app_build` in the API):
//!   `GET /api/v1/insights/builds?job=…` names 1.4.0 as the first failing build, with pass
//!   rates 1.0 / 0.0 / 0.0, and so does the insights page. A bad `app_build` (too long, a
//!   newline) is a 4xx envelope naming `app_build` and stores nothing.
//! * The suite page: a suite of one passing and one failing case shows both with their
//!   status, the failing one's failure class, step text and a thumbnail whose URL serves an
//!   image; its JUnit carries the failing step and a screenshot link in the `<failure>`; its
//!   jobs' `app_build` (given in the suite) shows in the builds insights by suite name; the
//!   same page opened in real Chromium (signed in) shows the blame and the failing step, and
//!   its thumbnail loads.

use std::time::Duration;

use argus_tests::procs::argus_bin;
use argus_tests::site::Site;
use argus_tests::{Farm, FarmOptions};
use serde_json::{json, Value};

async fn get(farm: &Farm, path: &str) -> reqwest::Response {
    farm.http
        .get(format!("{}{path}", farm.base_url))
        .send()
        .await
        .expect("get")
}

/// Runs in the farm's team (every status), as `GET /api/v1/runs` counts them.
async fn run_count(farm: &Farm) -> usize {
    let v: Value = get(farm, "/api/v1/runs?limit=1000")
        .await
        .json()
        .await
        .expect("json");
    v.as_array().map_or(0, Vec::len)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn insights_name_the_first_failing_build() {
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let name = format!("checkout {}", farm.token);
    let url = site.example_url("vanillajs", &farm.token);
    // 1.3.0 passes, from the CLI.
    let out = tokio::process::Command::new(argus_bin())
        .args(["submit", "--server", &farm.base_url, "--platform", "web"])
        .args([
            "--url",
            &url,
            "--name",
            &name,
            "--app-build",
            "1.3.0",
            "--wait",
        ])
        .args(["--instruction", "assert screen contains \"todos\""])
        .env("ARGUS_API_TOKEN", &farm.admin_token)
        .output()
        .await
        .expect("argus submit");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 1.4.0 and 1.4.1 fail an assertion, from the API.
    for build in ["1.4.0", "1.4.1"] {
        let run = farm
            .submit(&json!({
                "platform": "web", "name": name, "start_url": url, "app_build": build,
                "instruction": "assert screen contains \"no such text\"", "timeout_s": 60,
            }))
            .await;
        let d = farm.wait_run(run, Duration::from_secs(60)).await;
        assert_eq!(d.status.as_str(), "failed", "{:?}", d.error);
    }
    let q = format!("/api/v1/insights/builds?job={}", urlencode(&name));
    let v: Value = get(&farm, &q).await.json().await.expect("json");
    let rates: Vec<(String, f64)> = v["builds"]
        .as_array()
        .expect("builds")
        .iter()
        .map(|b| {
            (
                b["app_build"].as_str().unwrap_or("").into(),
                b["pass_rate"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    let want: Vec<(String, f64)> = [("1.3.0", 1.0), ("1.4.0", 0.0), ("1.4.1", 0.0)]
        .into_iter()
        .map(|(b, r)| (b.to_string(), r))
        .collect();
    assert_eq!(rates, want, "{v}");
    assert_eq!(v["jobs"][0]["job"], name.as_str(), "{v}");
    assert_eq!(v["jobs"][0]["first_failing_build"], "1.4.0", "{v}");
    let page = get(&farm, &format!("/insights?job={}", urlencode(&name)))
        .await
        .text()
        .await
        .expect("page");
    assert!(
        page.contains("<td class=\"first-failing\"><code>1.4.0</code>"),
        "{page}"
    );
    // Neither name nor suite: an envelope.
    let r = get(&farm, "/api/v1/insights/builds").await;
    assert_eq!(r.status().as_u16(), 422);

    // A bad build is refused and nothing is stored.
    let before = run_count(&farm).await;
    for bad in ["x".repeat(65), "1.4\n0".to_string()] {
        let spec =
            json!({"platform": "web", "name": name, "instruction": "wait 1ms", "app_build": bad});
        let (code, env) = farm.post_job_raw(spec.to_string()).await;
        assert!((400..500).contains(&code), "{code} {env}");
        assert_eq!(env["field"], "app_build", "{env}");
        assert!(env["code"].is_string() && env["hint"].is_string(), "{env}");
    }
    let suite = json!({"name": "bad build", "jobs": [
        {"platform": "web", "name": "a", "instruction": "wait 1ms"},
        {"platform": "web", "name": "b", "instruction": "wait 1ms", "app_build": "x".repeat(65)},
    ]});
    let r = farm.post_json("/api/v1/suites", &suite).await;
    assert_eq!(r.status().as_u16(), 422);
    assert_eq!(run_count(&farm).await, before, "nothing stored");
}

/// `s` percent-encoded for a query value.
fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_suite_page_shows_each_case_with_its_failing_step_and_screenshot() {
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let url = site.example_url("vanillajs", &farm.token);
    let suite = json!({
        "name": format!("grid {}", farm.token),
        "jobs": [
            {"platform": "web", "name": "opens", "start_url": url, "timeout_s": 60, "app_build": "2.0.0",
             "instruction": "assert screen contains \"todos\""},
            {"platform": "web", "name": "adds", "start_url": url, "timeout_s": 60, "app_build": "2.0.0",
             "instruction": "type \"buy milk\" into \"What needs to be done?\"\npress Enter\nassert screen contains \"no such todo\""},
        ],
    });
    let r = farm.post_json("/api/v1/suites", &suite).await;
    assert_eq!(r.status().as_u16(), 201);
    let created: Value = r.json().await.expect("json");
    let id = created["suite_id"].as_str().expect("id").to_string();
    let mut runs = Vec::new();
    for j in created["jobs"].as_array().expect("jobs") {
        let run: uuid::Uuid = j["run_id"].as_str().expect("run").parse().expect("uuid");
        runs.push(farm.wait_run(run, Duration::from_secs(60)).await);
    }
    assert_eq!(runs[0].status.as_str(), "succeeded", "{:?}", runs[0].error);
    assert_eq!(runs[1].status.as_str(), "failed", "{:?}", runs[1].error);
    // Steps are numbered as the report numbers them: step 1 opens the start URL, so the
    // third line is step 4 (anchor `#step-3`).
    let html = get(&farm, &format!("/suites/{id}"))
        .await
        .text()
        .await
        .expect("page");
    for want in [
        ">opens<",
        ">adds<",
        "<span class=\"badge succeeded\">succeeded</span>",
        "<span class=\"badge failed\">failed</span>",
        "<span class=\"badge failure-class\">app</span>",
        "step 4: <code>assert screen contains &#34;no such todo&#34;</code>",
        &format!("href=\"/runs/{}", runs[0].run_id),
        &format!("href=\"/runs/{}#step-3\"", runs[1].run_id),
    ] {
        assert!(html.contains(want), "no {want:?} in {html}");
    }
    let at = html
        .find("<img class=\"thumb\" src=\"")
        .expect("a thumbnail")
        + 24;
    let src = &html[at..at + html[at..].find('"').expect("end")];
    let img = get(&farm, src).await;
    assert_eq!(img.status().as_u16(), 200, "{src}");
    let ct = img.headers()[reqwest::header::CONTENT_TYPE]
        .to_str()
        .unwrap_or("")
        .to_string();
    assert!(ct.starts_with("image/"), "{ct}");
    assert!(!img.bytes().await.expect("bytes").is_empty());

    // The API names the same step and screenshot.
    let v: Value = get(&farm, &format!("/api/v1/suites/{id}"))
        .await
        .json()
        .await
        .expect("json");
    let f = &v["jobs"][1]["failing_step"];
    assert_eq!(f["index"], 3, "{v}");
    assert_eq!(f["text"], "assert screen contains \"no such todo\"", "{v}");
    assert_eq!(f["screenshot_url"], src, "{v}");
    assert!(v["jobs"][0]["failing_step"].is_null(), "{v}");

    let xml = get(&farm, &format!("/api/v1/suites/{id}/junit.xml"))
        .await
        .text()
        .await
        .expect("xml");
    // Well-formed: parse every event; one failure, of type `app`.
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut failures = 0;
    loop {
        match reader.read_event().expect("valid XML") {
            quick_xml::events::Event::Start(e) if e.name().as_ref() == b"failure" => {
                failures += 1;
                let ty = e.try_get_attribute("type").expect("attr").expect("type");
                assert_eq!(ty.value.as_ref(), b"app");
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    let body = &xml[xml.find("<failure ").expect("failure")..];
    let body = &body[body.find('>').expect(">") + 1..body.find("</failure>").expect("end")];
    let failure_text = quick_xml::escape::unescape(body)
        .expect("unescape")
        .to_string();
    assert_eq!(failures, 1, "{xml}");
    assert!(
        failure_text.contains("step 4 `assert screen contains \"no such todo\"` failed"),
        "{failure_text}"
    );
    let shot = failure_text
        .lines()
        .find_map(|l| l.strip_prefix("screenshot: "))
        .expect("a screenshot link");
    assert!(
        shot.ends_with(&src["/artifacts/".len()..]),
        "{shot} vs {src}"
    );
    let r = farm.http.get(shot).send().await.expect("screenshot");
    assert_eq!(r.status().as_u16(), 200, "{shot}");

    // The suite file's builds: by suite name, one build at 0.5, `adds` failing since it.
    let q = format!(
        "/api/v1/insights/builds?suite={}",
        urlencode(&format!("grid {}", farm.token))
    );
    let v: Value = get(&farm, &q).await.json().await.expect("json");
    assert_eq!(v["builds"][0]["app_build"], "2.0.0", "{v}");
    assert_eq!(v["builds"][0]["pass_rate"], 0.5, "{v}");
    let adds = v["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .find(|j| j["job"] == "adds")
        .cloned()
        .unwrap_or_default();
    assert_eq!(adds["first_failing_build"], "2.0.0", "{v}");

    // The same page in real Chromium, signed in: the grid shows the blame and the failing
    // step, and the thumbnail of the after-screenshot loads.
    let page = crate::dashboard::Page::open(
        &farm.services.chromium,
        &farm.worker_dir.with_extension("viewer"),
    )
    .await;
    crate::dashboard_forms::sign_in(&farm, &page).await;
    page.goto(&format!("{}/suites/{id}", farm.base_url)).await;
    page.wait_for(
        "(() => { const i = document.querySelector('img.thumb'); \
          return i !== null && i.complete && i.naturalWidth > 0; })()",
        Duration::from_secs(10),
    )
    .await;
    let shown = page.eval("document.body.innerText").await;
    let shown = shown.as_str().unwrap_or_default();
    for want in ["app", "failed", "succeeded", "step 4", "no such todo"] {
        assert!(shown.contains(want), "no {want:?} shown: {shown}");
    }
    page.close().await;
}
