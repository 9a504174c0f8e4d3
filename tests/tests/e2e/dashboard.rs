//! Pins the dashboard in real headless Chromium (driven over CDP with Argus's own client):
//! sign in with a token, create a job from the form and watch its report turn `succeeded`
//! live (the SSE feed reloads the page; the test never reloads it), a wrong form value
//! shows an inline field error, and a schedule created from the form lists its next fire
//! times. Screenshots of the pages go to `$ARGUS_SHOTS_DIR` (default
//! `target/dashboard-shots/`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use argus_tests::site::Site;
use argus_tests::{Farm, FarmOptions};
use argus_worker::device::web::browser::Browser;
use argus_worker::device::web::cdp::Cdp;
use argus_worker::device::web::guard::DialogPolicy;
use argus_worker::device::web::policy::{parse_rules, HostPolicy};
use base64::Engine;
use serde_json::{json, Value};

/// A page of the test's own headless Chromium, driven over CDP.
pub(crate) struct Page {
    cdp: Arc<Cdp>,
    session: String,
    _browser: Browser,
}

impl Page {
    pub(crate) async fn open(chromium: &std::path::Path, dir: &std::path::Path) -> Page {
        // The test's own browser reads the coordinator on loopback.
        let policy = HostPolicy::new(parse_rules("127.0.0.0/8").expect("rule"));
        let browser = Browser::launch(chromium, dir, policy, DialogPolicy::Dismiss)
            .await
            .expect("chromium");
        let cdp = browser.cdp.clone();
        let t = cdp
            .call(None, "Target.createTarget", json!({"url": "about:blank"}))
            .await
            .expect("target");
        let att = cdp
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": t["targetId"], "flatten": true}),
            )
            .await
            .expect("attach");
        let session = att["sessionId"].as_str().expect("session").to_string();
        cdp.call(
            Some(&session),
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}),
        )
        .await
        .expect("viewport");
        Page {
            cdp,
            session,
            _browser: browser,
        }
    }

    /// Evaluates `js` in the page. An evaluation that races a navigation (a form submit, a
    /// redirect: "Inspected target navigated or closed", "Cannot find context") is retried
    /// on the new document for up to 5 s.
    pub(crate) async fn eval(&self, js: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let r = self
                .cdp
                .call(
                    Some(&self.session),
                    "Runtime.evaluate",
                    json!({"expression": js, "returnByValue": true, "awaitPromise": true}),
                )
                .await;
            match r {
                Ok(r) => return r["result"]["value"].clone(),
                Err(e) => {
                    let msg = format!("{e:?}");
                    let navigating =
                        msg.contains("navigated or closed") || msg.contains("Cannot find context");
                    assert!(navigating && Instant::now() < deadline, "evaluate: {msg}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    }

    pub(crate) async fn goto(&self, url: &str) {
        self.cdp
            .call(Some(&self.session), "Page.navigate", json!({"url": url}))
            .await
            .expect("navigate");
        self.wait_for(
            "document.readyState === 'complete'",
            Duration::from_secs(10),
        )
        .await;
    }

    /// Polls a JS condition until true.
    pub(crate) async fn wait_for(&self, cond: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            if self
                .eval(&format!(
                    "(() => {{ try {{ return !!({cond}); }} catch (e) {{ return false; }} }})()"
                ))
                .await
                == json!(true)
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {cond}; page: {}",
                self.eval("location.href + ' ' + document.body.innerText.slice(0, 500)")
                    .await
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Fills named fields of the first form matching `sel` and submits it.
    pub(crate) async fn submit_form(&self, sel: &str, fields: &[(&str, &str)]) {
        let mut js = format!("const f = document.querySelector({});", json!(sel));
        for (k, v) in fields {
            js.push_str(&format!("f.elements[{}].value = {};", json!(k), json!(v)));
        }
        js.push_str("f.submit(); true");
        self.eval(&js).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        self.wait_for(
            "document.readyState === 'complete'",
            Duration::from_secs(10),
        )
        .await;
    }

    /// Closes the page's tab (its connections with it).
    pub(crate) async fn close(&self) {
        let info = self
            .cdp
            .call(Some(&self.session), "Target.getTargetInfo", json!({}))
            .await
            .expect("target info");
        self.cdp
            .call(
                None,
                "Target.closeTarget",
                json!({"targetId": info["targetInfo"]["targetId"]}),
            )
            .await
            .expect("close the page");
    }

    pub(crate) async fn shot(&self, name: &str) {
        let dir = std::env::var("ARGUS_SHOTS_DIR").unwrap_or_else(|_| {
            format!("{}/../target/dashboard-shots", env!("CARGO_MANIFEST_DIR"))
        });
        let _ = std::fs::create_dir_all(&dir);
        if let Ok(r) = self
            .cdp
            .call(
                Some(&self.session),
                "Page.captureScreenshot",
                json!({"format": "png"}),
            )
            .await
        {
            if let Some(b) = r["data"].as_str() {
                if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(b) {
                    let _ = std::fs::write(format!("{dir}/{name}.png"), bytes);
                }
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dashboard_form_live_report_inline_errors_and_schedules() {
    let site = Site::todomvc().await;
    let farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let page = Page::open(
        &farm.services.chromium,
        &farm.worker_dir.with_extension("viewer"),
    )
    .await;

    // Unauthenticated: the dashboard sends the browser to the login form.
    page.goto(&format!("{}/", farm.base_url)).await;
    page.wait_for("location.pathname === '/login'", Duration::from_secs(5))
        .await;
    page.submit_form("form", &[("token", "not-a-token")]).await;
    page.wait_for(
        "document.getElementById('login-error') !== null",
        Duration::from_secs(5),
    )
    .await;
    page.submit_form("form", &[("token", &farm.admin_token)])
        .await;
    page.wait_for(
        "document.getElementById('runs') !== null",
        Duration::from_secs(5),
    )
    .await;

    // A wrong value shows an inline error on its field, and nothing is stored.
    page.goto(&format!("{}/jobs/new", farm.base_url)).await;
    page.submit_form(
        "#new-job",
        &[
            ("name", "bad job"),
            ("start_url", &site.example_url("vanillajs", "bad")),
            ("instruction", "open the fridge"),
        ],
    )
    .await;
    page.wait_for(
        "document.getElementById('error-instruction') !== null",
        Duration::from_secs(5),
    )
    .await;
    let msg = page
        .eval("document.getElementById('error-instruction').textContent")
        .await;
    assert!(msg.as_str().unwrap_or("").contains("line 1"), "{msg}");
    assert_eq!(
        page.eval("document.querySelector('textarea[name=instruction]').value")
            .await,
        json!("open the fridge"),
        "the form keeps what was typed"
    );
    page.shot("new-job-inline-error").await;
    let n: (i64,) = sqlx::query_as("select count(*) from jobs")
        .fetch_one(&farm.pool)
        .await
        .expect("count");
    assert_eq!(n.0, 0);

    // Create a real job from the form and watch its report finish live.
    let token = format!("dash-{}", farm.token);
    page.submit_form("#new-job", &[
        ("name", "todomvc from the dashboard"),
        ("start_url", &site.example_url("vanillajs", &token)),
        ("instruction", "type \"from the form\" into \"What needs to be done?\"\npress Enter\nwait 1s\nassert screen contains \"1 item left\""),
    ]).await;
    page.wait_for(
        "location.pathname.startsWith('/runs/')",
        Duration::from_secs(5),
    )
    .await;
    let first_status = page
        .eval("document.getElementById('run-status').textContent")
        .await;
    assert_ne!(
        first_status,
        json!("succeeded"),
        "the run cannot be done yet"
    );
    page.wait_for(
        "document.getElementById('run-status').textContent === 'succeeded'",
        Duration::from_secs(60),
    )
    .await;
    // The feed's key, read with its own small query, is the key of the run as the report
    // page loads it (else an open page would reload for ever).
    let run_id: uuid::Uuid = page
        .eval("location.pathname.split('/')[2]")
        .await
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("run id in the report's path");
    let (detail, _) = argus_coordinator::store::runs::detail(
        &farm.pool,
        run_id,
        &argus_coordinator::store::TeamScope::system(),
    )
    .await
    .expect("detail")
    .expect("run");
    let (_, fed) = argus_coordinator::store::runs::live_key(&farm.pool, run_id)
        .await
        .expect("live key")
        .expect("run");
    assert_eq!(fed, argus_coordinator::report::verdict::live_key(&detail));
    assert!(fed.starts_with("succeeded:"), "{fed}");
    assert_ne!(fed, "succeeded:0:0", "the run's actions are counted: {fed}");
    // The page may be reloading when its status first reads `succeeded` (the live feed's key
    // moved on once more): full runs under load saw 0 images there while the run's records
    // held all 10 keys. Wait for a settled page; say whether the keys or the page lacked them.
    page.wait_for(
        "document.readyState === 'complete' && document.querySelectorAll('img').length >= 10",
        Duration::from_secs(15),
    )
    .await;
    let keyed = detail
        .steps
        .iter()
        .flat_map(|s| s.actions.iter())
        .map(|a| usize::from(a.before_key.is_some()) + usize::from(a.after_key.is_some()))
        .sum::<usize>();
    assert_eq!(
        page.eval("document.querySelectorAll('img').length").await,
        json!(10),
        "open + 4 steps, before/after each; the run's records hold {keyed} screenshot keys; page: {}",
        page.eval("document.body.innerText.slice(0, 1500)").await
    );
    // Screenshots are `loading="lazy"`: ones below the fold load only when scrolled to, so
    // ask for them all before checking that every one decodes (a longer report — e.g. with
    // the perception line per action — used to leave the last ones unloaded).
    page.eval("document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; }); true")
        .await;
    page.wait_for(
        "Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)",
        Duration::from_secs(30),
    )
    .await;
    page.shot("report").await;
    let state = site.state(&token).expect("page probe");
    assert_eq!(state.items.len(), 1);
    assert_eq!(state.items[0].text, "from the form");

    page.goto(&format!("{}/", farm.base_url)).await;
    assert!(page
        .eval("document.getElementById('runs').innerText")
        .await
        .as_str()
        .unwrap_or("")
        .contains("todomvc from the dashboard"));
    page.shot("runs").await;
    page.goto(&format!("{}/devices", farm.base_url)).await;
    let devices = page
        .eval("document.getElementById('devices').innerText")
        .await;
    let devices = devices.as_str().unwrap_or("");
    // Idle, and its labels as `key=value` chips, not raw JSON.
    assert!(
        devices.contains("idle") && devices.contains("browser=chromium") && !devices.contains('{'),
        "{devices}"
    );
    page.shot("devices").await;

    // A schedule from the form: a bad cron is an inline error, a good one lists fire times.
    page.goto(&format!("{}/schedules", farm.base_url)).await;
    page.submit_form(
        "#new-schedule",
        &[
            ("name", "todo patrol"),
            ("cron", "every morning"),
            ("timezone", "Europe/Paris"),
            ("start_url", &site.example_url("vanillajs", "patrol")),
            ("instruction", "assert screen contains \"todos\""),
        ],
    )
    .await;
    page.wait_for(
        "document.getElementById('error-cron') !== null",
        Duration::from_secs(5),
    )
    .await;
    page.submit_form(
        "#new-schedule",
        &[
            ("name", "todo patrol"),
            ("cron", "0 9 * * 1-5"),
            ("timezone", "Europe/Paris"),
            ("start_url", &site.example_url("vanillajs", "patrol")),
            ("instruction", "assert screen contains \"todos\""),
        ],
    )
    .await;
    page.wait_for(
        "document.querySelectorAll('#schedules tr').length === 2",
        Duration::from_secs(5),
    )
    .await;
    let times = page
        .eval("document.querySelector('.next-fire').innerText")
        .await;
    let times: Vec<&str> = times
        .as_str()
        .unwrap_or("")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(times.len(), 3, "{times:?}");
    assert!(
        times.iter().all(|t| t.contains("09:00")),
        "09:00 Paris time: {times:?}"
    );
    page.shot("schedules").await;
}
