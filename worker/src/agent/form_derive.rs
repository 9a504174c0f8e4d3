//! A form value the instruction describes instead of spelling out ("first initial followed
//! by surname, all lowercase", "ten years after 1985", "Lotus, then a # and the door number
//! — 1806, no, 1706"), worked out by the model for one field and kept only when it is built
//! from the instruction's own material ([`built_from`]).
//!
//! Why (measured with Qwen2.5-Coder-1.5B on form pages): asked to copy the exact words for
//! such a field, a small model copies a fragment of the description ("follows", "after"),
//! and the word after the field's name is a verb, not a value. Asked to build the text by
//! applying the rules the instruction states, it answered two of three such fields right
//! (a year by arithmetic, a password with a corrected number); a value it makes up from
//! nothing (a surname it knows, a year with no number said) is not kept.

use super::form_fill::Field;
use serde_json::{json, Value};

/// The messages asking for the text of `field` (of `fields`), worked out where the
/// instruction describes it; the answer is `{"text": string | null}`.
pub fn messages(task: &str, field: &str, fields: &[Field]) -> Vec<Value> {
    let names = fields
        .iter()
        .map(|f| format!("{:?}", f.name))
        .collect::<Vec<_>>()
        .join(", ");
    let user = format!(
        "Instruction: {task}\n\nA form has the text fields {names}. Exactly what text should be typed into the {field:?} field? Where the instruction describes the text instead of spelling it out, build it by applying each rule it states (which letters or digits, upper or lower case, what is joined to what, arithmetic, a correction replacing what was said first). Answer {{\"text\": ...}}, null when the instruction gives that field nothing."
    );
    vec![
        json!({"role": "system", "content": SYSTEM}),
        json!({"role": "user", "content": user}),
    ]
}

const SYSTEM: &str =
    "You work out form values from a user's instruction. Answer with one JSON object and nothing else.";

/// The answer's JSON schema.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"text": {"type": ["string", "null"]}},
        "required": ["text"],
        "additionalProperties": false
    })
}

/// The answer's text, trimmed; `None` for null or empty. An answer that is no object is an
/// error (the model is asked again).
pub fn parse(v: &Value) -> Result<Option<String>, String> {
    let obj = v.as_object().ok_or("the answer is no JSON object")?;
    Ok(obj
        .get("text")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string))
}

/// Whether `value` is built from `task`'s own material: every run of letters splits into
/// pieces that each start a word of the task, at most one a single letter (case aside:
/// `rdelgado` from "Rosa Delgado",
/// `lotus` from "Lotus"), every Chinese character is one the task uses, every run of digits
/// is in the task or the task says a number and a word of [`ARITHMETIC`] (a number worked
/// out), and every other character is one the task uses (`#`) or a space. A value the model
/// made up from nothing (a word the task never starts, a number the task neither says nor
/// works out) is not.
pub fn built_from(task: &str, value: &str) -> bool {
    let lower = task.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    // A number not said word for word is worked out: the task says one and a word of
    // arithmetic ([`ARITHMETIC`]).
    let works_out = task.chars().any(|c| c.is_ascii_digit())
        && ARITHMETIC.iter().any(|w| {
            if w.is_ascii() {
                words.contains(w)
            } else {
                lower.contains(w)
            }
        });
    let value = value.to_lowercase();
    let mut ok = !value.trim().is_empty();
    for run in runs(&value) {
        let first = run.chars().next().unwrap_or(' ');
        ok &= if first.is_ascii_digit() {
            lower.contains(run.as_str()) || works_out
        } else if first.is_alphabetic() && !super::cjk::is_cjk(first) {
            splits_into_word_starts(&run, &words)
        } else if super::cjk::is_cjk(first) {
            run.chars().all(|c| lower.contains(c))
        } else {
            run.chars()
                .all(|c| c.is_whitespace() || lower.contains(c) || named_symbol(&lower, c))
        };
    }
    ok
}

/// Names of the symbols people spell out ("a hyphen", "英文感叹号"): the symbol counts as
/// said where its name is.
const SYMBOL_NAMES: &[(char, &[&str])] = &[
    ('!', &["exclamation", "bang", "感叹号", "叹号"]),
    (
        '-',
        &[
            "hyphen",
            "dash",
            "minus",
            "连字符",
            "横线",
            "短横",
            "减号",
            "中划线",
        ],
    ),
    ('_', &["underscore", "下划线"]),
    ('#', &["hash", "pound sign", "number sign", "井号"]),
    ('@', &["at sign", "at-sign", "艾特"]),
    ('.', &["dot", "period", "full stop", "点号", "句点"]),
    (':', &["colon", "冒号"]),
    ('*', &["asterisk", "star", "星号"]),
    ('+', &["plus", "加号"]),
    ('/', &["slash", "斜杠", "斜线"]),
    ('&', &["ampersand", "and sign", "和号"]),
    ('$', &["dollar", "美元符号"]),
    ('%', &["percent", "百分号"]),
    ('?', &["question mark", "问号"]),
];

/// Whether `lower` (a task in lower case) names the symbol `c` ([`SYMBOL_NAMES`]).
fn named_symbol(lower: &str, c: char) -> bool {
    SYMBOL_NAMES
        .iter()
        .any(|(s, names)| *s == c && names.iter().any(|n| lower.contains(n)))
}

/// Words that work a number out of another ("ten years after 1985", "1985 年出生，十年后").
const ARITHMETIC: &[&str] = &[
    "plus", "minus", "add", "subtract", "times", "double", "twice", "half", "sum", "total",
    "after", "before", "later", "earlier", "older", "younger", "more", "less", "fewer", "next",
    "previous", "年后", "年前", "之后", "以后", "之前", "以前", "加上", "减去", "乘以", "除以",
    "翻倍", "一半",
];

/// `value` cut into runs of one class each: ASCII digits, non-Chinese letters, Chinese
/// characters, anything else.
fn runs(value: &str) -> Vec<String> {
    let class = |c: char| {
        if c.is_ascii_digit() {
            0
        } else if super::cjk::is_cjk(c) {
            2
        } else if c.is_alphabetic() {
            1
        } else {
            3
        }
    };
    let mut out: Vec<String> = Vec::new();
    let mut last = None;
    for c in value.chars() {
        let k = class(c);
        match out.last_mut() {
            Some(s) if last == Some(k) => s.push(c),
            _ => out.push(c.to_string()),
        }
        last = Some(k);
    }
    out
}

/// Whether `run` is a concatenation of pieces each a non-empty start of one of `words`, at
/// most one of them a single letter (an initial: `r` + `delgado`); a run of single letters
/// each starting some word ("j-s-m-i-t-h") is no such build.
fn splits_into_word_starts(run: &str, words: &[&str]) -> bool {
    let chars: Vec<char> = run.chars().collect();
    // fewest[i]: the fewest one-letter pieces that split the first i characters.
    let mut fewest: Vec<Option<usize>> = vec![None; chars.len() + 1];
    fewest[0] = Some(0);
    for i in 0..chars.len() {
        let Some(here) = fewest[i] else {
            continue;
        };
        for w in words {
            let n = w
                .chars()
                .zip(&chars[i..])
                .take_while(|(a, b)| a == *b)
                .count();
            for k in 1..=n {
                let cost = here + usize::from(k == 1);
                if fewest[i + k].is_none_or(|c| cost < c) {
                    fewest[i + k] = Some(cost);
                }
            }
        }
    }
    fewest[chars.len()].is_some_and(|c| c <= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_built_from_the_instruction_are_kept_and_made_up_ones_are_not() {
        let t = "Sign me up: I'm Jonas Berg, the handle is my first initial then my surname, \
                 and the PIN is the last four digits of 0471 5532.";
        assert!(built_from(t, "jberg"));
        assert!(built_from(t, "JBerg"));
        assert!(built_from(t, "5532"));
        assert!(!built_from(t, "jsmith"), "a surname the task never says");
        assert!(!built_from(t, ""));
        assert!(
            !built_from("name it after the cat", "1995"),
            "no number said"
        );
        assert!(built_from("born in 1985, ten years later", "1995"));
        assert!(
            !built_from("Sign me up as Jonas Berg, I have 2 kids", "5551234"),
            "a number the task never says, and no arithmetic"
        );
        assert!(built_from("我 1985 年出生，十年后", "1995"));
        assert!(built_from("先写 Birch，再加星号 * 和 42", "Birch*42"));
        assert!(
            !built_from("先写 Birch 和 42", "Birch*42"),
            "a symbol the task never uses"
        );
        assert!(built_from("书名叫《夜航》", "夜航"));
        assert!(built_from("名字 Leo，接一个英文叹号", "Leo!"));
        assert!(built_from("tag is wren, a hyphen, then 3", "wren-3"));
        assert!(
            !built_from("tag is wren, then 3", "wren-3"),
            "no hyphen said"
        );
        assert!(!built_from("书名叫《夜航》", "白昼"));
    }

    #[test]
    fn an_answer_is_its_text_or_none() {
        assert_eq!(
            parse(&json!({"text": " a1 "})).unwrap().as_deref(),
            Some("a1")
        );
        assert_eq!(parse(&json!({"text": null})).unwrap(), None);
        assert!(parse(&json!("x")).is_err());
        assert_eq!(schema()["required"][0], "text");
    }
}
