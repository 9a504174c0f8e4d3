//! `argus suite run FILE`: submit a suite (JSON: `{name, jobs: [job spec…], matrix:
//! [selector…], vars_matrix: [{NAME: value}…]}`), follow it to the end, print one line per
//! job and the JUnit URL. Exit code 0 only when every job passed. A job may give `"steps":
//! "FILE"` (relative to the suite file) instead of `instruction`; included files are read
//! from disk and sent in the job's `files`. A job may carry `"expectations": ["assert screen
//! contains \"Saved\"", …]` (check lines its verdict rests on); a case that ends
//! `unverified` (nothing was checked) fails the suite. `--var NAME=VALUE` gives every job
//! that var (a job's own `vars` entry wins), e.g. the URL of the app under test.

use std::process::ExitCode;
use std::time::Duration;

use argus_protocol::api::SuiteView;
use argus_protocol::{ErrorEnvelope, SuiteCreated, SuiteVerdict};

/// `argus suite` flags.
#[derive(Debug, clap::Args)]
pub struct SuiteArgs {
    #[command(subcommand)]
    command: SuiteCommand,
}

#[derive(Debug, clap::Subcommand)]
enum SuiteCommand {
    /// Submit the suite in FILE and wait for its verdict.
    Run {
        /// Suite file (JSON).
        file: std::path::PathBuf,
        /// Coordinator base URL.
        #[arg(long, env = "ARGUS_SERVER", default_value = "http://127.0.0.1:8080")]
        server: String,
        /// Write the JUnit XML here when done.
        #[arg(long)]
        junit: Option<std::path::PathBuf>,
        /// `NAME=VALUE` given to every job of the suite (repeatable); a job's own `vars`
        /// entry of that name wins.
        #[arg(long = "var", value_name = "NAME=VALUE")]
        vars: Vec<String>,
    },
}

/// Runs the subcommand.
pub async fn run(args: SuiteArgs) -> anyhow::Result<ExitCode> {
    let SuiteCommand::Run {
        file,
        server,
        junit,
        vars,
    } = args.command;
    let body = std::fs::read_to_string(&file)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
    let mut body: serde_json::Value = serde_json::from_str(&body)
        .map_err(|e| anyhow::anyhow!("{} is not JSON: {e}", file.display()))?;
    give_vars(&mut body, &super::steps_files::parse_vars(&vars)?);
    super::steps_files::fill_suite_jobs(&mut body, &file)?;
    let http = super::http_client()?;
    let base = server.trim_end_matches('/').to_string();
    let resp = http
        .post(format!("{base}/api/v1/suites"))
        .json(&body)
        .send()
        .await
        .map_err(|e| anyhow::anyhow!("cannot reach the coordinator at {base}: {e}"))?;
    let status = resp.status();
    let created: serde_json::Value = resp.json().await.unwrap_or_default();
    if !status.is_success() {
        match serde_json::from_value::<ErrorEnvelope>(created.clone()) {
            Ok(env) => eprintln!("rejected ({status}): {}\nhint: {}", env.message, env.hint),
            Err(_) => eprintln!("rejected ({status}): {created}"),
        }
        return Ok(ExitCode::from(2));
    }
    let created: SuiteCreated = serde_json::from_value(created)
        .map_err(|e| anyhow::anyhow!("unexpected answer from the coordinator: {e}"))?;
    let id = created.suite_id;
    println!("suite {id}: {} jobs", created.jobs.len());
    for w in &created.warnings {
        eprintln!("warning: {w}");
    }
    loop {
        let Some(v) = poll(&http, &base, id).await? else {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        };
        let verdict = v.verdict;
        if verdict != SuiteVerdict::Running {
            for j in &v.jobs {
                let run = j.runs.last().map(|r| r.to_string()).unwrap_or_default();
                println!(
                    "  {:<10} {} [{}]{} — {base}/runs/{run}",
                    j.status.as_str(),
                    j.name,
                    j.cell,
                    if j.flaky { " (flaky)" } else { "" },
                );
            }
            let xml_url = format!("{base}/api/v1/suites/{id}/junit.xml");
            if let Some(path) = junit {
                let xml = http.get(&xml_url).send().await?.text().await?;
                std::fs::write(&path, xml)?;
                println!("junit: {}", path.display());
            }
            println!("verdict: {verdict} — junit: {xml_url}");
            return Ok(if verdict == SuiteVerdict::Passed {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            });
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// Lays `vars` under every job of the suite `body`: a job's own `vars` entry of the same
/// name is kept.
fn give_vars(body: &mut serde_json::Value, vars: &std::collections::BTreeMap<String, String>) {
    if vars.is_empty() {
        return;
    }
    let Some(jobs) = body.get_mut("jobs").and_then(|j| j.as_array_mut()) else {
        return;
    };
    for job in jobs.iter_mut().filter_map(|j| j.as_object_mut()) {
        let slot = job
            .entry("vars")
            .or_insert_with(|| serde_json::Value::Object(Default::default()));
        if let Some(m) = slot.as_object_mut() {
            for (k, v) in vars {
                m.entry(k.clone()).or_insert_with(|| v.clone().into());
            }
        }
    }
}

/// One look at the suite: its view, or `None` after a refusal worth retrying (the envelope's
/// `retry`, e.g. a 429 or 503).
///
/// Errors: the coordinator cannot be reached, refuses for good, or answers something that
/// is not a suite view.
async fn poll(
    http: &reqwest::Client,
    base: &str,
    id: uuid::Uuid,
) -> anyhow::Result<Option<SuiteView>> {
    let resp = http
        .get(format!("{base}/api/v1/suites/{id}"))
        .send()
        .await?;
    let status = resp.status();
    let body = resp.bytes().await?;
    if !status.is_success() {
        let env: ErrorEnvelope = serde_json::from_slice(&body).map_err(|_| {
            anyhow::anyhow!("suite {id}: {status}: {}", String::from_utf8_lossy(&body))
        })?;
        if env.retry {
            return Ok(None);
        }
        anyhow::bail!("suite {id}: {status}: {}\nhint: {}", env.message, env.hint);
    }
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("unexpected suite answer from the coordinator: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_vars_go_to_every_job_under_its_own() {
        let mut body = serde_json::json!({"name": "s", "jobs": [
            {"name": "a", "instruction": "wait 1s"},
            {"name": "b", "instruction": "wait 1s", "vars": {"DASH": "mine", "X": "1"}},
        ]});
        let vars = [("DASH".to_string(), "http://127.0.0.1:8080".to_string())].into();
        give_vars(&mut body, &vars);
        assert_eq!(
            body["jobs"][0]["vars"],
            serde_json::json!({"DASH": "http://127.0.0.1:8080"})
        );
        assert_eq!(
            body["jobs"][1]["vars"],
            serde_json::json!({"DASH": "mine", "X": "1"})
        );
    }
}
