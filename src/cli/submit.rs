//! `argus submit`: POST a job, print its ids; with `--wait`, print one line per action as
//! it lands and the final status, what decided it (the verdict) and the report URL. Exit
//! code 0 only when the run succeeded (`unverified`, a run that checked nothing, is 1).

use std::collections::{BTreeMap, HashSet};
use std::process::ExitCode;
use std::time::Duration;

use argus_protocol::{ErrorEnvelope, JobCreated, JobSpec, Platform, RunDetail, Selector};

/// `argus submit` flags.
#[derive(Debug, clap::Args)]
pub struct SubmitArgs {
    /// Coordinator base URL. Default `http://127.0.0.1:8080`.
    #[arg(long, env = "ARGUS_SERVER", default_value = "http://127.0.0.1:8080")]
    server: String,
    /// API token, if the coordinator requires one (read from the environment, not a flag).
    #[arg(skip)]
    api_token: Option<String>,
    /// Target platform.
    #[arg(long, default_value = "web")]
    platform: String,
    /// Steps: a file path, or the script text itself (script mode; may hold `ai:` lines).
    #[arg(long, required_unless_present = "instruction")]
    steps: Option<String>,
    /// Natural-language instruction (`--mode llm|vlm`).
    #[arg(long, conflicts_with = "steps")]
    instruction: Option<String>,
    /// A `${var.NAME}` value, `NAME=VALUE`, repeatable (the job's `vars`).
    #[arg(long = "var")]
    vars: Vec<String>,
    /// An expectation the verdict rests on: one step-language check line, repeatable, in
    /// the order they are checked (`--expect 'assert screen contains "1 item left"'`,
    /// `--expect 'assert screen does not contain "Error"'`, `--expect '断言 页面包含 "欢迎"'`;
    /// `${var.NAME}` is filled in). All are checked on a fresh screen at the end: the run
    /// succeeds only when every one held. A line that acts (`tap "OK"`) is refused.
    #[arg(long = "expect", value_name = "LINE")]
    expectations: Vec<String>,
    /// Planning mode: `script`, `llm` or `vlm`. Default `script`.
    #[arg(long, default_value = "script", value_parser = super::run_local::parse_mode)]
    mode: argus_protocol::Mode,
    /// Model API base URL for this job (the worker's `ARGUS_MODEL_URL` otherwise); it must
    /// be one of the worker's `ARGUS_MODEL_URL` / `ARGUS_MODEL_ENDPOINTS`, else the run
    /// fails. The worker's API key is never sent to a URL named here.
    #[arg(long = "model-url")]
    model_url: Option<String>,
    /// Model name for this job.
    #[arg(long = "model")]
    model: Option<String>,
    /// URL to open first (web).
    #[arg(long)]
    url: Option<String>,
    /// Selector label `key=value`, repeatable.
    #[arg(long = "label")]
    labels: Vec<String>,
    /// Selector constraint (`os_version>=13`, `model in [a, b]`), repeatable.
    #[arg(long = "require")]
    require: Vec<String>,
    /// Priority, -100..=100 (higher first). Default 0.
    #[arg(long, default_value_t = 0)]
    priority: i32,
    /// Runs on other devices of the job's class after a failure (0..=5). Default 0.
    #[arg(long, default_value_t = 0)]
    retry_elsewhere: u32,
    /// Display name.
    #[arg(long)]
    name: Option<String>,
    /// The build of the app under test (e.g. `1.4.0`, at most 64 characters): insights
    /// show pass rates per build and the first build the job started failing on.
    #[arg(long = "app-build", value_name = "BUILD")]
    app_build: Option<String>,
    /// Run time limit, s. Default 300.
    #[arg(long, default_value_t = 300)]
    timeout_s: u64,
    /// Learned replay for `llm` / `vlm`: `off` (every action from the model), `read` or
    /// `read_write` (the job's default).
    #[arg(long, value_parser = parse_cache)]
    cache: Option<argus_protocol::job::Cache>,
    /// Follow the run until it ends.
    #[arg(long)]
    wait: bool,
}

fn parse_cache(s: &str) -> Result<argus_protocol::job::Cache, String> {
    use argus_protocol::job::Cache;
    [Cache::Off, Cache::Read, Cache::ReadWrite]
        .into_iter()
        .find(|c| c.as_str() == s)
        .ok_or_else(|| format!("{s:?} is not a cache mode; one of: off, read, read_write"))
}

/// Submits and optionally follows the run.
pub async fn run(mut args: SubmitArgs) -> anyhow::Result<ExitCode> {
    args.api_token = std::env::var("ARGUS_API_TOKEN").ok();
    let platform = Platform::parse(&args.platform).ok_or_else(|| {
        anyhow::anyhow!(
            "unknown platform {:?}; one of: {}",
            args.platform,
            Platform::ALL.map(|p| p.as_str()).join(", ")
        )
    })?;
    let mut labels = BTreeMap::new();
    for l in &args.labels {
        let (k, v) = l
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--label {l:?} is not key=value"))?;
        labels.insert(k.to_string(), v.to_string());
    }
    let vars = super::steps_files::parse_vars(&args.vars)?;
    let (text, files) = match (&args.steps, &args.instruction) {
        (Some(s), _) => {
            let s = super::steps_files::read_steps(s, &vars)?;
            (s.text, s.files)
        }
        (None, Some(i)) => (i.clone(), Default::default()),
        (None, None) => anyhow::bail!("give --steps or --instruction"),
    };
    let mut spec = JobSpec::script(platform, args.url.clone(), text);
    spec.vars = vars;
    spec.expectations = args.expectations.clone();
    spec.files = files;
    spec.mode = args.mode;
    if args.model_url.is_some() || args.model.is_some() {
        spec.model = Some(argus_protocol::ModelOverride {
            base_url: args.model_url.clone(),
            model: args.model.clone(),
            ..Default::default()
        });
    }
    spec.selector = Selector {
        labels,
        require: args.require.clone(),
    };
    spec.name = args.name.clone();
    spec.app_build = args.app_build.clone();
    spec.priority = args.priority;
    spec.retry_elsewhere = args.retry_elsewhere;
    spec.timeout_s = args.timeout_s;
    spec.max_steps = argus_protocol::job::MAX_STEPS_LIMIT;
    spec.cache = args.cache;
    if let Err(e) = spec.validate() {
        eprintln!("invalid job: {}: {}\nhint: {}", e.field, e.message, e.hint);
        return Ok(ExitCode::from(2));
    }
    let base = args.server.trim_end_matches('/').to_string();
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()?;
    let auth = |r: reqwest::RequestBuilder| match &args.api_token {
        Some(t) => r.bearer_auth(t),
        None => r,
    };
    let resp = auth(http.post(format!("{base}/api/v1/jobs")).json(&spec))
        .send()
        .await
        .map_err(|e| anyhow::anyhow!("cannot reach the coordinator at {base}: {e}"))?;
    let status = resp.status();
    let body: serde_json::Value = resp.json().await.unwrap_or_default();
    if !status.is_success() {
        if let Ok(env) = serde_json::from_value::<ErrorEnvelope>(body.clone()) {
            eprintln!("rejected ({status}): {}\nhint: {}", env.message, env.hint);
        } else {
            eprintln!("rejected ({status}): {body}");
        }
        return Ok(ExitCode::from(2));
    }
    let created: JobCreated = serde_json::from_value(body)
        .map_err(|e| anyhow::anyhow!("unexpected answer from the coordinator: {e}"))?;
    let JobCreated {
        job_id,
        run_id,
        report_url,
        warning,
        ..
    } = created;
    println!("job {job_id} run {run_id}");
    if let Some(w) = warning {
        eprintln!("warning: {w}");
    }
    if !args.wait {
        println!("report: {report_url}");
        return Ok(ExitCode::SUCCESS);
    }
    follow(&http, args.api_token.as_deref(), &base, run_id, &report_url).await
}

/// `--wait`: polls the run every 500 ms, printing each new action and status change, until
/// it ends; exit 0 when it succeeded, 1 otherwise.
async fn follow(
    http: &reqwest::Client,
    token: Option<&str>,
    base: &str,
    run_id: uuid::Uuid,
    report_url: &str,
) -> anyhow::Result<ExitCode> {
    let mut seen: HashSet<(u32, u32)> = HashSet::new();
    let mut last_status = String::new();
    loop {
        let mut req = http.get(format!("{base}/api/v1/runs/{run_id}"));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let detail: Option<RunDetail> = match req.send().await {
            Ok(r) if r.status().is_success() => r.json().await.ok(),
            _ => None,
        };
        if let Some(d) = detail {
            print_new_actions(&d, &mut seen);
            let st = d.status.as_str().to_string();
            if st != last_status {
                println!("status: {st}");
                last_status = st;
            }
            if d.status.is_terminal() {
                if let Some(e) = &d.error {
                    println!("error: {e}");
                }
                super::runs::print_verdict(&d);
                println!("run {run_id} {}", d.status.as_str());
                println!("report: {report_url}");
                return Ok(if d.status == argus_protocol::RunStatus::Succeeded {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(1)
                });
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Prints each action of `d` not printed before (`seen`: (step, action) pairs).
fn print_new_actions(d: &RunDetail, seen: &mut HashSet<(u32, u32)>) {
    for s in &d.steps {
        for a in &s.actions {
            if seen.insert((a.step, a.action)) {
                let t = &a.timings;
                println!(
                    "  step {} {} {} — {} ({}, {:.0} ms){}",
                    a.step + 1,
                    if a.ok { "ok  " } else { "FAIL" },
                    a.kind,
                    a.detail,
                    a.disposition.as_str(),
                    t.perceive_ms + t.act_ms + t.screenshot_ms + t.upload_ms,
                    a.error
                        .as_ref()
                        .map(|e| format!("\n      {e}"))
                        .unwrap_or_default()
                );
            }
        }
    }
}
