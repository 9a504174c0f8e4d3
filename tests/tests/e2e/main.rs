//! Argus end-to-end tests: one binary (link time matters on 2 cores), real PostgreSQL,
//! NATS JetStream, SeaweedFS S3 and Chromium (see `argus_tests::Farm`). Start the services
//! with `deploy/dev-up.sh` first.

mod bad_input;
mod claim;
mod teardown;
mod todomvc;
