//! Device health (issue 27): what `GET /api/v1/devices` says of each slot's health, the
//! admin's quarantine / release requests and answers, and the state changes the dashboard's
//! Devices page lists. The coordinator computes health over a sliding window of each
//! device's latest runs (`coordinator::store::health`); a quarantined device receives no
//! assignments until an admin releases it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A device's health state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum HealthState {
    /// Receives runs; nothing stands out in its window.
    Healthy,
    /// Receives runs, but its `device` failure rate is far above its class's.
    Suspect,
    /// Receives no runs (the claim skips it) until an admin releases it.
    Quarantined,
}

impl HealthState {
    /// The snake_case wire name, also what `device_health.state` stores.
    pub fn as_str(self) -> &'static str {
        match self {
            HealthState::Healthy => "healthy",
            HealthState::Suspect => "suspect",
            HealthState::Quarantined => "quarantined",
        }
    }

    /// Parses a wire name; `None` for anything else.
    pub fn parse(s: &str) -> Option<HealthState> {
        [
            HealthState::Healthy,
            HealthState::Suspect,
            HealthState::Quarantined,
        ]
        .into_iter()
        .find(|h| h.as_str() == s)
    }
}

/// The runs a device's health is computed over: its latest ended runs (at most the
/// window's size, 10; only those that ended after its last release).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HealthWindow {
    /// Ended runs in the window.
    pub runs: u32,
    /// Of those, runs with failure class `device`.
    pub device_failures: u32,
    /// Of those, runs with failure class `app` (never held against the device).
    pub app_failures: u32,
}

/// A device's health.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceHealth {
    /// Its state.
    pub state: HealthState,
    /// Why it is in that state (empty for a device never evaluated).
    pub reason: String,
    /// Since when; absent for a device whose health never changed (healthy since it
    /// registered).
    pub since: Option<DateTime<Utc>>,
    /// Its current window.
    pub window: HealthWindow,
}

impl DeviceHealth {
    /// The health of a device never evaluated: `healthy`, no reason, no `since`, an empty
    /// window.
    pub fn never_evaluated() -> DeviceHealth {
        DeviceHealth {
            state: HealthState::Healthy,
            reason: String::new(),
            since: None,
            window: HealthWindow::default(),
        }
    }
}

/// The body of `POST /api/v1/devices/{id}/quarantine` (required) and
/// `POST /api/v1/devices/{id}/release` (optional): why, for the record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HealthChange {
    /// Why; 1–500 characters, no control characters.
    pub reason: String,
}

/// The answer to `POST /api/v1/devices/{id}/quarantine` and `…/release`: the device's
/// health after the change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeviceHealthChanged {
    /// The device.
    pub device_id: String,
    /// Its health now.
    pub health: DeviceHealth,
}

/// One change of a device's health state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HealthEvent {
    /// The device.
    pub device_id: String,
    /// The state it left.
    pub from: HealthState,
    /// The state it entered.
    pub to: HealthState,
    /// Why.
    pub reason: String,
    /// Who: `health` (the automatic evaluation) or `admin:<token id>`.
    pub actor: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// The answer to `GET /api/v1/device-health-events`, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HealthEventList {
    /// The changes.
    pub events: Vec<HealthEvent>,
}
