//! Resolving a step's [`Target`] against one observation's element list.
//!
//! Names match an element's name, placeholder or value exactly (case-insensitive,
//! whitespace-collapsed, and as people say them: a label's trailing `:` / `：` and a required
//! mark `*` at either end do not count, so `"Password"` names the field labelled
//! `Password:` and `Email *`). Among several exact matches the one whose role takes the
//! action wins: a text field for typing, a checkbox / switch / radio for checking, any control
//! for a tap — over the label text that shows the same name. The role word `checkbox` (the
//! role `check "X"` looks for) takes switches and radio buttons too. Relations (`left of`, `in the row of`, …) are resolved from the
//! boxes: same row = vertical overlap ≥ [`ROW_OVERLAP`] of the smaller height; same column =
//! horizontal overlap ≥ [`COLUMN_OVERLAP`]. Several matches or none fail with a message that
//! names the candidates. The one guess is a role word written as the name (`"switch"`: the
//! only switch on the screen), which [`resolve`] reads and [`resolve_waiting`] leaves out
//! while the target may still appear.

use crate::icon_names;
use argus_perception::elements::collapse_ws;
use argus_perception::{Element, Observation, Role};
use argus_protocol::{Relation, Target};

/// Minimum vertical overlap (fraction of the smaller height) for "same row".
pub const ROW_OVERLAP: f64 = 0.5;
/// Minimum horizontal overlap (fraction of the smaller width) for "same column".
pub const COLUMN_OVERLAP: f64 = 0.3;
/// Most candidates named in an error message.
const MAX_CANDIDATES: usize = 8;

/// What the element will be used for; breaks ties between a control and its label text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Tap / toggle: prefer actionable elements.
    Tap,
    /// Type: prefer text fields.
    Type,
    /// Check, uncheck or read a checked state: prefer checkboxes, switches and radio
    /// buttons.
    Check,
    /// Double tap: prefer what is not a two-state toggle (double-tapping a checkbox only
    /// ticks it twice; a list item's text opens its editor).
    DoubleTap,
}

fn norm(s: &str) -> String {
    collapse_ws(s).to_lowercase()
}

/// [`norm`], then without a label's punctuation: trailing `:` / `：`, a required mark `*` at
/// either end, and the spaces around them (`"Password:"`, `"* Email"`, `"Email *"` →
/// `password`, `email`). A name that is nothing but those marks (a calculator's `*`) stays
/// as it is.
pub(crate) fn name_key(s: &str) -> String {
    let n = without_count(&norm(s));
    let is_mark = |c: char| matches!(c, ':' | '：' | '*') || c.is_whitespace();
    let stripped = n
        .trim_end_matches(is_mark)
        .trim_start_matches(|c: char| c == '*' || c.is_whitespace());
    if stripped.is_empty() {
        n
    } else {
        stripped.to_string()
    }
}

/// `n` without a trailing count in parentheses (`clear completed (2)` → `clear completed`):
/// the count changes as the page does ("Inbox (3)", "Cart (1)"), the control is the same.
/// A name that is nothing but a count stays as it is.
fn without_count(n: &str) -> String {
    let t = n.trim_end();
    if let Some(open) = t.strip_suffix(')').and_then(|r| r.rfind('(')) {
        let inner = &t[open + 1..t.len() - 1];
        let head = t[..open].trim_end();
        if !inner.is_empty() && inner.chars().all(|c| c.is_ascii_digit()) && !head.is_empty() {
            return head.to_string();
        }
    }
    n.to_string()
}

/// Whether `e` is a two-state toggle: checkbox, switch or radio button.
pub fn is_toggle(e: &Element) -> bool {
    matches!(e.role, Role::Checkbox | Role::Switch | Role::Radio)
}

fn role_ok(e: &Element, role: Option<&str>) -> bool {
    match role.map(Role::parse) {
        None => true,
        // `check "X"` means the toggle, whatever it is drawn as.
        Some(Some(Role::Checkbox)) => is_toggle(e),
        Some(r) => r == Some(e.role),
    }
}

fn list(els: &[&Element]) -> String {
    let mut s: Vec<String> = els
        .iter()
        .take(MAX_CANDIDATES)
        .map(|e| e.describe())
        .collect();
    if els.len() > MAX_CANDIDATES {
        s.push(format!("… {} more", els.len() - MAX_CANDIDATES));
    }
    s.join(", ")
}

/// Whether `e` takes typed text: a text field, a combobox (an editable list, or a closed
/// `<select>` whose option the web worker chooses by the typed text), or anything the
/// platform says is editable.
pub fn takes_text(e: &Element) -> bool {
    matches!(e.role, Role::Textfield | Role::Combobox) || e.editable.is_yes()
}

/// The only candidate, else the one that suits `purpose` (see [`single_preferred`]).
fn the_one<'a>(cands: &[&'a Element], purpose: Purpose) -> Option<&'a Element> {
    match cands {
        [one] => Some(one),
        _ => single_preferred(cands, purpose),
    }
}

/// The one candidate that suits `purpose` (a control for a tap, a field for typing), if
/// exactly one does.
fn single_preferred<'a>(cands: &[&'a Element], purpose: Purpose) -> Option<&'a Element> {
    let mut it = cands.iter().copied().filter(|e| match purpose {
        Purpose::Tap => e.role.is_actionable(),
        Purpose::Type => takes_text(e),
        Purpose::Check => is_toggle(e),
        Purpose::DoubleTap => !is_toggle(e),
    });
    match (it.next(), it.next()) {
        (Some(e), None) => Some(e),
        _ => None,
    }
}

fn named<'a>(
    obs: &'a Observation,
    name: &str,
    role: Option<&str>,
    purpose: Purpose,
    guess: bool,
) -> Result<&'a Element, String> {
    let want = norm(name);
    let key = name_key(name);
    let exact: Vec<&Element> = obs
        .elements
        .iter()
        .filter(|e| role_ok(e, role) && e.labels().any(|l| name_key(l) == key))
        .collect();
    match exact.len() {
        1 => return Ok(exact[0]),
        0 => {}
        _ => {
            if let Some(e) = single_preferred(&exact, purpose) {
                return Ok(e);
            }
            if let Some(e) = innermost_of_nested(&exact) {
                return Ok(e);
            }
            return Err(format!(
                "{} elements match {:?}: {}; name it by its row or neighbour, e.g. `tap the \
                 button in the row of \"…\"`",
                exact.len(),
                name,
                list(&exact)
            ));
        }
    }
    // Second tier: the phrase appears whole (at word boundaries) in exactly one label,
    // e.g. `tap "Clear completed"` → button "Clear completed (1)". Unique or nothing.
    let contains: Vec<&Element> = obs
        .elements
        .iter()
        .filter(|e| role_ok(e, role) && e.labels().any(|l| contains_phrase(&norm(l), &want)))
        .collect();
    if let Some(e) = the_one(&contains, purpose) {
        return Ok(e);
    }
    if contains.len() > 1 {
        return Err(format!(
            "no element is named exactly {name:?} and {} contain it: {}; use the full name",
            contains.len(),
            list(&contains)
        ));
    }
    // An icon-only control by what it means: `"Delete"` → the button drawn `×`, `"Remove"`.
    let by_meaning: Vec<&Element> = obs
        .elements
        .iter()
        .filter(|e| role_ok(e, role) && e.labels().any(|l| icon_names::means(l, &key)))
        .collect();
    if let Some(e) = the_one(&by_meaning, purpose) {
        return Ok(e);
    }
    // A role written as the name: `"textfield"` (the one text field), `"button 'Search'"`
    // (a role and a name in one quoted string) — measured: Qwen2.5-Coder-1.5B planned
    // `type 'Kasie' into "textfield"` for the page's one unnamed field.
    if role.is_none() {
        // Role names that are no English word (`textfield`, `combobox`, `menuitem`: the
        // listing's own tokens, never a label) are read at once; `button`, `switch`, `tab`…
        // could be a label still to come, so only once the wait ran out.
        let coined = |r: &Role| matches!(r, Role::Textfield | Role::Combobox | Role::Menuitem);
        if let Some(r) = Role::parse(&want).filter(|r| r.is_actionable() && (guess || coined(r))) {
            let of_role: Vec<&Element> = obs.elements.iter().filter(|e| e.role == r).collect();
            if of_role.len() == 1 {
                return Ok(of_role[0]);
            }
        }
        if let Some((head, rest)) = want.split_once(' ') {
            let inner = rest.trim().trim_matches(|c| c == '\'' || c == '"');
            let quoted = rest.trim().len() >= inner.len() + 2;
            if let Some(r) = Role::parse(head).filter(|_| quoted && !inner.is_empty()) {
                if let Ok(e) = named(obs, inner, Some(r.as_str()), purpose, guess) {
                    return Ok(e);
                }
            }
        }
    }
    // A name copied from a shortened listing (`"sagittis justo rhoncus…"`, `"…..."`): the
    // one element whose name starts with what precedes the ellipsis.
    if let Some(head) = ellipsis_head(&want) {
        let starts: Vec<&Element> = obs
            .elements
            .iter()
            .filter(|e| role_ok(e, role) && e.labels().any(|l| norm(l).starts_with(head)))
            .collect();
        if let Some(e) = the_one(&starts, purpose) {
            return Ok(e);
        }
    }
    Err(not_found(obs, name, &want, role))
}

/// The error for a name no tier resolved: the similar names, or everything visible.
fn not_found(obs: &Observation, name: &str, want: &str, role: Option<&str>) -> String {
    let near: Vec<&Element> = obs
        .elements
        .iter()
        .filter(|e| {
            e.labels().any(|l| {
                let l = norm(l);
                !l.is_empty() && (l.contains(want) || want.contains(&l))
            })
        })
        .collect();
    let role_txt = role.map(|r| format!(" ({r})")).unwrap_or_default();
    if near.is_empty() {
        let visible: Vec<&Element> = obs.elements.iter().collect();
        format!(
            "no element named {name:?}{role_txt} on screen; visible: {}",
            if visible.is_empty() {
                "nothing".to_string()
            } else {
                list(&visible)
            }
        )
    } else {
        format!(
            "no element named exactly {name:?}{role_txt}; similar: {}",
            list(&near)
        )
    }
}

/// Shortest text before an ellipsis that still names one thing rather than a word, chars.
const MIN_ELLIPSIS_HEAD: usize = 8;

/// What precedes a trailing `...` / `…` in a wanted name, trimmed, when it is at least
/// [`MIN_ELLIPSIS_HEAD`] chars long.
fn ellipsis_head(want: &str) -> Option<&str> {
    let head = want
        .strip_suffix("...")
        .or_else(|| want.strip_suffix('…'))?
        .trim_end();
    (head.chars().count() >= MIN_ELLIPSIS_HEAD).then_some(head)
}

/// Same-named matches nested inside one another (a `tab` around its `link`, a list item
/// around its button) are one control: the innermost, when every other match's box
/// contains it.
fn innermost_of_nested<'a>(cands: &[&'a Element]) -> Option<&'a Element> {
    let inner = cands
        .iter()
        .copied()
        .filter(|e| e.bbox_px.area() > 0.0)
        .min_by(|a, b| a.bbox_px.area().total_cmp(&b.bbox_px.area()))?;
    cands
        .iter()
        .all(|e| std::ptr::eq(*e, inner) || e.bbox_px.contains_rect(&inner.bbox_px))
        .then_some(inner)
}

/// True when `phrase` occurs in `hay` bounded by non-alphanumerics (or the ends).
fn contains_phrase(hay: &str, phrase: &str) -> bool {
    if phrase.is_empty() {
        return false;
    }
    hay.match_indices(phrase).any(|(i, m)| {
        let before = hay[..i].chars().next_back();
        let after = hay[i + m.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The anchor a relative target is placed by (`"pay rent"` in `"Delete" in the row of "pay
/// rent"`), when exactly one element carries that name in `obs`; `None` for a plain name.
pub fn anchor_of<'a>(obs: &'a Observation, target: &Target) -> Option<&'a Element> {
    if target.relation == Relation::Named {
        return None;
    }
    named(obs, &target.name, None, Purpose::Tap, false).ok()
}

/// Finds the one element `target` names in `obs`, or explains why not — including the
/// last-resort reading of a bare role word as a name (`"textfield"`: the only text field),
/// which [`resolve_waiting`] leaves out.
pub fn resolve<'a>(
    obs: &'a Observation,
    target: &Target,
    purpose: Purpose,
) -> Result<&'a Element, String> {
    resolve_with(obs, target, purpose, true)
}

/// [`resolve`] without the bare-role reading of English role words, for polls while a
/// target may still appear: `tap "Switch"` waits for an element named "Switch" rather than
/// taking the page's one switch at once (the waiting caller tries [`resolve`] when its wait
/// runs out); `"textfield"`, `"combobox"`, `"menuitem"` are read at once.
pub fn resolve_waiting<'a>(
    obs: &'a Observation,
    target: &Target,
    purpose: Purpose,
) -> Result<&'a Element, String> {
    resolve_with(obs, target, purpose, false)
}

fn resolve_with<'a>(
    obs: &'a Observation,
    target: &Target,
    purpose: Purpose,
    guess: bool,
) -> Result<&'a Element, String> {
    if target.relation == Relation::Named {
        return named(obs, &target.name, target.role.as_deref(), purpose, guess);
    }
    let role = target.role.as_deref();
    // `check "Remember me"` where the checkbox itself carries the name.
    if target.relation == Relation::InRowOf && target.label.is_none() {
        if let Ok(e) = named(obs, &target.name, role, purpose, guess) {
            return Ok(e);
        }
    }
    let anchor = named(obs, &target.name, None, Purpose::Tap, guess)
        .map_err(|e| format!("cannot place {target}: {e}"))?;
    let a = anchor.bbox_logical;
    let (ax, ay) = a.center();
    // `"Add" in the row of "Users"`: only elements whose own label is (or contains, as a
    // phrase) that name.
    let label_ok = |e: &Element| match &target.label {
        None => true,
        Some(l) => {
            let want = norm(l);
            e.labels().any(|x| {
                name_key(x) == name_key(l)
                    || contains_phrase(&norm(x), &want)
                    || icon_names::means(x, &name_key(l))
            })
        }
    };
    let mut cands: Vec<(f64, &Element)> = obs
        .elements
        .iter()
        .filter(|e| e.id != anchor.id && role_ok(e, role) && label_ok(e))
        .filter_map(|e| {
            let b = e.bbox_logical;
            let (bx, by) = b.center();
            let same_row = b.v_overlap(&a) >= ROW_OVERLAP;
            let same_col = b.h_overlap(&a) >= COLUMN_OVERLAP;
            let d = match target.relation {
                Relation::LeftOf if same_row && bx < a.x => a.x - b.right(),
                Relation::RightOf if same_row && bx > a.right() => b.x - a.right(),
                Relation::Above if same_col && by < a.y => a.y - b.bottom(),
                Relation::Below if same_col && by > a.bottom() => b.y - a.bottom(),
                Relation::InRowOf if same_row => (bx - ax).abs() + (by - ay).abs() * 0.01,
                _ => return None,
            };
            Some((d.max(0.0), e))
        })
        .collect();
    cands.sort_by(|x, y| x.0.total_cmp(&y.0));
    match cands.first() {
        Some((_, e)) => Ok(e),
        None => Err(format!(
            "no {}{} found {} {} (anchor {})",
            role.unwrap_or("element"),
            target
                .label
                .as_ref()
                .map(|l| format!(" named {l:?}"))
                .unwrap_or_default(),
            match target.relation {
                Relation::LeftOf => "left of",
                Relation::RightOf => "right of",
                Relation::Above => "above",
                Relation::Below => "below",
                _ => "in the row of",
            },
            format_args!("{:?}", target.name),
            anchor.describe()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_perception::{build, Node, Rect, Screen, Tree};

    fn obs(nodes: Vec<(Role, &str, Rect)>) -> Observation {
        let mut tree = Tree::default();
        tree.nodes.push(Node::new(Role::Other, "root", ""));
        tree.nodes[0].bounds = Some(Rect::new(0.0, 0.0, 500.0, 500.0));
        for (r, name, b) in nodes {
            let mut n = Node::new(r, r.as_str(), name);
            n.bounds = Some(b);
            n.parent = Some(0);
            tree.nodes.push(n);
        }
        let screen = Screen {
            width: 500.0,
            height: 500.0,
            dpr: 1.0,
        };
        build(&tree, screen, 1)
    }

    #[test]
    fn a_count_in_a_name_does_not_count_against_it() {
        let o = obs(vec![(
            Role::Button,
            "Clear completed (3)",
            Rect::new(0.0, 100.0, 140.0, 40.0),
        )]);
        let t = Target {
            role: None,
            name: "Clear completed (2)".into(),
            relation: Relation::Named,
            label: None,
        };
        assert!(resolve(&o, &t, Purpose::Tap).is_ok());
        assert_eq!(without_count("(2)"), "(2)");
        assert_eq!(without_count("page (a)"), "page (a)");
    }

    #[test]
    fn checkbox_left_of_label_picks_its_own_row() {
        let o = obs(vec![
            (Role::Checkbox, "", Rect::new(0.0, 100.0, 40.0, 40.0)),
            (Role::Text, "buy milk", Rect::new(60.0, 110.0, 80.0, 20.0)),
            (Role::Checkbox, "", Rect::new(0.0, 160.0, 40.0, 40.0)),
            (Role::Text, "walk dog", Rect::new(60.0, 170.0, 80.0, 20.0)),
        ]);
        let t = Target {
            role: Some("checkbox".into()),
            name: "walk dog".into(),
            relation: Relation::LeftOf,
            label: None,
        };
        let e = resolve(&o, &t, Purpose::Tap).unwrap();
        assert_eq!(e.bbox_logical.y, 160.0);
    }

    #[test]
    fn ambiguous_and_missing_name_candidates() {
        let o = obs(vec![
            (Role::Button, "Delete", Rect::new(0.0, 0.0, 40.0, 20.0)),
            (Role::Button, "Delete", Rect::new(0.0, 50.0, 40.0, 20.0)),
            (Role::Button, "Save draft", Rect::new(0.0, 90.0, 40.0, 20.0)),
        ]);
        let e = resolve(&o, &Target::named("Delete"), Purpose::Tap).unwrap_err();
        assert!(
            e.contains("2 elements match") && e.contains("e1") && e.contains("e2"),
            "{e}"
        );
        assert_eq!(
            resolve(&o, &Target::named("Save"), Purpose::Tap)
                .unwrap()
                .id,
            "e3"
        );
        let e = resolve(&o, &Target::named("Sav"), Purpose::Tap).unwrap_err();
        assert!(e.contains("Save draft"), "{e}");
        assert_eq!(
            resolve(&o, &Target::named("save DRAFT"), Purpose::Tap)
                .unwrap()
                .id,
            "e3"
        );
    }

    #[test]
    fn a_named_target_narrowed_by_its_row() {
        // Two rows, each with its own "Add" button; the row's text picks one.
        let o = obs(vec![
            (Role::Text, "Users", Rect::new(0.0, 100.0, 80.0, 20.0)),
            (Role::Button, "Add", Rect::new(300.0, 100.0, 60.0, 20.0)),
            (Role::Button, "Edit", Rect::new(380.0, 100.0, 60.0, 20.0)),
            (Role::Text, "Groups", Rect::new(0.0, 200.0, 80.0, 20.0)),
            (Role::Button, "Add", Rect::new(300.0, 200.0, 60.0, 20.0)),
        ]);
        let t = Target {
            role: None,
            name: "Groups".into(),
            relation: Relation::InRowOf,
            label: Some("Add".into()),
        };
        assert_eq!(resolve(&o, &t, Purpose::Tap).unwrap().bbox_logical.y, 200.0);
        let t = Target {
            label: Some("Delete".into()),
            ..t
        };
        let e = resolve(&o, &t, Purpose::Tap).unwrap_err();
        assert!(e.contains("named \"Delete\""), "{e}");
    }

    #[test]
    fn a_double_tap_goes_to_the_text_not_the_toggle_named_by_it() {
        let o = obs(vec![
            (
                Role::Checkbox,
                "walk the dog",
                Rect::new(10.0, 100.0, 20.0, 20.0),
            ),
            (
                Role::Text,
                "walk the dog",
                Rect::new(40.0, 100.0, 200.0, 20.0),
            ),
        ]);
        let t = Target::named("walk the dog");
        assert_eq!(
            resolve(&o, &t, Purpose::DoubleTap).unwrap().role,
            Role::Text
        );
        assert_eq!(resolve(&o, &t, Purpose::Tap).unwrap().role, Role::Checkbox);
    }

    #[test]
    fn control_wins_over_its_label_text() {
        let o = obs(vec![
            (Role::Text, "Email", Rect::new(0.0, 0.0, 40.0, 20.0)),
            (Role::Textfield, "Email", Rect::new(50.0, 0.0, 100.0, 20.0)),
        ]);
        let e = resolve(&o, &Target::named("Email"), Purpose::Type).unwrap();
        assert_eq!(e.role, Role::Textfield);
    }

    #[test]
    fn a_label_colon_or_required_mark_is_not_part_of_the_name() {
        // A sign-up form: each field named by its `<label>` ("Password:"), the label's text
        // shown beside it, and a longer label that also contains the word.
        let o = obs(vec![
            (Role::Text, "Email *", Rect::new(0.0, 0.0, 80.0, 20.0)),
            (
                Role::Textfield,
                "Email *",
                Rect::new(100.0, 0.0, 150.0, 20.0),
            ),
            (Role::Text, "Password:", Rect::new(0.0, 40.0, 80.0, 20.0)),
            (
                Role::Textfield,
                "Password:",
                Rect::new(100.0, 40.0, 150.0, 20.0),
            ),
            (
                Role::Text,
                "Password confirmation:",
                Rect::new(0.0, 80.0, 80.0, 20.0),
            ),
            (
                Role::Textfield,
                "Password confirmation：",
                Rect::new(100.0, 80.0, 150.0, 20.0),
            ),
            (
                Role::Link,
                "Forgot your password?",
                Rect::new(0.0, 120.0, 80.0, 20.0),
            ),
            (Role::Button, "*", Rect::new(0.0, 160.0, 20.0, 20.0)),
        ]);
        let field =
            |name: &str, p: Purpose| resolve(&o, &Target::named(name), p).unwrap().id.clone();
        assert_eq!(field("Password", Purpose::Type), "e4");
        assert_eq!(field("password:", Purpose::Type), "e4");
        assert_eq!(field("Password confirmation", Purpose::Type), "e6");
        assert_eq!(field("Email", Purpose::Type), "e2");
        // A tap prefers the control too; a name that is only a mark keeps it.
        assert_eq!(field("Password", Purpose::Tap), "e4");
        assert_eq!(field("*", Purpose::Tap), "e8");
        // With a role, the label text is not a candidate at all.
        let t = Target {
            role: Some("textfield".into()),
            ..Target::named("Password")
        };
        assert_eq!(resolve(&o, &t, Purpose::Type).unwrap().id, "e4");
    }

    #[test]
    fn checking_prefers_the_toggle_and_checkbox_means_any_toggle() {
        let o = obs(vec![
            (Role::Text, "Remember me", Rect::new(30.0, 0.0, 80.0, 20.0)),
            (
                Role::Checkbox,
                "Remember me",
                Rect::new(0.0, 0.0, 20.0, 20.0),
            ),
            (
                Role::Button,
                "Remember me",
                Rect::new(200.0, 0.0, 80.0, 20.0),
            ),
            (Role::Switch, "Wi-Fi", Rect::new(0.0, 40.0, 40.0, 20.0)),
            (Role::Text, "Wi-Fi", Rect::new(50.0, 40.0, 60.0, 20.0)),
        ]);
        let e = resolve(&o, &Target::named("Remember me"), Purpose::Check).unwrap();
        assert_eq!(e.role, Role::Checkbox);
        // A tap among two controls stays ambiguous.
        assert!(resolve(&o, &Target::named("Remember me"), Purpose::Tap).is_err());
        // `check "Wi-Fi"`: the checkbox in its row — here a switch.
        let t = Target {
            role: Some("checkbox".into()),
            name: "Wi-Fi".into(),
            relation: Relation::InRowOf,
            label: None,
        };
        assert_eq!(resolve(&o, &t, Purpose::Check).unwrap().role, Role::Switch);
    }

    #[test]
    fn nested_same_named_controls_are_one() {
        // A tab around its link (MiniWoB click-tab, jQuery UI tabs): the inner link.
        let o = obs(vec![
            (Role::Tab, "Tab #2", Rect::new(100.0, 0.0, 80.0, 30.0)),
            (Role::Link, "Tab #2", Rect::new(110.0, 5.0, 60.0, 20.0)),
        ]);
        let e = resolve(&o, &Target::named("Tab #2"), Purpose::Tap).unwrap();
        assert_eq!(e.role, Role::Link);
        // Side by side, they stay ambiguous.
        let o = obs(vec![
            (Role::Tab, "Tab #2", Rect::new(100.0, 0.0, 80.0, 30.0)),
            (Role::Link, "Tab #2", Rect::new(200.0, 5.0, 60.0, 20.0)),
        ]);
        assert!(resolve(&o, &Target::named("Tab #2"), Purpose::Tap).is_err());
    }

    #[test]
    fn a_name_cut_with_an_ellipsis_matches_by_its_start() {
        let o = obs(vec![
            (
                Role::Link,
                "sagittis justo rhoncus, ut eu nam pulvinar",
                Rect::new(0.0, 0.0, 300.0, 20.0),
            ),
            (Role::Link, "eu", Rect::new(0.0, 40.0, 30.0, 20.0)),
        ]);
        for name in [
            "sagittis justo rhoncus, ut eu nam...",
            "Sagittis justo rhoncus…",
        ] {
            let e = resolve(&o, &Target::named(name), Purpose::Tap).unwrap();
            assert_eq!(e.id, "e1", "{name}");
        }
        // Too short a head names nothing by itself.
        assert!(resolve(&o, &Target::named("sagi..."), Purpose::Tap).is_err());
    }

    #[test]
    fn a_role_written_as_the_name() {
        let o = obs(vec![
            (Role::Textfield, "", Rect::new(0.0, 0.0, 100.0, 20.0)),
            (Role::Button, "Search", Rect::new(120.0, 0.0, 60.0, 20.0)),
            (Role::Text, "Search", Rect::new(0.0, 40.0, 60.0, 20.0)),
        ]);
        let e = resolve(&o, &Target::named("textfield"), Purpose::Type).unwrap();
        assert_eq!(e.role, Role::Textfield);
        // While a target may still appear, an English role word is only a name; the
        // listing's own tokens are not words anyone labels a control with.
        assert!(resolve_waiting(&o, &Target::named("textfield"), Purpose::Type).is_ok());
        assert!(resolve_waiting(&o, &Target::named("button"), Purpose::Tap).is_err());
        assert!(resolve(&o, &Target::named("button"), Purpose::Tap).is_ok());
        let e = resolve(&o, &Target::named("button 'Search'"), Purpose::Tap).unwrap();
        assert_eq!(e.role, Role::Button);
        // Two of the role: still an error.
        let o = obs(vec![
            (Role::Textfield, "", Rect::new(0.0, 0.0, 100.0, 20.0)),
            (Role::Textfield, "", Rect::new(0.0, 40.0, 100.0, 20.0)),
        ]);
        assert!(resolve(&o, &Target::named("textfield"), Purpose::Type).is_err());
    }
}
