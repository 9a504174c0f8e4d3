//! A form's text fields filled with the values the instruction gives them: one small
//! extraction the model answers against the fields' own names (a JSON object, field → value
//! or null), each value kept only where the instruction holds it word for word, then the
//! plan's typings checked against it: a field the plan never types is typed, a value typed
//! into the wrong field goes to the field it was given for, a field typed twice is typed once.
//!
//! Why (measured with Qwen2.5-Coder-1.5B on the paraphrase set's form pages): asked for a
//! whole plan, the model typed the password into the first box only ("上面的框输一次，下面的框
//! 再输一次" left the second empty), and typed year and director but not the genre of "mystery
//! films by Hargreaves from 2011"; asked only which words go into which named field, it
//! maps them. The plan's taps and presses stay the planner's.

use super::plan_fix::as_script_line;
use crate::resolve::{name_key, takes_text};
use argus_perception::{Observation, Role};
use argus_protocol::{Action, Aim};
use serde_json::{json, Value};

/// A text field of the form: its name as the plan names it, and whether it masks its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The field's name, else its placeholder.
    pub name: String,
    /// A password box.
    pub masked: bool,
}

/// The screen's named text fields, top to bottom, when the screen is a form: at least two
/// of them, or one beside no toggle (a list's new-item box is no form); empty otherwise.
pub fn fields(obs: &Observation) -> Vec<Field> {
    let mut out: Vec<Field> = Vec::new();
    let mut els: Vec<_> = obs
        .elements
        .iter()
        .filter(|e| takes_text(e) && e.role != Role::Combobox)
        .collect();
    els.sort_by(|a, b| a.bbox_px.y.total_cmp(&b.bbox_px.y));
    for e in els {
        let name = match e.name.trim() {
            "" => e.placeholder.as_deref().unwrap_or("").trim(),
            n => n,
        };
        if name.is_empty() || out.iter().any(|f| f.name == name) {
            continue;
        }
        out.push(Field {
            name: name.to_string(),
            masked: e.password.is_yes(),
        });
    }
    let toggles = obs.elements.iter().any(crate::resolve::is_toggle);
    if out.len() >= 2 || (out.len() == 1 && !toggles) {
        out
    } else {
        Vec::new()
    }
}

/// The extraction's messages: the instruction (already redacted by the caller) and the
/// fields' names.
pub fn messages(task: &str, fields: &[Field]) -> Vec<Value> {
    let names = fields
        .iter()
        .map(|f| format!("{:?}", f.name))
        .collect::<Vec<_>>()
        .join(", ");
    let user = format!(
        "Instruction: {task}\n\nThe form's text fields, top to bottom: {names}.\nFor each field, the exact text the instruction says to enter into it, copied from the instruction; null when the instruction gives that field nothing. A value the instruction says to enter into several fields goes into each of them."
    );
    vec![
        json!({"role": "system", "content": "You read form values out of a user's instruction. Answer with one JSON object and nothing else."}),
        json!({"role": "user", "content": user}),
    ]
}

/// The JSON schema of the answer: one string-or-null property per field.
pub fn schema(fields: &[Field]) -> Value {
    let props: serde_json::Map<String, Value> = fields
        .iter()
        .map(|f| (f.name.clone(), json!({"type": ["string", "null"]})))
        .collect();
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    json!({"type": "object", "properties": props, "required": names, "additionalProperties": false})
}

/// The answer as (field, value) pairs in the fields' order: only values the instruction
/// holds word for word (spelt as it spells them); a value given to several fields is kept
/// for all of them only when they are all password boxes (a password and its confirmation),
/// else for none. An answer that is no object is an error (the model is asked again).
pub fn parse(v: &Value, fields: &[Field], task: &str) -> Result<Vec<(String, String)>, String> {
    let obj = v.as_object().ok_or("the answer is no JSON object")?;
    let mut out: Vec<(String, String)> = Vec::new();
    for f in fields {
        let Some(text) = obj.get(&f.name).and_then(Value::as_str) else {
            continue;
        };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(own) = super::plan_typed::spelt_in(task, text) {
            out.push((f.name.clone(), own));
        }
    }
    let masked = |n: &str| fields.iter().any(|f| f.name == n && f.masked);
    let shared: Vec<String> = out
        .iter()
        .filter(|(n, v)| {
            out.iter().any(|(m, w)| m != n && w == v)
                && !(masked(n) && out.iter().filter(|(_, w)| w == v).all(|(m, _)| masked(m)))
        })
        .map(|(n, _)| n.clone())
        .collect();
    out.retain(|(n, _)| !shared.contains(n));
    Ok(out)
}

/// The text and target name of a `type` line.
fn typing(step: &str) -> Option<(String, String)> {
    match as_script_line(step)? {
        Action::Type {
            text,
            target: Aim::Target(t),
        } => Some((text, t.name)),
        _ => None,
    }
}

fn type_line(field: &str, text: &str) -> String {
    format!(
        "type {} into {}",
        super::clauses::quote_line(text),
        super::clauses::quote_line(field)
    )
}

/// `steps` with every field of `values` typed once with its value (see the module docs):
/// a typing of a value given to another field goes there, a field's second typing is dropped,
/// a field never typed is typed after the plan's last typing (else first). Returns the steps
/// and how many were changed or added.
pub fn complete(steps: Vec<String>, values: &[(String, String)]) -> (Vec<String>, usize) {
    if values.is_empty() {
        return (steps, 0);
    }
    let key = |n: &str| name_key(n);
    let mut done: Vec<String> = Vec::new();
    let mut out: Vec<String> = Vec::new();
    let mut changed = 0;
    let mut last_typing: Option<usize> = None;
    for s in steps {
        let Some((text, target)) = typing(&s) else {
            out.push(s);
            continue;
        };
        let own = values.iter().find(|(f, _)| key(f) == key(&target));
        let field = match own {
            Some((f, v)) if *v == text && !done.contains(f) => Some(f.clone()),
            _ => values
                .iter()
                .find(|(f, v)| *v == text && !done.contains(f))
                .map(|(f, _)| f.clone()),
        };
        match field {
            Some(f) => {
                if key(&f) != key(&target) {
                    changed += 1;
                    out.push(type_line(&f, &text));
                } else {
                    out.push(s);
                }
                done.push(f);
            }
            // A field already typed with its value is not typed again.
            None if own.is_some_and(|(f, _)| done.contains(f)) => {
                changed += 1;
                continue;
            }
            None => out.push(s),
        }
        last_typing = Some(out.len());
    }
    let at = last_typing.unwrap_or(0);
    let missing: Vec<String> = values
        .iter()
        .filter(|(f, _)| !done.contains(f))
        .map(|(f, v)| type_line(f, v))
        .collect();
    changed += missing.len();
    out.splice(at..at, missing);
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn a_field_the_plan_skips_is_typed_before_its_button() {
        let plan = vec![
            "type \"2011\" into \"Year\"".to_string(),
            "type \"Hargreaves\" into \"Director\"".to_string(),
            "tap \"Submit\"".to_string(),
        ];
        let (out, n) = complete(
            plan,
            &vals(&[
                ("Year", "2011"),
                ("Director", "Hargreaves"),
                ("Genre", "mystery"),
            ]),
        );
        assert_eq!(n, 1);
        assert_eq!(
            out,
            vec![
                "type \"2011\" into \"Year\"",
                "type \"Hargreaves\" into \"Director\"",
                "type \"mystery\" into \"Genre\"",
                "tap \"Submit\"",
            ]
        );
    }

    #[test]
    fn a_value_typed_twice_into_one_box_goes_to_the_other() {
        let plan = vec![
            "type \"Maple-2024\" into \"Password\"".to_string(),
            "type \"Maple-2024\" into \"Password\"".to_string(),
        ];
        let (out, n) = complete(
            plan,
            &vals(&[
                ("Password", "Maple-2024"),
                ("Verify password", "Maple-2024"),
            ]),
        );
        assert_eq!(n, 1);
        assert_eq!(
            out,
            vec![
                "type \"Maple-2024\" into \"Password\"",
                "type \"Maple-2024\" into \"Verify password\"",
            ]
        );
    }

    #[test]
    fn only_words_of_the_instruction_count_and_shared_values_only_for_passwords() {
        let fields = vec![
            Field {
                name: "Username".into(),
                masked: false,
            },
            Field {
                name: "Password".into(),
                masked: true,
            },
            Field {
                name: "Verify".into(),
                masked: true,
            },
        ];
        let task = "Log in as Priya_R with the password Fjord#31 in both boxes";
        let got = parse(
            &json!({"Username": "priya_r", "Password": "Fjord#31", "Verify": "Fjord#31"}),
            &fields,
            task,
        )
        .unwrap();
        assert_eq!(
            got,
            vals(&[
                ("Username", "Priya_R"),
                ("Password", "Fjord#31"),
                ("Verify", "Fjord#31")
            ])
        );
        let got = parse(
            &json!({"Username": "Hargreaves", "Password": "made up", "Verify": null}),
            &fields,
            "Director Hargreaves",
        )
        .unwrap();
        assert_eq!(got, vals(&[("Username", "Hargreaves")]));
        let two = vec![
            fields[0].clone(),
            Field {
                name: "Genre".into(),
                masked: false,
            },
        ];
        let got = parse(&json!({"Username": "x1", "Genre": "x1"}), &two, "x1").unwrap();
        assert!(got.is_empty(), "{got:?}");
        assert!(parse(&json!(["x"]), &two, "x").is_err());
    }
}
