//! What icon-only controls are called, as people say them: a list row's `×` is its delete
//! button, `✎` edits, `🔍` searches. The accessibility name of such a control is the glyph
//! its CSS or font draws (Chromium names a button by its `::after { content: "×" }`), which
//! no instruction quotes; the resolver reads these meanings only after every exact and
//! phrase match failed (see `crate::resolve`). Also the few action words apps use for the
//! same command (`Delete` / `Remove`).
//!
//! The table is the common Unicode glyphs of icon buttons (Unicode's "Dingbats",
//! "Miscellaneous Technical" and emoji blocks), not any app's labels.

/// One meaning: the glyphs that draw it and the words (lower case, EN and ZH) that name it.
struct Meaning {
    glyphs: &'static [&'static str],
    words: &'static [&'static str],
}

const MEANINGS: [Meaning; 6] = [
    Meaning {
        glyphs: &["×", "✕", "✖", "✗", "✘", "⨯", "❌", "🗙", "🗑", "🗑️"],
        words: &["delete", "remove", "destroy", "删除", "移除", "删掉"],
    },
    Meaning {
        glyphs: &["×", "✕", "✖", "⨯", "❌", "🗙"],
        words: &["close", "dismiss", "关闭"],
    },
    Meaning {
        glyphs: &["✎", "✏", "✏️", "🖉", "🖊"],
        words: &["edit", "rename", "编辑", "修改"],
    },
    Meaning {
        glyphs: &["+", "＋", "➕"],
        words: &["add", "new", "添加", "新建"],
    },
    Meaning {
        glyphs: &["🔍", "🔎", "⌕"],
        words: &["search", "搜索"],
    },
    Meaning {
        glyphs: &["☰", "≡", "⋮", "⋯"],
        words: &["menu", "more", "菜单", "更多"],
    },
];

/// Whether an element labelled `label` is what `want` (already lower-cased, spaces
/// collapsed) names by meaning: `label` is a glyph of `want`'s meaning, or another word of
/// it among action words (`"Remove"` for `"delete"`). An exact label match is not this
/// function's business.
pub fn means(label: &str, want: &str) -> bool {
    let label = label.trim();
    let lower = label.to_lowercase();
    MEANINGS.iter().any(|m| {
        m.words.contains(&want) && (m.glyphs.contains(&label) || m.words.contains(&lower.as_str()))
    })
}

#[cfg(test)]
mod tests {
    use super::means;

    #[test]
    fn glyphs_and_action_words_by_meaning() {
        assert!(means("×", "delete"));
        assert!(means(" × ", "close"));
        assert!(means("🗑", "删除"));
        assert!(means("Remove", "delete"));
        assert!(means("✎", "edit"));
        assert!(!means("🗑", "close"), "a bin is no close button");
        assert!(!means("×", "edit"));
        assert!(
            !means("Delete all", "delete"),
            "a longer label is the phrase tiers' business"
        );
        assert!(!means("x", "delete"), "a letter is a letter");
        assert!(!means("×", "pay rent"));
    }
}
