//! Which element a step acts on ([`Target`]) and how it relates to its quoted anchor
//! ([`Relation`]): plain data, below both the step grammar (`script`, whose `script::target`
//! parses targets) and the action shape (`action`).

use serde::{Deserialize, Serialize};

/// How a target relates to its quoted anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// The element whose own name/label/placeholder/text is the anchor.
    Named,
    /// Nearest element of the role in the same row, left of the anchor.
    LeftOf,
    /// Nearest element of the role in the same row, right of the anchor.
    RightOf,
    /// Nearest element of the role above the anchor, overlapping it horizontally.
    Above,
    /// Nearest element of the role below the anchor, overlapping it horizontally.
    Below,
    /// Nearest element of the role in the anchor's row, either side.
    InRowOf,
}

impl Relation {
    /// The English words of the relation (`left of`, …); `None` for [`Relation::Named`].
    pub fn words(self) -> Option<&'static str> {
        Some(match self {
            Relation::Named => return None,
            Relation::LeftOf => "left of",
            Relation::RightOf => "right of",
            Relation::Above => "above",
            Relation::Below => "below",
            Relation::InRowOf => "in the row of",
        })
    }

    /// The Chinese words of the relation, written after the anchor (`"X" 左边的 复选框`);
    /// `None` for [`Relation::Named`].
    pub fn words_zh(self) -> Option<&'static str> {
        Some(match self {
            Relation::Named => return None,
            Relation::LeftOf => "左边的",
            Relation::RightOf => "右边的",
            Relation::Above => "上面的",
            Relation::Below => "下面的",
            Relation::InRowOf => "同一行的",
        })
    }
}

/// Which element a step acts on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// Canonical role the element must have (`button`, `checkbox`, …), if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The quoted text: the element's own name for [`Relation::Named`], else the anchor's.
    pub name: String,
    /// How the element relates to `name`.
    pub relation: Relation,
    /// The element's own name when it is placed relative to an anchor (`tap "Add" in the row
    /// of "Users"`: label `Add`, anchor `name` = `Users`); `None` for a bare relation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl Target {
    /// A target named by its own text.
    pub fn named(name: &str) -> Target {
        Target {
            role: None,
            name: name.to_string(),
            relation: Relation::Named,
            label: None,
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let (Some(label), Some(word)) = (&self.label, self.relation.words()) {
            return match &self.role {
                Some(r) => write!(f, "{r} {label:?} {word} {:?}", self.name),
                None => write!(f, "{label:?} {word} {:?}", self.name),
            };
        }
        let role = self.role.as_deref().unwrap_or("element");
        match self.relation {
            Relation::Named => match &self.role {
                Some(r) => write!(f, "{r} {:?}", self.name),
                None => write!(f, "{:?}", self.name),
            },
            Relation::LeftOf => write!(f, "the {role} left of {:?}", self.name),
            Relation::RightOf => write!(f, "the {role} right of {:?}", self.name),
            Relation::Above => write!(f, "the {role} above {:?}", self.name),
            Relation::Below => write!(f, "the {role} below {:?}", self.name),
            Relation::InRowOf => write!(f, "the {role} in the row of {:?}", self.name),
        }
    }
}
