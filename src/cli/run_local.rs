//! `argus run`: one job in-process with no services; writes `report.html` and the
//! screenshots into `--out/<run_id>/`.

use std::path::PathBuf;
use std::process::ExitCode;

use argus_protocol::{JobSpec, Mode, Platform, RunStatus};

/// Parses `script`, `llm` or `vlm`.
pub fn parse_mode(s: &str) -> Result<Mode, String> {
    match s {
        "script" => Ok(Mode::Script),
        "llm" => Ok(Mode::Llm),
        "vlm" => Ok(Mode::Vlm),
        _ => Err(format!("{s:?} is not script, llm or vlm")),
    }
}

/// `argus run` flags.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Platform: `web`, `electron`, `desktop`, `android`, `harmony` or `ios`. Default `web`.
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
    #[arg(long, default_value = "script", value_parser = parse_mode)]
    mode: Mode,
    /// Model endpoint and agent settings (`--model-url`, `--model`, …; the API key only
    /// from `ARGUS_MODEL_API_KEY`).
    #[command(flatten)]
    model: argus_worker::model::ModelConfig,
    /// URL to open first.
    #[arg(long)]
    url: Option<String>,
    /// Run time limit, s. Default 300.
    #[arg(long, default_value_t = 300)]
    timeout_s: u64,
    /// Output folder. Default `./argus-runs`.
    #[arg(long, env = "ARGUS_RUN_OUT", default_value = "argus-runs")]
    out: PathBuf,
    #[command(flatten)]
    browser: argus_worker::BrowserConfig,
    #[command(flatten)]
    drivers: argus_worker::DriverConfig,
}

/// Resolves on SIGINT or SIGTERM with the signal's name; both handlers are installed when
/// this is called. Errors when a handler cannot be installed.
fn interrupted() -> anyhow::Result<impl std::future::Future<Output = &'static str>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = int.recv() => "SIGINT",
            _ = term.recv() => "SIGTERM",
        }
    })
}

/// Runs the job; exit code 0 only when it succeeded, 1 when it did not (`unverified`
/// included: nothing was checked), 130 when SIGINT or
/// SIGTERM stopped it (the browser, Xvfb and D-Bus it started are stopped first).
pub async fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let platform = Platform::parse(&args.platform)
        .ok_or_else(|| anyhow::anyhow!("unknown platform {:?}", args.platform))?;
    let vars = super::steps_files::parse_vars(&args.vars)?;
    let (text, files) = match (&args.steps, &args.instruction) {
        (Some(s), _) => {
            let s = super::steps_files::read_steps(s, &vars)?;
            (s.text, s.files)
        }
        (None, Some(i)) => (i.clone(), Default::default()),
        (None, None) => anyhow::bail!("give --steps or --instruction"),
    };
    let mut spec = JobSpec::script(platform, args.url, text);
    spec.vars = vars;
    spec.expectations = args.expectations.clone();
    spec.files = files;
    spec.mode = args.mode;
    spec.timeout_s = args.timeout_s;
    spec.max_steps = argus_protocol::job::MAX_STEPS_LIMIT;
    if let Err(e) = spec.validate() {
        anyhow::bail!("{}: {} ({})", e.field, e.message, e.hint);
    }
    let staging = args.out.join("staging");
    let agent = argus_worker::model::AgentEnv::load(&args.model).map_err(|e| anyhow::anyhow!(e))?;
    let run = argus_worker::local::run_local(&args.browser, &args.drivers, &agent, spec, &staging);
    let detail = tokio::select! {
        d = run => d.map_err(|e| anyhow::anyhow!(e))?,
        sig = interrupted()? => {
            // Dropping the run above stopped its browser / Xvfb / D-Bus (their drop kills
            // each process group).
            let _ = std::fs::remove_dir_all(&staging);
            eprintln!("argus run: stopped by {sig}");
            return Ok(ExitCode::from(130));
        }
    };
    let dir = args.out.join(detail.run_id.to_string());
    std::fs::create_dir_all(&dir)?;
    let shots = staging.join("runs").join(detail.run_id.to_string());
    if shots.exists() {
        std::fs::rename(&shots, dir.join("shots"))?;
    }
    let _ = std::fs::remove_dir_all(&staging);
    let prefix = format!("runs/{}/", detail.run_id);
    let mut local = detail.clone();
    for s in &mut local.steps {
        for a in &mut s.actions {
            for k in [&mut a.before_key, &mut a.after_key].into_iter().flatten() {
                *k = k.replacen(&prefix, "shots/", 1);
            }
        }
    }
    let html = argus_coordinator::report::render_report(&local, &Default::default())?;
    let report = dir.join("report.html");
    std::fs::write(&report, html)?;
    for s in &detail.steps {
        let mark = match s.ok {
            Some(true) => "ok  ",
            Some(false) => "FAIL",
            None => "--  ",
        };
        println!("{mark} step {}: {}", s.index + 1, s.text);
        if let Some(e) = &s.error {
            println!("     {e}");
        }
    }
    super::runs::print_verdict(&detail);
    println!("run {} {}", detail.run_id, detail.status.as_str());
    println!("report: {}", std::fs::canonicalize(&report)?.display());
    Ok(if detail.status == RunStatus::Succeeded {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
