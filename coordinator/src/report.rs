//! HTML rendering (askama templates in `web/templates/`): the per-run report and the
//! dashboard. Rendering is pure — the same [`render_report`] serves the coordinator (images
//! through `/artifacts/`) and `argus run` (images as relative files). Images are linked,
//! never inlined; every page works without JavaScript; askama escapes all page text.

use argus_protocol::{ActionView, RunDetail, StepView};
use askama::Template;

use crate::store::runs::RunSummary;
use crate::store::workers::DeviceRow;

/// Report page.
#[derive(Template)]
#[template(path = "report.html")]
struct ReportPage<'a> {
    run: &'a RunDetail,
    img_base: &'a str,
    dashboard_link: bool,
    auto_refresh: bool,
}

impl ReportPage<'_> {
    fn img(&self, key: &Option<String>) -> Option<String> {
        key.as_ref().map(|k| format!("{}{}", self.img_base, k))
    }
    fn status(&self) -> &'static str {
        self.run.status.as_str()
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
    fn target(&self, a: &ActionView) -> String {
        match &a.target {
            Some(t) => format!(
                "{} {} {:?} at ({:.0}, {:.0}) {:.0}×{:.0} px",
                t.id, t.role, t.name, t.bbox_px[0], t.bbox_px[1], t.bbox_px[2], t.bbox_px[3]
            ),
            None => "—".into(),
        }
    }
}

/// Renders the report of one run. `img_base` is prefixed to screenshot keys.
pub fn render_report(
    run: &RunDetail,
    img_base: &str,
    dashboard_link: bool,
) -> Result<String, askama::Error> {
    ReportPage {
        run,
        img_base,
        dashboard_link,
        auto_refresh: !run.status.is_terminal() && dashboard_link,
    }
    .render()
}

/// Dashboard page.
#[derive(Template)]
#[template(path = "dashboard.html")]
struct DashboardPage<'a> {
    runs: &'a [RunSummary],
    devices: &'a [DeviceRow],
}

/// Renders the dashboard.
pub fn render_dashboard(
    runs: &[RunSummary],
    devices: &[DeviceRow],
) -> Result<String, askama::Error> {
    DashboardPage { runs, devices }.render()
}
