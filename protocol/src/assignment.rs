//! Messages between the coordinator and a worker besides run events: the assignment a
//! worker receives over JetStream, and the heartbeat it posts over HTTP to register its
//! devices and extend its leases.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::job::JobSpec;
use crate::platform::Platform;

/// A claimed run handed to one worker for one of its devices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assignment {
    /// The run to execute.
    pub run_id: Uuid,
    /// Fencing token of this claim; every event must carry it.
    pub attempt_id: Uuid,
    /// The job the run belongs to.
    pub job_id: Uuid,
    /// The team that submitted the job: the worker resolves only this team's secrets. An
    /// assignment without one (an older coordinator) resolves none.
    #[serde(default)]
    pub team: String,
    /// Which of the worker's devices runs it.
    pub device_id: String,
    /// The job as submitted.
    pub spec: JobSpec,
    /// The lease ends here unless heartbeats extend it.
    pub lease_expires_at: DateTime<Utc>,
    /// The stored script of the job's replay key (see [`crate::replay`]), when the job
    /// reads the cache and its team has one: the worker replays it before asking any model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
}

/// A device a worker offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceInfo {
    /// Stable id, unique in the farm (e.g. `<worker>/chromium-0`).
    pub device_id: String,
    /// What kind of device.
    pub platform: Platform,
    /// Labels matched by job selectors (`browser=chromium`, `os=android`, …).
    pub labels: BTreeMap<String, String>,
    /// Screen or viewport width in device px.
    pub screen_w_px: u32,
    /// Screen or viewport height in device px.
    pub screen_h_px: u32,
}

/// A run a worker is holding, named with its fencing token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LeaseRef {
    /// The run.
    pub run_id: Uuid,
    /// Its attempt.
    pub attempt_id: Uuid,
}

/// `POST /api/v1/workers/heartbeat` body: registers (or refreshes) the worker and its
/// devices, and extends the leases of the runs it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Heartbeat {
    /// Stable worker id (also its NATS assignment subject token: `[A-Za-z0-9_-]`).
    pub worker_id: String,
    /// Host name, for people.
    pub hostname: String,
    /// Devices it offers.
    pub devices: Vec<DeviceInfo>,
    /// Runs it is executing now.
    pub running: Vec<LeaseRef>,
    /// It reads an assignment message that carries several assignments (a JSON array, the
    /// protocol crate's `assignment_group`); the coordinator groups only the runs of a
    /// worker that says so. A worker older than groups sends none (false) and gets one
    /// assignment a message.
    #[serde(default)]
    pub reads_assignment_groups: bool,
}

/// The coordinator's answer to a heartbeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HeartbeatReply {
    /// How long a lease lasts from now, s. Heartbeat well within it.
    pub lease_s: u64,
    /// Leases the worker no longer holds (reaped or reassigned): stop those runs.
    pub fenced: Vec<LeaseRef>,
    /// Runs a person cancelled: stop at the next action boundary, tear down, report
    /// `cancelled`.
    #[serde(default)]
    pub cancel: Vec<LeaseRef>,
}
