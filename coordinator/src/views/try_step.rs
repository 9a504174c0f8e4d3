//! `/devices/{id}/try`: the "try a step" page model (issue 28 item 4).

use askama::Template;

/// What the form holds, as typed (echoed back with a refusal, prefilled after a try).
#[derive(Debug, Clone, Default)]
pub struct TryForm {
    /// The page the try opens first (web devices).
    pub start_url: String,
    /// The steps replayed before the tried one, one step-language line each.
    pub steps: String,
    /// The one line to try.
    pub step: String,
}

/// The tried line's outcome, once its run ended (or while it runs: `live`).
#[derive(Debug, Clone, Default)]
pub struct TryResult {
    /// The try's run id (its report is `/runs/{run}`).
    pub run: String,
    /// The run's status (`queued`, `running`, `succeeded`, …).
    pub status: String,
    /// Still queued, assigned or running: the page refreshes itself.
    pub live: bool,
    /// The run's error, when it ended badly.
    pub error: Option<String>,
    /// The step the last action belongs to as written, when it is not the tried line (an
    /// earlier step failed and the tried line never ran).
    pub stopped_at: Option<String>,
    /// The last action of the tried line, when it ran.
    pub action: Option<TriedAction>,
}

/// One action of the tried line, as the report shows it.
#[derive(Debug, Clone, Default)]
pub struct TriedAction {
    /// Tool name (`tap`, `type`, …).
    pub kind: String,
    /// Human description, e.g. `tap "Clear completed"`.
    pub detail: String,
    /// Whether it did what was asked.
    pub ok: bool,
    /// Why not.
    pub error: Option<String>,
    /// Whether the input reached the device (`delivered_verified`, …).
    pub disposition: String,
    /// The resolved target: role, name and box `x,y wxh` in device px, when there was one.
    pub target: Option<(String, String, String)>,
    /// The after-screenshot's URL (`/artifacts/…`).
    pub after: Option<String>,
}

/// The page.
#[derive(Template)]
#[template(path = "try_step.html")]
pub struct TryPage<'a> {
    /// The session's CSRF token for the form.
    pub csrf: String,
    /// Device id.
    pub device: &'a str,
    /// Its platform.
    pub platform: &'a str,
    pub form: &'a TryForm,
    /// The last try's outcome.
    pub result: Option<TryResult>,
    /// The refusal's summary, when the last post was refused.
    pub error: Option<String>,
    /// The form field the refusal names (`step`, `steps`, `start_url`), empty for the form.
    pub field: String,
    pub error_message: String,
    /// Query string of "Add to steps so far" (the form with the line appended).
    pub add_href: String,
    /// Query string of "New job from these steps" (the New job form prefilled).
    pub job_href: String,
}
