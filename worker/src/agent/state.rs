//! [`AgentState`]: what the agent keeps across one run — its model client, the action
//! budget, the replay it was handed, the script it learns, and the run's expectations
//! (the agent adds the ones it maps on the screen and reports them; the verdict reads
//! them all).

use argus_protocol::{Action, EventBody, Expectation};

use super::expect::{quick_holds, Expected};
use super::learn::Learned;
use crate::model::ModelClient;
use crate::run::exec::Exec;
use crate::run::outcome::StepFail;

/// The agent's side of a run (the engine's is `crate::run::exec::Exec`'s context).
#[derive(Default)]
pub(crate) struct AgentState {
    /// The job's model client, made on first use.
    pub(crate) model: Option<ModelClient>,
    /// Actions taken so far (counted against `max_steps` in model modes).
    pub(crate) actions_taken: u32,
    /// The stored script still to replay (taken by the first model task).
    pub(crate) replay: Option<String>,
    /// What the replay did before it handed over, for the planner.
    pub(crate) replay_note: Option<String>,
    /// The script this run leaves for the next (when its job writes the cache).
    pub(crate) learned: Learned,
    /// The run's expectations (see [`super::expect`]).
    pub(crate) expected: Vec<Expected>,
    /// Checkable clauses of the instruction nobody has turned into a check yet.
    pub(crate) unmapped: Vec<String>,
    /// Descriptions naming an item the read plan leaves as it was (clause, item): they cap
    /// the verdict at `unverified` (see `agent::clause_plan::Read::unsure`).
    pub(crate) unsure: Vec<(String, String)>,
    /// Free steps of the read plan the model could not carry out, skipped so the reader's
    /// own steps after them still run: they cap the verdict at `unverified`.
    pub(crate) skipped: Vec<String>,
    /// Whether the plan being carried out is the one read from the instruction's clauses
    /// (not a model's plan or re-plan).
    pub(crate) read_plan: bool,
    /// The model's last claim that the job (or its last step) is done.
    pub(crate) claim: Option<String>,
    /// Check steps the planner added that did not hold (`plan[i]: why`): they cap the
    /// verdict at `unverified` (see `crate::verdict`).
    pub(crate) planner_checks_failed: Vec<String>,
    /// How many expectations the last `expectations` event carried.
    pub(crate) expectations_sent: usize,
    /// Texts this run's delivered typings entered (a re-plan does not type them again).
    pub(crate) typed: Vec<String>,
    /// Whether the last plan's shaping dropped an acting step (see `agent::run`).
    pub(crate) plan_dropped_acting: bool,
}

impl AgentState {
    /// The state of a run that has done nothing yet: `expected` / `unmapped` as
    /// [`super::expect::initial`] found them, `replay` the stored script to replay first.
    pub(crate) fn new(
        expected: Vec<Expected>,
        unmapped: Vec<String>,
        replay: Option<String>,
    ) -> AgentState {
        AgentState {
            expected,
            unmapped,
            replay,
            ..Default::default()
        }
    }
}

impl Exec<'_, AgentState> {
    /// Adds expectations not already in the run's list (by line).
    pub(crate) fn add_expected(&mut self, found: Vec<Expected>) {
        for e in found {
            if !self.st.expected.iter().any(|x| x.exp.line == e.exp.line) {
                self.st.expected.push(e);
            }
        }
    }

    /// Reports the run's expectations (again, when the planner added some: the later list
    /// replaces the earlier).
    pub(crate) async fn send_expectations(&mut self) -> Result<(), StepFail> {
        let items: Vec<Expectation> = self.st.expected.iter().map(|e| e.exp.clone()).collect();
        if items.is_empty() || self.st.expectations_sent == items.len() {
            return Ok(());
        }
        self.st.expectations_sent = items.len();
        self.rec
            .em
            .emit(EventBody::Expectations { items })
            .await
            .map_err(StepFail::Infra)
    }

    /// Whether a natural-language run whose step got stuck may stop instead of re-planning:
    /// it has expectations, nothing left unmapped, every expectation is a text check that
    /// was false on the screen the first plan saw and holds on a fresh observation, neither
    /// the step done before (`last`, "" for none) nor the stuck step (`rest[0]`) types text
    /// or is a free step (a typed but unsubmitted field can make a text check true early),
    /// and no acting step is left after the stuck one (what is left of the job is the job's).
    pub(crate) async fn expectations_hold_now(&mut self, last: &str, rest: &[String]) -> bool {
        let types = |s: &str| {
            matches!(
                crate::agent::plan_fix::as_script_line(s),
                Some(Action::Type { .. }) | None
            )
        };
        let acts = |s: &String| {
            crate::agent::plan_fix::as_script_line(s).is_none_or(|a| !a.kind().checks())
        };
        if self.st.expected.is_empty()
            || !self.st.unmapped.is_empty()
            || (!last.is_empty() && types(last))
            || rest.first().is_some_and(|s| types(s))
            || rest.iter().skip(1).any(acts)
        {
            return false;
        }
        // Every expectation must have been false on the screen the run started on: one
        // that held before any action says nothing about what the run did.
        let Some(start) = self.ctx.start_obs.as_ref() else {
            return false;
        };
        if !self
            .st
            .expected
            .iter()
            .all(|e| quick_holds(&e.check, start) == Some(false))
        {
            return false;
        }
        let Ok(obs) = self.ctx.observe().await else {
            return false;
        };
        self.st
            .expected
            .iter()
            .all(|e| quick_holds(&e.check, &obs) == Some(true))
    }
}
