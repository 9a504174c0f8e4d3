//! A dictated text typed cut short at a comma: "Type this, word for word: Bay 3 is shut
//! today, use bay 4." typed as `Bay 3 is shut today`. When the instruction says the
//! text is to be typed whole ([`WHOLE_CUES`]) and a colon then opens it, the text runs to
//! the sentence's end; a typing that is that text cut at a comma is given the rest
//! ([`dictated_whole`], used by [`super::plan_typed::as_written`]).
//!
//! Why (measured with Qwen2.5-Coder-1.5B on a one-field form): the model typed the dictated
//! text up to its first comma, and the kept value was "held word for word" by the
//! instruction, so nothing corrected it.

/// Words saying a text is to be typed exactly as given.
const WHOLE_CUES: &[&str] = &[
    "word for word",
    "word-for-word",
    "verbatim",
    "exactly as written",
    "exactly as follows",
    "exactly this",
    "exactly",
    "一字不差",
    "逐字",
    "原样",
    "原封不动",
];

/// How many characters may stand between a cue and the colon that opens the text
/// ("word for word, please:").
const CUE_REACH: usize = 12;

/// The whole dictated text `text` was cut from: the text after a colon that follows a
/// [`WHOLE_CUES`] word (within [`CUE_REACH`] characters), up to the sentence's end (a full
/// stop followed by a space or the end, or a line break), when `text` is that text cut
/// right before a comma. `None` otherwise.
pub(super) fn dictated_whole(task: &str, text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let lower = task.to_lowercase();
    for cue in WHOLE_CUES {
        for (at, _) in lower.match_indices(cue) {
            let after = task.get(at + cue.len()..)?;
            let Some((colon, len)) = after
                .char_indices()
                .take(CUE_REACH)
                .find(|(_, c)| *c == ':' || *c == '：')
                .map(|(i, c)| (i, c.len_utf8()))
            else {
                continue;
            };
            let body = after[colon + len..].trim_start();
            let span = sentence(body);
            if let Some(rest) = span.strip_prefix(text) {
                if rest.starts_with([',', '，']) {
                    return Some(span.to_string());
                }
            }
        }
    }
    None
}

/// `body` up to its first sentence end: a full stop (`.`, `。`) followed by white space or
/// the end, or a line break; the stop itself left out.
fn sentence(body: &str) -> &str {
    let chars: Vec<(usize, char)> = body.char_indices().collect();
    for (k, (i, c)) in chars.iter().enumerate() {
        let next_space = chars.get(k + 1).is_none_or(|(_, n)| n.is_whitespace());
        if *c == '\n' || *c == '。' || (*c == '.' && next_space) {
            return &body[..*i];
        }
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dictated_text_cut_at_a_comma_runs_to_its_sentence_end() {
        let task = "Please type this word for word: Bay 3 is shut today, use bay 4. Then submit.";
        assert_eq!(
            dictated_whole(task, "Bay 3 is shut today").as_deref(),
            Some("Bay 3 is shut today, use bay 4")
        );
        // Typed whole already, or cut elsewhere than at a comma: nothing to add.
        assert_eq!(dictated_whole(task, "Bay 3 is shut today, use bay 4"), None);
        assert_eq!(dictated_whole(task, "Bay 3"), None);
        // No cue that the text is to be typed whole: a comma may end it.
        let task = "Type this: Bay 3 is shut today, then press submit.";
        assert_eq!(dictated_whole(task, "Bay 3 is shut today"), None);
        // A value with dots inside ("v2.1") is not cut at them.
        let task = "Enter verbatim: build v2.1 passed, ship it.";
        assert_eq!(
            dictated_whole(task, "build v2.1 passed").as_deref(),
            Some("build v2.1 passed, ship it")
        );
        let task = "原样输入：三号仓今天关闭，请走四号仓。然后提交。";
        assert_eq!(
            dictated_whole(task, "三号仓今天关闭").as_deref(),
            Some("三号仓今天关闭，请走四号仓")
        );
    }
}
