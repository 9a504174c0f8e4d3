//! The value an instruction gives a form field by naming it, with no model ("directed by
//! Leone" for `Director`, "the password is X"): [`cue_value`], used by the form reader
//! ([`super::form_fill`]) and by a typed value's later correction ([`super::typed_value`]).
//! Its own file: both of those import it, and form_fill imports what plan_typed (which
//! imports typed_value) holds.

/// Words between a field's name and its value ("the Year box holds just 1972", "directed
/// by Leone", "the password is X").
const CUE_GLUE: &[&str] = &[
    "by", "is", "as", "of", "to", "be", "box", "field", "reads", "read", "holds", "hold", "says",
    "just", "only", "exactly", "should", "with", "=", "-",
];

/// The value an instruction gives a field by naming it, with no model: the token after a
/// word of the instruction that shares the stem of the field name's word ("directed by
/// Leone" for `Director`, "the Year box holds just 1972" for `Year`) and the [`CUE_GLUE`]
/// after it; a quoted text there counts whole. `None` when the field's word is not used or
/// what follows is a common word.
pub fn cue_value(task: &str, field: &str) -> Option<String> {
    let key: Vec<String> = super::clause_plan::words(field);
    let [key] = key.as_slice() else {
        return None;
    };
    let tokens: Vec<&str> = task.split_whitespace().collect();
    for (i, t) in tokens.iter().enumerate() {
        let w = super::clause_plan::words(t);
        if !w.iter().any(|x| super::clause_plan::same_word(x, key)) {
            continue;
        }
        let rest = tokens[i + 1..]
            .iter()
            .skip_while(|t| CUE_GLUE.contains(&t.to_lowercase().trim_matches(':')));
        let Some(v) = rest.clone().next() else {
            continue;
        };
        let glued = rest.clone().count() < tokens.len() - i - 1;
        let v = v.trim_end_matches([',', '.', ';', '!', '?', ')']);
        if let Some(q) = super::clauses::quoted(&tokens[i + 1..].join(" ")).first() {
            if v.starts_with(['"', '\'', '“', '‘']) {
                return Some(q.clone());
            }
        }
        let plain = v.to_lowercase();
        let common = super::clause_plan::words(&plain).is_empty()
            || [
                "the", "a", "an", "and", "it", "in", "twice", "again", "same", "that",
            ]
            .contains(&plain.as_str());
        // Right after the field's word with no glue between, a plain word is the clause's
        // verb ("the username follows the company format"), not a value: only a token that
        // looks typed counts there.
        if !v.is_empty() && !common && (glued || looks_typed(v)) {
            return Some(v.to_string());
        }
    }
    None
}

/// Whether a token looks like something typed rather than a word of the sentence: it holds
/// a digit, a capital letter or a [`super::plan_typed`] joiner-like symbol, and no Chinese
/// punctuation (a run of Chinese after a field's name is the clause going on).
fn looks_typed(v: &str) -> bool {
    !v.contains(['，', '。', '；', '、', '：'])
        && v.chars()
            .any(|c| c.is_ascii_digit() || c.is_uppercase() || ".@_&#+-/$%!*".contains(c))
}
