//! `GET /runs/{id}/screen`: the live screen of a running run, as server-sent events. Each
//! `frame` event is JSON `{"jpeg": <base64>, "meta": <FrameMeta>}`
//! ([`argus_protocol::live::FrameMeta`]: capture time, step, target box, screen size); an
//! `end` event says the run has ended (then the stream closes); an `off` event says why the
//! run's screen is not streamed at all ([`argus_protocol::live::withheld`]: the job uses
//! secrets) and the stream closes.
//!
//! While the stream is open its relay task renews the run's watch lease once a second
//! (`<prefix>.live.watch.<worker>.<run>`, core NATS) — the worker holding the run streams
//! only while some viewer renews it — and relays the frames of exactly that worker's subject
//! (`<prefix>.live.frame.<worker>.<run>`). When the viewer leaves, the response stream is
//! dropped, which aborts the relay; the worker stops at most one lease later.
//!
//! Bounds per viewer: one frame buffered (a viewer that reads slower than frames come gets
//! the newest and skips the rest), so at most the worker's 5 frames/s × 512 KiB
//! ([`argus_protocol::live::MAX_FRAME_BYTES`]) + a third for base64 ≈ 3.4 MB/s, typically
//! 5 × 20–120 KiB. The stream counts against the token's open streams
//! ([`crate::auth::streams`]) and answers 404 for a run the caller's team cannot see (the
//! same check as the run's page).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use argus_protocol::live::decode;
use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use base64::Engine;
use futures::StreamExt;
use tokio::sync::watch;
use uuid::Uuid;

use super::runs::visible_detail;
use crate::auth::User;
use crate::error::ApiError;
use crate::store;
use crate::AppState;

/// How often the relay renews the watch lease and looks at the run's status.
const RENEW: Duration = Duration::from_secs(1);

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/runs/{id}/screen", get(screen))
}

/// What the relay hands the viewer's stream: the newest frame only.
#[derive(Clone)]
enum Relay {
    /// Nothing yet.
    Waiting,
    /// A frame's event data (JSON), ready to send.
    Frame(Arc<String>),
    /// The run ended.
    Ended,
    /// The run's screen is not streamed (why).
    Off(&'static str),
}

/// Aborts the relay when the viewer's stream is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn screen(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let run = visible_detail(&st, &caller, &id).await?;
    let permit = match st.streams.acquire(&caller) {
        Ok(p) => p,
        Err(refused) => return Ok(*refused),
    };
    let (tx, rx) = watch::channel(Relay::Waiting);
    let relay = match argus_protocol::live::withheld(&run.spec) {
        // Said once; the stream then ends (the relay is gone).
        Some(why) => {
            tx.send_replace(Relay::Off(why));
            AbortOnDrop(tokio::spawn(async move { drop(tx) }))
        }
        None => AbortOnDrop(tokio::spawn(relay(st, run.run_id, tx))),
    };
    let stream = futures::stream::unfold(
        (rx, relay, permit, false),
        |(mut rx, relay, permit, done)| async move {
            if done {
                return None;
            }
            loop {
                // The relay is gone (it ended, or could not go on): so is the stream.
                rx.changed().await.ok()?;
                let ev = match rx.borrow_and_update().clone() {
                    Relay::Waiting => continue,
                    Relay::Frame(data) => (Event::default().event("frame").data(&*data), false),
                    Relay::Ended => (Event::default().event("end").data("ended"), true),
                    Relay::Off(why) => (Event::default().event("off").data(why), true),
                };
                return Some((Ok::<_, Infallible>(ev.0), (rx, relay, permit, ev.1)));
            }
        },
    );
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// A frame message as the event's JSON; `None` when it is not a frame.
fn frame_event(payload: &[u8]) -> Option<Arc<String>> {
    let (meta, jpeg) = decode(payload)?;
    let jpeg = base64::engine::general_purpose::STANDARD.encode(jpeg);
    let v = serde_json::json!({ "jpeg": jpeg, "meta": meta });
    Some(Arc::new(v.to_string()))
}

/// Renews the watch lease and relays the holding worker's frames into `tx` until the run
/// ends or the viewer leaves.
async fn relay(st: AppState, run_id: Uuid, tx: watch::Sender<Relay>) {
    let nats = st.js.client();
    let mut tick = tokio::time::interval(RENEW);
    let mut sub: Option<(String, async_nats::Subscriber)> = None;
    loop {
        let next = async {
            match sub.as_mut() {
                Some((_, s)) => s.next().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = tx.closed() => return,
            m = next => match m {
                Some(m) => if let Some(data) = frame_event(&m.payload) {
                    tx.send_replace(Relay::Frame(data));
                },
                None => sub = None,
            },
            _ = tick.tick() => {
                let worker = match store::runs::holder(&st.pool, run_id).await {
                    Ok(Some((status, _))) if status.is_terminal() => {
                        tx.send_replace(Relay::Ended);
                        return;
                    }
                    Ok(Some((_, w))) => w,
                    Ok(None) => return,
                    Err(e) => {
                        tracing::warn!(%run_id, error = %e, "live screen: cannot read the run");
                        None
                    }
                };
                if let Some(w) = worker {
                    renew(&st, &nats, run_id, &w, &mut sub).await;
                }
            }
        }
    }
}

/// Subscribes to worker `w`'s frames of the run (once per worker the run is on), then
/// renews the watch lease.
async fn renew(
    st: &AppState,
    nats: &async_nats::Client,
    run_id: Uuid,
    w: &str,
    sub: &mut Option<(String, async_nats::Subscriber)>,
) {
    if sub.as_ref().map(|(held, _)| held.as_str()) != Some(w) {
        match nats.subscribe(st.subjects.live_frame(w, &run_id)).await {
            Ok(s) => *sub = Some((w.to_string(), s)),
            Err(e) => {
                tracing::warn!(%run_id, error = %e, "live screen: cannot subscribe");
                return;
            }
        }
    }
    if let Err(e) = nats
        .publish(st.subjects.live_watch(w, &run_id), "watch".into())
        .await
    {
        tracing::warn!(%run_id, error = %e, "live screen: cannot renew the watch");
    }
}
