//! Whether a character is a CJK ideograph (the clause readers' test for Chinese text): a leaf
//! the readers share, so none of them imports another for it.

/// Whether `c` is in the CJK Unified Ideographs block (U+4E00–U+9FFF).
pub(super) fn is_cjk(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}
