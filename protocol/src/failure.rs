//! Who is to blame for a run that ended `failed` or `errored`: its [`FailureClass`].
//!
//! The worker decides the class where it knows (a step's check or target on a healthy
//! device → `app`; the driver, browser or device broke → `device`; the event bus, the
//! artifact store or the model endpoint → `infra`) and reports it in `run_finished`
//! ([`crate::EventBody::RunFinished`]). [`failure_class`] is the one rule both folds (the
//! coordinator's SQL effects and [`crate::RunDetail::apply`]) use to fill it in for workers
//! that report none. Device health (quarantine) counts `device` failures only.

use serde::{Deserialize, Serialize};

use crate::events::RunStatus;

/// Who is to blame for a failed or errored run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum FailureClass {
    /// A step's check or target failed on an otherwise healthy device: the app is broken.
    App,
    /// The driver, the browser or the device broke (disconnect, crash, lost slot, a screen
    /// that cannot be observed), or the worker driving it vanished mid-run.
    Device,
    /// Argus's own services failed: coordinator, NATS, artifact storage, model endpoint.
    Infra,
}

impl FailureClass {
    /// The snake_case wire name (`app`, `device`, `infra`), also what `runs.failure_class`
    /// stores.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::App => "app",
            FailureClass::Device => "device",
            FailureClass::Infra => "infra",
        }
    }

    /// Parses a wire name; `None` for anything else.
    pub fn parse(s: &str) -> Option<FailureClass> {
        [FailureClass::App, FailureClass::Device, FailureClass::Infra]
            .into_iter()
            .find(|c| c.as_str() == s)
    }
}

/// The class a run that ended with `status` is stored with: `None` for every status but
/// `failed`, `errored` and `lost` (timeouts and cancels keep their own statuses); for
/// `failed` / `errored` the class the worker reported, or for a worker that reported none,
/// `app` for `failed` and `infra` for `errored`; `lost` (the reaper's: the worker stopped
/// heartbeating mid-run) is always `device` — the host driving the device vanished, while
/// the coordinator and the database were up (an outage of theirs starts the reaper's grace
/// instead, `coordinator::store::reaper`).
pub fn failure_class(status: RunStatus, reported: Option<FailureClass>) -> Option<FailureClass> {
    match status {
        RunStatus::Failed => Some(reported.unwrap_or(FailureClass::App)),
        RunStatus::Errored => Some(reported.unwrap_or(FailureClass::Infra)),
        RunStatus::Lost => Some(FailureClass::Device),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_only_failures_are_classed() {
        for c in [FailureClass::App, FailureClass::Device, FailureClass::Infra] {
            assert_eq!(FailureClass::parse(c.as_str()), Some(c));
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.as_str()));
        }
        assert_eq!(FailureClass::parse("App"), None);
        assert_eq!(
            failure_class(RunStatus::Failed, None),
            Some(FailureClass::App)
        );
        assert_eq!(
            failure_class(RunStatus::Errored, Some(FailureClass::Device)),
            Some(FailureClass::Device)
        );
        assert_eq!(
            failure_class(RunStatus::Errored, None),
            Some(FailureClass::Infra)
        );
        assert_eq!(
            failure_class(RunStatus::Lost, None),
            Some(FailureClass::Device)
        );
        for s in [
            RunStatus::TimedOut,
            RunStatus::Cancelled,
            RunStatus::Succeeded,
        ] {
            assert_eq!(failure_class(s, Some(FailureClass::Device)), None);
        }
    }
}
