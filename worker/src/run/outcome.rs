//! How an action and a step end: [`Outcome`] (what one action did, its failure typed by
//! [`FailClass`]) and [`StepFail`] (why a step stopped), plus the small shared helpers of
//! the run engine ([`ms`], [`cancelled`], [`targeted`]).
//!
//! The failure class decides the run's status and its reported
//! [`argus_protocol::FailureClass`]: a [`FailClass::Verdict`] failure (the app did not do
//! what the job expects) ends the run `failed` (`app`); a [`FailClass::Device`] one (the
//! driver, browser or device broke: the screen cannot be observed, the session cannot be
//! prepared) ends it `errored` (`device`); a step that fails on Argus's services (the event
//! bus, storage, the model endpoint: [`StepFail::Infra`]) ends it `errored` (`infra`). An action the
//! device refused with an [`ActError`] stays a `Verdict` failure: its kinds (not supported,
//! refused by policy, a failed input on an element) do not tell a broken device from an
//! element the app took away; a device that really broke fails the next observation.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use argus_perception::{Element, Source};
use argus_protocol::{Disposition, FailureClass, RunStatus, TargetedElement};

use crate::device::{ActError, ActErrorKind};

/// Who is to blame for a failed action or step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailClass {
    /// The app did not do what the job expects: the run fails.
    Verdict,
    /// The device, its driver or its browser broke (observation failed): the run errors.
    /// (Argus's services fail whole steps, never one action: [`StepFail::Infra`].)
    Device,
}

/// A failed action: its class and the message for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    /// Who is to blame.
    pub(crate) class: FailClass,
    /// What failed and the candidates seen; never a secret value.
    pub(crate) message: String,
}

/// How a step went wrong.
#[derive(Debug)]
pub(crate) enum StepFail {
    /// The app did not do what the job expects: the run fails.
    Verdict(String),
    /// The device broke (cannot be observed or prepared): the run errors.
    Device(String),
    /// Argus's services could not do their part: the run errors.
    Infra(String),
    /// The run was cancelled (seen at an action boundary or during a model call).
    Cancelled,
}

impl StepFail {
    /// The message for a person.
    pub(crate) fn message(&self) -> String {
        match self {
            StepFail::Verdict(m) | StepFail::Device(m) | StepFail::Infra(m) => m.clone(),
            StepFail::Cancelled => "cancelled".into(),
        }
    }

    /// The same failure with `where_` in front of its message.
    pub(crate) fn context(self, where_: &str) -> StepFail {
        match self {
            StepFail::Verdict(m) => StepFail::Verdict(format!("{where_}: {m}")),
            StepFail::Device(m) => StepFail::Device(format!("{where_}: {m}")),
            StepFail::Infra(m) => StepFail::Infra(format!("{where_}: {m}")),
            StepFail::Cancelled => StepFail::Cancelled,
        }
    }

    /// The run status and failure class this failure ends a run with: `failed` / `app` for
    /// a verdict, `errored` / `device` or `infra` for Argus's side, `cancelled` / none.
    pub(crate) fn ends_run(&self) -> (RunStatus, Option<FailureClass>) {
        match self {
            StepFail::Verdict(_) => (RunStatus::Failed, Some(FailureClass::App)),
            StepFail::Device(_) => (RunStatus::Errored, Some(FailureClass::Device)),
            StepFail::Infra(_) => (RunStatus::Errored, Some(FailureClass::Infra)),
            StepFail::Cancelled => (RunStatus::Cancelled, None),
        }
    }
}

impl From<Failure> for StepFail {
    fn from(f: Failure) -> StepFail {
        match f.class {
            FailClass::Verdict => StepFail::Verdict(f.message),
            FailClass::Device => StepFail::Device(f.message),
        }
    }
}

/// What one action did: its description and target, whether its input reached the device,
/// and its result (`Err` carries the failure's class and message).
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The element acted on, if any.
    pub(crate) target: Option<TargetedElement>,
    /// Whether the input reached the device.
    pub(crate) disposition: Disposition,
    /// The kind of device error the action met (`None`: none, or Argus refused it first —
    /// stale, unresolved target).
    pub(crate) device_error: Option<ActErrorKind>,
    /// Human description (`tap "Save"`), later with what was seen appended.
    pub(crate) detail: String,
    /// Did the action do what it was asked?
    pub(crate) result: Result<(), Failure>,
}

impl Outcome {
    /// An action described by `detail` that has not failed (nothing delivered yet).
    pub(crate) fn new(detail: String) -> Outcome {
        Outcome {
            target: None,
            disposition: Disposition::NotDelivered,
            device_error: None,
            detail,
            result: Ok(()),
        }
    }

    /// The same action failed on the app's side (the run fails).
    pub(crate) fn fail(self, msg: String) -> Outcome {
        self.failed(FailClass::Verdict, msg)
    }

    /// The same action failed because the device broke: its screen could not be observed
    /// (the run errors, `device`).
    pub(crate) fn fail_device(self, msg: String) -> Outcome {
        self.failed(FailClass::Device, msg)
    }

    fn failed(mut self, class: FailClass, message: String) -> Outcome {
        self.result = Err(Failure { class, message });
        self
    }

    /// The same action failed with the device's error (its disposition and kind kept).
    pub(crate) fn act_error(mut self, e: ActError) -> Outcome {
        self.disposition = e.disposition;
        self.device_error = Some(e.kind);
        self.fail(e.message)
    }

    /// Whether the action did what it was asked.
    pub(crate) fn ok(&self) -> bool {
        self.result.is_ok()
    }

    /// Whether it failed on Argus's side (device or infrastructure).
    pub(crate) fn infra(&self) -> bool {
        matches!(&self.result, Err(f) if f.class != FailClass::Verdict)
    }

    /// The step failure of an action that failed on Argus's side (device or
    /// infrastructure), its class kept; `None` when it did not fail so.
    pub(crate) fn argus_failure(&self) -> Option<StepFail> {
        match &self.result {
            Err(f) if f.class != FailClass::Verdict => Some(StepFail::from(f.clone())),
            _ => None,
        }
    }

    /// Why it failed, for a person (`None` when it did not).
    pub(crate) fn error(&self) -> Option<String> {
        self.result.as_ref().err().map(|f| f.message.clone())
    }
}

/// Automatic repeats of an input that failed `not_delivered`.
pub(crate) const NOT_DELIVERED_RETRIES: u32 = 2;

/// Milliseconds since `since`.
pub(crate) fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Resolves when `flag` is set (polled every 50 ms): race it against a long call.
pub(crate) async fn cancelled(flag: &AtomicBool) {
    while !flag.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The record's view of the element an action went to.
pub(crate) fn targeted(e: &Element) -> TargetedElement {
    TargetedElement {
        id: e.id.clone(),
        role: e.role.as_str().to_string(),
        name: e.labels().next().unwrap_or_default().to_string(),
        bbox_px: e.bbox_px.to_array(),
        source: Some(
            match e.source {
                Source::Tree => "tree",
                Source::Ocr => "ocr",
                Source::Vision => "vision",
            }
            .to_string(),
        ),
        confidence: e.confidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_failure_ends_the_run_with_its_status_and_class() {
        let ends = |f: StepFail| f.ends_run();
        assert_eq!(
            ends(StepFail::Verdict("no Save".into())),
            (RunStatus::Failed, Some(FailureClass::App))
        );
        assert_eq!(
            ends(StepFail::Device("cannot observe the screen".into())),
            (RunStatus::Errored, Some(FailureClass::Device))
        );
        assert_eq!(
            ends(StepFail::Infra("NATS down".into())),
            (RunStatus::Errored, Some(FailureClass::Infra))
        );
        assert_eq!(ends(StepFail::Cancelled), (RunStatus::Cancelled, None));
        let out = Outcome::new("tap".into()).fail_device("gone".into());
        assert!(out.infra());
        assert!(matches!(out.argus_failure(), Some(StepFail::Device(m)) if m == "gone"));
        assert!(Outcome::new("tap".into())
            .fail("no Save".into())
            .argus_failure()
            .is_none());
    }
}
