//! ONNX Runtime loading and session construction.
//!
//! The runtime is `libonnxruntime.so` loaded at run time (`ort` feature `load-dynamic`) with
//! [`ort::init_from`]; a missing or wrong file is an [`OcrError::Runtime`], never a panic.
//! ONNX Runtime allows one environment per process, so it is created once and shared by every
//! [`crate::ocr::OcrEngine`]; the first library path wins.
//!
//! Session options (see [`SessionOptions`]):
//! - **intra-op threads**: configurable; default 1 in [`SessionOptions::default`],
//!   [`default_threads`] (the usable cores, at most 4) in [`SessionOptions::from_env`] unless
//!   `ARGUS_OCR_THREADS` says otherwise. One thread per session gives the lowest CPU time per
//!   frame; more threads lower latency at some CPU cost.
//! - **spinning off** (`session.intra_op.allow_spinning = 0`): idle pool threads sleep instead
//!   of busy-waiting, which otherwise burns CPU time between operators.
//! - **inter-op threads 1**, sequential execution: the PP-OCR graphs are chains.
//! - **graph optimization level 3** (all).
//! - **CPU memory arena on** by default (`ep::CPU::with_arena_allocator(true)`): the arena keeps
//!   freed blocks for reuse, so a steady-state frame allocates almost nothing, at the price of
//!   holding the high-water mark (200–300 MB RSS after a full-screen detection). Set
//!   `memory_arena = false` to return memory after each run (slower).
//! - **memory pattern on**: pre-plans allocations for repeated shapes (detection input shapes
//!   repeat for one screen size).

use std::path::Path;
use std::sync::{Mutex, OnceLock};

use ort::environment::Environment;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;

use super::OcrError;

/// Options applied to every PP-OCR session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionOptions {
    /// Intra-op threads per session (≥ 1).
    pub intra_threads: usize,
    /// Keep ONNX Runtime's CPU memory arena (faster steady state, higher RSS).
    pub memory_arena: bool,
    /// Let idle pool threads spin (lower latency, more CPU time). Off by default.
    pub allow_spinning: bool,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            intra_threads: 1,
            memory_arena: true,
            allow_spinning: false,
        }
    }
}

impl SessionOptions {
    /// Defaults, with `intra_threads` = [`default_threads`] unless `ARGUS_OCR_THREADS` (a
    /// positive integer) says otherwise.
    pub fn from_env() -> SessionOptions {
        let mut o = SessionOptions {
            intra_threads: default_threads(),
            ..SessionOptions::default()
        };
        if let Some(n) = std::env::var("ARGUS_OCR_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0)
        {
            o.intra_threads = n;
        }
        o
    }
}

/// OCR threads for a screen when nobody says: the cores this process may use, at most 4
/// (1 when unknown). A frame's OCR is on the observation's critical path; the worker runs one
/// OCR at a time.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get().min(4))
        .unwrap_or(1)
}

static ENV: OnceLock<Mutex<Option<Environment>>> = OnceLock::new();

/// Loads `libonnxruntime` from `lib_path` (once per process) and returns the shared
/// environment.
pub fn environment(lib_path: &Path) -> Result<Environment, OcrError> {
    let slot = ENV.get_or_init(|| Mutex::new(None));
    let mut guard = slot
        .lock()
        .map_err(|_| OcrError::Runtime("environment lock poisoned".into()))?;
    if let Some(env) = guard.as_ref() {
        return Ok(env.clone());
    }
    if !lib_path.is_file() {
        return Err(OcrError::Runtime(format!(
            "ONNX Runtime library not found at {} (run deploy/models.sh or set ARGUS_MODELS_DIR)",
            lib_path.display()
        )));
    }
    let env = ort::init_from(lib_path)
        .map_err(|e| OcrError::Runtime(format!("loading {}: {e}", lib_path.display())))?
        .with_name("argus-perception")
        .with_telemetry(false)
        .build()
        .map_err(|e| OcrError::Runtime(format!("creating the ONNX Runtime environment: {e}")))?;
    *guard = Some(env.clone());
    Ok(env)
}

fn ort_err<R>(what: &'static str, model: &Path) -> impl FnOnce(ort::Error<R>) -> OcrError {
    let model = model.display().to_string();
    move |e| OcrError::Model(format!("{what} for {model}: {e}"))
}

/// Builds one CPU session for the model file at `model` with `opts` (see the module docs).
pub fn open(env: &Environment, model: &Path, opts: &SessionOptions) -> Result<Session, OcrError> {
    if !model.is_file() {
        return Err(OcrError::Model(format!(
            "model file not found: {} (run deploy/models.sh or set ARGUS_MODELS_DIR)",
            model.display()
        )));
    }
    let cpu = ort::ep::CPU::default()
        .with_arena_allocator(opts.memory_arena)
        .build();
    Session::builder(env)
        .map_err(ort_err("session builder", model))?
        .with_execution_providers([cpu])
        .map_err(ort_err("CPU execution provider", model))?
        .with_optimization_level(GraphOptimizationLevel::All)
        .map_err(ort_err("optimization level", model))?
        .with_intra_threads(opts.intra_threads.max(1))
        .map_err(ort_err("intra-op threads", model))?
        .with_inter_threads(1)
        .map_err(ort_err("inter-op threads", model))?
        .with_memory_pattern(true)
        .map_err(ort_err("memory pattern", model))?
        .with_config_entry(
            "session.intra_op.allow_spinning",
            if opts.allow_spinning { "1" } else { "0" },
        )
        .map_err(ort_err("spinning", model))?
        .commit_from_file(model)
        .map_err(ort_err("loading the model", model))
}
