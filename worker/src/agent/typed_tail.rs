//! A typed text the model copied past its end, into the instruction's words on how to write
//! it ("内容是：X。就这十二个字，不要引号" typed as `X。就这十二个字，不要引号`): cut back to the
//! text ([`described_tail`], used by [`super::plan_typed::as_written`]).

/// Chinese words that only ever speak about a text: its quotes, full stop, punctuation,
/// spaces, how many characters it has.
const ABOUT_ZH: &[&str] = &[
    "引号",
    "句号",
    "标点",
    "空格",
    "字数",
    "下划线",
    "拼音",
    "井号",
];
/// Characters before 字 that count characters ("九个字", "十二字", "这几个字"), and before
/// 大写 / 小写 that say how a text is cased ("首字母大写", "全部小写", "都用大写").
const COUNTS_ZH: &str = "一二三四五六七八九十百两几个0123456789";
const CASED_ZH: &str = "母全部都用持";

/// English words about a text's form, and the words right before one that make it speak
/// of the text ("no quotes", "keep the capital", "in lowercase", "without a full stop").
const ABOUT_EN: &[&str] = &[
    "quotes",
    "quotation",
    "stop",
    "period",
    "punctuation",
    "spaces",
    "capital",
    "capitals",
    "caps",
    "lowercase",
    "lower-case",
    "uppercase",
    "upper-case",
    "comma",
    "commas",
    "hyphen",
    "underscore",
    "colon",
    "apostrophe",
];
/// Words right after a mark's name that place it in the text ("a comma before code", "a
/// full stop after the number").
const PLACES_EN: &[&str] = &["before", "after", "between"];
const ABOUT_EN_LEADS: &[&str] = &[
    "no", "without", "keep", "leave", "drop", "skip", "omit", "add", "in", "all", "with",
];
/// Words skipped between a lead and the word it leads ("without a full stop").
const ARTICLES: &[&str] = &["a", "an", "the", "any", "its", "full"];
/// Words that count ("twelve characters", "12 letters").
const NUMBERS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "thirteen", "fourteen", "fifteen", "twenty", "thirty", "forty", "fifty",
];

/// Whether one sentence speaks about how a text is written rather than being text of its
/// own: a [`ABOUT_ZH`] word, a count of characters (字 after a [`COUNTS_ZH`] character), a
/// case said of it, or an [`ABOUT_EN`] word right after one of [`ABOUT_EN_LEADS`]
/// (articles between), or "characters" / "letters" after a number.
fn about_text(sentence: &str) -> bool {
    let chars: Vec<char> = sentence.chars().collect();
    let after = |i: usize, set: &str| i > 0 && set.contains(chars[i - 1]);
    // "Y 大写": a Latin letter (a space between or not) before 大写 / 小写.
    let letter_before = |i: usize| {
        chars[..i]
            .iter()
            .rev()
            .find(|c| **c != ' ')
            .is_some_and(|c| c.is_ascii_alphabetic())
    };
    let zh = ABOUT_ZH.iter().any(|w| sentence.contains(w))
        || chars.iter().enumerate().any(|(i, c)| {
            (*c == '字' && after(i, COUNTS_ZH))
                || (['大', '小'].contains(c)
                    && chars.get(i + 1) == Some(&'写')
                    && (after(i, CASED_ZH) || letter_before(i)))
        });
    if zh {
        return true;
    }
    let lower = sentence.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    // "T and B are capitals": capital letters named on their own before the word.
    let said: Vec<&str> = sentence
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    let capital_letter = |i: usize| {
        said[i.saturating_sub(4)..i]
            .iter()
            .any(|w| w.len() == 1 && w.chars().all(|c| c.is_ascii_uppercase()) && *w != "I")
    };
    words.iter().enumerate().any(|(i, w)| {
        let lead = words[..i]
            .iter()
            .rev()
            .find(|x| !ARTICLES.contains(x))
            .copied();
        let counted = ["characters", "letters"].contains(w)
            && lead.is_some_and(|l| NUMBERS.contains(&l) || l.parse::<u32>().is_ok());
        let full_stop = *w != "stop" || (i > 0 && words[i - 1] == "full");
        let next = words.get(i + 1).copied();
        // "Capital P", "a comma before code": a letter cased, a mark placed.
        let letter = next.is_some_and(|n| n.len() == 1 && n.chars().all(|c| c.is_alphabetic()));
        let placed = next.is_some_and(|n| PLACES_EN.contains(&n));
        // "Capitals exactly as I've typed them": the sentence opens with the word.
        let opens = i == 0 && w.len() > 5;
        counted
            || (ABOUT_EN.contains(w)
                && full_stop
                && (lead.is_some_and(|l| ABOUT_EN_LEADS.contains(&l))
                    || letter
                    || placed
                    || opens
                    || (said.len() == words.len() && capital_letter(i))))
    })
}

/// The sentences of a typed `text` before the first one that speaks about the text itself
/// ([`about_text`]: "明早九点前寄到。就这十个字，不要句号" → "明早九点前寄到"): the model copied
/// the instruction past the end of what to type; the sentence's own stop kept when
/// `keep_stop` (the instruction says so). `None` when no sentence after the first
/// does (a sentence that only uses such a word, "记得写名字", "Sign the letters", is text).
pub(super) fn described_tail(text: &str, keep_stop: bool) -> Option<String> {
    let ends: Vec<(usize, usize)> = text
        .char_indices()
        .filter(|(i, c)| {
            // "Yinxing_7302：Y 大写，…": a full-width colon ends the text before its spelling.
            (['。', '！', '？', '：'].contains(c) && *i + c.len_utf8() < text.len())
                || (['.', '!', '?', ':'].contains(c) && text[i + 1..].starts_with(' '))
        })
        .map(|(i, c)| (i, i + c.len_utf8()))
        .collect();
    ends.iter().enumerate().find_map(|(k, &(at, next))| {
        let upto = ends.get(k + 1).map_or(text.len(), |e| e.0);
        let head = text[..at].trim();
        (!head.is_empty() && about_text(&text[next..upto])).then(|| {
            // The stop itself stays where the instruction says to keep it ("句末的句号也要带上").
            if keep_stop {
                text[..next].trim().to_string()
            } else {
                head.to_string()
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_sentence_about_how_the_text_is_written_ends_it() {
        assert_eq!(
            described_tail("周五前交报告。就这九个字，别加引号", false).as_deref(),
            Some("周五前交报告")
        );
        assert_eq!(
            described_tail("Gate code is 4411. Keep the capital G. No quotes", false).as_deref(),
            Some("Gate code is 4411")
        );
        // An abbreviation's stop is no sentence end of note.
        assert_eq!(
            described_tail("Ask Mr. Li at 5. Without a full stop", false).as_deref(),
            Some("Ask Mr. Li at 5")
        );
        // Sentences that only use such a word are text of their own.
        for whole in [
            "下午开会。带上身份证和签字笔。",
            "别忘了写上名字。还有班级。",
            "Shop shut Sunday. Only six spaces in the car park.",
            "Back at two. The letters are on the desk.",
            "Budget is due. Mind the capital costs.",
        ] {
            assert_eq!(described_tail(whole, false), None, "{whole}");
        }
        assert_eq!(
            described_tail("周日不营业。句号要保留", true).as_deref(),
            Some("周日不营业。")
        );
        // Spelt out after a full-width colon, or in a sentence that cases letters and
        // places marks.
        assert_eq!(
            described_tail("Maple_2291：M 大写，中间一个下划线", false).as_deref(),
            Some("Maple_2291")
        );
        assert_eq!(
            described_tail(
                "Keys are under the mat, door 4. Capital K, a comma before door.",
                false
            )
            .as_deref(),
            Some("Keys are under the mat, door 4")
        );
        // A sentence that opens with a word of form, or finishes "with a full stop".
        assert_eq!(
            described_tail(
                "Bake sale moved to Friday. Punctuation as written, and finish with a full stop.",
                true
            )
            .as_deref(),
            Some("Bake sale moved to Friday.")
        );
        // After a colon: the letters it names capitals.
        assert_eq!(
            described_tail("Maple&Oak9: M and O are capitals, then the digit 9", false).as_deref(),
            Some("Maple&Oak9")
        );
        for whole in [
            "Agenda: budget, capital costs, hiring",
            "会议改到：周五下午三点",
            "Meet at gate B. Take the hyphenated road.",
            "Bring a comma-free list. Sign it.",
        ] {
            assert_eq!(described_tail(whole, false), None, "{whole}");
        }
    }
}
