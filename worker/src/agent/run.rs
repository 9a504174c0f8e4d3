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

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use argus_perception::geometry::{norm_to_px, NormScale};
use argus_perception::{Element, NodeRef, Observation, Rect};
use argus_protocol::{
    ActionRecord, ActionTimings, CoordSpace, Disposition, EventBody, Mode, ModelUsage,
    ReflectClass, Reflection, Step,
};
use base64::Engine;
use chrono::Utc;
use serde_json::{json, Value};

use super::popups::{decide, Decision};
use super::reflect::classify;
use super::tools::{check, tools, Aim, ToolCall};
use crate::device::web::guard::notes_suffix;
use crate::device::ActError;
use crate::executor::{ms, targeted, Exec, Outcome, StepFail};

/// Automatic repeats of an input that failed `not_delivered`.
pub const NOT_DELIVERED_RETRIES: u32 = 2;
/// Poll interval of the actionability wait.
const ACTIONABLE_POLL: Duration = Duration::from_millis(100);
/// Extra auto-wait per typed character, ms.
const TYPE_MS_PER_CHAR: u64 = 50;
/// Most planned steps accepted from the planner.
const MAX_PLAN_STEPS: usize = 30;

/// One device input.
enum Input<'e> {
    Tap(&'e Element),
    LongPress(&'e Element, u64),
    Type(&'e Element, &'e str),
    Swipe((f64, f64), (f64, f64)),
    Key(argus_protocol::Key),
    Open(&'e str),
}

/// How a planned step ended (when it did not fail the run).
enum StepEnd {
    Done,
    /// Two consecutive B/C outcomes or the step's action budget: re-plan with these.
    Escalate(Vec<String>),
}

fn plan_schema() -> Value {
    json!({"type": "object", "additionalProperties": false, "required": ["steps"],
        "properties": {"steps": {"type": "array", "minItems": 1, "maxItems": MAX_PLAN_STEPS,
            "items": {"type": "string"}}}})
}

fn parse_plan(v: &Value) -> Result<Vec<String>, String> {
    let o = v.as_object().ok_or("the answer is not a JSON object")?;
    if let Some(k) = o.keys().find(|k| k.as_str() != "steps") {
        return Err(format!("unexpected field {k:?}"));
    }
    let steps = o
        .get("steps")
        .and_then(Value::as_array)
        .ok_or("`steps` (an array of strings) is missing")?;
    let out: Vec<String> = steps
        .iter()
        .map(|s| {
            s.as_str()
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .ok_or_else(|| "every step must be a non-empty string".to_string())
        })
        .collect::<Result<_, _>>()?;
    if out.is_empty() || out.len() > MAX_PLAN_STEPS {
        return Err(format!("give 1 to {MAX_PLAN_STEPS} steps"));
    }
    Ok(out)
}

/// Maps a model point to device px, each axis by its own size.
pub fn point_to_px(space: CoordSpace, x: f64, y: f64, w: f64, h: f64) -> (f64, f64) {
    match space {
        CoordSpace::Abs => (
            x.clamp(0.0, (w - 1.0).max(0.0)),
            y.clamp(0.0, (h - 1.0).max(0.0)),
        ),
        CoordSpace::Norm1000 => norm_to_px(x, y, NormScale::Norm1000, w, h),
        CoordSpace::Norm999 => norm_to_px(x, y, NormScale::Norm999, w, h),
    }
}

/// The smallest element whose box contains the point (device px).
pub fn snap(obs: &Observation, x: f64, y: f64) -> Option<&Element> {
    obs.elements
        .iter()
        .filter(|e| e.bbox_px.contains_point(x, y))
        .min_by(|a, b| a.bbox_px.area().total_cmp(&b.bbox_px.area()))
}

/// An element standing for a bare point: a 1×1 px box and no node, so the driver acts at
/// exactly that pixel. Keeps the snapped element's role and name for the report.
fn point_element(obs: &Observation, x: f64, y: f64, snapped: Option<&Element>) -> Element {
    let dpr = if obs.screen.dpr > 0.0 {
        obs.screen.dpr
    } else {
        1.0
    };
    let mut e = match snapped {
        Some(s) => s.clone(),
        None => Element {
            id: "point".into(),
            role: argus_perception::Role::Other,
            platform_role: String::new(),
            name: String::new(),
            value: None,
            placeholder: None,
            checked: argus_perception::Tri::Unknown,
            enabled: argus_perception::Tri::Unknown,
            focused: argus_perception::Tri::Unknown,
            editable: argus_perception::Tri::Unknown,
            password: argus_perception::Tri::Unknown,
            selected: argus_perception::Tri::Unknown,
            covered: argus_perception::Tri::Unknown,
            bbox_logical: Rect::default(),
            bbox_px: Rect::default(),
            node_ref: NodeRef::None,
            platform_id: None,
            path: Vec::new(),
            source: argus_perception::Source::Vision,
            confidence: None,
            neighbours: Default::default(),
        },
    };
    e.bbox_px = Rect::new(x - 0.5, y - 0.5, 1.0, 1.0);
    e.bbox_logical = Rect::new(
        x / dpr - 0.5 / dpr,
        y / dpr - 0.5 / dpr,
        1.0 / dpr,
        1.0 / dpr,
    );
    e.node_ref = NodeRef::None;
    e
}

fn same_element(a: &Element, b: &Element) -> bool {
    let r = |x: &Rect| {
        [
            (x.x / 2.0).round(),
            (x.y / 2.0).round(),
            (x.w / 2.0).round(),
            (x.h / 2.0).round(),
        ]
    };
    a.role == b.role && a.name == b.name && r(&a.bbox_px) == r(&b.bbox_px)
}

impl Exec<'_> {
    fn mode(&self) -> Mode {
        if self.spec.mode == Mode::Vlm {
            Mode::Vlm
        } else {
            Mode::Llm
        }
    }

    fn client(&mut self) -> Result<&super::ModelClient, StepFail> {
        if self.model.is_none() {
            let c = self
                .agent
                .client_for(self.spec)
                .map_err(|e| StepFail::Infra(e.to_string()))?;
            self.model = Some(c);
        }
        self.model
            .as_ref()
            .ok_or_else(|| StepFail::Infra("no model client".into()))
    }

    async fn emit_action(&mut self, rec: ActionRecord) -> Result<(), StepFail> {
        tracing::info!(run_id = %self.run_id, step = rec.step, action = rec.action, kind = rec.kind,
            ok = rec.ok, disposition = rec.disposition.as_str(), "action finished");
        self.em
            .emit(EventBody::ActionFinished(Box::new(rec)))
            .await
            .map_err(StepFail::Infra)
    }

    /// Runs the popup policy on `obs` (unless the job turned it off); records a `popup`
    /// action as action 0 of `step` when it dismissed one. Returns whether it did.
    pub(crate) async fn popup_pass(
        &mut self,
        step: u32,
        obs: &Observation,
    ) -> Result<bool, StepFail> {
        if !self.spec.popups {
            return Ok(false);
        }
        let (el, why) = match decide(obs) {
            Decision::None => return Ok(false),
            Decision::Leave(why) => {
                tracing::info!(run_id = %self.run_id, reason = %why, "popup left alone");
                return Ok(false);
            }
            Decision::Dismiss(el, why) => (el.clone(), why),
        };
        let started_at = Utc::now();
        let mut t = ActionTimings::default();
        let mask = self.mask_for(obs);
        let before_key = self.shot(step, 0, "before", &mask, &mut t).await;
        let start = Instant::now();
        let r = self.dev.tap(&el).await;
        t.act_ms = ms(start);
        let (ok, error, disposition) = match r {
            Ok(()) => (true, None, Disposition::DeliveredUnverified),
            Err(e) => (false, Some(e.message), e.disposition),
        };
        let after_key = self.shot(step, 0, "after", &mask, &mut t).await;
        let mut rec = ActionRecord::new(step, 0, "popup", why, ok, error, disposition, started_at);
        rec.target = Some(targeted(&el));
        rec.before_key = before_key;
        rec.after_key = after_key;
        rec.timings = t;
        rec.observation = Some(obs.serial);
        self.emit_action(rec).await?;
        Ok(true)
    }

    /// Plans and carries out one natural-language task.
    pub(crate) async fn agent_task(
        &mut self,
        task: &str,
        cancel: &AtomicBool,
    ) -> Result<(), StepFail> {
        self.client()?;
        let mut failures: Vec<String> = Vec::new();
        let mut replans = 0u32;
        let mut plan = self.plan_step(task, &failures, None).await?;
        let mut i = 0usize;
        while i < plan.len() {
            if cancel.load(Ordering::Relaxed) {
                return Err(StepFail::Infra("cancelled".into()));
            }
            match self.agent_step(task, &plan, i).await? {
                StepEnd::Done => i += 1,
                StepEnd::Escalate(f) => {
                    failures.extend(f);
                    replans += 1;
                    if replans > self.agent.config.replans {
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
                    plan = self.plan_step(task, &failures, Some((&plan, i))).await?;
                    i = 0;
                }
            }
        }
        Ok(())
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
        let step = self.begin_step(title).await?;
        let start = Instant::now();
        let started_at = Utc::now();
        let mut t = ActionTimings::default();
        let s0 = Instant::now();
        let obs = self.observe().await.map_err(StepFail::Infra);
        t.perceive_ms = ms(s0);
        let screen = match &obs {
            Ok(o) => format!(
                "Current screen (observation {}):\n{}",
                o.serial,
                o.compact()
            ),
            Err(_) => "The current screen could not be observed.".into(),
        };
        let mut user = format!(
            "Job: {task}\n\nBreak the job into short, ordered steps a device operator can carry out one at a time (one screen interaction or check each). Keep ${{secret.NAME}} references as written.\n\n{screen}"
        );
        if let Some((prev, at)) = previous {
            user.push_str(&format!(
                "\n\nThe previous plan was:\n{}\nIt got stuck at step {}. Failed attempts:\n- {}\nPlan the rest of the job from the current screen, avoiding what failed.",
                prev.iter().enumerate().map(|(i, s)| format!("{}. {s}", i + 1)).collect::<Vec<_>>().join("\n"),
                at + 1,
                failures.join("\n- ")
            ));
        }
        let user = self.agent.secrets.redact(&user);
        let messages = vec![
            json!({"role": "system", "content": "You are the planner of a UI-automation agent. Answer only with JSON: {\"steps\": [\"…\", …]}."}),
            json!({"role": "user", "content": user}),
        ];
        let mut usage = ModelUsage::default();
        let res = match self.client() {
            Ok(c) => {
                c.json(messages, "plan", &plan_schema(), parse_plan, &mut usage)
                    .await
            }
            Err(e) => {
                self.end_step(step, Some("no model".into()), start).await;
                return Err(e);
            }
        };
        let (ok, err, plan) = match res {
            Ok(p) => (true, None, p),
            Err(e) => (false, Some(e.to_string()), Vec::new()),
        };
        let detail = if ok {
            format!("{} steps", plan.len())
        } else {
            "no plan".into()
        };
        let mut rec = ActionRecord::new(
            step,
            0,
            "plan",
            detail,
            ok,
            err.clone(),
            Disposition::NotDelivered,
            started_at,
        );
        rec.usage = Some(usage);
        rec.plan = ok.then(|| plan.clone());
        rec.timings = t;
        rec.observation = obs.as_ref().ok().map(|o| o.serial);
        self.emit_action(rec).await?;
        self.end_step(step, err.clone(), start).await;
        match err {
            None => Ok(plan),
            Some(e) => Err(StepFail::Infra(format!("planning failed: {e}"))),
        }
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
        let space = self
            .spec
            .model
            .as_ref()
            .and_then(|m| m.coords)
            .unwrap_or(self.agent.config.coords);
        let how = if mode == Mode::Vlm {
            match space {
                CoordSpace::Abs => format!("Name points as x, y in screenshot pixels ({w}×{h})."),
                CoordSpace::Norm1000 => "Name points as x, y from 0 to 1000 on each axis (0,0 top-left, 1000,1000 bottom-right).".into(),
                CoordSpace::Norm999 => "Name points as x, y from 0 to 999 on each axis (0,0 top-left, 999,999 bottom-right).".into(),
            }
        } else {
            "Name elements by their id in the current element list.".into()
        };
        let system = format!(
            "You operate a {} device for a UI-automation job, one tool call per turn. {how} Every acting call passes the observation number it was made from. Call exactly one tool. Call finish when the current step is done, fail when it cannot be done. Type secrets as ${{secret.NAME}}, never guess them.",
            self.spec.platform
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
        let mut text = format!(
            "Job: {task}\nPlan:\n{plan_text}\nCurrent step: {}\nActions so far in this step:\n{done}\n\nObservation {} (screen {w}×{h} px):\n",
            plan[i], obs.serial
        );
        if mode == Mode::Vlm {
            text.push_str("(the screenshot is attached)");
        } else {
            text.push_str(&obs.compact());
        }
        let text = self.agent.secrets.redact(&text);
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

    /// One planned step, action by action.
    async fn agent_step(
        &mut self,
        task: &str,
        plan: &[String],
        i: usize,
    ) -> Result<StepEnd, StepFail> {
        let step = self.begin_step(&plan[i]).await?;
        let start = Instant::now();
        let res = self.agent_step_inner(step, task, plan, i).await;
        let err = match &res {
            Ok(StepEnd::Done) => None,
            Ok(StepEnd::Escalate(_)) => Some("escalated to re-planning".to_string()),
            Err(StepFail::Verdict(m)) | Err(StepFail::Infra(m)) => Some(m.clone()),
        };
        self.end_step(step, err, start).await;
        res.map_err(|e| match e {
            StepFail::Verdict(m) => {
                StepFail::Verdict(format!("step {} ({}): {m}", step + 1, plan[i]))
            }
            StepFail::Infra(m) => StepFail::Infra(format!("step {} ({}): {m}", step + 1, plan[i])),
        })
    }

    async fn agent_step_inner(
        &mut self,
        step: u32,
        task: &str,
        plan: &[String],
        i: usize,
    ) -> Result<StepEnd, StepFail> {
        let mode = self.mode();
        let budget = self.agent.config.step_actions.max(1);
        let mut history: Vec<String> = Vec::new();
        let mut failures: Vec<String> = Vec::new();
        let mut bad_in_a_row = 0u32;
        let mut action = 0u32;
        loop {
            if self.actions_taken >= self.spec.max_steps {
                return Err(StepFail::Verdict(format!(
                    "the step budget is spent: max_steps = {} actions",
                    self.spec.max_steps
                )));
            }
            if action >= budget {
                failures.push(format!(
                    "step {:?} took {budget} actions without finishing",
                    plan[i]
                ));
                return Ok(StepEnd::Escalate(failures));
            }
            let started_at = Utc::now();
            let mut t = ActionTimings::default();
            let s0 = Instant::now();
            let obs = self
                .observe()
                .await
                .map_err(|e| StepFail::Infra(format!("cannot observe the screen: {e}")))?;
            t.perceive_ms += ms(s0);
            if action == 0 && self.popup_pass(step, &obs).await? {
                action += 1;
                continue;
            }
            let mask = self.mask_for(&obs);
            // The screenshot the model sees (vlm) is the one uploaded: masked.
            let s1 = Instant::now();
            let png = match mode {
                Mode::Vlm => self
                    .dev
                    .screenshot()
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|p| super::mask::mask_png(p, &mask))
                    .ok(),
                _ => None,
            };
            t.screenshot_ms += ms(s1);
            let before_key = match &png {
                Some(p) => {
                    let key = argus_infra::screenshot_key(&self.run_id, step, action, "before");
                    let s2 = Instant::now();
                    let r = self.store.put(&key, p.clone(), "image/png").await;
                    t.upload_ms += ms(s2);
                    r.ok().map(|_| key)
                }
                None => self.shot(step, action, "before", &mask, &mut t).await,
            };
            let messages = self.prompt(task, plan, i, &history, &obs, png.as_deref());
            let mut usage = ModelUsage::default();
            let tools_v = tools(mode);
            let asked = match self.model.as_ref() {
                Some(c) => {
                    c.one_tool_call(messages, &tools_v, |c| check(mode, c), &mut usage)
                        .await
                }
                None => return Err(StepFail::Infra("no model client".into())),
            };
            let (call, raw, refusals) = asked.map_err(|e| StepFail::Infra(e.to_string()))?;
            let raw_text =
                serde_json::to_string(&json!({"name": raw.name, "arguments": raw.arguments}))
                    .unwrap_or_default();
            let (mut out, point, after_obs) = self.act(&call, &obs, &mut t).await;
            if !refusals.is_empty() {
                out.detail.push_str(&format!(
                    " (re-asked {}×: {})",
                    refusals.len(),
                    refusals.join("; ")
                ));
            }
            let acted = call.acts() && out.disposition != Disposition::NotDelivered;
            // Refused or undelivered calls changed nothing and are not reflected on.
            let reflection: Option<Reflection> = match (&after_obs, acted) {
                (Some(a), true) => Some(classify(&obs, a, &plan[i], None)),
                _ => None,
            };
            let after_mask = match &after_obs {
                Some(a) => {
                    let mut m = mask.clone();
                    m.extend(self.mask_for(a));
                    m
                }
                None => mask.clone(),
            };
            let after_key = self.shot(step, action, "after", &after_mask, &mut t).await;
            let mut rec = ActionRecord::new(
                step,
                action,
                call.kind(),
                out.detail.clone(),
                out.ok,
                out.error.clone(),
                out.disposition,
                started_at,
            );
            rec.target = out.target.clone();
            rec.before_key = before_key;
            rec.after_key = after_key;
            rec.timings = t;
            rec.observation = Some(obs.serial);
            rec.call = Some(raw_text.clone());
            rec.usage = Some(usage);
            rec.reflection = reflection.clone();
            rec.point_px = point.map(|(x, y)| [x, y]);
            self.emit_action(rec).await?;
            if call.acts() {
                self.actions_taken += 1;
            }
            action += 1;
            let summary = format!(
                "{} → {}{}",
                raw_text,
                if out.ok {
                    "ok".to_string()
                } else {
                    format!("refused/failed: {}", out.error.clone().unwrap_or_default())
                },
                reflection
                    .as_ref()
                    .map(|r| format!(" [{}: {}]", r.class.as_str(), r.note))
                    .unwrap_or_default()
            );
            history.push(format!("- {summary}"));
            if out.infra {
                return Err(StepFail::Infra(out.error.unwrap_or_default()));
            }
            match &call {
                ToolCall::Finish(_) => return Ok(StepEnd::Done),
                ToolCall::Fail(reason) => {
                    return Err(StepFail::Verdict(format!("the model gave up: {reason}")))
                }
                ToolCall::WaitFor { .. }
                | ToolCall::AssertContains(_)
                | ToolCall::AssertNotContains(_)
                    if !out.ok =>
                {
                    return Err(StepFail::Verdict(out.error.unwrap_or_default()));
                }
                _ => {}
            }
            match reflection.map(|r| r.class) {
                Some(ReflectClass::B) | Some(ReflectClass::C) => {
                    bad_in_a_row += 1;
                    failures.push(summary);
                    if bad_in_a_row >= 2 {
                        return Ok(StepEnd::Escalate(failures));
                    }
                }
                Some(ReflectClass::A) => bad_in_a_row = 0,
                None => {}
            }
        }
    }

    /// Checks and performs one call; returns the outcome, the tap point (vlm) and the
    /// observation after acting.
    async fn act(
        &mut self,
        call: &ToolCall,
        obs: &Observation,
        t: &mut ActionTimings,
    ) -> (Outcome, Option<(f64, f64)>, Option<Observation>) {
        let out = Outcome::new(call.kind().to_string());
        if let Some(named) = call.observation() {
            if named != obs.serial {
                return (
                    out.fail(format!(
                        "stale: the call names observation {named} but the screen is observation {}; element ids are valid for one observation only — not applied",
                        obs.serial
                    )),
                    None,
                    None,
                );
            }
        }
        let check_step = match call {
            ToolCall::WaitFor { text, timeout_ms } => Some(Step::WaitFor {
                text: text.clone(),
                timeout_ms: *timeout_ms,
            }),
            ToolCall::AssertContains(x) => Some(Step::AssertContains { text: x.clone() }),
            ToolCall::AssertNotContains(x) => Some(Step::AssertNotContains { text: x.clone() }),
            _ => None,
        };
        if let Some(st) = check_step {
            let out = self.perform(&st, obs).await;
            t.act_ms += out.act_ms;
            t.perceive_ms += out.extra_perceive_ms;
            return (out, None, None);
        }
        match call {
            ToolCall::Key(k) => {
                let mut o = out;
                o.detail = format!("press {}", k.as_str());
                let s0 = Instant::now();
                let o = self.input(o, Input::Key(*k)).await;
                t.act_ms += ms(s0);
                (o, None, self.observe().await.ok())
            }
            ToolCall::Open(u) => {
                let mut o = out;
                o.detail = format!("open {u}");
                let s0 = Instant::now();
                let o = self.input(o, Input::Open(u)).await;
                t.act_ms += ms(s0);
                (o, None, self.observe().await.ok())
            }
            ToolCall::Finish(s) => {
                let mut o = out;
                o.detail = format!("finish: {s}");
                (o, None, None)
            }
            ToolCall::Fail(r) => {
                let mut o = out.fail(r.clone());
                o.detail = "fail".into();
                (o, None, None)
            }
            ToolCall::Scroll { down } => {
                let (w, h) = obs.screen.device_size();
                let (cx, y1, y2) = (w as f64 / 2.0, h as f64 * 0.7, h as f64 * 0.3);
                let (from, to) = if *down {
                    ((cx, y1), (cx, y2))
                } else {
                    ((cx, y2), (cx, y1))
                };
                let s0 = Instant::now();
                let mut o = self.input(out, Input::Swipe(from, to)).await;
                if o.error
                    .as_deref()
                    .is_some_and(|e| e.contains("not supported"))
                {
                    let key = if *down {
                        argus_protocol::Key::PageDown
                    } else {
                        argus_protocol::Key::PageUp
                    };
                    o = self
                        .input(Outcome::new("scroll".into()), Input::Key(key))
                        .await;
                }
                t.act_ms += ms(s0);
                o.detail = format!("scroll {}", if *down { "down" } else { "up" });
                let after = self.observe().await.ok();
                (o, None, after)
            }
            ToolCall::Swipe { from, to } => {
                let (from, to) = (*from, *to);
                let s0 = Instant::now();
                let o = self.input(out, Input::Swipe(from, to)).await;
                t.act_ms += ms(s0);
                let after = self.observe().await.ok();
                (o, None, after)
            }
            ToolCall::Tap { aim, .. }
            | ToolCall::LongPress { aim, .. }
            | ToolCall::Type { aim, .. } => {
                let extra = match call {
                    ToolCall::Type { text, .. } => type_extra_wait_ms(text),
                    _ => 0,
                };
                let (el, point) = match self.target(aim, obs, extra, t).await {
                    Ok(x) => x,
                    Err(m) => return (out.fail(m), None, None),
                };
                let mut o = out;
                o.target = Some(targeted(&el));
                let s0 = Instant::now();
                o = match call {
                    ToolCall::Tap { .. } => {
                        o.detail = format!("tap {}", el.describe());
                        self.input(o, Input::Tap(&el)).await
                    }
                    ToolCall::LongPress { duration_ms, .. } => {
                        let d = *duration_ms;
                        o.detail = format!("long press {} for {d} ms", el.describe());
                        self.input(o, Input::LongPress(&el, d)).await
                    }
                    ToolCall::Type { text, .. } => {
                        o.detail =
                            format!("type {} chars into {}", text.chars().count(), el.describe());
                        if el.enabled == argus_perception::Tri::No {
                            o.fail(format!("{} is disabled", el.describe()))
                        } else {
                            match self.agent.secrets.resolve(text) {
                                Err(m) => o.fail(m),
                                Ok(real) => self.input(o, Input::Type(&el, &real)).await,
                            }
                        }
                    }
                    _ => o,
                };
                t.act_ms += ms(s0);
                let after = self.observe().await.ok();
                (o, point, after)
            }
            _ => (out.fail("unhandled tool".into()), None, None),
        }
    }

    async fn send(&mut self, input: &Input<'_>) -> Result<(), ActError> {
        match input {
            Input::Tap(el) => self.dev.tap(el).await,
            Input::LongPress(el, d) => self.dev.long_press(el, *d).await,
            Input::Type(el, text) => self.dev.type_text(el, text).await,
            Input::Swipe(a, b) => self.dev.swipe(*a, *b, 300).await,
            Input::Key(k) => self.dev.key(*k).await,
            Input::Open(u) => self.dev.open(u).await,
        }
    }

    /// Runs an input; repeats it only when it failed `not_delivered` (nothing reached the
    /// device), at most [`NOT_DELIVERED_RETRIES`] times. Any other failure is final: a
    /// `delivery_uncertain` input may have landed and is never sent again automatically.
    async fn input(&mut self, out: Outcome, input: Input<'_>) -> Outcome {
        let mut out = self.input_once(out, input).await;
        let notes = self.dev.take_notes();
        out.detail.push_str(&notes_suffix(&notes));
        out
    }

    /// [`Self::input`] without the device's notes.
    async fn input_once(&mut self, mut out: Outcome, input: Input<'_>) -> Outcome {
        let mut tries = 0;
        loop {
            match self.send(&input).await {
                Ok(()) => {
                    out.disposition = Disposition::DeliveredUnverified;
                    if tries > 0 {
                        out.detail
                            .push_str(&format!(" (repeated {tries}× after not_delivered)"));
                    }
                    return out;
                }
                Err(e)
                    if e.disposition == Disposition::NotDelivered
                        && tries < NOT_DELIVERED_RETRIES =>
                {
                    tries += 1;
                    tracing::info!(run_id = %self.run_id, "input not delivered; repeating it");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(e) => return out.act_error(e),
            }
        }
    }

    /// Resolves an aim to the element to act on, after the actionability checks (the id
    /// still names the same element, visible, enabled, not covered, stable), waiting up to
    /// the auto-wait. Returns the element and, for a point, the device px.
    async fn target(
        &mut self,
        aim: &Aim,
        obs: &Observation,
        extra_wait_ms: u64,
        t: &mut ActionTimings,
    ) -> Result<(Element, Option<(f64, f64)>), String> {
        let base_wait = self.agent.config.auto_wait_ms + extra_wait_ms;
        match aim {
            Aim::Point(x, y) => {
                let space = self
                    .spec
                    .model
                    .as_ref()
                    .and_then(|m| m.coords)
                    .unwrap_or(self.agent.config.coords);
                let (w, h) = obs.screen.device_size();
                let (px, py) = point_to_px(space, *x, *y, w as f64, h as f64);
                let snapped = snap(obs, px, py);
                if let Some(s) = snapped {
                    if s.covered.is_yes() || s.enabled == argus_perception::Tri::No {
                        return Err(format!(
                            "{} at ({px:.0}, {py:.0}) is not actionable (covered or disabled)",
                            s.describe()
                        ));
                    }
                }
                Ok((point_element(obs, px, py, snapped), Some((px, py))))
            }
            Aim::Element(id) => {
                let Some(first) = obs.element(id) else {
                    return Err(format!("observation {} has no element {id}", obs.serial));
                };
                let first = first.clone();
                let deadline = Instant::now() + Duration::from_millis(base_wait);
                let mut prev = first.clone();
                loop {
                    let s0 = Instant::now();
                    let now = self.observe().await?;
                    t.perceive_ms += ms(s0);
                    let Some(cur) = now.element(id).cloned() else {
                        return Err(format!("stale: {id} is gone since observation {} (screen changed) — not applied", obs.serial));
                    };
                    if cur.role != first.role || cur.name != first.name {
                        return Err(format!(
                            "stale: {id} now names {} instead of {} (screen changed since observation {}) — not applied",
                            cur.describe(), first.describe(), obs.serial
                        ));
                    }
                    let stable = same_element(&cur, &prev);
                    let ready =
                        stable && !cur.covered.is_yes() && cur.enabled != argus_perception::Tri::No;
                    if ready {
                        return Ok((cur, None));
                    }
                    if Instant::now() >= deadline {
                        return Err(format!(
                            "{} is not actionable after {base_wait} ms ({})",
                            cur.describe(),
                            if cur.covered.is_yes() {
                                "covered"
                            } else if cur.enabled == argus_perception::Tri::No {
                                "disabled"
                            } else {
                                "moving"
                            }
                        ));
                    }
                    prev = cur;
                    tokio::time::sleep(ACTIONABLE_POLL).await;
                }
            }
        }
    }
}

/// Extra auto-wait a `type` of `text` gets, ms.
pub fn type_extra_wait_ms(text: &str) -> u64 {
    text.chars().count() as u64 * TYPE_MS_PER_CHAR
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_parse_strictly() {
        assert_eq!(
            parse_plan(&json!({"steps": ["a", "b"]})).unwrap(),
            vec!["a", "b"]
        );
        assert!(parse_plan(&json!({"steps": []})).is_err());
        assert!(parse_plan(&json!({"steps": ["a"], "x": 1})).is_err());
        assert!(parse_plan(&json!(["a"])).is_err());
    }

    #[test]
    fn norm1000_maps_each_axis_by_its_own_size() {
        assert_eq!(
            point_to_px(CoordSpace::Norm1000, 500.0, 250.0, 1080.0, 2400.0),
            (540.0, 600.0)
        );
        assert_eq!(
            point_to_px(CoordSpace::Abs, 2000.0, 10.0, 1080.0, 2400.0),
            (1079.0, 10.0)
        );
    }
}
