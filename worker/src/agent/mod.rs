//! The agent loop for `llm` / `vlm` jobs and `ai:` script lines: **planner** (job text →
//! ordered steps, structured output) → **executor** (per step: observe → exactly one tool
//! call → actionability checks → act → observe) → **reflector** (A progressed / B wrong page
//! / C no change, by tree diff). Two consecutive B/C outcomes escalate to a re-plan that
//! carries the failed attempts in its prompt; a per-step action budget, the job's
//! `max_steps` and `timeout_s` end the run.
//!
//! - `crate::model`: the OpenAI-compatible chat-completions client (JSON-schema structured
//!   output with a strict parse and a bounded format retry, token and latency accounting).
//! - the tool set and the strict parser of a reply come from `argus_protocol::tool`, generated
//!   from the one `Action` definition.
//! - [`reflect`]: the before/after classifier.
//! - `crate::secrets`: `${secret.NAME}` resolution on the worker and redaction of every
//!   outgoing string; `secrets::mask` blanks password fields in uploaded screenshots.
//! - `crate::run::popups`: the reviewable popup policy run between steps.
//! - [`state`]: what the agent keeps across a run; [`expect`]: the run's expectations.
//! - [`run`]: the loop itself, on the executor's device, store and event emitter.
//! - `replay` / `learn`: learned replay — a stored script replayed before any model call,
//!   and the script a successful run leaves for the next one (`argus_protocol::replay`).
//!
//! Delivery rule: only an action whose failure is `not_delivered` is repeated automatically;
//! anything that may have landed goes back through observe → reflect → ask the model.

pub mod check_every;
pub mod cjk;
pub mod clause_map;
pub mod clause_plan;
pub mod clauses;
pub mod conditions;
pub mod count_items;
pub mod done_report;
pub mod effects;
pub(crate) mod expect;
pub mod focus;
pub mod form_compose;
mod form_cue;
pub mod form_derive;
pub mod form_fill;
pub mod form_swap;
pub mod judge;
pub(crate) mod learn;
pub mod order_idioms;
pub(crate) mod order_kind;
pub mod plan;
pub mod plan_cover;
pub mod plan_fix;
pub mod plan_ids;
pub mod plan_step;
pub mod plan_typed;
pub mod plan_verbs;
pub mod positions;
pub mod presses;
pub mod prompts;
pub mod reflect;
pub(crate) mod replay;
pub mod run;
pub(crate) mod state;
pub mod step_done;
pub(crate) mod turn;
mod typed_tail;
mod typed_value;
mod typed_whole;
mod verb_particles;

/// A screen of `items` (role, name) stacked 40 px apart under one root, as the perception
/// stage builds it: the unit tests' fixture for plan and verdict rules.
#[cfg(test)]
pub(crate) fn test_screen(
    items: &[(argus_perception::Role, &str)],
) -> argus_perception::Observation {
    use argus_perception::{build, Node, Rect, Role, Screen, Tree};
    let mut tree = Tree::default();
    let mut root = Node::new(Role::Other, "", "");
    root.bounds = Some(Rect::new(0.0, 0.0, 400.0, 400.0));
    root.children = (1..=items.len()).collect();
    tree.nodes.push(root);
    for (k, (role, name)) in items.iter().enumerate() {
        let mut n = Node::new(*role, role.as_str(), name);
        n.bounds = Some(Rect::new(10.0, 40.0 * k as f64 + 10.0, 120.0, 24.0));
        n.parent = Some(0);
        tree.nodes.push(n);
    }
    let screen = Screen {
        width: 400.0,
        height: 400.0,
        dpr: 1.0,
    };
    build(&tree, screen, 1)
}
