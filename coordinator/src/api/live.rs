//! `GET /runs/{id}/live`: the SSE feed that keeps an open report current. It sends the run's
//! live key (`<status>:<actions>:<expectations>`, [`crate::report::verdict::live_key`]) at
//! once and again whenever it changes, and ends when the run ends; on a change the page
//! fetches itself and swaps its timeline in place (keeping the live screen of
//! [`super::live_screen`] playing), and reloads once the run has ended.
//!
//! Cost: every [`POLL`] one small indexed query ([`store::runs::live_key`]) — the feed used
//! to load the whole run (every action record) twice a second. A token holds at most
//! `ARGUS_MAX_STREAMS_PER_TOKEN` feeds at once ([`crate::auth::streams`]); the next one is
//! refused with a 429 envelope and `Retry-After`.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::runs::visible_detail;
use crate::auth::User;
use crate::error::ApiError;
use crate::store;
use crate::AppState;

/// How often the feed looks for a change.
const POLL: Duration = Duration::from_millis(500);

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/runs/{id}/live", get(live))
}

async fn live(
    State(st): State<AppState>,
    User(caller): User,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let first = visible_detail(&st, &caller, &id).await?;
    let permit = match st.streams.acquire(&caller) {
        Ok(p) => p,
        Err(refused) => return Ok(*refused),
    };
    let run_id = first.run_id;
    let stream = futures::stream::unfold(
        (st, None::<String>, false, permit),
        move |(st, last, done, permit)| async move {
            if done {
                return None;
            }
            loop {
                let (status, key) = store::runs::live_key(&st.pool, run_id)
                    .await
                    .ok()
                    .flatten()?;
                if last.as_deref() != Some(key.as_str()) {
                    let terminal = status.is_terminal();
                    let ev = Event::default().data(key.clone());
                    return Some((Ok::<_, Infallible>(ev), (st, Some(key), terminal, permit)));
                }
                tokio::time::sleep(POLL).await;
            }
        },
    );
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response())
}
