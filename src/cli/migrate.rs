//! `argus migrate`: apply the embedded migrations, then the repeatable claim functions
//! (`coordinator/sql/claim.sql`), and exit.

use std::process::ExitCode;

/// `argus migrate` flags.
#[derive(Debug, clap::Args)]
pub struct MigrateArgs {
    /// PostgreSQL URL. Default `postgres://postgres@127.0.0.1:5432/argus`.
    #[arg(
        long,
        env = "ARGUS_DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/argus"
    )]
    database_url: String,
}

/// Connects (which migrates and applies the claim functions) and reports.
pub async fn run(args: MigrateArgs) -> anyhow::Result<ExitCode> {
    let pool = argus_coordinator::store::connect(&args.database_url, 1).await?;
    let n = argus_coordinator::store::MIGRATOR.iter().count();
    pool.close().await;
    println!("database is at the latest schema ({n} migrations, claim functions applied)");
    Ok(ExitCode::SUCCESS)
}
