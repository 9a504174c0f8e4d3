//! The keys a step or a tool call may press ([`Key`]): plain data, below both the step
//! grammar (`script`, which reads `press Enter` / `按 回车`) and the action shape (`action`).

use serde::{Deserialize, Serialize};

/// A key name accepted by `press`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Key {
    Enter,
    Tab,
    Escape,
    Backspace,
    Delete,
    Space,
    ArrowUp,
    ArrowDown,
    ArrowLeft,
    ArrowRight,
    Home,
    End,
    PageUp,
    PageDown,
}

impl Key {
    /// Every key, in the order the model's tool schema lists them.
    pub const ALL: [Key; 14] = [
        Key::Enter,
        Key::Tab,
        Key::Escape,
        Key::Backspace,
        Key::Delete,
        Key::Space,
        Key::ArrowUp,
        Key::ArrowDown,
        Key::ArrowLeft,
        Key::ArrowRight,
        Key::Home,
        Key::End,
        Key::PageUp,
        Key::PageDown,
    ];

    /// The key's name as written in tool calls: [`Key::as_str`], but `Space` for the space
    /// bar.
    pub fn name(self) -> &'static str {
        match self {
            Key::Space => "Space",
            k => k.as_str(),
        }
    }

    /// The key's name in a Chinese step line (`按 回车`): the Chinese word where the grammar
    /// has one (`回车`, `退格`, `删除键`, `空格`), else [`Key::name`].
    pub fn name_zh(self) -> &'static str {
        match self {
            Key::Enter => "回车",
            Key::Backspace => "退格",
            Key::Delete => "删除键",
            Key::Space => "空格",
            k => k.name(),
        }
    }

    /// The key named `name` (case-insensitive [`Key::name`] or [`Key::as_str`]).
    pub fn from_name(name: &str) -> Option<Key> {
        Key::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name) || k.as_str() == name)
    }

    /// Canonical (DOM `KeyboardEvent.key`) name, e.g. `"Enter"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Key::Enter => "Enter",
            Key::Tab => "Tab",
            Key::Escape => "Escape",
            Key::Backspace => "Backspace",
            Key::Delete => "Delete",
            Key::Space => " ",
            Key::ArrowUp => "ArrowUp",
            Key::ArrowDown => "ArrowDown",
            Key::ArrowLeft => "ArrowLeft",
            Key::ArrowRight => "ArrowRight",
            Key::Home => "Home",
            Key::End => "End",
            Key::PageUp => "PageUp",
            Key::PageDown => "PageDown",
        }
    }
}
