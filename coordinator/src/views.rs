//! Dashboard page models (askama templates in `web/templates/`). Handlers in
//! `api/dashboard.rs` fill them; every page is plain HTML forms and links.

use askama::Template;
use chrono::{DateTime, Utc};

mod suite_form;
pub use suite_form::{CaseView, NewSuitePage, SuiteCase, SuiteForm};
mod try_step;
pub use try_step::{TriedAction, TryForm, TryPage, TryResult};

use crate::store::runs::{RunFilter, RunSummary};
use crate::store::suites::{SuiteJob, SuiteView};
use crate::store::workers::DeviceRow;

/// Every run status, for the filter.
pub const STATUSES: [&str; 10] = [
    "queued",
    "assigned",
    "running",
    "succeeded",
    "unverified",
    "failed",
    "errored",
    "cancelled",
    "timed_out",
    "lost",
];

/// Every platform, for forms and filters.
pub fn platforms() -> Vec<String> {
    argus_protocol::Platform::ALL
        .iter()
        .map(|p| p.as_str().to_string())
        .collect()
}

/// `/`: runs with filters.
#[derive(Template)]
#[template(path = "dashboard.html")]
pub struct RunsPage<'a> {
    /// The session's CSRF token for the page's forms (empty without a session).
    pub csrf: String,
    pub runs: &'a [RunSummary],
    pub filter: &'a RunFilter,
    pub statuses: Vec<String>,
    pub platforms: Vec<String>,
}

/// `/devices/{id}/quarantine`: an admin's reason for a quarantine by hand.
#[derive(Template)]
#[template(path = "device_quarantine.html")]
pub struct QuarantinePage {
    /// The session's CSRF token for the form.
    pub csrf: String,
    pub device_id: String,
    /// The reason as typed (kept when the form comes back refused).
    pub reason: String,
    /// Why the last post was refused (the API's message and hint), shown at the field.
    pub error: Option<String>,
}

/// `/devices/{id}`: one device, its live screen while it runs one of the caller's team's
/// runs, and its recent runs.
#[derive(Template)]
#[template(path = "device.html")]
pub struct DevicePage<'a> {
    /// The session's CSRF token for the page's forms (empty without a session).
    pub csrf: String,
    pub device: &'a DeviceRow,
    /// The run it is running now, when the caller's team may see it.
    pub live_run: Option<uuid::Uuid>,
    /// Its runs the caller's team may see, newest first.
    pub runs: Vec<RunSummary>,
}

/// `/devices`.
#[derive(Template)]
#[template(path = "devices.html")]
pub struct DevicesPage<'a> {
    /// The session's CSRF token for the page's forms (empty without a session).
    pub csrf: String,
    pub devices: &'a [DeviceRow],
    /// Runs of the caller's team: only those are linked from a busy device.
    pub visible_runs: std::collections::HashSet<uuid::Uuid>,
    /// Each device's health by device id (see `store::health`); a device missing here
    /// shows as never evaluated.
    pub health: std::collections::HashMap<String, argus_protocol::api::DeviceHealth>,
    /// The latest health state changes, newest first.
    pub health_events: Vec<argus_protocol::api::HealthEvent>,
    /// Whether the caller is an admin: each device row gets a Quarantine (with a reason) or
    /// Release button.
    pub admin: bool,
    /// `(device id, message)` of an admin action just refused, shown above the table (the
    /// page then does not reload itself).
    pub error: Option<(String, String)>,
}

impl DevicesPage<'_> {
    /// The health of device `id` (never evaluated: `healthy`, empty window).
    pub fn health_of(&self, id: &str) -> argus_protocol::api::DeviceHealth {
        self.health
            .get(id)
            .cloned()
            .unwrap_or_else(argus_protocol::api::DeviceHealth::never_evaluated)
    }
}

/// Values of the new-job form (echoed back with errors): every field of a [`argus_protocol::JobSpec`]
/// a person sets by hand, as typed. Built from the posted pairs by
/// `api::job_form::form_from_pairs` (rows repeat their field names).
#[derive(Debug, Clone, Default)]
pub struct JobForm {
    pub name: String,
    /// The job's `app_build` (blank: none).
    pub app_build: String,
    pub platform: String,
    pub mode: String,
    pub start_url: String,
    /// Selector labels as `(key, value)` rows.
    pub labels: Vec<(String, String)>,
    pub instruction: String,
    /// Expectations, one step-language check line per line (the job's `expectations`).
    pub expectations: String,
    pub timeout_s: String,
    pub max_steps: String,
    pub retries: String,
    pub priority: String,
    pub queue_timeout_s: String,
    /// `""` (the default: `read_write` in model modes), `off`, `read` or `read_write`.
    pub cache: String,
    /// `model.base_url` of an `llm` / `vlm` job.
    pub model_base_url: String,
    /// `model.model` of an `llm` / `vlm` job.
    pub model_name: String,
    /// `model.temperature` (0–2), blank for the worker's.
    pub model_temperature: String,
    /// `model.coords` of a `vlm` job: `""`, `abs`, `norm1000` or `norm999`.
    pub model_coords: String,
    /// `vars` as `(name, value)` rows.
    pub vars: Vec<(String, String)>,
    /// Secret references as `(var name, secret name)` rows: the var's value becomes
    /// `${secret.NAME}`; the secret's value is never part of the form.
    pub secrets: Vec<(String, String)>,
}

/// `/jobs/new`.
#[derive(Template)]
#[template(path = "new_job.html")]
pub struct NewJobPage<'a> {
    /// The session's CSRF token for the page's forms (empty without a session).
    pub csrf: String,
    pub form: &'a JobForm,
    pub platforms: Vec<String>,
    pub error: Option<String>,
    /// Field the error is about (`instruction[line 2]`, `selector`…), empty if none.
    pub field: String,
    pub error_message: String,
}

/// One row of the schedules table.
pub struct ScheduleLine {
    pub id: uuid::Uuid,
    pub name: String,
    pub cron: String,
    pub timezone: String,
    pub cells: String,
    pub paused: bool,
    pub next: Vec<String>,
    pub last: Option<String>,
}

/// Values of the new-schedule form.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct ScheduleForm {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub cron: String,
    #[serde(default)]
    pub timezone: String,
    #[serde(default)]
    pub platform: String,
    #[serde(default)]
    pub start_url: String,
    #[serde(default)]
    pub matrix: String,
    #[serde(default)]
    pub instruction: String,
    #[serde(default)]
    pub missed: String,
    /// The template's `app_build` (blank: none).
    #[serde(default)]
    pub app_build: String,
}

/// `/schedules`.
#[derive(Template)]
#[template(path = "schedules.html")]
pub struct SchedulesPage<'a> {
    /// The session's CSRF token for the page's forms (empty without a session).
    pub csrf: String,
    pub schedules: Vec<ScheduleLine>,
    pub form: &'a ScheduleForm,
    pub platforms: Vec<String>,
    pub error: Option<String>,
    pub field: String,
    pub error_message: String,
}

/// `/schedules/{id}/edit`: one schedule's form, filled from the stored one.
#[derive(Template)]
#[template(path = "schedule_edit.html")]
pub struct ScheduleEditPage<'a> {
    /// The session's CSRF token for the page's forms (empty without a session).
    pub csrf: String,
    /// The schedule.
    pub id: uuid::Uuid,
    pub form: &'a ScheduleForm,
    pub platforms: Vec<String>,
    /// Field the refusal is about (`cron`, `template.instruction[line 1]`…), empty if none.
    pub field: String,
    pub error_message: String,
}

/// `/suites`.
#[derive(Template)]
#[template(path = "suites.html")]
pub struct SuitesPage {
    /// The session's CSRF token for the page's forms (empty without a session).
    pub csrf: String,
    pub suites: Vec<(uuid::Uuid, String, DateTime<Utc>)>,
}

/// `/suites/{id}`: verdict matrix job × cell and the name's history.
#[derive(Template)]
#[template(path = "suite.html")]
pub struct SuitePage<'a> {
    /// The session's CSRF token for the page's forms (empty without a session).
    pub csrf: String,
    pub suite: &'a SuiteView,
    pub cells: Vec<String>,
    pub rows: Vec<MatrixRow<'a>>,
    /// `(id, created, verdict, pass rate)`.
    pub history: Vec<(uuid::Uuid, String, String, String)>,
    pub pass_rate: String,
}

/// One matrix row: job name and its job per cell.
pub type MatrixRow<'a> = (String, Vec<Option<&'a SuiteJob>>);

/// Builds the job × cell matrix of a suite: `(cells, rows)`.
pub fn matrix(s: &SuiteView) -> (Vec<String>, Vec<MatrixRow<'_>>) {
    let mut cells: Vec<String> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for j in &s.jobs {
        if !cells.contains(&j.cell) {
            cells.push(j.cell.clone());
        }
        if !names.contains(&j.name) {
            names.push(j.name.clone());
        }
    }
    let rows = names
        .into_iter()
        .map(|n| {
            let row = cells
                .iter()
                .map(|c| s.jobs.iter().find(|j| j.name == n && &j.cell == c))
                .collect();
            (n, row)
        })
        .collect();
    (cells, rows)
}

/// `/insights`: pass rate over time by suite, platform and device, runs that passed on
/// retry, the slowest steps.
#[derive(Template)]
#[template(path = "insights.html")]
pub struct InsightsPage {
    /// The session's CSRF token for the page's forms (empty without a session).
    pub csrf: String,
    /// Window, UTC days ending today.
    pub days: u32,
    pub charts: Vec<crate::plot::Chart>,
    pub flaky: Vec<crate::store::insights::Flaky>,
    pub slow: Vec<crate::store::insights::SlowStep>,
    /// The `job` asked about for builds (empty when none).
    pub build_job: String,
    /// The `suite` asked about for builds (empty when none).
    pub build_suite: String,
    /// Pass rate per build and first failing builds, when a job or suite was named.
    pub builds: Option<argus_protocol::api::BuildInsights>,
}
