//! `argus`: one binary for every host. `main` only parses configuration, starts tracing and
//! hands over to the subcommand.

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Argus: natural-language UI-automation jobs on a farm of devices.
#[derive(Parser)]
#[command(name = "argus", version, about)]
struct Cli {
    /// Log format on stderr: `human` or `json`. Default `human`. Filter with `RUST_LOG`.
    #[arg(long, env = "ARGUS_LOG_FORMAT", default_value = "human", global = true)]
    log_format: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the coordinator: API, dashboard, dispatcher, event applier, reaper.
    Coordinator(argus_coordinator::CoordinatorConfig),
    /// Run a worker that owns devices and executes assigned runs.
    Worker(argus_worker::WorkerConfig),
    /// Submit a job to a coordinator; `--wait` follows it to the end.
    Submit(cli::submit::SubmitArgs),
    /// Run one job locally with no services (local Chromium, report in a folder).
    Run(cli::run_local::RunArgs),
    /// Read runs back: `argus runs steps RUN_ID` prints a succeeded llm/vlm run as a step
    /// file.
    Runs(cli::runs::RunsArgs),
    /// Apply database migrations and exit.
    Migrate(cli::migrate::MigrateArgs),
    /// Run a suite of jobs across a device matrix and report its verdict.
    Suite(cli::suite::SuiteArgs),
    /// Manage API tokens.
    Token(cli::token::TokenArgs),
}

fn init_tracing(format: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing(&cli.log_format);
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("argus: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    rt.block_on(async move {
        let res = match cli.command {
            Command::Coordinator(cfg) => {
                argus_coordinator::run(cfg).await.map(|_| ExitCode::SUCCESS)
            }
            Command::Worker(cfg) => argus_worker::service::run(cfg)
                .await
                .map(|_| ExitCode::SUCCESS),
            Command::Submit(args) => cli::submit::run(args).await,
            Command::Run(args) => cli::run_local::run(args).await,
            Command::Runs(args) => cli::runs::run(args).await,
            Command::Migrate(args) => cli::migrate::run(args).await,
            Command::Suite(args) => cli::suite::run(args).await,
            Command::Token(args) => cli::token::run(args).await,
        };
        match res {
            Ok(code) => code,
            Err(e) => {
                eprintln!("argus: {e:#}");
                ExitCode::from(2)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// clap's own consistency checks over every subcommand (duplicate arg ids, clashing
    /// short/long flags, bad defaults): a clash here panics every debug-build invocation.
    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// clap does not check environment variables: two args of one subcommand reading the
    /// same `ARGUS_…` variable would silently take one value for two settings.
    #[test]
    fn no_subcommand_reads_one_env_var_twice() {
        fn walk(cmd: &clap::Command, path: &str) {
            let mut seen = std::collections::BTreeMap::new();
            for a in cmd.get_arguments() {
                if let Some(env) = a.get_env() {
                    let env = env.to_string_lossy().into_owned();
                    if let Some(other) = seen.insert(env.clone(), a.get_id().to_string()) {
                        panic!("{path}: {env} is read by both {other} and {}", a.get_id());
                    }
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()));
            }
        }
        let mut cmd = Cli::command();
        cmd.build();
        walk(&cmd, "argus");
    }

    /// `argus run` flattens the model config: the run's limit and the model call's limit are
    /// two distinct flags.
    #[test]
    fn run_has_both_timeouts() {
        let cmd = Cli::command();
        let run = cmd
            .get_subcommands()
            .find(|c| c.get_name() == "run")
            .expect("a run subcommand");
        let longs: Vec<&str> = run.get_arguments().filter_map(|a| a.get_long()).collect();
        assert!(longs.contains(&"timeout-s"), "{longs:?}");
        assert!(longs.contains(&"model-timeout-s"), "{longs:?}");
    }
}
