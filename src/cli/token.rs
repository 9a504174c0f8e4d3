//! `argus token create | list | revoke`: mint, list and revoke API tokens (connects to
//! PostgreSQL directly; run it where the coordinator's database is reachable). The clear
//! token is printed once at creation; only its sha256 is stored. `list` shows ids, roles,
//! expiry and last use — never token values.

use std::process::ExitCode;

use argus_coordinator::auth::Role;
use chrono::{DateTime, Utc};

/// `argus token` flags.
#[derive(Debug, clap::Args)]
pub struct TokenArgs {
    #[command(subcommand)]
    command: TokenCommand,
    /// PostgreSQL URL.
    #[arg(
        long,
        global = true,
        env = "ARGUS_DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/argus"
    )]
    database_url: String,
}

#[derive(Debug, clap::Subcommand)]
enum TokenCommand {
    /// Create a token; prints it once.
    Create {
        /// Team the token acts for (created if new). Default `default`.
        #[arg(long, default_value = "default")]
        team: String,
        /// `user` (jobs, runs, reports, dashboard), `worker` (heartbeats only) or `admin`
        /// (all teams).
        #[arg(long, default_value = "user", value_parser = ["user", "worker", "admin"])]
        role: String,
        /// A note for people.
        #[arg(long, default_value = "")]
        name: String,
        /// Most runs of the team at once (sets the team's quota).
        #[arg(long)]
        max_concurrent: Option<i32>,
        /// The token stops working after this long: a number with a unit, `90m`, `12h`,
        /// `30d`, `2w`. Default: never.
        #[arg(long, value_parser = parse_duration)]
        expires_in: Option<chrono::Duration>,
        /// A worker token for the shared pool: its workers serve every team's runs. Without
        /// it a worker token's workers serve only its `--team`. Only with `--role worker`.
        #[arg(long)]
        shared_pool: bool,
    },
    /// List tokens (id, team, role, name, created, expires, last used); a shared-pool worker
    /// token shows role `pool`.
    List {
        /// Only this team's tokens.
        #[arg(long)]
        team: Option<String>,
        /// Print JSON lines instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Revoke a token by id (from `list`): it stops working at once, its dashboard sessions
    /// end and the worker/device ids it registered are freed.
    Revoke {
        /// Token id.
        id: uuid::Uuid,
    },
}

/// `90m`, `12h`, `30d`, `2w`, `45s` → a duration.
fn parse_duration(s: &str) -> Result<chrono::Duration, String> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: i64 = n
        .parse()
        .map_err(|_| format!("{s:?}: expected a number and a unit (s, m, h, d, w)"))?;
    let d = match unit {
        "s" => chrono::Duration::try_seconds(n),
        "m" => chrono::Duration::try_minutes(n),
        "h" => chrono::Duration::try_hours(n),
        "d" => chrono::Duration::try_days(n),
        "w" => chrono::Duration::try_weeks(n),
        _ => return Err(format!("{s:?}: the unit must be s, m, h, d or w")),
    };
    d.filter(|d| *d > chrono::Duration::zero())
        .ok_or_else(|| format!("{s:?} is not a positive duration"))
}

fn when(t: Option<DateTime<Utc>>, none: &str) -> String {
    t.map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| none.to_string())
}

/// Runs the subcommand.
pub async fn run(args: TokenArgs) -> anyhow::Result<ExitCode> {
    let database_url = args.database_url;
    match args.command {
        TokenCommand::Create {
            team,
            role,
            name,
            max_concurrent,
            expires_in,
            shared_pool,
        } => {
            let role: Role = role.parse().map_err(anyhow::Error::msg)?;
            if shared_pool && role != Role::Worker {
                anyhow::bail!(
                    "--shared-pool is for worker tokens only (`--role worker`), not \"{role}\""
                );
            }
            if team.is_empty()
                || team.len() > 64
                || !team
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                anyhow::bail!("team {team:?} must be 1–64 letters, digits, `-` or `_`");
            }
            if team == argus_coordinator::store::probes::PROBE_TEAM {
                anyhow::bail!(
                    "team {team:?} is reserved for the coordinator's own jobs (health probes; \
                     admins see them); pick another team name"
                );
            }
            let pool = argus_coordinator::store::connect(&database_url, 1).await?;
            let token = argus_coordinator::auth::generate();
            let expires_at = expires_in.map(|d| Utc::now() + d);
            let id = argus_coordinator::auth::create_token_expiring(
                &pool, &team, role, &name, &token, expires_at,
            )
            .await?;
            if shared_pool
                && !argus_coordinator::auth::tokens::set_shared_pool(&pool, id, true).await?
            {
                anyhow::bail!("token {id} is not a worker token; nothing was granted");
            }
            if let Some(q) = max_concurrent {
                argus_coordinator::store::teams::set_quota(&pool, &team, Some(q)).await?;
            }
            pool.close().await;
            println!("{token}");
            let serves = if shared_pool {
                ", serves every team: shared pool"
            } else if role == Role::Worker {
                ", serves only this team"
            } else {
                ""
            };
            eprintln!(
                "token {id} for team {team} (role {role}{serves}, expires {}); it is not \
                 stored in clear — keep it",
                when(expires_at, "never")
            );
            Ok(ExitCode::SUCCESS)
        }
        TokenCommand::List { team, json } => list(&database_url, team.as_deref(), json).await,
        TokenCommand::Revoke { id } => {
            let pool = argus_coordinator::store::connect(&database_url, 1).await?;
            let found = argus_coordinator::auth::tokens::revoke(&pool, id).await?;
            pool.close().await;
            if found {
                eprintln!("token {id} revoked");
                Ok(ExitCode::SUCCESS)
            } else {
                eprintln!("no token {id}");
                Ok(ExitCode::FAILURE)
            }
        }
    }
}

/// `argus token list`: every token (or one team's) as a table, or one JSON object a line.
async fn list(database_url: &str, team: Option<&str>, json: bool) -> anyhow::Result<ExitCode> {
    let pool = argus_coordinator::store::connect(database_url, 1).await?;
    // The operator holds the database URL, so every team's tokens: the system scope, then
    // the team asked for (if any).
    let scope = argus_coordinator::store::TeamScope::system();
    let rows: Vec<_> = argus_coordinator::auth::tokens::list(&pool, &scope)
        .await?
        .into_iter()
        .filter(|r| team.is_none_or(|t| r.team_id == t))
        .collect();
    pool.close().await;
    if json {
        for r in &rows {
            println!("{}", serde_json::to_string(r)?);
        }
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:<36}  {:<12}  {:<6}  {:<20}  {:<20}  {:<20}  name",
        "id", "team", "role", "created", "expires", "last used"
    );
    for r in &rows {
        println!(
            "{:<36}  {:<12}  {:<6}  {:<20}  {:<20}  {:<20}  {}",
            r.id,
            r.team_id,
            if r.shared_pool {
                "pool"
            } else {
                r.role.as_str()
            },
            when(Some(r.created_at), ""),
            when(r.expires_at, "never"),
            when(r.last_used_at, "never"),
            r.name
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90m"), Ok(chrono::Duration::minutes(90)));
        assert_eq!(parse_duration("30d"), Ok(chrono::Duration::days(30)));
        assert!(parse_duration("0h").is_err());
        assert!(parse_duration("12").is_err());
        assert!(parse_duration("h").is_err());
        assert!(parse_duration("5y").is_err());
    }
}
