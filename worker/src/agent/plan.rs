//! The planner's answer: its JSON schema, its strict parse, and the one rule applied to it
//! before any step runs — the instruction's checks are expectations, never steps to act on.
//!
//! Measured (Qwen2.5-Coder-1.5B, a todo app): "confirm the counter reads N left" was
//! planned as `tap "Confirm"`; "check that 1 item is left" as a model-driven step that tapped
//! around. [`without_checks`] drops such steps: a step that reads as a check but is not a
//! step-language check line (the clause is checked at the end, deterministically), and a tap
//! on a lead word ("Confirm", "Verify") that names no element on the screen.

use argus_perception::Observation;
use serde_json::{json, Value};

use super::clauses;

/// Most planned steps accepted from the planner.
pub const MAX_PLAN_STEPS: usize = 30;
/// Most expectation lines accepted from the planner.
const MAX_PLAN_EXPECT: usize = 8;

/// A parsed plan.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// Steps in order.
    pub steps: Vec<String>,
    /// Check lines the planner gave for the instruction's checkable clauses (only asked for
    /// when some clause's own words do not say what to check).
    pub expect: Vec<String>,
}

/// The plan's JSON schema; `expect` is required when the planner is asked to map checks.
pub fn schema(with_expect: bool) -> Value {
    let steps = json!({"type": "array", "minItems": 1, "maxItems": MAX_PLAN_STEPS,
        "items": {"type": "string"}});
    if with_expect {
        json!({"type": "object", "additionalProperties": false, "required": ["steps", "expect"],
            "properties": {"steps": steps, "expect": {"type": "array", "minItems": 1,
                "maxItems": MAX_PLAN_EXPECT, "items": {"type": "string"}}}})
    } else {
        json!({"type": "object", "additionalProperties": false, "required": ["steps"],
            "properties": {"steps": steps}})
    }
}

fn strings(v: &Value, key: &str) -> Result<Vec<String>, String> {
    let Some(a) = v.get(key) else {
        return Ok(Vec::new());
    };
    a.as_array()
        .ok_or_else(|| format!("`{key}` must be an array of strings"))?
        .iter()
        .map(|s| {
            s.as_str()
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .ok_or_else(|| format!("every `{key}` entry must be a non-empty string"))
        })
        .collect()
}

/// Parses `{"steps": [...], "expect": [...]}` strictly (unknown fields refused).
pub fn parse(v: &Value) -> Result<Plan, String> {
    let o = v.as_object().ok_or("the answer is not a JSON object")?;
    if let Some(k) = o
        .keys()
        .find(|k| !["steps", "expect"].contains(&k.as_str()))
    {
        return Err(format!("unexpected field {k:?}"));
    }
    if !o.contains_key("steps") {
        return Err("`steps` (an array of strings) is missing".into());
    }
    let steps = strings(v, "steps")?;
    if steps.is_empty() || steps.len() > MAX_PLAN_STEPS {
        return Err(format!("give 1 to {MAX_PLAN_STEPS} steps"));
    }
    let mut expect = strings(v, "expect")?;
    expect.truncate(MAX_PLAN_EXPECT);
    Ok(Plan { steps, expect })
}

/// The prompt's paragraph asking for check lines for `clauses` (those whose own words do
/// not say what to check).
pub fn expect_request(clauses: &[String]) -> String {
    format!(
        "\n\nThese parts of the job are checks, not steps: {}. Plan no step for them. For each, put in \"expect\" one check line that will be true on the screen when it holds: assert screen contains \"<text exactly as the screen will show it>\" or assert screen does not contain \"<text>\".",
        clauses
            .iter()
            .map(|c| format!("{c:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `steps` without the instruction's checks written as steps (see the module docs); returns
/// the kept steps and how many were dropped. A plan whose every step is a check keeps none.
pub fn without_checks(steps: Vec<String>, obs: Option<&Observation>) -> (Vec<String>, usize) {
    let before = steps.len();
    let kept: Vec<String> = steps
        .into_iter()
        .filter(|s| {
            let line = super::plan_fix::as_script_line(s);
            if line.is_none() && clauses::reads_as_check(s) {
                return false;
            }
            match (line, obs) {
                (Some(argus_protocol::Action::Tap { target }), Some(o)) => {
                    !lead_word_tap(&target, o)
                }
                _ => true,
            }
        })
        .collect();
    let dropped = before - kept.len();
    (kept, dropped)
}

/// A tap on a lead word ("Confirm") that names no element of `obs`.
fn lead_word_tap(target: &argus_protocol::Aim, obs: &Observation) -> bool {
    let argus_protocol::Aim::Target(t) = target else {
        return false;
    };
    let name = t.name.as_str();
    clauses::is_lead_word(name)
        && !obs.elements.iter().any(|e| {
            e.labels()
                .any(|l| l.trim().eq_ignore_ascii_case(name.trim()))
        })
}

/// `steps` without typings this run already did whose text now shows on the screen outside
/// any text field (a todo already added is not added again), each with the `press Enter`
/// right after it. `typed`: texts this run's delivered typings entered. Returns the kept
/// steps and how many typings were skipped. Measured: a small model's every re-plan typed
/// both todos again (four items at the end).
pub fn without_repeated_typing(
    steps: Vec<String>,
    typed: &[String],
    obs: Option<&Observation>,
) -> (Vec<String>, usize) {
    let Some(obs) = obs else {
        return (steps, 0);
    };
    let shown = |text: &str| {
        obs.elements.iter().any(|e| {
            !crate::resolve::takes_text(e)
                && e.labels()
                    .any(|l| l.trim().eq_ignore_ascii_case(text.trim()))
        })
    };
    let mut out = Vec::new();
    let mut skipped = 0;
    let mut skip_enter = false;
    for s in steps {
        let line = super::plan_fix::as_script_line(&s);
        if skip_enter {
            skip_enter = false;
            if matches!(&line, Some(argus_protocol::Action::Key { .. }))
                && s.to_lowercase().contains("enter")
            {
                continue;
            }
        }
        if let Some(argus_protocol::Action::Type { text, .. }) = &line {
            if typed.iter().any(|t| t == text) && shown(text) {
                skipped += 1;
                skip_enter = true;
                continue;
            }
        }
        out.push(s);
    }
    (out, skipped)
}

/// The check lines a stored script closes with (after its last acting line): the
/// expectations of the run that learned it.
pub fn closing_checks(script: &str) -> Vec<String> {
    let lines: Vec<&str> = script
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let mut out: Vec<String> = lines
        .iter()
        .rev()
        .take_while(|l| argus_protocol::expect::parse_expectation(l).is_ok())
        .map(|l| l.to_string())
        .collect();
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_parse_strictly() {
        let p = parse(&json!({"steps": ["a", "b"]})).unwrap();
        assert_eq!(p.steps, vec!["a", "b"]);
        assert!(p.expect.is_empty());
        let p =
            parse(&json!({"steps": ["a"], "expect": ["assert screen contains \"x\""]})).unwrap();
        assert_eq!(p.expect.len(), 1);
        assert!(parse(&json!({"steps": []})).is_err());
        assert!(parse(&json!({"steps": ["a"], "x": 1})).is_err());
        assert!(parse(&json!(["a"])).is_err());
        assert!(parse(&json!({"expect": []})).is_err());
    }

    #[test]
    fn checks_written_as_steps_are_dropped() {
        let (kept, dropped) = without_checks(
            vec![
                "type 'a' into \"New\"".into(),
                "press Enter".into(),
                "verify that one item is left".into(),
                "assert screen contains \"1 item left\"".into(),
            ],
            None,
        );
        assert_eq!(dropped, 1);
        assert_eq!(kept.len(), 3);
    }

    #[test]
    fn a_script_closes_with_its_expectations() {
        let s = "tap \"A\"\nwait for \"B\"\ntap \"C\"\nassert screen contains \"D\"\nassert screen does not contain \"E\"\n";
        assert_eq!(
            closing_checks(s),
            vec![
                "assert screen contains \"D\"",
                "assert screen does not contain \"E\""
            ]
        );
        assert!(closing_checks("tap \"A\"\n").is_empty());
    }
}
