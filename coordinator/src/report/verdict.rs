//! The report's verdict block and expectations list: what decided a run's status (the
//! verdict's basis, the deciding expectation, where it was checked and on which
//! observation) and, apart from it, the model's claim of completion — a claim, never the
//! evidence. The expectations are listed above the steps as soon as the worker reports
//! them, before the first action; [`live_key`] changes when they arrive, so a live page
//! reloads to show them.

use argus_protocol::{RunDetail, RunStatus};

/// Where the deciding check ran, for the verdict block: the anchor of its action
/// (`a-<step>-<action>`) or step (`step-<step>`) when the report has it, and a label
/// (`step 3, action 2`). `None` when the verdict names no step.
pub fn checked_at(run: &RunDetail) -> Option<(Option<String>, String)> {
    let v = run.verdict.as_ref()?;
    let step = v.step?;
    let shown = run.steps.iter().find(|s| s.index == step);
    Some(match v.action {
        Some(action) => {
            let has = shown.is_some_and(|s| s.actions.iter().any(|a| a.action == action));
            (
                has.then(|| format!("a-{step}-{action}")),
                format!("step {}, action {action}", step + 1),
            )
        }
        None => (
            shown.map(|_| format!("step-{step}")),
            format!("step {}", step + 1),
        ),
    })
}

/// The line a run's verdict block opens with when the worker sent no verdict: an
/// `unverified` run still says why it is not a pass; other runs show no block.
pub fn fallback_basis(run: &RunDetail) -> Option<&'static str> {
    (run.verdict.is_none() && run.status == RunStatus::Unverified)
        .then_some("nothing was checked: the run had no expectation to verify, so it is not a pass")
}

/// What the live page compares with the server's SSE feed: status, actions reported and
/// expectations reported (`succeeded:12:2`). Any change reloads the page.
pub fn live_key(run: &RunDetail) -> String {
    live_key_of(run.status, run.action_count(), run.expectations.len())
}

/// [`live_key`] from its three parts (what the live feed reads without loading the run).
pub fn live_key_of(status: RunStatus, actions: usize, expectations: usize) -> String {
    format!("{}:{actions}:{expectations}", status.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_protocol::expect::{Expectation, ExpectationSource, Verdict};
    use argus_protocol::{ActionRecord, Disposition, JobSpec, Platform, StepView};
    use chrono::Utc;
    use uuid::Uuid;

    use crate::report::{render_report, ReportOptions};

    fn run(status: RunStatus, verdict: Option<Verdict>) -> RunDetail {
        let spec = JobSpec::script(Platform::Web, None, "add a todo".into());
        let mut d = RunDetail::new(Uuid::new_v4(), Uuid::new_v4(), spec, Utc::now());
        d.status = status;
        d.verdict = verdict;
        d.expectations = vec![Expectation {
            line: "assert screen contains \"1 item left\"".into(),
            source: ExpectationSource::Instruction,
            clause: Some("confirm the counter reads 1 item left".into()),
        }];
        d.steps = vec![StepView {
            index: 0,
            text: "assert screen contains \"1 item left\"".into(),
            ok: Some(false),
            error: None,
            duration_ms: Some(3.0),
            actions: vec![ActionRecord::new(
                0,
                0,
                "assert",
                "assert screen contains \"1 item left\"".into(),
                false,
                None,
                Disposition::NotDelivered,
                Utc::now(),
            )],
        }];
        d
    }

    fn failed_verdict() -> Verdict {
        Verdict {
            basis: "expectation did not hold on observation 9".into(),
            expectation: Some("assert screen contains \"1 item left\"".into()),
            step: Some(0),
            action: Some(0),
            observation: Some(9),
            claim: Some("I completed the todo".into()),
        }
    }

    #[test]
    fn the_verdict_block_names_its_basis_place_observation_and_the_claim_as_a_claim() {
        let d = run(RunStatus::Failed, Some(failed_verdict()));
        assert_eq!(
            checked_at(&d),
            Some((Some("a-0-0".into()), "step 1, action 0".into()))
        );
        let html = render_report(&d, &ReportOptions::default()).expect("render");
        let block = &html[html.find("id=\"verdict\"").expect("verdict block")..];
        let steps_at = html.find("id=\"step-0\"").expect("steps");
        assert!(html.find("id=\"verdict\"").expect("block") < steps_at);
        assert!(block.contains("expectation did not hold on observation 9"));
        assert!(block.contains("href=\"#a-0-0\""), "{block}");
        assert!(block.contains("observation 9"));
        let claim = &block[block.find("id=\"verdict-claim\"").expect("claim")..];
        assert!(claim.contains("claim"), "{claim}");
        assert!(claim.contains("I completed the todo"));
        // the expectations are listed above the steps, with their clause
        let exp = html.find("id=\"expectations\"").expect("expectations");
        assert!(exp < steps_at);
        assert!(html[exp..].contains("confirm the counter reads 1 item left"));
    }

    #[test]
    fn an_unverified_run_has_its_own_status_and_says_it_is_no_pass() {
        let mut d = run(RunStatus::Unverified, None);
        d.steps.clear();
        let html = render_report(&d, &ReportOptions::default()).expect("render");
        assert!(html.contains("class=\"badge unverified\""), "status badge");
        assert!(html.contains("class=\"verdict unverified\""));
        assert!(html.contains("not a pass"));
        assert_eq!(checked_at(&d), None);
    }

    #[test]
    fn expectations_reported_before_any_action_show_and_change_the_live_key() {
        let mut d = run(RunStatus::Running, None);
        d.steps.clear();
        let before = {
            let mut e = d.clone();
            e.expectations.clear();
            live_key(&e)
        };
        assert_ne!(before, live_key(&d));
        let html = render_report(&d, &ReportOptions::default()).expect("render");
        assert!(html.contains("id=\"expectations\""));
        assert!(!html.contains("id=\"verdict\""), "no verdict while running");
    }

    #[test]
    fn the_download_link_shows_only_when_the_run_has_a_step_file() {
        let d = run(RunStatus::Succeeded, None);
        let html = render_report(&d, &ReportOptions::default()).expect("render");
        assert!(!html.contains("id=\"download-steps\""));
        assert!(!html.contains("id=\"download-steps-zh\""));
        let opts = ReportOptions {
            dashboard_link: true,
            has_steps: true,
            ..Default::default()
        };
        let html = render_report(&d, &opts).expect("render");
        let at = html.find("id=\"download-steps\"").expect("link");
        let link = &html[html[..at].rfind('<').expect("tag")..];
        assert!(
            link.contains(&format!("/api/v1/runs/{}/steps\"", d.run_id)),
            "{link}"
        );
        let at = html
            .find("id=\"download-steps-zh\"")
            .expect("the Chinese link");
        let link = &html[html[..at].rfind('<').expect("tag")..];
        assert!(
            link.contains(&format!("/api/v1/runs/{}/steps?lang=zh\"", d.run_id)),
            "{link}"
        );
        assert!(link.contains("(中文)</a>"), "{link}");
    }
}
