//! `${var.NAME}` references, filled from a job's `vars` before a line is parsed.
//!
//! Substitution is textual and single-pass (a value holding `${var.X}` is not expanded
//! again; one holding `${secret.X}` stays a secret reference the worker resolves at typing
//! time). Inside ASCII double quotes a value's `"` and `\` are escaped, so `type
//! "${var.TEXT}" into "Note"` types the value as given whatever it holds; inside `“…”` or
//! `「…」` (which have no escapes) a value holding the closing quote is refused.

use std::collections::BTreeMap;

/// Prefix of a variable reference.
const OPEN: &str = "${var.";

/// Whether `name` is a valid variable name: `[A-Za-z_][A-Za-z0-9_]*`, at most 64 bytes.
pub fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 64
}

/// Names of the `${var.NAME}` references in `text`, in order; errors on a malformed one.
pub fn var_refs(text: &str) -> Result<Vec<String>, (String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(OPEN) {
        let after = &rest[i + OPEN.len()..];
        let end = after.find('}').ok_or_else(|| {
            (
                "unclosed ${var.…} reference".to_string(),
                "write variables as ${var.NAME}".to_string(),
            )
        })?;
        let name = &after[..end];
        if !is_var_name(name) {
            return Err((
                format!(
                    "variable name {:?} is not valid",
                    name.chars().take(64).collect::<String>()
                ),
                "variable names are a letter or `_`, then letters, digits or `_`".to_string(),
            ));
        }
        out.push(name.to_string());
        rest = &after[end + 1..];
    }
    Ok(out)
}

/// Which quote the scan is inside at a given point of a line.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Ascii,
    /// `“…”` (closed by `”` or `"`) or `「…」`.
    Typographic(char),
}

/// `line` with every `${var.NAME}` replaced by its value; `quote_aware` escapes values
/// inside ASCII quotes (script lines), otherwise values go in as they are (natural language).
///
/// Errors: `(message, hint)` naming an unknown variable or a malformed reference.
pub fn substitute(
    line: &str,
    vars: &BTreeMap<String, String>,
    quote_aware: bool,
) -> Result<String, (String, String)> {
    if !line.contains(OPEN) {
        return Ok(line.to_string());
    }
    var_refs(line)?;
    let mut out = String::with_capacity(line.len());
    let mut quote = Quote::None;
    let mut escaped = false;
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if !escaped && rest.starts_with(OPEN) {
            let after = &rest[OPEN.len()..];
            let end = after.find('}').unwrap_or(after.len());
            let name = &after[..end];
            let value = vars.get(name).ok_or_else(|| unknown(name, vars))?;
            match (quote_aware, quote) {
                (true, Quote::Ascii) => {
                    for v in value.chars() {
                        if matches!(v, '"' | '\\') {
                            out.push('\\');
                        }
                        out.push(v);
                    }
                }
                (true, Quote::Typographic(close))
                    if value.contains(close) || (close == '”' && value.contains('"')) =>
                {
                    return Err((
                        format!("the value of variable {name} holds a closing quote"),
                        "put the reference in ASCII quotes: \"${var.NAME}\"".to_string(),
                    ));
                }
                _ => out.push_str(value),
            }
            rest = &after[(end + 1).min(after.len())..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
        if escaped {
            escaped = false;
            continue;
        }
        quote = match (quote, c) {
            (Quote::Ascii, '\\') => {
                escaped = true;
                quote
            }
            (Quote::None, '"') => Quote::Ascii,
            (Quote::None, '“') | (Quote::None, '”') => Quote::Typographic('”'),
            (Quote::None, '「') => Quote::Typographic('」'),
            (Quote::Ascii, '"') => Quote::None,
            (Quote::Typographic('”'), '"') => Quote::None,
            (Quote::Typographic(close), c) if c == close => Quote::None,
            (q, _) => q,
        };
    }
    Ok(out)
}

fn unknown(name: &str, vars: &BTreeMap<String, String>) -> (String, String) {
    let known: Vec<&str> = vars.keys().map(String::as_str).take(20).collect();
    (
        format!("unknown variable ${{var.{name}}}"),
        if known.is_empty() {
            "the job has no `vars`; give it \"vars\": {\"NAME\": \"value\"} (argus submit --var NAME=value)"
                .to_string()
        } else {
            format!("the job's vars are: {}", known.join(", "))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn values_are_escaped_inside_ascii_quotes_only() {
        let v = vars(&[("T", r#"say "hi" \o/"#), ("N", "3"), ("Q", "a”b")]);
        assert_eq!(
            substitute(r#"type "${var.T}" into "x""#, &v, true).unwrap(),
            r#"type "say \"hi\" \\o/" into "x""#
        );
        assert_eq!(
            substitute("repeat ${var.N} times:", &v, true).unwrap(),
            "repeat 3 times:"
        );
        assert_eq!(
            substitute(r#"ai: ${var.T}"#, &v, false).unwrap(),
            r#"ai: say "hi" \o/"#
        );
        assert!(substitute("点击 “${var.Q}”", &v, true).is_err());
        assert_eq!(
            substitute("点击 「${var.Q}」", &v, true).unwrap(),
            "点击 「a”b」"
        );
        // An escaped quote does not end the quoted text.
        assert_eq!(
            substitute(r#"tap "a\"${var.N}""#, &v, true).unwrap(),
            r#"tap "a\"3""#
        );
    }

    #[test]
    fn unknown_and_malformed_references_are_errors() {
        let v = vars(&[("A", "1")]);
        let (m, h) = substitute("tap \"${var.B}\"", &v, true).unwrap_err();
        assert!(m.contains("var.B"), "{m}");
        assert!(h.contains('A'), "{h}");
        assert!(substitute("${var.A", &v, true).is_err());
        assert!(substitute("${var.9x}", &v, true).is_err());
        assert!(is_var_name("_a9") && !is_var_name("a-b") && !is_var_name(""));
        // A value is not expanded twice.
        let v = vars(&[("A", "${var.A}")]);
        assert_eq!(substitute("${var.A}", &v, true).unwrap(), "${var.A}");
    }
}
