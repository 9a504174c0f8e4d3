//! `argus runs steps RUN_ID [--lang zh]`: print a succeeded `llm` / `vlm` run as a step file
//! (`argus runs steps RUN_ID > flow.steps`, then `argus submit --steps flow.steps` reruns
//! it in `script` mode with no model). Also the verdict lines `submit --wait` and `run`
//! print.

use std::process::ExitCode;

use argus_protocol::replay::StepsLang;
use argus_protocol::{ErrorEnvelope, RunDetail};

/// `argus runs` flags.
#[derive(Debug, clap::Args)]
pub struct RunsArgs {
    #[command(subcommand)]
    command: RunsCommand,
}

#[derive(Debug, clap::Subcommand)]
enum RunsCommand {
    /// Print a succeeded llm/vlm run as a step file on stdout: its actions as step-language
    /// lines, its expectations as the closing assertions (secrets stay `${secret.NAME}`).
    /// Exit code 0 when printed, 1 when the run has no step file or is not found, 2 when
    /// the coordinator cannot be reached.
    Steps {
        /// The run's id (as `argus submit` prints it).
        run_id: uuid::Uuid,
        /// Coordinator base URL. Default `http://127.0.0.1:8080`.
        #[arg(long, env = "ARGUS_SERVER", default_value = "http://127.0.0.1:8080")]
        server: String,
        /// Language of the step lines: `en` or `zh` (Chinese, the same actions). Default
        /// `en`.
        #[arg(long, value_enum, default_value_t = Lang::En)]
        lang: Lang,
    },
}

/// The language `argus runs steps` asks for (the API's `lang` query value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Lang {
    /// English step lines.
    En,
    /// Chinese step lines.
    Zh,
}

impl Lang {
    /// The API's value for the language.
    fn as_api(self) -> StepsLang {
        match self {
            Lang::En => StepsLang::En,
            Lang::Zh => StepsLang::Zh,
        }
    }
}

/// Runs the subcommand; the token comes from `ARGUS_API_TOKEN`.
pub async fn run(args: RunsArgs) -> anyhow::Result<ExitCode> {
    let RunsCommand::Steps {
        run_id,
        server,
        lang,
    } = args.command;
    let base = server.trim_end_matches('/');
    let resp = super::http_client()?
        .get(format!("{base}/api/v1/runs/{run_id}/steps"))
        .query(&[("lang", lang.as_api().as_str())])
        .send()
        .await
        .map_err(|e| anyhow::anyhow!("cannot reach the coordinator at {base}: {e}"))?;
    let status = resp.status();
    let text = resp.text().await?;
    if status.is_success() {
        print!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    match serde_json::from_str::<ErrorEnvelope>(&text) {
        Ok(env) => eprintln!("{} ({status})\nhint: {}", env.message, env.hint),
        Err(_) => eprintln!("the coordinator answered {status}"),
    }
    Ok(ExitCode::from(if status.is_client_error() { 1 } else { 2 }))
}

/// Prints what decided a finished run's status: the verdict's basis, the deciding
/// expectation and, apart, the model's claim (never the verdict).
pub fn print_verdict(d: &RunDetail) {
    let Some(v) = &d.verdict else {
        if d.status == argus_protocol::RunStatus::Unverified {
            println!("verdict: nothing was checked, so this is not a pass");
        }
        return;
    };
    println!("verdict: {}", v.basis);
    if let Some(e) = &v.expectation {
        println!("  decided by: {e}");
    }
    if let Some(c) = &v.claim {
        println!("  model's claim (not evidence): {c}");
    }
}
