//! Pins that the worker's host policy fails closed where it cannot decide (issue 24, item 5),
//! in real Chromium driven the way a run drives it (a `WebDevice` slot on a launched
//! `Browser`). The policy's look-up is injected and Chromium's own is steered with
//! `--host-resolver-rules`, so the two answer differently, the way a rebinding DNS name
//! would; the servers count what reached them.
//!
//! - A name that resolved to the allowed app for Argus but to a private server for Chromium
//!   (rebinding): the page is the app's, and the private server saw nothing — the browser
//!   connects to the address Argus checked.
//! - A name Argus cannot resolve is refused (`open` fails as a policy refusal), though
//!   Chromium's look-up would reach a private server; that server saw nothing.
//! - A page whose policing cannot be armed (Chromium refusing the `Fetch` domain, injected) is
//!   never run: the slot's `begin` fails naming why, and the private server saw nothing.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use argus_worker::device::web::browser::{Browser, LaunchOptions};
use argus_worker::device::web::lookup::Resolver;
use argus_worker::device::web::policy::{parse_rules, HostPolicy};
use argus_worker::device::web::{Viewport, WebDevice};
use argus_worker::device::System;
use axum::response::Html;
use axum::routing::any;
use axum::Router;

/// A server on `ip:port` (0: any) whose every page names `name` and which counts requests.
async fn counting(ip: [u8; 4], port: u16, name: &'static str) -> (SocketAddr, Arc<AtomicU64>) {
    let hits = Arc::new(AtomicU64::new(0));
    let h = hits.clone();
    let page = format!(
        "<title>{name}</title><p>{name}</p>\
         <script>fetch('http://127.0.0.2:{port}/from-page', {{mode: 'no-cors'}})</script>"
    );
    let listener = tokio::net::TcpListener::bind(SocketAddr::from((ip, port)))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let page = page.replace(&format!(":{port}/"), &format!(":{}/", addr.port()));
    let app = Router::new().fallback(any(move || {
        let h = h.clone();
        let page = page.clone();
        async move {
            h.fetch_add(1, Ordering::SeqCst);
            Html(page)
        }
    }));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (addr, hits)
}

/// The app on 127.0.0.1:P and the private server on 127.0.0.2:P (same port, so only the
/// address tells them apart).
async fn app_and_private() -> (SocketAddr, Arc<AtomicU64>, Arc<AtomicU64>) {
    loop {
        let (app, app_hits) = counting([127, 0, 0, 1], 0, "app").await;
        let ok = tokio::net::TcpListener::bind(("127.0.0.2", app.port()))
            .await
            .is_ok();
        if ok {
            let (_, private_hits) = counting([127, 0, 0, 2], app.port(), "private").await;
            return (app, app_hits, private_hits);
        }
    }
}

/// Argus's resolver: `rebind.test` is the app's address, `flaky.test` fails to resolve.
fn resolver() -> Resolver {
    Resolver::custom(|host, _port| {
        Box::pin(async move {
            match host.as_str() {
                "rebind.test" => Ok(vec![IpAddr::V4(Ipv4Addr::LOCALHOST)]),
                _ => Err(std::io::Error::other("SERVFAIL (injected)")),
            }
        })
    })
}

async fn launch(dir: &str, app: SocketAddr, arm_fault: Option<&str>) -> Arc<Browser> {
    let chromium = std::env::var("ARGUS_CHROMIUM").unwrap_or("/usr/lib/chromium/chromium".into());
    let dir = std::env::temp_dir().join(format!("{dir}-{}", uuid::Uuid::new_v4().simple()));
    let policy =
        HostPolicy::new(parse_rules(&app.to_string()).expect("rule")).with_resolver(resolver());
    let opts = LaunchOptions {
        extra_args: vec![
            "--host-resolver-rules=MAP rebind.test 127.0.0.2, MAP flaky.test 127.0.0.2".into(),
        ],
        arm_fault: arm_fault.map(String::from),
        ..Default::default()
    };
    Arc::new(
        Browser::launch_with(chromium.as_ref(), &dir, policy, opts)
            .await
            .expect("chromium"),
    )
}

fn device(browser: &Arc<Browser>) -> WebDevice {
    let vp = Viewport {
        width: 800,
        height: 600,
        dpr: 1.0,
    };
    WebDevice::new(browser.clone(), vp)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn rebinding_and_failed_lookups_never_reach_a_private_address() {
    let (app, app_hits, private_hits) = app_and_private().await;
    let browser = launch("argus-rebind", app, None).await;
    let mut dev = device(&browser);
    dev.begin().await.expect("begin");

    // Argus resolved rebind.test to the allowed app; Chromium would resolve 127.0.0.2.
    let rebind = dev
        .open(&format!("http://rebind.test:{}/page", app.port()))
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after_rebind = private_hits.load(Ordering::SeqCst);
    let app_served = app_hits.load(Ordering::SeqCst);
    // Argus cannot resolve flaky.test; Chromium would resolve 127.0.0.2.
    let flaky = dev
        .open(&format!("http://flaky.test:{}/page", app.port()))
        .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let after_flaky = private_hits.load(Ordering::SeqCst) - after_rebind;
    eprintln!(
        "rebind.test: open {rebind:?}, app hits {app_served}, private hits {after_rebind}\n\
         flaky.test: open {flaky:?}, private hits {after_flaky}"
    );
    assert_eq!(
        after_rebind, 0,
        "a rebinding name reached the private server"
    );
    assert!(rebind.is_ok(), "{rebind:?}");
    assert!(app_served >= 1, "the app served the page");
    assert_eq!(
        after_flaky, 0,
        "a name Argus could not resolve reached the private server"
    );
    let e = flaky
        .expect_err("a name that does not resolve is refused")
        .to_string();
    assert!(
        e.contains("navigation policy") && e.contains("could not be resolved"),
        "{e}"
    );
    dev.end().await.expect("end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_page_that_cannot_be_policed_never_runs() {
    let (app, _app_hits, private_hits) = app_and_private().await;
    let browser = launch("argus-armfault", app, Some("page")).await;
    let before = pages(&browser).await;
    let mut dev = device(&browser);
    let begun = dev.begin().await;
    if begun.is_ok() {
        // Unpoliced: the app's page fetches the private server.
        let res = dev.open(&format!("http://{app}/page")).await;
        eprintln!("begin ok, open {res:?}");
        tokio::time::sleep(Duration::from_millis(1000)).await;
    }
    eprintln!(
        "begin {:?}, private hits {}",
        begun.as_ref().err().map(|e| e.to_string()),
        private_hits.load(Ordering::SeqCst)
    );
    assert_eq!(
        private_hits.load(Ordering::SeqCst),
        0,
        "an unpoliced page reached the private server"
    );
    let e = begun
        .expect_err("a page whose policing cannot be armed is refused")
        .to_string();
    assert!(e.contains("could not be armed"), "{e}");
    // Every page that could not be armed (the run's, and the browser's first) is gone from
    // Chromium's own target list.
    assert!(before <= 1, "{before}");
    // Chromium drops a closed target from its list a moment later (on a loaded machine the
    // first look still saw one).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut left = pages(&browser).await;
    while left > 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        left = pages(&browser).await;
    }
    assert_eq!(left, 0, "the refused pages were closed");
}

async fn pages(browser: &Browser) -> usize {
    let targets = browser
        .cdp
        .call(None, "Target.getTargets", serde_json::json!({}))
        .await
        .expect("targets");
    targets["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "page")
        .count()
}
