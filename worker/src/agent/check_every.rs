//! `check every item` / `uncheck every item`: the planned step for "complete all", "tick off
//! everything", "把所有待办都标成已完成" — every checkbox or switch on the screen put into one
//! state, one at a time, by Argus (no model call).
//!
//! Why: asked to tick off every todo in one go, a small model planned `check "todos"` (the
//! list's heading) or tapped the counter, and a re-plan repeated it. Which toggles exist is
//! on the screen, so Argus walks them: observe, put the first toggle in the wrong state
//! right (a `set_checked` on that element; a disabled one is left alone), observe again — a
//! "toggle all" control that
//! ticks the rest leaves nothing more to do — until none is left. A set after which as many
//! toggles are left in the wrong state as before fails the step, naming the toggle.
//!
//! Scope: every toggle the observation lists (role checkbox or switch whose state is known),
//! not only a list's: a page with other checkboxes ("Remember me") gets them ticked too, so
//! the planner's help says "every item on the screen".

use argus_perception::{Element, Observation, Role, Tri};
use argus_protocol::{Action, Aim};

use super::state::AgentState;
use crate::run::exec::Exec;
use crate::run::outcome::StepFail;

/// The planned line that ticks every toggle.
pub const CHECK_EVERY: &str = "check every item";
/// The planned line that unticks every toggle.
pub const UNCHECK_EVERY: &str = "uncheck every item";
/// Most toggles one such step sets (a page that keeps adding toggles cannot hold the run).
pub const MAX_TOGGLES: usize = 50;

/// The state a planned line asks every toggle to be in, when it is one of these lines.
pub fn wanted(line: &str) -> Option<bool> {
    match line.trim() {
        CHECK_EVERY => Some(true),
        UNCHECK_EVERY => Some(false),
        _ => None,
    }
}

/// Whether `e` is a toggle whose known state is not `want`.
fn is_wrong(e: &Element, want: bool) -> bool {
    let wrong = if want { Tri::No } else { Tri::Yes };
    matches!(e.role, Role::Checkbox | Role::Switch) && e.checked == wrong && e.enabled != Tri::No
}

/// Whether `obs` shows any checkbox or switch at all.
pub fn any_toggle(obs: &Observation) -> bool {
    obs.elements
        .iter()
        .any(|e| matches!(e.role, Role::Checkbox | Role::Switch))
}

/// The first toggle of `obs` (reading order) not in state `want`: (id, name).
pub fn first_wrong(obs: &Observation, want: bool) -> Option<(String, String)> {
    obs.elements
        .iter()
        .find(|e| is_wrong(e, want))
        .map(|e| (e.id.clone(), e.name.clone()))
}

/// How many toggles of `obs` are not in state `want`.
pub fn wrong_count(obs: &Observation, want: bool) -> usize {
    obs.elements.iter().filter(|e| is_wrong(e, want)).count()
}

impl Exec<'_, AgentState> {
    /// Puts every toggle on the screen into state `want` (see the module docs); returns how
    /// many it set. Each set is an action of the run (its step budget counts it); `action`
    /// is the step's next action index, kept up to date (the model may take the step over).
    pub(crate) async fn check_every(
        &mut self,
        step: u32,
        want: bool,
        action: &mut u32,
    ) -> Result<usize, StepFail> {
        let shown = Action::SetChecked {
            target: Aim::Focused,
            checked: want,
        };
        let mut before: Option<(usize, String)> = None;
        for set in 0..MAX_TOGGLES {
            if self.st.actions_taken >= self.ctx.spec.max_steps {
                return Err(StepFail::Verdict(format!(
                    "the step budget is spent: max_steps = {} actions",
                    self.ctx.spec.max_steps
                )));
            }
            if self.ctx.cancel.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(StepFail::Cancelled);
            }
            let mut seen: Option<(usize, String)> = None;
            let stalled = before.clone();
            let mut stall: Option<String> = None;
            self.rec.line_source = Some(argus_protocol::ActionSource::Model);
            let picked = self
                .run_step_picked(step, *action, &shown, |obs| {
                    if set == 0 && !any_toggle(obs) {
                        stall = Some("no checkbox or switch on the screen".to_string());
                        return None;
                    }
                    let left = wrong_count(obs, want);
                    let (id, name) = first_wrong(obs, want)?;
                    if let Some((was, last)) = stalled {
                        if left >= was {
                            stall = Some(format!(
                                "setting the toggle {last:?} left {left} toggle(s) {} (as many as before)",
                                if want { "unticked" } else { "ticked" }
                            ));
                            return None;
                        }
                    }
                    seen = Some((left, name));
                    Some(Action::SetChecked {
                        target: Aim::Element {
                            observation: obs.serial,
                            id,
                        },
                        checked: want,
                    })
                })
                .await;
            self.rec.line_source = None;
            if let Some(why) = stall {
                return Err(StepFail::Verdict(why));
            }
            match picked? {
                Some(next) => *action = next,
                None => return Ok(set),
            }
            self.st.actions_taken += 1;
            before = seen;
        }
        Err(StepFail::Verdict(format!(
            "more than {MAX_TOGGLES} toggles to set: stopped"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_perception::{build, Node, Rect, Screen, Tree};

    fn obs(states: &[(Role, &str, Tri)]) -> Observation {
        let mut tree = Tree::default();
        tree.nodes.push(Node::new(Role::Other, "root", ""));
        tree.nodes[0].bounds = Some(Rect::new(0.0, 0.0, 500.0, 500.0));
        for (k, (role, name, checked)) in states.iter().enumerate() {
            let mut node = Node::new(*role, role.as_str(), name);
            node.bounds = Some(Rect::new(10.0, 10.0 + 40.0 * k as f64, 100.0, 30.0));
            node.parent = Some(0);
            node.checked = *checked;
            tree.nodes.push(node);
        }
        let screen = Screen {
            width: 500.0,
            height: 500.0,
            dpr: 1.0,
        };
        build(&tree, screen, 7)
    }

    #[test]
    fn the_first_toggle_in_the_wrong_state_is_next() {
        let o = obs(&[
            (Role::Checkbox, "Mark all as complete", Tri::Yes),
            (Role::Text, "a", Tri::Unknown),
            (Role::Checkbox, "b", Tri::No),
            (Role::Switch, "Dark", Tri::No),
        ]);
        let name = |x: Option<(String, String)>| x.map(|(_, n)| n);
        assert_eq!(name(first_wrong(&o, true)).as_deref(), Some("b"));
        assert_eq!(wrong_count(&o, true), 2);
        assert_eq!(
            name(first_wrong(&o, false)).as_deref(),
            Some("Mark all as complete")
        );
        let done = obs(&[
            (Role::Checkbox, "x", Tri::Yes),
            (Role::Button, "y", Tri::No),
        ]);
        assert_eq!(first_wrong(&done, true), None);
        assert_eq!(wanted(" check every item "), Some(true));
        assert_eq!(wanted(UNCHECK_EVERY), Some(false));
        assert_eq!(wanted("check \"every item\""), None);
    }
}
