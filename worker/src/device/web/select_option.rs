//! Typing into a `<select>`: the text names the option to choose.
//!
//! A closed native `<select>` takes keys only as type-ahead (the first option starting with
//! what was typed within about a second; a space may open the popup instead), and its
//! options are not on the screen to tap. So the worker chooses the option whose label the
//! text names — as Playwright's `selectOption({label})` does — sets `selectedIndex`, and
//! fires `input` and `change` (bubbling), as a person's choice does.
//!
//! Matching, first tier that answers: the label exactly; the label or value ignoring case
//! and runs of white space; the one option whose label starts with the text; the one
//! option whose label contains it. Disabled options are never chosen. No match, or several
//! in a tier, fails the action with the options it has (so the model can pick one).

use serde_json::{json, Value};

use super::cdp_call::{call_on, object_id};
use super::WebDevice;
use crate::device::ActError;

/// Most option labels quoted in an error.
const LISTED: usize = 20;

const OPTIONS_JS: &str =
    "function () { return Array.from(this.options).map(o => [o.text, o.value, o.disabled]); }";

const CHOOSE_JS: &str = "function (i) { this.selectedIndex = i; \
    this.dispatchEvent(new Event('input', {bubbles: true})); \
    this.dispatchEvent(new Event('change', {bubbles: true})); return this.selectedIndex; }";

/// One `<option>`: label (its text), value, disabled.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Choice {
    label: String,
    value: String,
    disabled: bool,
}

/// Chooses the option of the `<select>` `backend_node_id` that `text` names (see the
/// module doc); fails, with nothing sent, when none or several do.
pub(super) async fn choose(
    dev: &WebDevice,
    backend_node_id: i64,
    text: &str,
) -> Result<(), ActError> {
    let object_id = object_id(dev, backend_node_id).await?;
    let listed = call_on(dev, &object_id, OPTIONS_JS, &[])
        .await
        .map_err(|e| ActError::not_delivered(e.to_string()))?;
    let choices = choices(&listed);
    let index = pick(&choices, text).map_err(ActError::not_delivered)?;
    let took = call_on(dev, &object_id, CHOOSE_JS, &[json!(index)])
        .await
        .map_err(|e| ActError::uncertain(e.to_string()))?;
    if took.as_u64() != Some(index as u64) {
        return Err(ActError::uncertain(format!(
            "the list did not take the option {:?}",
            choices[index].label
        )));
    }
    Ok(())
}

/// The options as `OPTIONS_JS` returns them (`[[text, value, disabled], …]`).
fn choices(v: &Value) -> Vec<Choice> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|o| Choice {
            label: o[0].as_str().unwrap_or_default().to_string(),
            value: o[1].as_str().unwrap_or_default().to_string(),
            disabled: o[2].as_bool().unwrap_or(false),
        })
        .collect()
}

/// Lowercase, white space runs as one space, trimmed.
fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The index of the option `text` names (module doc: the tiers); the error says why none
/// was chosen and lists the options.
fn pick(choices: &[Choice], text: &str) -> Result<usize, String> {
    let want = norm(text);
    let open: Vec<(usize, &Choice)> = choices
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.disabled)
        .collect();
    let tiers: [&dyn Fn(&Choice) -> bool; 4] = [
        &|c| c.label.trim() == text.trim(),
        &|c| norm(&c.label) == want || norm(&c.value) == want,
        &|c| !want.is_empty() && norm(&c.label).starts_with(&want),
        &|c| !want.is_empty() && norm(&c.label).contains(&want),
    ];
    for tier in tiers {
        let hits: Vec<usize> = open
            .iter()
            .filter(|(_, c)| tier(c))
            .map(|(i, _)| *i)
            .collect();
        match hits.as_slice() {
            [one] => return Ok(*one),
            [] => continue,
            many => {
                return Err(format!(
                    "{} options of the list match {text:?}: {}; type the whole label",
                    many.len(),
                    listing(many.iter().map(|&i| &choices[i]))
                ))
            }
        }
    }
    Err(format!(
        "the list has no option {text:?}; its options: {}",
        listing(open.iter().map(|(_, c)| *c))
    ))
}

fn listing<'a>(options: impl Iterator<Item = &'a Choice>) -> String {
    let all: Vec<String> = options.map(|c| format!("{:?}", c.label.trim())).collect();
    let mut out = all
        .iter()
        .take(LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if all.len() > LISTED {
        out.push_str(&format!(" … ({} in all)", all.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{pick, Choice};

    fn list(labels: &[&str]) -> Vec<Choice> {
        labels
            .iter()
            .map(|l| Choice {
                label: l.to_string(),
                value: l.to_lowercase().replace(' ', "-"),
                disabled: l.starts_with('-'),
            })
            .collect()
    }

    #[test]
    fn the_option_the_text_names_by_tier() {
        let l = list(&[
            "Norway",
            "Norfolk Island",
            "North Korea",
            "Niue",
            "-Nowhere",
        ]);
        assert_eq!(pick(&l, "Norfolk Island"), Ok(1));
        assert_eq!(pick(&l, "  norfolk   island "), Ok(1));
        assert_eq!(pick(&l, "north-korea"), Ok(2), "by value");
        assert_eq!(pick(&l, "Norf"), Ok(1), "the one label starting so");
        assert_eq!(pick(&l, "Korea"), Ok(2), "the one label containing it");
        assert_eq!(pick(&l, "Norway"), Ok(0));
    }

    #[test]
    fn no_or_several_matches_fail_with_the_options() {
        let l = list(&["Norway", "Norfolk Island", "North Korea", "-Nowhere"]);
        let e = pick(&l, "Nor").unwrap_err();
        assert!(e.starts_with("3 options of the list match"), "{e}");
        let e = pick(&l, "Peru").unwrap_err();
        assert!(
            e.contains("no option \"Peru\"") && e.contains("\"Norway\""),
            "{e}"
        );
        assert!(
            !e.contains("Nowhere"),
            "disabled options are not offered: {e}"
        );
        assert!(
            pick(&l, "Nowhere").is_err(),
            "a disabled option is never chosen"
        );
        assert!(pick(&l, "").is_err());
    }
}
