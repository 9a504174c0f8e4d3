//! [`Exec`]: one run on one device — its context ([`RunCtx`]: device, perception, store,
//! settings, job), its recorder ([`Recorder`]: steps and action records) and the state of
//! whatever drives it (`S`: the agent's, for a job runner). The act path (`act`, `aim`,
//! `effect`) works on the context alone; the popup policy (`popups`) and one step as one
//! action (`step`) work on the whole `Exec`.

use super::ctx::RunCtx;
use super::recorder::Recorder;

/// One run: its context, its recorder and its driver's state `S`.
pub(crate) struct Exec<'a, S> {
    /// Device, perception, store, settings and job.
    pub(crate) ctx: RunCtx<'a>,
    /// Steps and records.
    pub(crate) rec: Recorder,
    /// The driver's state (the agent's, see `crate::agent::state`).
    pub(crate) st: S,
}
