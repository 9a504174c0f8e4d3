//! HTML rendering (askama templates in `web/templates/`): the per-run report and the
//! dashboard. Rendering is pure — the same [`render_report`] serves the coordinator (images
//! through `/artifacts/`) and `argus run` (images as relative files). Images are linked,
//! never inlined; every page works without JavaScript; askama escapes all page text.

use argus_protocol::{ActionView, RunDetail, StepView};
use askama::Template;

/// Report page.
#[derive(Template)]
#[template(path = "report.html")]
struct ReportPage<'a> {
    run: &'a RunDetail,
    img_base: &'a str,
    dashboard_link: bool,
    auto_refresh: bool,
    /// The session's CSRF token for the cancel form (empty in exported files).
    csrf: &'a str,
    /// The job's stored replay script, shown (with a clear button) on the dashboard's page
    /// of an `llm` / `vlm` run; `None` when nothing is stored or in exported files.
    replay: Option<&'a str>,
}

impl ReportPage<'_> {
    fn img(&self, key: &Option<String>) -> Option<String> {
        key.as_ref().map(|k| format!("{}{}", self.img_base, k))
    }
    fn status(&self) -> &'static str {
        self.run.status.as_str()
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
        match s.ok {
            Some(true) => "ok",
            Some(false) => "fail",
            None => "pending",
        }
    }
    fn step_ms(&self, s: &StepView) -> String {
        s.duration_ms
            .map(|d| format!("{d:.0} ms"))
            .unwrap_or_default()
    }
    fn timing(&self, a: &ActionView) -> String {
        let t = &a.timings;
        format!(
            "perceive {:.0} ms · act {:.0} ms · screenshot {:.0} ms · upload {:.0} ms",
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

    /// The perception channel of the action's observation and the arbiter's reason, or
    /// empty.
    fn perception(&self, a: &ActionView) -> String {
        match &a.perception {
            Some(p) => format!("{}: {}", p.channel, p.reason),
            None => String::new(),
        }
    }
}

/// Renders the report of one run. `img_base` is prefixed to screenshot keys; `replay` is
/// the job's stored replay script (dashboard pages only).
pub fn render_report(
    run: &RunDetail,
    img_base: &str,
    dashboard_link: bool,
    csrf: &str,
    replay: Option<&str>,
) -> Result<String, askama::Error> {
    ReportPage {
        run,
        img_base,
        dashboard_link,
        csrf,
        replay,
        auto_refresh: !run.status.is_terminal() && dashboard_link,
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
