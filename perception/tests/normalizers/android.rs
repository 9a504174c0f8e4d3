use argus_perception::{android, build, Screen};

use crate::{assert_golden, assert_lines, fixture};

const DENSITY: f64 = 2.625;

fn inbox() -> argus_perception::Observation {
    let dump = android::normalize(&fixture("android_inbox.xml"), DENSITY).unwrap();
    assert_eq!(dump.rotation, Some(0));
    assert_eq!(dump.tree.nodes.len(), 78);
    build(
        &dump.tree,
        Screen::from_device_px(1080.0, 2400.0, DENSITY),
        1,
    )
}

#[test]
fn inbox_elements() {
    let obs = inbox();
    assert_golden(
        &obs,
        r#"
        e1 button/ImageButton "Open navigation drawer" chk- en+ foc- sel- ed? pw- cov- @0,63,147,147
        e2 textfield/EditText "" hint="Search in mail" chk- en+ foc- sel- ed+ pw- cov- @168,84,682,105 #search
        e3 button/ImageView "Account: dana@example.com" chk- en+ foc- sel- ed? pw- cov- @900,84,138,105 #account
        e4 tab/TabView "Primary" chk- en+ foc- sel+ ed? pw- cov- @0,210,360,147
        e5 tab/TabView "Social" chk- en+ foc- sel- ed? pw- cov- @360,210,360,147
        e6 tab/TabView "Promotions" chk- en+ foc- sel- ed? pw- cov- @720,210,360,147
        e7 button/LinearLayout "Alice Martin Lunch on Friday? Are you free at noon? The usual place 10:42" chk- en+ foc- sel- ed? pw- cov- @0,357,1080,220 #row
        e8 checkbox/CheckBox "Star" chk- en+ foc- sel- ed? pw- cov- @930,467,108,80 #star
        e9 button/LinearLayout "GitHub [argus] CI passed on main All checks have passed for 3f2c1d0 09:15" chk- en+ foc- sel- ed? pw- cov- @0,577,1080,220 #row
        e10 checkbox/CheckBox "Star" chk+ en+ foc- sel- ed? pw- cov- @930,687,108,80 #star
        e11 button/LinearLayout "Bob & Carol Trip photos We uploaded 48 photos from the weekend Yesterday" chk- en+ foc- sel- ed? pw- cov- @0,797,1080,220 #row
        e12 checkbox/CheckBox "Star" chk- en+ foc- sel- ed? pw- cov- @930,907,108,80 #star
        e13 button/LinearLayout "Deliveries Your parcel is out for delivery Track it in the app before 6 pm Yesterday" chk- en+ foc- sel- ed? pw- cov- @0,1017,1080,220 #row
        e14 checkbox/CheckBox "Star" chk- en+ foc- sel- ed? pw- cov- @930,1127,108,80 #star
        e15 button/LinearLayout "Erin Zhou Re: design review Looks good, one note on the tab bar Mon" chk- en+ foc- sel- ed? pw- cov- @0,1237,1080,220 #row
        e16 checkbox/CheckBox "Star" chk+ en+ foc- sel- ed? pw- cov- @930,1347,108,80 #star
        e17 button/LinearLayout "Calendar Invitation: Standup 09:30 Daily at 09:30, Room 4 Sun" chk- en+ foc- sel- ed? pw- cov- @0,1457,1080,220 #row
        e18 checkbox/CheckBox "Star" chk- en+ foc- sel- ed? pw- cov- @930,1567,108,80 #star
        e19 button/Button "Load more" chk- en- foc- sel- ed? pw- cov- @42,1697,996,126 #load_more
        e20 button/ImageButton "" chk- en+ foc- sel- ed? pw- cov- @42,1937,126,126 #filter
        e21 button/ExtendedFloatingActionButton "Compose" chk- en+ foc- sel- ed? pw- cov- @647,1937,391,168 #compose
        e22 button/BottomNavigationItemView "Mail" chk- en+ foc- sel+ ed? pw- cov- @0,2148,540,189 #nav_mail
        e23 button/BottomNavigationItemView "Meet" chk- en+ foc- sel- ed? pw- cov- @540,2148,540,189 #nav_meet
"#,
    );
    assert_lines(
        &obs.compact(),
        r#"
        e1 button "Open navigation drawer" D:e4
        e2 textfield hint="Search in mail" D:e5
        e3 button "Account: dana@example.com" D:e6
        e4 tab "Primary" selected U:e1 D:e7
        e5 tab "Social" U:e2 D:e7
        e6 tab "Promotions" U:e3 D:e7
        e7 button "Alice Martin Lunch on Friday? Are you fr…" U:e5 D:e9
        e8 checkbox "Star" off U:e6 D:e9
        e9 button "GitHub [argus] CI passed on main All che…" U:e7 D:e11
        e10 checkbox "Star" on U:e7 D:e11
        e11 button "Bob & Carol Trip photos We uploaded 48 p…" U:e9 D:e13
        e12 checkbox "Star" off U:e9 D:e13
        e13 button "Deliveries Your parcel is out for delive…" U:e11 D:e15
        e14 checkbox "Star" off U:e11 D:e15
        e15 button "Erin Zhou Re: design review Looks good, …" U:e13 D:e17
        e16 checkbox "Star" on U:e13 D:e17
        e17 button "Calendar Invitation: Standup 09:30 Daily…" U:e15 D:e19
        e18 checkbox "Star" off U:e15 D:e19
        e19 button "Load more" disabled U:e17 D:e21
        e20 button U:e19 D:e22
        e21 button "Compose" U:e19 D:e23
        e22 button "Mail" selected U:e20
        e23 button "Meet" U:e21
"#,
    );
}

#[test]
fn inbox_text_paths_and_budget() {
    let obs = inbox();
    // Text of every visible text node, in document order, newline collapsed, `&amp;` decoded.
    assert!(obs.contains_text("Bob & Carol Trip photos We uploaded 48 photos from the weekend"));
    // Controls named by their own label (content-desc, a button's text) are part of the
    // screen's text, once: tabs named by a child TextView are not repeated.
    assert!(
        obs.text.starts_with(
            "Open navigation drawer Account: dana@example.com Primary Social Promotions Alice Martin"
        ),
        "{}",
        obs.text
    );
    assert!(obs.contains_text("Load more"));
    assert!(obs.contains_text("Compose Mail Meet"), "{}", obs.text);
    assert!(
        !obs.contains_text("Search in mail"),
        "a hint is not visible text"
    );
    // Re-finding: root ordinal, then child indices: decor, content, coordinator, list (2nd), row 2, star (4th child).
    let star = obs.element("e10").unwrap();
    assert_eq!(star.path, vec![0, 0, 0, 0, 1, 1, 3]);
    // Boxes round-trip through dp back to device px.
    let compose = obs.element("e21").unwrap();
    assert!((compose.bbox_px.x - 647.0).abs() < 1e-6 && (compose.bbox_px.h - 168.0).abs() < 1e-6);
    assert!((compose.bbox_logical.w - 391.0 / DENSITY).abs() < 1e-9);
    // A few hundred tokens (≈ chars / 4) for the busy screen.
    let c = obs.compact();
    assert!(c.len() / 4 < 400, "compact is {} chars", c.len());
}

/// A Compose screen with the navigation drawer open: the drawer's scrim (a clickable
/// full-screen node drawn after the content) covers everything behind it; older dump format
/// (no `visible-to-user`, `hint`, …), one line, no trailer.
#[test]
fn compose_drawer_scrim_covers_content() {
    let dump = android::normalize(&fixture("android_compose_drawer.xml"), DENSITY).unwrap();
    let obs = build(
        &dump.tree,
        Screen::from_device_px(1080.0, 2400.0, DENSITY),
        2,
    );
    assert_golden(
        &obs,
        r#"
        e1 button/View "Close navigation menu" chk- en+ foc- sel- ed? pw- cov- @0,63,1080,2274
        e2 button/Button "Menu" chk- en+ foc- sel- ed? pw- cov+ @21,84,126,105
        e3 text/TextView "Account" chk- en+ foc- sel- ed? pw- cov- @63,126,537,63
        e4 text/TextView "Settings" chk- en+ foc- sel- ed? pw- cov+ @189,105,311,63
        e5 button/View "Wi-Fi HomeNet-5G" chk- en+ foc- sel- ed? pw- cov+ @0,231,1080,168
        e6 button/View "Inbox" chk- en+ foc- sel+ ed? pw- cov- @21,231,714,147
        e7 checkbox/View "" chk+ en+ foc- sel- ed? pw- cov+ @850,273,167,84
        e8 button/View "Bluetooth" chk- en+ foc- sel- ed? pw- cov+ @0,399,1080,168
        e9 button/View "Starred" chk- en+ foc- sel- ed? pw- cov- @21,378,714,147
        e10 checkbox/View "" chk- en+ foc- sel- ed? pw- cov+ @850,441,167,84
        e11 button/Button "Sign out" chk- en+ foc- sel- ed? pw- cov- @63,2184,630,126
        e12 text/TextView "Version 2.4.1" chk- en+ foc- sel- ed? pw- cov+ @63,2200,437,60
"#,
    );
    let compact = obs.compact();
    let lines: Vec<&str> = compact.lines().collect();
    assert_eq!(lines[1], "e2 button \"Menu\" covered R:e4 D:e6");
    assert_eq!(lines[6], "e7 checkbox on covered D:e8");
}

/// An update dialog whose buttons are clickable TextViews and whose close icon has only a
/// `content-desc`: the buttons' labels are screen text (`assert screen contains`, `wait for`
/// and the popup policy read it).
#[test]
fn labels_of_controls_are_screen_text() {
    let attrs = r#"resource-id="" package="com.example" checkable="false" checked="false" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false""#;
    let xml = format!(
        r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" class="android.widget.FrameLayout" content-desc="" clickable="false" {attrs} bounds="[0,0][1080,2400]"><node index="0" text="A new version is available" class="android.widget.TextView" content-desc="" clickable="false" {attrs} bounds="[100,900][980,1000]"/><node index="1" text="Update now" class="android.widget.TextView" content-desc="" clickable="true" {attrs} bounds="[600,1100][980,1200]"/><node index="2" text="Later" class="android.widget.TextView" content-desc="" clickable="true" {attrs} bounds="[100,1100][500,1200]"/><node index="3" text="" class="android.widget.ImageView" content-desc="Close" clickable="true" {attrs} bounds="[900,800][980,880]"/></node></hierarchy>"#
    );
    let d = argus_perception::android::normalize(&xml, 2.75).unwrap();
    let obs = build(&d.tree, Screen::from_device_px(1080.0, 2400.0, 2.75), 1);
    assert_eq!(
        obs.text, "A new version is available Update now Later Close",
        "document order, each once"
    );
    assert!(obs.contains_text("Update now"));
}

/// Compose: a clickable `View` whose label sits on a non-clickable child `View`'s
/// `content-desc` (a back button), and an app card whose app name is a child TextView
/// reported with `[0,0][0,0]` bounds next to a visible "Ad" badge — the labels reach the tap
/// target.
#[test]
fn compose_labels_reach_the_tap_target() {
    let a = r#"resource-id="" package="com.example" checkable="false" checked="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false""#;
    let xml = format!(
        r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" class="android.widget.FrameLayout" content-desc="" clickable="false" {a} bounds="[0,0][1080,2400]"><node index="0" text="" class="android.view.View" content-desc="" clickable="true" {a} bounds="[0,80][160,240]"><node index="0" text="" class="android.view.View" content-desc="Back" clickable="false" {a} bounds="[40,120][120,200]"/></node><node index="1" text="" class="android.view.View" content-desc="" clickable="true" {a} bounds="[0,400][1080,700]"><node index="0" text="Spotify: Music and Podcasts" class="android.widget.TextView" content-desc="" clickable="false" {a} bounds="[0,0][0,0]"/><node index="1" text="Ad" class="android.widget.TextView" content-desc="" clickable="false" {a} bounds="[40,420][120,460]"/></node></node></hierarchy>"#
    );
    let d = argus_perception::android::normalize(&xml, 1.0).unwrap();
    let obs = build(&d.tree, Screen::from_device_px(1080.0, 2400.0, 1.0), 1);
    let names: Vec<(&str, &str)> = obs
        .elements
        .iter()
        .map(|e| (e.role.as_str(), e.name.as_str()))
        .collect();
    assert_eq!(
        names,
        vec![
            ("button", "Back"),
            ("button", "Spotify: Music and Podcasts Ad")
        ]
    );
    // The zero-size text names the card but is not claimed as visible text.
    assert!(!obs.contains_text("Spotify"), "{}", obs.text);
}

fn phone_obs(file: &str) -> argus_perception::Observation {
    let dump = android::normalize(&fixture(file), DENSITY).unwrap();
    build(
        &dump.tree,
        Screen::from_device_px(1080.0, 2400.0, DENSITY),
        1,
    )
}

/// One control, one element: a clickable toolbar is not a button named by its title; a
/// classic list row (clickable layout + checkable `RadioButton` + `CheckedTextView`, neither
/// clickable) is one radio named by the row's text with the button's state; a Compose
/// selectable `View` with a `RadioButton NAF="true"` inside is one radio; a non-clickable
/// Compose `Button` inside a clickable `View` is not a second, unnamed button.
#[test]
fn radio_rows_and_parts_are_one_element() {
    let obs = phone_obs("android_theme_radios.xml");
    assert_golden(
        &obs,
        r#"
        e1 button/ImageButton "Navigate up" chk- en+ foc- sel- ed? pw- cov- @0,63,147,147
        e2 text/TextView "Theme" chk- en+ foc- sel- ed? pw- cov- @189,105,411,63
        e3 text/TextView "Choose a theme" chk- en+ foc- sel- ed? pw- cov- @42,231,996,63
        e4 radio/LinearLayout "Light" chk- en+ foc- sel- ed? pw- cov- @0,315,1080,168 #row
        e5 radio/LinearLayout "Dark" chk+ en+ foc- sel- ed? pw- cov- @0,483,1080,168 #row
        e6 radio/LinearLayout "System default" chk- en+ foc- sel- ed? pw- cov- @0,651,1080,168 #row
        e7 radio/View "Battery saver" chk+ en+ foc- sel- ed? pw- cov- @0,840,1080,168
        e8 radio/View "Performance" chk- en+ foc- sel- ed? pw- cov- @0,1008,1080,168
        e9 button/View "Apply" chk- en+ foc- sel- ed? pw- cov- @42,1197,496,126
"#,
    );
    assert_eq!(
        obs.text,
        "Navigate up Theme Choose a theme Light Dark System default Battery saver Performance Apply"
    );
    let compact = obs.compact();
    assert!(compact.contains("e5 radio \"Dark\" on"), "{compact}");
}

/// A custom tab bar whose current tab is not clickable keeps that tab (selected); a list card
/// whose centre lies under the bottom navigation is covered (a tap there lands on "Home"),
/// the cards above it are not.
#[test]
fn selected_tab_kept_and_card_under_bottom_nav_covered() {
    let obs = phone_obs("android_feed_bottom_nav.xml");
    assert_golden(
        &obs,
        r#"
        e1 button/LinearLayout "For you" chk- en+ foc- sel+ ed? pw- cov- @0,63,360,147 #tab
        e2 button/LinearLayout "Following" chk- en+ foc- sel- ed? pw- cov- @360,63,360,147 #tab
        e3 button/LinearLayout "Local" chk- en+ foc- sel- ed? pw- cov- @720,63,360,147 #tab
        e4 button/FrameLayout "City council approves new bike lanes 2 h ago" chk- en+ foc- sel- ed? pw- cov- @42,231,996,1050 #card
        e5 button/FrameLayout "Storm warning for the weekend 4 h ago" chk- en+ foc- sel- ed? pw- cov- @42,1323,996,630 #card
        e6 button/BottomNavigationItemView "Home" chk- en+ foc- sel+ ed? pw- cov- @0,2148,360,189 #nav_home
        e7 button/FrameLayout "Local team wins the cup 6 h ago" chk- en+ foc- sel- ed? pw- cov+ @42,2016,996,321 #card
        e8 button/BottomNavigationItemView "Search" chk- en+ foc- sel- ed? pw- cov- @360,2148,360,189 #nav_search
        e9 button/BottomNavigationItemView "Saved" chk- en+ foc- sel- ed? pw- cov- @720,2148,360,189 #nav_saved
"#,
    );
}

/// A BottomSheetDialog's window over the app's window: its full-screen `touch_outside` scrim
/// (clickable, unnamed) is not an unnamed button, and everything of the app under it is
/// covered; dumped alone (the dialog's window only), the scrim is still no button.
#[test]
fn sheet_scrim_is_no_button_and_covers_the_app() {
    let obs = phone_obs("android_sheet_scrim.xml");
    assert_golden(
        &obs,
        r#"
        e1 text/TextView "Recent" chk- en+ foc- sel- ed? pw- cov+ @42,105,558,63 #title
        e2 button/ImageView "Photo 1" chk- en+ foc- sel- ed? pw- cov+ @0,210,354,354 #thumb
        e3 button/ImageView "Photo 2" chk- en+ foc- sel- ed? pw- cov+ @363,210,354,354 #thumb
        e4 button/ImageView "Photo 3" chk- en+ foc- sel- ed? pw- cov+ @726,210,354,354 #thumb
        e5 button/ImageView "Photo 4" chk- en+ foc- sel- ed? pw- cov+ @0,573,354,354 #thumb
        e6 button/ImageView "Photo 5" chk- en+ foc- sel- ed? pw- cov+ @363,573,354,354 #thumb
        e7 button/ImageView "Photo 6" chk- en+ foc- sel- ed? pw- cov+ @726,573,354,354 #thumb
        e8 text/TextView "Photo 4" chk- en+ foc- sel- ed? pw- cov- @42,1842,996,84
        e9 button/Button "Share" chk- en+ foc- sel- ed? pw- cov- @42,1968,996,126 #share
        e10 button/Button "Delete" chk- en+ foc- sel- ed? pw- cov- @42,2136,996,126 #delete
"#,
    );
    // The dialog's window alone: the second top-level `<node>` (two-space indent) of the dump.
    let xml = fixture("android_sheet_scrim.xml");
    let roots: Vec<usize> = xml.match_indices("\n  <node").map(|(i, _)| i).collect();
    assert_eq!(roots.len(), 2);
    let alone = format!("{}{}", &xml[..roots[0]], &xml[roots[1]..]);
    let d = android::normalize(&alone, DENSITY).unwrap();
    let obs = build(&d.tree, Screen::from_device_px(1080.0, 2400.0, DENSITY), 2);
    let got: Vec<String> = obs.elements.iter().map(|e| e.describe()).collect();
    assert_eq!(
        got,
        vec![
            "e1 text \"Photo 4\"",
            "e2 button \"Share\"",
            "e3 button \"Delete\""
        ]
    );
}

/// An older dump (no `hint`, no `visible-to-user`) of a dialog's window alone: the window is
/// a dialog named by its title (the popup policy sees it; the title is screen text once), and
/// a field showing "Draft name" — its hint or its text, the dump cannot tell — is labelled by
/// it, not claimed as a typed value.
#[test]
fn dialog_only_dump_and_hint_without_hint_attribute() {
    let obs = phone_obs("android_dialog_only.xml");
    assert_golden(
        &obs,
        r#"
        e1 dialog/FrameLayout "Save draft?" chk- en+ foc- sel- ed? pw- cov- @63,842,954,716
        e2 text/TextView "Save draft?" chk- en+ foc- sel- ed? pw- cov- @126,905,828,85 #alertTitle
        e3 textfield/EditText "Draft name" chk- en+ foc- sel- ed+ pw- cov- @126,1032,828,126 #name
        e4 button/Button "Cancel" chk- en+ foc- sel- ed? pw- cov- @462,1390,240,126 #button2
        e5 button/Button "Save" chk- en+ foc- sel- ed? pw- cov- @723,1390,231,126 #button1
"#,
    );
    assert_eq!(obs.text, "Save draft? Draft name Cancel Save");
}

/// A tool's error line in place of a dump is an error that quotes what came back.
#[test]
fn idle_state_error_quotes_the_answer() {
    let e = android::normalize("ERROR: could not get idle state.\n", DENSITY).unwrap_err();
    assert!(
        e.to_string()
            .contains("\"ERROR: could not get idle state.\""),
        "{e}"
    );
}
