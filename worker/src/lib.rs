//! Argus worker: owns devices, receives assignments over NATS JetStream, runs each job
//! through the executor and streams run events back.
//!
//! Task ownership: [`service::run`] owns the device slots and the assignment consumer; one
//! heartbeat task posts the slots and held leases to the coordinator; each run is one task
//! holding its slot's lock from `begin` to `end`. [`local::run_local`] runs one job in-process
//! with no services (`argus run`).

pub mod act;
pub mod agent;
pub mod aim;
pub mod config;
pub mod device;
pub mod events;
pub mod executor;
pub mod local;
pub mod perceive;
pub mod resolve;
pub mod service;

pub use config::{BrowserConfig, DriverConfig, WorkerConfig};
