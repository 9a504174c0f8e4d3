//! A **scripted stub** of an OpenAI-compatible chat-completions endpoint, for tests. It
//! speaks the real wire format (`POST /v1/chat/completions` with `messages`, `tools`,
//! `response_format`; answers `choices[0].message` with `tool_calls` or JSON `content`, and
//! a `usage` block) but its answers are a fixed script, not a model.
//!
//! Answers are templated from the request's last user message, so a script can name what
//! the worker actually observed:
//! - `"{{obs}}"` / `"{{obs-1}}"`: the observation number in the prompt (minus one: stale);
//! - `"{{id:TEXT}}"`: the id of the first element-list line containing `"TEXT`;
//! - `"{{before:ROLE:TEXT}}"`: the id of the nearest line of role ROLE before the first line
//!   with TEXT, or that line itself when it has the role (an unlabelled checkbox takes its
//!   row's text, see `argus_perception::row_label`).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A planner answer: `{"steps": [...]}` as JSON content.
    Plan(Vec<String>),
    /// One tool call.
    Call(&'static str, Value),
    /// Several tool calls in one reply (the worker must refuse it).
    Calls(Vec<(&'static str, Value)>),
    /// Raw content text.
    Content(String),
    /// One call written as a fenced JSON `{"name", "arguments"}` in `content`, with no
    /// `tool_calls` — what llama.cpp's server answers for many models.
    CallAsContent(&'static str, Value),
    /// The inner answer, sent only after this many ms (a slow model).
    Slow(u64, Box<Reply>),
    /// The answer to a progress check (`response_format` schema named `progress`). A
    /// progress check whose next scripted reply is anything else is answered
    /// `{"step_done": false, "job_done": false}` without using the script, so scripts
    /// written for the action calls alone keep their meaning.
    Progress { step_done: bool, job_done: bool },
    /// The answer to the judge (`response_format` schema named `judge`). A judge call whose
    /// next scripted reply is anything else is answered `{"done": true, "reason": "stub",
    /// "evidence": ""}`
    /// without using the script: a "yes" never changes a verdict, so scripts written before
    /// the judge keep their meaning.
    Judge {
        done: bool,
        reason: &'static str,
        evidence: &'static str,
    },
}

/// Shorthand for [`Reply::Plan`].
pub fn plan(steps: &[&str]) -> Reply {
    Reply::Plan(steps.iter().map(|s| s.to_string()).collect())
}

#[derive(Clone, Default)]
struct StubState {
    script: Arc<Mutex<VecDeque<Reply>>>,
    requests: Arc<Mutex<Vec<Value>>>,
}

/// The running stub.
pub struct ChatStub {
    /// API base, `http://127.0.0.1:<port>/v1`.
    pub base_url: String,
    state: StubState,
}

impl ChatStub {
    /// Serves `script` on a free loopback port.
    pub async fn start(script: Vec<Reply>) -> ChatStub {
        let state = StubState::default();
        state.script.lock().expect("lock").extend(script);
        let app = Router::new()
            .route("/v1/chat/completions", post(complete))
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind stub");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        ChatStub {
            base_url: format!("http://{addr}/v1"),
            state,
        }
    }

    /// Every request body received, in order (progress checks included).
    pub fn requests(&self) -> Vec<Value> {
        self.state.requests.lock().expect("lock").clone()
    }

    /// The request bodies received, progress checks and judge calls left out: what scripts
    /// written for the plan and action calls index into.
    pub fn requests_except_checks(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|b| !is_progress_check(b) && !is_judge(b))
            .collect()
    }

    /// Scripted answers not yet used.
    pub fn remaining(&self) -> usize {
        self.state.script.lock().expect("lock").len()
    }
}

/// The agent settings of a worker whose configuration lists the endpoint `spec` names
/// (`model.base_url`): a job may only pick among the worker's endpoints.
pub fn agent_env_for(spec: &argus_protocol::JobSpec) -> argus_worker::model::AgentEnv {
    let mut env = argus_worker::model::AgentEnv::default();
    env.config.endpoints = spec
        .model
        .iter()
        .filter_map(|m| m.base_url.clone())
        .collect();
    env
}

/// Whether a request is the agent's progress check (its `response_format` schema is named
/// `progress`).
pub fn is_progress_check(body: &Value) -> bool {
    body.pointer("/response_format/json_schema/name") == Some(&json!("progress"))
}

/// Whether a request is the run's judge call (its `response_format` schema is named
/// `judge`).
pub fn is_judge(body: &Value) -> bool {
    body.pointer("/response_format/json_schema/name") == Some(&json!("judge"))
}

/// Whether a request asks for the values of a form's fields (`agent::form_fill`: its
/// `response_format` schema is named `form_values` / `form_value`, or, with no schema, its
/// system message is the form reader's).
pub fn is_form_values(body: &Value) -> bool {
    body.pointer("/response_format/json_schema/name")
        .and_then(Value::as_str)
        .is_some_and(|n| n.starts_with("form_value"))
        || body
            .pointer("/messages/0/content")
            .and_then(Value::as_str)
            .is_some_and(|c| c.starts_with("You read form values"))
}

/// Text of the last user message (string content or the text parts).
pub fn last_user_text(body: &Value) -> String {
    let msgs = body["messages"].as_array().cloned().unwrap_or_default();
    let Some(m) = msgs.iter().rev().find(|m| {
        m["role"] == "user"
            && !m["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("Refused"))
    }) else {
        return String::new();
    };
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The observation number the action prompt names: its last `Observation N` (the line after
/// the element list and the step's actions, either of which may hold the word).
fn observation(prompt: &str) -> i64 {
    const AT: &str = "Observation ";
    prompt
        .rfind(AT)
        .and_then(|i| {
            prompt[i + AT.len()..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or(-1)
}

fn element_lines(prompt: &str) -> Vec<&str> {
    prompt
        .lines()
        .filter(|l| {
            l.starts_with('e')
                && l[1..]
                    .split(' ')
                    .next()
                    .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .collect()
}

fn id_of(line: &str) -> String {
    line.split(' ').next().unwrap_or_default().to_string()
}

fn fill(v: &Value, prompt: &str) -> Value {
    match v {
        Value::String(s) if s == "{{obs}}" => json!(observation(prompt)),
        Value::String(s) if s == "{{obs-1}}" => json!(observation(prompt) - 1),
        Value::String(s) if s.starts_with("{{id:") => {
            let want = format!("\"{}", &s[5..s.len() - 2]);
            let lines = element_lines(prompt);
            json!(lines
                .iter()
                .find(|l| l.contains(&want))
                .map(|l| id_of(l))
                .unwrap_or_else(|| "e0".into()))
        }
        Value::String(s) if s.starts_with("{{before:") => {
            let inner = &s[9..s.len() - 2];
            let (role, text) = inner.split_once(':').unwrap_or(("", inner));
            let want = format!("\"{text}");
            let lines = element_lines(prompt);
            let at = lines.iter().position(|l| l.contains(&want)).unwrap_or(0);
            let role_tag = format!(" {role}");
            json!(lines[..(at + 1).min(lines.len())]
                .iter()
                .rev()
                .find(|l| l.split(' ').nth(1).is_some_and(|r| role_tag.trim() == r))
                .map(|l| id_of(l))
                .unwrap_or_else(|| "e0".into()))
        }
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), fill(x, prompt)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| fill(x, prompt)).collect()),
        other => other.clone(),
    }
}

async fn complete(
    State(st): State<StubState>,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    st.requests.lock().expect("lock").push(body.clone());
    let is_check = is_progress_check(&body);
    let judging = is_judge(&body);
    if is_form_values(&body) {
        return (StatusCode::OK, Json(form_nulls(&body)));
    }
    let next = {
        let mut script = st.script.lock().expect("lock");
        match script.front() {
            Some(Reply::Progress { .. }) if !judging => script.pop_front(),
            Some(Reply::Judge { .. }) if judging => script.pop_front(),
            _ if is_check => Some(Reply::Progress {
                step_done: false,
                job_done: false,
            }),
            _ if judging => Some(Reply::Judge {
                done: true,
                reason: "stub",
                evidence: "",
            }),
            _ => script.pop_front(),
        }
    };
    let Some(reply) = next else {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({"error": {"message": "scripted stub: script exhausted"}})),
        );
    };
    let prompt = last_user_text(&body);
    let reply = match reply {
        Reply::Slow(ms, inner) => {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            *inner
        }
        other => other,
    };
    let (message, finish) = message_of(reply, &prompt);
    let prompt_tokens = body["messages"].to_string().len() as u64 / 4;
    let completion_tokens = message.to_string().len() as u64 / 4;
    (
        StatusCode::OK,
        Json(json!({
            "id": "chatcmpl-stub", "object": "chat.completion", "created": 0,
            "model": body["model"].clone(),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens}
        })),
    )
}

/// A scripted reply as the chat-completions message and its `finish_reason`.
fn message_of(reply: Reply, prompt: &str) -> (Value, &'static str) {
    let call = |i: usize, name: &str, args: &Value| {
        json!({"id": format!("call_{i}"), "type": "function",
            "function": {"name": name, "arguments": fill(args, prompt).to_string()}})
    };
    match reply {
        Reply::Plan(steps) => (
            json!({"role": "assistant", "content": json!({"steps": steps}).to_string()}),
            "stop",
        ),
        Reply::Content(c) => (json!({"role": "assistant", "content": c}), "stop"),
        Reply::Judge {
            done,
            reason,
            evidence,
        } => (
            json!({"role": "assistant", "content":
                json!({"done": done, "reason": reason, "evidence": evidence}).to_string()}),
            "stop",
        ),
        Reply::Progress {
            step_done,
            job_done,
        } => (
            json!({"role": "assistant", "content":
                json!({"step_done": step_done, "job_done": job_done}).to_string()}),
            "stop",
        ),
        Reply::CallAsContent(name, args) => {
            let call = json!({"name": name, "arguments": fill(&args, prompt)});
            (
                json!({"role": "assistant", "content": format!("```json\n{call}\n```")}),
                "stop",
            )
        }
        Reply::Call(name, args) => (
            json!({"role": "assistant", "content": null, "tool_calls": [call(0, name, &args)]}),
            "tool_calls",
        ),
        Reply::Calls(cs) => (
            json!({"role": "assistant", "content": null, "tool_calls":
                cs.iter().enumerate().map(|(i, (n, a))| call(i, n, a)).collect::<Vec<_>>()}),
            "tool_calls",
        ),
        Reply::Slow(..) => (
            json!({"role": "assistant", "content": "nested Slow replies are not supported"}),
            "stop",
        ),
    }
}

/// Form values are not scripted: every field is answered null (the worker then reads the
/// fields' names as cues), so scripts written for plans and actions keep their meaning.
fn form_nulls(body: &Value) -> Value {
    let nulls: serde_json::Map<String, Value> = body
        .pointer("/response_format/json_schema/schema/properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().map(|k| (k.clone(), Value::Null)).collect())
        .unwrap_or_default();
    json!({
        "id": "stub-form",
        "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": Value::Object(nulls).to_string()}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    })
}
