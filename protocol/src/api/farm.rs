//! Answers about the farm itself: liveness (`GET /healthz`), the registered device slots
//! (`GET /api/v1/devices`) and the run events the applier parked
//! (`GET /api/v1/dead-events`).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The answer to `GET /healthz`: `{"status": "ok"}` once the database answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Health {
    /// Always `ok` (a failed check answers the error envelope instead).
    pub status: String,
}

/// One registered device slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceSlot {
    /// The device.
    pub device_id: String,
    /// The worker that registered it.
    pub worker_id: String,
    /// `web`, `android`, …
    pub platform: String,
    /// Its labels, name → value (what selectors match).
    pub labels: BTreeMap<String, String>,
    /// Screen size `[width, height]`, px.
    pub screen_px: [i32; 2],
    /// Heard from within the device TTL.
    pub online: bool,
    /// Online and holding no run.
    pub free: bool,
    /// The run it holds.
    pub current_run_id: Option<Uuid>,
    /// Its worker's last heartbeat naming it.
    pub last_seen: DateTime<Utc>,
    /// Its health over its latest runs; a `quarantined` slot receives no runs.
    pub health: crate::api::DeviceHealth,
}

/// The answer to `GET /api/v1/devices`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceList {
    /// Every slot (or one worker's, with `?worker_id=`).
    pub devices: Vec<DeviceSlot>,
}

/// A run event the applier parked because the database kept rejecting it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeadEvent {
    /// Row id.
    pub id: i64,
    /// Its JetStream stream sequence.
    pub stream_seq: i64,
    /// The NATS subject it came on; `#<n>` added for the nth (from 0) event of a worker's
    /// grouped message (which comes on its first event's run subject, and whose whole
    /// payload is kept).
    pub subject: String,
    /// Its run, when the payload parsed.
    pub run_id: Option<Uuid>,
    /// Its attempt, when the payload parsed.
    pub attempt_id: Option<Uuid>,
    /// Its sequence number in the attempt, when the payload parsed.
    pub seq: Option<i64>,
    /// The published bytes as text (invalid UTF-8 replaced).
    pub payload: String,
    /// The database's last refusal.
    pub error: String,
    /// Deliveries before it was parked.
    pub deliveries: i32,
    /// When it was parked.
    pub parked_at: DateTime<Utc>,
}

/// The answer to `GET /api/v1/dead-events`, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeadEventList {
    /// The parked events.
    pub dead_events: Vec<DeadEvent>,
}
