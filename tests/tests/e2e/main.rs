//! Argus end-to-end tests: one binary (link time matters on 2 cores), real PostgreSQL,
//! NATS JetStream, SeaweedFS S3 and Chromium (see `argus_tests::Farm`). Start the services
//! with `deploy/dev-up.sh` first.

mod agent;
mod agent_farm;
mod bad_input;
mod claim;
mod dashboard;
mod desktop;
mod farm;
mod teardown;
mod todomvc;
