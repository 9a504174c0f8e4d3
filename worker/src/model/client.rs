//! An OpenAI-compatible chat-completions client (`POST {base}/chat/completions`).
//!
//! - Structured output: [`ModelClient::json`] sends a `response_format` JSON schema; when the
//!   endpoint refuses it (HTTP 400 naming `response_format`), later requests go without it.
//!   Either way the reply is parsed strictly and, when it does not parse, the model is asked
//!   again with the parse error, at most `format_retries` times.
//! - Tool calls: [`ModelClient::one_tool_call`] offers function tools and accepts exactly one
//!   call per reply; a reply with several calls (or none, or bad arguments) is refused and
//!   re-asked within the same bound — calls are never executed in parallel. A reply whose
//!   content is a JSON `{"name", "arguments"}` object is accepted as the call, for endpoints
//!   without tool support.
//!   A server that answers a `tools` request without `tool_calls` (llama.cpp's server with
//!   many models writes a fenced JSON in `content`, then runs to `max_tokens`) is switched,
//!   for the rest of the job, to `response_format` with the union of the tool schemas
//!   ([`ToolSet::schema`]) and the tools listed in the system text: decoding is then
//!   constrained to one call and stops after it.
//! - What was learnt about an endpoint ([`EndpointCaps`]: no `tool_calls`, no
//!   `response_format`) is kept by the worker for that endpoint and model and shared by every
//!   later job's client, so only the first job of a worker pays for the probe (on a CPU-local
//!   model that one wasted `tools` request is ~1,400 prompt tokens and minutes).
//! - `max_tokens` is sized per call kind ([`PLAN_MAX_TOKENS`], [`ACTION_MAX_TOKENS`]), capped
//!   by the configured `max_tokens`: a free-text answer never runs to a 1,024-token limit.
//! - Accounting: every request adds to a [`ModelUsage`] (calls, prompt/completion tokens
//!   from the `usage` block, prefix-cached prompt tokens, latency).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use argus_protocol::ModelUsage;
use serde_json::{json, Value};

/// `max_tokens` of a planner call (a JSON list of at most `plan::MAX_PLAN_STEPS` typed
/// steps, ~20 tokens each).
pub const PLAN_MAX_TOKENS: u32 = 768;
/// `max_tokens` of an action call (one `{"name", "arguments"}` object is < 100 tokens).
pub const ACTION_MAX_TOKENS: u32 = 160;
/// `max_tokens` of a progress check (`{"step_done": false, "job_done": false}` is 15
/// tokens in Qwen's and OpenAI's tokenizers).
pub const CHECK_MAX_TOKENS: u32 = 32;
/// Tokens for a form-values answer (a JSON object of a few short strings).
pub const FORM_MAX_TOKENS: u32 = 160;

/// The tools offered for one call, in the three forms servers need: the `tools` array, the
/// `response_format` union schema of one call, and a text listing for the system message.
pub struct ToolSet {
    /// OpenAI `tools` array.
    pub tools: Value,
    /// JSON schema of one `{"name", "arguments"}` call (the union of the tools).
    pub schema: Value,
    /// One line per tool, for prompts sent without `tools`.
    pub text: String,
}

/// Client settings (worker defaults merged with the job's overrides).
#[derive(Clone)]
pub struct ModelSettings {
    /// API base, e.g. `http://127.0.0.1:8000/v1`.
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// Bearer key, if any.
    pub api_key: Option<String>,
    /// Sampling temperature.
    pub temperature: f64,
    /// Per-request timeout.
    pub timeout: Duration,
    /// `max_tokens`.
    pub max_tokens: u32,
    /// Re-asks after an unusable reply.
    pub format_retries: u32,
}

/// Why no usable answer came back.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// No endpoint configured for this worker or job.
    #[error("no model endpoint configured: set ARGUS_MODEL_URL (--model-url) on the worker or model.base_url in the job")]
    NotConfigured,
    /// Transport failure or timeout.
    #[error("model request failed: {0}")]
    Transport(String),
    /// The job names an endpoint the worker's configuration does not.
    #[error("the job's model.base_url is not one of this worker's model endpoints (--model-url, --model-endpoints); ask the farm to add it")]
    EndpointNotAllowed,
    /// Non-2xx answer.
    #[error("model endpoint answered HTTP {status}: {}", clip_text(body))]
    Status {
        /// HTTP status.
        status: u16,
        /// First 300 chars of the body (shown cut by [`clip_text`]).
        body: String,
    },
    /// Still no usable reply after the format retries.
    #[error(
        "the model gave no usable answer after {tries} tries: {}",
        clip_text(last)
    )]
    Format {
        /// Requests made.
        tries: u32,
        /// The last parse error.
        last: String,
    },
}

/// Longest piece of a model endpoint's own text quoted in an error, chars.
pub const ERROR_TEXT_CHARS: usize = 200;

/// Text from a model endpoint as it may appear in a run's error: one line, control
/// characters dropped, at most [`ERROR_TEXT_CHARS`] chars, quoted.
pub fn clip_text(s: &str) -> String {
    let one: String = s
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    let mut out: String = one.chars().take(ERROR_TEXT_CHARS).collect();
    if one.chars().count() > ERROR_TEXT_CHARS {
        out.push('…');
    }
    format!("{out:?}")
}

/// One parsed tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct RawCall {
    /// Function name.
    pub name: String,
    /// Arguments object.
    pub arguments: Value,
}

/// What an endpoint (base URL + model) has shown it can do; shared by the clients of all the
/// jobs a worker runs against it.
#[derive(Debug)]
pub struct EndpointCaps {
    /// False once the endpoint refused `response_format`.
    schema_ok: AtomicBool,
    /// False once the endpoint answered a `tools` request without `tool_calls`.
    tool_calls_ok: AtomicBool,
}

impl Default for EndpointCaps {
    fn default() -> Self {
        EndpointCaps {
            schema_ok: AtomicBool::new(true),
            tool_calls_ok: AtomicBool::new(true),
        }
    }
}

/// The chat-completions client of one job.
pub struct ModelClient {
    http: reqwest::Client,
    s: ModelSettings,
    caps: Arc<EndpointCaps>,
}

impl ModelClient {
    /// Builds the client (HTTP timeout from the settings), knowing nothing of the endpoint.
    pub fn new(s: ModelSettings) -> Result<ModelClient, ModelError> {
        Self::with_caps(s, Arc::default())
    }

    /// Builds the client on what is already known of its endpoint (and adds to it).
    pub fn with_caps(s: ModelSettings, caps: Arc<EndpointCaps>) -> Result<ModelClient, ModelError> {
        let http = reqwest::Client::builder()
            .timeout(s.timeout)
            .build()
            .map_err(|e| ModelError::Transport(e.to_string()))?;
        Ok(ModelClient { http, s, caps })
    }

    /// The model name.
    pub fn model(&self) -> &str {
        &self.s.model
    }

    /// Whether the endpoint still gets `tools` (false after it answered without
    /// `tool_calls`: then `response_format` with the union schema is used).
    pub fn uses_tool_calls(&self) -> bool {
        self.caps.tool_calls_ok.load(Ordering::Relaxed)
    }

    /// One request of at most `max_tokens` (capped by the configured limit); returns
    /// `choices[0].message` and adds to `usage`.
    pub async fn chat(
        &self,
        messages: &[Value],
        extra: Value,
        max_tokens: u32,
        usage: &mut ModelUsage,
    ) -> Result<Value, ModelError> {
        let mut body = json!({
            "model": self.s.model,
            "messages": messages,
            "temperature": self.s.temperature,
            "max_tokens": max_tokens.min(self.s.max_tokens).max(1),
        });
        if let (Some(b), Value::Object(x)) = (body.as_object_mut(), extra) {
            b.extend(x);
        }
        let url = format!("{}/chat/completions", self.s.base_url.trim_end_matches('/'));
        let mut req = self.http.post(&url).json(&body);
        if let Some(k) = &self.s.api_key {
            req = req.bearer_auth(k);
        }
        let start = Instant::now();
        let res = req.send().await;
        usage.calls += 1;
        let res = match res {
            Ok(r) => r,
            Err(e) => {
                usage.latency_ms += start.elapsed().as_secs_f64() * 1000.0;
                return Err(ModelError::Transport(if e.is_timeout() {
                    format!("no answer within {} s", self.s.timeout.as_secs())
                } else {
                    e.to_string()
                }));
            }
        };
        let status = res.status();
        let text = res.text().await.unwrap_or_default();
        usage.latency_ms += start.elapsed().as_secs_f64() * 1000.0;
        if !status.is_success() {
            return Err(ModelError::Status {
                status: status.as_u16(),
                body: text.chars().take(300).collect(),
            });
        }
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| ModelError::Transport(format!("answer is not JSON: {e}")))?;
        if let Some(u) = v.get("usage") {
            usage.prompt_tokens += u["prompt_tokens"].as_u64().unwrap_or(0);
            usage.completion_tokens += u["completion_tokens"].as_u64().unwrap_or(0);
        }
        usage.cached_tokens += cached_tokens(&v);
        v.pointer("/choices/0/message")
            .cloned()
            .ok_or_else(|| ModelError::Transport("answer has no choices[0].message".into()))
    }

    /// Asks for a JSON object matching `schema` in at most `max_tokens` tokens; `parse`
    /// checks it strictly. Re-asks with the
    /// parse error up to `format_retries` times.
    pub async fn json<T>(
        &self,
        mut messages: Vec<Value>,
        name: &str,
        schema: &Value,
        parse: impl Fn(&Value) -> Result<T, String>,
        max_tokens: u32,
        usage: &mut ModelUsage,
    ) -> Result<T, ModelError> {
        let mut last = String::new();
        let tries = self.s.format_retries + 1;
        for _ in 0..tries {
            let extra = if self.caps.schema_ok.load(Ordering::Relaxed) {
                json!({"response_format": {"type": "json_schema",
                    "json_schema": {"name": name, "strict": true, "schema": schema}}})
            } else {
                json!({})
            };
            let msg = match self.chat(&messages, extra, max_tokens, usage).await {
                Err(ModelError::Status { status: 400, body })
                    if body.contains("response_format")
                        && self.caps.schema_ok.load(Ordering::Relaxed) =>
                {
                    tracing::info!("endpoint refuses response_format; asking for plain JSON");
                    self.caps.schema_ok.store(false, Ordering::Relaxed);
                    self.chat(&messages, json!({}), max_tokens, usage).await?
                }
                r => r?,
            };
            let content = msg["content"].as_str().unwrap_or_default().to_string();
            let parsed = strip_fences(&content)
                .and_then(|c| serde_json::from_str::<Value>(c).map_err(|e| e.to_string()))
                .and_then(|v| parse(&v));
            match parsed {
                Ok(t) => return Ok(t),
                Err(e) => {
                    last = e.clone();
                    messages.push(json!({"role": "assistant", "content": content}));
                    messages.push(json!({"role": "user", "content": format!(
                        "That answer was not usable: {e}. Answer with only one JSON object that matches the schema {schema}."
                    )}));
                }
            }
        }
        Err(ModelError::Format { tries, last })
    }

    /// Asks for exactly one call of `tools`; `check` validates it. Returns the call and the
    /// refusals made on the way (for the report).
    pub async fn one_tool_call<T>(
        &self,
        mut messages: Vec<Value>,
        tools: &ToolSet,
        check: impl Fn(&RawCall) -> Result<T, String>,
        usage: &mut ModelUsage,
    ) -> Result<(T, RawCall, Vec<String>), ModelError> {
        let mut refusals = Vec::new();
        let tries = self.s.format_retries + 1;
        for _ in 0..tries {
            let native = self.uses_tool_calls();
            let msg = if native {
                self.chat(
                    &messages,
                    json!({"tools": tools.tools, "tool_choice": "required", "parallel_tool_calls": false}),
                    ACTION_MAX_TOKENS,
                    usage,
                )
                .await?
            } else {
                let extra = json!({"response_format": {"type": "json_schema",
                    "json_schema": {"name": "call", "schema": tools.schema}}});
                self.chat(
                    &with_tools_text(&messages, &tools.text),
                    extra,
                    ACTION_MAX_TOKENS,
                    usage,
                )
                .await?
            };
            if native
                && msg
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .is_none_or(|a| a.is_empty())
            {
                tracing::info!("the endpoint answered without tool_calls; using response_format with the tools' union schema from now on");
                self.caps.tool_calls_ok.store(false, Ordering::Relaxed);
            }
            let calls = extract_calls(&msg);
            let problem = match calls.as_slice() {
                [] => "the reply has no tool call; call exactly one tool".to_string(),
                [one] => match check(one) {
                    Ok(t) => return Ok((t, one.clone(), refusals)),
                    Err(e) => format!("the call {} was refused: {e}", one.name),
                },
                many => format!(
                    "the reply has {} tool calls ({}); only one call per turn is executed, none of these was — call exactly one tool",
                    many.len(),
                    many.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", ")
                ),
            };
            tracing::info!(problem = %problem, "model reply refused; asking again");
            refusals.push(problem.clone());
            let mut assistant = json!({"role": "assistant", "content": msg["content"].clone()});
            if let Some(tc) = msg.get("tool_calls").filter(|t| t.is_array()) {
                assistant["tool_calls"] = tc.clone();
                messages.push(assistant);
                for c in tc.as_array().into_iter().flatten() {
                    messages.push(json!({"role": "tool", "tool_call_id": c["id"].clone(),
                        "content": format!("not executed: {problem}")}));
                }
            } else {
                messages.push(assistant);
            }
            messages.push(json!({"role": "user", "content": format!("Refused: {problem}.")}));
        }
        Err(ModelError::Format {
            tries,
            last: refusals.last().cloned().unwrap_or_default(),
        })
    }
}

/// Prefix-cached prompt tokens of an answer: llama.cpp's `timings.cache_n`, or OpenAI's
/// `usage.prompt_tokens_details.cached_tokens`; 0 when neither is there.
fn cached_tokens(answer: &Value) -> u64 {
    answer
        .pointer("/timings/cache_n")
        .and_then(Value::as_u64)
        .or_else(|| {
            answer
                .pointer("/usage/prompt_tokens_details/cached_tokens")
                .and_then(Value::as_u64)
        })
        .unwrap_or(0)
}

/// `messages` with the tool list and the answer format appended to the system message (for
/// a request sent with `response_format` instead of `tools`; kept at the end of the stable
/// system text so a prefix cache still reuses it).
pub(crate) fn with_tools_text(messages: &[Value], tools_text: &str) -> Vec<Value> {
    let note = format!(
        "\n\nTools:\n{tools_text}\nAnswer with exactly one JSON object {{\"name\": <tool>, \"arguments\": {{…}}}} and nothing else."
    );
    let mut out = messages.to_vec();
    match out.iter_mut().find(|m| m["role"] == "system") {
        Some(m) => {
            let c = m["content"].as_str().unwrap_or_default().to_string();
            m["content"] = json!(format!("{c}{note}"));
        }
        None => out.insert(0, json!({"role": "system", "content": note.trim_start()})),
    }
    out
}

/// The tool calls of a reply: `tool_calls[*].function`, or a JSON `{"name","arguments"}`
/// object (or an array of them) in `content`.
fn extract_calls(msg: &Value) -> Vec<RawCall> {
    let parse_args = |a: &Value| match a {
        Value::String(s) => serde_json::from_str(s).unwrap_or(Value::Null),
        other => other.clone(),
    };
    if let Some(tc) = msg.get("tool_calls").and_then(Value::as_array) {
        if !tc.is_empty() {
            return tc
                .iter()
                .map(|c| RawCall {
                    name: c["function"]["name"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                    arguments: parse_args(&c["function"]["arguments"]),
                })
                .collect();
        }
    }
    let content = msg["content"].as_str().unwrap_or_default();
    let Ok(v) = strip_fences(content)
        .and_then(|c| serde_json::from_str::<Value>(c).map_err(|e| e.to_string()))
    else {
        return Vec::new();
    };
    let one = |o: &Value| {
        o["name"].as_str().map(|n| RawCall {
            name: n.to_string(),
            arguments: parse_args(&o["arguments"]),
        })
    };
    match &v {
        Value::Array(a) => a.iter().filter_map(one).collect(),
        o => one(o).into_iter().collect(),
    }
}

/// The JSON inside a reply, without a Markdown code fence around it.
fn strip_fences(s: &str) -> Result<&str, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("the reply is empty".into());
    }
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .map(|x| x.trim_end().trim_end_matches("```").trim())
        .unwrap_or(t);
    Ok(t)
}

#[cfg(test)]
mod tests {
    #[test]
    fn endpoint_text_is_cut_to_one_quoted_line() {
        let body = format!("line one\n\u{1b}[31m{}", "x".repeat(1000));
        let e = ModelError::Status { status: 500, body }.to_string();
        assert!(e.len() < 260, "{e}");
        assert!(!e.contains('\n') && !e.contains('\u{1b}'), "{e}");
        assert!(e.contains("\"line one [31mxxx"), "{e}");
    }

    use super::*;

    #[test]
    fn extracts_tool_calls_and_content_json() {
        let m = json!({"tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "tap", "arguments": "{\"element\":\"e1\"}"}},
            {"id": "2", "type": "function", "function": {"name": "finish", "arguments": "{}"}}]});
        let c = extract_calls(&m);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].arguments["element"], "e1");
        let m = json!({"content": "```json\n{\"name\":\"key\",\"arguments\":{\"key\":\"Enter\"}}\n```"});
        assert_eq!(extract_calls(&m)[0].name, "key");
        assert!(extract_calls(&json!({"content": "hello"})).is_empty());
    }
}
