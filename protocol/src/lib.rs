//! Argus wire contract shared by the coordinator and the worker.
//!
//! Everything here is plain data plus pure functions: the job spec and its validation
//! ([`job`]), the script step language ([`script`]), the run events a worker streams back
//! ([`events`]), the assignment and heartbeat messages ([`assignment`]), the NATS subject and
//! stream names ([`subjects`]), the live screen's frames ([`live`]), the API error envelope ([`error`]), the API bodies clients read
//! back ([`api`]) and the run detail that both the coordinator and the local runner render
//! reports from ([`run_view`]), and the one shape of everything done on a device ([`action`])
//! with the model's tool set generated from it ([`tool`]). No I/O lives here.

pub mod action;
pub mod api;
pub mod assignment;
pub mod assignment_group;
pub mod error;
pub mod events;
pub mod expect;
pub mod failure;
pub mod job;
pub mod key;
pub mod live;
pub mod nav;
pub mod platform;
pub mod replay;
pub mod run_view;
pub mod script;
pub mod selector;
pub mod subjects;
pub mod target;
pub mod tool;

pub use action::{Action, ActionKind, Aim, Direction};
pub use api::{
    JobCreated, MissedTicks, ScheduleSpec, SuiteCreated, SuiteJobCreated, SuiteSpec, SuiteVerdict,
};
pub use assignment::{Assignment, DeviceInfo, Heartbeat, HeartbeatReply, LeaseRef};
pub use error::{ErrorCode, ErrorEnvelope};
pub use events::failure_class;
pub use events::{
    ActionRecord, ActionSource, ActionTimings, Disposition, EventBody, ModelUsage, PerceptionNote,
    ReflectClass, Reflection, RetryAdvice, RunEvent, RunStatus, TargetedElement,
};
pub use expect::{Expectation, ExpectationSource, Verdict};
pub use failure::FailureClass;
pub use job::{secret_refs, Cache, CoordSpace, JobSpec, Mode, ModelOverride, Selector, SpecError};
pub use key::Key;
pub use platform::Platform;
pub use run_view::{ActionView, RunDetail, StepView};
pub use script::{Script, ScriptError, Step};
pub use target::{Relation, Target};
