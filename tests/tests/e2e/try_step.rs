//! Pins issue 28 item 4, "try a step", on real services, two real web workers (Chromium)
//! and the TodoMVC page, through the dashboard's own form posts (a session cookie and its
//! CSRF token, as a browser sends them):
//!
//! - a team user tries `type "…" into "…"` on the *second* worker's device (the farm's own is
//!   idle too): the run goes there and only there (`runs.only_device`), and the page shows the
//!   resolved target and an after-screenshot that loads (200, `image/jpeg`);
//! - "Add to steps so far" gives the form with the line appended; a second try, on the farm's
//!   own device, runs there and replays it (the page's state has the todo the first line
//!   typed, and the run has both steps);
//! - "New job from these steps" opens the New job form prefilled with the start URL and both
//!   lines;
//! - refusals store nothing: no CSRF token 403; an unknown step-language verb 422 at the step
//!   field (a bad line among the steps so far: at that field); an unknown device 404, another
//!   team's user 404 (page and post); a busy, offline or quarantined device, or a team at its
//!   concurrency quota, 409 at the form;
//! - the claim alone: a try goes to its own device only, never to another free slot, and
//!   never while its device is quarantined.

use std::time::{Duration, Instant};

use argus_coordinator::auth::{self, session, Role};
use argus_tests::site::Site;
use argus_tests::{Farm, FarmOptions};
use serde_json::json;

use crate::dashboard_forms::count;

const TYPE_LINE: &str = r#"type "buy milk" into "What needs to be done?""#;

/// A dashboard session of a user of `team` (or an admin), sent by hand.
struct Dash {
    c: reqwest::Client,
    base: String,
    cookie: String,
    csrf: String,
}

impl Dash {
    async fn open(farm: &Farm, team: &str, role: Role) -> Dash {
        let token = auth::generate();
        let id = auth::create_token(&farm.pool, team, role, "try", &token)
            .await
            .expect("token");
        let s = session::create(&farm.pool, id).await.expect("session");
        Dash {
            c: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client"),
            base: farm.base_url.clone(),
            cookie: format!("{}={}", session::COOKIE, s.cookie),
            csrf: s.csrf,
        }
    }

    /// `(status, content type, body)` of a GET of `path`.
    async fn get(&self, path: &str) -> (u16, String, Vec<u8>) {
        let r = self
            .c
            .get(format!("{}{path}", self.base))
            .header("cookie", &self.cookie)
            .send()
            .await
            .expect("get");
        let ct = r
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        (
            r.status().as_u16(),
            ct,
            r.bytes().await.expect("body").to_vec(),
        )
    }

    async fn page(&self, path: &str) -> (u16, String) {
        let (s, _, b) = self.get(path).await;
        (s, String::from_utf8_lossy(&b).into_owned())
    }

    /// Posts the try form of `device`: `(status, Location, body)`.
    async fn try_step(
        &self,
        device: &str,
        fields: &[(&str, &str)],
        csrf: bool,
    ) -> (u16, String, String) {
        let mut pairs: Vec<(&str, &str)> = fields.to_vec();
        if csrf {
            pairs.push(("csrf", &self.csrf));
        }
        let r = self
            .c
            .post(format!("{}/devices/{device}/try", self.base))
            .header("cookie", &self.cookie)
            .header("origin", &self.base)
            .form(&pairs)
            .send()
            .await
            .expect("post");
        let loc = r
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        (r.status().as_u16(), loc, r.text().await.unwrap_or_default())
    }

    /// Follows a try's page until its run ended (no more self-refresh); returns the page.
    async fn ended(&self, path: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let (s, html) = self.page(path).await;
            assert_eq!(s, 200, "{html}");
            if !html.contains("http-equiv=\"refresh\"") {
                return html;
            }
            assert!(Instant::now() < deadline, "the try did not end: {html}");
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

/// HTML text back to what it says (named and numeric character references).
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find(';').filter(|e| *e <= 8);
        let decoded = end.and_then(|e| match &rest[1..e] {
            "amp" => Some('&'),
            "quot" => Some('"'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "apos" => Some('\''),
            n if n.starts_with("#x") || n.starts_with("#X") => u32::from_str_radix(&n[2..], 16)
                .ok()
                .and_then(char::from_u32),
            n if n.starts_with('#') => n[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        });
        match (decoded, end) {
            (Some(c), Some(e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The value of the attribute that follows `prefix` (`id="x" href="`) in `html`.
fn attr(html: &str, prefix: &str) -> String {
    let at = html
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix} in {html}"));
    let rest = &html[at + prefix.len()..];
    unescape(&rest[..rest.find('"').expect("closing quote")])
}

/// The run id of a try page's path (`/devices/d/try?run=<id>`).
fn run_of(location: &str) -> uuid::Uuid {
    location
        .split("run=")
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("no run in {location:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_try_runs_on_its_device_shows_its_target_and_becomes_a_job() {
    let site = Site::todomvc().await;
    let mut farm = Farm::start(FarmOptions::default().allowing(&site.base_url)).await;
    let worker_token = auth::generate();
    auth::create_token(&farm.pool, "qa", Role::Worker, "qa", &worker_token)
        .await
        .expect("worker token");
    let second = format!("{}-0", farm.start_worker("second", &worker_token).await);
    let qa = Dash::open(&farm, "qa", Role::User).await;

    let (s, html) = qa.page(&format!("/devices/{second}")).await;
    assert_eq!(s, 200);
    assert!(html.contains("id=\"device-try\""), "{html}");
    let (s, html) = qa.page(&format!("/devices/{second}/try")).await;
    assert!(s == 200 && html.contains("id=\"try-form\""), "{html}");

    // First try: one line on a fresh TodoMVC page.
    let url1 = site.app_url("try-one");
    let posted = Instant::now();
    let (s, loc, body) = qa
        .try_step(
            &second,
            &[("start_url", &url1), ("steps", ""), ("step", TYPE_LINE)],
            true,
        )
        .await;
    assert_eq!(s, 303, "{body}");
    let run1 = run_of(&loc);
    let html = qa.ended(&loc).await;
    println!(
        "try: {:.1} s from the post to the result shown (page polled every 0.5 s)",
        posted.elapsed().as_secs_f64()
    );
    let (device, only, status): (Option<String>, Option<String>, String) =
        sqlx::query_as("select device_id, only_device, status from runs where id = $1")
            .bind(run1)
            .fetch_one(&farm.pool)
            .await
            .expect("run");
    assert_eq!(device.as_deref(), Some(second.as_str()), "{html}");
    assert_eq!(only.as_deref(), Some(second.as_str()));
    assert_eq!(status, "succeeded", "{html}");
    let target = html
        .split("id=\"try-target\">")
        .nth(1)
        .and_then(|t| t.split("</p>").next())
        .unwrap_or_else(|| panic!("no resolved target shown: {html}"));
    assert!(target.contains("What needs to be done?"), "{target}");
    assert!(html.contains("id=\"try-disposition\">delivered"), "{html}");
    let src = attr(&html, "id=\"try-after\" class=\"shot\" src=\"");
    let (s, ct, bytes) = qa.get(&src).await;
    assert_eq!((s, ct.as_str()), (200, "image/jpeg"), "{src}");
    assert!(argus_tests::jpeg_size(&bytes).is_some());

    // "Add to steps so far", then a second try that replays the first line.
    let add = attr(&html, "id=\"try-add\" href=\"");
    let (s, form) = qa.page(&add).await;
    assert_eq!(s, 200);
    assert!(
        form.contains("buy milk") && form.contains("value=\"\" placeholder"),
        "{form}"
    );
    // This one on the farm's own device (serving every team): it must run there.
    let own = format!("{}-0", farm.worker_id);
    let url2 = site.app_url("try-two");
    let (s, loc, body) = qa
        .try_step(
            &own,
            &[
                ("start_url", &url2),
                ("steps", TYPE_LINE),
                ("step", "press Enter"),
            ],
            true,
        )
        .await;
    assert_eq!(s, 303, "{body}");
    let run2 = run_of(&loc);
    let html = qa.ended(&loc).await;
    let detail = farm.wait_run(run2, Duration::from_secs(10)).await;
    assert_eq!(detail.device_id.as_deref(), Some(own.as_str()));
    let texts: Vec<&str> = detail.steps.iter().map(|s| s.text.as_str()).collect();
    // the start page's `open`, the replayed line, the tried one
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert!(texts[0].starts_with("open "), "{texts:?}");
    assert_eq!(texts[1..], [TYPE_LINE, "press Enter"], "{html}");
    assert!(detail.steps.iter().all(|s| s.ok == Some(true)), "{html}");
    let items = site.state("try-two").map(|p| p.items).unwrap_or_default();
    assert_eq!(
        items.len(),
        1,
        "the replayed line typed the todo: {items:?}"
    );
    assert_eq!(items[0].text, "buy milk");

    // "New job from these steps": the New job form, prefilled.
    let new_job = attr(&html, "id=\"try-new-job\" href=\"");
    let (s, form) = qa.page(&new_job).await;
    assert_eq!(s, 200);
    let typed = unescape(&form);
    assert!(
        typed.contains(&format!("{TYPE_LINE}\npress Enter</textarea>"))
            && typed.contains(&format!("name=\"start_url\" size=\"80\" value=\"{url2}\"")),
        "{form}"
    );

    refusals(&farm, &qa, &second, run1).await;
}

/// Bad input and unavailable devices: the form's 4xx, nothing stored.
async fn refusals(farm: &Farm, qa: &Dash, second: &str, some_run: uuid::Uuid) {
    let jobs = count(farm, "select count(*) from jobs").await;
    let url = "http://127.0.0.1:9/";
    let ok = [("start_url", url), ("steps", ""), ("step", "tap \"x\"")];
    let (s, _, _) = qa.try_step(second, &ok, false).await;
    assert_eq!(s, 403, "no CSRF token");
    let bad = [
        ("start_url", url),
        ("steps", ""),
        ("step", "frobnicate \"x\""),
    ];
    let (s, _, html) = qa.try_step(second, &bad, true).await;
    assert!(s == 422 && html.contains("id=\"error-step\""), "{s} {html}");
    let bad = [
        ("start_url", url),
        ("steps", "frobnicate"),
        ("step", "tap \"x\""),
    ];
    let (s, _, html) = qa.try_step(second, &bad, true).await;
    assert!(
        s == 422 && html.contains("id=\"error-steps\""),
        "{s} {html}"
    );
    let (s, _, _) = qa.try_step("no-such-device", &ok, true).await;
    assert_eq!(s, 404);
    // another team's user: the device serves team qa only
    let other = Dash::open(farm, "team-x", Role::User).await;
    assert_eq!(other.page(&format!("/devices/{second}/try")).await.0, 404);
    assert_eq!(other.try_step(second, &ok, true).await.0, 404);
    // busy, offline, quarantined (a simulated device serving every team)
    for (dev, setup, why) in [
        ("try-busy", "update devices set current_run_id = $2 where id = $1", "busy"),
        ("try-off", "update devices set last_seen = now() - interval '1 hour' where id = $1 and $2::uuid is not null", "offline"),
        ("try-held", "insert into device_health (device_id, state, reason, actor) select $1, 'quarantined', 'test', 'health' where $2::uuid is not null", "quarantined"),
    ] {
        farm.register_sim_device(dev, "web", json!({}), 0).await;
        sqlx::query(setup)
            .bind(dev)
            .bind(some_run)
            .execute(&farm.pool)
            .await
            .expect("setup");
        let (s, _, html) = qa.try_step(dev, &ok, true).await;
        assert!(
            s == 409 && html.contains("id=\"error-form\"") && html.contains(why),
            "{dev}: {s} {html}"
        );
    }
    // a team at its concurrency quota (the addressed claim counts none): refused here
    farm.register_sim_device("try-quota", "web", json!({}), 0)
        .await;
    sqlx::query("update teams set max_concurrent = 0 where id = 'qa'")
        .execute(&farm.pool)
        .await
        .expect("quota");
    let (s, _, html) = qa.try_step("try-quota", &ok, true).await;
    assert!(s == 409 && html.contains("quota"), "{s} {html}");
    assert_eq!(count(farm, "select count(*) from jobs").await, jobs);
}

/// The claim alone (`argus_claim_batch`, no worker): a try goes to its own device only, and
/// not while that device is quarantined.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_claim_gives_a_try_to_its_device_only() {
    use argus_coordinator::store::claim::claim_batch;
    use argus_coordinator::store::jobs::{insert, JobMeta};
    let farm = crate::bare_farm().await;
    // heard from a minute ago: the farm's own dispatcher (15 s device TTL) leaves them alone
    farm.register_sim_device("sim-a", "web", json!({}), 60)
        .await;
    farm.register_sim_device("sim-b", "web", json!({}), 60)
        .await;
    sqlx::query(
        "insert into device_health (device_id, state, reason, actor)
         values ('sim-b', 'quarantined', 'test', 'health')",
    )
    .execute(&farm.pool)
    .await
    .expect("quarantine");
    let spec: argus_protocol::JobSpec =
        serde_json::from_value(json!({"platform": "web", "instruction": "wait 1ms"}))
            .expect("spec");
    let meta = JobMeta {
        team_id: "default".into(),
        only_device: Some("sim-b".into()),
        ..Default::default()
    };
    let (_, tried) = insert(&farm.pool, &spec, &meta).await.expect("try");
    // sim-b is quarantined: the try waits; the free sim-a does not take it
    let c = claim_batch(&farm.pool, 600, 30, 10).await.expect("claim");
    assert!(c.is_empty(), "{c:?}");
    sqlx::query("delete from device_health where device_id = 'sim-b'")
        .execute(&farm.pool)
        .await
        .expect("release");
    let c: Vec<(uuid::Uuid, String)> = claim_batch(&farm.pool, 600, 30, 10)
        .await
        .expect("claim")
        .into_iter()
        .map(|c| (c.run_id, c.device_id))
        .collect();
    assert_eq!(c, [(tried, "sim-b".to_string())]);
}
