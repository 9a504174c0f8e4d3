//! One question to the model about one description the reader could not judge
//! ([`super::clause_plan::Report`]): does this sentence say that this open to-do is done now?
//! The answer is one word of a closed set (`yes`, `no`, `unclear`, the schema's enum); only
//! `yes` ticks the item. A small model only judges one sentence about one named item.

use argus_protocol::ModelUsage;
use serde_json::{json, Value};

use super::clause_plan::Read;
use super::state::AgentState;
use crate::run::exec::Exec;
use crate::run::outcome::cancelled;

/// The system message.
pub const SYSTEM: &str =
    "You judge one sentence of a user's update about their to-do list. Answer only with JSON.";

/// Most tokens of an answer (one short object).
pub const MAX_TOKENS: u32 = 24;

/// The user message: the item, the sentence, and what counts as done.
pub fn prompt(item: &str, sentence: &str) -> String {
    format!(
        "To-do (not done yet): «{item}»\nSentence: «{}»\n\nDoes the sentence say that this to-do has been done now: it happened, was bought, got, sent, arrived, was answered, sorted, or the user says it counts as done? Answer \"yes\" only when it says so. Answer \"no\" when it says the to-do is not done yet, still to do, waiting, only partly done, put off, or to be left as it is, or when the sentence is about something else. Otherwise \"unclear\".\n\nAnswer {{\"done\": \"yes\" | \"no\" | \"unclear\"}}.",
        sentence.trim()
    )
}

/// The answer's JSON schema.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"done": {"type": "string", "enum": ["yes", "no", "unclear"]}},
        "required": ["done"],
        "additionalProperties": false
    })
}

/// Whether the answer is a yes; an error for an answer without `done` of the enum.
pub fn parse(v: &Value) -> Result<bool, String> {
    match v["done"].as_str() {
        Some("yes") => Ok(true),
        Some("no") | Some("unclear") => Ok(false),
        other => Err(format!("`done` must be yes, no or unclear, not {other:?}")),
    }
}

/// `read` with the model's yes of each report: a `check` of the item where its sentence
/// was said; the end states that name it are dropped (they said "as it was"), and the pair
/// stays in [`Read::unsure`], so a run cannot end `succeeded` on the model's reading alone.
/// A no, an unusable answer or a cancelled call leaves the plan as it was.
pub(crate) fn apply_yes(read: &mut Read, yes: &[usize]) {
    let mut yes = yes.to_vec();
    yes.sort_by_key(|i| std::cmp::Reverse(read.reports[*i].step));
    for i in yes {
        let r = read.reports[i].clone();
        let line = format!("check {}", super::clauses::quote_line(&r.item));
        read.steps.insert(r.step.min(read.steps.len()), line);
        let quoted = format!("\"{}\"", r.item);
        read.effects.retain(|e| !e.contains(&quoted));
        if !read.unsure.iter().any(|(_, item)| *item == r.item) {
            read.unsure.push((r.sentence.clone(), r.item.clone()));
        }
    }
    read.reports.clear();
}

impl Exec<'_, AgentState> {
    /// Asks the model about each of `read`'s reports ([`prompt`]) and applies the yeses
    /// ([`apply_yes`]). Returns a note for the plan record (empty when there were none).
    pub(crate) async fn ask_reports(&mut self, read: &mut Read, usage: &mut ModelUsage) -> String {
        if read.reports.is_empty() {
            return String::new();
        }
        let Some(c) = self.st.model.as_ref() else {
            read.reports.clear();
            return String::new();
        };
        let cancel = self.ctx.cancel.clone();
        let mut yes = Vec::new();
        let schema = schema();
        for (i, r) in read.reports.iter().enumerate() {
            let text = self.ctx.env.secrets.redact(&prompt(&r.item, &r.sentence));
            let messages = vec![
                json!({"role": "system", "content": SYSTEM}),
                json!({"role": "user", "content": text}),
            ];
            let ask = c.json(messages, "done_report", &schema, parse, MAX_TOKENS, usage);
            let answer = tokio::select! {
                a = ask => a.ok(),
                _ = cancelled(&cancel) => None,
            };
            if answer == Some(true) {
                yes.push(i);
            }
        }
        let n = read.reports.len();
        let ticked = yes.len();
        apply_yes(read, &yes);
        format!("; the model judged {n} description(s) that may report an item done: {ticked} did (ticked, and the run cannot succeed on that alone)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_yes_ticks_and_other_words_are_errors() {
        assert_eq!(parse(&json!({"done": "yes"})), Ok(true));
        assert_eq!(parse(&json!({"done": "no"})), Ok(false));
        assert_eq!(parse(&json!({"done": "unclear"})), Ok(false));
        assert!(parse(&json!({"done": "maybe"})).is_err());
        assert!(parse(&json!({})).is_err());
        let p = prompt("post the cheque", "The cheque went off this morning.");
        assert!(p.contains("«post the cheque»") && p.contains("went off this morning"));
    }

    #[test]
    fn a_yes_ticks_where_it_was_said_and_keeps_the_run_unsure() {
        let obs = crate::agent::clause_plan::test_list(&[
            ("post the cheque", false),
            ("book the vet", false),
        ]);
        let mut read = crate::agent::clause_plan::read(
            "The cheque is in the post box by the station. Tick the vet one.",
            &obs,
        )
        .expect("reads");
        assert_eq!(read.reports.len(), 1, "{read:?}");
        apply_yes(&mut read, &[0]);
        assert_eq!(read.steps[0], "check \"post the cheque\"", "{read:?}");
        assert!(read.effects.iter().all(|e| !e.contains("post the cheque")));
        assert!(read.unsure.iter().any(|(_, i)| i == "post the cheque"));
        assert!(read.reports.is_empty());
    }
}
