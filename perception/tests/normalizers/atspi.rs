use argus_perception::atspi::{self, AtspiNode};
use argus_perception::{build, Screen};

use crate::{assert_golden, fixture};

/// A GTK text editor window as the worker reads it over AT-SPI (screen coordinates, window at
/// 200,100): menus (layout-only here), tool buttons one of them insensitive, a pressed toggle,
/// a combo box, a checked check box, a focused editable text view, a status label, an empty
/// label and a button that is not showing.
#[test]
fn editor_window_elements() {
    let root: AtspiNode = serde_json::from_str(&fixture("atspi_editor.json")).unwrap();
    let tree = atspi::normalize(&root, (200.0, 100.0));
    let screen = Screen {
        width: 800.0,
        height: 600.0,
        dpr: 1.0,
    };
    let obs = build(&tree, screen, 1);
    assert_golden(
        &obs,
        r#"
        e1 menuitem/menu "File" chk? en+ foc- sel- ed- pw? cov- @0,0,44,28
        e2 menuitem/menu "Edit" chk? en+ foc- sel- ed- pw? cov- @44,0,44,28
        e3 menuitem/menu "Help" chk? en+ foc- sel- ed- pw? cov- @88,0,48,28
        e4 button/push button "New" chk? en+ foc- sel- ed- pw? cov- @4,32,32,32
        e5 button/push button "Open" chk? en+ foc- sel- ed- pw? cov- @40,32,32,32
        e6 button/push button "Save" chk? en- foc- sel- ed- pw? cov- @76,32,32,32
        e7 switch/toggle button "Bold" chk+ en+ foc- sel- ed- pw? cov- @120,32,32,32
        e8 combobox/combo box "Sans 11" chk? en+ foc- sel- ed- pw? cov- @160,32,140,32 #font_combo
        e9 checkbox/check box "Word wrap" chk+ en+ foc- sel- ed- pw? cov- @320,36,110,24
        e10 textfield/text "" ="Hello world" chk? en+ foc+ sel- ed+ pw- cov- @0,68,786,508 #editor
        e11 text/label "Ln 1, Col 12" chk? en+ foc- sel- ed- pw? cov- @8,578,120,20
"#,
    );
    assert_eq!(obs.element("e10").unwrap().path, vec![0, 0, 2, 0]);
}
