//! Pins the report, comparison and insights pages in real headless Chromium, on real runs of
//! one job against a page that changes between runs (the way an app changes between nightly
//! runs):
//! - the tap's target box and point are drawn over the before-screenshot where the button
//!   really is — the overlay's rendered box, measured in the browser, matches the recorded
//!   bbox scaled by the image's displayed size ÷ the screen's device px (DPR 2; the stored
//!   image is scaled to the worker's bound, so its natural size is smaller), and the
//!   button's known place on the page; a swipe draws its arrow;
//! - a failing run opens scrolled to its first failure, the steps that passed folded;
//! - its "compare with the previous run" link finds the first differing action (the tap
//!   whose target vanished) and shows both runs' screenshots side by side;
//! - the insights page plots pass rate over two days by suite, platform and device, lists
//!   the run that passed on retry as flaky and the slowest steps.
//!
//! Screenshots go to `$ARGUS_SHOTS_DIR` (default `target/dashboard-shots/`); the ones in
//! `docs/` come from here.

use std::time::Duration;

use argus_protocol::RunStatus;
use argus_tests::site::Site;
use argus_tests::{stored_size, Farm, FarmOptions};
use serde_json::{json, Value};

use super::dashboard::Page;

/// The shop page: an "Add" button 300 CSS px from the left edge that counts into "Cart: N",
/// and a long body to swipe through. `label` renames the button (the app "changed").
fn shop(label: &str) -> String {
    format!(
        r#"<!doctype html><html><head><title>Shop</title></head>
<body style="margin:0;font:20px sans-serif"><h1 style="margin:0;padding:20px">Shop</h1>
<p style="margin:0;padding:0 0 0 300px"><button id="b" style="font:inherit;padding:10px 30px">{label}</button>
<span id="n">Cart: 0</span></p><div style="height:3000px;background:linear-gradient(#fff,#cde)"></div><p>Footer</p>
<script>var n = 0; document.getElementById('b').onclick = function () {{
  n++; document.getElementById('n').textContent = 'Cart: ' + n; }};</script></body></html>"#
    )
}

/// Runs the suite `shop nightly` (one job) and returns its run id.
async fn nightly(farm: &Farm, url: &str) -> uuid::Uuid {
    let suite = json!({
        "name": "shop nightly",
        "jobs": [{"platform": "web", "name": "add to cart", "start_url": url,
                  "instruction": "tap \"Add\"\nwait for \"Cart: 1\"\nswipe up",
                  "retries": 1, "backoff_s": 6, "timeout_s": 90}],
    });
    let r = farm.post_json("/api/v1/suites", &suite).await;
    assert_eq!(r.status().as_u16(), 201);
    let v: Value = r.json().await.expect("json");
    v["jobs"][0]["run_id"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("run id")
}

/// The retry of `run`, once it exists.
async fn retry_of(farm: &Farm, run: uuid::Uuid) -> uuid::Uuid {
    for _ in 0..100 {
        let r: Option<(uuid::Uuid,)> = sqlx::query_as("select id from runs where retry_of = $1")
            .bind(run)
            .fetch_optional(&farm.pool)
            .await
            .expect("query");
        if let Some((id,)) = r {
            return id;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no retry of {run}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn report_overlays_first_failure_compare_and_insights_in_chromium() {
    let root = std::env::temp_dir().join(format!("argus-shop-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&root).expect("site root");
    // The site serves the TodoMVC examples too (it checks they are there).
    let todomvc = argus_tests::Services::from_env()
        .todomvc_dir
        .join("examples");
    std::os::unix::fs::symlink(todomvc, root.join("examples")).expect("link examples");
    let page_path = root.join("shop.html");
    std::fs::write(&page_path, shop("Add")).expect("write page");
    let site = Site::start(root.clone()).await;
    let mut opts = FarmOptions::default().allowing(&site.base_url);
    opts.dpr = 2.0;
    let farm = Farm::start(opts).await;
    let url = format!("{}/shop.html", site.base_url);

    // Night 1: the page as it was. Passes; dated two days back for the plots.
    let first = nightly(&farm, &url).await;
    let d1 = farm.wait_run(first, Duration::from_secs(90)).await;
    assert_eq!(d1.status, RunStatus::Succeeded, "{:?}", d1.error);
    super::exec(
        &farm.pool,
        &format!(
            "update runs set created_at = created_at - interval '2 days',
                started_at = started_at - interval '2 days', finished_at = finished_at - interval '2 days'
              where id = '{first}'"
        ),
    )
    .await;
    // Night 2: the button was renamed; the run fails at the tap. Its retry runs after the
    // page was put back (6 s backoff): passed on retry.
    std::fs::write(&page_path, shop("Buy")).expect("rewrite page");
    let second = nightly(&farm, &url).await;
    let d2 = farm.wait_run(second, Duration::from_secs(90)).await;
    std::fs::write(&page_path, shop("Add")).expect("restore page");
    assert_eq!(d2.status, RunStatus::Failed);
    let third = retry_of(&farm, second).await;
    let d3 = farm.wait_run(third, Duration::from_secs(90)).await;
    assert_eq!(d3.status, RunStatus::Succeeded, "{:?}", d3.error);

    // The geometry is on the record: the tap's box, point and screen, the swipe's line.
    let tap = d1.steps[1].actions[0].clone();
    assert_eq!(tap.kind, "tap");
    let bbox = tap.target.as_ref().expect("target").bbox_px;
    let point = tap.point_px.expect("tap point");
    assert_eq!(tap.screen_px, Some([2560, 1600]), "device px at DPR 2");
    assert!(
        (bbox[0] - 600.0).abs() < 2.0,
        "the button starts 300 CSS px from the left: {bbox:?}"
    );
    assert!(point[0] > bbox[0] && point[0] < bbox[0] + bbox[2] && point[1] > bbox[1]);
    let swipe = d1.steps[3].actions[0].clone();
    assert_eq!(swipe.kind, "swipe");
    let [x1, y1, x2, y2] = swipe.swipe_px.expect("swipe line");
    assert!(x1 == x2 && y1 > y2, "swipe up: {:?}", swipe.swipe_px);

    let page = Page::open(
        &farm.services.chromium,
        &farm.worker_dir.with_extension("viewer"),
    )
    .await;
    page.goto(&format!("{}/login", farm.base_url)).await;
    page.submit_form("form", &[("token", &farm.admin_token)])
        .await;
    page.wait_for(
        "document.getElementById('runs') !== null",
        Duration::from_secs(5),
    )
    .await;

    // The passing run: the overlay lies on the button, scaled by the displayed size.
    page.goto(&format!("{}/runs/{first}", farm.base_url)).await;
    assert_eq!(
        page.eval("document.querySelectorAll('#timeline a.c').length")
            .await,
        json!(4),
        "one timeline chip per action"
    );
    page.eval("document.getElementById('a-1-0').scrollIntoView(); true")
        .await;
    page.wait_for(
        "(() => { const i = document.querySelector('#a-1-0 .shot img'); return i.complete && i.naturalWidth > 0; })()",
        Duration::from_secs(10),
    )
    .await;
    let m = page
        .eval(
            "(() => { const a = document.getElementById('a-1-0');
              const i = a.querySelector('.shot img').getBoundingClientRect();
              const img = a.querySelector('.shot img');
              const r = a.querySelector('svg.ov rect').getBoundingClientRect();
              const c = a.querySelector('svg.ov circle.p').getBoundingClientRect();
              return [i.x, i.y, i.width, img.naturalWidth, img.naturalHeight, r.x, r.y, r.width, r.height,
                      c.x + c.width / 2, c.y + c.height / 2]; })()",
        )
        .await;
    let m: Vec<f64> = m
        .as_array()
        .expect("measures")
        .iter()
        .map(|v| v.as_f64().unwrap_or(f64::NAN))
        .collect();
    let (ix, iy, iw, nw, nh) = (m[0], m[1], m[2], m[3], m[4]);
    let (sw, sh) = stored_size(2560, 1600);
    assert_eq!(
        (nw, nh),
        (f64::from(sw), f64::from(sh)),
        "the screenshot is the device px screen, stored within the bound"
    );
    assert!(iw < nw, "shown smaller than its natural size: {iw}");
    // The overlay is in device px over the image, whatever size it is stored at.
    let k = iw / 2560.0;
    let near = |a: f64, b: f64| (a - b).abs() < 1.5;
    assert!(
        near(m[5], ix + bbox[0] * k)
            && near(m[6], iy + bbox[1] * k)
            && near(m[7], bbox[2] * k)
            && near(m[8], bbox[3] * k),
        "box drawn at {:?}, expected {bbox:?} × {k} from ({ix}, {iy})",
        &m[5..9]
    );
    assert!(near(m[9], ix + point[0] * k) && near(m[10], iy + point[1] * k));
    assert_eq!(
        page.eval(
            "document.querySelectorAll('#a-3-0 svg.ov line.s, #a-3-0 svg.ov polygon.s').length"
        )
        .await,
        json!(2),
        "the swipe's arrow"
    );
    page.eval("window.scrollTo(0, 0); true").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    page.shot("report").await;
    page.eval("document.getElementById('a-1-0').scrollIntoView(); true")
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    page.shot("report-overlay").await;
    page.eval("document.getElementById('a-3-0').scrollIntoView(); true")
        .await;
    page.wait_for(
        "(() => { const i = document.querySelector('#a-3-0 .shot img'); return i.complete && i.naturalWidth > 0; })()",
        Duration::from_secs(10),
    )
    .await;
    page.shot("report-swipe").await;

    // The failing run opens on its first failure: scrolled there, passed steps folded.
    page.goto(&format!("{}/runs/{second}", farm.base_url)).await;
    page.wait_for(
        "(() => { const r = document.getElementById('first-failure').getBoundingClientRect(); return window.scrollY > 0 && r.top >= 0 && r.top < innerHeight; })()",
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(
        page.eval(
            "[document.getElementById('step-0').open, document.getElementById('step-1').open]"
        )
        .await,
        json!([false, true])
    );
    assert_eq!(
        page.eval("document.getElementById('first-failure').closest('.act').id")
            .await,
        json!("a-1-0")
    );
    page.eval("document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; }); true")
        .await;
    page.wait_for(
        "Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)",
        Duration::from_secs(10),
    )
    .await;
    page.shot("report-failed").await;

    // Compare with the previous run: the tap is where they part.
    let href = page
        .eval("document.getElementById('compare-previous').getAttribute('href')")
        .await;
    assert_eq!(href, json!(format!("/runs/{first}/compare/{second}")));
    page.eval("document.getElementById('compare-previous').click(); true")
        .await;
    page.wait_for(
        "document.getElementById('verdict') !== null",
        Duration::from_secs(5),
    )
    .await;
    let verdict = page
        .eval("document.getElementById('verdict').innerText")
        .await;
    let verdict = verdict.as_str().unwrap_or("");
    assert!(
        verdict.contains("first difference at action 2 (step 2, tap \"Add\")")
            && verdict.contains("target button \"Add\" ≠ none")
            && verdict.contains("outcome ok ≠ failed"),
        "{verdict}"
    );
    page.eval("document.querySelectorAll('img').forEach(i => { i.loading = 'eager'; }); true")
        .await;
    page.wait_for(
        "document.querySelectorAll('#side-by-side img').length === 4 && Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)",
        Duration::from_secs(10),
    )
    .await;
    page.shot("compare").await;

    // Insights: two days of pass rate, the flaky run, the slowest steps.
    page.goto(&format!("{}/insights?days=7", farm.base_url))
        .await;
    for (plot, name) in [
        ("plot-suite", "shop nightly"),
        ("plot-platform", "web"),
        ("plot-device", ""),
    ] {
        let dots = page
            .eval(&format!(
                "document.querySelectorAll('#{plot} circle').length"
            ))
            .await;
        assert_eq!(dots, json!(2), "{plot}: one dot per day");
        let legend = page
            .eval(&format!(
                "document.getElementById('{plot}-legend').textContent"
            ))
            .await;
        let legend = legend.as_str().unwrap_or("");
        assert!(
            legend.contains(name) && legend.contains("2/3 · 67%"),
            "{plot}: {legend}"
        );
    }
    // Two days back: 100 % (1/1); today 50 % (1 of 2) — the dots sit at those heights.
    let ys = page
        .eval("Array.from(document.querySelectorAll('#plot-platform circle')).map(c => +c.getAttribute('cy'))")
        .await;
    let ys: Vec<f64> = serde_json::from_value(ys).expect("ys");
    assert!(ys[0] < ys[1], "100 % above 50 %: {ys:?}");
    let flaky = page
        .eval("document.getElementById('flaky').innerText")
        .await;
    assert!(
        flaky.as_str().unwrap_or("").contains("add to cart"),
        "{flaky}"
    );
    assert_eq!(
        page.eval("document.querySelector('#flaky a[href*=compare]').getAttribute('href')")
            .await,
        json!(format!("/runs/{second}/compare/{third}"))
    );
    let slow = page
        .eval("document.getElementById('slowest').innerText")
        .await;
    assert!(slow.as_str().unwrap_or("").contains("wait for"), "{slow}");
    page.shot("dashboard").await;
    let _ = std::fs::remove_dir_all(&root);
}
