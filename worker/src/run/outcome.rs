//! How an action and a step end: [`Outcome`] (what one action did, its failure typed by
//! [`FailClass`]) and [`StepFail`] (why a step stopped), plus the small shared helpers of
//! the run engine ([`ms`], [`cancelled`], [`targeted`]).
//!
//! The failure class decides the run's status: a [`FailClass::Verdict`] failure (the app did
//! not do what the job expects) ends the run `failed`, a [`FailClass::Infra`] one (Argus
//! could not do its part) ends it `errored`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use argus_perception::{Element, Source};
use argus_protocol::{Disposition, TargetedElement};

use crate::device::{ActError, ActErrorKind};

/// Who is to blame for a failed action or step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FailClass {
    /// The app did not do what the job expects: the run fails.
    Verdict,
    /// Argus could not do its part (device, observation, storage): the run errors.
    Infra,
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
    /// Argus could not do its part: the run errors.
    Infra(String),
    /// The run was cancelled (seen at an action boundary or during a model call).
    Cancelled,
}

impl StepFail {
    /// The message for a person.
    pub(crate) fn message(&self) -> String {
        match self {
            StepFail::Verdict(m) | StepFail::Infra(m) => m.clone(),
            StepFail::Cancelled => "cancelled".into(),
        }
    }

    /// The same failure with `where_` in front of its message.
    pub(crate) fn context(self, where_: &str) -> StepFail {
        match self {
            StepFail::Verdict(m) => StepFail::Verdict(format!("{where_}: {m}")),
            StepFail::Infra(m) => StepFail::Infra(format!("{where_}: {m}")),
            StepFail::Cancelled => StepFail::Cancelled,
        }
    }
}

impl From<Failure> for StepFail {
    fn from(f: Failure) -> StepFail {
        match f.class {
            FailClass::Verdict => StepFail::Verdict(f.message),
            FailClass::Infra => StepFail::Infra(f.message),
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

    /// The same action failed on Argus's side (the run errors).
    pub(crate) fn fail_infra(self, msg: String) -> Outcome {
        self.failed(FailClass::Infra, msg)
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

    /// Whether it failed on Argus's side.
    pub(crate) fn infra(&self) -> bool {
        matches!(&self.result, Err(f) if f.class == FailClass::Infra)
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
