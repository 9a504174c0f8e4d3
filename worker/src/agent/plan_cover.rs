//! A job that ends by pressing a named button the plan never names gets that tap back.
//!
//! Measured with Qwen2.5-Coder-1.5B on MiniWoB++ (`Enter "…" into the text field and press
//! Submit.`): a one-step plan `type "…" into "textfield"` — the field was filled and never
//! submitted, and the run ended `succeeded` with nothing done.
//!
//! Rule: the job's last clause is `<verb> [on] [the] <name> [button]` (verb: press, click,
//! hit, tap, push; the name may be quoted); the plan's screen has exactly one button or
//! link with that name (case and white space ignored), or none and exactly one text or
//! plain element (a clickable `<div>`) and no other element named so (not a field's
//! label); no plan step mentions the name.
//! Then a closing `press Enter` becomes `tap "<name as the screen writes it>"` (the job
//! said the button, not the key), or, where no step presses Enter, the tap is appended.
//! Every other plan is left as it is.

use argus_perception::elements::collapse_ws;
use argus_perception::{Observation, Role};

/// Verbs of a closing press.
const VERBS: &[&str] = &["press", "click", "hit", "tap", "push"];

/// Longest button name read from a job, chars.
const MAX_NAME_CHARS: usize = 40;

/// Most words of a button name read from a job.
const MAX_NAME_WORDS: usize = 4;

/// `plan` with the job's closing button tap appended when the plan dropped it (see the
/// module doc), and whether it was.
pub fn with_closing_tap(
    job: &str,
    mut plan: Vec<String>,
    obs: &Observation,
) -> (Vec<String>, bool) {
    let Some(name) = closing_name(job) else {
        return (plan, false);
    };
    let want = collapse_ws(&name).to_lowercase();
    let named_so = |e: &&argus_perception::Element| collapse_ws(&e.name).to_lowercase() == want;
    // A button or link by that name; else one plain element (a clickable `<div>Submit</div>`
    // reads as text: measured on a web form, the plan pressed Enter there and nothing
    // was submitted).
    let buttons: Vec<_> = obs
        .elements
        .iter()
        .filter(named_so)
        .filter(|e| matches!(e.role, Role::Button | Role::Link))
        .collect();
    // The text must be the only element named so: a field's label ("Search" beside a search
    // box named "Search") is no control to press.
    let all_named: Vec<_> = obs.elements.iter().filter(named_so).collect();
    let plain = all_named
        .iter()
        .all(|e| matches!(e.role, Role::Text | Role::Other));
    let button = match (buttons.as_slice(), all_named.as_slice()) {
        ([one], _) => *one,
        ([], [one]) if plain => *one,
        _ => return (plan, false),
    };
    let enter = |s: &String| {
        let s = s.to_lowercase();
        s.contains("press enter") || s.contains("press \"enter\"")
    };
    // A step that presses the button (not one that only names it as a neighbour: `type "…"
    // into the textfield above "Submit"`).
    let named = plan.iter().any(|s| {
        let s = s.to_lowercase();
        ["tap ", "double tap ", "long press "]
            .iter()
            .any(|v| s.starts_with(v))
            && s.contains(&want)
    });
    if named || plan.is_empty() {
        return (plan, false);
    }
    let tap = format!("tap {:?}", collapse_ws(&button.name));
    // The plan ends with Enter where the job says to press its button: the button, not
    // the key (measured: Enter in a field of a form with a Submit button submitted nothing).
    if plan.last().is_some_and(enter) {
        if let Some(last) = plan.last_mut() {
            *last = tap;
        }
        return (plan, true);
    }
    if plan.iter().any(enter) {
        return (plan, false);
    }
    plan.push(tap);
    (plan, true)
}

/// The button name in the job's last clause `<verb> [on] [the] <name> [button]`.
fn closing_name(job: &str) -> Option<String> {
    closing_name_en(job).or_else(|| closing_name_zh(job))
}

/// A Chinese job's closing press: 点 / 点击 / 单击 / 按 and a button name to the end of
/// the job ("…输完点 Submit。", "然后点击“保存”按钮").
fn closing_name_zh(job: &str) -> Option<String> {
    let job = job.trim().trim_end_matches(['.', '!', '。', '！']);
    let job = job.strip_suffix("按钮").unwrap_or(job);
    let (at, verb) = ["点击", "单击", "点", "按"]
        .iter()
        .filter_map(|v| job.rfind(v).map(|i| (i, *v)))
        .max_by_key(|(i, v)| (*i, v.len()))?;
    let rest = job.get(at + verb.len()..)?.trim();
    let name = rest.trim_matches(['"', '“', '”', '「', '」']).trim();
    let ok = !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name.split_whitespace().count() <= MAX_NAME_WORDS
        && !name.contains(['"', '\'', '“', '”', ',', ';', '，', '；', '、', '：']);
    ok.then(|| name.to_string())
}

fn closing_name_en(job: &str) -> Option<String> {
    let job = job.trim().trim_end_matches(['.', '!']);
    // ASCII lowering keeps byte offsets, so `at` indexes `job` too.
    let lower = job.to_ascii_lowercase();
    // The last verb that starts a word.
    let (at, verb) = VERBS
        .iter()
        .filter_map(|v| {
            lower
                .match_indices(v)
                .filter(|(i, _)| *i == 0 || lower[..*i].ends_with(char::is_whitespace))
                .map(|(i, _)| (i, *v))
                .last()
        })
        .max_by_key(|(i, _)| *i)?;
    let mut rest = job.get(at + verb.len()..)?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    rest = rest.trim_start();
    for lead in ["on ", "the "] {
        if rest.len() >= lead.len() && rest[..lead.len()].eq_ignore_ascii_case(lead) {
            rest = rest[lead.len()..].trim_start();
        }
    }
    let rest = rest.trim();
    let rest = match rest.len().checked_sub(" button".len()) {
        Some(cut) if rest.is_char_boundary(cut) && rest[cut..].eq_ignore_ascii_case(" button") => {
            rest[..cut].trim_end()
        }
        _ => rest,
    };
    let name = rest.trim_matches(['"', '\'', '“', '”']).trim();
    // A label, not the rest of a sentence (nor a verb inside a quoted text: `'tap dance'`).
    let ok = !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name.split_whitespace().count() <= MAX_NAME_WORDS
        && !name.contains(['"', '\'', '“', '”', ',', ';']);
    ok.then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::{closing_name, with_closing_tap};
    use argus_perception::{Observation, Role};

    fn obs(items: &[(Role, &str)]) -> Observation {
        crate::agent::test_screen(items)
    }

    #[test]
    fn the_closing_button_of_a_job() {
        let n = |j: &str| closing_name(j);
        assert_eq!(
            n("Enter \"abc\" into the text field and press Submit.").as_deref(),
            Some("Submit")
        );
        assert_eq!(
            n("Select 03/17/2016 as the date and hit submit.").as_deref(),
            Some("submit")
        );
        assert_eq!(
            n("Fill the form, then click on the \"Save draft\" button").as_deref(),
            Some("Save draft")
        );
        assert_eq!(n("Check the box, then tap 'OK'").as_deref(), Some("OK"));
        assert_eq!(
            n("Click the 3rd tab"),
            Some("3rd tab".into()),
            "read, then matched to no button"
        );
        assert_eq!(
            n("输入“早上好”，不加标点，写完点 Send。").as_deref(),
            Some("Send")
        );
        assert_eq!(n("填好以后点击“保存”按钮").as_deref(), Some("保存"));
        assert_eq!(n("写一句话，句尾不加标点"), None);
        assert_eq!(n("Type hello"), None);
        assert_eq!(
            n("Add the todo 'tap dance' and check it"),
            None,
            "a verb inside quotes"
        );
    }

    #[test]
    fn a_dropped_closing_tap_is_appended_once() {
        let screen = obs(&[(Role::Textfield, ""), (Role::Button, "Submit")]);
        let job = "Enter \"abc\" into the text field and press Submit.";
        let (p, added) =
            with_closing_tap(job, vec!["type 'abc' into \"textfield\"".into()], &screen);
        assert!(added);
        assert_eq!(p.last().map(String::as_str), Some("tap \"Submit\""));
        // A clickable text named so, where no button is, closes the plan in place of Enter.
        let text = obs(&[(Role::Textfield, "Year"), (Role::Text, "Submit")]);
        let (p, added) = with_closing_tap(
            "Year 1990, then make sure it reads 1990 before you hit Submit.",
            vec!["type \"1990\" into \"Year\"".into(), "press Enter".into()],
            &text,
        );
        assert!(added);
        assert_eq!(p, vec!["type \"1990\" into \"Year\"", "tap \"Submit\""]);
        // A text that is a field's label (the box is named so too) is no control: the
        // search box submits on Enter.
        let label = obs(&[(Role::Text, "Search"), (Role::Textfield, "Search")]);
        let plan = vec![
            "type \"oat milk\" into \"Search\"".to_string(),
            "press Enter".into(),
        ];
        let (p, added) = with_closing_tap(
            "Type 'oat milk' into the search box and hit Search.",
            plan.clone(),
            &label,
        );
        assert!(!added);
        assert_eq!(p, plan);
        // A step naming the button only as a neighbour does not press it.
        let (p, added) = with_closing_tap(
            job,
            vec!["type 'abc' into the textfield above \"Submit\"".into()],
            &screen,
        );
        assert!(added);
        assert_eq!(p.last().map(String::as_str), Some("tap \"Submit\""));
        // A closing Enter where the job names its button: the button.
        let (p, added) = with_closing_tap(
            job,
            vec!["type 'abc' into \"textfield\"".into(), "press Enter".into()],
            &screen,
        );
        assert!(added);
        assert_eq!(p, vec!["type 'abc' into \"textfield\"", "tap \"Submit\""]);
        // Already there (any case), or Enter pressed before a later step: left alone.
        for plan in [
            vec![
                "type 'abc' into \"textfield\"".to_string(),
                "tap \"submit\"".into(),
            ],
            vec![
                "type 'abc' into \"textfield\"".to_string(),
                "press Enter".into(),
                "type 'def' into \"textfield\"".into(),
            ],
        ] {
            let (p, added) = with_closing_tap(job, plan.clone(), &screen);
            assert!(!added);
            assert_eq!(p, plan);
        }
        // No such control on the screen (a heading is none), or two: left alone.
        for items in [
            vec![(Role::Textfield, ""), (Role::Heading, "Submit")],
            vec![
                (Role::Textfield, ""),
                (Role::Text, "Submit"),
                (Role::Text, "submit"),
            ],
            vec![(Role::Button, "Submit"), (Role::Link, "submit")],
        ] {
            let (_, added) = with_closing_tap(
                job,
                vec!["type 'abc' into \"textfield\"".into()],
                &obs(&items),
            );
            assert!(!added);
        }
    }
}
