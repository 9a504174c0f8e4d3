use argus_perception::{build, cdp, Screen};

use crate::{assert_golden, fixture};

/// TodoMVC (vanillajs) in Chromium 156, captured by the web driver with two todos, the first
/// completed: `Accessibility.getFullAXTree` + `DOMSnapshot.captureSnapshot`, 1280×800 CSS px
/// at DPR 1.
#[test]
fn todomvc_elements() {
    let v: serde_json::Value = serde_json::from_str(&fixture("cdp_todomvc.json")).unwrap();
    let tree = cdp::normalize(&v["ax"], &v["snapshot"]).unwrap();
    let screen: Screen = serde_json::from_value(v["screen"].clone()).unwrap();
    let obs = build(&tree, screen, 1);
    assert_golden(
        &obs,
        r#"
        e1 heading/heading "JavaScript" chk? en+ foc? sel? ed? pw? cov- @18,28,272,29
        e2 heading/heading "Vanilla JavaScript Example" chk? en+ foc? sel? ed? pw? cov- @18,67,272,17
        e3 heading/heading "todos" chk? en+ foc? sel? ed? pw? cov- @515,58,550,20
        e4 link/link "Source" chk? en+ foc- sel? ed? pw? cov- @18,85,44,16
        e5 textfield/textbox "What needs to be done?" hint="What needs to be done?" chk? en+ foc- sel? ed+ pw? cov- @515,146,550,66
        e6 checkbox/checkbox "" chk- en+ foc- sel? ed? pw? cov- @516,148,41,65
        e7 text/StaticText "JavaScript® (often shortened to JS) is a lightweight, interpreted, object-oriented language with first-class functions, most known as the scripting language for Web pages, but used in many non-browser environments as well such as node.js or Apache CouchDB." chk? en+ foc? sel? ed? pw? cov- @28,156,248,154
        e8 checkbox/checkbox "buy milk" chk+ en+ foc+ sel? ed? pw? cov- @515,222,40,40
        e9 text/StaticText "buy milk" chk? en+ foc? sel? ed? pw? cov- @575,228,88,27
        e10 button/button "✖" chk? en+ foc- sel? ed? pw? cov- @1015,222,40,40
        e11 checkbox/checkbox "walk the dog" chk- en+ foc- sel? ed? pw? cov- @515,282,40,40
        e12 text/StaticText "walk the dog" chk? en+ foc? sel? ed? pw? cov- @575,287,135,27
        e13 link/link "JavaScript" chk? en+ foc- sel? ed? pw? cov- @225,343,65,16
        e14 text/StaticText "1" chk? en+ foc? sel? ed? pw? cov- @530,343,8,16
        e15 text/StaticText "item left" chk? en+ foc? sel? ed? pw? cov- @538,343,53,16
        e16 link/link "All" chk? en+ foc- sel? ed? pw? cov- @720,343,18,16
        e17 link/link "Active" chk? en+ foc- sel? ed? pw? cov- @746,343,38,16
        e18 link/link "Completed" chk? en+ foc- sel? ed? pw? cov- @792,343,68,16
        e19 button/button "Clear completed (1)" chk? en+ foc- sel? ed? pw? cov- @933,342,117,20
        e20 text/StaticText "Double-click to edit a todo" chk? en+ foc? sel? ed? pw? cov- @721,399,138,14
        e21 text/StaticText "If you have other helpful links to share, or find any of the links above no longer work, please" chk? en+ foc? sel? ed? pw? cov- @18,404,262,55
        e22 text/StaticText "Created by" chk? en+ foc? sel? ed? pw? cov- @720,431,62,14
        e23 link/link "Oscar Godson" chk? en+ foc- sel? ed? pw? cov- @782,431,77,14
        e24 link/link "let us know" chk? en+ foc- sel? ed? pw? cov- @63,443,69,16
        e25 text/StaticText "." chk? en+ foc? sel? ed? pw? cov- @132,443,4,16
        e26 text/StaticText "Refactored by" chk? en+ foc? sel? ed? pw? cov- @701,462,78,14
        e27 link/link "Christoph Burgmer" chk? en+ foc- sel? ed? pw? cov- @779,462,101,14
        e28 text/StaticText "Part of" chk? en+ foc? sel? ed? pw? cov- @744,494,38,14
        e29 link/link "TodoMVC" chk? en+ foc- sel? ed? pw? cov- @783,494,53,14
"#,
    );
    // Counter text split over two runs still reads as one phrase; ignored and hidden nodes
    // (the "Mark all as complete" label is display:none) contribute nothing.
    assert!(obs.contains_text("1 item left"));
    assert!(!obs.contains_text("Mark all as complete"));
}

/// The web driver tells the arbiter a page has not loaded anything yet from the snapshot's
/// top document URL: a real page is not blank, a new target's `about:blank` is.
#[test]
fn blank_pages_are_told_by_the_document_url() {
    let v: serde_json::Value = serde_json::from_str(&fixture("cdp_todomvc.json")).unwrap();
    let url = cdp::document_url(&v["snapshot"]).unwrap();
    assert!(url.ends_with("/examples/vanillajs/index.html"), "{url}");
    assert!(!cdp::is_blank_url(url));
    let blank = serde_json::json!({
        "documents": [{"documentURL": 1, "nodes": {}, "layout": {}}],
        "strings": ["", "about:blank"]
    });
    assert_eq!(cdp::document_url(&blank), Some("about:blank"));
    assert_eq!(cdp::document_url(&serde_json::json!({})), None);
    for u in [
        "about:blank",
        "",
        "About:Blank#x",
        "chrome://newtab/",
        "chrome://new-tab-page/",
    ] {
        assert!(cdp::is_blank_url(u), "{u}");
    }
    for u in [
        "about:srcdoc",
        "data:text/html,hi",
        "http://127.0.0.1/blank",
        "file:///a.html",
    ] {
        assert!(!cdp::is_blank_url(u), "{u}");
    }
}
