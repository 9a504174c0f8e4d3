//! A form's text fields filled with the values the instruction gives them: one small
//! extraction the model answers against the fields' own names (a JSON object, field → value
//! or null), one more per field it left empty or made up (asked alone), then the field's
//! name as a cue in the instruction ("directed by Leone" for `Director`); each value kept
//! only where the instruction holds it word for word. The plan's typings are then checked
//! against them: a field the plan never types is typed, a value typed into the wrong field
//! goes to the field it was given for, a field typed twice with its value is typed once.
//!
//! Why (measured with Qwen2.5-Coder-1.5B on the paraphrase set's form pages): asked for a
//! whole plan, the model typed the password into the first box only ("上面的框输一次，下面的框
//! 再输一次" left the second empty), and typed year and director but not the genre of "mystery
//! films by Hargreaves from 2011"; asked only which words go into which named field, it
//! maps them (asked alone, the genre too; a director it knew by another name came from the
//! cue). The plan's taps and presses stay the planner's.

pub use super::form_cue::cue_value;
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
/// of them, or one beside a send button and no toggle (a list's new-item box is no form);
/// empty otherwise.
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
    let sent = super::clause_plan::submits_a_form(obs);
    if out.len() >= 2 || (out.len() == 1 && !toggles && sent) {
        out
    } else {
        Vec::new()
    }
}

/// Whether a first plan of step-language lines that types into the form on `obs` leaves one
/// of its fields untyped or types a value `task` holds only cut short (`d` of `d.moreau`,
/// [`super::plan_typed::cut_short`]) or not at all, every typing naming its field (a free step, which the
/// model acts out, or a typing into whatever has focus: `false`); the values are asked of
/// the model only then.
pub fn leaves_untyped(plan: &[String], obs: &Observation, task: &str) -> bool {
    let fields = fields(obs);
    if fields.is_empty() {
        return false;
    }
    // A value dictated piece by piece ([`super::form_compose`]) the plan never types whole.
    let all_masked = fields.iter().all(|f| f.masked);
    let dictated_for = |name: &str| {
        let masked = fields.iter().any(|f| f.name == name && f.masked);
        super::form_compose::composed(task, name, masked, all_masked)
    };
    let dictated = fields.iter().any(|f| {
        super::form_compose::composed(task, &f.name, f.masked, all_masked)
            .is_some_and(|v| !plan.iter().any(|s| typing(s).is_some_and(|(t, _)| t == v)))
    });
    if dictated {
        return true;
    }
    let mut typed: Vec<String> = Vec::new();
    for s in plan {
        match as_script_line(s) {
            Some(Action::Type {
                target: Aim::Target(t),
                text,
                ..
            }) => {
                // A value the instruction holds only cut short, or not at all ("D:e2").
                if super::plan_typed::cut_short(task, &text)
                    || goes_on(task, &text)
                    || (gives_values(task)
                        && !task.to_lowercase().contains(&text.trim().to_lowercase())
                        && dictated_for(&t.name).as_deref() != Some(text.as_str()))
                {
                    return true;
                }
                typed.push(name_key(&t.name))
            }
            Some(Action::Type { .. }) => return false,
            Some(_) => {}
            // A free step: the model acts it out and may type what it needs.
            None => return false,
        }
    }
    !typed.is_empty() && fields.iter().any(|f| !typed.contains(&name_key(&f.name)))
}

/// Whether `task` gives values to type: a quoted text, or a token that holds a digit or
/// joins letters with `.` `@` `_` `&` (`d.moreau`, `Quill&Ink7`). "Save the form" gives none:
/// a value a plan types there is the model's own, and asking for the instruction's is moot.
fn gives_values(task: &str) -> bool {
    !super::clauses::quoted(task).is_empty()
        || task.split_whitespace().any(|t| {
            let t = t.trim_matches(|c: char| !c.is_alphanumeric());
            t.chars().any(|c| c.is_ascii_digit())
                || t.chars().any(|c| ['.', '@', '_', '&'].contains(&c))
        })
}

/// The extraction's messages: the instruction (already redacted by the caller) and the
/// fields' names.
pub fn messages(task: &str, fields: &[Field]) -> Vec<Value> {
    let user = format!(
        "Instruction: {task}\n\nThe form's text fields, top to bottom: {}.\nFor each field, the exact words from the instruction that go into it; null when the instruction gives that field nothing. The instruction often gives a value without naming its field: put each such value into the field it fits by meaning. A value the instruction says to enter into several fields goes into each of them.",
        names(fields)
    );
    vec![
        json!({"role": "system", "content": SYSTEM}),
        json!({"role": "user", "content": user}),
    ]
}

/// The messages asking for one field the whole-form answer left empty (a small model that
/// misses a value among several finds it asked alone; measured: a genre named only as
/// "mystery films").
pub fn one_messages(task: &str, field: &str, fields: &[Field]) -> Vec<Value> {
    let user = format!(
        "Instruction: {task}\n\nA form has the text fields {}. What does the instruction want typed into the {field:?} field? Copy the exact word(s) from the instruction, or null if it gives none.",
        names(fields)
    );
    vec![
        json!({"role": "system", "content": SYSTEM}),
        json!({"role": "user", "content": user}),
    ]
}

const SYSTEM: &str =
    "You read form values out of a user's instruction. Answer with one JSON object and nothing else.";

fn names(fields: &[Field]) -> String {
    fields
        .iter()
        .map(|f| format!("{:?}", f.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The JSON schema of an answer for `fields`: one string-or-null property each.
pub fn schema(fields: &[&str]) -> Value {
    let props: serde_json::Map<String, Value> = fields
        .iter()
        .map(|f| (f.to_string(), json!({"type": ["string", "null"]})))
        .collect();
    json!({"type": "object", "properties": props, "required": fields, "additionalProperties": false})
}

/// An answer as (field, value) for the `fields` it names with a non-empty string; an answer
/// that is no object is an error (the model is asked again).
pub fn parse(v: &Value, fields: &[&str]) -> Result<Vec<(String, String)>, String> {
    let obj = v.as_object().ok_or("the answer is no JSON object")?;
    Ok(fields
        .iter()
        .filter_map(|f| {
            let t = obj.get(*f)?.as_str()?.trim();
            (!t.is_empty()).then(|| (f.to_string(), t.to_string()))
        })
        .collect())
}

/// The value of `field` the instruction holds word for word, spelt as it spells it.
pub fn held(answers: &[(String, String)], field: &str, task: &str) -> Option<String> {
    answers
        .iter()
        .filter(|(f, _)| f == field)
        .find_map(|(_, v)| {
            super::plan_typed::spelt_in(task, v)
                .filter(|v| !super::plan_typed::cut_short(task, v) && !goes_on(task, v))
        })
}

/// Words right after a value that say more is joined to it ("oncall, then a hyphen, then
/// 7", "Mia，紧跟她的生日 0412").
const GOES_ON: &[&str] = &[
    ", then",
    " then ",
    ", followed by",
    " followed by",
    ", plus",
    " plus ",
    ", and then",
    " with a ",
    ", with",
    "，接",
    "接一个",
    "，后面",
    "后面加",
    "，紧跟",
    "紧跟",
    "，再加",
    "再加",
    "，然后",
    "，加上",
    "，最后加",
    "最后加",
];

/// Whether `task` says more is joined to `value` right where it says it: every place it
/// holds the value is followed (a bracketed aside skipped) by a [`GOES_ON`] word.
pub fn goes_on(task: &str, value: &str) -> bool {
    let value = value.trim();
    if value.is_empty() || !task.contains(value) {
        return false;
    }
    task.match_indices(value).all(|(i, _)| {
        let mut rest = &task[i + value.len()..];
        // "Mia（M 大写，后面两个字母小写），紧跟…": the aside says how to write it.
        if let Some(r) = rest.strip_prefix(['(', '（']) {
            rest = r.split_once([')', '）']).map_or(r, |(_, after)| after);
        }
        let after: String = rest.chars().take(16).collect::<String>().to_lowercase();
        GOES_ON
            .iter()
            .any(|w| after.starts_with(w) || after.trim_start().starts_with(w.trim_start()))
    })
}

/// The values kept: for each field the value held word for word, then a value given to
/// several fields kept for all of them only when they are all password boxes or all share
/// a word of their names (a password and its confirmation, an e-mail and "Confirm e-mail"),
/// else for none.
pub fn settle(values: Vec<(String, String)>, fields: &[Field]) -> Vec<(String, String)> {
    let masked = |n: &str| fields.iter().any(|f| f.name == n && f.masked);
    let kin = |a: &str, b: &str| {
        (masked(a) && masked(b)) || {
            let wa = super::clause_plan::words(a);
            super::clause_plan::words(b).iter().any(|w| wa.contains(w))
        }
    };
    let shared: Vec<String> = values
        .iter()
        .filter(|(n, v)| values.iter().any(|(m, w)| m != n && w == v && !kin(n, m)))
        .map(|(n, _)| n.clone())
        .collect();
    values
        .into_iter()
        .filter(|(n, _)| !shared.contains(n))
        .collect()
}

/// The text and target name of a `type` line that names its field.
fn typing(step: &str) -> Option<(String, String)> {
    let (text, name) = super::plan_typed::typing(step)?;
    Some((text, name?))
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
        // "make sure the Username box says kwame" planned as `check "Username"`: a form's
        // text field is no toggle.
        if let Some(Action::SetChecked {
            target: Aim::Target(t),
            ..
        }) = as_script_line(&s)
        {
            if values.iter().any(|(f, _)| key(f) == key(&t.name)) {
                changed += 1;
                continue;
            }
        }
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
            None if own.is_some_and(|(f, v)| done.contains(f) && *v == text) => {
                changed += 1;
                continue;
            }
            // A value given to no field, typed into a field that has one: its own value.
            None if own.is_some_and(|(f, _)| !done.contains(f)) => {
                if let Some((f, v)) = own {
                    changed += 1;
                    out.push(type_line(f, v));
                    done.push(f.clone());
                }
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
    fn a_check_of_a_text_field_is_dropped() {
        let plan = vec![
            "type \"kim\" into \"Username\"".to_string(),
            "check \"Username\"".to_string(),
        ];
        let (out, n) = complete(plan, &vals(&[("Username", "kim")]));
        assert_eq!(
            (out, n),
            (vec!["type \"kim\" into \"Username\"".to_string()], 1)
        );
    }

    #[test]
    fn other_texts_typed_into_a_field_are_kept() {
        let plan = vec![
            "type \"a\" into \"New\"".to_string(),
            "press Enter".to_string(),
            "type \"b\" into \"New\"".to_string(),
            "press Enter".to_string(),
        ];
        let (out, n) = complete(plan.clone(), &vals(&[("New", "a")]));
        assert_eq!((out, n), (plan, 0));
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
    fn values_shared_only_by_kin_fields_and_cues_read_without_a_model() {
        let fields = vec![
            Field {
                name: "Username".into(),
                masked: false,
            },
            Field {
                name: "Password".into(),
                masked: false,
            },
            Field {
                name: "Verify password".into(),
                masked: false,
            },
        ];
        let got = settle(
            vals(&[("Password", "x1"), ("Verify password", "x1")]),
            &fields,
        );
        assert_eq!(got.len(), 2);
        let got = settle(vals(&[("Username", "x1"), ("Password", "x1")]), &fields);
        assert!(got.is_empty(), "{got:?}");
        let answers = vals(&[("Username", "priya_R"), ("Password", "Ada Lovelace")]);
        let task = "Log in as Priya_R, the password is Fjord#31";
        assert_eq!(held(&answers, "Username", task).as_deref(), Some("Priya_R"));
        assert_eq!(held(&answers, "Password", task), None);
        assert_eq!(cue_value(task, "Password").as_deref(), Some("Fjord#31"));
        assert_eq!(
            cue_value("a thriller directed by Okafor, from 1994", "Director").as_deref(),
            Some("Okafor")
        );
        assert_eq!(
            cue_value("Make sure the Year box holds just 1994.", "Year").as_deref(),
            Some("1994")
        );
        assert_eq!(cue_value("type the password twice", "Password"), None);
        assert_eq!(cue_value("a thriller from 1994", "Genre"), None);
        assert!(goes_on("the login is wren, then a dash, then 9", "wren"));
        assert!(goes_on("名字 Leo（L 大写），紧跟生日 0412", "Leo"));
        assert!(!goes_on(
            "the login is wren, and the password is Fog#1",
            "wren"
        ));
        assert_eq!(
            held(
                &vals(&[("Username", "wren")]),
                "Username",
                "login wren, then a dash, then 9"
            ),
            None
        );
        assert_eq!(
            cue_value("The username follows our usual pattern", "Username"),
            None
        );
        assert_eq!(cue_value("The year comes after 1990", "Year"), None);
        assert_eq!(
            cue_value("上面的 Password 框填一样的，点提交", "Password"),
            None
        );
        assert_eq!(
            cue_value("log in with username K_Obi", "Username").as_deref(),
            Some("K_Obi")
        );
        assert!(parse(&json!(["x"]), &["a"]).is_err());
        assert_eq!(
            parse(&json!({"a": " v ", "b": null}), &["a", "b"]).unwrap(),
            vals(&[("a", "v")])
        );
    }

    #[test]
    fn a_field_typed_with_a_value_given_to_none_takes_its_own() {
        let plan = vec![
            "type \"j\" into \"Username\"".to_string(),
            "type \"Tide-42\" into \"Password\"".to_string(),
            "tap \"Login\"".to_string(),
        ];
        let (out, n) = complete(
            plan,
            &vals(&[("Username", "j.okafor"), ("Password", "Tide-42")]),
        );
        assert_eq!(n, 1);
        assert_eq!(
            out,
            vec![
                "type \"j.okafor\" into \"Username\"",
                "type \"Tide-42\" into \"Password\"",
                "tap \"Login\""
            ]
        );
        let task = "log in as j.okafor, password Tide-42";
        let answers = vals(&[("Username", "j"), ("Username", "j.okafor")]);
        assert_eq!(
            held(&answers, "Username", task).as_deref(),
            Some("j.okafor")
        );
        assert_eq!(held(&answers[..1], "Username", task), None);
    }

    #[test]
    fn a_plan_that_types_one_piece_of_a_dictated_value_leaves_it_untyped() {
        let obs = crate::agent::test_screen(&[
            (argus_perception::Role::Textfield, "Password"),
            (argus_perception::Role::Button, "Submit"),
        ]);
        let task = "Set the password: start with Kite, then the number 3, then Moon, and submit.";
        let plan = vec![
            "type \"Kite\" into \"Password\"".to_string(),
            "tap \"Submit\"".to_string(),
        ];
        assert!(leaves_untyped(&plan, &obs, task));
        let whole = vec![
            "type \"Kite3Moon\" into \"Password\"".to_string(),
            "tap \"Submit\"".to_string(),
        ];
        assert!(!leaves_untyped(&whole, &obs, task));
    }
}
