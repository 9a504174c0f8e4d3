//! JUnit XML for a suite: one `<testsuite>` per device-matrix cell, one `<testcase>` per
//! job, `<failure>` for `failed`, `<failure type="unverified">` for `unverified` (a
//! natural-language run that had nothing to check is never a pass; its message is the
//! verdict's basis), `<error>` for `errored` / `timed_out` / `lost`, `<skipped>` for
//! `cancelled`, each with the run's message and a link to its report. A `<failure>`'s or
//! `<error>`'s `type` is the run's failure class (`app`, `device`, `infra`; see
//! `argus_protocol::failure`) when it has one, else its status (`unverified`,
//! `timed_out`). When a step failed, the message names it (`step N `text` failed: …`) and the
//! body links the screenshot taken after it (`screenshot: <base>/artifacts/<key>`, served
//! like the report's images). Text is escaped with `quick_xml::escape`.

use quick_xml::escape::escape;

use crate::store::suites::{SuiteJob, SuiteView};

/// Renders the suite; `base_url` prefixes report links.
pub fn render(s: &SuiteView, base_url: &str) -> String {
    let mut cells: Vec<&str> = Vec::new();
    for j in &s.jobs {
        if !cells.contains(&j.cell.as_str()) {
            cells.push(&j.cell);
        }
    }
    let count = |pred: &dyn Fn(&str) -> bool, cell: Option<&str>| {
        s.jobs
            .iter()
            .filter(|j| cell.is_none_or(|c| j.cell == c) && pred(&j.status))
            .count()
    };
    let is_fail = |st: &str| matches!(st, "failed" | "unverified");
    let is_err = |st: &str| matches!(st, "errored" | "timed_out" | "lost");
    let is_skip = |st: &str| st == "cancelled";
    let total_time: f64 = s.jobs.iter().filter_map(|j| j.duration_s).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">\n",
        escape(s.name.as_str()),
        s.jobs.len(),
        count(&is_fail, None),
        count(&is_err, None),
        count(&is_skip, None),
        total_time
    ));
    for cell in cells {
        let jobs: Vec<_> = s.jobs.iter().filter(|j| j.cell == cell).collect();
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">\n",
            escape(cell),
            jobs.len(),
            count(&is_fail, Some(cell)),
            count(&is_err, Some(cell)),
            count(&is_skip, Some(cell)),
            jobs.iter().filter_map(|j| j.duration_s).sum::<f64>()
        ));
        for j in jobs {
            out.push_str(&case(j, cell, base_url));
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// The failure's message: the run's message, after the failing step (1-based number and
/// text) when one failed.
fn message(j: &SuiteJob) -> String {
    let msg = match (j.status.as_str(), &j.verdict_basis, &j.error) {
        ("unverified", Some(basis), _) => basis.clone(),
        ("unverified", None, _) => "unverified: the run had nothing to check".into(),
        (_, _, Some(e)) => e.clone(),
        (status, _, None) => status.to_string(),
    };
    match &j.failing_step {
        Some(f) => format!("step {} `{}` failed: {msg}", f.index + 1, f.text),
        None => msg,
    }
}

/// One `<testcase>` of `cell`: its failure, error or skip, and the links to its report and
/// (when the failing step has one) the screenshot after it.
fn case(j: &SuiteJob, cell: &str, base_url: &str) -> String {
    let run = j.runs.last().map(|r| r.to_string()).unwrap_or_default();
    let link = format!("{base_url}/runs/{run}");
    let mut out = format!(
        "    <testcase name=\"{}\" classname=\"argus.{}\" time=\"{:.3}\">\n",
        escape(j.name.as_str()),
        escape(cell),
        j.duration_s.unwrap_or(0.0)
    );
    let msg = message(j);
    let shot = j
        .failing_step
        .as_ref()
        .and_then(|f| f.after_key.as_ref())
        .map(|k| format!("\nscreenshot: {base_url}/artifacts/{k}"))
        .unwrap_or_default();
    let body = format!("{msg}\nreport: {link}{shot}");
    // who is to blame (`app`, `device`, `infra`) when the run has a failure class
    let kind = j.failure_class.as_deref().unwrap_or(j.status.as_str());
    let tag = match j.status.as_str() {
        "failed" | "unverified" => Some("failure"),
        "errored" | "timed_out" | "lost" => Some("error"),
        _ => None,
    };
    if let Some(tag) = tag {
        out.push_str(&format!(
            "      <{tag} message=\"{}\" type=\"{}\">{}</{tag}>\n",
            escape(msg.as_str()),
            escape(kind),
            escape(body.as_str())
        ));
    } else if j.status == "cancelled" {
        out.push_str(&format!(
            "      <skipped message=\"{}\"/>\n",
            escape(msg.as_str())
        ));
    }
    let flaky = if j.flaky {
        " (flaky: passed on retry)"
    } else {
        ""
    };
    out.push_str(&format!(
        "      <system-out>report: {}{}</system-out>\n    </testcase>\n",
        escape(link.as_str()),
        flaky
    ));
    out
}

#[cfg(test)]
mod tests {
    use argus_protocol::SuiteVerdict;
    use uuid::Uuid;

    use crate::store::suites::{FailingStep, SuiteJob, SuiteView};

    fn job(name: &str, status: &str, basis: Option<&str>) -> SuiteJob {
        SuiteJob {
            job_id: Uuid::new_v4(),
            name: name.into(),
            cell: "web".into(),
            status: status.into(),
            runs: vec![Uuid::new_v4()],
            error: None,
            failure_class: None,
            duration_s: Some(1.5),
            flaky: false,
            device_id: None,
            verdict_basis: basis.map(str::to_string),
            platform: "web".into(),
            failing_step: None,
        }
    }

    /// An unverified case is a `<failure type="unverified">` whose message is the verdict's
    /// basis, and counts among the failures: never a pass.
    #[test]
    fn an_unverified_case_is_a_failure_of_its_own_type() {
        let s = SuiteView {
            suite_id: Uuid::new_v4(),
            name: "nightly".into(),
            team_id: "default".into(),
            created_at: chrono::Utc::now(),
            spec: None,
            verdict: SuiteVerdict::Failed,
            passed: 1,
            failed: 0,
            unverified: 1,
            flaky: 0,
            jobs: vec![
                job("login", "succeeded", Some("1 of 1 expectations held")),
                job("checkout", "unverified", Some("no expectation to check")),
            ],
        };
        let xml = super::render(&s, "http://x");
        assert!(
            xml.contains(r#"<failure message="no expectation to check" type="unverified">"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"tests="2" failures="1" errors="0""#),
            "{xml}"
        );
        let login = &xml[xml.find("name=\"login\"").expect("login")..];
        let login = &login[..login.find("</testcase>").expect("end")];
        assert!(!login.contains("<failure"), "{login}");
    }

    /// A failed or errored case's `type` is its failure class: who is to blame.
    #[test]
    fn a_failure_type_is_its_failure_class() {
        let mut app = job("login", "failed", None);
        app.failure_class = Some("app".into());
        app.error = Some("no element named \"Save\"".into());
        app.failing_step = Some(FailingStep {
            index: 1,
            text: "tap \"Save\"".into(),
            after_key: Some("runs/r/0123456789abcdef0123456789abcdef.jpg".into()),
        });
        let mut dev = job("checkout", "errored", None);
        dev.failure_class = Some("device".into());
        let late = job("search", "timed_out", None);
        let s = SuiteView {
            suite_id: Uuid::new_v4(),
            name: "nightly".into(),
            team_id: "default".into(),
            created_at: chrono::Utc::now(),
            spec: None,
            verdict: SuiteVerdict::Failed,
            passed: 0,
            failed: 3,
            unverified: 0,
            flaky: 0,
            jobs: vec![app, dev, late],
        };
        let xml = super::render(&s, "http://x");
        assert!(
            xml.contains(r#"type="app">step 2 `tap &quot;Save&quot;` failed: no element"#),
            "{xml}"
        );
        assert!(
            xml.contains("screenshot: http://x/artifacts/runs/r/0123456789abcdef0123456789abcdef.jpg</failure>"),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<error message="errored" type="device">"#),
            "{xml}"
        );
        assert!(
            xml.contains(r#"<error message="timed_out" type="timed_out">"#),
            "{xml}"
        );
    }
}
