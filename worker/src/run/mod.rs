//! The run engine's core, below the agent and the job runner: how an action ends
//! ([`outcome`]) and the one builder of its record ([`record`]).

pub(crate) mod outcome;
pub(crate) mod record;
