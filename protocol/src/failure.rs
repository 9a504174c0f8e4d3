//! Who is to blame for a run that ended `failed` or `errored`: its [`FailureClass`].
//!
//! The worker decides the class where it knows (a step's check or target on a healthy
//! device → `app`; the driver, browser or device broke → `device`; the event bus, the
//! artifact store or the model endpoint → `infra`) and reports it in `run_finished`
//! ([`crate::EventBody::RunFinished`]). [`failure_class`] is the one rule both folds (the
//! coordinator's SQL effects and [`crate::RunDetail::apply`]) use to fill it in for workers
//! that report none. Device health (quarantine) counts `device` failures only.

use serde::{Deserialize, Serialize};

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
    }
}
