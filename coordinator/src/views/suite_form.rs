//! Page models of the New suite form (`/suites/new`, also the "Edit" of a suite): the
//! suite's own fields as typed, and one [`SuiteCase`] per job.

use askama::Template;

use super::JobForm;

/// One case (a job) of the New suite form. Its inputs are named `jobs[i].<field>`, the
/// path the API names in a refusal, so a refusal finds its input by name.
#[derive(Debug, Clone, Default)]
pub struct SuiteCase {
    /// The fields the form shows (name, platform, mode, start URL, steps, expectations,
    /// timeout, retries, vars), as typed.
    pub form: JobForm,
    /// The case's stored job spec as JSON when the form was opened by "Edit" (the fields the
    /// form does not show — model, cache, labels, files… — are kept from it); empty for a
    /// case typed from scratch.
    pub base: String,
}

/// Values of the New suite form (echoed back with a refusal).
#[derive(Debug, Clone, Default)]
pub struct SuiteForm {
    pub name: String,
    /// `app_build` set on every case (blank: each case keeps its own).
    pub app_build: String,
    /// `retry_elsewhere` (0–5; blank: none).
    pub retry_elsewhere: String,
    /// Device matrix, one cell per line (`browser=chromium, os_version>=13`).
    pub matrix: String,
    /// Data rows (`vars_matrix`), one row per line (`USER=alice, PASS=${secret.alice}`).
    pub rows: String,
    /// The cases as typed (blank ones dropped).
    pub cases: Vec<SuiteCase>,
}

/// One case as the page shows it.
pub struct CaseView<'a> {
    /// 0-based: its inputs are named `jobs[{i}].…`.
    pub i: usize,
    pub case: &'a SuiteCase,
    /// The refused field inside this case (`timeout_s`, `instruction[line 2]`, `vars`…);
    /// empty when the refusal is about something else.
    pub field: String,
}

/// `/suites/new` and `/suites/{id}/edit`.
#[derive(Template)]
#[template(path = "new_suite.html")]
pub struct NewSuitePage<'a> {
    /// The session's CSRF token for the page's forms (empty without a session).
    pub csrf: String,
    pub form: &'a SuiteForm,
    /// The typed cases and one empty case to fill in.
    pub cases: Vec<CaseView<'a>>,
    /// The "paste the suite JSON" form's text.
    pub json: String,
    pub platforms: Vec<String>,
    /// The suite an "Edit" started from, shown as a link.
    pub edit_of: Option<uuid::Uuid>,
    /// Summary of a refusal, above the forms.
    pub error: Option<String>,
    /// The refused suite-level field (`name`, `retry_elsewhere`, `matrix`, `vars_matrix`,
    /// `jobs`, `suite_json`), empty if none or inside a case.
    pub field: String,
    pub error_message: String,
}
