//! HTML rendering (askama templates in `web/templates/`): the per-run report, the comparison
//! of two runs and the login page. Rendering is pure — the same [`render_report`] serves the
//! coordinator (images through `/artifacts/`) and `argus run` (images as relative files).
//! Images are linked, never inlined, and load lazily; where an action landed is drawn over
//! its before-screenshot from the stored geometry ([`overlay`]); every page works without
//! JavaScript; askama escapes all page text.

pub mod compare;
pub mod overlay;
pub mod timeline;
pub mod verdict;

use argus_protocol::{ActionView, RunDetail, StepView};
use askama::Template;
use uuid::Uuid;

use overlay::Overlay;
use timeline::Row;

/// How a report is served.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReportOptions<'a> {
    /// Prefixed to screenshot keys: `/artifacts/` on the coordinator, empty in an exported
    /// file whose images lie beside it.
    pub img_base: &'a str,
    /// Links back to the dashboard, the JSON and the cancel button (coordinator only).
    pub dashboard_link: bool,
    /// The session's CSRF token for the cancel form (empty in exported files).
    pub csrf: &'a str,
    /// The previous run of the same job (see `store::runs::previous`), linked to a
    /// comparison.
    pub previous: Option<Uuid>,
    /// The job's stored replay script, shown (with a clear button) on the dashboard's page
    /// of an `llm` / `vlm` run; `None` when nothing is stored or in exported files.
    pub replay: Option<&'a str>,
    /// The run has an exported step file (`GET /api/v1/runs/{id}/steps`): the page links
    /// "Download as steps" and its Chinese twin `?lang=zh` (coordinator only, with
    /// `dashboard_link`).
    pub has_steps: bool,
}

/// Report page. Whitespace between template tags is minimized: the page must stay small
/// for runs of hundreds of actions.
#[derive(Template)]
#[template(path = "report.html", whitespace = "minimize")]
struct ReportPage<'a> {
    run: &'a RunDetail,
    img_base: &'a str,
    dashboard_link: bool,
    auto_refresh: bool,
    /// The session's CSRF token for the cancel form (empty in exported files).
    csrf: &'a str,
    previous: Option<Uuid>,
    timeline: Vec<Row>,
    /// `(step, action)` of the failure a failing run opens on.
    first_failure: Option<(u32, Option<u32>)>,
    replay: Option<&'a str>,
    has_steps: bool,
}

/// `s` escaped for an HTML text node (`&`, `<`, `>`), quotes left as they are — a third of
/// a model call's size otherwise. Never for attribute values (those keep askama's escaping).
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

impl ReportPage<'_> {
    /// See [`escape_text`]; the template marks the result `|safe`.
    fn text(&self, s: &str) -> String {
        escape_text(s)
    }
    fn img(&self, key: &Option<String>) -> Option<String> {
        key.as_ref().map(|k| format!("{}{}", self.img_base, k))
    }
    fn status(&self) -> &'static str {
        self.run.status.as_str()
    }
    /// See [`verdict::live_key`].
    fn live_key(&self) -> String {
        verdict::live_key(self.run)
    }
    /// See [`verdict::checked_at`].
    fn checked_at(&self) -> Option<(Option<String>, String)> {
        verdict::checked_at(self.run)
    }
    /// See [`verdict::fallback_basis`].
    fn fallback_basis(&self) -> Option<&'static str> {
        verdict::fallback_basis(self.run)
    }
    /// `job`, `instruction` or `effect`: where an expectation came from.
    fn source(&self, e: &argus_protocol::expect::Expectation) -> &'static str {
        match e.source {
            argus_protocol::expect::ExpectationSource::Job => "job",
            argus_protocol::expect::ExpectationSource::Instruction => "instruction",
            argus_protocol::expect::ExpectationSource::Effect => "effect",
        }
    }
    /// Whether `line` is the expectation the verdict names.
    fn decided_by(&self, line: &str) -> bool {
        self.run
            .verdict
            .as_ref()
            .and_then(|v| v.expectation.as_deref())
            == Some(line)
    }
    /// For a queued run: what it waits for (`platform web with browser=chromium`).
    fn waiting(&self) -> Option<String> {
        (self.run.status == argus_protocol::RunStatus::Queued)
            .then(|| crate::label_sets::wanted(&self.run.spec))
    }
    fn duration(&self) -> String {
        self.run
            .duration_ms()
            .map(|ms| format!("{:.1} s", ms as f64 / 1000.0))
            .unwrap_or_else(|| "—".into())
    }
    fn step_class(&self, s: &StepView) -> &'static str {
        timeline::step_class(s)
    }
    /// A failing run folds the steps that passed, so it opens on its failure.
    fn step_open(&self, s: &StepView) -> bool {
        self.first_failure.is_none() || s.ok != Some(true)
    }
    /// Whether `a` is the failure the page opens on.
    fn is_first_failure(&self, a: &ActionView) -> bool {
        self.first_failure == Some((a.step, Some(a.action)))
    }
    /// Whether step `s` is the failure the page opens on (it has no failed action).
    fn is_failed_step(&self, s: &StepView) -> bool {
        self.first_failure == Some((s.index, None))
    }
    fn overlay(&self, a: &ActionView) -> Option<Overlay> {
        overlay::overlay(a, self.run.screen_px)
    }
    fn by(&self, a: &ActionView) -> &'static str {
        timeline::decided_by(self.run.spec.mode, a)
    }
    fn action_ms(&self, a: &ActionView) -> String {
        format!("{:.0} ms", timeline::action_ms(a))
    }
    fn step_ms(&self, s: &StepView) -> String {
        s.duration_ms
            .map(|d| format!("{d:.0} ms"))
            .unwrap_or_default()
    }
    fn timing(&self, a: &ActionView) -> String {
        let t = &a.timings;
        format!(
            "perceive {:.0} · act {:.0} · screenshot {:.0} · upload {:.0} ms",
            t.perceive_ms, t.act_ms, t.screenshot_ms, t.upload_ms
        )
    }
    /// `prompt 1234 / completion 56 tokens · 2 calls · 830 ms`, or empty without a model.
    fn usage(&self, a: &ActionView) -> String {
        match &a.usage {
            Some(u) => format!(
                "prompt {} / completion {} tokens · {} call(s) · {:.0} ms",
                u.prompt_tokens, u.completion_tokens, u.calls, u.latency_ms
            ),
            None => String::new(),
        }
    }
    /// Run-wide model usage, or empty in script mode.
    fn usage_total(&self) -> String {
        let u = self.run.model_usage();
        if u.calls == 0 {
            return String::new();
        }
        format!(
            "{} model calls · prompt {} / completion {} tokens · {:.1} s waiting",
            u.calls,
            u.prompt_tokens,
            u.completion_tokens,
            u.latency_ms / 1000.0
        )
    }
    /// `C — no change …`, or empty.
    fn reflection(&self, a: &ActionView) -> String {
        a.reflection
            .as_ref()
            .map(|r| format!("{} — {}", r.class.as_str(), r.note))
            .unwrap_or_default()
    }
    fn target(&self, a: &ActionView) -> String {
        match &a.target {
            Some(t) => {
                let mut s = format!(
                    "{} {} {:?} at ({:.0}, {:.0}) {:.0}×{:.0} px",
                    t.id, t.role, t.name, t.bbox_px[0], t.bbox_px[1], t.bbox_px[2], t.bbox_px[3]
                );
                if let Some(src) = t.source.as_deref().filter(|s| *s != "tree") {
                    s.push_str(&format!(" · source: {src}"));
                    if let Some(c) = t.confidence {
                        s.push_str(&format!(" ({c:.2})"));
                    }
                }
                s
            }
            None => "—".into(),
        }
    }

    /// The perception channel of the action's observation and the arbiter's reason;
    /// `same` when the previous action of the step was perceived alike (a long run repeats
    /// it hundreds of times), empty without a note.
    fn perception(&self, s: &StepView, a: &ActionView) -> String {
        let Some(p) = &a.perception else {
            return String::new();
        };
        let prev = s
            .actions
            .iter()
            .take_while(|x| x.action != a.action)
            .filter_map(|x| x.perception.as_ref())
            .last();
        match prev {
            Some(q) if q.channel == p.channel && q.reason == p.reason => "same".into(),
            _ => format!("{}: {}", p.channel, p.reason),
        }
    }
}

/// Renders the report of one run.
pub fn render_report(run: &RunDetail, opts: &ReportOptions) -> Result<String, askama::Error> {
    ReportPage {
        run,
        img_base: opts.img_base,
        dashboard_link: opts.dashboard_link,
        csrf: opts.csrf,
        previous: opts.previous,
        auto_refresh: !run.status.is_terminal() && opts.dashboard_link,
        timeline: timeline::rows(run),
        first_failure: timeline::first_failure(run),
        replay: opts.replay,
        has_steps: opts.has_steps,
    }
    .render()
}

/// Login page.
#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage<'a> {
    error: Option<&'a str>,
    /// Always empty: the sign-in form is checked by origin, not by a session token.
    csrf: &'a str,
}

/// Renders the login form, with an error line when a token was refused.
pub fn render_login(error: Option<&str>) -> Result<String, askama::Error> {
    LoginPage { error, csrf: "" }.render()
}

#[cfg(test)]
mod tests;
