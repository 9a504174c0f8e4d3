//! Pins the arbiter's verdict on trees that do not describe what the screen shows, one per
//! class seen in real device dumps, written from the formats' documented attributes: the
//! perception stage ([`argus_perception::perceive::plan`]) must choose the pixel channel on
//! the first such frame of a run and say why, and keep the tree alone on a healthy one.

use argus_perception::arbitration::{ArbParams, Arbiter, Channel};
use argus_perception::perceive::{plan, FrameHints};
use argus_perception::{android, harmony, wda, Rect, Screen, Tree};

fn first_frame(tree: &Tree, screen: Screen) -> (Channel, String, Vec<Rect>) {
    let mut arb = Arbiter::new(ArbParams::default());
    let p = plan(tree, screen, 1, &mut arb, FrameHints::default());
    (p.decision.channel, p.decision.reason, p.regions)
}

/// `<node …>` of a `uiautomator dump` with the attributes every node has.
fn node(class: &str, text: &str, desc: &str, clickable: bool, bounds: &str, kids: &str) -> String {
    format!(
        r#"<node index="0" text="{text}" resource-id="" class="{class}" package="com.example" content-desc="{desc}" checkable="false" checked="false" clickable="{clickable}" enabled="true" focusable="{clickable}" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="{bounds}">{kids}</node>"#
    )
}

fn dump(root: &str) -> String {
    format!(
        r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">{root}</hierarchy>"#
    )
}

const PHONE: (f64, f64) = (1080.0, 2400.0);

fn phone() -> Screen {
    Screen::from_device_px(PHONE.0, PHONE.1, 2.75)
}

/// A game: one clickable, unnamed, full-screen `android.view.View` — one element that looks
/// healthy to a count, but tells nothing.
#[test]
fn android_game_canvas_goes_to_pixels() {
    let xml = dump(&node(
        "android.widget.FrameLayout",
        "",
        "",
        false,
        "[0,0][1080,2400]",
        &node("android.view.View", "", "", true, "[0,0][1080,2400]", ""),
    ));
    let d = android::normalize(&xml, 2.75).unwrap();
    let (ch, why, regions) = first_frame(&d.tree, phone());
    assert_eq!(ch, Channel::Pixel, "{why}");
    assert!(why.contains("opaque content covers 100%"), "{why}");
    assert_eq!(regions, vec![Rect::new(0.0, 0.0, 1080.0, 2400.0)]);
}

/// A video player: a named toolbar over a `SurfaceView` taking most of the screen.
#[test]
fn android_surface_view_goes_to_pixels() {
    let kids = node(
        "android.widget.ImageButton",
        "",
        "Back",
        true,
        "[0,80][160,240]",
        "",
    ) + &node(
        "android.view.SurfaceView",
        "",
        "",
        false,
        "[0,240][1080,2400]",
        "",
    );
    let xml = dump(&node(
        "android.widget.FrameLayout",
        "",
        "",
        false,
        "[0,0][1080,2400]",
        &kids,
    ));
    let d = android::normalize(&xml, 2.75).unwrap();
    let (ch, why, _) = first_frame(&d.tree, phone());
    assert_eq!(ch, Channel::Pixel, "{why}");
    assert!(why.contains("opaque content covers 90%"), "{why}");
}

/// A WebView with no children under a list: weak, so the tree stays first and the pixel
/// channel reads the WebView's region from the second such frame on.
#[test]
fn android_empty_webview_adds_its_region() {
    let mut rows = String::new();
    for k in 0..6 {
        let y = 200 + k * 150;
        rows += &node(
            "android.widget.TextView",
            &format!("Row {k}"),
            "",
            true,
            &format!("[0,{y}][1080,{}]", y + 150),
            "",
        );
    }
    rows += &node(
        "android.webkit.WebView",
        "",
        "",
        false,
        "[0,1400][1080,2000]",
        "",
    );
    let xml = dump(&node(
        "android.widget.FrameLayout",
        "",
        "",
        false,
        "[0,0][1080,2400]",
        &rows,
    ));
    let d = android::normalize(&xml, 2.75).unwrap();
    let mut arb = Arbiter::new(ArbParams::default());
    let first = plan(&d.tree, phone(), 1, &mut arb, FrameHints::default());
    assert_eq!(
        first.decision.channel,
        Channel::Tree,
        "{}",
        first.decision.reason
    );
    let second = plan(&d.tree, phone(), 2, &mut arb, FrameHints::default());
    assert_eq!(
        second.decision.channel,
        Channel::TreeAndRegions,
        "{}",
        second.decision.reason
    );
    assert!(
        second.decision.reason.contains("opaque content covers 25%"),
        "{}",
        second.decision.reason
    );
    // The WebView's box in device px (after the dp round trip, to a hundredth of a px).
    let near = |a: f64, b: f64| (a - b).abs() < 0.01;
    assert!(
        second
            .regions
            .iter()
            .any(|r| near(r.x, 0.0) && near(r.y, 1400.0) && near(r.w, 1080.0) && near(r.h, 600.0)),
        "{:?}",
        second.regions
    );
}

/// HarmonyOS: a map drawn in an `XComponent`, and a `Web` component with nothing under it.
#[test]
fn harmony_xcomponent_and_empty_web_go_to_pixels() {
    for kind in ["XComponent", "Web"] {
        let v = serde_json::json!({
            "attributes": {"type": "root", "bounds": "[0,0][1260,2720]"},
            "children": [
                {"attributes": {"type": "Text", "text": "Map", "bounds": "[40,100][400,200]"}},
                {"attributes": {"type": kind, "id": "surface", "bounds": "[0,240][1260,2720]"}}
            ]
        });
        let tree = harmony::normalize(&v, 3.25).unwrap();
        let (ch, why, _) = first_frame(&tree, Screen::from_device_px(1260.0, 2720.0, 3.25));
        assert_eq!(ch, Channel::Pixel, "{kind}: {why}");
        assert!(why.contains("opaque content covers 91%"), "{kind}: {why}");
    }
}

/// iOS: a tree of unlabelled `Other` nodes (a custom-drawn app) lists nothing — the arbiter
/// says so and reads pixels; an empty `WebView` is opaque.
#[test]
fn ios_unlabelled_others_and_empty_webview_go_to_pixels() {
    let others = r#"<?xml version="1.0" encoding="UTF-8"?><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Game" label="Game" enabled="true" visible="true" accessible="false" x="0" y="0" width="390" height="844" index="0"><XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true" accessible="false" x="0" y="0" width="390" height="844" index="0"><XCUIElementTypeOther type="XCUIElementTypeOther" enabled="true" visible="true" accessible="false" x="0" y="0" width="390" height="844" index="0"><XCUIElementTypeOther type="XCUIElementTypeOther" enabled="true" visible="true" accessible="false" x="20" y="700" width="350" height="80" index="0"/></XCUIElementTypeOther></XCUIElementTypeWindow></XCUIElementTypeApplication>"#;
    let screen = Screen {
        width: 390.0,
        height: 844.0,
        dpr: 3.0,
    };
    let tree = wda::normalize(others).unwrap();
    let (ch, why, _) = first_frame(&tree, screen);
    assert_eq!(ch, Channel::Pixel, "{why}");
    assert!(why.contains("no elements in the tree"), "{why}");

    let web = r#"<?xml version="1.0" encoding="UTF-8"?><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Shop" label="Shop" enabled="true" visible="true" accessible="false" x="0" y="0" width="390" height="844" index="0"><XCUIElementTypeButton type="XCUIElementTypeButton" name="Close" label="Close" enabled="true" visible="true" accessible="true" x="8" y="50" width="44" height="44" index="0"/><XCUIElementTypeWebView type="XCUIElementTypeWebView" enabled="true" visible="true" accessible="false" x="0" y="100" width="390" height="744" index="1"/></XCUIElementTypeApplication>"#;
    let tree = wda::normalize(web).unwrap();
    let (ch, why, _) = first_frame(&tree, screen);
    assert_eq!(ch, Channel::Pixel, "{why}");
    assert!(why.contains("opaque content covers 88%"), "{why}");
}

/// A healthy dump keeps the tree alone (no screenshot needed).
#[test]
fn a_healthy_tree_stays_tree_only() {
    let d = android::normalize(&crate::fixture("android_inbox.xml"), 2.75).unwrap();
    let (ch, why, regions) = first_frame(&d.tree, phone());
    assert_eq!(ch, Channel::Tree, "{why}");
    assert!(regions.is_empty());
}
