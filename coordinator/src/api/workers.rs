//! `POST /api/v1/workers/heartbeat`: registration, device slots and lease extension.
//!
//! A worker id and each device id belong to the token that first registered them
//! (`identity_owners`): a heartbeat from another token naming them is refused (403) and
//! logged, so one worker's credentials cannot take over another's devices or leases.
//! Revoking a token frees its identities.
//!
//! Worker and admin tokens only ([`WorkerAuth`]). The teams a worker's slots serve come
//! from its token ([`crate::auth::Caller::served_team`]): a worker
//! token serves its own team, a shared-pool worker token and an admin token every team.
//! Nothing in the heartbeat's body can widen that.

use argus_protocol::subjects::is_valid_worker_id;
use argus_protocol::{ErrorCode, ErrorEnvelope, Heartbeat, HeartbeatReply};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};

use crate::auth::WorkerAuth;
use crate::error::ApiError;
use crate::store;
use crate::AppState;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/api/v1/workers/heartbeat", post(heartbeat))
}

/// Registers a worker and its devices and extends the leases of the runs it holds.
#[utoipa::path(
    post,
    path = "/api/v1/workers/heartbeat",
    operation_id = "worker_heartbeat",
    summary = "Worker registration and lease extension (worker/admin tokens)",
    request_body = Heartbeat,
    responses((
        status = 200,
        description = "the lease length and the runs to stop (fenced or cancelled)",
        body = HeartbeatReply
    ))
)]
pub(super) async fn heartbeat(
    State(st): State<AppState>,
    WorkerAuth(caller): WorkerAuth,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<HeartbeatReply>, ApiError> {
    let body = super::envelope::read_body(body, st.cfg.max_body_bytes, "list fewer devices")?;
    let hb: Heartbeat = super::parse_body(
        &body,
        "fields: worker_id, hostname, devices (device_id, platform, labels, screen_w_px, \
         screen_h_px), running (run_id, attempt_id)",
    )?;
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
    super::hygiene::check_text("hostname", &hb.hostname, &[])?;
    for (i, d) in hb.devices.iter().enumerate() {
        super::hygiene::check_text(&format!("devices[{i}].device_id"), &d.device_id, &[])?;
        for (k, v) in &d.labels {
            super::hygiene::check_text(&format!("devices[{i}].labels"), k, &[])?;
            super::hygiene::check_text(&format!("devices[{i}].labels.{k}"), v, &[])?;
        }
    }
    if let Some(token_id) = caller.token_id {
        let device_ids: Vec<&str> = hb.devices.iter().map(|d| d.device_id.as_str()).collect();
        let taken =
            store::identities::claim(&st.pool, token_id, &hb.worker_id, &device_ids).await?;
        if !taken.is_empty() {
            tracing::warn!(
                worker_id = %hb.worker_id,
                %token_id,
                taken = ?taken,
                "heartbeat refused: worker or device registered by another token"
            );
            return Err(ApiError::Client(ErrorEnvelope::new(
                ErrorCode::Forbidden,
                format!("{} belong(s) to another worker identity", taken.join(", ")),
                "give each worker its own ids; to move them to a new token, revoke the \
                 old token first (`argus token revoke`)",
            )));
        }
    }
    let had_free = hb.running.len() < hb.devices.len();
    let (fenced, cancel) = store::workers::heartbeat(
        &st.pool,
        &hb,
        st.cfg.lease_s,
        caller.served_team(),
        store::workers::refresh_s(st.cfg.device_ttl_s),
    )
    .await?;
    if had_free {
        st.wake.notify_one();
    }
    Ok(Json(HeartbeatReply {
        lease_s: st.cfg.lease_s,
        fenced,
        cancel,
    }))
}
