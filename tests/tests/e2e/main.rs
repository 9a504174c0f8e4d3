//! Argus end-to-end tests: one binary (link time matters on 2 cores), real PostgreSQL,
//! NATS JetStream, SeaweedFS S3 and Chromium (see `argus_tests::Farm`). Start the services
//! with `deploy/dev-up.sh` first.

mod actionability;
mod agent;
mod agent_farm;
mod agent_guards;
mod agent_verdicts;
mod android;
mod apply_batch;
mod assignment_groups;
mod bad_input;
mod bootstrap_revoked;
mod builds;
mod chromium_env;
mod circles;
mod claim;
mod claim_classes;
mod claim_hand;
mod cli_help;
mod cli_run;
mod cluster;
mod csrf;
mod dashboard;
mod dashboard_forms;
mod desktop;
mod desktop_slot;
mod device_health;
mod docs;
mod dogfood;
mod drain;
mod effect;
mod electron;
mod export_steps;
mod farm;
mod faults;
mod harmony;
mod health_probe;
mod heartbeat_refresh;
mod include_bomb;
mod input_hygiene;
mod ios;
mod live_screen;
mod nats_permissions;
mod nav_fail_closed;
mod nav_policy;
mod openapi;
mod pixels;
mod placeholder_secrets;
mod poison_events;
mod queue_unmatched;
mod read_limits;
mod reaper;
mod replay;
mod report_pages;
mod retry_elsewhere;
mod s3_worker_prefix;
mod secret_use;
mod security;
mod selector_sql;
mod served_bytes;
mod shipped_layouts;
mod shipped_worker_runs;
mod step_language;
mod suite_forms;
mod team_scope;
mod team_secrets;
mod teardown;
mod todomvc;
mod token_scope;
mod try_step;
mod typing;
mod verdicts;
mod worker_exit;
mod worker_teams;

/// Runs one SQL statement, panicking with the statement and the error.
pub(crate) async fn exec(pool: &sqlx::PgPool, sql: &str) {
    sqlx::query(sql)
        .execute(pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// A farm with no worker: only the claimers and appliers a test calls touch its slots (sim
/// slots heard from a minute ago are past the farm dispatcher's 15 s TTL).
pub(crate) async fn bare_farm() -> argus_tests::Farm {
    argus_tests::Farm::start(argus_tests::FarmOptions {
        worker_slots: None,
        ..Default::default()
    })
    .await
}
