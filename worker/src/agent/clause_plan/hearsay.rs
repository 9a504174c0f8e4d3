//! Whether a Chinese clause only reports what someone said ([`hearsay_zh`]): such a clause
//! orders nothing, and names no item a pronoun after it could speak of as its topic. Kept
//! below `clause_kind` and `item_match`, which both ask it.

use crate::agent::clauses;

/// Whether an unread Chinese clause only reports what someone said ("宽带那边说可以改成按年
/// 交", "房东说下周再来"): a 说 after a speaker, followed by what may or will be, not an
/// order to tell someone ("跟房东说…", "你说一下…").
pub(super) fn hearsay_zh(seg: &str) -> bool {
    let Some(i) = seg.find('说') else {
        return false;
    };
    let (head, after) = (&seg[..i], &seg[i + '说'.len_utf8()..]);
    // "记得跟物业说明天来修": whom to tell, anywhere before 说, makes it an order to tell.
    let speaker = !head.is_empty()
        && !["跟", "和", "给", "帮", "你", "请", "再", "先", "要", "得"]
            .iter()
            .any(|w| head.ends_with(w) || head.starts_with(w) || head.contains('把'))
        && !["跟", "和", "给", "对", "告诉", "记得", "提醒", "别忘"]
            .iter()
            .any(|w| head.contains(w));
    speaker
        && [
            "可以", "能", "会", "不用", "不能", "没", "已经", "下", "明", "要",
        ]
        .iter()
        .any(|w| after.starts_with(w))
        && clauses::quoted(seg).is_empty()
}
