//! A form value the instruction dictates piece by piece ("先写 Plum，紧接着数字 7，再写
//! Orchid", "start with kai, then an underscore, then 42"), put together without the model:
//! the pieces in order, each a typed token as written or a named symbol, nothing between
//! them.
//!
//! Why (measured with Qwen2.5-Coder-1.5B on a form page of the paraphrase set): asked for
//! such a password the model typed "Orchid" into one box and "plum7orchid" into the other;
//! the pieces themselves are plain to read.

/// Words that open a dictated sequence (lower-case; Chinese anywhere).
const LEADS: &[&str] = &[
    "先写",
    "先输入",
    "先输",
    "先打",
    "先填",
    "开头是",
    "start with ",
    "begin with ",
    "first type ",
];
/// Words that join its next piece.
const JOINS: &[&str] = &[
    "紧接着",
    "接着",
    "然后",
    "再写",
    "再接",
    "再加",
    "后面跟",
    "后面接",
    "后面加",
    "最后",
    ", then ",
    " then ",
    ", followed by ",
    " followed by ",
    ", and then ",
    " and then ",
    ", plus ",
];
/// Words a piece may start with before its token ("数字 7", "the number 7").
const PIECE_LEADS: &[&str] = &[
    "写",
    "输入",
    "打",
    "填",
    "数字",
    "字母",
    "单词",
    "一个",
    "是",
    "the number ",
    "the digits ",
    "the digit ",
    "the word ",
    "the letters ",
    "a ",
    "an ",
];
/// Named symbols a piece may be.
const SYMBOLS: &[(&str, &str)] = &[
    ("underscore", "_"),
    ("下划线", "_"),
    ("hyphen", "-"),
    ("dash", "-"),
    ("连字符", "-"),
    ("横杠", "-"),
    ("dot", "."),
    ("period", "."),
    ("点号", "."),
    ("hash", "#"),
    ("井号", "#"),
    ("at sign", "@"),
    ("exclamation mark", "!"),
    ("感叹号", "!"),
];

/// The pieces of the sequence opened at `start` of `task`, put together: `None` when fewer
/// than two pieces are plain tokens or symbols.
fn sequence_at(task: &str, start: usize) -> Option<String> {
    let rest = &task[start..];
    // A "." inside a token (d.moreau, Rain!7.) ends nothing: only one before a space or at
    // the end does.
    let end = rest
        .char_indices()
        .find(|(i, c)| {
            ['。', ';', '；', '\n'].contains(c)
                || (*c == '.' && (rest[i + 1..].is_empty() || rest[i + 1..].starts_with(' ')))
        })
        .map_or(rest.len(), |(i, _)| i);
    let mut text = rest[..end].to_string();
    for j in JOINS {
        text = text.replace(j, "\u{1}");
    }
    let mut out = String::new();
    let mut pieces = 0;
    for part in text.split('\u{1}') {
        // A piece ends at its comma ("再写 Moon，两个框都填").
        let part = part.trim().trim_start_matches([',', '，', ' ']);
        let part = part.split([',', '，']).next().unwrap_or("");
        let mut p = part.trim().to_string();
        let lower = p.to_lowercase();
        if let Some((_, sym)) = SYMBOLS.iter().find(|(n, _)| lower.contains(n)) {
            out.push_str(sym);
            pieces += 1;
            continue;
        }
        while let Some(l) = PIECE_LEADS
            .iter()
            .find(|l| p.to_lowercase().starts_with(**l))
        {
            p = p[l.len()..].trim().to_string();
        }
        let token = p.trim_matches(['"', '\'', '“', '”', '‘', '’']);
        let typed = !token.is_empty()
            && token.split_whitespace().count() == 1
            && token.chars().all(|c| c.is_ascii_graphic());
        if !typed {
            // "…, 两个框都填": the sentence goes on past the last piece.
            if pieces >= 2 {
                break;
            }
            return None;
        }
        out.push_str(token);
        pieces += 1;
    }
    (pieces >= 2).then_some(out)
}

/// The value `task` dictates piece by piece for the form field named `field` (`masked`: a
/// password box; `only_masked`: every text field of the form is one): a sequence whose lead
/// comes within 24 characters after the field's name (a password box also by 密码 /
/// "password"), or, on a form of password boxes only, the one sequence for each of them.
pub fn composed(task: &str, field: &str, masked: bool, only_masked: bool) -> Option<String> {
    let lower = task.to_lowercase();
    if lower.len() != task.len() {
        // Offsets below are on `task`; lower-casing kept them (ASCII and CJK do).
        return None;
    }
    let starts: Vec<usize> = LEADS
        .iter()
        .flat_map(|l| lower.match_indices(l).map(move |(i, _)| i + l.len()))
        .collect();
    let mut names = vec![field.to_lowercase()];
    if masked {
        names.extend(["密码".to_string(), "password".to_string()]);
    }
    let near = |s: usize| {
        let from = task[..s].char_indices().rev().nth(24).map_or(0, |(i, _)| i);
        names.iter().any(|n| lower[from..s].contains(n.as_str()))
    };
    let named: Vec<usize> = starts.iter().copied().filter(|s| near(*s)).collect();
    let pick = match named.as_slice() {
        [one] => Some(*one),
        [] if only_masked && starts.len() == 1 => Some(starts[0]),
        _ => None,
    }?;
    sequence_at(task, pick)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_dictated_piece_by_piece_is_put_together() {
        assert_eq!(
            composed(
                "新密码这样设：先写 Kite，接着数字 3，再写 Moon，两个框都填。",
                "Verify password",
                true,
                true
            )
            .as_deref(),
            Some("Kite3Moon")
        );
        let task = "Log in. For the username start with kai, then an underscore, then 42; the password is Rain!7.";
        assert_eq!(
            composed(task, "Username", false, false).as_deref(),
            Some("kai_42")
        );
        assert_eq!(composed(task, "Password", true, false), None);
        // Pieces that are words of a sentence are no dictation.
        assert_eq!(
            composed(
                "Start with the form, then press Submit.",
                "Username",
                false,
                false
            ),
            None
        );
    }
}
