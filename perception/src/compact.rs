//! Compact text of an observation for prompts: one line per element, no coordinates.
//!
//! Line shape: `<id> [<role>] "<name>" [="<value>"] [hint="<placeholder>"] [states]
//! [L:<id>] [R:<id>] [U:<id>] [D:<id>]`
//!
//! - The role is left out for `text` (a bare quoted string is text).
//! - Names and hints are whitespace-collapsed and cut to [`MAX_LABEL_CHARS`] chars, values
//!   to [`MAX_VALUE_CHARS`] (`…` marks a cut); a password's value is `***`.
//! - States, only when the platform said so: `on`/`off` (checkbox, switch, radio),
//!   `selected`, `focused`, `disabled`, `covered`; pixel elements get `ocr` / `cv`.
//! - Neighbours: `L`/`R`/`U`/`D` ids; `L` is left out when it is the previous id and `R` when
//!   it is the next one (reading order already says so).

use crate::observation::{Element, Observation, Source};
use crate::role::Role;
use crate::text::collapse_ws;
use crate::tree::Tri;

/// Longest name / value / hint printed, in chars.
pub const MAX_LABEL_CHARS: usize = 40;

/// Longest value printed, in chars: what a field holds is often what the job works on (text
/// to copy, a total to check), so more of it is shown than of a label.
pub const MAX_VALUE_CHARS: usize = 160;

fn quoted(s: &str) -> String {
    quoted_to(s, MAX_LABEL_CHARS)
}

fn quoted_to(s: &str, max: usize) -> String {
    let s = collapse_ws(s);
    let mut out: String = s.chars().take(max).collect();
    if s.chars().count() > max {
        out.push('…');
    }
    format!("{out:?}")
}

fn id_num(id: &str) -> Option<usize> {
    id.strip_prefix('e')?.parse().ok()
}

/// One element's compact line (`k` is its 1-based position, for the neighbour elision).
pub fn line(e: &Element, k: usize) -> String {
    let mut parts: Vec<String> = vec![e.id.clone()];
    if e.role != Role::Text {
        parts.push(e.role.as_str().to_string());
    }
    if !e.name.trim().is_empty() {
        parts.push(quoted(&e.name));
    }
    if let Some(v) = e.value.as_deref().filter(|v| !v.trim().is_empty()) {
        if e.password.is_yes() {
            parts.push("=\"***\"".to_string());
        } else {
            parts.push(format!("={}", quoted_to(v, MAX_VALUE_CHARS)));
        }
    }
    if let Some(p) = e.placeholder.as_deref().filter(|p| !p.trim().is_empty()) {
        if e.name.trim().is_empty() || e.role == Role::Textfield {
            parts.push(format!("hint={}", quoted(p)));
        }
    }
    if matches!(e.role, Role::Checkbox | Role::Switch | Role::Radio) {
        match e.checked {
            Tri::Yes => parts.push("on".into()),
            Tri::No => parts.push("off".into()),
            Tri::Unknown => {}
        }
    }
    for (flag, word) in [
        (e.selected.is_yes(), "selected"),
        (e.focused.is_yes(), "focused"),
        (e.enabled == Tri::No, "disabled"),
        (e.covered.is_yes(), "covered"),
        (e.source == Source::Ocr, "ocr"),
        (e.source == Source::Vision, "cv"),
    ] {
        if flag {
            parts.push(word.to_string());
        }
    }
    let nb = &e.neighbours;
    let side = |tag: &str, id: &Option<String>, skip: Option<usize>| -> Option<String> {
        let id = id.as_ref()?;
        (id_num(id) != skip || skip.is_none()).then(|| format!("{tag}:{id}"))
    };
    let prev = k.checked_sub(1).filter(|&p| p > 0);
    parts.extend(side("L", &nb.left, prev));
    parts.extend(side("R", &nb.right, Some(k + 1)));
    parts.extend(side("U", &nb.top, None));
    parts.extend(side("D", &nb.bottom, None));
    parts.join(" ")
}

impl Observation {
    /// The compact one-line-per-element text (see the module docs), lines joined by `\n`.
    pub fn compact(&self) -> String {
        self.elements
            .iter()
            .enumerate()
            .map(|(i, e)| line(e, i + 1))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use crate::{build, Node, Rect, Role, Screen, Tree};

    #[test]
    fn values_are_cut_later_than_names() {
        let long: String = "lorem ipsum ".repeat(10);
        let mut tree = Tree::default();
        let mut root = Node::new(Role::Other, "", "");
        root.bounds = Some(Rect::new(0.0, 0.0, 400.0, 400.0));
        root.children = vec![1];
        tree.nodes.push(root);
        let mut field = Node::new(Role::Textfield, "textbox", &long);
        field.value = Some(long.clone());
        field.bounds = Some(Rect::new(10.0, 10.0, 300.0, 30.0));
        field.parent = Some(0);
        tree.nodes.push(field);
        let screen = Screen {
            width: 400.0,
            height: 400.0,
            dpr: 1.0,
        };
        let text = build(&tree, screen, 1).compact();
        let shown = |s: &str| s.chars().filter(|c| *c != '…').count();
        let (name, value) = text
            .split_once("=")
            .expect("a name, then the value after `=`");
        // The name: 40 chars and the cut mark; the value: all of its 119 chars.
        assert!(
            name.contains('…') && shown(name.split('"').nth(1).unwrap_or("")) == 40,
            "{text}"
        );
        assert_eq!(value.trim_matches('"'), long.trim(), "{text}");
    }
}
