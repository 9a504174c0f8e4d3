//! Plan steps worded as people say them, mapped by meaning onto the step language's verbs
//! before a step is read as a script line: `tick off "X"`, `complete "X"`, `mark "X" (as)
//! done`, `check off "X"`, `完成 "X"` → `check "X"`; `untick "X"`, `mark "X" (as) not done` /
//! `active` / `incomplete`, `reopen "X"` → `uncheck "X"`; `confirm` / `verify` / `ensure`
//! followed by a quoted text → an assertion that the screen shows it.
//!
//! Why: a small model planned "tick off X" as `tap "X"` (tapping a todo's label changes
//! nothing) or left the verb as written, and the line went to the model as a free step. The
//! target must be quoted: `complete the form` stays a free step.

/// The step with its verb mapped (see the module docs); the step unchanged otherwise.
pub fn by_meaning(step: &str) -> String {
    let s = step.trim();
    let lower = s.to_lowercase();
    for (lead, to) in [
        ("tick off ", "check"),
        ("check off ", "check"),
        ("tick ", "check"),
        ("complete ", "check"),
        ("untick ", "uncheck"),
        ("reopen ", "uncheck"),
        ("完成 ", "check"),
        ("打勾 ", "check"),
    ] {
        if let Some(rest) = lower.strip_prefix(lead).and_then(|_| s.get(lead.len()..)) {
            if let Some(q) = only_quoted(rest) {
                return format!("{to} {q}");
            }
        }
    }
    if let Some(rest) = lower
        .strip_prefix("mark ")
        .and_then(|_| s.get("mark ".len()..))
    {
        if let Some((q, tail)) = quoted_head(rest) {
            let tail = tail.trim().trim_end_matches('.').to_lowercase();
            let tail = tail.strip_prefix("as ").unwrap_or(&tail);
            if [
                "not done",
                "not completed",
                "active",
                "incomplete",
                "undone",
                "open",
            ]
            .contains(&tail)
            {
                return format!("uncheck {q}");
            }
            if ["done", "completed", "complete", "finished", "checked"].contains(&tail) {
                return format!("check {q}");
            }
        }
    }
    for lead in ["confirm ", "verify ", "ensure "] {
        if let Some(rest) = lower.strip_prefix(lead).and_then(|_| s.get(lead.len()..)) {
            if let Some(q) = only_quoted(rest) {
                return format!("assert screen contains {q}");
            }
        }
    }
    s.to_string()
}

/// `"X"` (with its quotes) when `rest` is exactly one double-quoted text.
fn only_quoted(rest: &str) -> Option<&str> {
    let (q, tail) = quoted_head(rest)?;
    tail.trim().trim_end_matches('.').is_empty().then_some(q)
}

/// The leading double-quoted text of `rest` (with its quotes) and what follows it.
fn quoted_head(rest: &str) -> Option<(&str, &str)> {
    let r = rest.trim_start();
    let inner = r.strip_prefix('"')?;
    let end = inner.find('"')?;
    (end > 0).then(|| r.split_at(end + 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs_map_by_meaning() {
        assert_eq!(by_meaning("tick off \"buy milk\""), "check \"buy milk\"");
        assert_eq!(by_meaning("Complete \"pay rent\"."), "check \"pay rent\"");
        assert_eq!(by_meaning("mark \"a\" as done"), "check \"a\"");
        assert_eq!(by_meaning("mark \"a\" as not done"), "uncheck \"a\"");
        assert_eq!(by_meaning("untick \"a\""), "uncheck \"a\"");
        assert_eq!(by_meaning("完成 \"买牛奶\""), "check \"买牛奶\"");
        assert_eq!(
            by_meaning("verify \"1 item left\""),
            "assert screen contains \"1 item left\""
        );
        // Unquoted or longer targets stay free steps.
        assert_eq!(by_meaning("complete the form"), "complete the form");
        assert_eq!(
            by_meaning("mark \"a\" with a star"),
            "mark \"a\" with a star"
        );
        assert_eq!(by_meaning("tap \"Save\""), "tap \"Save\"");
    }
}
