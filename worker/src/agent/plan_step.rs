//! The planner's steps as typed records of the step language: a kind, a target and a text
//! (`{"do": "type", "target": "Username", "text": "ann"}`), never a free sentence. The JSON
//! schema the planner answers to is built from [`StepKind::ALL`] (the way the action tools
//! come from `ActionKind`), so a small model with grammar-constrained output only maps each
//! clause of the job to a kind and copies names; Argus writes the step-language line
//! ([`PlanStep::line`]) and resolves it deterministically. `ai` carries, in plain words,
//! what the step language cannot say; the model then carries it out action by action.
//!
//! Why typed: with free strings a 1.5B model wrote page hints and lead words as steps
//! (`tap "Confirm"`, `double tap "Double-click to edit a todo"`), mixed verbs and prose, and
//! each line needed a repair rule; a kind from a closed list cannot be a made-up verb.

use argus_protocol::replay::quote;
use argus_protocol::script::{Script, Step};
use serde_json::{json, Value};

/// A kind of planned step. Each but [`StepKind::Ai`] becomes one step-language line.
/// Measured on the paraphrase set's dev split with Qwen2.5-Coder-1.5B: naming the toggle
/// kinds `tick` / `untick` made the model type "check off X" as a new item (two of two
/// runs); with `check` it once planned "check that the Year box reads 1994" as `check
/// "Year"`, which `plan::without_checks` drops (a check on a name only text fields carry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// `tap "T"`
    Tap,
    /// `double tap "T"`
    DoubleTap,
    /// `type "X" into "T"` (`type "X"` with no target: the focused field)
    Type,
    /// `check "T"`: tick a checkbox or switch, or complete a list item by its text
    Check,
    /// `uncheck "T"`
    Uncheck,
    /// `check every item`: tick every checkbox or switch on the screen that is not ticked
    /// (complete all; Argus walks them, see `agent::check_every`)
    CheckAll,
    /// `uncheck every item`
    UncheckAll,
    /// `tap "Delete" in the row of "T"`: remove the list item or table row showing T (its
    /// delete button, an icon `×` or one shown only under the pointer, found by the resolver)
    Delete,
    /// `double tap "T"`, `type "X" into "T"`, `press Enter`: change an item's text T to X in
    /// place (the edit field that opens holds T)
    Rename,
    /// `press K`
    Press,
    /// `swipe D` / `swipe D on "T"`
    Swipe,
    /// `swipe up until "X" is visible up to 10 swipes`
    ScrollTo,
    /// `wait for "X"`
    WaitFor,
    /// `go back`
    Back,
    /// `assert screen contains "X"`
    AssertShows,
    /// `assert screen does not contain "X"`
    AssertNotShown,
    /// `assert "T" is checked`
    AssertChecked,
    /// `assert "T" is not checked`
    AssertNotChecked,
    /// `assert "T" has value "X"` (`assert "T" is empty` with no text)
    AssertValue,
    /// A free instruction (in `text`) the step language cannot say; the model acts it out.
    Ai,
}

impl StepKind {
    /// Every kind, in the order the planner's prompt lists them.
    pub const ALL: [StepKind; 20] = [
        StepKind::Tap,
        StepKind::DoubleTap,
        StepKind::Type,
        StepKind::Check,
        StepKind::Uncheck,
        StepKind::CheckAll,
        StepKind::UncheckAll,
        StepKind::Delete,
        StepKind::Rename,
        StepKind::Press,
        StepKind::Swipe,
        StepKind::ScrollTo,
        StepKind::WaitFor,
        StepKind::Back,
        StepKind::AssertShows,
        StepKind::AssertNotShown,
        StepKind::AssertChecked,
        StepKind::AssertNotChecked,
        StepKind::AssertValue,
        StepKind::Ai,
    ];

    /// The kinds that check and never act: those an `expect` entry may use.
    pub const CHECKS: [StepKind; 5] = [
        StepKind::AssertShows,
        StepKind::AssertNotShown,
        StepKind::AssertChecked,
        StepKind::AssertNotChecked,
        StepKind::AssertValue,
    ];

    /// The name the schema's `do` enum and the prompt use.
    pub fn name(self) -> &'static str {
        match self {
            StepKind::Tap => "tap",
            StepKind::DoubleTap => "double_tap",
            StepKind::Type => "type",
            StepKind::Check => "check",
            StepKind::Uncheck => "uncheck",
            StepKind::CheckAll => "check_all",
            StepKind::UncheckAll => "uncheck_all",
            StepKind::Delete => "delete",
            StepKind::Rename => "rename",
            StepKind::Press => "press",
            StepKind::Swipe => "swipe",
            StepKind::ScrollTo => "scroll_to",
            StepKind::WaitFor => "wait_for",
            StepKind::Back => "back",
            StepKind::AssertShows => "assert_shows",
            StepKind::AssertNotShown => "assert_not_shown",
            StepKind::AssertChecked => "assert_checked",
            StepKind::AssertNotChecked => "assert_not_checked",
            StepKind::AssertValue => "assert_value",
            StepKind::Ai => "ai",
        }
    }

    /// The kind named `name`, if any.
    pub fn from_name(name: &str) -> Option<StepKind> {
        StepKind::ALL.into_iter().find(|k| k.name() == name.trim())
    }

    /// What the kind does and what its `target` / `text` hold, for the planner's prompt.
    pub fn help(self) -> &'static str {
        match self {
            StepKind::Tap => "tap the target (a button, link, tab, menu item or option)",
            StepKind::DoubleTap => "double-tap the target",
            StepKind::Type => {
                "type text into the target field (no tap first; a field that already holds text is replaced)"
            }
            StepKind::Check => {
                "tick the target checkbox or switch; a list item is completed (ticked off, marked done) by checking its text (a check that something is shown is no step)"
            }
            StepKind::Uncheck => "untick the target checkbox, switch or list item",
            StepKind::CheckAll => {
                "tick every checkbox and list item on the screen at once (complete all, mark everything done); no target"
            }
            StepKind::UncheckAll => {
                "untick every ticked checkbox and list item on the screen (reopen all); no target"
            }
            StepKind::Delete => {
                "delete, remove or get rid of the list item or row whose text is the target"
            }
            StepKind::Rename => {
                "change the text of the item shown as the target to text (rename, edit, correct it in place)"
            }
            StepKind::Press => "press the key named in text (Enter, Tab, Escape, Backspace)",
            StepKind::Swipe => "swipe the direction in text (up scrolls the content down)",
            StepKind::ScrollTo => "scroll until text is on the screen",
            StepKind::WaitFor => "wait until text appears by itself",
            StepKind::Back => "go back",
            StepKind::AssertShows => "the screen must show text",
            StepKind::AssertNotShown => "the screen must not show text",
            StepKind::AssertChecked => "the target checkbox or list item must be ticked",
            StepKind::AssertNotChecked => "the target checkbox or list item must not be ticked",
            StepKind::AssertValue => "the target field must hold exactly text",
            StepKind::Ai => {
                "anything no kind above can say, in plain words in text (for example a control the screen does not name)"
            }
        }
    }

    /// Whether the kind checks and never acts.
    pub fn checks(self) -> bool {
        StepKind::CHECKS.contains(&self)
    }

    /// Whether the kind needs a target (else it falls back to the text).
    fn wants_target(self) -> bool {
        matches!(
            self,
            StepKind::Tap
                | StepKind::DoubleTap
                | StepKind::Check
                | StepKind::Uncheck
                | StepKind::Delete
                | StepKind::Rename
                | StepKind::AssertChecked
                | StepKind::AssertNotChecked
                | StepKind::AssertValue
        )
    }
}

/// One planned step as the planner answered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanStep {
    /// What to do.
    pub kind: StepKind,
    /// The element, as the screen's list names it; empty when the kind needs none.
    pub target: String,
    /// The text to type, the key, the direction, the text to look for, or the free
    /// instruction of an `ai` step; empty when the kind needs none.
    pub text: String,
}

/// Most characters of a step's `target` or `text` the schema allows: a grammar-constrained
/// server stops a runaway string there (measured: a 1.5B model's plan ran past its token
/// budget inside one string).
pub const MAX_FIELD_CHARS: usize = 200;

/// The JSON schema of one step whose `do` is one of `kinds`.
pub fn schema(kinds: &[StepKind]) -> Value {
    let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
    json!({"type": "object", "additionalProperties": false,
        "required": ["do", "target", "text"],
        "properties": {
            "do": {"type": "string", "enum": names},
            "target": {"type": "string", "maxLength": MAX_FIELD_CHARS},
            "text": {"type": "string", "maxLength": MAX_FIELD_CHARS}}})
}

/// The kinds as the prompt lists them: `- tap: tap the target (…)`, one a line.
pub fn kinds_help(kinds: &[StepKind]) -> String {
    kinds
        .iter()
        .map(|k| format!("- {}: {}", k.name(), k.help()))
        .collect::<Vec<_>>()
        .join("\n")
}

impl PlanStep {
    /// Reads `{"do": …, "target": …, "text": …}` (a missing `target` or `text` is empty);
    /// `allowed` limits the kinds. Errors name what is wrong.
    pub fn from_json(v: &Value, allowed: &[StepKind]) -> Result<PlanStep, String> {
        let o = v.as_object().ok_or("a step must be a JSON object")?;
        if let Some(k) = o
            .keys()
            .find(|k| !["do", "target", "text"].contains(&k.as_str()))
        {
            return Err(format!("unexpected step field {k:?}"));
        }
        let field = |k: &str| -> Result<String, String> {
            match o.get(k) {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(s)) => Ok(s.trim().to_string()),
                Some(_) => Err(format!("a step's `{k}` must be a string")),
            }
        };
        let name = field("do")?;
        let kind = StepKind::from_name(&name)
            .filter(|k| allowed.contains(k))
            .ok_or_else(|| {
                format!(
                    "`do` {name:?} is not one of {}",
                    allowed
                        .iter()
                        .map(|k| k.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
        Ok(PlanStep {
            kind,
            target: field("target")?,
            text: field("text")?,
        })
    }

    /// The step-language lines this step is: one line, except `rename` (double tap, type,
    /// Enter); see [`PlanStep::line`] for the errors.
    pub fn lines(&self) -> Result<Vec<String>, String> {
        if self.kind != StepKind::Rename {
            return self.line().map(|l| vec![l]);
        }
        let (old, new) = (self.target.as_str(), self.text.as_str());
        let q = |s: &str, what: &str| quote(s).ok_or_else(|| format!("`rename` needs {what}"));
        let (old, new) = (
            q(old, "the item's text as target")?,
            q(new, "the new text")?,
        );
        Ok(vec![
            format!("double tap {old}"),
            format!("type {new} into {old}"),
            "press Enter".to_string(),
        ])
    }

    /// The step-language line this step is, or why it cannot be written (nothing to name,
    /// a key or direction the language lacks). An `ai` step is its plain words; a `rename`
    /// is several lines (see [`PlanStep::lines`]) and has none.
    pub fn line(&self) -> Result<String, String> {
        let k = self.kind;
        // A small model puts the one value a kind needs in the other field.
        let (target, text) = match (self.target.as_str(), self.text.as_str()) {
            ("", t) if k.wants_target() && k != StepKind::AssertValue => (t, ""),
            (t, "") if !k.wants_target() && k != StepKind::Type => ("", t),
            (a, b) => (a, b),
        };
        let q =
            |s: &str, what: &str| quote(s).ok_or_else(|| format!("`{}` needs a {what}", k.name()));
        let line = match k {
            StepKind::Tap => format!("tap {}", q(target, "target")?),
            StepKind::DoubleTap => format!("double tap {}", q(target, "target")?),
            StepKind::Type if target.is_empty() => format!("type {}", q(text, "text")?),
            StepKind::Type => format!("type {} into {}", q(text, "text")?, q(target, "target")?),
            StepKind::Check => format!("check {}", q(target, "target")?),
            StepKind::Uncheck => format!("uncheck {}", q(target, "target")?),
            // Argus's own lines (not the step language): `agent::check_every` runs them.
            StepKind::CheckAll => return Ok(super::check_every::CHECK_EVERY.to_string()),
            StepKind::UncheckAll => return Ok(super::check_every::UNCHECK_EVERY.to_string()),
            StepKind::Delete => format!("tap \"Delete\" in the row of {}", q(target, "target")?),
            StepKind::Rename => return Err("`rename` is several lines".into()),
            // "press Submit" names a button, not a key: a tap (dropped as unwritable, the
            // form was once left unsubmitted and Enter pressed instead).
            StepKind::Press => {
                let k = text.trim_matches(['"', '\'']);
                let line = format!("press {k}");
                let a_key = k.to_lowercase().ends_with("key") || k.ends_with('键');
                if k.is_empty() || a_key || Script::parse(&line).is_ok() {
                    line
                } else {
                    format!("tap {}", q(k, "text")?)
                }
            }
            StepKind::Swipe if target.is_empty() => format!("swipe {}", text.to_lowercase()),
            StepKind::Swipe => format!("swipe {} on {}", text.to_lowercase(), q(target, "target")?),
            StepKind::ScrollTo => format!(
                "swipe up until {} is visible up to 10 swipes",
                q(text, "text")?
            ),
            StepKind::WaitFor => format!("wait for {}", q(text, "text")?),
            StepKind::Back => "go back".to_string(),
            StepKind::AssertShows => format!("assert screen contains {}", q(text, "text")?),
            StepKind::AssertNotShown => {
                format!("assert screen does not contain {}", q(text, "text")?)
            }
            StepKind::AssertChecked => format!("assert {} is checked", q(target, "target")?),
            StepKind::AssertNotChecked => {
                format!("assert {} is not checked", q(target, "target")?)
            }
            StepKind::AssertValue if text.is_empty() => {
                format!("assert {} is empty", q(target, "target")?)
            }
            StepKind::AssertValue => format!(
                "assert {} has value {}",
                q(target, "target")?,
                q(text, "text")?
            ),
            StepKind::Ai => {
                let words = [target, text]
                    .iter()
                    .filter(|s| !s.is_empty())
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(": ");
                if words.is_empty() {
                    return Err("`ai` needs its instruction in text".into());
                }
                return Ok(words);
            }
        };
        match Script::parse(&line) {
            Ok(s) if s.steps.len() == 1 && matches!(s.steps[0].step, Step::Act(_)) => Ok(line),
            Ok(_) => Err(format!("{line:?} is not one step")),
            Err(e) => Err(format!("{line:?} is not a step-language line: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(kind: &str, target: &str, text: &str) -> Result<String, String> {
        PlanStep::from_json(
            &json!({"do": kind, "target": target, "text": text}),
            &StepKind::ALL,
        )?
        .line()
    }

    #[test]
    fn every_kind_writes_a_line_that_parses() {
        for k in StepKind::ALL {
            let one = PlanStep::from_json(
                &json!({"do": k.name(), "target": "Name", "text": "up"}),
                &StepKind::ALL,
            )
            .unwrap();
            for line in one.lines().unwrap() {
                if ![StepKind::Ai, StepKind::CheckAll, StepKind::UncheckAll].contains(&k) {
                    assert!(Script::parse(&line).is_ok(), "{line}");
                }
            }
        }
        assert_eq!(
            step("delete", "pay rent", "").unwrap(),
            "tap \"Delete\" in the row of \"pay rent\""
        );
        assert_eq!(step("press", "", "Enter").unwrap(), "press Enter");
        assert_eq!(step("press", "", "Submit").unwrap(), "tap \"Submit\"");
        assert_eq!(step("press", "Log in", "").unwrap(), "tap \"Log in\"");
        let rename = PlanStep {
            kind: StepKind::Rename,
            target: "buy bread".into(),
            text: "buy rye bread".into(),
        };
        assert_eq!(
            rename.lines().unwrap(),
            [
                "double tap \"buy bread\"",
                "type \"buy rye bread\" into \"buy bread\"",
                "press Enter"
            ]
        );
        assert_eq!(
            step("type", "New todo", "buy \"oat\" milk").unwrap(),
            "type \"buy \\\"oat\\\" milk\" into \"New todo\""
        );
        assert_eq!(step("press", "", "Enter").unwrap(), "press Enter");
        assert_eq!(step("check", "交电费", "").unwrap(), "check \"交电费\"");
        assert_eq!(step("uncheck", "a", "").unwrap(), "uncheck \"a\"");
        assert_eq!(
            step("assert_value", "Year", "1994").unwrap(),
            "assert \"Year\" has value \"1994\""
        );
        assert_eq!(
            step("assert_shows", "", "1 item left").unwrap(),
            "assert screen contains \"1 item left\""
        );
    }

    #[test]
    fn a_value_in_the_wrong_field_is_moved() {
        assert_eq!(step("tap", "", "Save").unwrap(), "tap \"Save\"");
        assert_eq!(
            step("assert_shows", "Saved", "").unwrap(),
            "assert screen contains \"Saved\""
        );
        assert_eq!(step("type", "", "hello").unwrap(), "type \"hello\"");
    }

    #[test]
    fn bad_steps_say_why() {
        assert!(step("tap", "", "").unwrap_err().contains("target"));
        assert!(step("press", "", "the big red key").is_err());
        assert!(step("click", "A", "").unwrap_err().contains("not one of"));
        assert!(PlanStep::from_json(&json!({"do": "tap", "x": 1}), &StepKind::ALL).is_err());
        assert!(
            PlanStep::from_json(&json!({"do": "tap", "target": "A"}), &StepKind::CHECKS).is_err()
        );
        assert_eq!(
            step("ai", "", "clear the finished items").unwrap(),
            "clear the finished items"
        );
    }

    #[test]
    fn the_schema_lists_the_kinds() {
        let s = schema(&StepKind::CHECKS);
        assert_eq!(s["properties"]["do"]["enum"].as_array().unwrap().len(), 5);
        assert!(kinds_help(&StepKind::ALL).contains("- check: "));
        assert!(StepKind::from_name("tick").is_none());
    }
}
