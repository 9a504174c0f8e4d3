//! Argus worker: owns devices, receives assignments over NATS JetStream, runs each job
//! through the executor and streams run events back.
//!
//! Layers, top down (each imports only those below it): [`service`] / [`local`] (devices
//! opened by [`slots`]) → [`executor`] (a run's lifecycle) → `blocks` (the steps) and
//! `verdict` → [`agent`] (model tasks and their state) → [`run`] (the run engine: context,
//! recorder, act path, events) → [`perceive`], [`resolve`], [`checks`], [`uploads`] →
//! [`model`], [`secrets`], [`device`], [`config`].
//!
//! Task ownership: [`service::run`] owns the device slots and the assignment consumer; one
//! heartbeat task posts the slots and held leases to the coordinator; each run is one task
//! holding its slot's lock from `begin` to `end`, and one upload task ([`uploads`]) storing
//! that run's screenshots off the actions' path; while someone watches a run, one live task
//! ([`live`]) streams its screen. [`local::run_local`] runs one job
//! in-process with no services (`argus run`).
//!
//! Every observation goes through the perception stage ([`perceive`]): devices capture their
//! tree and geometry, the stage decides per frame whether the pixel channel (OCR + vision,
//! models loaded once per worker and shared by its slots) runs, and fuses the channels.

pub mod agent;
mod blocks;
pub mod checks;
pub mod config;
pub mod device;
pub mod executor;
pub mod icon_names;
pub mod live;
pub mod local;
pub mod model;
pub mod perceive;
pub mod resolve;
pub mod run;
pub mod secrets;
pub mod service;
pub mod slots;
pub mod uploads;
mod verdict;

pub use config::{BrowserConfig, DriverConfig, WorkerConfig};
