//! `POST /api/v1/workers/heartbeat`: registration, device slots and lease extension.

use argus_protocol::subjects::is_valid_worker_id;
use argus_protocol::{ErrorCode, ErrorEnvelope, Heartbeat, HeartbeatReply};
use axum::extract::State;
use axum::routing::post;
use axum::{Extension, Json, Router};

use crate::auth::Caller;
use crate::error::ApiError;
use crate::store;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/api/v1/workers/heartbeat", post(heartbeat))
}

async fn heartbeat(
    State(st): State<AppState>,
    Extension(caller): Extension<Caller>,
    Json(hb): Json<Heartbeat>,
) -> Result<Json<HeartbeatReply>, ApiError> {
    if caller.role == "user" {
        return Err(ApiError::Client(ErrorEnvelope::new(
            ErrorCode::Unauthorized,
            "this token may not register workers",
            "give the worker a token made with `argus token create --role worker`",
        )));
    }
    if !is_valid_worker_id(&hb.worker_id) {
        return Err(ApiError::Client(
            ErrorEnvelope::new(
                ErrorCode::InvalidField,
                format!("worker_id {:?} is not valid", hb.worker_id),
                "use 1–64 chars of letters, digits, `_` or `-`",
            )
            .with_field("worker_id"),
        ));
    }
    let had_free = hb.running.len() < hb.devices.len();
    let (fenced, cancel) = store::workers::heartbeat(&st.pool, &hb, st.cfg.lease_s).await?;
    if had_free {
        st.wake.notify_one();
    }
    Ok(Json(HeartbeatReply {
        lease_s: st.cfg.lease_s,
        fenced,
        cancel,
    }))
}
