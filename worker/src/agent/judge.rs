//! The judge: one model call over the final screen and the run's action log, made when a
//! natural-language run would end `unverified` (its instruction had nothing Argus could
//! check). It may move the run to `failed` — never to `succeeded`: a model's "yes" is a
//! claim, not evidence, and is recorded as one.
//!
//! Why: an agent's own "done" is often wrong (README's benchmark figures: 27 of 59 runs that
//! ended `succeeded` before verdicts were earned had failed by the page's own score).
//! browser-use 0.13 asks a separate judge over the final state; a judge that did not choose the actions catches some of those misses cheaply.
//! Here it is asked once, with a bounded answer ([`JUDGE_MAX_TOKENS`]), only on that path.
//!
//! A "not done" counts only with evidence: a text the judge copies from the final screen
//! that shows what is wrong — a whole element label there, not on the screen the run
//! started on and not typed by the run (an error or status message that appeared). Measured with
//! Qwen2.5-Coder-1.5B on form pages: asked without that rule it called 3 of 4 runs the
//! page scored right "not done" ("an error in the password field", "did not type
//! 'Thriller'" beside a listing that showed it typed); a judgement naming nothing on the
//! screen is recorded and ignored.

use std::time::Instant;

use argus_protocol::{ActionSource, Disposition, ModelUsage};
use chrono::Utc;
use serde_json::{json, Value};

use super::state::AgentState;
use crate::run::exec::Exec;
use crate::run::outcome::{cancelled, ms};
use crate::run::record::{Record, RecordKind};

/// Fewest characters the judge's evidence must have ("a", "OK" prove nothing).
pub const MIN_EVIDENCE_CHARS: usize = 3;

/// Most tokens the judge's answer may take: `{"done": …, "reason": "…"}` with a sentence.
pub const JUDGE_MAX_TOKENS: u32 = 160;

/// The judge's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    /// Whether everything the job asks is done, by the final screen and the log.
    pub done: bool,
    /// One sentence: what on the screen or in the log says so.
    pub reason: String,
    /// A text copied from the final screen that shows the job is not done ("" when done).
    pub evidence: String,
}

impl Judgement {
    /// Whether this judgement may fail the run: "not done" with evidence of at least
    /// [`MIN_EVIDENCE_CHARS`] characters for which `new_label` holds — in the worker, a whole
    /// element label of the final screen (case-insensitive) that the first plan's screen did
    /// not show and that is no text the run typed (an error or status message that appeared).
    pub fn fails_with(&self, new_label: impl Fn(&str) -> bool) -> bool {
        let e = self.evidence.trim();
        !self.done && e.chars().count() >= MIN_EVIDENCE_CHARS && new_label(e)
    }
}

/// The answer's JSON schema.
pub fn schema() -> Value {
    json!({"type": "object", "additionalProperties": false,
        "required": ["done", "reason", "evidence"],
        "properties": {"done": {"type": "boolean"},
            "reason": {"type": "string", "maxLength": 300},
            "evidence": {"type": "string", "maxLength": 120}}})
}

/// Parses `{"done": bool, "reason": "…", "evidence": "…"}` (unknown fields refused; a
/// missing `evidence` is empty).
pub fn parse(v: &Value) -> Result<Judgement, String> {
    let o = v.as_object().ok_or("the answer is not a JSON object")?;
    if let Some(k) = o
        .keys()
        .find(|k| !["done", "reason", "evidence"].contains(&k.as_str()))
    {
        return Err(format!("unexpected field {k:?}"));
    }
    Ok(Judgement {
        done: o
            .get("done")
            .and_then(Value::as_bool)
            .ok_or("`done` (true or false) is missing")?,
        reason: o
            .get("reason")
            .and_then(Value::as_str)
            .map(|s| s.trim().chars().take(300).collect())
            .unwrap_or_default(),
        evidence: o
            .get("evidence")
            .and_then(Value::as_str)
            .map(|s| s.trim().chars().take(120).collect())
            .unwrap_or_default(),
    })
}

/// The judge's messages: the job, the action log and the final screen's listing.
pub fn messages(task: &str, log: &[String], screen: &str) -> Vec<Value> {
    let log = if log.is_empty() {
        "(no action)".to_string()
    } else {
        log.join("\n")
    };
    vec![
        json!({"role": "system", "content": "You judge whether a UI-automation agent did its job. You did not act; the agent may be wrong about its own work. Answer only with JSON: {\"done\": true|false, \"reason\": \"…\", \"evidence\": \"…\"}."}),
        json!({"role": "user", "content": format!(
            "Job: {task}\n\nThe agent's actions, in order:\n{log}\n\nThe final screen:\n{screen}\n\nIs everything the job asks done, judging by the final screen first and the actions second? A field's value as the final screen lists it is what it holds. done is false only when a part of the job is missing, went to the wrong element or value, or the screen shows an error message; then evidence is a short text copied exactly from the final screen that shows it. reason says why in one sentence. When done is true, evidence is \"\"."
        )}),
    ]
}

impl Exec<'_, AgentState> {
    /// Asks the judge about `task` (a step of its own, `judge`, with a record of kind
    /// `judge` carrying the call's usage and the answer). `None` when there is no model, the
    /// run was cancelled, or the answer was unusable (the verdict then stays as it was).
    pub(crate) async fn judge(&mut self, task: &str) -> Option<Judgement> {
        self.client().ok()?;
        let step = self.rec.begin_step("judge").await.ok()?;
        let start = Instant::now();
        let started_at = Utc::now();
        let mut rec_timings = argus_protocol::ActionTimings::default();
        let s0 = Instant::now();
        let obs = self.ctx.observe().await.ok();
        rec_timings.perceive_ms = ms(s0);
        let screen = obs
            .as_ref()
            .map(|o| o.compact())
            .unwrap_or_else(|| "(the screen could not be observed)".into());
        let msgs: Vec<Value> = messages(task, self.rec.em.action_log(), &screen)
            .into_iter()
            .map(|mut m| {
                if let Some(c) = m["content"].as_str() {
                    m["content"] = json!(self.ctx.env.secrets.redact(c));
                }
                m
            })
            .collect();
        let mut usage = ModelUsage::default();
        let cancel = self.ctx.cancel.clone();
        let client = self.st.model.as_ref()?;
        let schema = schema();
        let res = tokio::select! {
            r = client.json(msgs, "judge", &schema, parse, JUDGE_MAX_TOKENS, &mut usage) => Some(r),
            _ = cancelled(&cancel) => None,
        };
        let before = self
            .ctx
            .start_obs
            .as_ref()
            .map(crate::agent::expect::screen_texts)
            .unwrap_or_default();
        let typed = self.st.typed.clone();
        let shown = |t: &str| {
            let same = |l: &str| l.trim().to_lowercase() == t.to_lowercase();
            obs.as_ref()
                .is_some_and(|o| o.elements.iter().any(|e| e.labels().any(same)))
                && !before.iter().any(|l| same(l))
                && !typed.iter().any(|l| same(l))
        };
        let (verdict, err) = match res {
            Some(Ok(j)) if !j.done && !j.fails_with(shown) => {
                let detail = format!(
                    "judge: not done ({}), but its evidence {:?} is no new text of the final screen: ignored",
                    j.reason, j.evidence
                );
                self.judge_record(step, detail, None, usage, &obs, rec_timings, started_at)
                    .await;
                self.rec.end_step(step, None, start).await;
                return None;
            }
            Some(Ok(j)) => (Some(j), None),
            Some(Err(e)) => (None, Some(format!("the judge's answer was unusable: {e}"))),
            None => (None, Some("cancelled".to_string())),
        };
        let detail = match &verdict {
            Some(j) if j.done => format!("judge: done ({})", j.reason),
            Some(j) => format!("judge: not done ({})", j.reason),
            None => "judge: no answer".to_string(),
        };
        self.judge_record(
            step,
            detail,
            err.clone(),
            usage,
            &obs,
            rec_timings,
            started_at,
        )
        .await;
        self.rec.end_step(step, err, start).await;
        verdict
    }

    /// Records the judge's call (kind `judge`, its usage and what it said).
    #[allow(clippy::too_many_arguments)]
    async fn judge_record(
        &mut self,
        step: u32,
        detail: String,
        err: Option<String>,
        usage: ModelUsage,
        obs: &Option<argus_perception::Observation>,
        timings: argus_protocol::ActionTimings,
        started_at: chrono::DateTime<Utc>,
    ) {
        let rec = Record::new(step, 0, RecordKind::Judge, detail, started_at)
            .result(err, Disposition::NotDelivered)
            .model(Some(usage), None, None)
            .source(Some(ActionSource::Model))
            .timings(timings)
            .on(obs.as_ref());
        let _ = self.rec.emit_action(rec.done()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_parse_strictly() {
        let j = parse(&json!({"done": false, "reason": "the list still shows it"})).unwrap();
        assert!(!j.done);
        assert_eq!(j.reason, "the list still shows it");
        assert!(parse(&json!({"reason": "x"})).is_err());
        assert!(parse(&json!({"done": true, "why": "x"})).is_err());
        assert!(parse(&json!([true])).is_err());
    }

    #[test]
    fn not_done_counts_only_with_evidence_on_the_screen() {
        let j = |done: bool, evidence: &str| Judgement {
            done,
            reason: "r".into(),
            evidence: evidence.into(),
        };
        let screen = |t: &str| t == "Name is required" || t == "OK";
        assert!(j(false, "Name is required").fails_with(screen));
        assert!(!j(false, "").fails_with(screen));
        assert!(
            !j(false, "OK").fails_with(screen),
            "too short to prove anything"
        );
        assert!(!j(false, "Password mismatch").fails_with(screen));
        assert!(!j(true, "Name is required").fails_with(screen));
    }

    #[test]
    fn the_prompt_carries_the_job_log_and_screen() {
        let m = messages(
            "Delete 'a'",
            &["tap \"Delete\": ok".into()],
            "[1] button \"Delete\"",
        );
        let u = m[1]["content"].as_str().unwrap();
        assert!(u.contains("Job: Delete 'a'"));
        assert!(u.contains("tap \"Delete\": ok"));
        assert!(u.contains("[1] button"));
        assert!(messages("x", &[], "")[1]["content"]
            .as_str()
            .unwrap()
            .contains("(no action)"));
    }
}
