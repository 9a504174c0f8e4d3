//! The model the agent talks to: the worker's model and agent settings ([`ModelConfig`],
//! flags and `ARGUS_MODEL_*` / `ARGUS_AGENT_*` variables), what a run gets of them
//! ([`AgentEnv`]: settings, the secret source, what was learnt about each endpoint), and the
//! OpenAI-compatible client ([`client`]). Below the agent and the run engine: it knows no
//! run, only requests.

pub mod client;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use argus_protocol::{CoordSpace, JobSpec};

pub use client::{EndpointCaps, ModelClient, ModelError, ModelSettings};

use crate::secrets::{self, Secrets};

/// Parses `abs`, `norm1000` or `norm999`.
pub fn parse_coords(s: &str) -> Result<CoordSpace, String> {
    match s {
        "abs" => Ok(CoordSpace::Abs),
        "norm1000" => Ok(CoordSpace::Norm1000),
        "norm999" => Ok(CoordSpace::Norm999),
        _ => Err(format!("{s:?} is not abs, norm1000 or norm999")),
    }
}

/// Model and agent settings of a worker (and of `argus run`). The API key is read from
/// `ARGUS_MODEL_API_KEY` only — never a flag, so it stays out of shell history and job rows.
#[derive(Clone, clap::Args)]
pub struct ModelConfig {
    /// Base URL of an OpenAI-compatible API (`…/v1`; `/chat/completions` is appended).
    /// Needed by `llm` / `vlm` jobs and `ai:` lines unless the job names one.
    #[arg(long = "model-url", env = "ARGUS_MODEL_URL")]
    pub model_url: Option<String>,
    /// Further OpenAI-compatible base URLs a job's `model.base_url` may pick,
    /// comma-separated. A job naming any other endpoint fails; the API key is never sent to
    /// these (only to `--model-url`). Default: none (jobs may name only `--model-url`).
    #[arg(
        long = "model-endpoints",
        env = "ARGUS_MODEL_ENDPOINTS",
        value_delimiter = ','
    )]
    pub endpoints: Vec<String>,
    /// Model name sent in each request. Default `default`.
    #[arg(long = "model", env = "ARGUS_MODEL", default_value = "default")]
    pub model: String,
    /// API key (`Authorization: Bearer`), from `ARGUS_MODEL_API_KEY` only. Sent only to
    /// `--model-url`, never to an endpoint a job names.
    #[arg(skip = std::env::var("ARGUS_MODEL_API_KEY").ok().filter(|k| !k.is_empty()))]
    pub api_key: Option<String>,
    /// Sampling temperature. Default 0.
    #[arg(
        long = "model-temperature",
        env = "ARGUS_MODEL_TEMPERATURE",
        default_value_t = 0.0
    )]
    pub temperature: f64,
    /// Timeout of one model request, s. Default 180: a CPU-local model (llama.cpp, 2 cores)
    /// needs 15–25 s for a cold 1,500-token prompt and more under load; a cancelled run
    /// aborts the request at once whatever this is.
    #[arg(
        id = "model_timeout_s",
        value_name = "TIMEOUT_S",
        long = "model-timeout-s",
        env = "ARGUS_MODEL_TIMEOUT_S",
        default_value_t = 180
    )]
    pub model_timeout_s: u64,
    /// `max_tokens` of each request. Default 1024.
    #[arg(
        long = "model-max-tokens",
        env = "ARGUS_MODEL_MAX_TOKENS",
        default_value_t = 1024
    )]
    pub max_tokens: u32,
    /// Re-asks after a reply that is not exactly one valid tool call / valid JSON. Default 2.
    #[arg(
        long = "model-format-retries",
        env = "ARGUS_MODEL_FORMAT_RETRIES",
        default_value_t = 2
    )]
    pub format_retries: u32,
    /// Coordinate space of `vlm` points: `abs`, `norm1000` or `norm999`. Default `norm1000`.
    #[arg(long = "model-coords", env = "ARGUS_MODEL_COORDS", default_value = "norm1000", value_parser = parse_coords)]
    pub coords: CoordSpace,
    /// Most actions one planned step may take before it escalates. Default 12.
    #[arg(
        long = "agent-step-actions",
        env = "ARGUS_AGENT_STEP_ACTIONS",
        default_value_t = 12
    )]
    pub step_actions: u32,
    /// Most re-plans per run. Default 3.
    #[arg(
        long = "agent-replans",
        env = "ARGUS_AGENT_REPLANS",
        default_value_t = 3
    )]
    pub replans: u32,
    /// After each delivered action (and each passed check) in `llm` mode, ask the model
    /// whether the current step — and the whole job — is now done (a JSON
    /// `{"step_done", "job_done"}` answer of at most [`client::CHECK_MAX_TOKENS`] tokens,
    /// sent with the action prompt's prefix so a prefix cache reuses it); a done step ends
    /// without waiting for a `finish` call, a done job skips the rest of the plan. Small
    /// models rarely call `finish` by themselves. Default true.
    #[arg(
        long = "agent-progress-check",
        env = "ARGUS_AGENT_PROGRESS_CHECK",
        default_value_t = true,
        action = clap::ArgAction::Set
    )]
    pub progress_check: bool,
    /// When an `llm` / `vlm` run would end `unverified` (nothing it could check), ask the
    /// model once more, as a judge over the final screen and the action log, whether the job
    /// was done (see `agent::judge`). A "no" makes the run `failed` with the judge's reason only
    /// when its evidence is a new text of the final screen (else it is recorded and
    /// ignored); a "yes" never makes it `succeeded` (a claim is not evidence). Default true.
    #[arg(
        long = "agent-judge",
        env = "ARGUS_AGENT_JUDGE",
        default_value_t = true,
        action = clap::ArgAction::Set
    )]
    pub judge: bool,
    /// Bounded auto-wait for a target to become actionable (visible, enabled, not covered,
    /// stable), ms; `type` adds 50 ms per character. Default 5000.
    #[arg(
        long = "agent-auto-wait-ms",
        env = "ARGUS_AGENT_AUTO_WAIT_MS",
        default_value_t = 5000
    )]
    pub auto_wait_ms: u64,
    /// Secret source file: `NAME=value` lines (`#` comments) of team `default`, then
    /// `[team]` sections. `ARGUS_SECRET_<TEAM>__<NAME>` / `ARGUS_SECRET_<NAME>` variables are
    /// read as well and win over the file (see `secrets`).
    #[arg(long = "secrets-file", env = "ARGUS_SECRETS_FILE")]
    pub secrets_file: Option<PathBuf>,
    /// `ARGUS_SECRET_<NAME>` variables, snapshotted at start (never a flag).
    #[arg(skip = secrets::env_secrets())]
    pub env_secrets: Vec<(String, String)>,
}

impl std::fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelConfig")
            .field("model_url", &self.model_url)
            .field("endpoints", &self.endpoints)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("temperature", &self.temperature)
            .field("model_timeout_s", &self.model_timeout_s)
            .field("max_tokens", &self.max_tokens)
            .field("coords", &self.coords)
            .field("secrets_file", &self.secrets_file)
            .field("env_secrets", &self.env_secrets.len())
            .finish()
    }
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            model_url: None,
            endpoints: Vec::new(),
            model: "default".into(),
            api_key: None,
            temperature: 0.0,
            model_timeout_s: 180,
            max_tokens: 1024,
            format_retries: 2,
            coords: CoordSpace::Norm1000,
            step_actions: 12,
            replans: 3,
            progress_check: true,
            judge: true,
            auto_wait_ms: 5000,
            secrets_file: None,
            env_secrets: Vec::new(),
        }
    }
}

/// What a run needs from the worker's agent settings: the config, the loaded secrets, and
/// what the worker has learnt about each model endpoint (shared by every clone).
#[derive(Clone, Debug, Default)]
pub struct AgentEnv {
    /// Worker-level settings.
    pub config: ModelConfig,
    /// The secret source.
    pub secrets: Arc<Secrets>,
    /// Endpoint capabilities by (base URL, model).
    caps: Arc<Mutex<CapsByEndpoint>>,
}

/// [`EndpointCaps`] by (base URL without a trailing `/`, model).
type CapsByEndpoint = HashMap<(String, String), Arc<EndpointCaps>>;

impl AgentEnv {
    /// Loads the secret source named by the config.
    pub fn load(config: &ModelConfig) -> Result<AgentEnv, String> {
        let secrets = Secrets::load(config.secrets_file.as_deref(), &config.env_secrets)?;
        Ok(AgentEnv {
            config: config.clone(),
            secrets: Arc::new(secrets),
            caps: Arc::default(),
        })
    }

    /// The model client for one job: the worker's settings, overridden by the job's. A job
    /// may only pick among the worker's endpoints (`--model-url`, `--model-endpoints`): the
    /// worker, not the job, decides where prompts (page text, screenshots) go. The API key is
    /// only sent to `--model-url`.
    pub fn client_for(&self, spec: &JobSpec) -> Result<ModelClient, ModelError> {
        let c = &self.config;
        let o = spec.model.clone().unwrap_or_default();
        let norm = |u: &str| u.trim().trim_end_matches('/').to_ascii_lowercase();
        if let Some(asked) = &o.base_url {
            let known = c
                .model_url
                .iter()
                .chain(c.endpoints.iter())
                .any(|u| norm(u) == norm(asked));
            if !known {
                return Err(ModelError::EndpointNotAllowed);
            }
        }
        let base_url = o
            .base_url
            .clone()
            .or_else(|| c.model_url.clone())
            .ok_or(ModelError::NotConfigured)?;
        let same_endpoint = c.model_url.as_deref().map(|u| u.trim_end_matches('/'))
            == Some(base_url.trim_end_matches('/'));
        let model = o.model.clone().unwrap_or_else(|| c.model.clone());
        let key = (base_url.trim_end_matches('/').to_string(), model.clone());
        let caps = match self.caps.lock() {
            Ok(mut m) => m.entry(key).or_default().clone(),
            Err(_) => Arc::default(),
        };
        ModelClient::with_caps(
            ModelSettings {
                base_url,
                model,
                api_key: if same_endpoint {
                    c.api_key.clone()
                } else {
                    None
                },
                temperature: o.temperature.unwrap_or(c.temperature),
                timeout: Duration::from_secs(c.model_timeout_s.max(1)),
                max_tokens: c.max_tokens,
                format_retries: c.format_retries,
            },
            caps,
        )
    }
}
