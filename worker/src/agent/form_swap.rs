//! A text typed into a form that the instruction corrects in a later clause: "type 'Team
//! lunch on Friday' … it moved, so change 'Friday' to 'Monday'", "输入“周三开会”…把“周三”换成
//! “周四”". The plan's typings into the form's fields get the swap; nothing else does.
//!
//! Why: a plan types the text as first said (the model copies the quoted text), and the
//! typed-value checks only ask that the text be in the instruction word for word, which the
//! first wording is.

use super::plan_typed::typing;

/// Words between two quoted texts that swap the first for the second.
const SWAP_WORDS: &[&str] = &[
    "换成",
    "改成",
    "改为",
    "替换成",
    "替换为",
    "变成",
    "换为",
    " to ",
    " with ",
    "→",
    "->",
];

/// Words between two quoted texts that swap the second for the first ("'B' instead of 'A'").
const SWAP_BACK: &[&str] = &[" instead of ", " rather than ", "而不是", "不是"];

/// The (old, new) swaps `task` says with two quoted texts and a swap word between them,
/// whose old text an earlier quoted text holds (the text it corrects).
pub fn swaps(task: &str) -> Vec<(String, String)> {
    let opens = ['"', '“', '‘', '「', '\''];
    let closes = ['"', '”', '’', '」', '\''];
    // (start, end, text) of each quoted text, outer quote marks included.
    let mut quotes: Vec<(usize, usize, String)> = Vec::new();
    let mut open: Option<(usize, char)> = None;
    for (i, c) in task.char_indices() {
        match open {
            None if opens.contains(&c) && (c != '\'' || starts_word(task, i)) => {
                open = Some((i, c))
            }
            Some((at, o))
                if closes.contains(&c)
                    && pairs(o, c)
                    && i > at + o.len_utf8()
                    && (c != '\'' || ends_word(task, i)) =>
            {
                quotes.push((at, i + c.len_utf8(), task[at + o.len_utf8()..i].to_string()));
                open = None;
            }
            _ => {}
        }
    }
    quotes
        .windows(2)
        .enumerate()
        .filter_map(|(i, w)| {
            let between = task[w[0].1..w[1].0].to_lowercase();
            if between.chars().count() > 12 {
                return None;
            }
            let (a, b) = (w[0].2.clone(), w[1].2.clone());
            if SWAP_BACK.iter().any(|s| between.contains(s)) {
                Some((i, (b, a)))
            } else if SWAP_WORDS.iter().any(|s| between.contains(s)) {
                Some((i, (a, b)))
            } else {
                None
            }
        })
        // A correction of a text said before: its old text is in an earlier quoted text
        // ("'Happy birthday' to 'Anna'" sends, it corrects nothing).
        .filter(|(i, (a, b))| {
            !a.is_empty() && a != b && quotes[..*i].iter().any(|q| q.2.contains(a.as_str()))
        })
        .map(|(_, p)| p)
        .collect()
}

fn pairs(open: char, close: char) -> bool {
    matches!(
        (open, close),
        ('"', '"') | ('“', '”') | ('‘', '’') | ('「', '」') | ('\'', '\'')
    )
}

fn starts_word(s: &str, i: usize) -> bool {
    !s[..i]
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric)
}

fn ends_word(s: &str, i: usize) -> bool {
    !s[i + 1..].chars().next().is_some_and(char::is_alphanumeric)
}

/// `steps` with each typing into one of `fields` whose text holds a swap's old text (and not
/// already its new one) given the swap; the number changed.
pub fn swapped(steps: Vec<String>, task: &str, fields: &[String]) -> (Vec<String>, usize) {
    let swaps = swaps(task);
    if swaps.is_empty() || fields.is_empty() {
        return (steps, 0);
    }
    let mut changed = 0;
    let out = steps
        .into_iter()
        .map(|s| {
            let Some((text, Some(field))) = typing(&s) else {
                return s;
            };
            if !fields.iter().any(|f| f.eq_ignore_ascii_case(&field)) {
                return s;
            }
            let mut t = text.clone();
            for (old, new) in &swaps {
                if t.contains(old.as_str()) && !t.contains(new.as_str()) {
                    t = t.replacen(old.as_str(), new, 1);
                }
            }
            if t == text {
                return s;
            }
            changed += 1;
            format!(
                "type {} into {}",
                super::clauses::quote_line(&t),
                super::clauses::quote_line(&field)
            )
        })
        .collect();
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_swap_corrects_the_typed_text() {
        assert_eq!(
            swaps("写上“周五交报告”。不对，把“周五”改成“周六”。"),
            vec![("周五".to_string(), "周六".to_string())]
        );
        assert_eq!(
            swaps("Type 'lunch at noon', but say 'one' instead of 'noon'"),
            vec![("noon".to_string(), "one".to_string())]
        );
        assert!(swaps("Type 'a' and then press 'b'").is_empty());
        let fields = vec!["Message".to_string()];
        let task = "Type 'lunch on Friday' in the box, then change 'Friday' to 'Monday'.";
        let (s, n) = swapped(
            vec![
                "type \"lunch on Friday\" into \"Message\"".into(),
                "tap \"Send\"".into(),
            ],
            task,
            &fields,
        );
        assert_eq!(n, 1);
        assert_eq!(s[0], "type \"lunch on Monday\" into \"Message\"");
        let (_, n) = swapped(
            vec!["type \"lunch on Friday\" into \"Other\"".into()],
            task,
            &fields,
        );
        assert_eq!(n, 0, "only the form's own fields");
    }

    #[test]
    fn two_quoted_values_joined_by_to_are_no_correction() {
        // Nothing quoted before holds 'Happy birthday!': the message goes to 'Anna'.
        let task = "Send 'Happy birthday!' to 'anna@example.com'";
        assert!(swaps(task).is_empty(), "{:?}", swaps(task));
        let fields = vec!["Message".to_string(), "To".to_string()];
        let plan = vec!["type \"Happy birthday!\" into \"Message\"".to_string()];
        assert_eq!(swapped(plan.clone(), task, &fields), (plan, 0));
        assert!(swaps("Fill 'Name' with 'Bob Lee'").is_empty());
    }
}
