//! Argus end-to-end tests: one binary (link time matters on 2 cores), real PostgreSQL,
//! NATS JetStream, SeaweedFS S3 and Chromium (see `argus_tests::Farm`). Start the services
//! with `deploy/dev-up.sh` first.

mod agent;
mod agent_farm;
mod android;
mod bad_input;
mod claim;
mod cluster;
mod dashboard;
mod desktop;
mod electron;
mod farm;
mod faults;
mod harmony;
mod ios;
mod reaper;
mod security;
mod teardown;
mod todomvc;
