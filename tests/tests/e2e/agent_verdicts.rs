//! Pins how a natural-language run earns its verdict, against the scripted chat-completions
//! stub (`argus_tests::chat_stub`: the real wire format, fixed answers — not a model; it
//! misbehaves on purpose) and a scripted device whose input log is the independent record:
//! a model that claims done with nothing to check → `unverified`; an expectation that does
//! not hold → `failed` naming it; a plan that taps "Confirm" for a "confirm …" clause and,
//! after a re-plan, types two todos already on the list again → the tap is never sent, the
//! repeats are skipped, and the clause decides the verdict on the final screen.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use argus_perception::{Rect, Role};
use argus_protocol::{
    ExpectationSource, JobSpec, Key, Mode, ModelOverride, Platform, RunDetail, RunStatus,
};
use argus_tests::chat_stub::{plan, ChatStub, Reply};
use argus_tests::scripted_device::{run_scripted, Item, ScriptedDevice, Sent};
use serde_json::json;

fn job(text: &str, stub: &ChatStub) -> JobSpec {
    let mut s = JobSpec::script(Platform::Android, None, text.into());
    s.mode = Mode::Llm;
    s.cache = Some(argus_protocol::Cache::Off);
    s.model = Some(ModelOverride {
        base_url: Some(stub.base_url.clone()),
        model: Some("stub".into()),
        ..Default::default()
    });
    s
}

/// A form: typing fills Name; Save shows "Saved 1" once Name is filled, else "Name is
/// required" (a tap on a button must show an effect to be ok: `argus_worker::effect`).
fn form() -> ScriptedDevice {
    let items = vec![
        Item::new(Role::Textfield, "Name", Rect::new(40.0, 100.0, 400.0, 60.0)),
        Item::new(Role::Button, "Save", Rect::new(40.0, 200.0, 200.0, 60.0)),
        Item::new(Role::Text, "Saved 0", Rect::new(40.0, 300.0, 200.0, 40.0)),
    ];
    ScriptedDevice::new((600, 800), items, |items, sent| {
        if let Sent::Type { name, text } = sent {
            if let Some(i) = items.iter_mut().find(|i| &i.name == name) {
                i.value = Some(text.clone());
            }
        }
        if matches!(sent, Sent::Tap { name, .. } if name == "Save") {
            items[2].name = if items[0].value.is_some() {
                "Saved 1".into()
            } else {
                "Name is required".into()
            };
        }
    })
}

/// Runs `text` as an `llm` job on [`form`] against a stub scripted with `replies`; returns
/// the run, the stub (its requests) and the device (its input log).
async fn on_form(text: &str, replies: Vec<Reply>) -> (RunDetail, ChatStub, ScriptedDevice) {
    let stub = ChatStub::start(replies).await;
    let mut dev = form();
    let d = run_scripted(job(text, &stub), &mut dev, Arc::new(AtomicBool::new(false))).await;
    (d, stub, dev)
}

fn sent(dev: &ScriptedDevice) -> Vec<Sent> {
    dev.log.lock().expect("log").sent.clone()
}

#[tokio::test]
async fn a_model_that_claims_done_with_no_evidence_is_unverified() {
    let (d, _stub, dev) = on_form("save the form", vec![plan(&["tap \"Save\""])]).await;
    assert_eq!(d.status, RunStatus::Unverified, "{:?}", d.error);
    let v = d.verdict.expect("a verdict");
    assert!(v.basis.contains("no expectation"), "{}", v.basis);
    assert!(d.expectations.is_empty());
    // The tap itself went through: unverified is about evidence, not about the actions.
    assert!(sent(&dev)
        .iter()
        .any(|s| matches!(s, Sent::Tap { name, .. } if name == "Save")));
}

#[tokio::test]
async fn the_judge_fails_an_unverified_run_it_finds_not_done_and_never_passes_one() {
    // The model taps Save with Name empty ("Name is required"); the judge says not done.
    let (d, stub, _dev) = on_form(
        "save the form",
        vec![
            plan(&["tap \"Save\""]),
            Reply::Judge {
                done: false,
                reason: "the screen says Name is required",
                evidence: "Name is required",
            },
        ],
    )
    .await;
    assert_eq!(d.status, RunStatus::Failed, "{:?}", d.error);
    let v = d.verdict.expect("a verdict");
    assert!(
        v.basis.starts_with("the judge found the job not done"),
        "{}",
        v.basis
    );
    assert!(
        v.basis
            .contains("evidence on the screen: \"Name is required\""),
        "{}",
        v.basis
    );
    // The judge's call was asked with the final screen and the action log, and is a
    // recorded step of the run.
    let judge = stub
        .requests()
        .into_iter()
        .find(argus_tests::chat_stub::is_judge)
        .expect("a judge call");
    let asked = judge["messages"].to_string();
    assert!(asked.contains("Name is required"), "{asked}");
    assert!(asked.contains("button \\\"Save\\\""), "{asked}");
    assert!(!asked.contains("1 steps"), "the plan is no action: {asked}");
    assert!(d.steps.iter().any(|s| s.text == "judge"));

    // A judge that says done leaves the run unverified: its word is recorded as a claim.
    let (d, _stub, _dev) = on_form(
        "save the form",
        vec![
            plan(&["tap \"Save\""]),
            Reply::Judge {
                done: true,
                reason: "Save was tapped",
                evidence: "",
            },
        ],
    )
    .await;
    assert_eq!(d.status, RunStatus::Unverified, "{:?}", d.error);
    let claim = d.verdict.expect("a verdict").claim.unwrap_or_default();
    assert!(
        claim.contains("the judge said done: Save was tapped"),
        "{claim}"
    );

    // A "not done" whose evidence is not on the final screen is recorded and ignored.
    let (d, _stub, _dev) = on_form(
        "save the form",
        vec![
            plan(&["tap \"Save\""]),
            Reply::Judge {
                done: false,
                reason: "the password is wrong",
                evidence: "Password mismatch",
            },
        ],
    )
    .await;
    assert_eq!(d.status, RunStatus::Unverified, "{:?}", d.error);
    let judged = d
        .steps
        .iter()
        .find(|s| s.text == "judge")
        .and_then(|s| s.actions.first())
        .map(|a| a.detail.clone())
        .unwrap_or_default();
    assert!(
        judged.contains("is no new text of the final screen: ignored"),
        "{judged}"
    );
}

#[tokio::test]
async fn a_stuck_run_whose_expectations_hold_stops_instead_of_replanning() {
    // The plan saves, then names a control that is not there; the model's two taps on the
    // status text change nothing and the step is stuck — but the expectation already holds,
    // so the run stops and succeeds instead of re-planning (no third model call).
    let (d, stub, _dev) = on_form(
        "Fill in Ada and save, then make sure \"Saved 1\" is shown",
        vec![
            plan(&["type 'Ada' into \"Name\"", "tap \"Save\"", "tap \"Sort\""]),
            Reply::Call(
                "tap",
                json!({"element": "{{id:Saved 1}}", "observation": "{{obs}}"}),
            ),
            Reply::Call(
                "tap",
                json!({"element": "{{id:Saved 1}}", "observation": "{{obs}}"}),
            ),
        ],
    )
    .await;
    assert_eq!(d.status, RunStatus::Succeeded, "{:?}", d.error);
    assert_eq!(stub.remaining(), 0);
    assert_eq!(
        stub.requests_except_checks().len(),
        3,
        "plan and two taps, no re-plan"
    );
    assert!(d.steps.iter().any(|s| s
        .text
        .starts_with("stopped early: a step got stuck and every expectation already holds")));

    // A typing left in the plan keeps the run going (a text still to type is the job's):
    // the stuck step re-plans.
    let (d, _stub, dev) = on_form(
        "Save Ada, then make sure \"Name\" is shown",
        vec![
            plan(&["tap \"Sort\"", "type 'Ada' into \"Name\"", "tap \"Save\""]),
            Reply::Call(
                "tap",
                json!({"element": "{{id:Saved 0}}", "observation": "{{obs}}"}),
            ),
            Reply::Call(
                "tap",
                json!({"element": "{{id:Saved 0}}", "observation": "{{obs}}"}),
            ),
            plan(&["type 'Ada' into \"Name\"", "tap \"Save\""]),
        ],
    )
    .await;
    assert_eq!(d.status, RunStatus::Succeeded, "{:?}", d.error);
    assert_eq!(d.plans().len(), 2, "re-planned");
    assert!(sent(&dev)
        .iter()
        .any(|s| matches!(s, Sent::Type { text, .. } if text == "Ada")));
}

#[tokio::test]
async fn a_run_that_never_presses_the_control_its_instruction_names_fails() {
    // The plan types and drops the press; the clause's check holds on the typed value.
    let (d, _stub, _dev) = on_form(
        "Fill in Ada. Before pressing Save, make sure \"Ada\" is shown.",
        vec![plan(&["type 'Ada' into \"Name\""])],
    )
    .await;
    assert_eq!(d.status, RunStatus::Failed, "{:?}", d.error);
    let basis = d.verdict.expect("a verdict").basis;
    assert!(
        basis.starts_with("the instruction says to press \"Save\" and the run never did"),
        "{basis}"
    );
    // The same job whose plan presses it succeeds.
    let (d, _stub, _dev) = on_form(
        "Fill in Ada. Before pressing Save, make sure \"Ada\" is shown.",
        vec![plan(&["type 'Ada' into \"Name\"", "tap \"Save\""])],
    )
    .await;
    assert_eq!(d.status, RunStatus::Succeeded, "{:?}", d.error);
}

#[tokio::test]
async fn a_typed_plan_runs_as_step_language_lines() {
    // The planner answers typed steps (kind + target + text); Argus writes each as a
    // step-language line and runs it without a model call. The `expect` it gives for a
    // clause whose words say nothing checkable is an expectation, checked at the end.
    let (d, stub, dev) = on_form(
        "Fill in Ada and save, then confirm it went through",
        vec![Reply::Content(
            json!({"steps": [
            {"do": "type", "target": "Name", "text": "Ada"},
            {"do": "tap", "target": "Save", "text": ""}
        ], "expect": [{"do": "assert_shows", "target": "", "text": "Saved 1"}]})
            .to_string(),
        )],
    )
    .await;
    assert_eq!(d.status, RunStatus::Succeeded, "{:?}", d.error);
    assert_eq!(stub.requests().len(), 1, "only the planner was asked");
    assert!(matches!(sent(&dev).as_slice(),
        [Sent::Type { name, text }, Sent::Tap { .. }] if name == "Name" && text == "Ada"));
    assert_eq!(d.expectations.len(), 1);
    assert_eq!(d.expectations[0].line, "assert screen contains \"Saved 1\"");
    // The plan the report shows is in the step language.
    assert_eq!(
        d.plans()[0].plan.clone().unwrap_or_default(),
        vec!["type \"Ada\" into \"Name\"", "tap \"Save\""]
    );
    let schema = stub.requests()[0]["response_format"]["json_schema"]["schema"].clone();
    let kinds = schema
        .pointer("/properties/steps/items/properties/do/enum")
        .cloned();
    assert!(kinds.is_some_and(|k| k.as_array().is_some_and(|a| a.contains(&json!("check")))));
}

#[tokio::test]
async fn a_failed_expectation_fails_the_run_naming_it() {
    let (d, _stub, dev) = on_form(
        "Fill in Ada and save, then make sure \"Saved 2\" is shown",
        vec![plan(&["type 'Ada' into \"Name\"", "tap \"Save\""])],
    )
    .await;
    assert_eq!(d.status, RunStatus::Failed, "{:?}", d.error);
    let line = "assert screen contains \"Saved 2\"";
    assert!(
        d.error.as_deref().unwrap_or_default().contains(line),
        "{:?}",
        d.error
    );
    assert_eq!(d.expectations.len(), 1);
    assert_eq!(d.expectations[0].line, line);
    assert_eq!(d.expectations[0].source, ExpectationSource::Instruction);
    let v = d.verdict.expect("a verdict");
    assert_eq!(v.expectation.as_deref(), Some(line));
    // The check that decided is a recorded step of the run, on a real observation.
    let step = v.step.expect("the deciding step") as usize;
    let rec = &d.steps[step].actions[0];
    assert!(!rec.ok);
    assert_eq!(rec.observation, v.observation);
    // Both actions were sent: the app, not Argus, fell short of the expectation.
    assert_eq!(sent(&dev).len(), 2);

    // The same job with a job-level expectation that holds (and no clause) succeeds on it.
    let stub = ChatStub::start(vec![plan(&["type 'Ada' into \"Name\"", "tap \"Save\""])]).await;
    let mut dev = form();
    let mut spec = job("Fill in Ada and save", &stub);
    spec.expectations = vec!["assert screen contains \"Saved 1\"".into()];
    let d = run_scripted(spec, &mut dev, Arc::new(AtomicBool::new(false))).await;
    assert_eq!(d.status, RunStatus::Succeeded, "{:?}", d.error);
    assert_eq!(d.expectations[0].source, ExpectationSource::Job);
    assert!(d.verdict.expect("verdict").basis.contains("1 of 1"));
}

/// A todo list: typing fills the field, Enter adds the typed todo to the list and updates
/// the counter; nothing else has an effect.
///
/// It also has a Search field: with two text fields Argus cannot tell which one takes a new
/// todo, so it reads no step from the instruction itself (`agent::clause_plan`) and the plan
/// is the model's, which is what this test is about.
fn todos() -> ScriptedDevice {
    todos_device(true)
}

/// [`todos`], with or without its Search field.
fn todos_device(search: bool) -> ScriptedDevice {
    let mut items = vec![
        Item::new(
            Role::Textfield,
            "What needs to be done?",
            Rect::new(40.0, 40.0, 500.0, 60.0),
        ),
        Item::new(
            Role::Text,
            "0 items left",
            Rect::new(40.0, 700.0, 200.0, 40.0),
        ),
    ];
    if search {
        items.push(Item::new(
            Role::Textfield,
            "Search",
            Rect::new(40.0, 750.0, 300.0, 40.0),
        ));
    }
    let fixed = items.len();
    ScriptedDevice::new((600, 800), items, move |items, sent| match sent {
        Sent::Type { name, text } => {
            if let Some(i) = items.iter_mut().find(|i| &i.name == name) {
                i.value = Some(text.clone());
            }
        }
        Sent::Key(Key::Enter) => {
            let Some(text) = items[0].value.take() else {
                return;
            };
            let n = items.len() + 1 - fixed;
            let y = 120.0 + 70.0 * n as f64;
            items.push(Item::new(
                Role::Text,
                &text,
                Rect::new(40.0, y, 500.0, 60.0),
            ));
            items[1].name = format!("{n} item{} left", if n == 1 { "" } else { "s" });
        }
        _ => {}
    })
}

#[tokio::test]
async fn a_confirm_tap_becomes_a_check_and_repeated_todos_are_skipped() {
    let add = [
        "type 'buy milk' into \"What needs to be done?\"",
        "press Enter",
        "type 'walk dog' into \"What needs to be done?\"",
        "press Enter",
    ];
    // The first plan adds one todo and names a control that is not there (the model takes
    // the step over); the counter then reads 1, so the clause does not hold yet.
    let mut first: Vec<&str> = add[..2].to_vec();
    first.push("tap \"Sort\"");
    let mut again: Vec<&str> = add.to_vec();
    again.push("tap \"Confirm\"");
    let stub = ChatStub::start(vec![
        plan(&first),
        // Two taps that change nothing: the step escalates to a re-plan.
        Reply::Call(
            "tap",
            json!({"element": "{{id:1 item left}}", "observation": "{{obs}}"}),
        ),
        Reply::Call(
            "tap",
            json!({"element": "{{id:1 item left}}", "observation": "{{obs}}"}),
        ),
        // The re-plan types both todos again and taps "Confirm" for the clause.
        plan(&again),
    ])
    .await;
    let mut dev = todos();
    let mut spec = job(
        "Add 'buy milk' and 'walk dog', then confirm the counter reads 2 items left",
        &stub,
    );
    spec.auto_wait_ms = Some(500);
    let d = run_scripted(spec, &mut dev, Arc::new(AtomicBool::new(false))).await;
    assert_eq!(d.status, RunStatus::Succeeded, "{:?}", d.error);
    let log = sent(&dev);
    let typed: Vec<&String> = log
        .iter()
        .filter_map(|s| match s {
            Sent::Type { text, .. } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(typed, ["buy milk", "walk dog"], "{log:?}");
    assert!(
        !log.iter()
            .any(|s| matches!(s, Sent::Tap { name, .. } if name == "Confirm")),
        "{log:?}"
    );
    // The clause, then the two todos the instruction adds (effects: guards, not evidence).
    let lines: Vec<(&str, ExpectationSource)> = d
        .expectations
        .iter()
        .map(|e| (e.line.as_str(), e.source))
        .collect();
    assert_eq!(
        lines,
        [
            (
                "assert screen contains \"2 items left\"",
                ExpectationSource::Instruction
            ),
            (
                "assert screen contains \"buy milk\"",
                ExpectationSource::Effect
            ),
            (
                "assert screen contains \"walk dog\"",
                ExpectationSource::Effect
            ),
        ]
    );
    let v = d.verdict.clone().expect("a verdict");
    assert!(v.basis.contains("3 of 3"), "{}", v.basis);
    // The re-plan says what it skipped and dropped.
    let replan = d
        .plans()
        .last()
        .map(|p| p.detail.clone())
        .unwrap_or_default();
    assert!(replan.contains("skipped"), "{replan}");
    assert!(replan.contains("dropped"), "{replan}");
}

#[tokio::test]
async fn an_instruction_argus_can_read_is_planned_without_the_model() {
    // One text field: every clause reads (two adds, a check), so the model is never asked
    // for a plan; the stub's plan (both todos typed twice, a tap on "Confirm") stays unused.
    let stub = ChatStub::start(vec![plan(&[
        "type 'buy milk' into \"What needs to be done?\"",
        "type 'buy milk' into \"What needs to be done?\"",
        "tap \"Confirm\"",
    ])])
    .await;
    let mut dev = todos_device(false);
    let spec = job(
        "Add 'buy milk' and 'walk dog', then confirm the counter reads 2 items left",
        &stub,
    );
    let d = run_scripted(spec, &mut dev, Arc::new(AtomicBool::new(false))).await;
    assert_eq!(d.status, RunStatus::Succeeded, "{:?}", d.error);
    assert!(stub.requests().is_empty(), "the model was asked");
    let log = sent(&dev);
    assert_eq!(
        log,
        [
            Sent::Type {
                name: "What needs to be done?".into(),
                text: "buy milk".into()
            },
            Sent::Key(Key::Enter),
            Sent::Type {
                name: "What needs to be done?".into(),
                text: "walk dog".into()
            },
            Sent::Key(Key::Enter),
        ]
    );
    let plan = d
        .plans()
        .first()
        .map(|p| p.detail.clone())
        .unwrap_or_default();
    assert!(
        plan.contains("read from the instruction's clauses"),
        "{plan}"
    );
}

#[tokio::test]
async fn a_made_up_check_step_caps_the_verdict_and_fails_only_a_midway_check() {
    // The planner adds a check the instruction never asked for, and it does not hold
    // (Name holds "Ada"): the run does not fail on it, but it cannot pass either — the
    // expectation held, the failed check caps the verdict at `unverified` and is named.
    let (d, _stub, _dev) = on_form(
        "Fill in Ada and save, then make sure \"Saved 1\" is shown",
        vec![plan(&[
            "type 'Ada' into \"Name\"",
            "tap \"Save\"",
            "assert \"Name\" has value \"Bob\"",
        ])],
    )
    .await;
    assert_eq!(d.status, RunStatus::Unverified, "{:?}", d.error);
    let basis = d.verdict.clone().map(|v| v.basis).unwrap_or_default();
    assert!(
        basis.contains("a check step the planner added did not hold")
            && basis.contains("1 of 1 expectation(s) held"),
        "{basis}"
    );
    let failed_check = d
        .steps
        .iter()
        .flat_map(|s| s.actions.iter())
        .any(|a| a.kind == "assert_value" && !a.ok);
    assert!(failed_check, "the made-up check is recorded as not held");

    // Where the instruction puts a check before a later step, a failing check step fails
    // the run there.
    let (d, _stub, dev) = on_form(
        "Fill in Ada, check that the Name box says Bob, then save",
        vec![plan(&[
            "type 'Ada' into \"Name\"",
            "assert \"Name\" has value \"Bob\"",
            "tap \"Save\"",
        ])],
    )
    .await;
    assert_eq!(d.status, RunStatus::Failed, "{:?}", d.error);
    assert!(
        !sent(&dev)
            .iter()
            .any(|s| matches!(s, Sent::Tap { name, .. } if name == "Save")),
        "nothing after the failed midway check"
    );
}

#[tokio::test]
async fn a_free_step_the_model_cannot_carry_out_is_skipped_and_the_read_steps_still_run() {
    // The reader reads both adds and the check; the clause between them is left to the model
    // (the stub's clause-map answers are unusable). Its two taps on the counter change
    // nothing, so the step is stuck: it is skipped, not re-planned, the second add is still
    // typed, and the run cannot pass (`unverified`, naming the skipped step).
    let bad = || Reply::Content("{\"nothing\": true}".into());
    let stub = ChatStub::start(vec![
        bad(),
        bad(),
        bad(),
        Reply::Call(
            "tap",
            json!({"element": "{{id:1 item left}}", "observation": "{{obs}}"}),
        ),
        Reply::Call(
            "tap",
            json!({"element": "{{id:1 item left}}", "observation": "{{obs}}"}),
        ),
    ])
    .await;
    let mut dev = todos_device(false);
    let spec = job(
        "Add 'buy milk', then scroll to the very bottom of the page, then add 'walk dog'. Confirm the counter reads 2 items left.",
        &stub,
    );
    let d = run_scripted(spec, &mut dev, Arc::new(AtomicBool::new(false))).await;
    assert_eq!(d.status, RunStatus::Unverified, "{:?}", d.error);
    let why = d.error.clone().unwrap_or_default();
    assert!(why.contains("was skipped"), "{why}");
    assert_eq!(d.plans().len(), 1, "no re-plan");
    assert!(sent(&dev)
        .iter()
        .any(|s| matches!(s, Sent::Type { text, .. } if text == "walk dog")));
}
