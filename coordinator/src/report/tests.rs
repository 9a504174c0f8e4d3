//! Pins what a report page promises: where each action landed is drawn over its
//! before-screenshot from the stored geometry (pixel-channel targets marked), the timeline
//! lists every action, a failing run opens on its first failure, and a 200-action report
//! stays under 300 KB with every image linked and lazily loaded.

use argus_protocol::{
    ActionRecord, ActionTimings, Disposition, JobSpec, Mode, ModelUsage, PerceptionNote, Platform,
    ReflectClass, Reflection, RunDetail, RunStatus, StepView, TargetedElement,
};
use chrono::{Duration, Utc};
use uuid::Uuid;

use super::{render_report, ReportOptions};

/// Budget of a 200-action report's HTML, bytes.
const BUDGET: usize = 300 * 1024;

/// A realistic `llm` action: a model call, a tree target, perception and reflection notes.
fn action(run: Uuid, step: u32, n: u32, ok: bool) -> ActionRecord {
    let t0 = Utc::now();
    let mut a = ActionRecord::new(
        step,
        n,
        "tap",
        format!("tap button \"Add item number {n}\""),
        ok,
        (!ok).then(|| "the screen does not contain \"Saved\"; it shows: \"todos …\"".into()),
        Disposition::DeliveredUnverified,
        t0,
    );
    a.finished_at = t0 + Duration::milliseconds(640);
    a.target = Some(TargetedElement {
        id: format!("e{}", n % 40),
        role: "button".into(),
        name: format!("Add item number {n}"),
        bbox_px: [412.0, 96.0 + (n % 20) as f64 * 31.0, 180.0, 28.0],
        source: Some(if n % 10 == 3 { "ocr" } else { "tree" }.into()),
        confidence: (n % 10 == 3).then_some(0.91),
    });
    a.point_px = Some([502.0, 110.0 + (n % 20) as f64 * 31.0]);
    a.screen_px = Some([1280, 800]);
    a.before_key = Some(format!("runs/{run}/{step}-{n}-before.png"));
    a.after_key = Some(format!("runs/{run}/{step}-{n}-after.png"));
    a.timings = ActionTimings {
        perceive_ms: 41.0,
        act_ms: 233.0,
        screenshot_ms: 55.0,
        upload_ms: 12.0,
    };
    a.observation = Some(n as u64 * 2 + 1);
    a.call = Some(format!(
        r#"{{"name":"tap","arguments":{{"element":"e{}","observation":{}}}}}"#,
        n % 40,
        n * 2 + 1
    ));
    a.usage = Some(ModelUsage {
        calls: 1,
        prompt_tokens: 1830,
        completion_tokens: 41,
        latency_ms: 912.0,
        cached_tokens: 1500,
    });
    a.reflection = Some(Reflection {
        class: ReflectClass::A,
        note: "3 elements changed".into(),
    });
    a.perception = Some(PerceptionNote {
        channel: "tree".into(),
        reason: "tree: 64 elements, 58 named; pixel channel off (tree is strong)".into(),
        ..Default::default()
    });
    a
}

/// An `llm` run of `n` actions in one step (how the agent loop records them), the last one
/// failed when `fail`.
fn llm_run(n: u32, fail: bool) -> RunDetail {
    let mut spec = JobSpec::script(
        Platform::Web,
        Some("https://todomvc.example/".into()),
        "add items until the list is full".into(),
    );
    spec.mode = Mode::Llm;
    let now = Utc::now();
    let mut d = RunDetail::new(Uuid::new_v4(), Uuid::new_v4(), spec, now);
    d.status = if fail {
        RunStatus::Failed
    } else {
        RunStatus::Succeeded
    };
    d.screen_px = Some([1280, 800]);
    d.started_at = Some(now);
    d.finished_at = Some(now + Duration::seconds(300));
    let open = action(d.run_id, 0, 0, true);
    let mut plan = ActionRecord::new(
        1,
        0,
        "plan",
        "planned 3 steps".into(),
        true,
        None,
        Disposition::NotDelivered,
        now,
    );
    plan.plan = Some(vec!["add items".into(), "check the count".into()]);
    plan.usage = open.usage;
    let mut actions = vec![plan];
    actions.extend((1..n).map(|k| action(d.run_id, 1, k, !(fail && k == n - 1))));
    d.steps = vec![
        StepView {
            index: 0,
            text: "open https://todomvc.example/".into(),
            ok: Some(true),
            error: None,
            duration_ms: Some(800.0),
            actions: vec![open],
        },
        StepView {
            index: 1,
            text: "llm: add items until the list is full".into(),
            ok: Some(!fail),
            error: fail.then(|| "the screen does not contain \"Saved\"".into()),
            duration_ms: Some(299_000.0),
            actions,
        },
    ];
    d
}

fn coordinator() -> ReportOptions<'static> {
    ReportOptions {
        img_base: "/artifacts/",
        dashboard_link: true,
        csrf: "c",
        previous: Some(Uuid::nil()),
        replay: None,
        has_steps: false,
    }
}

#[test]
fn a_200_action_report_stays_under_300_kb_with_lazy_images_by_reference() {
    let run = llm_run(200, true);
    assert_eq!(run.action_count(), 201, "200 actions and the plan");
    let html = render_report(&run, &coordinator()).unwrap();
    if let Ok(p) = std::env::var("ARGUS_REPORT_DUMP") {
        let _ = std::fs::write(p, &html);
    }
    println!(
        "200-action report: {} bytes ({:.1} KB, {:.0} bytes per action)",
        html.len(),
        html.len() as f64 / 1024.0,
        html.len() as f64 / 200.0
    );
    assert!(html.len() <= BUDGET, "{} bytes > {BUDGET}", html.len());
    // Two screenshots per acting action, all linked and lazy; nothing inlined.
    assert_eq!(html.matches("<img ").count(), 400);
    assert_eq!(html.matches("loading=\"lazy\"").count(), 400);
    assert!(!html.contains("data:image"));
    // One overlay per before-screenshot, one chip per action.
    assert_eq!(html.matches("<svg class=\"ov\"").count(), 200);
    assert_eq!(html.matches("<a class=\"c ").count(), 201);
}

#[test]
fn overlays_draw_the_stored_geometry_and_mark_pixel_elements() {
    let run = llm_run(5, false);
    let html = render_report(&run, &coordinator()).unwrap();
    // Action 1: tree target at (412, 127) 180×28 px, tapped at its point, on a 1280×800 screen.
    assert!(html.contains(
        r#"<svg class="ov" viewBox="0 0 1280 800" preserveAspectRatio="none"><rect class="t tree" x="412" y="127" width="180" height="28"/><circle class="p" cx="502" cy="141" r="11"/></svg>"#
    ), "{html}");
    // Action 3 was read by OCR: a marked box and its label.
    assert!(html.contains(r#"<rect class="t ocr" x="412" y="189""#));
    assert!(html.contains(r#"<span class="src ocr" style="left:32.2%;top:"#));
    assert!(html.contains(">OCR 0.91</span>"));
    // Model exchanges and the plan are folded.
    assert!(html.contains(
        r#"<details class="x"><summary>model exchange · <span class="tokens">prompt 1830"#
    ));
    assert!(html.contains(r#"<details class="plan" id="plan-1">"#));
    assert!(html.contains(
        r#"id="compare-previous" href="/runs/00000000-0000-0000-0000-000000000000/compare/"#
    ));
    // A succeeded run has no first failure and every step open.
    assert!(!html.contains("id=\"first-failure\""));
    assert_eq!(html.matches("\" open>").count(), 2);
}

#[test]
fn a_swipe_draws_an_arrow() {
    let mut run = llm_run(2, false);
    let a = &mut run.steps[1].actions[1];
    a.kind = "swipe".into();
    a.target = None;
    a.point_px = None;
    a.swipe_px = Some([640.0, 560.0, 640.0, 240.0]);
    let html = render_report(&run, &coordinator()).unwrap();
    assert!(html.contains(r#"<line class="s" x1="640" y1="560" x2="640" y2="240"/>"#));
    assert!(html.contains(r#"<polygon class="s" points="640,240 "#));
}

#[test]
fn a_failing_run_opens_on_its_first_failure() {
    let run = llm_run(6, true);
    let html = render_report(&run, &coordinator()).unwrap();
    // The passed step is folded, the failed one open, its failed action marked and scrolled to.
    assert!(html.contains(r#"<details class="step ok" id="step-0">"#));
    assert!(html.contains(r#"<details class="step fail" id="step-1" open>"#));
    let marked = html.find(r#"<span id="first-failure">"#).unwrap();
    let failed = html.find(r#"id="a-1-5""#).unwrap();
    assert!(
        failed < marked && marked - failed < 80,
        "marked on action 5"
    );
    assert!(html.contains(r##"<a href="#first-failure">"##));
    assert!(html.contains("scrollIntoView"));
    // The timeline's chip of the failed action is marked failed and links to it.
    assert!(html.contains(r##"<a class="c fail by-model" href="#a-1-5""##));
}

#[test]
fn an_exported_report_links_images_beside_it_and_nothing_of_the_dashboard() {
    let run = llm_run(3, false);
    let html = render_report(&run, &ReportOptions::default()).unwrap();
    assert!(html.contains(&format!("src=\"runs/{}/1-1-before.png\"", run.run_id)));
    assert!(!html.contains("compare-previous"));
    assert!(!html.contains("/api/v1/runs/"));
}

#[test]
fn a_live_report_keeps_its_refresh_script_intact() {
    let mut run = llm_run(2, false);
    run.status = RunStatus::Running;
    let html = render_report(&run, &coordinator()).unwrap();
    // Minimized whitespace must not join the script's comment lines with its code.
    assert!(html.contains("the page reloads.\n(function () {"), "{html}");
    assert!(html.contains("new EventSource(location.pathname + \"/live\")"));
    // The live screen: its own stream, its script intact too.
    assert!(html.contains(&format!("data-src=\"/runs/{}/screen\"", run.run_id)));
    assert!(html.contains("any frame size.\n(function () {"), "{html}");
    // An ended run has no live screen (the page's refresh reloads when it is gone).
    run.status = RunStatus::Succeeded;
    let html = render_report(&run, &coordinator()).unwrap();
    assert!(!html.contains("live-screen"));
}
