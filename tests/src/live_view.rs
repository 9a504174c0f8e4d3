//! A viewer of the live screen (`GET /runs/{id}/screen`) for the e2e tests and the live
//! bench: reads the server-sent events off the wire and decodes each `frame` (base64 JPEG +
//! [`FrameMeta`]), stamping when it arrived.

use argus_protocol::live::FrameMeta;
use base64::Engine;

/// One frame as a viewer received it.
#[derive(Debug, Clone)]
pub struct Viewed {
    /// When it arrived, ms since the Unix epoch (this machine's clock).
    pub received_at_ms: i64,
    /// The JPEG.
    pub jpeg: Vec<u8>,
    /// Step, target, capture time.
    pub meta: FrameMeta,
    /// Bytes of the event on the wire (base64 and JSON included).
    pub wire_bytes: usize,
}

/// What the stream said next.
#[derive(Debug, Clone)]
pub enum Seen {
    /// A frame.
    Frame(Box<Viewed>),
    /// The run ended.
    End,
    /// The run's screen is not streamed, and why.
    Off(String),
}

/// An open live-screen stream.
pub struct Viewer {
    resp: reqwest::Response,
    buf: Vec<u8>,
}

impl Viewer {
    /// Opens the stream of `run` at `base_url` with `client`; `Err(status)` when refused.
    pub async fn open(
        client: &reqwest::Client,
        base_url: &str,
        run: uuid::Uuid,
    ) -> Result<Viewer, u16> {
        let resp = client
            .get(format!("{base_url}/runs/{run}/screen"))
            .send()
            .await
            .map_err(|_| 0u16)?;
        if !resp.status().is_success() {
            return Err(resp.status().as_u16());
        }
        Ok(Viewer {
            resp,
            buf: Vec::new(),
        })
    }

    /// The next frame or end; `None` once the stream closed.
    pub async fn next(&mut self) -> Option<Seen> {
        loop {
            if let Some(at) = find(&self.buf, b"\n\n") {
                let block: Vec<u8> = self.buf.drain(..at + 2).collect();
                if let Some(seen) = parse(&block) {
                    return Some(seen);
                }
                continue;
            }
            let chunk = self.resp.chunk().await.ok()??;
            self.buf.extend_from_slice(&chunk);
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// One SSE block (`event:` / `data:` lines); `None` for keep-alives and unknown events.
fn parse(block: &[u8]) -> Option<Seen> {
    let text = std::str::from_utf8(block).ok()?;
    let mut event = "message";
    let mut data = String::new();
    for line in text.lines() {
        if let Some(e) = line.strip_prefix("event:") {
            event = e.trim();
        } else if let Some(d) = line.strip_prefix("data:") {
            data.push_str(d.strip_prefix(' ').unwrap_or(d));
        }
    }
    match event {
        "end" => Some(Seen::End),
        "off" => Some(Seen::Off(data)),
        "frame" => {
            let v: serde_json::Value = serde_json::from_str(&data).ok()?;
            let jpeg = base64::engine::general_purpose::STANDARD
                .decode(v["jpeg"].as_str()?)
                .ok()?;
            let meta: FrameMeta = serde_json::from_value(v["meta"].clone()).ok()?;
            Some(Seen::Frame(Box::new(Viewed {
                received_at_ms: chrono::Utc::now().timestamp_millis(),
                jpeg,
                meta,
                wire_bytes: block.len(),
            })))
        }
        _ => None,
    }
}

/// The page the live screen's test and bench watch: it never stops changing (a counter and
/// a moving box redrawn every 40 ms) and has a `Go` button to aim at.
const CLOCK_HTML: &str =
    "<!doctype html><title>clock</title><button>Go</button><h1 id=c>tick 0</h1>\
    <div id=b style='width:40px;height:40px;background:red;position:relative'></div>\
    <script>var n=0;setInterval(function(){n++;\
    document.getElementById('c').textContent='tick '+n;\
    document.getElementById('b').style.left=(n%300)+'px'},40)</script>";

/// Serves [`CLOCK_HTML`] on a loopback port (until the runtime ends); returns the page's URL
/// (its origin is what a farm must allow).
pub async fn clock_site() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the clock page");
    let addr = listener.local_addr().expect("addr");
    let app = axum::Router::new().route(
        "/clock",
        axum::routing::get(|| async { axum::response::Html(CLOCK_HTML) }),
    );
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/clock")
}

/// A script of `tap "Go"` and then `waits` steps of `wait 1s`.
pub fn slow_script(waits: usize) -> String {
    let mut s = String::from("tap \"Go\"");
    for _ in 0..waits {
        s.push_str("\nwait 1s");
    }
    s
}
