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
use super::plan_step::{self, PlanStep, StepKind};

/// Most planned steps accepted from the planner (the schema's `maxItems`, so a
/// grammar-constrained server cannot run past it).
pub const MAX_PLAN_STEPS: usize = 20;
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
    /// Typed steps dropped because they could not be written as a line (no target, a key
    /// the language lacks).
    pub unwritable: usize,
}

/// The plan's JSON schema: typed steps whose `do` is a [`StepKind`]; `expect` (check kinds
/// only) is required when the planner is asked to map checks.
pub fn schema(with_expect: bool) -> Value {
    let steps = json!({"type": "array", "minItems": 1, "maxItems": MAX_PLAN_STEPS,
        "items": plan_step::schema(&StepKind::ALL)});
    if with_expect {
        json!({"type": "object", "additionalProperties": false, "required": ["steps", "expect"],
            "properties": {"steps": steps, "expect": {"type": "array", "minItems": 1,
                "maxItems": MAX_PLAN_EXPECT, "items": plan_step::schema(&StepKind::CHECKS)}}})
    } else {
        json!({"type": "object", "additionalProperties": false, "required": ["steps"],
            "properties": {"steps": steps}})
    }
}

/// The entries of `key` as step lines: a typed step (see [`plan_step`]) becomes its
/// step-language line; a string (an endpoint that ignores the schema) is taken as written.
/// A typed step that cannot be written is dropped and counted; an entry of another shape,
/// or a kind outside `allowed`, is an error.
fn lines(v: &Value, key: &str, allowed: &[StepKind]) -> Result<(Vec<String>, usize), String> {
    let Some(a) = v.get(key) else {
        return Ok((Vec::new(), 0));
    };
    let a = a
        .as_array()
        .ok_or_else(|| format!("`{key}` must be an array of steps"))?;
    let mut out = Vec::new();
    let mut unwritable = 0;
    for (i, e) in a.iter().enumerate() {
        match e {
            Value::String(s) if !s.trim().is_empty() => out.push(s.trim().to_string()),
            Value::Object(_) => {
                let step =
                    PlanStep::from_json(e, allowed).map_err(|m| format!("`{key}[{i}]`: {m}"))?;
                match step.lines() {
                    Ok(l) => out.extend(l),
                    Err(_) => unwritable += 1,
                }
            }
            _ => {
                return Err(format!(
                    "`{key}[{i}]` must be a step {{\"do\", \"target\", \"text\"}}"
                ))
            }
        }
    }
    Ok((out, unwritable))
}

/// Parses `{"steps": [...], "expect": [...]}` strictly (unknown fields refused); see
/// [`lines`] for the entries.
pub fn parse(v: &Value) -> Result<Plan, String> {
    let o = v.as_object().ok_or("the answer is not a JSON object")?;
    if let Some(k) = o
        .keys()
        .find(|k| !["steps", "expect"].contains(&k.as_str()))
    {
        return Err(format!("unexpected field {k:?}"));
    }
    if !o.contains_key("steps") {
        return Err("`steps` (an array of steps) is missing".into());
    }
    let (steps, unwritable) = lines(v, "steps", &StepKind::ALL)?;
    if steps.is_empty() && unwritable > 0 {
        return Err(format!(
            "none of the {unwritable} step(s) names what it acts on: give each its target or text"
        ));
    }
    if steps.is_empty() || steps.len() > MAX_PLAN_STEPS {
        return Err(format!("give 1 to {MAX_PLAN_STEPS} steps"));
    }
    let (mut expect, _) = lines(v, "expect", &StepKind::CHECKS)?;
    expect.truncate(MAX_PLAN_EXPECT);
    Ok(Plan {
        steps,
        expect,
        unwritable,
    })
}

/// The instruction as free steps the model acts on, one per line or sentence (`. `, `。`,
/// `！`, `？`, `! `, `? `), for a first plan that never came back usable: a step is one
/// sentence, so a step-done rule that reads one action's words cannot end the whole
/// instruction after its first action. At most [`MAX_PLAN_STEPS`]: the rest is kept in the
/// last one. Empty only for an empty instruction.
pub fn as_free_steps(task: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in task.lines() {
        let mut cur = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            cur.push(c);
            let end = matches!(c, '。' | '！' | '？' | '；')
                || (matches!(c, '.' | '!' | '?')
                    && chars.peek().is_some_and(|n| n.is_whitespace()));
            if end {
                out.push(cur.trim().to_string());
                cur.clear();
            }
        }
        out.push(cur.trim().to_string());
    }
    out.retain(|s| !s.is_empty());
    if out.len() > MAX_PLAN_STEPS {
        let tail = out.split_off(MAX_PLAN_STEPS - 1).join(" ");
        out.push(tail);
    }
    out
}

/// The prompt's paragraph asking for check lines for `clauses` (those whose own words do
/// not say what to check).
pub fn expect_request(clauses: &[String]) -> String {
    format!(
        "\n\nThese parts of the job are checks, not steps: {}. Plan no step for them. For each, put in \"expect\" one check that will hold on the screen once the job is done, its text worded as this screen words such things (a counter reading \"3 unread\" now reads \"2 unread\" after one is read), not as the job words it: {{\"do\": \"assert_shows\" or \"assert_not_shown\", \"target\": \"\", \"text\": the text exactly as the screen will show it}}, or {{\"do\": \"assert_checked\", \"assert_not_checked\" or \"assert_value\", \"target\": the element, \"text\": the value}}.",
        clauses
            .iter()
            .map(|c| format!("{c:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `steps` without the instruction's checks written as steps (see the module docs) and
/// without taps on a name only headings carry; returns the kept steps and how many were
/// dropped. A plan whose every step is a check keeps none.
pub fn without_checks(steps: Vec<String>, obs: Option<&Observation>) -> (Vec<String>, usize) {
    let (kept, checks, others) = sorted_out(steps, obs);
    (kept, checks + others)
}

/// [`without_checks`] with its drops counted apart: (kept, checks written as steps and taps
/// on a lead word, acting steps on a heading or a text field).
pub fn sorted_out(steps: Vec<String>, obs: Option<&Observation>) -> (Vec<String>, usize, usize) {
    let (mut kept, mut checks, mut others) = (Vec::new(), 0, 0);
    for s in steps {
        let line = super::plan_fix::as_script_line(&s);
        if line.is_none() && clauses::reads_as_check(&s) {
            checks += 1;
            continue;
        }
        match (line, obs) {
            (Some(argus_protocol::Action::Tap { target }), Some(o))
                if lead_word_tap(&target, o) =>
            {
                checks += 1;
            }
            (Some(argus_protocol::Action::Tap { target }), Some(o))
                if only_named_by(&target, o, heading) =>
            {
                others += 1;
            }
            (Some(argus_protocol::Action::SetChecked { target, .. }), Some(o))
                if names_a_field_not_a_toggle(&target, o) =>
            {
                others += 1;
            }
            _ => kept.push(s),
        }
    }
    (kept, checks, others)
}

/// `steps` without `go back` when the job's own words never ask to go back (`back`,
/// `previous`, `return to`, `返回`, `后退`, `上一页`): leaving the app's screen is never a way to
/// do a job on it (measured: a small model's plan ended with `go back`, and a "no longer
/// shows" check then held on the page before). Returns the kept steps and the number dropped.
pub fn without_unasked_back(steps: Vec<String>, task: &str) -> (Vec<String>, usize) {
    let t = task.to_lowercase();
    let asked = ["back", "previous", "return to", "返回", "后退", "上一页"]
        .iter()
        .any(|w| t.contains(w));
    if asked {
        return (steps, 0);
    }
    let before = steps.len();
    let kept: Vec<String> = steps
        .into_iter()
        .filter(|s| {
            !matches!(
                super::plan_fix::as_script_line(s),
                Some(argus_protocol::Action::Back)
            )
        })
        .collect();
    let dropped = before - kept.len();
    (kept, dropped)
}

/// Whether the element is a heading.
fn heading(e: &argus_perception::elements::Element) -> bool {
    e.role == argus_perception::Role::Heading
}

/// A step whose target names only elements of `obs` for which `kind` holds: a tap on a
/// heading (no control; measured: a small model's plans tapped the page's title first).
fn only_named_by(
    target: &argus_protocol::Aim,
    obs: &Observation,
    kind: fn(&argus_perception::elements::Element) -> bool,
) -> bool {
    let named = named_by(target, obs);
    !named.is_empty() && named.iter().all(|e| kind(e))
}

/// The elements of `obs` a label of which is the target's name (any case); none for an aim
/// by position or id.
fn named_by<'a>(
    target: &argus_protocol::Aim,
    obs: &'a Observation,
) -> Vec<&'a argus_perception::elements::Element> {
    let argus_protocol::Aim::Target(t) = target else {
        return Vec::new();
    };
    obs.elements
        .iter()
        .filter(|e| {
            e.labels()
                .any(|l| l.trim().eq_ignore_ascii_case(t.name.trim()))
        })
        .collect()
}

/// A check or uncheck whose target names a text field of `obs` and no toggle (a label
/// beside the field may carry the name too): the instruction's "check that the Username box
/// holds …" planned as a tick (measured: a small model planned `check "Username"` on a login
/// form and the run stalled on it).
fn names_a_field_not_a_toggle(target: &argus_protocol::Aim, obs: &Observation) -> bool {
    let named = named_by(target, obs);
    named.iter().any(|e| crate::resolve::takes_text(e))
        && !named.iter().any(|e| crate::resolve::is_toggle(e))
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

/// Words of an instruction that asks for an item twice on purpose.
const AGAIN: &[&str] = &[
    "again",
    "twice",
    "another copy",
    "duplicate",
    "second copy",
    "两次",
    "重复",
    "再来一条一样",
];

/// `steps` without adds of an item the list already holds: a typing into the list's
/// new-item field ([`super::clause_plan::one_text_field`]) of a text that a toggle on the
/// screen is named by, with its `press Enter`, unless `task` asks for a copy ([`AGAIN`]) or
/// a step before deletes or renames that item (the add puts it back).
/// Returns the kept steps and how many adds were skipped. Measured: a re-plan of
/// Qwen2.5-Coder-1.5B typed two listed items into the new-item box (duplicates at the end).
pub fn without_listed_adds(
    steps: Vec<String>,
    task: &str,
    obs: Option<&Observation>,
) -> (Vec<String>, usize) {
    let Some(obs) = obs else {
        return (steps, 0);
    };
    let Some(field) = super::clause_plan::one_text_field(obs) else {
        return (steps, 0);
    };
    let lower = task.to_lowercase();
    if AGAIN.iter().any(|w| lower.contains(w)) {
        return (steps, 0);
    }
    let items = super::clause_plan::list_items(obs);
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let mut out: Vec<String> = Vec::new();
    let mut skipped = 0;
    let mut skip_enter = false;
    for s in steps {
        let line = super::plan_fix::as_script_line(&s);
        // Deleted or renamed away by a step before (a step in the item's row, a typing into
        // its edit box): the add puts it back.
        let gone = |text: &str| {
            let q = super::clauses::quote_line(text).to_lowercase();
            out.iter().any(|o| {
                let o = o.to_lowercase();
                o.contains(&format!("in the row of {q}"))
                    || (o.starts_with("type ") && o.trim_end().ends_with(&format!("into {q}")))
            })
        };
        if std::mem::take(&mut skip_enter)
            && matches!(&line, Some(argus_protocol::Action::Key { .. }))
            && s.to_lowercase().contains("enter")
        {
            continue;
        }
        if let Some(argus_protocol::Action::Type {
            text,
            target: argus_protocol::Aim::Target(t),
        }) = &line
        {
            let listed = items.iter().any(|(n, _)| norm(n) == norm(text) && !gone(n));
            if listed && t.name.trim().eq_ignore_ascii_case(field.trim()) {
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
    fn an_add_of_an_item_already_listed_is_skipped_with_its_enter() {
        use argus_perception::Role;
        let obs = crate::agent::test_screen(&[
            (Role::Textfield, "New todo"),
            (Role::Checkbox, "feed the fish"),
        ]);
        let plan = vec![
            "type \"Feed the  fish\" into \"New todo\"".to_string(),
            "press Enter".to_string(),
            "type \"walk the dog\" into \"New todo\"".to_string(),
            "press Enter".to_string(),
        ];
        let (kept, n) = without_listed_adds(plan.clone(), "tidy up", Some(&obs));
        assert_eq!(n, 1);
        assert_eq!(kept, plan[2..].to_vec());
        let (kept, n) = without_listed_adds(plan.clone(), "add 'feed the fish' again", Some(&obs));
        assert_eq!((kept.len(), n), (4, 0), "a copy asked for");
        // Deleted (or renamed away) first, then added: the add puts it back.
        let moved = vec![
            "tap \"Delete\" in the row of \"feed the fish\"".to_string(),
            "type \"feed the fish\" into \"New todo\"".to_string(),
            "press Enter".to_string(),
        ];
        let (kept, n) = without_listed_adds(
            moved.clone(),
            "move 'feed the fish' to the bottom: delete it and re-add it",
            Some(&obs),
        );
        assert_eq!((kept, n), (moved, 0));
    }

    #[test]
    fn a_free_plan_is_the_instruction_sentence_by_sentence() {
        assert_eq!(
            as_free_steps("Type 'bob' into Username.\nClick Sign in."),
            vec!["Type 'bob' into Username.", "Click Sign in."]
        );
        assert_eq!(
            as_free_steps("Go to example.com. Then press Save!"),
            vec!["Go to example.com.", "Then press Save!"]
        );
        assert_eq!(as_free_steps("先登录。再保存"), vec!["先登录。", "再保存"]);
        assert_eq!(
            as_free_steps("Focus into the textbox."),
            vec!["Focus into the textbox."]
        );
        let long = "a. ".repeat(MAX_PLAN_STEPS + 3);
        let steps = as_free_steps(&long);
        assert_eq!(steps.len(), MAX_PLAN_STEPS);
        assert_eq!(steps.last().map(|s| s.matches("a.").count()), Some(4));
        assert!(as_free_steps(" \n ").is_empty());
    }

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
    fn typed_plans_become_step_lines() {
        let p = parse(&json!({"steps": [
            {"do": "type", "target": "New todo", "text": "buy milk"},
            {"do": "press", "target": "", "text": "Enter"},
            {"do": "check", "target": "buy milk", "text": ""},
            {"do": "tap", "target": "", "text": ""}
        ], "expect": [{"do": "assert_shows", "target": "", "text": "1 item left"}]}))
        .unwrap();
        assert_eq!(
            p.steps,
            vec![
                "type \"buy milk\" into \"New todo\"",
                "press Enter",
                "check \"buy milk\""
            ]
        );
        assert_eq!(p.unwritable, 1);
        assert_eq!(p.expect, vec!["assert screen contains \"1 item left\""]);
        // An expectation must be a check.
        let e =
            parse(&json!({"steps": ["a"], "expect": [{"do": "tap", "target": "A", "text": ""}]}))
                .unwrap_err();
        assert!(e.contains("expect[0]"), "{e}");
        // Nothing writable at all is an error the model is told.
        assert!(parse(&json!({"steps": [{"do": "tap", "target": "", "text": ""}]})).is_err());
        assert!(parse(&json!({"steps": [3]})).is_err());
    }

    #[test]
    fn going_back_is_planned_only_when_asked() {
        let plan = vec!["check \"a\"".to_string(), "go back".to_string()];
        assert_eq!(
            without_unasked_back(plan.clone(), "tick a"),
            (vec!["check \"a\"".to_string()], 1)
        );
        assert_eq!(
            without_unasked_back(plan.clone(), "tick a, then go back"),
            (plan, 0)
        );
    }

    #[test]
    fn a_tick_of_a_text_field_is_dropped_even_beside_its_label() {
        use argus_perception::{build, Node, Rect, Role, Screen, Tree};
        let mut tree = Tree::default();
        let mut root = Node::new(Role::Other, "form", "");
        root.bounds = Some(Rect::new(0.0, 0.0, 300.0, 200.0));
        tree.nodes.push(root);
        for (i, (role, name)) in [
            (Role::Text, "Email"),
            (Role::Textfield, "Email"),
            (Role::Checkbox, "Keep me signed in"),
        ]
        .into_iter()
        .enumerate()
        {
            let mut n = Node::new(role, "", name);
            n.bounds = Some(Rect::new(10.0, 10.0 + 40.0 * i as f64, 150.0, 24.0));
            n.parent = Some(0);
            tree.nodes.push(n);
        }
        tree.nodes[0].children = vec![1, 2, 3];
        let obs = build(
            &tree,
            Screen {
                width: 300.0,
                height: 200.0,
                dpr: 1.0,
            },
            1,
        );
        let plan = vec![
            "type \"ann@example.org\" into \"Email\"".to_string(),
            "check \"Email\"".to_string(),
            "check \"Keep me signed in\"".to_string(),
        ];
        let (kept, checks, others) = sorted_out(plan, Some(&obs));
        assert_eq!(
            kept,
            vec![
                "type \"ann@example.org\" into \"Email\"",
                "check \"Keep me signed in\""
            ]
        );
        assert_eq!((checks, others), (0, 1));
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
