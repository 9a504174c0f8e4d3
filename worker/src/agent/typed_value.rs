//! A typed value the model copied with the words around it, or before the instruction
//! corrected it: cut back to the value the instruction means ([`own_value`], used by
//! [`super::plan_typed::as_written`]).
//!
//! Why (measured with Qwen2.5-Coder-1.5B on a login form): "Username's frontdesk.3, no wait,
//! … this one is frontdesk.2. Password is Pelican!Row8, capital P and capital R." was typed
//! as `Username's frontdesk.3` and `Pelican!Row8, capital P and capital R`, and submitted.

use super::clause_plan::{same_word, words};

/// Words that take back what was just said ("no wait", "actually", "不对").
const TAKE_BACKS: &[&str] = &[
    "no wait",
    "no, wait",
    "wait, no",
    "actually",
    "sorry",
    "i mean",
    "i meant",
    "correction",
    "scratch that",
    "不对",
    "说错了",
    "哦不",
    "更正",
    "hang on",
    "hold on",
    "等下",
    "等一下",
    "等等",
];

/// How far after a value (bytes) a take-back may start and still be about it.
const TAKE_BACK_REACH: usize = 12;

/// How far after the take-back (bytes) the corrected value is looked for.
const CORRECTION_REACH: usize = 120;

/// Words of a spelling note after a comma ("capital P and capital R", "all lower case").
const SPELLING: &[&str] = &[
    "capital",
    "capitals",
    "caps",
    "uppercase",
    "upper",
    "lowercase",
    "lower",
    "case",
    "small",
    "big",
    "letter",
    "letters",
    "both",
    "and",
    "with",
    "a",
    "an",
    "the",
    "all",
    "no",
    "spaces",
    "space",
    "first",
];

/// Words of a spelling note that name letters (one of them, or a letter, must be there).
const LETTER_WORDS: &[&str] = &[
    "case",
    "caps",
    "capitals",
    "letter",
    "letters",
    "uppercase",
    "lowercase",
];

/// Words of a spelling note that say a case (one must be there).
const CASE_WORDS: &[&str] = &[
    "capital",
    "capitals",
    "caps",
    "uppercase",
    "upper",
    "lowercase",
    "lower",
    "small",
];

/// The value `text` (typed into `field`) stands for in `task`: without a lead naming the
/// field ("Username's X" → X), without a spelling note after a comma ("X, capital P" → X),
/// and replaced by a later correction ("X, no wait, … is Y" → Y, where Y has X's shape,
/// said before any of `others`, the plan's other fields, is named). A text the task quotes
/// as it is keeps its lead and note ("type 'Note: fragile'"). `None` when none applies or
/// the result is not in `task`.
pub(super) fn own_value(
    task: &str,
    text: &str,
    field: Option<&str>,
    others: &[String],
) -> Option<String> {
    let mut v = text.trim().to_string();
    let quoted = super::clauses::quoted(task).contains(&v);
    if let Some(rest) = field
        .filter(|_| !quoted)
        .and_then(|f| without_field_lead(&v, f))
    {
        v = rest;
    }
    if let Some(head) = without_spelling_note(&v).filter(|_| !quoted) {
        v = head;
    }
    if let Some(later) = corrected_later(task, &v, others, field) {
        v = later;
    }
    (v != text.trim() && !v.is_empty() && task.contains(v.as_str())).then_some(v)
}

/// `v` without a lead that names `field` ("Username's frontdesk.2", "password is X",
/// "Year: 1990"), when what is left is one token.
fn without_field_lead(v: &str, field: &str) -> Option<String> {
    let key = words(field);
    let (head, rest) = v.split_once(' ')?;
    let head = head.trim_end_matches([':', '=']);
    let (word, glued) = match head.strip_suffix("'s").or_else(|| head.strip_suffix("’s")) {
        Some(w) => (w, true),
        None => (head, v[head.len()..].trim_start().starts_with([':', '='])),
    };
    let rest = rest.trim_start_matches([':', '=']).trim();
    let rest = match rest.split_once(' ') {
        Some(("is" | "was" | "=", r)) if !glued => r.trim(),
        _ if glued || head.ends_with(':') => rest,
        _ => return None,
    };
    let names_field = words(word)
        .iter()
        .any(|w| key.iter().any(|k| same_word(w, k)));
    (names_field && !rest.is_empty() && !rest.contains(' ')).then(|| rest.to_string())
}

/// `v` without a note on how it is spelt after its last comma ("Pelican!Row8, capital P and
/// capital R"): every word of the note a [`SPELLING`] word or a single letter or digit, one
/// of them a [`CASE_WORDS`] word. Chinese: a note with 大写 / 小写 after "，".
fn without_spelling_note(v: &str) -> Option<String> {
    let (head, note) = v.rsplit_once(", ").or_else(|| v.rsplit_once('，'))?;
    let lower = note.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c == '-')
        .filter(|w| !w.is_empty())
        .collect();
    // A letter, or a word for letters, is there ("Latte, small" is an order's size): the
    // article "a" is a letter only after a case word ("capital a").
    let letter = tokens.iter().enumerate().any(|(i, w)| {
        LETTER_WORDS.contains(w)
            || (w.chars().count() == 1
                && (*w != "a" || i > 0 && CASE_WORDS.contains(&tokens[i - 1])))
    });
    let en = !tokens.is_empty()
        && tokens
            .iter()
            .all(|w| SPELLING.contains(w) || w.chars().count() == 1)
        && tokens.iter().any(|w| CASE_WORDS.contains(w))
        && letter;
    // "Q 大写", "全部小写": nothing but letters and words of case ("大写壹佰元" is a text).
    let zh = (note.contains("大写") || note.contains("小写"))
        && note
            .chars()
            .filter(|c| super::effects::is_cjk(*c))
            .all(|c| "大小写字母首全部都是的".contains(c));
    (en || zh).then(|| head.trim().to_string())
}

/// The value that corrects `v` later in `task`: right after `v` (within
/// [`TAKE_BACK_REACH`]) a [`TAKE_BACKS`] word, then (within [`CORRECTION_REACH`], and
/// before any of the fields `others` is named: "anna.b, actually her password is anna.b99"
/// gives the password) the first token of `v`'s shape: the same length give or take two,
/// and at least half of `v` as its start ("frontdesk.3 … frontdesk.2").
fn corrected_later(task: &str, v: &str, others: &[String], field: Option<&str>) -> Option<String> {
    if v.chars().count() < 3 || v.contains(' ') {
        return None;
    }
    let at = task.find(v)? + v.len();
    let after = &task[at..];
    let lower = after.to_lowercase();
    let (lead_at, lead) = TAKE_BACKS
        .iter()
        .filter_map(|w| lower.find(w).map(|i| (i, w.len())))
        .min()?;
    if lead_at > TAKE_BACK_REACH {
        return None;
    }
    let from = lead_at + lead;
    let window: String = after[from..].chars().take(CORRECTION_REACH).collect();
    let lower = window.to_lowercase();
    let other_at = others
        .iter()
        .map(|o| o.trim().to_lowercase())
        .filter(|o| !o.is_empty())
        .filter_map(|o| lower.find(&o))
        .min()
        .unwrap_or(lower.len());
    // Lower-casing may change byte lengths: cut by characters.
    let window: String = window
        .chars()
        .take(lower[..other_at].chars().count())
        .collect();
    let vc: Vec<char> = v.chars().collect();
    window
        .split(|c: char| c.is_whitespace() || "，。；、".contains(c))
        .map(|t| {
            t.trim_end_matches([',', '.', ';', '!', '?', ')'])
                .trim_matches(['"', '\''])
        })
        .find(|t| {
            let tc: Vec<char> = t.chars().collect();
            let shared = tc.iter().zip(&vc).take_while(|(a, b)| a == b).count();
            *t != v && tc.len().abs_diff(vc.len()) <= 2 && shared * 2 >= vc.len()
        })
        .map(str::to_string)
        // "director Adebayo, hang on, no, … the director is Mensah": the field named again
        // after the take-back gives its value.
        .or_else(|| {
            field
                .and_then(|f| super::form_cue::cue_value(&window, f))
                .filter(|y| y != v)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lead_naming_the_field_is_cut() {
        assert_eq!(
            without_field_lead("Username's kiosk.7", "Username").as_deref(),
            Some("kiosk.7")
        );
        assert_eq!(
            without_field_lead("password is Tern#44", "Password").as_deref(),
            Some("Tern#44")
        );
        assert_eq!(
            without_field_lead("Year: 1990", "Year").as_deref(),
            Some("1990")
        );
        // A value that only starts with another word stays whole.
        assert_eq!(without_field_lead("Anna's bakery", "Username"), None);
        assert_eq!(without_field_lead("user is away today", "Username"), None);
    }

    #[test]
    fn a_spelling_note_after_a_comma_is_cut() {
        assert_eq!(
            without_spelling_note("Gannet!Pier3, capital G and capital P").as_deref(),
            Some("Gannet!Pier3")
        );
        assert_eq!(
            without_spelling_note("Qiao2024，Q 大写").as_deref(),
            Some("Qiao2024")
        );
        // A comma inside a text to type stays.
        assert_eq!(
            without_spelling_note("Back at two, the letters are on the desk"),
            None
        );
        assert_eq!(without_spelling_note("Smith, John"), None);
        // A size is no spelling note, nor is an amount written out in words.
        assert_eq!(without_spelling_note("latte, small"), None);
        assert_eq!(without_spelling_note("100元，大写壹佰元"), None);
        assert_eq!(
            without_spelling_note("kiosk, all lower case").as_deref(),
            Some("kiosk")
        );
    }

    #[test]
    fn a_quoted_text_keeps_its_lead_and_note() {
        let field = |t: &str, text: &str, f: &str| own_value(t, text, Some(f), &[]);
        assert_eq!(
            field(
                "Type 'Note: fragile' into the Note field.",
                "Note: fragile",
                "Note"
            ),
            None
        );
        assert_eq!(
            field(
                "In Message write 'Message is urgent'.",
                "Message is urgent",
                "Message"
            ),
            None
        );
        assert_eq!(
            field(
                "Type 'OK, all caps' into the reply box.",
                "OK, all caps",
                "Reply"
            ),
            None
        );
        // Unquoted, the lead is cut.
        assert_eq!(
            field("Note: fragile. Save it.", "Note: fragile", "Note").as_deref(),
            Some("fragile")
        );
    }

    #[test]
    fn a_value_taken_back_by_hang_on_or_the_field_named_again_is_corrected() {
        let zh = "两个框都填 Lychee_1204……等下，1204 是旧的，现在用 Lychee_7731。";
        assert_eq!(
            corrected_later(zh, "Lychee_1204", &[], Some("password")).as_deref(),
            Some("Lychee_7731")
        );
        let en = "Put drama in the genre box, director Okafor, hang on, no, Okafor wrote it, the director is Bello. Year 2001.";
        assert_eq!(
            corrected_later(en, "Okafor", &["Year".to_string()], Some("Director")).as_deref(),
            Some("Bello")
        );
    }

    #[test]
    fn a_value_taken_back_gives_the_corrected_one() {
        let task = "The user is desk.4, no wait, that's the old one, it's desk.5 now. Log in.";
        assert_eq!(
            corrected_later(task, "desk.4", &[], None).as_deref(),
            Some("desk.5")
        );
        let zh = "用户名 room12，不对，是 room21，密码不变。";
        assert_eq!(
            corrected_later(zh, "room12", &[], None).as_deref(),
            Some("room21")
        );
        // No take-back right after it: nothing corrected.
        let plain = "User desk.4 and then desk.5 for the other kiosk.";
        assert_eq!(corrected_later(plain, "desk.4", &[], None), None);
        assert_eq!(
            own_value(task, "user is desk.4", Some("User"), &[]).as_deref(),
            Some("desk.5")
        );
        // A value of another field after an aside is no correction.
        let pw = ["Password".to_string()];
        for (task, v) in [
            (
                "Log in as anna.b, actually her password is anna.b99.",
                "anna.b",
            ),
            (
                "Username is kiosk.7, sorry it's long, and the password is kiosk.7pw.",
                "kiosk.7",
            ),
        ] {
            assert_eq!(
                corrected_later(task, v, &pw, Some("Username")),
                None,
                "{task}"
            );
        }
        let zh = "用户名 zhang01，说错了，密码是 zhang0101。";
        assert_eq!(
            corrected_later(zh, "zhang01", &["密码".to_string()], None),
            None
        );
        // The correction before the other field is named still counts.
        let task = "Username's frontdesk.3, no wait, this one is frontdesk.2. Password is Kite!9.";
        assert_eq!(
            corrected_later(task, "frontdesk.3", &pw, None).as_deref(),
            Some("frontdesk.2")
        );
    }
}
