use argus_perception::{build, wda, Screen};

use crate::{assert_golden, fixture};

/// iOS sign-in screen from WebDriverAgent `/source` (points, 390×844 @3x) with the system
/// notification alert in a second window: controls whose centre lies under the alert are
/// covered; the alert's own buttons and texts are not.
#[test]
fn signin_with_alert_elements() {
    let tree = wda::normalize(&fixture("wda_signin_alert.xml")).unwrap();
    let screen = Screen {
        width: 390.0,
        height: 844.0,
        dpr: 3.0,
    };
    let obs = build(&tree, screen, 1);
    assert_golden(
        &obs,
        r#"
        e1 button/XCUIElementTypeButton "Back" chk? en+ foc? sel? ed? pw? cov- @24,141,210,132 #Back
        e2 text/XCUIElementTypeStaticText "Sign In" chk? en+ foc? sel? ed? pw? cov- @480,174,210,66 #Sign In
        e3 textfield/XCUIElementTypeTextField "" hint="Email" chk? en+ foc? sel? ed+ pw- cov- @60,420,1050,132 #email
        e4 textfield/XCUIElementTypeSecureTextField "" ="••••••••" hint="Password" chk? en+ foc? sel? ed+ pw+ cov- @60,600,1050,132 #password
        e5 switch/XCUIElementTypeSwitch "Remember me" chk+ en+ foc? sel? ed? pw? cov- @60,786,1050,93 #remember
        e6 button/XCUIElementTypeButton "Sign In" chk? en+ foc? sel? ed? pw? cov+ @60,960,1050,150 #sign_in
        e7 dialog/XCUIElementTypeAlert "“Shop” Would Like to Send You Notifications" chk? en+ foc? sel? ed? pw? cov- @195,990,780,570 #“Shop” Would Like to Send You Notifications
        e8 text/XCUIElementTypeStaticText "“Shop” Would Like to Send You Notifications" chk? en+ foc? sel? ed? pw? cov- @243,1050,684,132
        e9 link/XCUIElementTypeLink "Forgot password?" chk? en+ foc? sel? ed? pw? cov+ @360,1170,450,60 #Forgot password?
        e10 text/XCUIElementTypeStaticText "Notifications may include alerts, sounds, and icon badges." chk? en+ foc? sel? ed? pw? cov- @243,1200,684,180
        e11 image/XCUIElementTypeImage "logo" chk? en+ foc? sel? ed? pw? cov+ @435,1260,300,300 #logo
        e12 button/XCUIElementTypeButton "Don’t Allow" chk? en+ foc? sel? ed? pw? cov- @195,1428,390,132 #Don’t Allow
        e13 button/XCUIElementTypeButton "Allow" chk? en+ foc? sel? ed? pw? cov- @585,1428,390,132 #Allow
        e14 button/XCUIElementTypeCell "Continue with Apple" chk? en+ foc? sel? ed? pw? cov- @0,1620,1170,132
        e15 button/XCUIElementTypeCell "Continue with Google" chk? en+ foc? sel+ ed? pw? cov- @0,1752,1170,132
        e16 button/XCUIElementTypeCell "Continue with Passkey" chk? en- foc? sel? ed? pw? cov- @0,1884,1170,132
        e17 text/XCUIElementTypeStaticText "By continuing you agree to the Terms" chk? en+ foc? sel? ed? pw? cov- @60,2280,1050,102
"#,
    );
    // A secure field's bullets are not visible text.
    assert!(!obs.text.contains('•'));
}

/// An older WebDriverAgent source (no `placeholderValue` anywhere): a search field whose
/// `value` is its placeholder or its text — the source cannot tell — is labelled by it, not
/// claimed as typed; a StaticText with its text only in `name` is kept.
#[test]
fn value_without_placeholder_attribute_and_name_only_text() {
    let src = r#"<?xml version="1.0" encoding="UTF-8"?><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Maps" label="Maps" enabled="true" visible="true" x="0" y="0" width="390" height="844"><XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true" x="0" y="0" width="390" height="844"><XCUIElementTypeSearchField type="XCUIElementTypeSearchField" value="Search Maps" enabled="true" visible="true" x="16" y="60" width="358" height="36"/><XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="Recents" enabled="true" visible="true" x="16" y="120" width="200" height="24"/></XCUIElementTypeWindow></XCUIElementTypeApplication>"#;
    let tree = wda::normalize(src).unwrap();
    let screen = Screen {
        width: 390.0,
        height: 844.0,
        dpr: 3.0,
    };
    let obs = build(&tree, screen, 1);
    assert_golden(
        &obs,
        r#"
        e1 textfield/XCUIElementTypeSearchField "Search Maps" chk? en+ foc? sel? ed+ pw- cov- @48,180,1074,108
        e2 text/XCUIElementTypeStaticText "Recents" chk? en+ foc? sel? ed? pw? cov- @48,360,600,72 #Recents
"#,
    );
}

/// An Android dump handed to the WebDriverAgent normalizer is an error naming what it got.
#[test]
fn android_dump_is_refused() {
    let e = wda::normalize(&fixture("android_inbox.xml")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "not a WebDriverAgent source document: its root element is <hierarchy>"
    );
}
