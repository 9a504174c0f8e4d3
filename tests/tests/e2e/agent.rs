//! Pins the agent loop (planner → executor → reflector) against a **scripted stub** of an
//! OpenAI-compatible chat-completions endpoint (`argus_tests::chat_stub`: real wire format,
//! fixed answers — not a model) and a scripted device with failure injection. Every effect is
//! checked on the device's own input log, not on the loop's records alone:
//! plan → act → reflect → re-plan after two C outcomes; a multi-tool-call reply refused and
//! re-asked; a stale observation refused; `delivery_uncertain` never repeated while
//! `not_delivered` is; a `norm1000` vlm point on a 1080×2400 screen tapped at the right pixel,
//! its prompt carrying the Set-of-Mark image and the numbered element list; the popup policy
//! on and off.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use argus_perception::{Rect, Role};
use argus_protocol::{
    Disposition, JobSpec, Mode, ModelOverride, Platform, ReflectClass, RetryAdvice, RunDetail,
    RunStatus,
};
use argus_tests::chat_stub::{plan, ChatStub, Reply};
use argus_tests::scripted_device::{run_scripted, Inject, Item, ScriptedDevice, Sent};
use base64::Engine;
use serde_json::json;

fn form() -> Vec<Item> {
    vec![
        Item::new(Role::Textfield, "Name", Rect::new(40.0, 100.0, 400.0, 60.0)),
        Item::new(Role::Button, "Save", Rect::new(40.0, 200.0, 200.0, 60.0)),
        Item::new(Role::Text, "Saved 0", Rect::new(40.0, 300.0, 200.0, 40.0)),
    ]
}

async fn run(spec: JobSpec, dev: &mut ScriptedDevice) -> RunDetail {
    run_scripted(spec, dev, Arc::new(AtomicBool::new(false))).await
}

fn job(mode: Mode, text: &str, stub: &ChatStub) -> JobSpec {
    let mut s = JobSpec::script(Platform::Android, None, text.into());
    s.mode = mode;
    s.model = Some(ModelOverride {
        base_url: Some(stub.base_url.clone()),
        model: Some("stub".into()),
        ..Default::default()
    });
    s
}

fn actions(d: &RunDetail) -> Vec<&argus_protocol::ActionRecord> {
    d.steps.iter().flat_map(|s| s.actions.iter()).collect()
}

#[tokio::test]
async fn plan_act_reflect_replan_with_refusals() {
    let stub = ChatStub::start(vec![
        plan(&["save the form"]),
        // Two calls in one reply: refused, none executed, asked again.
        Reply::Calls(vec![
            (
                "tap",
                json!({"element": "{{id:Save}}", "observation": "{{obs}}"}),
            ),
            (
                "tap",
                json!({"element": "{{id:Save}}", "observation": "{{obs}}"}),
            ),
        ]),
        // Names an older observation: refused as stale, not applied.
        Reply::Call(
            "tap",
            json!({"element": "{{id:Save}}", "observation": "{{obs-1}}"}),
        ),
        // Save does nothing while Name is empty: two C outcomes → re-plan.
        Reply::Call(
            "tap",
            json!({"element": "{{id:Save}}", "observation": "{{obs}}"}),
        ),
        Reply::Call(
            "tap",
            json!({"element": "{{id:Save}}", "observation": "{{obs}}"}),
        ),
        plan(&["fill the Name field with Ada", "save"]),
        Reply::Call(
            "type",
            json!({"element": "{{id:Name}}", "text": "Ada", "observation": "{{obs}}"}),
        ),
        // No `finish` here: the step names its verb and text, so typing them ends it.
        Reply::Call(
            "tap",
            json!({"element": "{{id:Save}}", "observation": "{{obs}}"}),
        ),
        Reply::Call("assert_contains", json!({"text": "Saved 1"})),
        Reply::Call("finish", json!({})),
    ])
    .await;
    let mut dev = ScriptedDevice::new((600, 800), form(), |items, sent| {
        if let Sent::Type { name, text } = sent {
            if let Some(i) = items.iter_mut().find(|i| &i.name == name) {
                i.value = Some(text.clone());
            }
        }
        if matches!(sent, Sent::Tap { name, .. } if name == "Save") && items[0].value.is_some() {
            items[2].name = "Saved 1".into();
        }
    });
    let d = run(
        job(Mode::Llm, "fill in the form and save it", &stub),
        &mut dev,
    )
    .await;
    assert_eq!(d.status, RunStatus::Unverified, "{:?}", d.error);
    assert_eq!(stub.remaining(), 0, "every scripted answer was used");
    // The device got exactly: 2 taps (the two C's), the type, the final tap.
    let sent = dev.log.lock().unwrap().sent.clone();
    let names: Vec<String> = sent
        .iter()
        .map(|s| match s {
            Sent::Tap { name, .. } => format!("tap {name}"),
            Sent::Type { name, text } => format!("type {text} into {name}"),
            Sent::Key(k) => format!("key {}", k.as_str()),
        })
        .collect();
    assert_eq!(
        names,
        vec!["tap Save", "tap Save", "type Ada into Name", "tap Save"]
    );
    let reqs = stub.requests_except_checks();
    // The re-ask after the multi-call reply says why; tools were offered, one call required.
    assert!(reqs[2]["messages"]
        .to_string()
        .contains("only one call per turn"));
    assert_eq!(reqs[1]["tool_choice"], "required");
    assert_eq!(reqs[0]["response_format"]["type"], "json_schema");
    // The re-plan prompt carries the failed attempts.
    let replan = argus_tests::chat_stub::last_user_text(&reqs[5]);
    assert!(
        replan.contains("Failed attempts") && replan.contains("\"name\":\"tap\""),
        "{replan}"
    );
    // llm prompts carry the element list with ids and no coordinates.
    let p = argus_tests::chat_stub::last_user_text(&reqs[1]);
    assert!(p.contains("button \"Save\"") && !p.contains("200"), "{p}");
    // Records: two plans with token counts; the stale refusal; C, C then A reflections.
    let plans = d.plans();
    assert_eq!(plans.len(), 2);
    assert!(plans
        .iter()
        .all(|p| p.usage.is_some_and(|u| u.prompt_tokens > 0 && u.calls == 1)));
    let acts = actions(&d);
    let stale = acts
        .iter()
        .find(|a| a.error.as_deref().is_some_and(|e| e.starts_with("stale")))
        .expect("stale record");
    assert_eq!(stale.disposition, Disposition::NotDelivered);
    assert!(stale.detail.contains("re-asked 1×"), "{}", stale.detail);
    let classes: Vec<ReflectClass> = acts
        .iter()
        .filter_map(|a| a.reflection.as_ref().map(|r| r.class))
        .collect();
    assert_eq!(
        &classes[..3],
        &[ReflectClass::C, ReflectClass::C, ReflectClass::A]
    );
    assert!(d.model_usage().completion_tokens > 0);
}

#[tokio::test]
async fn uncertain_is_never_repeated_not_delivered_is() {
    let stub = ChatStub::start(vec![
        plan(&["press save twice"]),
        Reply::Call(
            "tap",
            json!({"element": "{{id:Save}}", "observation": "{{obs}}"}),
        ),
        Reply::Call(
            "tap",
            json!({"element": "{{id:Save}}", "observation": "{{obs}}"}),
        ),
        Reply::Call("finish", json!({})),
    ])
    .await;
    let mut dev = ScriptedDevice::new((600, 800), form(), |items, sent| {
        if matches!(sent, Sent::Tap { name, .. } if name == "Save") {
            let n: u32 = items[2]
                .name
                .trim_start_matches("Saved ")
                .parse()
                .unwrap_or(0);
            items[2].name = format!("Saved {}", n + 1);
        }
    });
    // First tap: lands but unacknowledged. Second: fails before dispatch, then succeeds.
    dev.inject = [Some(Inject::Uncertain), Some(Inject::NotDelivered), None].into();
    let d = run(job(Mode::Llm, "press save twice", &stub), &mut dev).await;
    assert_eq!(d.status, RunStatus::Unverified, "{:?}", d.error);
    let log = dev.log.lock().unwrap();
    assert_eq!(
        log.attempts, 3,
        "uncertain once (not repeated) + not_delivered once, repeated"
    );
    assert_eq!(log.sent.len(), 2, "the screen got two taps, not three");
    let taps: Vec<_> = actions(&d)
        .into_iter()
        .filter(|a| a.kind == "tap")
        .collect();
    assert_eq!(taps[0].disposition, Disposition::DeliveryUncertain);
    assert_eq!(taps[0].retry, RetryAdvice::Unsafe);
    // The repeated tap's effect ("Saved 2") was seen: verified (`argus_worker::effect`).
    assert_eq!(taps[1].disposition, Disposition::DeliveredVerified);
    assert!(taps[1].detail.contains("repeated 1× after not_delivered"));
    assert!(d.steps.iter().all(|s| s.ok == Some(true)));
}

#[tokio::test]
async fn vlm_norm1000_point_maps_each_axis_on_1080x2400() {
    let stub = ChatStub::start(vec![
        plan(&["tap the target"]),
        Reply::Call("tap", json!({"x": 500, "y": 250, "observation": "{{obs}}"})),
        Reply::Call("finish", json!({})),
    ])
    .await;
    let items = vec![
        // Where (500, 250) would land if y were scaled by the width: (540, 270).
        Item::new(Role::Button, "Decoy", Rect::new(340.0, 220.0, 400.0, 100.0)),
        Item::new(
            Role::Button,
            "Target",
            Rect::new(340.0, 550.0, 400.0, 100.0),
        ),
    ];
    let mut dev = ScriptedDevice::new((1080, 2400), items, |_, _| {});
    let mut spec = job(Mode::Vlm, "tap the target", &stub);
    spec.model.as_mut().unwrap().coords = Some(argus_protocol::CoordSpace::Norm1000);
    let d = run(spec, &mut dev).await;
    assert_eq!(d.status, RunStatus::Unverified, "{:?}", d.error);
    let sent = dev.log.lock().unwrap().sent.clone();
    assert_eq!(
        sent,
        vec![Sent::Tap {
            name: "Target".into(),
            x: 540.0,
            y: 600.0
        }]
    );
    let tap = actions(&d)
        .into_iter()
        .find(|a| a.kind == "tap")
        .unwrap()
        .clone();
    assert_eq!(tap.point_px, Some([540.0, 600.0]));
    assert_eq!(
        tap.target.as_ref().map(|t| t.name.as_str()),
        Some("Target"),
        "snapped for the report"
    );
    // The prompt carried the Set-of-Mark image as a data URL, the numbered element list as
    // text, and declared the coordinate space.
    let req = &stub.requests_except_checks()[1];
    let content = req["messages"][1]["content"].to_string();
    let parts = req["messages"][1]["content"]
        .as_array()
        .expect("text + image");
    let text = parts[0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("e1 button \"Decoy\""), "{text}");
    assert!(text.contains("e2 button \"Target\""), "{text}");
    let url = parts[1]["image_url"]["url"].as_str().unwrap_or_default();
    let b64 = url
        .strip_prefix("data:image/png;base64,")
        .expect("a PNG data URL");
    let png = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64");
    let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
        .expect("a PNG")
        .to_rgb8();
    assert_eq!(
        img.dimensions(),
        (1080, 2400),
        "same size as the screenshot"
    );
    // The device's screenshot is solid grey (230): the Target's box is outlined in the
    // button colour, its inside left alone, and its id label (white glyphs) sits above it.
    let button = argus_perception::som::role_color(Role::Button);
    assert_eq!(*img.get_pixel(540, 551), button, "top edge of e2's box");
    assert_eq!(*img.get_pixel(739, 600), button, "right edge of e2's box");
    assert_eq!(*img.get_pixel(540, 600), image::Rgb([230, 230, 230]));
    let label: Vec<image::Rgb<u8>> = (340..380)
        .flat_map(|x| (530..550).map(move |y| (x, y)))
        .map(|(x, y)| *img.get_pixel(x, y))
        .collect();
    assert!(label.contains(&button) && label.contains(&image::Rgb([255, 255, 255])));
    assert!(
        content.contains("0 to 1000")
            || req["messages"][0]["content"]
                .to_string()
                .contains("0 to 1000")
    );
}

#[tokio::test]
async fn popup_policy_dismisses_between_steps_unless_off() {
    let screen = || {
        vec![
            Item::new(Role::Text, "Welcome", Rect::new(20.0, 20.0, 300.0, 40.0)),
            Item::new(
                Role::Text,
                "We use cookies",
                Rect::new(20.0, 600.0, 300.0, 40.0),
            ),
            Item::new(
                Role::Button,
                "Accept all",
                Rect::new(20.0, 680.0, 200.0, 50.0),
            ),
            Item::new(
                Role::Button,
                "Reject all",
                Rect::new(300.0, 680.0, 200.0, 50.0),
            ),
        ]
    };
    let react = |items: &mut Vec<Item>, sent: &Sent| {
        if matches!(sent, Sent::Tap { name, .. } if name == "Reject all" || name == "Accept all") {
            items.truncate(1);
        }
    };
    for popups in [true, false] {
        let mut dev = ScriptedDevice::new((600, 800), screen(), react);
        let mut spec = JobSpec::script(
            Platform::Android,
            None,
            "assert screen contains \"Welcome\"".into(),
        );
        spec.popups = popups;
        let d = run(spec, &mut dev).await;
        assert_eq!(d.status, RunStatus::Succeeded, "{:?}", d.error);
        let sent = dev.log.lock().unwrap().sent.clone();
        if popups {
            assert_eq!(
                sent,
                vec![Sent::Tap {
                    name: "Reject all".into(),
                    x: 400.0,
                    y: 705.0
                }]
            );
            assert_eq!(actions(&d)[0].kind, "popup");
        } else {
            assert!(sent.is_empty(), "popups off: nothing tapped");
        }
    }
}
