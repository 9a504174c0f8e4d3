//! One clause the reader ([`super::clause_plan`]) could not read, mapped by the model on its
//! own: the list's items as they stand, the clauses said just before it (what "it" / "that
//! entry" speaks of) and the clause; the answer is list operations from a closed set —
//! `check`, `uncheck`, `delete`, `rename`, `add` or `none` — on items named exactly as listed
//! (the schema's enum), which Argus writes as step-language lines itself. A small model then
//! only maps one short clause to one of six words and picks a name from a list.
//!
//! Why: a clause with a verb outside the reader's lexicon ("bin that entry", "from now on
//! call it 'X'", "bump the version in the tag item") was dropped as a description, or the
//! whole instruction went to the planner, where Qwen2.5-Coder-1.5B lost clauses of long
//! instructions. A clause answered `none`, an answer naming no listed item, or a failed call
//! leaves the clause a free step the model acts out, as before.

use serde_json::{json, Value};

use super::plan_step::{PlanStep, StepKind};

/// The system message.
pub const SYSTEM: &str = "You map one clause of a user's request about a to-do list to list operations. Answer only with JSON.";

/// Most tokens of an answer (a few operations).
pub const MAX_TOKENS: u32 = 160;

/// The operations a clause may map to, as the prompt names them.
const OPS: &[&str] = &["check", "uncheck", "delete", "rename", "add", "none"];

/// The user message: what the operations are and that only the clause is mapped, the items
/// (`(text, done)`), the clauses said before it (only when it has a pronoun: measured with
/// Qwen2.5-Coder-1.5B, "Two new ones: 'a' and 'b'" after "…: bin that entry" was mapped to
/// the delete again), the clause.
pub fn prompt(items: &[(String, bool)], before: &[String], clause: &str) -> String {
    let listed = if items.is_empty() {
        "(the list is empty)".to_string()
    } else {
        items
            .iter()
            .map(|(t, done)| format!("- [{}] {t}", if *done { "x" } else { " " }))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let said = if before.is_empty() || !has_pronoun(clause) {
        String::new()
    } else {
        format!(
            "Said just before: {}\n",
            before
                .iter()
                .map(|b| format!("«{}»", b.trim()))
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    format!(
        "Operations on the list: check (mark an item done), uncheck (mark an item not done), delete (remove an item), rename (change an item's text to \"text\"), add (a new item whose text is \"text\"), none.\nMap ONLY the clause below to operations. The clauses said before it are context: they say what \"it\" / \"that one\" / \"that entry\" means; never map them again. A clause that only tells a fact, a reason, or what someone did or decided, without asking for a change to the list, is none. New item names quoted in the clause are added.\n\nThe list now ([x] = done):\n{listed}\n\n{said}Clause: «{}»\n\nAnswer {{\"steps\": [{{\"do\": operation, \"item\": the item exactly as listed (\"\" for add and none), \"text\": the new text for rename and add (else \"\")}}]}}.",
        clause.trim()
    )
}

/// Whether `clause` has a pronoun or demonstrative that needs the clauses before it.
fn has_pronoun(clause: &str) -> bool {
    let lower = clause.to_lowercase();
    lower.split(|c: char| !c.is_alphanumeric()).any(|w| {
        [
            "it", "its", "that", "this", "those", "these", "them", "they",
        ]
        .contains(&w)
    }) || ['它', '那', '这'].iter().any(|c| clause.contains(*c))
}

/// The answer's JSON schema: `item` is one of `items` (or empty).
pub fn schema(items: &[(String, bool)]) -> Value {
    let mut names: Vec<&str> = items.iter().map(|(t, _)| t.as_str()).collect();
    names.push("");
    json!({
        "type": "object",
        "properties": {"steps": {"type": "array", "maxItems": 6, "items": {
            "type": "object",
            "properties": {
                "do": {"type": "string", "enum": OPS},
                "item": {"type": "string", "enum": names},
                "text": {"type": "string"}
            },
            "required": ["do", "item", "text"],
            "additionalProperties": false
        }}},
        "required": ["steps"],
        "additionalProperties": false
    })
}

/// The typed steps of an answer, checked against `items`; `Ok(vec![])` for `none`. `field`
/// is the list's new-item field (`add` types into it); an `add` of an item already listed is
/// left out, unless the answer deletes or renames that item before, and so is an `add` of
/// a text `clause` does not quote. An operation naming no listed item, or an `add` / `rename` with no text, makes
/// the whole answer an error.
pub fn parse(
    v: &Value,
    items: &[(String, bool)],
    field: Option<&str>,
    clause: &str,
) -> Result<Vec<PlanStep>, String> {
    let quoted = super::clauses::quoted(clause);
    let steps = v["steps"]
        .as_array()
        .ok_or("`steps` (an array) is missing")?;
    let mut out = Vec::new();
    // Items this answer deletes or renames before: an add of one of them puts it back.
    let mut gone: Vec<String> = Vec::new();
    for s in steps {
        let op = s["do"].as_str().unwrap_or_default();
        let item = s["item"].as_str().unwrap_or_default().trim();
        let text = s["text"].as_str().unwrap_or_default().trim();
        let known = || {
            items
                .iter()
                .find(|(t, _)| t.eq_ignore_ascii_case(item))
                .map(|(t, _)| t.clone())
                .ok_or_else(|| format!("{op} names {item:?}, which is not on the list"))
        };
        let kind = match op {
            "none" => continue,
            "check" => StepKind::Check,
            "uncheck" => StepKind::Uncheck,
            "delete" => StepKind::Delete,
            "rename" => StepKind::Rename,
            "add" => StepKind::Type,
            _ => return Err(format!("unknown operation {op:?}")),
        };
        if matches!(kind, StepKind::Rename | StepKind::Type) && text.is_empty() {
            return Err(format!("{op} without its text"));
        }
        match kind {
            // An item already on the list is not added again: the clause told of it (a
            // small model answers "add" for "the new shoes are bought, that one's done").
            StepKind::Type
                if items.iter().any(|(t, _)| same_title(t, text))
                    && !gone.iter().any(|g| same_title(g, text)) => {}
            // "新钥匙只配了两把" answered `add "新钥匙只配了两把"`: a small model adds the
            // clause itself; only a name the clause quotes is a new item.
            StepKind::Type if !quoted.iter().any(|q| same_title(q, text)) => {}
            StepKind::Type => {
                let field = field.ok_or("add, but the screen has no one new-item field")?;
                out.push(step(StepKind::Type, field, text));
                out.push(step(StepKind::Press, "", "Enter"));
            }
            StepKind::Rename if known()?.eq_ignore_ascii_case(text) => {}
            _ => {
                if matches!(kind, StepKind::Delete | StepKind::Rename) {
                    gone.push(known()?);
                }
                out.push(step(kind, &known()?, text))
            }
        }
    }
    Ok(out)
}

/// Whether two item titles are the same but for case and runs of spaces.
fn same_title(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    norm(a) == norm(b)
}

/// The quoted names in step-language `lines` (the items they touch).
pub fn named(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .flat_map(|l| l.split('"').skip(1).step_by(2).map(str::to_string))
        .filter(|n| n != "Delete")
        .collect()
}

fn step(kind: StepKind, target: &str, text: &str) -> PlanStep {
    PlanStep {
        kind,
        target: target.to_string(),
        text: text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items() -> Vec<(String, bool)> {
        vec![
            ("fix the snare stand".into(), false),
            ("print the setlist".into(), false),
        ]
    }

    #[test]
    fn answers_become_typed_steps_on_listed_items_only() {
        let v = json!({"steps": [
            {"do": "delete", "item": "Fix the snare stand", "text": ""},
            {"do": "rename", "item": "print the setlist", "text": "print the final setlist"},
            {"do": "add", "item": "", "text": "charge the tuner"},
            {"do": "none", "item": "", "text": ""}
        ]});
        let s = parse(
            &v,
            &items(),
            Some("New item"),
            "…, and add 'charge the tuner' and 'fix the snare stand' and 'x'",
        )
        .unwrap();
        let lines: Vec<String> = s.iter().flat_map(|p| p.lines().unwrap()).collect();
        assert_eq!(
            lines,
            [
                "tap \"Delete\" in the row of \"fix the snare stand\"",
                "double tap \"print the setlist\"",
                "type \"print the final setlist\" into \"print the setlist\"",
                "press Enter",
                "type \"charge the tuner\" into \"New item\"",
                "press Enter",
            ]
        );
        assert!(parse(&json!({"steps": []}), &items(), None, "")
            .unwrap()
            .is_empty());
        let bad = json!({"steps": [{"do": "check", "item": "tune the drums", "text": ""}]});
        assert!(parse(&bad, &items(), None, "")
            .unwrap_err()
            .contains("not on the list"));
        let bad = json!({"steps": [{"do": "rename", "item": "print the setlist", "text": ""}]});
        assert!(parse(&bad, &items(), None, "").is_err());
        let again =
            json!({"steps": [{"do": "add", "item": "", "text": items()[0].0.to_uppercase()}]});
        assert_eq!(
            parse(
                &again,
                &items(),
                Some("New"),
                "…, and add 'charge the tuner' and 'fix the snare stand' and 'x'"
            )
            .unwrap(),
            vec![],
            "already listed"
        );
        let readd = json!({"steps": [
            {"do": "delete", "item": items()[0].0, "text": ""},
            {"do": "add", "item": "", "text": items()[0].0}
        ]});
        assert_eq!(
            parse(
                &readd,
                &items(),
                Some("New"),
                "…, and add 'charge the tuner' and 'fix the snare stand' and 'x'"
            )
            .unwrap()
            .len(),
            3,
            "deleted, then added back"
        );
        let add = json!({"steps": [{"do": "add", "item": "", "text": "x"}]});
        assert!(
            parse(
                &add,
                &items(),
                None,
                "…, and add 'charge the tuner' and 'fix the snare stand' and 'x'"
            )
            .is_err(),
            "no field to add into"
        );
        // The clause itself, answered as a new item: not quoted there, not added.
        let own = json!({"steps": [{"do": "add", "item": "", "text": "the new keys are cut"}]});
        assert_eq!(
            parse(&own, &items(), Some("New"), "the new keys are cut").unwrap(),
            vec![]
        );
    }

    #[test]
    fn the_prompt_lists_items_context_and_the_clause() {
        let p = prompt(
            &items(),
            &["the snare stand doesn't need fixing".into()],
            "bin that entry",
        );
        assert!(p.contains("- [ ] fix the snare stand"));
        assert!(p.contains("Said just before: «the snare stand doesn't need fixing»"));
        assert!(p.contains("Clause: «bin that entry»"));
        let s = schema(&items());
        assert_eq!(
            s["properties"]["steps"]["items"]["properties"]["item"]["enum"],
            json!(["fix the snare stand", "print the setlist", ""])
        );
    }
}
