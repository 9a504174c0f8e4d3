//! The agent loop on the executor's device, store and emitter.
//!
//! A task (an `llm`/`vlm` job's instruction, or one `ai:` line) becomes: a `plan` step whose
//! one record carries the planned steps and the planner's token counts, then one step per
//! planned step. Each planned step loops: observe → screenshot (masked) → ask for exactly one
//! tool call → refuse it if it names another observation (stale) or an id that now names
//! something else → wait (bounded) until the target is actionable → act, repeating the input
//! only after a `not_delivered` failure → observe → reflect → record. Two consecutive B/C
//! reflections end the step with its failed attempts, and the task re-plans with them in the
//! prompt. `finish` ends the step; `fail` and failed assertions fail the run.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use argus_perception::Observation;
use argus_protocol::tool::{call_schema, parse_call, tools, tools_text, tools_text_pinned};
use argus_protocol::{
    Action, ActionSource, ActionTimings, Aim, CoordSpace, Disposition, Mode, ModelUsage,
    ReflectClass, Reflection,
};
use base64::Engine;
use chrono::Utc;
use serde_json::{json, Value};

use super::reflect::classify;
use super::replay::Replayed;
use super::state::AgentState;
use super::turn::{refusal, step_end, Facts, Progress, StepEnd, Turn};
use crate::model::client::{
    with_tools_text, ModelError, ToolSet, CHECK_MAX_TOKENS, FORM_MAX_TOKENS, PLAN_MAX_TOKENS,
};
use crate::run::exec::Exec;
use crate::run::outcome::{cancelled, ms, Outcome, StepFail};
use crate::run::record::{Record, RecordKind};
use crate::secrets::rules::{check, check_plan, named_by};

impl Exec<'_, AgentState> {
    fn mode(&self) -> Mode {
        if self.ctx.spec.mode == Mode::Vlm {
            Mode::Vlm
        } else {
            Mode::Llm
        }
    }

    /// Whether this run's action calls are decoded by `response_format` pinned to one
    /// observation (`llm` mode on an endpoint without tool calls; see
    /// [`pin_to_observation`]): the model then writes no observation number.
    fn pinned(&self) -> bool {
        self.mode() == Mode::Llm && self.st.model.as_ref().is_some_and(|c| !c.uses_tool_calls())
    }

    pub(crate) fn client(&mut self) -> Result<&crate::model::ModelClient, StepFail> {
        if self.st.model.is_none() {
            let c = self
                .ctx
                .env
                .client_for(self.ctx.spec)
                .map_err(|e| StepFail::Infra(e.to_string()))?;
            self.st.model = Some(c);
        }
        self.st
            .model
            .as_ref()
            .ok_or_else(|| StepFail::Infra("no model client".into()))
    }

    /// Plans and carries out one natural-language task.
    pub(crate) async fn agent_task(&mut self, task: &str) -> Result<(), StepFail> {
        if let Some(script) = self.st.replay.take() {
            match self.replay_script(&script).await? {
                Replayed::All => {
                    // The stored script's closing checks are the expectations the model's
                    // run mapped from this instruction; they are checked again at the end.
                    if !self.st.unmapped.is_empty() {
                        let lines = super::plan::closing_checks(&script);
                        let clause = self.st.unmapped.join(" / ");
                        let found = super::expect::from_clause(&clause, &lines);
                        if !found.is_empty() {
                            self.st.unmapped.clear();
                            self.add_expected(found);
                        }
                    }
                    self.send_expectations().await?;
                    return Ok(());
                }
                Replayed::HandedOver(note) => self.st.replay_note = Some(note),
            }
        }
        self.client()?;
        let mut failures: Vec<String> = Vec::new();
        let mut replans = 0u32;
        // How often the same action on the same target changed nothing (outcome C), over the
        // whole task: a re-plan alone does not make a fruitless action worth a third try
        // (only a changed screen does, see `agent_step_inner`).
        let mut fruitless: HashMap<String, Fruitless> = HashMap::new();
        let mut plan = self.plan_step(task, &failures, None).await?;
        self.send_expectations().await?;
        nothing_left(&plan, "plan", self.st.plan_dropped_acting)?;
        let mut i = 0usize;
        while i < plan.len() {
            if self.ctx.cancel.load(Ordering::Relaxed) {
                return Err(StepFail::Cancelled);
            }
            match self.agent_step(task, &plan, i, &mut fruitless).await? {
                StepEnd::Done => i += 1,
                StepEnd::JobDone => {
                    tracing::info!(run_id = %self.ctx.run_id, step = i + 1, of = plan.len(),
                        "the progress check says the job is done; the rest of the plan is skipped");
                    self.st.claim = Some(format!(
                        "the model's progress check said the job was done after step {} of {}",
                        i + 1,
                        plan.len()
                    ));
                    return Ok(());
                }
                StepEnd::Escalate(f) => {
                    // Stuck, but what the job asked to check already holds: stop here
                    // rather than re-plan and act on a job that is done.
                    let last = i.checked_sub(1).map(|k| plan[k].as_str()).unwrap_or("");
                    if self.expectations_hold_now(last, &plan[i..]).await {
                        self.stopped_early(plan.len() - i).await?;
                        return Ok(());
                    }
                    if self.skips_free(&plan, i) {
                        failures.extend(f);
                        i += 1;
                        continue;
                    }
                    failures.extend(f);
                    replans += 1;
                    if replans > self.ctx.env.config.replans {
                        return Err(StepFail::Verdict(format!(
                            "gave up after {} re-plans; last failed attempts: {}",
                            replans - 1,
                            failures
                                .iter()
                                .rev()
                                .take(3)
                                .cloned()
                                .collect::<Vec<_>>()
                                .join("; ")
                        )));
                    }
                    let next = self.plan_step(task, &failures, Some((&plan, i))).await?;
                    // Steps already carried out, repeated at the head of the re-plan, are not
                    // carried out again (a small model re-plans the whole job).
                    let next = super::plan_fix::without_done(next, &plan[..i]);
                    if next == plan[i..] || next == plan {
                        return Err(StepFail::Verdict(format!(
                            "the re-plan is identical to the plan that got stuck at step {} ({:?}); giving up instead of repeating it. Failed attempts: {}",
                            i + 1,
                            plan[i],
                            failures.iter().rev().take(3).cloned().collect::<Vec<_>>().join("; ")
                        )));
                    }
                    nothing_left(&next, "re-plan", self.st.plan_dropped_acting)?;
                    self.st.read_plan = false;
                    plan = next;
                    i = 0;
                }
            }
        }
        Ok(())
    }

    /// Whether stuck step `i` of `plan` is a free step of the read plan that the model could
    /// not carry out, with steps the reader read after it: it is skipped and recorded
    /// ([`super::state::AgentState::skipped`]), so the run cannot pass, and the reader's own
    /// steps still run. Measured: a re-plan after such a step (a model tapping a heading
    /// for "switch to the Active filter") planned only two of the four steps left and lost
    /// an untick the reader had read.
    fn skips_free(&mut self, plan: &[String], i: usize) -> bool {
        let free = |s: &String| super::plan_fix::as_script_line(s).is_none();
        let skip = self.st.read_plan
            && plan.get(i).is_some_and(free)
            && plan[i + 1..].iter().any(|s| !free(s));
        if skip {
            self.st.skipped.push(plan[i].clone());
        }
        skip
    }

    /// Records that the run's expectations held when a step got stuck, so the `skipped`
    /// planned steps from it on are not carried out and nothing is re-planned (a step of its
    /// own, so the report says why they are missing). Measured before: episodes the page had
    /// already scored a success that the agent kept acting on and ended `failed`.
    async fn stopped_early(&mut self, skipped: usize) -> Result<(), StepFail> {
        let text = format!(
            "stopped early: a step got stuck and every expectation already holds; the {skipped} planned step(s) left are skipped"
        );
        tracing::info!(run_id = %self.ctx.run_id, skipped, "expectations hold; the rest of the plan is skipped");
        let step = self.rec.begin_step(&text).await?;
        self.rec.end_step(step, None, Instant::now()).await;
        Ok(())
    }

    /// The planner's messages: the job, what a replay did, the screen (`None`: it could not
    /// be observed), the request for the expectations Argus could not map (first plan only),
    /// and for a re-plan the previous plan and its failures; secrets redacted.
    fn planner_messages(
        &self,
        task: &str,
        obs: Option<&Observation>,
        failures: &[String],
        previous: Option<(&[String], usize)>,
    ) -> Vec<Value> {
        let screen = match obs {
            Some(o) => format!(
                "Current screen (observation {}):\n{}",
                o.serial,
                o.compact()
            ),
            None => "The current screen could not be observed.".into(),
        };
        let replayed = self
            .st
            .replay_note
            .as_deref()
            .map(|n| format!("\n\n{n}"))
            .unwrap_or_default();
        let mut user = super::prompts::planner(task, &replayed, &screen);
        if previous.is_none() && !self.st.unmapped.is_empty() {
            user.push_str(&super::plan::expect_request(&self.st.unmapped));
        }
        if let Some((prev, at)) = previous {
            user.push_str(&super::prompts::replan(prev, at, failures));
        }
        let user = self.ctx.env.secrets.redact(&user);
        vec![
            json!({"role": "system", "content": super::prompts::PLANNER_SYSTEM}),
            json!({"role": "user", "content": user}),
        ]
    }

    /// A `plan` (or `re-plan`) step: one planner call, recorded with the plan and usage.
    async fn plan_step(
        &mut self,
        task: &str,
        failures: &[String],
        previous: Option<(&[String], usize)>,
    ) -> Result<Vec<String>, StepFail> {
        let title = if previous.is_some() {
            "re-plan"
        } else {
            "plan"
        };
        let step = self.rec.begin_step(title).await?;
        let start = Instant::now();
        let started_at = Utc::now();
        let mut t = ActionTimings::default();
        let s0 = Instant::now();
        let obs = self.ctx.observe().await.map_err(StepFail::Device);
        t.perceive_ms = ms(s0);
        if let (Ok(o), true) = (&obs, self.ctx.start_obs.is_none()) {
            self.ctx.start_obs = Some(o.clone());
        }
        if let (Ok(o), None) = (&obs, previous) {
            self.map_states(task, o);
        }
        // A first plan every clause of which reads needs the model only for the checkable
        // clauses Argus could not map itself.
        // Not after a replay handed over: part of the job is done, which the model is told.
        let mut read = match (&obs, previous) {
            (Ok(o), None) if self.st.replay_note.is_none() => super::clause_plan::read(task, o),
            _ => None,
        };
        if let Some(r) = &read {
            self.map_given(&r.checks);
        }
        let ask_expect = previous.is_none() && !self.st.unmapped.is_empty();
        let messages = self.planner_messages(task, obs.as_ref().ok(), failures, previous);
        let mut usage = ModelUsage::default();
        if let Err(e) = self.client() {
            self.rec
                .end_step(step, Some("no model".into()), start)
                .await;
            return Err(e);
        }
        let cancel = self.ctx.cancel.clone();
        let schema = super::plan::schema(ask_expect);
        let mut mapped = String::new();
        if let (Some(r), Ok(o)) = (read.as_mut(), &obs) {
            mapped = self.map_free(r, o, &mut usage).await;
            mapped.push_str(&self.ask_reports(r, &mut usage).await);
        }
        let read_first = read.is_some();
        let res = match self.st.model.as_ref() {
            _ if read.is_some() && !ask_expect => Some(None),
            Some(c) => tokio::select! {
                r = c.json(messages, "plan", &schema, super::plan::parse, PLAN_MAX_TOKENS, &mut usage) => Some(Some(r)),
                _ = cancelled(&cancel) => None,
            },
            None => return Err(StepFail::Infra("no model client".into())),
        };
        let Some(res) = res else {
            self.rec
                .end_step(step, Some("cancelled".into()), start)
                .await;
            return Err(StepFail::Cancelled);
        };
        self.st.read_plan = read.is_some();
        let (ok, err, mut plan, mut detail) = match (res, read) {
            (res, Some(r)) => self.read_plan(task, res, obs.as_ref().ok(), r),
            (Some(res), None) => self.planned(task, res, obs.as_ref().ok(), previous.is_none()),
            (None, None) => (false, Some("no plan".into()), Vec::new(), "no plan".into()),
        };
        detail.push_str(&mapped);
        if let (true, Ok(o), None) = (ok && !read_first, &obs, previous) {
            plan = self
                .with_form_values(task, plan, o, &mut usage, &mut detail)
                .await;
        }
        let rec = Record::new(step, 0, RecordKind::Plan, detail, started_at)
            .result(err.clone(), Disposition::NotDelivered)
            .model(Some(usage), None, ok.then(|| plan.clone()))
            .source(Some(ActionSource::Model))
            .timings(t)
            .on(obs.as_ref().ok());
        self.rec.emit_action(rec.done()).await?;
        self.rec.end_step(step, err.clone(), start).await;
        self.checked_plan(title, plan, err)
    }

    /// `plan` with each form field typed the value the instruction (`task`) gives it, when it
    /// leaves one untyped ([`super::form_fill`]); what that changed is told in `detail`.
    async fn with_form_values(
        &mut self,
        task: &str,
        mut plan: Vec<String>,
        o: &Observation,
        usage: &mut ModelUsage,
        detail: &mut String,
    ) -> Vec<String> {
        if super::form_fill::leaves_untyped(&plan, o, task) {
            let values = self.form_values(task, o, usage).await;
            let (filled, n) = super::form_fill::complete(plan, &values);
            plan = filled;
            if n > 0 {
                detail.push_str(&format!(
                    " ({n} typing(s) added, moved or dropped to give each form field the value the instruction gives it)"
                ));
            }
        }
        plan
    }

    /// The `title` step's plan once [`check_plan`] passes it (else a verdict failure), or
    /// its planning failure `err`.
    fn checked_plan(
        &self,
        title: &str,
        plan: Vec<String>,
        err: Option<String>,
    ) -> Result<Vec<String>, StepFail> {
        match err {
            None => {
                check_plan(
                    &plan,
                    &named_by(self.ctx.spec),
                    super::plan_fix::as_script_line,
                )
                .map_err(|e| StepFail::Verdict(format!("{title}: {e}")))?;
                Ok(plan)
            }
            Some(e) => Err(StepFail::Infra(format!("planning failed: {e}"))),
        }
    }

    /// Check clauses the read plan gave the state of ("so it should be open again"), mapped
    /// to the check line of that state on the item it resolved (`Read::checks`).
    fn map_given(&mut self, checks: &[(String, String)]) {
        for (seg, line) in checks {
            let seg = seg.trim();
            let Some(at) = self.st.unmapped.iter().position(|c| c.contains(seg)) else {
                continue;
            };
            let clause = self.st.unmapped.remove(at);
            let found = super::expect::from_clause(&clause, std::slice::from_ref(line));
            self.add_expected(found);
        }
    }

    /// Checkable clauses that name a list item by its words and its state, mapped on the
    /// first screen without the model ([`super::clause_plan::state_check`]), or say one is
    /// gone ([`super::clause_plan::absence_check`]).
    fn map_states(&mut self, task: &str, obs: &Observation) {
        let added = super::effects::added(task);
        let mut left = Vec::new();
        for c in std::mem::take(&mut self.st.unmapped) {
            let found = super::clause_plan::state_check(&c, obs, &added)
                .or_else(|| super::clause_plan::absence_check(&c, obs, &added))
                .map(|line| super::expect::from_clause(&c, &[line]))
                .unwrap_or_default();
            if found.is_empty() {
                left.push(c);
            } else {
                self.add_expected(found);
            }
        }
        self.st.unmapped = left;
    }

    /// The values the instruction gives the form on `obs` ([`super::form_fill`]): one model
    /// call for the whole form, one more for each field (at most three) whose value it
    /// missed or made up, one more for each field (at most three) still without one, asking
    /// for the value worked out where the instruction describes it ([`super::form_derive`]),
    /// then the field's name as a cue; none when the screen is no form or the run is cancelled.
    async fn form_values(
        &mut self,
        task: &str,
        obs: &Observation,
        usage: &mut ModelUsage,
    ) -> Vec<(String, String)> {
        use super::form_derive as fd;
        use super::form_fill as ff;
        let fields = ff::fields(obs);
        let Some(c) = self.st.model.as_ref().filter(|_| !fields.is_empty()) else {
            return Vec::new();
        };
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        let redacted = self.ctx.env.secrets.redact(task);
        let cancel = self.ctx.cancel.clone();
        let ask = async {
            let whole = c
                .json(
                    ff::messages(&redacted, &fields),
                    "form_values",
                    &ff::schema(&names),
                    |v| ff::parse(v, &names),
                    FORM_MAX_TOKENS,
                    usage,
                )
                .await
                .unwrap_or_default();
            let mut values = Vec::new();
            let (mut asked, mut derived) = (0, 0);
            for name in &names {
                // "先写 Plum，紧接着数字 7，再写 Orchid": a value dictated piece by piece is
                // put together without the model (which typed one piece of it).
                let masked = fields.iter().any(|f| f.name == *name && f.masked);
                let only_masked = fields.iter().all(|f| f.masked);
                let mut v = super::form_compose::composed(task, name, masked, only_masked)
                    .or_else(|| ff::held(&whole, name, task));
                if v.is_none() && asked < 3 {
                    asked += 1;
                    let one = [*name];
                    let answer = c
                        .json(
                            ff::one_messages(&redacted, name, &fields),
                            "form_value",
                            &ff::schema(&one),
                            |v| ff::parse(v, &one),
                            FORM_MAX_TOKENS,
                            usage,
                        )
                        .await
                        .unwrap_or_default();
                    v = ff::held(&answer, name, task);
                }
                if v.is_none() && derived < 3 {
                    derived += 1;
                    v = c
                        .json(
                            fd::messages(&redacted, name, &fields),
                            "form_value_derived",
                            &fd::schema(),
                            fd::parse,
                            FORM_MAX_TOKENS,
                            usage,
                        )
                        .await
                        .ok()
                        .flatten()
                        .filter(|v| fd::built_from(task, v));
                }
                if let Some(v) = v.or_else(|| ff::cue_value(task, name)) {
                    values.push((name.to_string(), v));
                }
            }
            ff::settle(values, &fields)
        };
        tokio::select! {
            v = ask => v,
            _ = cancelled(&cancel) => Vec::new(),
        }
    }

    /// The free steps of a read plan the model maps clause by clause ([`super::clause_map`]):
    /// each becomes the lines of its answer (none for `none`); an unusable answer leaves it
    /// free, or drops it when it was read as a description. Returns a note for the plan record.
    async fn map_free(
        &mut self,
        read: &mut super::clause_plan::Read,
        obs: &Observation,
        usage: &mut ModelUsage,
    ) -> String {
        use super::clause_map as cm;
        if read.free.is_empty() {
            return String::new();
        }
        let Some(c) = self.st.model.as_ref() else {
            // No model to ask: what was read as a description stays one.
            *read = std::mem::take(read).without_asks();
            return String::new();
        };
        let field = super::clause_plan::one_text_field(obs);
        let start = super::clause_plan::list_items(obs);
        let cancel = self.ctx.cancel.clone();
        let (mut n_mapped, mut n_none, mut n_left) = (0, 0, 0);
        // Last first: replacing a step keeps the earlier indices.
        for f in read.free.clone().into_iter().rev() {
            let mut items = start.clone();
            for line in &read.steps[..f.step] {
                if let Some(argus_protocol::Action::Type { text, .. }) =
                    super::plan_fix::as_script_line(line)
                {
                    items.push((text, false));
                }
            }
            let text = self
                .ctx
                .env
                .secrets
                .redact(&cm::prompt(&items, &f.before, &f.clause));
            let messages = vec![
                json!({"role": "system", "content": cm::SYSTEM}),
                json!({"role": "user", "content": text}),
            ];
            let schema = cm::schema(&items);
            let ask = c.json(
                messages,
                "clause",
                &schema,
                |v| cm::parse(v, &items, field.as_deref(), &f.clause),
                cm::MAX_TOKENS,
                usage,
            );
            let answer = tokio::select! {
                r = ask => r.ok(),
                _ = cancelled(&cancel) => None,
            };
            let lines: Option<Vec<String>> = answer.and_then(|steps| {
                steps
                    .iter()
                    .map(|s| s.lines())
                    .collect::<Result<Vec<_>, _>>()
                    .ok()
                    .map(|v| v.concat())
            });
            match lines {
                Some(l) => {
                    if l.is_empty() {
                        n_none += 1;
                    } else {
                        n_mapped += 1;
                    }
                    // The reader's end states did not foresee this clause's steps.
                    let named = cm::named(&l);
                    read.effects
                        .retain(|e| !named.iter().any(|n| e.contains(&format!("\"{n}\""))));
                    for r in read.reports.iter_mut().filter(|r| r.step > f.step) {
                        r.step = r.step + l.len() - 1;
                    }
                    read.steps.splice(f.step..=f.step, l);
                }
                None if f.described => {
                    n_none += 1;
                    read.steps.remove(f.step);
                    for r in read.reports.iter_mut().filter(|r| r.step > f.step) {
                        r.step -= 1;
                    }
                }
                None => n_left += 1,
            }
        }
        read.free.clear();
        format!("; the model mapped {n_mapped} clause(s) the reader could not read, found {n_none} to ask for nothing, left {n_left} as free steps")
    }

    /// The planner's result as (ok, error, steps, the plan record's detail). A first plan the
    /// model could not give in a usable shape within its re-asks (a small model's steps that
    /// all name no target; measured: such runs errored) runs the instruction
    /// sentence by sentence ([`super::plan::as_free_steps`]) as steps the model acts on, as
    /// plans of free strings do; any other failure, and an unusable re-plan, is the step's
    /// error.
    fn planned(
        &mut self,
        task: &str,
        res: Result<super::plan::Plan, ModelError>,
        obs: Option<&Observation>,
        first: bool,
    ) -> (bool, Option<String>, Vec<String>, String) {
        if first {
            // The model plans it all: the list items the instruction never names stay as
            // they were, when it names some and no order may touch many.
            if let Some(o) = obs {
                let lines = super::clause_plan::unnamed_guard(task, o);
                let found = super::expect::effect_lines(lines, &self.st.expected);
                self.add_expected(found);
            }
        }
        match res {
            Ok(p) => {
                let (plan, detail) = self.shape_plan(task, p, obs);
                (true, None, plan, detail)
            }
            Err(ModelError::Format { tries, last }) if first && !task.trim().is_empty() => {
                let steps = super::plan::as_free_steps(task);
                let detail = format!(
                    "{} steps: no usable plan after {tries} tries ({}); the instruction runs sentence by sentence, as steps the model acts on",
                    steps.len(),
                    crate::model::client::clip_text(&last)
                );
                (true, None, steps, detail)
            }
            Err(e) => (
                false,
                Some(e.to_string()),
                Vec::new(),
                "no plan".to_string(),
            ),
        }
    }

    /// A first plan read from the instruction's clauses ([`super::clause_plan`]): the
    /// planner's answer, when it was asked for the expectations Argus could not map, gives
    /// only those; its steps are set aside.
    fn read_plan(
        &mut self,
        task: &str,
        res: Option<Result<super::plan::Plan, ModelError>>,
        obs: Option<&Observation>,
        read: super::clause_plan::Read,
    ) -> (bool, Option<String>, Vec<String>, String) {
        let mut detail = format!(
            "{} steps read from the instruction's clauses without the model",
            read.steps.len()
        );
        if read.already > 0 {
            detail.push_str(&format!(
                " ({} order(s) whose effect the screen already shows left out)",
                read.already
            ));
        }
        match res {
            Some(Ok(p)) => {
                let set_aside = p.steps.len();
                let _ = self.shape_plan(task, p, obs);
                detail.push_str(&format!(
                    "; the planner, asked for the expectations only, planned {set_aside} step(s), set aside"
                ));
            }
            Some(Err(e)) => detail.push_str(&format!(
                "; the planner, asked for the expectations only, failed: {}",
                crate::model::client::clip_text(&e.to_string())
            )),
            None => {}
        }
        self.st.unsure = read.unsure.clone();
        if let Some(o) = obs {
            let renames = super::expect::renames(&read.steps, o);
            let mut moved = 0;
            for e in self.st.expected.iter_mut() {
                moved += usize::from(super::expect::follow_rename(e, &renames));
            }
            if moved > 0 {
                self.st.expectations_sent = usize::MAX;
                detail.push_str(&format!(
                    " ({moved} check(s) of an item the plan renames moved to its new name)"
                ));
            }
        }
        let taken = self.take_end_state(&read.effects, &read.steps);
        // A check of a toggle on an item the read plan deletes cannot hold ("…neither is
        // marked done" mapped for every item, the deleted one too).
        let known: Vec<String> = self
            .st
            .expected
            .iter()
            .map(|e| e.exp.line.clone())
            .collect();
        let before = self.st.expected.len();
        self.st.expected.retain(|e| {
            e.exp.source != argus_protocol::ExpectationSource::Instruction
                || !super::plan_typed::guessed(&e.exp.line, &e.exp.line, &known)
        });
        if self.st.expected.len() != before {
            self.st.expectations_sent = usize::MAX;
        }
        if taken > 0 {
            detail.push_str(&format!(
                " ({taken} end state(s) the read plan leaves its items in, expected)"
            ));
        }
        let (steps, added) = super::plan_fix::repair(read.steps);
        if added > 0 {
            detail.push_str(&format!(" ({added} `press Enter` added)"));
        }
        (true, None, steps, detail)
    }

    /// The end state a plan read from the instruction leaves its items in, as expectations
    /// of source `effect` (they can fail a run, never earn `succeeded`), but for an item an
    /// expectation already names (the instruction's own words decide it); the number taken.
    /// Measured before: a tick that landed on the wrong row ended `succeeded` because the
    /// only check, a count, held either way.
    ///
    /// A read plan that ends on a view hiding some items (`steps`, [`ends_on_view`]) drops
    /// the end states read from the quoted items too: "add 'x', then flip to the Completed
    /// filter" leaves x open and out of sight (measured: such a run ended `failed` on
    /// `assert screen contains "x"` with the page right).
    ///
    /// [`ends_on_view`]: super::clause_plan::ends_on_view
    fn take_end_state(&mut self, lines: &[String], steps: &[String]) -> usize {
        if lines.is_empty() && !super::clause_plan::ends_on_view(steps) {
            return 0;
        }
        // The plan's end state, played item by item, supersedes the effects read from the
        // quoted items alone ("“X”那条是我手滑点成完成的…改回未完成": X ends open).
        let before = self.st.expected.len();
        self.st
            .expected
            .retain(|e| e.exp.source != argus_protocol::ExpectationSource::Effect);
        if self.st.expected.len() != before {
            // The reported list changed: report it again.
            self.st.expectations_sent = usize::MAX;
        }
        let named = |l: &str| {
            super::clauses::quoted(l).first().is_some_and(|item| {
                let q = super::clauses::quote_line(item);
                self.st.expected.iter().any(|e| e.exp.line.contains(&q))
            })
        };
        let fresh: Vec<String> = lines.iter().filter(|l| !named(l)).cloned().collect();
        let found = super::expect::effect_lines(fresh, &self.st.expected);
        let n = found.len();
        self.add_expected(found);
        n
    }

    /// The expectations the planner mapped for the checkable clauses Argus could not map
    /// itself, taken in after dropping what the planner made up from the screen and what a
    /// password box can never show; the number taken.
    fn take_expectations(&mut self, p: &super::plan::Plan, obs: Option<&Observation>) -> usize {
        if !p.expect.is_empty() && !self.st.unmapped.is_empty() {
            let found = if p.expect.len() == self.st.unmapped.len() {
                let pairs: Vec<(String, String)> = self
                    .st
                    .unmapped
                    .iter()
                    .cloned()
                    .zip(p.expect.iter().cloned())
                    .collect();
                pairs
                    .iter()
                    .flat_map(|(c, l)| super::expect::from_clause(c, std::slice::from_ref(l)))
                    .collect::<Vec<_>>()
            } else {
                super::expect::from_clause(&self.st.unmapped.join(" / "), &p.expect)
            };
            let mut found = found;
            if let Some(o) = obs {
                // What the planner made up for a clause from the screen as it is (a number on
                // the page, other items' names) holds before any action: no evidence of it.
                let said = self.st.unmapped.join(" ");
                let known: Vec<String> = self
                    .st
                    .expected
                    .iter()
                    .map(|e| e.exp.line.clone())
                    .collect();
                found.retain(|e| !super::plan_typed::guessed(&e.exp.line, &said, &known));
                found.retain(|e| {
                    let names = super::plan_typed::names_the_clause(&e.exp.line, &said);
                    (names || !super::plan_typed::holds_already(&e.exp.line, o))
                        && !super::plan_typed::made_up(&e.exp.line, &said, o)
                        && (names || !super::plan_typed::guesses_a_change(&e.exp.line, o))
                });
                // A masked box never shows what was typed into it.
                found.retain(|e| !super::plan_typed::expects_a_password(&e.exp.line, &p.steps, o));
            }
            let mapped = found.len();
            if mapped >= self.st.unmapped.len().min(p.expect.len()) && mapped > 0 {
                self.st.unmapped.clear();
            }
            self.add_expected(found);
            return mapped;
        }
        0
    }

    /// The planner's answer made runnable: its expectations taken in, checks written as steps
    /// dropped, ids rewritten as targets, the closing tap and `press Enter`s added. Returns
    /// the steps and the plan record's detail.
    fn shape_plan(
        &mut self,
        task: &str,
        p: super::plan::Plan,
        obs: Option<&Observation>,
    ) -> (Vec<String>, String) {
        let mapped = self.take_expectations(&p, obs);
        let (steps, checks, others) = super::plan::sorted_out(p.steps, obs);
        let (steps, back) = super::plan::without_unasked_back(steps, task);
        let dropped = checks + others + back;
        self.st.plan_dropped_acting = others + back > 0;
        let (steps, repeated) = super::plan::without_repeated_typing(steps, &self.st.typed, obs);
        let (steps, named, closing) = match obs {
            Some(o) => {
                let (s, named) = super::plan_ids::name_elements(steps, o);
                let (s, closing) = super::plan_cover::with_closing_tap(task, s, o);
                (s, named, closing)
            }
            None => (steps, 0, false),
        };
        let (steps, relisted) = super::plan::without_listed_adds(steps, task, obs);
        let repeated = repeated + relisted;
        let (steps, forbidden) = super::plan_typed::without_forbidden_taps(steps, task);
        let (steps, respelt) = super::plan_typed::as_written(steps, task);
        let form: Vec<String> = obs
            .map(|o| {
                super::form_fill::fields(o)
                    .into_iter()
                    .map(|f| f.name)
                    .collect()
            })
            .unwrap_or_default();
        let (steps, swapped) = super::form_swap::swapped(steps, task, &form);
        let respelt = respelt + swapped;
        let (steps, submitted) = super::plan_typed::adds_submitted(steps, task);
        let (steps, added) = super::plan_fix::repair(steps);
        let added = added + submitted;
        let mut detail = format!("{} steps", steps.len());
        if forbidden > 0 {
            detail.push_str(&format!(
                " ({forbidden} tap(s) on a control the instruction says not to press dropped)"
            ));
        }
        if respelt > 0 {
            detail.push_str(&format!(
                " ({respelt} typed text(s) spelt as the instruction spells them, corrections it makes later included)"
            ));
        }
        if p.unwritable > 0 {
            detail.push_str(&format!(
                " ({} planned step(s) naming nothing to act on dropped)",
                p.unwritable
            ));
        }
        if mapped > 0 {
            detail.push_str(&format!(" ({mapped} expectation(s) from the planner)"));
        }
        if dropped > 0 {
            detail.push_str(&format!(
                " ({dropped} check(s), heading tap(s) or unasked `go back` written as steps dropped: the instruction's checks are expectations, a heading is no control, the job stays on its app)"
            ));
        }
        if repeated > 0 {
            detail.push_str(&format!(
                " ({repeated} typing(s) this run already did, or adds of an item the list already holds, skipped)"
            ));
        }
        if added > 0 {
            detail.push_str(&format!(
                " ({added} `press Enter` added: an item the instruction adds, or a field typed into more than once or tapped right after its typing, is submitted)"
            ));
        }
        if named > 0 {
            detail.push_str(&format!(
                " ({named} naming elements by id, neighbour marker or a name the screen lacks: rewritten as targets)"
            ));
        }
        if closing {
            detail.push_str(
                " (the job's closing button tap, which the plan dropped, appended as the last step)",
            );
        }
        (steps, detail)
    }

    fn prompt(
        &self,
        task: &str,
        plan: &[String],
        i: usize,
        history: &[String],
        obs: &Observation,
        png: Option<&[u8]>,
    ) -> Vec<Value> {
        let mode = self.mode();
        let (w, h) = obs.screen.device_size();
        let space = self.ctx.coord_space();
        let how = if mode == Mode::Vlm {
            match space {
                CoordSpace::Abs => format!("Name points as x, y in screenshot pixels ({w}×{h})."),
                CoordSpace::Norm1000 => "Name points as x, y from 0 to 1000 on each axis (0,0 top-left, 1000,1000 bottom-right).".into(),
                CoordSpace::Norm999 => "Name points as x, y from 0 to 999 on each axis (0,0 top-left, 999,999 bottom-right).".into(),
            }
        } else {
            "Name elements by their id in the current element list.".into()
        };
        // Observation numbers are asked for only where the model writes one: native tool
        // calls (whose tools stay whole: they are the prompt's cached prefix) and `vlm`;
        // `llm` decoding by `response_format` names none (see [`pin_to_observation`]).
        let obs_rule = if self.pinned() {
            ""
        } else {
            " Every acting call passes the observation number it was made from."
        };
        let system = format!(
            "You operate a {} device for a UI-automation job, one tool call per turn. {how}{obs_rule} Call exactly one tool. Call finish when the current step is done, fail when it cannot be done. An action that went through is done even when the screen shows no change (a click often changes nothing visible): if it was what the step asks, call finish instead of repeating it. Type secrets as ${{secret.NAME}}, never guess them.",
            self.ctx.spec.platform
        );
        let plan_text = plan
            .iter()
            .enumerate()
            .map(|(k, s)| format!("{}{}. {s}", if k == i { "→ " } else { "  " }, k + 1))
            .collect::<Vec<_>>()
            .join("\n");
        let done = if history.is_empty() {
            "none yet".to_string()
        } else {
            history.join("\n")
        };
        // Most to least lasting, so a prefix cache serves what did not change: the job and
        // plan, the step, the screen's element list, this step's actions, and the
        // observation's number last. A progress check is this prompt plus its question, so the
        // action call after it on an unchanged screen is served up to its last line; an
        // attempt that changed nothing adds one history line after the list, which is then
        // served too (measured on the local 1.5B model: ~11 and ~80 new prompt tokens
        // instead of ~93 and ~175; 17-30 ms a prompt token on 2 cores).
        let mut text = format!(
            "Job: {task}\nPlan:\n{plan_text}\nCurrent step: {}\n\nThe screen ({w}×{h} px):\n",
            plan[i]
        );
        if mode == Mode::Vlm && png.is_some() {
            text.push_str("(the attached screenshot outlines every element below and labels it with its id)\n");
        }
        if mode == Mode::Vlm {
            // The Set-of-Mark image labels every element: the list stays whole beside it.
            text.push_str(&obs.compact());
        } else {
            text.push_str(&super::focus::element_list(obs, &plan[i], task));
        }
        text.push_str(&format!(
            "\n\nActions so far in this step:\n{done}\n\nObservation {}: the screen above.",
            obs.serial
        ));
        let text = self.ctx.env.secrets.redact(&text);
        let content = match png {
            Some(p) if mode == Mode::Vlm => json!([
                {"type": "text", "text": text},
                {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}",
                    base64::engine::general_purpose::STANDARD.encode(p))}}
            ]),
            _ => json!(text),
        };
        vec![
            json!({"role": "system", "content": system}),
            json!({"role": "user", "content": content}),
        ]
    }

    /// A free step whose verb names one button on the screen now, as that tap
    /// ([`super::clause_plan::verb_button`]).
    async fn verb_button(&mut self, step: &str) -> Option<Action> {
        if step.contains('"') {
            return None;
        }
        let obs = self.ctx.observe().await.ok()?;
        let line = super::clause_plan::verb_button(step, &obs)?;
        super::plan_fix::as_script_line(&line)
    }

    /// One planned step, action by action.
    async fn agent_step(
        &mut self,
        task: &str,
        plan: &[String],
        i: usize,
        fruitless: &mut HashMap<String, Fruitless>,
    ) -> Result<StepEnd, StepFail> {
        let step = self.rec.begin_step(&plan[i]).await?;
        let start = Instant::now();
        // A step written as a step-language line runs as one, without a model call; when
        // its target cannot be found or used, the model takes the step over.
        if let Some(want) = super::check_every::wanted(&plan[i]) {
            let mut next = 0;
            let res = match self.check_every(step, want, &mut next).await {
                Ok(_) => Ok(StepEnd::Done),
                // No toggle to walk, or one that would not stay set: the model takes over.
                Err(StepFail::Verdict(e)) => {
                    tracing::info!(run_id = %self.ctx.run_id, step = %plan[i], error = %e,
                        "check every item failed; the model takes it over");
                    self.agent_step_inner(step, task, plan, i, fruitless, next.max(1))
                        .await
                }
                Err(e) => Err(e),
            };
            if self.ctx.spec.mode != Mode::Script {
                self.st.learned.fail(format!(
                    "the planned step {:?} has no step-language form",
                    plan[i]
                ));
            }
            let err = res.as_ref().err().map(StepFail::message);
            self.rec.end_step(step, err, start).await;
            return res.map_err(|e| e.context(&format!("step {} ({})", step + 1, plan[i])));
        }
        let line = match super::plan_fix::as_script_line(&plan[i]) {
            Some(a) => Some(a),
            None => self.verb_button(&plan[i]).await,
        };
        let res = match line {
            Some(action) => match self.line_as_model(step, &action).await {
                Ok(()) => {
                    if let Action::Type { text, .. } = &action {
                        self.st.typed.push(text.clone());
                    }
                    if action.kind().acts() {
                        self.st.actions_taken += 1;
                    }
                    if self.ctx.spec.mode != Mode::Script {
                        // Learned replay keeps the line as the step language renders it.
                        match argus_protocol::replay::render(&action) {
                            Some(line) => self.st.learned.push(line),
                            None => self.st.learned.fail(format!(
                                "the planned step {:?} has no step-language form",
                                plan[i]
                            )),
                        }
                    }
                    Ok(StepEnd::Done)
                }
                Err(StepFail::Verdict(e)) if !action.kind().checks() => {
                    tracing::info!(run_id = %self.ctx.run_id, step = %plan[i], error = %e,
                        "the step as a script line failed; the model takes it over");
                    self.agent_step_inner(step, task, plan, i, fruitless, 2)
                        .await
                }
                // A check the planner added (the instruction's own are expectations) that
                // does not hold does not fail the run unless the instruction asks for a
                // check midway (measured: a made-up `assert "New todo" has value "a b"`
                // failed a run that did its job); it stays in the record and caps the
                // verdict at `unverified`. A `wait for` that never came true still fails.
                Err(StepFail::Verdict(e))
                    if !matches!(action, Action::WaitFor { .. })
                        && !super::clauses::checks_midway(task) =>
                {
                    tracing::info!(run_id = %self.ctx.run_id, step = %plan[i], error = %e,
                        "a check the planner added did not hold; the run can end unverified at best");
                    self.st
                        .planner_checks_failed
                        .push(format!("{}: {e}", plan[i]));
                    Ok(StepEnd::Done)
                }
                Err(e) => Err(e),
            },
            None => {
                self.agent_step_inner(step, task, plan, i, fruitless, 0)
                    .await
            }
        };
        let err = match &res {
            Ok(StepEnd::Done) | Ok(StepEnd::JobDone) => None,
            Ok(StepEnd::Escalate(_)) => Some("escalated to re-planning".to_string()),
            Err(e) => Some(e.message()),
        };
        self.rec.end_step(step, err, start).await;
        res.map_err(|e| e.context(&format!("step {} ({})", step + 1, plan[i])))
    }

    /// The model carries out one planned step: observe → ask for one call → refuse it (a
    /// repeat, a second toggle) or act → reflect → record, until [`Turn`] says the step ended.
    async fn agent_step_inner(
        &mut self,
        step: u32,
        task: &str,
        plan: &[String],
        i: usize,
        fruitless: &mut HashMap<String, Fruitless>,
        first_action: u32,
    ) -> Result<StepEnd, StepFail> {
        let mut turn = Turn::new(
            step,
            task,
            plan,
            i,
            first_action,
            self.ctx.env.config.step_actions,
        );
        loop {
            let cancel = self.ctx.cancel.load(Ordering::Relaxed);
            if let Some(end) = turn.before(cancel, self.st.actions_taken, self.ctx.spec.max_steps) {
                return end;
            }
            let started_at = Utc::now();
            let mut t = ActionTimings::default();
            let s0 = Instant::now();
            let obs = self
                .ctx
                .observe()
                .await
                .map_err(|e| StepFail::Device(format!("cannot observe the screen: {e}")))?;
            t.perceive_ms += ms(s0);
            if turn.action == turn.first_action && self.popup_pass(step, &obs).await? {
                turn.action += 1;
                continue;
            }
            let pending = match self.ask_turn(&turn, &obs, t, started_at).await? {
                Ok(p) => p,
                Err(why) => {
                    turn.failures.push(format!("step {:?}: {why}", turn.text()));
                    return Ok(StepEnd::Escalate(turn.failures));
                }
            };
            let signature = signature(&pending.call, &obs);
            forget_other_states(fruitless, &signature, step, &obs);
            let toggle = toggled_key(&pending.call, &obs, turn.text());
            let count = fruitless.get(&signature).map_or(0, |f| f.count);
            if let Some((why, repeated)) =
                refusal(&signature, count, toggle.as_ref(), &turn.toggled)
            {
                self.record_refusal(&turn, pending, &why, &obs).await?;
                match turn.refused(why, repeated) {
                    Some(end) => return Ok(end),
                    None => continue,
                }
            }
            let done = self.carry_out(&mut turn, pending, &obs, toggle).await?;
            if let Some(end) = done.end {
                return Ok(end);
            }
            let step_done = done.facts.progress.is_some_and(|p| p.step_done);
            if done.fruitless && !done.facts.stray_check_failed && !step_done {
                let f = fruitless.entry(signature).or_insert(Fruitless {
                    count: 0,
                    step,
                    state: String::new(),
                });
                f.count += 1;
                f.step = step;
                f.state = done.state;
            }
            if let Some(end) = turn.next(done.facts) {
                return Ok(end);
            }
        }
    }

    /// Screenshots, prompts and asks for the turn's next call on `obs`; `Err(why)` when the
    /// model gave no usable answer (recorded as a `model` action: the step escalates).
    async fn ask_turn(
        &mut self,
        turn: &Turn<'_>,
        obs: &Observation,
        mut t: ActionTimings,
        started_at: chrono::DateTime<Utc>,
    ) -> Result<Result<Pending, String>, StepFail> {
        let (step, action) = (turn.step, turn.action);
        let mask = self.ctx.mask_for(obs);
        let (png, before_key) = self.before_shot(step, action, &mask, &mut t).await;
        let png = png.map(|p| self.marked(p, obs, &mut t));
        let messages = self.prompt(
            turn.task,
            turn.plan,
            turn.i,
            &turn.history,
            obs,
            png.as_deref(),
        );
        let mut usage = ModelUsage::default();
        match self.ask(messages, obs, &mut usage).await? {
            Asked::Call(call, raw_text, refusals) => Ok(Ok(Pending {
                call,
                raw_text,
                refusals,
                before_key,
                mask,
                t,
                usage,
                started_at,
            })),
            Asked::Unusable(why) => {
                let why = format!("no action sent: {why}");
                let rec = not_sent(
                    step,
                    action,
                    RecordKind::Model,
                    why.clone(),
                    &why,
                    obs,
                    started_at,
                )
                .shots(before_key, None)
                .timings(t)
                .model(Some(usage), None, None);
                self.rec.emit_action(rec.done()).await?;
                Ok(Err(why))
            }
        }
    }

    /// Records a call that was not sent (`why`).
    async fn record_refusal(
        &mut self,
        turn: &Turn<'_>,
        p: Pending,
        why: &str,
        obs: &Observation,
    ) -> Result<(), StepFail> {
        let rec = not_sent(
            turn.step,
            turn.action,
            RecordKind::Action(p.call.kind()),
            p.call.describe(),
            why,
            obs,
            p.started_at,
        )
        .shots(p.before_key, None)
        .timings(p.t)
        .model(Some(p.usage), Some(p.raw_text), None);
        self.rec.emit_action(rec.done()).await
    }

    /// Acts on the pending call, reflects, asks about progress where the rules say so,
    /// records the action and learns from it; what it means is for [`Turn::next`].
    async fn carry_out(
        &mut self,
        turn: &mut Turn<'_>,
        p: Pending,
        obs: &Observation,
        toggle: Option<String>,
    ) -> Result<Done, StepFail> {
        let mut t = p.t;
        let mut usage = p.usage;
        check(&p.call, &named_by(self.ctx.spec)).map_err(StepFail::Verdict)?;
        let acted = self.ctx.act(&p.call, obs, &mut t).await;
        let (point, swipe) = acted.geometry();
        let (mut out, after) = (acted.out, acted.after);
        let delivered = out.disposition != Disposition::NotDelivered;
        note_toggle(turn, toggle, delivered, obs, after.as_ref());
        if !p.refusals.is_empty() {
            out.detail.push_str(&format!(
                " (re-asked {}×: {})",
                p.refusals.len(),
                p.refusals.join("; ")
            ));
        }
        let (reflection, summary) = reflect_on(turn, &p, &out, obs, after.as_ref());
        let step_names_call = super::step_done::completes(turn.text(), &p.call, |a| {
            super::step_done::aimed_name(a, obs)
        });
        let progress = self
            .judge_progress(
                turn,
                &p.call,
                &mut out,
                obs,
                after.as_ref(),
                step_names_call,
                &mut usage,
            )
            .await?;
        let mut after_mask = p.mask;
        if let Some(a) = &after {
            after_mask.extend(self.ctx.mask_for(a));
        }
        let after_key = self
            .ctx
            .shot(turn.step, turn.action, "after", &after_mask, &mut t)
            .await;
        let rec = Record::new(
            turn.step,
            turn.action,
            RecordKind::Action(p.call.kind()),
            out.detail.clone(),
            p.started_at,
        )
        .outcome(&out)
        .shots(p.before_key, after_key)
        .timings(t)
        .on(Some(obs))
        .model(Some(usage), Some(p.raw_text), None)
        .reflection(reflection.clone())
        .geometry(point, swipe, Some(screen_of(obs)))
        .source(Some(ActionSource::Model));
        self.rec.emit_action(rec.done()).await?;
        self.after_action(
            turn.task,
            &p.call,
            &out,
            obs,
            point,
            after.as_ref(),
            reflection.as_ref(),
        );
        turn.action += 1;
        // A check the step asks for decides the run; one the model chose on its own
        // (a `wait_for` instead of typing, say) is only a failed attempt.
        let asked_check = p.call.kind().checks() && step_names_call;
        let end = step_end(&p.call, &out, asked_check)?;
        let class = reflection.map(|r| r.class);
        Ok(Done {
            end,
            fruitless: out.device_error.is_some() || class == Some(ReflectClass::C),
            state: after
                .as_ref()
                .map(super::reflect::state_key)
                .unwrap_or_default(),
            facts: Facts {
                summary,
                progress,
                stray_check_failed: p.call.kind().checks() && !out.ok() && !asked_check,
                class,
            },
        })
    }

    /// Whether the step (and the job) is done after `call`: by rule (a one-action step whose
    /// action this was; an action that made the next planned check come true), else by the
    /// progress check. Notes it in `out`'s detail.
    #[allow(clippy::too_many_arguments)]
    async fn judge_progress(
        &mut self,
        turn: &Turn<'_>,
        call: &Action,
        out: &mut crate::run::outcome::Outcome,
        obs: &Observation,
        after: Option<&Observation>,
        step_names_call: bool,
        usage: &mut ModelUsage,
    ) -> Result<Option<Progress>, StepFail> {
        let (task, plan, i) = (turn.task, turn.plan, turn.i);
        let checkable = out.ok()
            && !out.infra()
            && (call.kind().checks()
                || call.kind().acts() && out.disposition != Disposition::NotDelivered);
        // A one-action step whose action this was is done without asking; the model is
        // then only asked (when steps remain) whether the whole job is done already.
        let by_rule = checkable && step_names_call;
        // The action made the next planned check come true: this step is done, and the
        // check runs next as a script line (no model call either way).
        let made_check_true = checkable
            && !call.kind().checks()
            && after.is_some_and(|a| {
                super::step_done::made_next_check_true(plan.get(i + 1).map(String::as_str), obs, a)
            });
        let step_done = Progress {
            step_done: true,
            job_done: false,
        };
        let progress = match after {
            _ if made_check_true => Some(step_done),
            Some(a) if by_rule => {
                let job_done = i + 1 < plan.len()
                    && self
                        .check_progress(task, plan, i, &turn.history, a, usage)
                        .await?
                        .is_some_and(|p| p.job_done);
                Some(Progress {
                    step_done: true,
                    job_done,
                })
            }
            _ if by_rule => Some(step_done),
            Some(a) if checkable => {
                self.check_progress(task, plan, i, &turn.history, a, usage)
                    .await?
            }
            _ => None,
        };
        if let Some(p) = progress {
            out.detail.push_str(&format!(" · check: {}", p.describe()));
        }
        if made_check_true {
            out.detail
                .push_str(" (the next step's check came true with this action)");
        }
        Ok(progress)
    }

    /// What a recorded model action leaves behind: the learned script line, the counters,
    /// the typed text, the model's claim.
    #[allow(clippy::too_many_arguments)]
    fn after_action(
        &mut self,
        task: &str,
        call: &Action,
        out: &crate::run::outcome::Outcome,
        obs: &Observation,
        point: Option<[f64; 2]>,
        after: Option<&Observation>,
        reflection: Option<&Reflection>,
    ) {
        if out.ok() && self.ctx.spec.mode != Mode::Script {
            self.learn(
                task,
                call,
                obs,
                point.map(|[x, y]| (x, y)),
                after,
                reflection,
            );
        }
        if call.kind().acts() {
            self.st.actions_taken += 1;
        }
        if let (true, Action::Type { text, .. }) = (out.ok(), call) {
            self.st.typed.push(text.clone());
        }
        if let Action::Finish { summary } = call {
            self.st.claim = Some(format!("the model called finish: {summary}"));
        }
    }

    /// Asks whether the current step (and the whole job) is done on `after`, the screen
    /// the last action left (`llm` mode with `--agent-progress-check`; `None` otherwise, or
    /// when the answer is unusable — the loop then goes on as without a check). The request
    /// is the next action prompt with the question appended: the same system text (with the
    /// tool listing when the endpoint gets `response_format`) and the same job / plan / step
    /// prefix, so a prefix cache serves all of it up to the element list (the whole list too
    /// when the action changed nothing on it), and the action call that follows on an
    /// unchanged screen is served up to its question. The question stays here, after the
    /// screen, and names the step: moved into the system text with a one-line cue here
    /// (~60 prompt tokens less a check), the local 1.5B model answered `job_done` after the
    /// first of two planned steps, ending runs before their last step (README, issue 25's
    /// benchmark figures). Its usage is added to `usage`. Cancelled with the run.
    async fn check_progress(
        &mut self,
        task: &str,
        plan: &[String],
        i: usize,
        history: &[String],
        after: &Observation,
        usage: &mut ModelUsage,
    ) -> Result<Option<Progress>, StepFail> {
        if self.mode() != Mode::Llm || !self.ctx.env.config.progress_check {
            return Ok(None);
        }
        let mut messages = self.prompt(task, plan, i, history, after, None);
        let question = format!(
            "\n\nDo not act now. Judging only by this screen and the actions so far, answer with JSON {{\"step_done\": true|false, \"job_done\": true|false}}: step_done is true when the current step ({:?}) is done; job_done is true when everything the job asks is done, every check it asks for included.",
            plan[i]
        );
        if let Some(m) = messages.iter_mut().rev().find(|m| m["role"] == "user") {
            let c = m["content"].as_str().unwrap_or_default().to_string();
            m["content"] = json!(format!("{c}{question}"));
        }
        let Some(c) = self.st.model.as_ref() else {
            return Ok(None);
        };
        if !c.uses_tool_calls() {
            messages = with_tools_text(&messages, &listing(Mode::Llm));
        }
        let cancel = self.ctx.cancel.clone();
        let schema = progress_schema();
        let mut u = ModelUsage::default();
        let r = tokio::select! {
            r = c.json(messages, "progress", &schema, parse_progress, CHECK_MAX_TOKENS, &mut u) => r,
            _ = cancelled(&cancel) => return Err(StepFail::Cancelled),
        };
        usage.add(&u);
        match r {
            Ok(p) => Ok(Some(p)),
            Err(e) => {
                tracing::info!(run_id = %self.ctx.run_id, error = %e, "progress check unusable; going on without it");
                Ok(None)
            }
        }
    }

    /// A planned step written as a step-language line, run as one; its record says the
    /// model chose it.
    async fn line_as_model(&mut self, step: u32, action: &Action) -> Result<(), StepFail> {
        self.rec.line_source = Some(ActionSource::Model);
        let r = self.run_step(step, action).await;
        self.rec.line_source = None;
        r
    }

    /// Adds the step line of a model action that went through and changed the screen (and
    /// the `wait for` of a quoted text of the instruction it made appear) to the run's
    /// learned script.
    fn learn(
        &mut self,
        task: &str,
        call: &Action,
        obs: &Observation,
        point: Option<(f64, f64)>,
        after: Option<&Observation>,
        reflection: Option<&Reflection>,
    ) {
        // An action that changed nothing is not needed to get where the run got, and a
        // replayed line must show progress (see `replay`).
        let unchanged = reflection.map(|r| r.class) == Some(ReflectClass::C);
        if unchanged || matches!(call, Action::Finish { .. } | Action::Fail { .. }) {
            return;
        }
        match super::learn::line_for(call, obs, point) {
            Ok(line) => self.st.learned.push(line),
            Err(why) => {
                self.st.learned.fail(why);
                return;
            }
        }
        let progressed = reflection.map(|r| r.class) == Some(ReflectClass::A);
        if let (true, Some(a)) = (progressed, after) {
            if let Some(text) = super::learn::expected_text(obs, a, task) {
                let wait = Action::WaitFor {
                    text,
                    timeout_ms: argus_protocol::script::DEFAULT_WAIT_FOR_MS,
                };
                if let Some(line) = argus_protocol::replay::render(&wait) {
                    self.st.learned.push(line);
                }
            }
        }
    }

    /// The before-screenshot, masked: in `vlm` mode the same PNG is returned to go to the
    /// model (what it sees is what is stored); the frame's key, if it was queued.
    async fn before_shot(
        &mut self,
        step: u32,
        action: u32,
        mask: &[argus_perception::Rect],
        t: &mut ActionTimings,
    ) -> (Option<Vec<u8>>, Option<String>) {
        if self.mode() != Mode::Vlm {
            return (None, self.ctx.shot(step, action, "before", mask, t).await);
        }
        let s1 = Instant::now();
        let png = self
            .ctx
            .dev
            .screenshot()
            .await
            .map_err(|e| e.to_string())
            .and_then(|p| crate::secrets::mask::mask_png(p, mask))
            .ok();
        t.screenshot_ms += ms(s1);
        let Some(p) = &png else {
            return (None, self.ctx.shot(step, action, "before", mask, t).await);
        };
        // Already masked: queued as it is (the queue stores it as a bounded JPEG).
        let s2 = Instant::now();
        let r = self
            .ctx
            .uploads
            .submit(crate::device::Shot::Png(p.clone()), &[])
            .await;
        t.upload_ms += ms(s2);
        (png, r.ok())
    }

    /// `vlm`: the Set-of-Mark image of `obs` on the (masked) screenshot `png`, which the
    /// prompt carries in its place; the plain screenshot when it cannot be drawn.
    fn marked(&mut self, png: Vec<u8>, obs: &Observation, t: &mut ActionTimings) -> Vec<u8> {
        let s0 = Instant::now();
        let out = match self.ctx.perceiver.set_of_mark(&png, obs) {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!(run_id = %self.ctx.run_id, error = %e, "no Set-of-Mark image; the prompt gets the plain screenshot");
                png
            }
        };
        t.perceive_ms += ms(s0);
        out
    }

    /// Asks for exactly one tool call about `obs` and checks it into an [`Action`]; returns
    /// it, the raw call as JSON text, and the refusals that made the client re-ask — or,
    /// when no answer parsed after the client's format retries, [`Asked::Unusable`]. In `llm`
    /// mode the union schema (a decoding constraint, not part of the prompt) is pinned to
    /// `obs` (see [`pin_to_observation`]); the `tools` are not, since a chat template renders
    /// them into the prompt's prefix, which must stay the same for prefix caching.
    async fn ask(
        &mut self,
        messages: Vec<Value>,
        obs: &Observation,
        usage: &mut ModelUsage,
    ) -> Result<Asked, StepFail> {
        let mode = self.mode();
        let mut tool_set = ToolSet {
            tools: tools(mode),
            schema: call_schema(mode),
            text: listing(mode),
        };
        if mode == Mode::Llm {
            let ids: Vec<String> = obs.elements.iter().map(|e| e.id.clone()).collect();
            for branch in tool_set.schema["anyOf"]
                .as_array_mut()
                .into_iter()
                .flatten()
            {
                pin_to_observation(&mut branch["properties"]["arguments"], &ids);
            }
        }
        let Some(c) = self.st.model.as_ref() else {
            return Err(StepFail::Infra("no model client".into()));
        };
        let cancel = self.ctx.cancel.clone();
        let asked = tokio::select! {
            r = c.one_tool_call(
                messages,
                &tool_set,
                |c| parse_call(mode, &c.name, &with_observation(&c.arguments, obs.serial)),
                usage,
            ) => r,
            _ = cancelled(&cancel) => return Err(StepFail::Cancelled),
        };
        let (call, raw, refusals) = match asked {
            Ok(a) => a,
            // Answers that never parsed are the model's failure at this step, not Argus's:
            // the step escalates to a re-plan (a small model that cannot phrase one call
            // for a step often can for a re-planned one).
            Err(e @ ModelError::Format { .. }) => return Ok(Asked::Unusable(e.to_string())),
            Err(e) => return Err(StepFail::Infra(e.to_string())),
        };
        let raw_text =
            serde_json::to_string(&json!({"name": raw.name, "arguments": raw.arguments}))
                .unwrap_or_default();
        Ok(Asked::Call(call, raw_text, refusals))
    }
}

/// The record of a model-chosen action that was not sent to the device (`why`: its error),
/// made on `obs`.
fn not_sent(
    step: u32,
    action: u32,
    kind: RecordKind,
    detail: String,
    why: &str,
    obs: &Observation,
    started_at: chrono::DateTime<Utc>,
) -> Record {
    Record::new(step, action, kind, detail, started_at)
        .result(Some(why.to_string()), Disposition::NotDelivered)
        .on(Some(obs))
        .screen_of(obs)
        .source(Some(ActionSource::Model))
}

/// `arguments` with `observation` set to `serial` where the call left it out. The call
/// answers a request about observation `serial`, so a missing one can only mean that one.
/// Decoded by `response_format` (see [`pin_to_observation`]) a call never names one: this is
/// where its number comes from. With native tool calls the model names it, and a number
/// other than `serial` is refused as stale when the action is carried out. Measured before
/// the pinned schema left it out: Qwen2.5-Coder-1.5B sent `swipe` with an `element` and no
/// `observation` (optional in that tool's schema) three times in a row, and the run errored.
fn with_observation(arguments: &Value, serial: u64) -> Value {
    let mut a = arguments.clone();
    if let Some(o) = a.as_object_mut() {
        o.entry("observation").or_insert(json!(serial));
    }
    a
}

/// What [`Exec::ask`] got from the model.
enum Asked {
    /// A checked call, its raw JSON text and the refusals that made the client re-ask.
    Call(Action, String, Vec<String>),
    /// No answer parsed after the client's format retries (the client's error message).
    Unusable(String),
}

/// Narrows one tool's parameters schema to the observation the call is about: `element` to
/// an enum of that observation's ids (when it has any), and `observation` left out (the
/// call answers a request about one observation, and [`with_observation`] fills its number
/// in). A server that enforces the schema (llama.cpp, vLLM, OpenAI `response_format`) then
/// cannot decode a made-up id ("button"), a stale observation or an id from an older list —
/// each of which otherwise costs a refused call and a re-ask — and the model does not spend
/// tokens writing a number that can have one value only (measured on the local 1.5B model:
/// `, "observation": 53` is ~6 of a tap call's ~29 tokens, 79 ms each on 2 cores).
pub(crate) fn pin_to_observation(parameters: &mut Value, ids: &[String]) {
    let Some(props) = parameters
        .get_mut("properties")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    if !ids.is_empty() {
        if let Some(el) = props.get_mut("element").and_then(Value::as_object_mut) {
            el.insert("enum".into(), json!(ids));
        }
    }
    props.remove("observation");
    if let Some(req) = parameters.get_mut("required").and_then(Value::as_array_mut) {
        req.retain(|r| r != "observation");
    }
}

/// A plan with no step left after shaping, where acting steps were dropped (`acting`: a
/// heading tap, a toggle on a text field, an unasked `go back`), carries out nothing of the
/// job: the run fails rather than be judged on expectations that may have held from the
/// start. A plan whose every step was a check goes on to the verdict (its checks are the
/// expectations).
fn nothing_left(plan: &[String], what: &str, acting: bool) -> Result<(), StepFail> {
    if plan.is_empty() && acting {
        return Err(StepFail::Verdict(format!(
            "the {what} has no step left to carry out (every planned step was dropped; see its record)"
        )));
    }
    Ok(())
}

/// The tool listing of a request sent without `tools` in `mode`: in `llm` mode its decoding
/// is pinned to one observation ([`pin_to_observation`]), so no `observation` is listed.
fn listing(mode: Mode) -> String {
    if mode == Mode::Llm {
        tools_text_pinned(mode)
    } else {
        tools_text(mode)
    }
}

fn progress_schema() -> Value {
    json!({"type": "object", "additionalProperties": false,
        "required": ["step_done", "job_done"],
        "properties": {"step_done": {"type": "boolean"}, "job_done": {"type": "boolean"}}})
}

fn parse_progress(v: &Value) -> Result<Progress, String> {
    let flag = |k: &str| {
        v.get(k)
            .and_then(Value::as_bool)
            .ok_or_else(|| format!("`{k}` (true or false) is missing"))
    };
    Ok(Progress {
        step_done: flag("step_done")?,
        job_done: flag("job_done")?,
    })
}

/// The reflector's view of a sent call (refused or undelivered calls changed nothing and
/// are not reflected on) and its history line, added to the turn's history.
fn reflect_on(
    turn: &mut Turn<'_>,
    p: &Pending,
    out: &Outcome,
    obs: &Observation,
    after: Option<&Observation>,
) -> (Option<Reflection>, String) {
    let delivered = out.disposition != Disposition::NotDelivered;
    let reflection = match after {
        Some(a) if p.call.kind().acts() && delivered => Some(classify(obs, a, turn.text(), None)),
        _ => None,
    };
    let summary = summarize(&p.raw_text, out, reflection.as_ref());
    turn.history.push(format!("- {summary}"));
    (reflection, summary)
}

/// A model call asked for and not yet sent, with what its record needs.
struct Pending {
    call: Action,
    raw_text: String,
    refusals: Vec<String>,
    before_key: Option<String>,
    mask: Vec<argus_perception::Rect>,
    t: ActionTimings,
    usage: ModelUsage,
    started_at: chrono::DateTime<Utc>,
}

/// What [`Exec::carry_out`] found: the step's end by [`step_end`], whether the call was
/// fruitless (and the screen state it left), and the facts for [`Turn::next`].
struct Done {
    end: Option<StepEnd>,
    /// A device that refused or failed the input (not an Argus refusal: stale, no target),
    /// or an action that changed nothing.
    fruitless: bool,
    state: String,
    facts: Facts,
}

/// Tries of `signature` from an earlier step count only while the screen is in the state
/// they left it in: another step's progress may be what the action was waiting for.
fn forget_other_states(
    fruitless: &mut HashMap<String, Fruitless>,
    signature: &str,
    step: u32,
    obs: &Observation,
) {
    let state = super::reflect::state_key(obs);
    if fruitless
        .get(signature)
        .is_some_and(|f| f.step != step && f.state != state)
    {
        fruitless.remove(signature);
    }
}

/// An action (by [`signature`]) that changed nothing: how often, in which step last, and the
/// screen state it left.
pub(crate) struct Fruitless {
    count: u32,
    step: u32,
    state: String,
}

/// What an action does and to what, for the repeat guard: kind + the element it names (by
/// role and name in `obs`) + typed text length; ids and observation numbers left out, so the
/// same tap on the same button in a new observation matches.
fn signature(call: &Action, obs: &Observation) -> String {
    let target = match call.aim() {
        Some(Aim::Element { id, .. }) => obs
            .element(id)
            .map(|e| e.describe())
            .unwrap_or_else(|| id.clone()),
        Some(Aim::Point { x, y, .. }) => format!("point ({:.0}, {:.0})", x / 10.0, y / 10.0),
        Some(Aim::Target(t)) => t.to_string(),
        Some(Aim::Focused) => "focused".to_string(),
        None => String::new(),
    };
    match call {
        Action::Type { text, .. } => {
            format!(
                "{} {target} ({} chars)",
                call.kind().name(),
                text.chars().count()
            )
        }
        Action::Key { key } => format!("key {}", key.as_str()),
        Action::Open { url } => format!("open {url}"),
        Action::Swipe { direction, .. } => format!("swipe {} {target}", direction.as_str()),
        _ => format!("{} {target}", call.kind().name()),
    }
}

/// For a tap on a checkbox, switch or radio (`check`/`uncheck` set a state and undo nothing): the toggle's tree path and role, which
/// stay the same across observations of one screen (ids do not); `None` for anything else.
fn toggled_key(call: &Action, obs: &Observation, step_text: &str) -> Option<String> {
    let (Action::Tap { target } | Action::DoubleTap { target }) = call else {
        return None;
    };
    let Aim::Element { id, .. } = target else {
        return None;
    };
    let e = obs.element(id)?;
    if super::turn::deletes_one(e.role, &e.name, step_text) {
        // Measured: a free step "take that line off" double-tapped row after row's ✖ while
        // its check said "not done yet", emptying the list.
        return Some(super::turn::DELETE_KEY.to_string());
    }
    (matches!(call, Action::Tap { .. })
        && argus_perception::row_label::is_toggle(e.role)
        && !e.path.is_empty())
    .then(|| format!("{} {:?}", e.role.as_str(), e.path))
}

/// One line of the step's history for the next prompt.
fn summarize(raw_text: &str, out: &Outcome, reflection: Option<&Reflection>) -> String {
    format!(
        "{} → {}{}",
        raw_text,
        if out.ok() {
            "ok".to_string()
        } else {
            format!("refused/failed: {}", out.error().unwrap_or_default())
        },
        reflection
            .map(|r| format!(" [{}: {}]", r.class.as_str(), r.note))
            .unwrap_or_default()
    )
}

/// The observation's screen size in device px, for a record's `screen_px`.
fn screen_of(obs: &Observation) -> [u32; 2] {
    let (w, h) = obs.screen.device_size();
    [w, h]
}

/// Notes the toggle key `toggle` of a delivered action on `turn`: a delete control counts
/// once something went (a press that changed nothing, a control shown only on hover, may
/// be pressed again), any other toggle at once.
fn note_toggle(
    turn: &mut Turn<'_>,
    toggle: Option<String>,
    delivered: bool,
    obs: &Observation,
    after: Option<&Observation>,
) {
    let removed = after.is_some_and(|a| a.elements.len() < obs.elements.len());
    if let Some(k) = toggle.filter(|k| delivered && (k != super::turn::DELETE_KEY || removed)) {
        turn.toggled.push(k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_pinned_to_the_observation() {
        let mut schema = call_schema(Mode::Llm);
        let ids = vec!["e1".to_string(), "e2".to_string()];
        for b in schema["anyOf"].as_array_mut().into_iter().flatten() {
            pin_to_observation(&mut b["properties"]["arguments"], &ids);
        }
        let tap = schema["anyOf"]
            .as_array()
            .and_then(|a| {
                a.iter()
                    .find(|b| b["properties"]["name"]["enum"][0] == "tap")
            })
            .cloned()
            .unwrap_or_default();
        let args = &tap["properties"]["arguments"]["properties"];
        assert_eq!(args["element"]["enum"], json!(["e1", "e2"]));
        // The observation is the request's: not decoded, filled in by with_observation.
        assert!(args.get("observation").is_none());
        let req = tap["properties"]["arguments"]["required"].clone();
        assert_eq!(req, json!(["element"]));
        // Kinds without an element are left alone; no ids, no element enum.
        let mut finish = json!({"properties": {}});
        pin_to_observation(&mut finish, &ids);
        assert_eq!(finish, json!({"properties": {}}));
        let mut p = json!({"properties": {"element": {"type": "string"}}});
        pin_to_observation(&mut p, &[]);
        assert!(p["properties"]["element"].get("enum").is_none());
    }

    #[test]
    fn observation_is_filled_in() {
        assert_eq!(with_observation(&json!({}), 3), json!({"observation": 3}));
        assert_eq!(
            with_observation(&json!({"observation": 2}), 3),
            json!({"observation": 2})
        );
    }
}
