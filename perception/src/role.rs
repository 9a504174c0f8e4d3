//! Canonical roles shared by every platform; each element keeps its platform's original
//! role string beside it.

use serde::{Deserialize, Serialize};

/// One canonical role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Button,
    Textfield,
    Checkbox,
    Switch,
    Radio,
    Link,
    Tab,
    Menuitem,
    Listitem,
    Combobox,
    Slider,
    Image,
    Heading,
    Text,
    Dialog,
    /// A layout container or anything without a better name.
    Other,
}

impl Role {
    /// Lowercase canonical name, as used in the step language (`"checkbox"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Button => "button",
            Role::Textfield => "textfield",
            Role::Checkbox => "checkbox",
            Role::Switch => "switch",
            Role::Radio => "radio",
            Role::Link => "link",
            Role::Tab => "tab",
            Role::Menuitem => "menuitem",
            Role::Listitem => "listitem",
            Role::Combobox => "combobox",
            Role::Slider => "slider",
            Role::Image => "image",
            Role::Heading => "heading",
            Role::Text => "text",
            Role::Dialog => "dialog",
            Role::Other => "other",
        }
    }

    /// Parses a canonical name.
    pub fn parse(s: &str) -> Option<Role> {
        use Role::*;
        [
            Button, Textfield, Checkbox, Switch, Radio, Link, Tab, Menuitem, Listitem, Combobox,
            Slider, Image, Heading, Text, Dialog, Other,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }

    /// Roles a user acts on (tap, type, toggle): these absorb their descendants' text.
    pub fn is_actionable(self) -> bool {
        matches!(
            self,
            Role::Button
                | Role::Textfield
                | Role::Checkbox
                | Role::Switch
                | Role::Radio
                | Role::Link
                | Role::Tab
                | Role::Menuitem
                | Role::Combobox
                | Role::Slider
        )
    }
}
