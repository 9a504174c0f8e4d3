use argus_perception::{build, harmony, Screen};

use crate::{assert_golden, fixture};

const DENSITY: f64 = 3.25;

/// HarmonyOS WLAN settings page from `uitest dumpLayout` (string-valued attributes, 1260×2720
/// px): a toggle row, list items that absorb their texts, text inputs with hints, a disabled
/// button, a node below the screen, a zero-height column and an invisible image.
#[test]
fn wlan_page_elements() {
    let v: serde_json::Value = serde_json::from_str(&fixture("harmony_wlan.json")).unwrap();
    let tree = harmony::normalize(&v, DENSITY).unwrap();
    let obs = build(&tree, Screen::from_device_px(1260.0, 2720.0, DENSITY), 1);
    assert_golden(
        &obs,
        r#"
        e1 button/Button "Back" chk- en+ foc- sel- ed? pw? cov- @36,147,96,96 #back
        e2 text/Text "WLAN" chk- en+ foc- sel- ed? pw? cov- @168,159,432,72 #title
        e3 text/Text "WLAN" chk- en+ foc- sel- ed? pw? cov- @84,357,416,72
        e4 switch/Toggle "WLAN" chk+ en+ foc- sel- ed? pw? cov- @1032,357,144,72 #wlan_toggle
        e5 text/Text "AVAILABLE NETWORKS" chk- en+ foc- sel- ed? pw? cov- @84,525,716,48
        e6 button/ListItem "HomeNet-5G Connected" chk- en+ foc- sel- ed? pw? cov- @36,597,1188,168 #net_0
        e7 button/ListItem "Cafe Guest Open" chk- en+ foc- sel- ed? pw? cov- @36,765,1188,168 #net_1
        e8 button/ListItem "Office-WPA3" chk- en+ foc- sel- ed? pw? cov- @36,933,1188,168 #net_2
        e9 textfield/TextInput "" hint="Network name (SSID)" chk- en+ foc+ sel- ed+ pw? cov- @84,1149,1092,120 #ssid_input
        e10 textfield/TextInput "" hint="Password" chk- en+ foc- sel- ed+ pw? cov- @84,1293,1092,120 #pwd_input
        e11 checkbox/Checkbox "" chk- en+ foc- sel- ed? pw? cov- @84,1449,72,72 #show_pwd
        e12 text/Text "Show password" chk- en+ foc- sel- ed? pw? cov- @180,1449,420,72
        e13 button/Button "Connect" chk- en- foc- sel- ed? pw? cov- @84,1569,1092,120 #connect
"#,
    );
    assert!(obs.contains_text("AVAILABLE NETWORKS HomeNet-5G Connected"));
    assert!(!obs.contains_text("More settings"), "below the screen");
}

/// A `Scroll` scrolled part-way (`bounds` clipped to the window only, `origBounds` whole):
/// rows are clipped to the Scroll's viewport, so the row half scrolled out at the top no
/// longer overlaps the title bar and the one running out at the bottom stops at the tab bar;
/// items the list keeps outside its viewport (over the title bar, over the tab bar) are not
/// shown and stay out of the reading order.
#[test]
fn scroll_children_clipped_to_the_viewport() {
    let v: serde_json::Value =
        serde_json::from_str(&fixture("harmony_scrolled_list.json")).unwrap();
    let tree = harmony::normalize(&v, DENSITY).unwrap();
    let obs = build(&tree, Screen::from_device_px(1260.0, 2720.0, DENSITY), 1);
    assert_golden(
        &obs,
        r#"
        e1 text/Text "Settings" chk- en+ foc- sel- ed? pw? cov- @84,159,516,72 #title
        e2 button/ListItem "Brightness, dark mode" chk- en+ foc- sel- ed? pw? cov- @36,273,1188,45 #row_display
        e3 button/ListItem "Sound Volume, vibration" chk- en+ foc- sel- ed? pw? cov- @36,318,1188,168 #row_sound
        e4 button/ListItem "Battery 87%" chk- en+ foc- sel- ed? pw? cov- @36,486,1188,168 #row_battery
        e5 button/ListItem "Storage" chk- en+ foc- sel- ed? pw? cov- @36,2316,1188,84 #row_storage
        e6 button/Column "Home" chk- en+ foc- sel+ ed? pw? cov- @0,2400,420,200 #tab_home
        e7 button/Column "Apps" chk- en+ foc- sel- ed? pw? cov- @420,2400,420,200 #tab_apps
        e8 button/Column "Me" chk- en+ foc- sel- ed? pw? cov- @840,2400,420,200 #tab_me
"#,
    );
    assert!(!obs.contains_text("Network"), "{}", obs.text);
    assert!(!obs.contains_text("Privacy"), "{}", obs.text);
}
