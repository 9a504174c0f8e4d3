//! The run's expectations: the job's, and the checkable clauses and named effects of a
//! natural-language instruction, each with its parsed check ([`Expected`]); found before
//! the run ([`initial`]) and by the planner on the screen, reported as an `expectations`
//! event (`super::state`), and asked early when a stuck run may stop. The verdict on them
//! is `crate::verdict`'s.

use argus_perception::Observation;
use argus_protocol::{Action, Expectation, ExpectationSource, Mode};

/// One expectation of the run with its check.
#[derive(Debug, Clone)]
pub(crate) struct Expected {
    /// As reported.
    pub(crate) exp: Expectation,
    /// Its parsed check.
    pub(crate) check: Action,
}

/// The distinct element texts of `obs` (labels of three or more characters, trimmed): what
/// "the same app is still on the screen" is judged by.
pub(crate) fn screen_texts(obs: &Observation) -> Vec<String> {
    let mut out: Vec<String> = obs
        .elements
        .iter()
        .flat_map(|e| e.labels().map(|l| l.trim().to_string()).collect::<Vec<_>>())
        .filter(|l| l.chars().count() >= 3)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The run's expectations known before it starts: the job's, then (in `llm` / `vlm` mode)
/// the instruction's checkable clauses whose words say what to check. Returns them and the
/// clauses only the planner can map (it sees the screen).
pub(crate) fn initial(spec: &argus_protocol::JobSpec) -> (Vec<Expected>, Vec<String>) {
    let mut out: Vec<Expected> = spec
        .expectation_checks()
        .unwrap_or_default()
        .into_iter()
        .map(|(line, check)| Expected {
            exp: Expectation {
                line,
                source: ExpectationSource::Job,
                clause: None,
            },
            check,
        })
        .collect();
    let mut unmapped = Vec::new();
    if spec.mode != Mode::Script {
        let instruction = spec
            .instruction_with_vars()
            .unwrap_or_else(|_| spec.instruction.clone());
        for c in crate::agent::clauses::checkable(&instruction) {
            let mapped = from_clause(&c.text, &c.checks);
            if mapped.is_empty() {
                unmapped.push(c.text);
            }
            out.extend(mapped);
        }
        out.extend(effects_of(&instruction, &out));
    }
    (out, unmapped)
}

/// The end states the instruction's action clauses name (see `agent::effects`), as
/// expectations of source `effect`, leaving out any line already expected.
fn effects_of(instruction: &str, known: &[Expected]) -> Vec<Expected> {
    effect_lines(crate::agent::effects::named(instruction), known)
}

/// Check lines of end states (see [`effects_of`]) as expectations of source `effect`,
/// leaving out any line already expected and any that does not parse.
pub(crate) fn effect_lines(lines: Vec<String>, known: &[Expected]) -> Vec<Expected> {
    lines
        .into_iter()
        .filter(|line| !known.iter().any(|k| k.exp.line == *line))
        .filter_map(|line| {
            argus_protocol::expect::parse_expectation(&line)
                .ok()
                .map(|check| Expected {
                    exp: Expectation {
                        line,
                        source: ExpectationSource::Effect,
                        clause: None,
                    },
                    check,
                })
        })
        .collect()
}

/// The parseable check lines of one clause as expectations.
pub(crate) fn from_clause(clause: &str, lines: &[String]) -> Vec<Expected> {
    lines
        .iter()
        .filter_map(|l| {
            argus_protocol::expect::parse_expectation(l)
                .ok()
                .map(|check| Expected {
                    exp: Expectation {
                        line: l.clone(),
                        source: ExpectationSource::Instruction,
                        clause: Some(clause.to_string()),
                    },
                    check,
                })
        })
        .collect()
}

/// Whether `check` holds on `obs`, where that can be said from the text alone (`None`:
/// it needs the target resolver; the check's own step says).
pub(crate) fn quick_holds(check: &Action, obs: &Observation) -> Option<bool> {
    match check {
        Action::AssertContains { text } | Action::WaitFor { text, .. } => {
            Some(obs.contains_text(text))
        }
        Action::AssertNotContains { text } => Some(!obs.contains_text(text)),
        Action::AssertItems { checked, count } => {
            Some(crate::checks::items(obs, *checked, *count).is_ok())
        }
        _ => None,
    }
}

/// The renames a read plan makes, (old, new), from its `type "NEW" into "OLD"` lines whose
/// target is a list item of `obs` (an item's edit box is named by the item).
pub(crate) fn renames(steps: &[String], obs: &Observation) -> Vec<(String, String)> {
    let items = super::clause_plan::list_items(obs);
    steps
        .iter()
        .filter_map(|s| super::plan_typed::typing(s))
        .filter_map(|(text, target)| Some((target?, text)))
        .filter(|(old, _)| items.iter().any(|(n, _)| n == old))
        .collect()
}

/// `e` with a check of an item's tick (`assert "OLD" is checked`) moved to the item's new
/// name when the plan renames it: a check mapped on the screen before the plan ran names
/// the item as it was. Whether it changed.
pub(crate) fn follow_rename(e: &mut Expected, renames: &[(String, String)]) -> bool {
    let Action::AssertChecked { .. } = &e.check else {
        return false;
    };
    for (old, new) in renames {
        let was = super::clauses::quote_line(old);
        if let Some(rest) = e.exp.line.strip_prefix(&format!("assert {was} ")) {
            let line = format!("assert {} {rest}", super::clauses::quote_line(new));
            if let Ok(check) = argus_protocol::expect::parse_expectation(&line) {
                e.exp.line = line;
                e.check = check;
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tick_check_follows_the_item_to_its_new_name() {
        let line = "assert \"mend the gate\" is not checked".to_string();
        let mut e = Expected {
            check: argus_protocol::expect::parse_expectation(&line).unwrap(),
            exp: Expectation {
                line,
                source: ExpectationSource::Instruction,
                clause: None,
            },
        };
        let renames = vec![("mend the gate".to_string(), "paint the gate".to_string())];
        assert!(follow_rename(&mut e, &renames));
        assert_eq!(e.exp.line, "assert \"paint the gate\" is not checked");
        assert!(!follow_rename(&mut e, &renames), "already moved");
        let obs = crate::agent::test_screen(&[
            (argus_perception::Role::Textfield, "New todo"),
            (argus_perception::Role::Checkbox, "mend the gate"),
        ]);
        let steps = vec![
            "double tap \"mend the gate\"".to_string(),
            "type \"paint the gate\" into \"mend the gate\"".to_string(),
            "type \"x\" into \"New todo\"".to_string(),
        ];
        assert_eq!(
            super::renames(&steps, &obs),
            [("mend the gate".into(), "paint the gate".into())]
        );
    }
}
