//! The job spec: what a user asks for, as accepted by `POST /api/v1/jobs` and `argus run`.
//!
//! A spec is parsed strictly (unknown fields are refused) and then [`JobSpec::validate`]d;
//! every failure names the offending field so the API can answer a 4xx envelope that says
//! what to fix. A valid spec is immutable once queued.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::action::Action;
use crate::platform::Platform;
use crate::script::{Script, ScriptError, Step};
use crate::selector::Constraint;

/// Largest accepted `instruction`, in bytes (64 KiB).
pub const MAX_INSTRUCTION_BYTES: usize = 64 * 1024;
/// Largest accepted `max_steps`.
pub const MAX_STEPS_LIMIT: u32 = 1_000;
/// Largest accepted `timeout_s` (24 h).
pub const MAX_TIMEOUT_S: u64 = 24 * 3600;
/// Most selector labels a job may carry.
pub const MAX_LABELS: usize = 32;
/// Longest label key or value, in bytes.
pub const MAX_LABEL_BYTES: usize = 128;
/// Default `max_steps` when the spec leaves it out.
pub const DEFAULT_MAX_STEPS: u32 = 50;
/// Default `timeout_s` when the spec leaves it out (5 min).
pub const DEFAULT_TIMEOUT_S: u64 = 300;

/// How the worker turns the instruction into actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Mode {
    /// The step language in [`crate::script`]; needs no model. The default.
    #[default]
    Script,
    /// A text model plans over the compact element list.
    Llm,
    /// A vision model plans over the screenshot.
    Vlm,
}

impl Mode {
    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Script => "script",
            Mode::Llm => "llm",
            Mode::Vlm => "vlm",
        }
    }
}

/// Which devices may run a job: every label here must be present with the same value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Selector {
    /// Required device labels, e.g. `{"browser": "chromium"}`.
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// Further constraints, each `key=value`, `key!=value`, `key>=13` (numeric / version
    /// compare) or `key in [a, b]`; see `argus_protocol::selector`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub require: Vec<String>,
}

/// Queue timeout of a job that sets no `queue_timeout_s`, s (15 min): a run no matching
/// device takes by then ends `timed_out`.
pub const DEFAULT_QUEUE_TIMEOUT_S: u64 = 900;

/// Most runs on other devices a job may ask for (`retry_elsewhere`).
pub const MAX_RETRY_ELSEWHERE: u32 = 5;

/// Whether `n` is 0 (fields left out of the stored spec at their default).
fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Selector {
    /// Parsed `require` constraints (validated by [`JobSpec::validate`]).
    pub fn constraints(&self) -> Result<Vec<Constraint>, String> {
        self.require.iter().map(|c| Constraint::parse(c)).collect()
    }

    /// The selector in words for people, e.g. `browser=chromium, os_version>=14`; empty when
    /// it asks for nothing.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        parts.extend(self.require.iter().cloned());
        parts.join(", ")
    }

    /// Whether a device with `labels` satisfies the whole selector.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.labels.iter().all(|(k, v)| labels.get(k) == Some(v))
            && self
                .constraints()
                .map(|cs| cs.iter().all(|c| c.matches(labels)))
                .unwrap_or(false)
    }
}

/// A job as submitted. See the crate docs of `argus-coordinator` for the HTTP shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobSpec {
    /// Target platform.
    pub platform: Platform,
    /// URL opened before the first step (web/electron), optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_url: Option<String>,
    /// The instruction: script lines in `script` mode, natural language otherwise.
    #[cfg_attr(feature = "openapi", schema(max_length = 65536))]
    pub instruction: String,
    /// Planning mode; default `script`.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(default = "script"))]
    pub mode: Mode,
    /// Device selector; default matches any device of the platform.
    #[serde(default)]
    pub selector: Selector,
    /// Most actions the run may take; default 50, at most 1,000.
    #[serde(default = "default_max_steps")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1000, default = default_max_steps))]
    pub max_steps: u32,
    /// Wall-clock limit of one run in seconds; default 300, at most 86,400.
    #[serde(default = "default_timeout_s")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 86400, default = default_timeout_s))]
    pub timeout_s: u64,
    /// Free-form name shown in the dashboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Higher runs first, FIFO within a priority. Default 0, range -100..=100.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = -100, maximum = 100, default = 0))]
    pub priority: i32,
    /// Extra runs after a `failed`, `errored` or `timed_out` run. Default 0, at most 10.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(maximum = 10, default = 0))]
    pub retries: u32,
    /// Delay before a retry run starts, s. Default 0.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(maximum = 86400, default = 0))]
    pub backoff_s: u64,
    /// Extra runs, each on a device of the job's class that none of its earlier attempts
    /// ran on, after a run that ended with a failure class (`app`, `device`, `infra`).
    /// Tried before `retries`. Default 0, at most 5 (`MAX_RETRY_ELSEWHERE`).
    #[serde(default, skip_serializing_if = "is_zero")]
    #[cfg_attr(feature = "openapi", schema(maximum = 5, default = 0))]
    pub retry_elsewhere: u32,
    /// Safe to repeat even after actions were delivered (read-only patrols): a run lost with
    /// a worker is retried instead of waiting for a person. Default false.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(default = false))]
    pub idempotent: bool,
    /// A run still queued this long after it was queued ends `timed_out` ("no matching free
    /// device"), s. Default 900 s (`DEFAULT_QUEUE_TIMEOUT_S`), applied by the coordinator
    /// when the job leaves it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schema(minimum = 1, maximum = 604800, default = 900)
    )]
    pub queue_timeout_s: Option<u64>,
    /// Per-job model settings for `llm` / `vlm` mode (the worker's defaults otherwise).
    /// The API key is never part of a job: it comes from the worker's environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelOverride>,
    /// Run the built-in popup policy between steps (dismiss cookie/update/ad dialogs).
    /// Default true.
    #[serde(default = "default_true")]
    #[cfg_attr(feature = "openapi", schema(default = true))]
    pub popups: bool,
    /// How long a step that names a target waits for it to exist, be visible, enabled, not
    /// covered and stable across two observations, ms. Default: the worker's
    /// (`--agent-auto-wait-ms`, 5,000); at most 120,000 (`MAX_AUTO_WAIT_MS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(maximum = 120000))]
    pub auto_wait_ms: Option<u64>,
    /// Values of the `${var.NAME}` references in the instruction (and included files):
    /// names `[A-Za-z_][A-Za-z0-9_]*`, at most 64 of them, each value at most 1,024 bytes.
    /// Plain text, shown in reports; for a secret, make the value `${secret.NAME}`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, String>,
    /// Checks the run's verdict rests on: step-language check lines (`assert screen contains
    /// "Saved"`, `assert screen does not contain "Error"`, `wait for "…"`, `断言 页面包含 "…"`),
    /// `${var.NAME}` filled in. Checked on a fresh observation at the end of the run (see
    /// `argus_protocol::expect`); the run succeeds only when all held. At most 32, each one line of
    /// at most 1,024 bytes; a line that does not parse, or acts instead of checking, is
    /// refused at submit naming `expectations[i]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expectations: Vec<String>,
    /// Files the script `include`s, by path relative to the instruction's own file (see
    /// `argus_protocol::script::resolve_include`); the CLI fills it from disk. At most 32,
    /// each at most 64 KiB.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
    /// Learned replay (`llm` / `vlm` only; ignored in `script` mode): `off`, `read` (replay a
    /// stored script, never store one) or `read_write` (replay, and store or update the
    /// script after a success). Default `read_write` for `llm` / `vlm`. The key and the
    /// script are described in the `argus_protocol::replay` docs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(default = "read_write"))]
    pub cache: Option<Cache>,
    /// The build of the app under test (e.g. `1.4.0`): one line of 1 to 64 characters
    /// (`MAX_APP_BUILD_CHARS`), no control characters. Every run of the job (retries and
    /// reruns too) belongs to it; insights give pass rates per build and the first build a
    /// job started failing on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 64))]
    pub app_build: Option<String>,
}

/// Whether a model-mode job replays and learns stored scripts (learned replay, see the
/// `argus_protocol::replay` docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Cache {
    /// Never replay, never store: every action comes from the model.
    Off,
    /// Replay a stored script when there is one; never store or update it.
    Read,
    /// Replay when there is one, and store (or update) the script after a success.
    ReadWrite,
}

impl Cache {
    /// The snake_case wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Cache::Off => "off",
            Cache::Read => "read",
            Cache::ReadWrite => "read_write",
        }
    }

    /// Whether a stored script is replayed.
    pub fn reads(self) -> bool {
        self != Cache::Off
    }

    /// Whether a success stores (or updates) the script.
    pub fn writes(self) -> bool {
        self == Cache::ReadWrite
    }
}

/// Most `vars` a job may give.
pub const MAX_VARS: usize = 64;
/// Longest `vars` value, bytes.
pub const MAX_VAR_BYTES: usize = 1024;
/// Most `files` a job may carry.
pub const MAX_FILES: usize = 32;
/// Longest `app_build`, characters.
pub const MAX_APP_BUILD_CHARS: usize = 64;

/// Longest accepted `auto_wait_ms`, ms (2 min).
pub const MAX_AUTO_WAIT_MS: u64 = 120_000;

fn default_true() -> bool {
    true
}

/// The coordinate space a vision model answers points in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum CoordSpace {
    /// Absolute device px.
    Abs,
    /// 0..=1000 per axis, each axis by its own size.
    Norm1000,
    /// 0..=999 per axis, each axis by its own size.
    Norm999,
}

/// Model settings a job may override. Unknown fields (an `api_key`, say) are refused.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ModelOverride {
    /// OpenAI-compatible API base URL, e.g. `http://127.0.0.1:8000/v1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// Model name the endpoint serves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Sampling temperature, 0..=2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 2))]
    pub temperature: Option<f64>,
    /// Coordinate space of vlm answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coords: Option<CoordSpace>,
}

/// Names of the `${secret.NAME}` references in `text`, in order (NAME: `[A-Za-z0-9_]`,
/// 1..=64). Errors on an unclosed or malformed reference.
pub fn secret_refs(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("${secret.") {
        let after = &rest[i + "${secret.".len()..];
        let end = after
            .find('}')
            .ok_or_else(|| "unclosed ${secret.…} reference".to_string())?;
        let name = &after[..end];
        if name.is_empty()
            || name.len() > 64
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(format!(
                "secret name {:?} must be 1–64 letters, digits or `_`",
                name.chars().take(64).collect::<String>()
            ));
        }
        out.push(name.to_string());
        rest = &after[end + 1..];
    }
    Ok(out)
}

fn default_max_steps() -> u32 {
    DEFAULT_MAX_STEPS
}
fn default_timeout_s() -> u64 {
    DEFAULT_TIMEOUT_S
}

/// Why a spec was refused: the field path (`instruction`, `selector.labels`, …), a message
/// saying what is wrong and a hint saying how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct SpecError {
    /// Dotted path of the offending field, e.g. `instruction` or `instruction[line 3]`.
    pub field: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

impl SpecError {
    fn new(field: &str, message: impl Into<String>, hint: impl Into<String>) -> SpecError {
        SpecError {
            field: field.to_string(),
            message: message.into(),
            hint: hint.into(),
        }
    }
}

impl From<ScriptError> for SpecError {
    fn from(e: ScriptError) -> SpecError {
        SpecError {
            field: match &e.file {
                _ if e.over_max_steps => "max_steps".to_string(),
                None => format!("instruction[line {}]", e.line),
                Some(f) => format!("files[{f}][line {}]", e.line),
            },
            message: e.message,
            hint: e.hint,
        }
    }
}

impl JobSpec {
    /// A script-mode web job with defaults, as `argus run` builds one.
    pub fn script(platform: Platform, start_url: Option<String>, instruction: String) -> JobSpec {
        JobSpec {
            platform,
            start_url,
            instruction,
            mode: Mode::Script,
            selector: Selector::default(),
            max_steps: DEFAULT_MAX_STEPS,
            timeout_s: DEFAULT_TIMEOUT_S,
            name: None,
            priority: 0,
            retries: 0,
            backoff_s: 0,
            retry_elsewhere: 0,
            idempotent: false,
            queue_timeout_s: None,
            model: None,
            popups: true,
            auto_wait_ms: None,
            vars: BTreeMap::new(),
            expectations: Vec::new(),
            files: BTreeMap::new(),
            cache: None,
            app_build: None,
        }
    }

    /// The replay cache setting in effect: `off` in `script` mode, else the job's `cache`
    /// or `read_write`.
    pub fn cache_mode(&self) -> Cache {
        match self.mode {
            Mode::Script => Cache::Off,
            Mode::Llm | Mode::Vlm => self.cache.unwrap_or(Cache::ReadWrite),
        }
    }

    /// The instruction with `${var.NAME}` filled from `vars` (as given otherwise: script
    /// mode fills variables line by line while parsing). Errors name the line.
    pub fn instruction_with_vars(&self) -> Result<String, SpecError> {
        let lines: Result<Vec<String>, SpecError> = self
            .instruction
            .lines()
            .enumerate()
            .map(|(i, l)| {
                crate::script::vars::substitute(l, &self.vars, false)
                    .map_err(|(m, h)| SpecError::new(&format!("instruction[line {}]", i + 1), m, h))
            })
            .collect();
        Ok(lines?.join("\n"))
    }

    /// `app_build`: 1 to `MAX_APP_BUILD_CHARS` characters, not blank, no control characters
    /// (a newline included).
    fn validate_app_build(&self) -> Result<(), SpecError> {
        let Some(b) = &self.app_build else {
            return Ok(());
        };
        if b.trim().is_empty()
            || b.chars().count() > MAX_APP_BUILD_CHARS
            || b.chars().any(char::is_control)
        {
            return Err(SpecError::new(
                "app_build",
                format!(
                    "app_build is blank, over {MAX_APP_BUILD_CHARS} characters or holds a control character"
                ),
                "give the build as one short line, e.g. 1.4.0",
            ));
        }
        Ok(())
    }

    fn validate_vars_and_files(&self) -> Result<(), SpecError> {
        if self.vars.len() > MAX_VARS {
            return Err(SpecError::new(
                "vars",
                format!("{} vars, more than the {MAX_VARS} allowed", self.vars.len()),
                "pass fewer variables",
            ));
        }
        for (k, v) in &self.vars {
            if !crate::script::vars::is_var_name(k) {
                return Err(SpecError::new(
                    "vars",
                    format!("variable name {k:?} is not valid"),
                    "names are a letter or `_`, then letters, digits or `_` (at most 64)",
                ));
            }
            if v.len() > MAX_VAR_BYTES || v.chars().any(char::is_control) {
                return Err(SpecError::new(
                    &format!("vars.{k}"),
                    format!("the value of {k} is over {MAX_VAR_BYTES} bytes or holds a control character"),
                    "give a one-line value of at most 1,024 bytes",
                ));
            }
        }
        if self.files.len() > MAX_FILES {
            return Err(SpecError::new(
                "files",
                format!(
                    "{} files, more than the {MAX_FILES} allowed",
                    self.files.len()
                ),
                "include fewer files",
            ));
        }
        if let Some((k, _)) = self
            .files
            .iter()
            .find(|(k, v)| k.is_empty() || k.len() > 256 || v.len() > MAX_INSTRUCTION_BYTES)
        {
            return Err(SpecError::new(
                &format!("files[{k}]"),
                "an included file's path is empty or over 256 bytes, or its text is over 64 KiB",
                "split the file",
            ));
        }
        for (k, text) in &self.files {
            secret_refs(text).map_err(|e| {
                SpecError::new(
                    &format!("files[{k}]"),
                    e,
                    "write secrets as ${secret.NAME} with NAME of letters, digits or `_`",
                )
            })?;
        }
        Ok(())
    }

    /// The job's expectations with `${var.NAME}` filled in, each parsed to its check.
    ///
    /// Errors name `expectations[i]` (0-based).
    pub fn expectation_checks(&self) -> Result<Vec<(String, Action)>, SpecError> {
        use crate::expect::{parse_expectation, MAX_EXPECTATIONS};
        if self.expectations.len() > MAX_EXPECTATIONS {
            return Err(SpecError::new(
                "expectations",
                format!(
                    "{} expectations, more than the {MAX_EXPECTATIONS} allowed",
                    self.expectations.len()
                ),
                "keep the checks that decide the verdict",
            ));
        }
        self.expectations
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let at = format!("expectations[{i}]");
                let line = crate::script::vars::substitute(line, &self.vars, true)
                    .map_err(|(m, h)| SpecError::new(&at, m, h))?;
                let action =
                    parse_expectation(&line).map_err(|(m, h)| SpecError::new(&at, m, h))?;
                Ok((line.trim().to_string(), action))
            })
            .collect()
    }

    /// Checks limits and, in `script` mode, parses the instruction.
    ///
    /// Returns the parsed script (empty for other modes) or the first problem found.
    pub fn validate(&self) -> Result<Script, SpecError> {
        if self.instruction.trim().is_empty() {
            return Err(SpecError::new(
                "instruction",
                "instruction is empty",
                "give one step per line, e.g. `tap \"Sign in\"`",
            ));
        }
        if self.instruction.len() > MAX_INSTRUCTION_BYTES {
            return Err(SpecError::new(
                "instruction",
                format!(
                    "instruction is {} bytes, more than the {MAX_INSTRUCTION_BYTES} allowed",
                    self.instruction.len()
                ),
                "split the job into several jobs or a suite",
            ));
        }
        if self.max_steps == 0 || self.max_steps > MAX_STEPS_LIMIT {
            return Err(SpecError::new(
                "max_steps",
                format!("max_steps is {}", self.max_steps),
                format!("use a value from 1 to {MAX_STEPS_LIMIT}"),
            ));
        }
        if self.timeout_s == 0 || self.timeout_s > MAX_TIMEOUT_S {
            return Err(SpecError::new(
                "timeout_s",
                format!("timeout_s is {}", self.timeout_s),
                format!("use a value from 1 to {MAX_TIMEOUT_S} seconds"),
            ));
        }
        self.validate_labels()?;
        self.validate_policy()?;
        self.validate_model()?;
        self.validate_vars_and_files()?;
        self.validate_app_build()?;
        self.expectation_checks()?;
        let instruction = self.instruction_with_vars()?;
        if let Err(e) = secret_refs(&instruction) {
            return Err(SpecError::new(
                "instruction",
                e,
                "write secrets as ${secret.NAME} with NAME of letters, digits or `_`",
            ));
        }
        if let Some(url) = &self.start_url {
            if let Some(why) = crate::nav::refusal(Platform::Web, url) {
                return Err(SpecError::new(
                    "start_url",
                    format!("start_url refused by the navigation policy: {why}"),
                    "write a full http(s) URL such as http://127.0.0.1:8080/",
                ));
            }
            if !matches!(self.platform, Platform::Web | Platform::Electron) {
                return Err(SpecError::new(
                    "start_url",
                    format!(
                        "start_url applies to web and electron, not {}",
                        self.platform
                    ),
                    "drop start_url and open the app with an `open` step",
                ));
            }
        }
        match self.mode {
            Mode::Script => {
                let script = Script::parse_bounded(
                    &self.instruction,
                    &self.files,
                    &self.vars,
                    u64::from(self.max_steps),
                )?;
                for st in script.all_steps() {
                    let Step::Act(Action::Open { url }) = &st.step else {
                        continue;
                    };
                    if let Some(why) = crate::nav::refusal(self.platform, url) {
                        let at = ScriptError {
                            file: st.file.clone(),
                            line: st.line,
                            message: format!("open refused by the navigation policy: {why}"),
                            hint: "open an http(s) URL of the app under test".into(),
                            over_max_steps: false,
                        };
                        return Err(at.into());
                    }
                }
                Ok(script)
            }
            // Natural language: the worker's planner turns it into steps.
            Mode::Llm | Mode::Vlm => Ok(Script { steps: Vec::new() }),
        }
    }

    fn validate_model(&self) -> Result<(), SpecError> {
        let Some(m) = &self.model else { return Ok(()) };
        if let Some(u) = &m.base_url {
            if !(u.starts_with("http://") || u.starts_with("https://")) || u.len() > 2048 {
                return Err(SpecError::new(
                    "model.base_url",
                    "model.base_url is not an http(s) URL",
                    "write the API base, e.g. http://127.0.0.1:8000/v1",
                ));
            }
        }
        if let Some(name) = &m.model {
            if name.trim().is_empty() || name.len() > 256 {
                return Err(SpecError::new(
                    "model.model",
                    "model.model must be 1..=256 bytes",
                    "give the model name the endpoint serves",
                ));
            }
        }
        if let Some(t) = m.temperature {
            if !(0.0..=2.0).contains(&t) {
                return Err(SpecError::new(
                    "model.temperature",
                    format!("model.temperature is {t}"),
                    "use a value from 0 to 2",
                ));
            }
        }
        Ok(())
    }

    fn validate_policy(&self) -> Result<(), SpecError> {
        if !(-100..=100).contains(&self.priority) {
            return Err(SpecError::new(
                "priority",
                format!("priority is {}", self.priority),
                "use a value from -100 to 100 (higher runs first)",
            ));
        }
        if self.retries > 10 {
            return Err(SpecError::new(
                "retries",
                format!("retries is {}", self.retries),
                "use at most 10",
            ));
        }
        if self.retry_elsewhere > MAX_RETRY_ELSEWHERE {
            return Err(SpecError::new(
                "retry_elsewhere",
                format!("retry_elsewhere is {}", self.retry_elsewhere),
                format!("use 0 to {MAX_RETRY_ELSEWHERE}"),
            ));
        }
        if self.backoff_s > 24 * 3600 {
            return Err(SpecError::new(
                "backoff_s",
                format!("backoff_s is {}", self.backoff_s),
                "use at most 86400 seconds",
            ));
        }
        if let Some(w) = self.auto_wait_ms {
            if w > MAX_AUTO_WAIT_MS {
                return Err(SpecError::new(
                    "auto_wait_ms",
                    format!("auto_wait_ms is {w}"),
                    format!("use at most {MAX_AUTO_WAIT_MS} ms"),
                ));
            }
        }
        if let Some(q) = self.queue_timeout_s {
            if q == 0 || q > 7 * 24 * 3600 {
                return Err(SpecError::new(
                    "queue_timeout_s",
                    format!("queue_timeout_s is {q}"),
                    "use 1 to 604800 seconds, or leave it out for the default of 900",
                ));
            }
        }
        Ok(())
    }

    fn validate_labels(&self) -> Result<(), SpecError> {
        if self.selector.require.len() > MAX_LABELS {
            return Err(SpecError::new(
                "selector.require",
                format!(
                    "{} constraints, more than the {MAX_LABELS} allowed",
                    self.selector.require.len()
                ),
                "keep only the constraints that select the device",
            ));
        }
        let constraints = self.selector.constraints().map_err(|e| {
            SpecError::new(
                "selector.require",
                e,
                "see the selector syntax in README.md",
            )
        })?;
        // Values as long as labels may be: the claim compares them in SQL as `numeric`,
        // which refuses numbers past 131,072 digits, and one such run would fail every claim.
        if let Some(c) = constraints
            .iter()
            .find(|c| c.values.iter().any(|v| v.len() > MAX_LABEL_BYTES))
        {
            return Err(SpecError::new(
                "selector.require",
                format!(
                    "a value of the constraint on {:?} is longer than {MAX_LABEL_BYTES} bytes",
                    c.key
                ),
                "device label values are at most 128 bytes; shorten the value",
            ));
        }
        let labels = &self.selector.labels;
        if labels.len() > MAX_LABELS {
            return Err(SpecError::new(
                "selector.labels",
                format!(
                    "{} labels, more than the {MAX_LABELS} allowed",
                    labels.len()
                ),
                "keep only the labels that select the device",
            ));
        }
        for (k, v) in labels {
            let key_ok = !k.is_empty()
                && k.len() <= MAX_LABEL_BYTES
                && k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
            if !key_ok {
                return Err(SpecError::new(
                    "selector.labels",
                    format!("label key {k:?} is not a valid key"),
                    format!("use 1..{MAX_LABEL_BYTES} chars of a-z, 0-9, _ - . /"),
                ));
            }
            if v.len() > MAX_LABEL_BYTES {
                return Err(SpecError::new(
                    "selector.labels",
                    format!("label {k:?} has a value longer than {MAX_LABEL_BYTES} bytes"),
                    "shorten the value",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> Result<JobSpec, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn defaults_apply_and_script_parses() {
        let s = spec(r#"{"platform":"web","instruction":"tap \"OK\""}"#).unwrap();
        assert_eq!(s.mode, Mode::Script);
        assert_eq!(s.max_steps, DEFAULT_MAX_STEPS);
        assert_eq!(s.validate().unwrap().steps.len(), 1);
    }

    /// A build is one line of 1 to 64 characters.
    #[test]
    fn app_build_is_one_short_line() {
        let mut s = JobSpec::script(Platform::Web, None, "press Enter".into());
        s.app_build = Some("1.4.0".into());
        assert!(s.validate().is_ok());
        s.app_build = Some("é".repeat(MAX_APP_BUILD_CHARS));
        assert!(s.validate().is_ok(), "64 characters, not bytes");
        for bad in ["x".repeat(65), "1.4\n0".into(), " ".into()] {
            s.app_build = Some(bad);
            assert_eq!(s.validate().unwrap_err().field, "app_build");
        }
    }

    #[test]
    fn retry_elsewhere_is_0_to_5_and_left_out_of_the_stored_spec_at_0() {
        let with = |n: serde_json::Value| {
            let mut v = serde_json::json!({"platform": "web", "instruction": "tap \"OK\""});
            if !n.is_null() {
                v["retry_elsewhere"] = n;
            }
            serde_json::from_value::<JobSpec>(v)
        };
        let s = with(serde_json::Value::Null).unwrap();
        assert_eq!(s.retry_elsewhere, 0);
        assert!(!serde_json::to_string(&s)
            .unwrap()
            .contains("retry_elsewhere"));
        assert!(with(5.into()).unwrap().validate().is_ok());
        let e = with(6.into()).unwrap().validate().unwrap_err();
        assert_eq!(e.field, "retry_elsewhere");
        assert!(with((-1).into()).is_err());
    }

    #[test]
    fn unknown_platform_and_fields_are_refused() {
        assert!(spec(r#"{"platform":"symbian","instruction":"x"}"#).is_err());
        assert!(spec(r#"{"platform":"web","instruction":"x","colour":1}"#).is_err());
    }

    #[test]
    fn bad_script_line_names_the_line() {
        let s = spec(r#"{"platform":"web","instruction":"tap \"OK\"\nfrobnicate it"}"#).unwrap();
        let e = s.validate().unwrap_err();
        assert_eq!(e.field, "instruction[line 2]");
    }

    #[test]
    fn limits_are_checked() {
        let mut s = JobSpec::script(Platform::Web, None, "press Enter".into());
        s.max_steps = 0;
        assert_eq!(s.validate().unwrap_err().field, "max_steps");
        s.max_steps = 5;
        s.selector.labels.insert("bad key!".into(), "x".into());
        assert_eq!(s.validate().unwrap_err().field, "selector.labels");
        let s = JobSpec::script(
            Platform::Android,
            Some("http://x".into()),
            "press Enter".into(),
        );
        assert_eq!(s.validate().unwrap_err().field, "start_url");
        let mut s = JobSpec::script(Platform::Web, None, "press Enter".into());
        s.selector.require = vec![format!("os_version>={}", "9".repeat(129))];
        assert_eq!(s.validate().unwrap_err().field, "selector.require");
        s.selector.require = vec![format!("os_version>={}", "9".repeat(128))];
        assert!(s.validate().is_ok());
    }

    #[test]
    fn navigation_policy_names_the_field() {
        for url in [
            "file:///etc/passwd",
            "chrome://version",
            "javascript:alert(1)",
        ] {
            let s = JobSpec::script(Platform::Web, Some(url.into()), "press Enter".into());
            let e = s.validate().unwrap_err();
            assert_eq!(e.field, "start_url", "{url}");
            assert!(e.message.contains("navigation policy"), "{}", e.message);
            let s = JobSpec::script(Platform::Web, None, format!("press Enter\nopen {url}"));
            assert_eq!(s.validate().unwrap_err().field, "instruction[line 2]");
        }
        let s = JobSpec::script(
            Platform::Web,
            Some("about:blank".into()),
            "open https://example.com/".into(),
        );
        s.validate().unwrap();
    }

    #[test]
    fn llm_mode_validates_and_secrets_are_checked() {
        let s = spec(r#"{"platform":"web","mode":"llm","instruction":"add two todos"}"#).unwrap();
        assert!(s.popups);
        assert!(s.validate().unwrap().steps.is_empty());
        let s = spec(
            r#"{"platform":"web","mode":"vlm","instruction":"x","popups":false,
            "model":{"model":"m","coords":"norm999","temperature":0.2}}"#,
        )
        .unwrap();
        assert_eq!(s.model.as_ref().unwrap().coords, Some(CoordSpace::Norm999));
        s.validate().unwrap();
        let mut bad = s.clone();
        bad.model.as_mut().unwrap().temperature = Some(9.0);
        assert_eq!(bad.validate().unwrap_err().field, "model.temperature");
        assert!(spec(r#"{"platform":"web","instruction":"x","model":{"api_key":"k"}}"#).is_err());
        assert_eq!(
            secret_refs("type ${secret.PASSWORD} and ${secret.a_1}").unwrap(),
            vec!["PASSWORD", "a_1"]
        );
        assert!(secret_refs("${secret.PASS").is_err());
        assert!(secret_refs("${secret.bad name}").is_err());
        let mut j = JobSpec::script(Platform::Web, None, "ai: log in as ${secret.x y}".into());
        assert_eq!(j.validate().unwrap_err().field, "instruction");
        j.instruction = "ai: log in".into();
        j.validate().unwrap();
    }
}
