//! Targets: a quoted name, a role word, a relation to an anchor (`the checkbox left of "X"`,
//! `"Add" in the row of "Users"`, `"buy milk" 左边的 复选框`).

use super::{err, is_open_quote, quoted, strip_cjk, strip_kw, LineResult};
use crate::target::{Relation, Target};

/// Role words accepted in targets, mapped to canonical roles.
const ROLE_WORDS: &[(&str, &str)] = &[
    ("button", "button"),
    ("checkbox", "checkbox"),
    ("check box", "checkbox"),
    ("toggle", "checkbox"),
    ("switch", "switch"),
    ("link", "link"),
    ("textbox", "textfield"),
    ("text field", "textfield"),
    ("textfield", "textfield"),
    ("input", "textfield"),
    ("field", "textfield"),
    ("tab", "tab"),
    ("menu item", "menuitem"),
    ("menuitem", "menuitem"),
    ("radio", "radio"),
    ("radio button", "radio"),
    ("image", "image"),
    ("icon", "image"),
    ("heading", "heading"),
    ("text", "text"),
    ("label", "text"),
    ("list item", "listitem"),
    ("listitem", "listitem"),
    ("combobox", "combobox"),
    ("dropdown", "combobox"),
    ("slider", "slider"),
    ("按钮", "button"),
    ("复选框", "checkbox"),
    ("勾选框", "checkbox"),
    ("开关", "switch"),
    ("链接", "link"),
    ("输入框", "textfield"),
    ("文本框", "textfield"),
    ("标签页", "tab"),
    ("菜单项", "menuitem"),
    ("单选框", "radio"),
    ("图标", "image"),
    ("图片", "image"),
    ("标题", "heading"),
    ("文本", "text"),
];

/// Canonical role for a role word (`"check box"` → `"checkbox"`), if known.
pub fn canonical_role(word: &str) -> Option<&'static str> {
    let w = word.trim().to_lowercase();
    let w = w.trim_start_matches("the ").trim();
    ROLE_WORDS
        .iter()
        .find(|(k, _)| *k == w || format!("{k}s") == w)
        .map(|(_, v)| *v)
}

/// The Chinese role word for a canonical role (`"checkbox"` → `"复选框"`), the first the
/// grammar lists; `None` for a role with no Chinese word (`listitem`, `combobox`, `slider`
/// are written in English in Chinese lines too).
pub fn role_word_zh(role: &str) -> Option<&'static str> {
    ROLE_WORDS
        .iter()
        .find(|(k, v)| !k.is_ascii() && *v == role)
        .map(|(k, _)| *k)
}

const RELATIONS_EN: &[(&str, Relation)] = &[
    ("to the left of", Relation::LeftOf),
    ("left of", Relation::LeftOf),
    ("to the right of", Relation::RightOf),
    ("right of", Relation::RightOf),
    ("above", Relation::Above),
    ("below", Relation::Below),
    ("under", Relation::Below),
    ("in the row of", Relation::InRowOf),
    ("in row of", Relation::InRowOf),
    ("next to", Relation::InRowOf),
    ("beside", Relation::InRowOf),
    ("for", Relation::InRowOf),
    ("of", Relation::InRowOf),
];

const RELATIONS_ZH: &[(&str, Relation)] = &[
    ("左边的", Relation::LeftOf),
    ("左侧的", Relation::LeftOf),
    ("右边的", Relation::RightOf),
    ("右侧的", Relation::RightOf),
    ("上面的", Relation::Above),
    ("上方的", Relation::Above),
    ("下面的", Relation::Below),
    ("下方的", Relation::Below),
    ("同一行的", Relation::InRowOf),
    ("旁边的", Relation::InRowOf),
];

/// Parses a target at the start of `s`: `"X"`, `button "X"`, `the checkbox left of "X"`,
/// or (Chinese) `"X"`, `"X" 按钮`, `"X" 左边的 复选框`, `"Users" 同一行的 "Add" [按钮]`.
/// Returns the target and the rest.
/// `"Add" in the row of "Users"` / `button "Edit" below "Billing"`: a named element narrowed
/// by an anchor; `rest` is what follows the element's own name. `None` when no relation
/// word and quoted anchor follow.
fn anchored<'a>(
    label: &str,
    role: Option<&str>,
    rest: &'a str,
) -> LineResult<Option<(Target, &'a str)>> {
    let rest_t = rest.trim_start();
    for (kw, rel) in RELATIONS_EN {
        if let Some(after) = strip_kw(rest_t, kw) {
            if after.starts_with(is_open_quote) {
                let (anchor, tail) = quoted(after)?;
                return Ok(Some((
                    Target {
                        role: role.map(str::to_string),
                        name: anchor,
                        relation: *rel,
                        label: Some(label.to_string()),
                    },
                    tail,
                )));
            }
        }
    }
    Ok(None)
}

pub(super) fn parse_target(s: &str) -> LineResult<(Target, &str)> {
    let s = s.trim_start();
    if s.starts_with(is_open_quote) {
        return quoted_first(s);
    }
    // `the checkbox left of "X"`, `button "Save"`
    let Some(q) = s.find(is_open_quote) else {
        return err(
            "expected a quoted name for the target",
            "write tap \"Sign in\" or tap the checkbox left of \"buy milk\"",
        );
    };
    let head = s[..q].trim();
    let head_lc = head.to_lowercase();
    let head_lc = head_lc.strip_prefix("the ").unwrap_or(&head_lc).trim();
    for (kw, rel) in RELATIONS_EN {
        if let Some(role_word) = head_lc.strip_suffix(kw) {
            let role_word = role_word.trim();
            if role_word.is_empty() {
                continue;
            }
            let role = canonical_role(role_word).ok_or_else(|| unknown_role(role_word))?;
            let (name, rest) = quoted(&s[q..])?;
            return Ok((
                Target {
                    role: Some(role.into()),
                    name,
                    relation: *rel,
                    label: None,
                },
                rest,
            ));
        }
    }
    let role = canonical_role(head_lc).ok_or_else(|| unknown_role(head))?;
    let (name, rest) = quoted(&s[q..])?;
    if let Some(t) = anchored(&name, Some(role), rest)? {
        return Ok(t);
    }
    Ok((
        Target {
            role: Some(role.into()),
            name,
            relation: Relation::Named,
            label: None,
        },
        rest,
    ))
}

/// [`parse_target`] for a target that starts with its quoted name: `"Save"`, `"Save" button`,
/// `"Users" 同一行的 "Add"`, `"X" 右边的 复选框`.
fn quoted_first(s: &str) -> LineResult<(Target, &str)> {
    let (name, rest) = quoted(s)?;
    if let Some(t) = anchored(&name, None, rest)? {
        return Ok(t);
    }
    let rest_t = rest.trim_start();
    for (kw, rel) in RELATIONS_ZH {
        if let Some(after) = strip_cjk(rest_t, kw) {
            if after.trim_start().starts_with(is_open_quote) {
                // `"Users" 同一行的 "Add"`: anchor first, then the element's own name,
                // then maybe its kind (`"Users" 同一行的 "Add" 按钮`).
                let (label, tail) = quoted(after)?;
                let (word, after_role) = split_role_word(tail);
                let role = Some(word)
                    .filter(|w| !w.is_empty())
                    .and_then(canonical_role);
                return Ok((
                    Target {
                        role: role.map(str::to_string),
                        name,
                        relation: *rel,
                        label: Some(label),
                    },
                    if role.is_some() { after_role } else { tail },
                ));
            }
            let (word, tail) = split_role_word(after);
            let role = canonical_role(word).ok_or_else(|| unknown_role(word))?;
            return Ok((
                Target {
                    role: Some(role.into()),
                    name,
                    relation: *rel,
                    label: None,
                },
                tail,
            ));
        }
    }
    // `"Save" button` / `"保存" 按钮`
    let (word, tail) = split_role_word(rest_t);
    if !word.is_empty() {
        if let Some(role) = canonical_role(word) {
            return Ok((
                Target {
                    role: Some(role.into()),
                    name,
                    relation: Relation::Named,
                    label: None,
                },
                tail,
            ));
        }
    }
    Ok((Target::named(&name), rest))
}

fn split_role_word(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    // Chinese role words may be followed directly by more text; try the longest known word.
    for (k, _) in ROLE_WORDS {
        if !k.is_ascii() {
            if let Some(rest) = s.strip_prefix(k) {
                return (k, rest);
            }
        }
    }
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

fn unknown_role(word: &str) -> (String, String) {
    (
        format!(
            "unknown element kind `{}`",
            word.chars().take(24).collect::<String>()
        ),
        "kinds: button, checkbox, switch, link, textbox, tab, menu item, radio, image, heading, \
         text, list item, combobox, slider (按钮, 复选框, 输入框, 链接 …)"
            .into(),
    )
}
