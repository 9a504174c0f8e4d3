//! The store's rows as the `argus_protocol::api` answer types the API serves: one function
//! per row type, so a handler answers a typed value (and the OpenAPI document its schema)
//! without the store depending on the wire types. Statuses stored as text become
//! [`RunStatus`]; a stored value outside the enum (the tables' check constraints rule it
//! out) is a 500.

use argus_protocol::api::{
    DeadEvent, DeviceHealth, DeviceSlot, FailingStep, ReplayEntry, RunSummary, ScheduleView,
    SuiteJob, SuiteView,
};
use argus_protocol::{FailureClass, RunStatus};

use crate::error::ApiError;
use crate::scheduler;
use crate::store;

/// A stored run status.
///
/// Errors: a value that is no [`RunStatus`] (500).
pub(crate) fn run_status(s: &str) -> Result<RunStatus, ApiError> {
    RunStatus::parse(s)
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("stored run status {s:?} is unknown")))
}

/// A row of the run list.
///
/// Errors: an unknown stored status (500).
pub(crate) fn run_summary(r: store::runs::RunSummary) -> Result<RunSummary, ApiError> {
    Ok(RunSummary {
        id: r.id,
        job_id: r.job_id,
        status: run_status(&r.status)?,
        platform: r.platform,
        name: r.name,
        device_id: r.device_id,
        error: r.error,
        failure_class: r.failure_class.as_deref().and_then(FailureClass::parse),
        probe_device: r.probe_device,
        team_id: r.team_id,
        suite_id: r.suite_id,
        schedule_id: r.schedule_id,
        matrix_cell: r.matrix_cell,
        retry_of: r.retry_of,
        created_at: r.created_at,
        finished_at: r.finished_at,
    })
}

/// A suite and its cases.
///
/// Errors: an unknown stored status (500).
pub(crate) fn suite_view(v: &store::suites::SuiteView) -> Result<SuiteView, ApiError> {
    let jobs = v
        .jobs
        .iter()
        .map(|j| {
            Ok(SuiteJob {
                job_id: j.job_id,
                name: j.name.clone(),
                cell: j.cell.clone(),
                status: run_status(&j.status)?,
                runs: j.runs.clone(),
                error: j.error.clone(),
                failure_class: j.failure_class.as_deref().and_then(FailureClass::parse),
                duration_s: j.duration_s,
                flaky: j.flaky,
                device_id: j.device_id.clone(),
                verdict_basis: j.verdict_basis.clone(),
                failing_step: j.failing_step.as_ref().map(|f| FailingStep {
                    index: f.index.max(0) as u32,
                    text: f.text.clone(),
                    screenshot_url: f.after_key.as_ref().map(|k| format!("/artifacts/{k}")),
                }),
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(SuiteView {
        suite_id: v.suite_id,
        name: v.name.clone(),
        team_id: v.team_id.clone(),
        created_at: v.created_at,
        spec: v.spec.clone(),
        verdict: v.verdict,
        passed: v.passed as u64,
        failed: v.failed as u64,
        unverified: v.unverified as u64,
        flaky: v.flaky as u64,
        jobs,
    })
}

/// A schedule with its next five fire times (none while paused).
pub(crate) fn schedule_view(r: &store::schedules::ScheduleRow) -> ScheduleView {
    let next_fire_times = if r.spec.paused {
        vec![]
    } else {
        let mut v = vec![r.next_fire_at];
        v.extend(
            scheduler::upcoming(&r.spec.cron, &r.spec.timezone, r.next_fire_at, 4)
                .unwrap_or_default(),
        );
        v
    };
    let s = &r.spec;
    ScheduleView {
        id: r.id,
        team_id: r.team_id.clone(),
        name: s.name.clone(),
        cron: s.cron.clone(),
        timezone: s.timezone.clone(),
        template: s.template.clone(),
        matrix: s.matrix.clone(),
        missed: s.missed,
        paused: s.paused,
        next_fire_at: r.next_fire_at,
        last_fired_at: r.last_fired_at,
        created_at: r.created_at,
        next_fire_times,
    }
}

/// A device slot with its health (see `store::health`).
///
/// Errors: stored labels that are not an object of strings (500).
pub(crate) fn device_slot(
    d: &store::workers::DeviceRow,
    health: DeviceHealth,
) -> Result<DeviceSlot, ApiError> {
    let labels = serde_json::from_value(d.labels.0.clone())
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("labels of device {}: {e}", d.id)))?;
    Ok(DeviceSlot {
        device_id: d.id.clone(),
        worker_id: d.worker_id.clone(),
        platform: d.platform.clone(),
        labels,
        screen_px: [d.screen_w_px, d.screen_h_px],
        online: d.online,
        free: d.online && d.current_run_id.is_none(),
        current_run_id: d.current_run_id,
        last_seen: d.last_seen,
        health,
    })
}

/// A parked run event, its payload as text (invalid UTF-8 replaced).
pub(crate) fn dead_event(r: &store::dead_events::DeadEvent) -> DeadEvent {
    DeadEvent {
        id: r.id,
        stream_seq: r.stream_seq,
        subject: r.subject.clone(),
        run_id: r.run_id,
        attempt_id: r.attempt_id,
        seq: r.seq,
        payload: String::from_utf8_lossy(&r.payload).into_owned(),
        error: r.error.clone(),
        deliveries: r.deliveries,
        parked_at: r.parked_at,
    }
}

/// A stored replay script.
pub(crate) fn replay_entry(e: store::replay::Entry) -> ReplayEntry {
    ReplayEntry {
        key: e.key,
        script: e.script,
        source_run_id: e.source_run_id,
        created_at: e.created_at,
        updated_at: e.updated_at,
        hits: e.hits,
        last_hit_at: e.last_hit_at,
    }
}
