//! `argus token create`: mint an API token for a team (connects to PostgreSQL directly;
//! run it where the coordinator's database is reachable). The clear token is printed once;
//! only its sha256 is stored.

use std::process::ExitCode;

/// `argus token` flags.
#[derive(Debug, clap::Args)]
pub struct TokenArgs {
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(Debug, clap::Subcommand)]
enum TokenCommand {
    /// Create a token; prints it once.
    Create {
        /// Team the token acts for (created if new). Default `default`.
        #[arg(long, default_value = "default")]
        team: String,
        /// `user` (jobs, reports), `worker` (heartbeats) or `admin` (all teams).
        #[arg(long, default_value = "user", value_parser = ["user", "worker", "admin"])]
        role: String,
        /// A note for people.
        #[arg(long, default_value = "")]
        name: String,
        /// Most runs of the team at once (sets the team's quota).
        #[arg(long)]
        max_concurrent: Option<i32>,
        /// PostgreSQL URL.
        #[arg(
            long,
            env = "ARGUS_DATABASE_URL",
            default_value = "postgres://postgres@127.0.0.1:5432/argus"
        )]
        database_url: String,
    },
}

/// Runs the subcommand.
pub async fn run(args: TokenArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        TokenCommand::Create {
            team,
            role,
            name,
            max_concurrent,
            database_url,
        } => {
            if team.is_empty()
                || team.len() > 64
                || !team
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                anyhow::bail!("team {team:?} must be 1–64 letters, digits, `-` or `_`");
            }
            let pool = argus_coordinator::store::connect(&database_url, 1).await?;
            let token = argus_coordinator::auth::generate();
            argus_coordinator::auth::create_token(&pool, &team, &role, &name, &token).await?;
            if let Some(q) = max_concurrent {
                argus_coordinator::store::teams::set_quota(&pool, &team, Some(q)).await?;
            }
            pool.close().await;
            println!("{token}");
            eprintln!("token for team {team} (role {role}); it is not stored in clear — keep it");
            Ok(ExitCode::SUCCESS)
        }
    }
}
