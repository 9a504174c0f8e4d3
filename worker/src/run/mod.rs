//! The run engine's core, below the agent and the job runner. Bottom up:
//!
//! - [`outcome`]: how an action ends (`Outcome`, its failure typed by `FailClass`) and why a
//!   step stopped (`StepFail`); [`record`]: `RecordKind` and the one action-record builder.
//! - [`ctx`]: `RunCtx` — device, perception stage, screenshot store, settings and secrets,
//!   the job; observing and screenshotting. [`recorder`]: `Recorder` — step numbering and
//!   the run's events, which [`events`] numbers, redacts and publishes (JetStream, or
//!   memory for `argus run`).
//! - [`exec`]: `Exec`, one run = context + recorder + its driver's state.
//! - [`aim`] (wait until the target is actionable), [`effect`] (a tap is ok only with a
//!   visible effect), [`act`] (the one act path of an `Action`), [`popups`] (the popup
//!   policy run before a step), [`step`] (one step as one recorded action).
//!
//! Nothing here imports the agent, the verdict or the job runner: they drive it.

pub mod act;
pub mod aim;
pub(crate) mod ctx;
pub mod effect;
pub mod event_groups;
pub mod events;
pub(crate) mod exec;
pub(crate) mod outcome;
pub mod popups;
pub(crate) mod record;
pub(crate) mod recorder;
pub(crate) mod step;
