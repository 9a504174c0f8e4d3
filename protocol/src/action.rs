//! One shape for everything a run does on a device: [`Action`].
//!
//! A script line (`tap "Save"`), a model's tool call (`{"name": "tap", "arguments":
//! {"element": "e7", "observation": 3}}`) and the popup policy all become an [`Action`]; the
//! worker executes every one of them through one path (`act(&Action, &Observation)`). The
//! action names (the `kind` of an `ActionRecord`, the model's tool names) and the model's
//! tool schema come from [`ActionKind`] alone (see [`crate::tool`]), so adding an action is:
//! a variant here, its [`ActionKind`] row, the grammar line that parses it, and the drivers
//! that can perform it.

use serde::{Deserialize, Serialize};

use crate::key::Key;
use crate::target::Target;

/// Default hold of a `long press`, ms.
pub const DEFAULT_LONG_PRESS_MS: u64 = 800;
/// Shortest / longest accepted hold of a `long press`, ms.
pub const LONG_PRESS_RANGE_MS: (u64, u64) = (100, 10_000);
/// Duration of a swipe gesture, ms.
pub const SWIPE_MS: u64 = 300;
/// Length of a swipe as a fraction of the screen (or element) size along its axis.
pub const SWIPE_FRACTION: f64 = 0.4;
/// Default bound of `scroll until "X" is visible`, swipes.
pub const DEFAULT_SCROLL_SWIPES: u32 = 10;
/// Largest accepted bound of `scroll until`, swipes.
pub const MAX_SCROLL_SWIPES: u32 = 50;

/// Which element (or point) an action is aimed at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Aim {
    /// Resolved by name against each fresh observation (script steps): role, name and relation
    /// to an anchor. Waits (bounded) until exactly one element matches and is actionable.
    Target(Target),
    /// An element id of the named observation (`llm` mode). Refused as stale when the screen
    /// changed since that observation.
    Element {
        /// The observation serial the id comes from.
        observation: u64,
        /// Element id, e.g. `e7`.
        id: String,
    },
    /// A point in the model's coordinate space of the named observation's screenshot (`vlm`
    /// mode; mapped to device px by the worker, each axis by its own size).
    Point {
        /// The observation serial the screenshot comes from.
        observation: u64,
        /// Horizontal coordinate in the job's coordinate space.
        x: f64,
        /// Vertical coordinate in the job's coordinate space.
        y: f64,
    },
    /// Whatever holds the keyboard focus (script `type "…"` with no field): a terminal or a
    /// canvas app whose tree offers nothing to focus. Only typing takes it.
    Focused,
}

impl Aim {
    /// The observation a model aim names (`None` for a script target).
    pub fn observation(&self) -> Option<u64> {
        match self {
            Aim::Target(_) | Aim::Focused => None,
            Aim::Element { observation, .. } | Aim::Point { observation, .. } => Some(*observation),
        }
    }
}

impl From<Target> for Aim {
    fn from(t: Target) -> Aim {
        Aim::Target(t)
    }
}

impl std::fmt::Display for Aim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Aim::Target(t) => write!(f, "{t}"),
            Aim::Element { id, observation } => write!(f, "{id} (observation {observation})"),
            Aim::Point { x, y, observation } => {
                write!(f, "point ({x}, {y}) (observation {observation})")
            }
            Aim::Focused => write!(f, "the focused window"),
        }
    }
}

/// Which way a swipe moves the finger (the content scrolls the other way: `swipe up` shows
/// what is below).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Towards the top of the screen.
    Up,
    /// Towards the bottom.
    Down,
    /// Towards the left edge.
    Left,
    /// Towards the right edge.
    Right,
}

impl Direction {
    /// Every direction, in the order the tool schema lists them.
    pub const ALL: [Direction; 4] = [
        Direction::Up,
        Direction::Down,
        Direction::Left,
        Direction::Right,
    ];

    /// `up`, `down`, `left` or `right`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Left => "left",
            Direction::Right => "right",
        }
    }

    /// Parses an English or Chinese direction word (`up`, `向上`, `上`, …).
    pub fn parse(word: &str) -> Option<Direction> {
        let w = word.trim().to_lowercase();
        Some(match w.as_str() {
            "up" | "上" | "向上" | "上滑" => Direction::Up,
            "down" | "下" | "向下" | "下滑" => Direction::Down,
            "left" | "左" | "向左" | "左滑" => Direction::Left,
            "right" | "右" | "向右" | "右滑" => Direction::Right,
            _ => return None,
        })
    }

    /// Unit vector of the finger's movement in screen coordinates (y grows downwards).
    pub fn vector(self) -> (f64, f64) {
        match self {
            Direction::Up => (0.0, -1.0),
            Direction::Down => (0.0, 1.0),
            Direction::Left => (-1.0, 0.0),
            Direction::Right => (1.0, 0.0),
        }
    }
}

/// One thing done on (or checked against) a device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Action {
    /// Navigate to a URL (web/electron) or launch an app / deep link.
    Open { url: String },
    /// Tap (click) the target's centre.
    Tap { target: Aim },
    /// Two taps in quick succession at the target's centre (a `dblclick` on the web).
    DoubleTap { target: Aim },
    /// Press and hold the target's centre for `duration_ms`.
    LongPress { target: Aim, duration_ms: u64 },
    /// Put the target into the checked (`true`) or unchecked state: taps it only when its
    /// state differs, then verifies the new state.
    SetChecked { target: Aim, checked: bool },
    /// Focus the target and type text (may hold `${secret.NAME}`).
    Type { text: String, target: Aim },
    /// Press one key on the focused element.
    Key { key: Key },
    /// Go back: the browser's history, the phone's system back.
    Back,
    /// Swipe the finger in `direction`, across the target (or the middle of the screen);
    /// [`SWIPE_FRACTION`] of its size, over [`SWIPE_MS`].
    Swipe {
        direction: Direction,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        on: Option<Aim>,
    },
    /// Swipe in `direction` (finger movement; `up` scrolls down) until the screen contains
    /// `text`, at most `max_swipes` times; fails when it never appears or the screen stops
    /// changing.
    ScrollUntil {
        text: String,
        direction: Direction,
        max_swipes: u32,
    },
    /// Wait until the screen text contains `text`, up to `timeout_ms`.
    WaitFor { text: String, timeout_ms: u64 },
    /// Sleep a fixed time, ms.
    Sleep { ms: u64 },
    /// Fail unless the screen text contains `text`.
    AssertContains { text: String },
    /// Fail if the screen text contains `text`.
    AssertNotContains { text: String },
    /// Fail unless the target (a checkbox, switch or radio button) is in the `checked`
    /// state. Reads the state; never taps.
    AssertChecked { target: Aim, checked: bool },
    /// Fail unless the target field's (text field, combobox) current value equals `value`:
    /// both trimmed, whitespace runs collapsed, case-sensitive; `""` means the field is
    /// empty. A password field's value is never read.
    AssertValue { target: Aim, value: String },
    /// Fail unless exactly `count` elements show `text` (the `assert_contains` matching, per
    /// element: see the worker's `checks` module for which text of an element counts).
    AssertCount { text: String, count: u32 },
    /// Fail unless exactly `count` list items are on screen in the `checked` state (`None`:
    /// in any state). A list item is a named checkbox or switch other than a select-all one
    /// ("Mark all as complete", "全选"): a todo's, a task's, a setting's toggle (see the
    /// worker's `checks` module). Reads states; never taps.
    AssertItems {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        checked: Option<bool>,
        count: u32,
    },
    /// The current (model-planned) step is done.
    Finish { summary: String },
    /// The current step cannot be done.
    Fail { reason: String },
}

/// The kinds of [`Action`]: the one table their names, descriptions and tool parameters
/// come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActionKind {
    /// [`Action::Open`]
    Open,
    /// [`Action::Tap`]
    Tap,
    /// [`Action::DoubleTap`]
    DoubleTap,
    /// [`Action::LongPress`]
    LongPress,
    /// [`Action::SetChecked`]
    SetChecked,
    /// [`Action::Type`]
    Type,
    /// [`Action::Key`]
    Key,
    /// [`Action::Swipe`]
    Swipe,
    /// [`Action::Back`]
    Back,
    /// [`Action::ScrollUntil`]
    ScrollUntil,
    /// [`Action::WaitFor`]
    WaitFor,
    /// [`Action::Sleep`]
    Sleep,
    /// [`Action::AssertContains`]
    AssertContains,
    /// [`Action::AssertNotContains`]
    AssertNotContains,
    /// [`Action::AssertChecked`]
    AssertChecked,
    /// [`Action::AssertValue`]
    AssertValue,
    /// [`Action::AssertCount`]
    AssertCount,
    /// [`Action::AssertItems`]
    AssertItems,
    /// [`Action::Finish`]
    Finish,
    /// [`Action::Fail`]
    Fail,
}

impl ActionKind {
    /// Every kind, in the order the model's tool list shows them.
    pub const ALL: [ActionKind; 20] = [
        ActionKind::Tap,
        ActionKind::DoubleTap,
        ActionKind::LongPress,
        ActionKind::Type,
        ActionKind::SetChecked,
        ActionKind::Swipe,
        ActionKind::ScrollUntil,
        ActionKind::Key,
        ActionKind::Back,
        ActionKind::Open,
        ActionKind::WaitFor,
        ActionKind::Sleep,
        ActionKind::AssertContains,
        ActionKind::AssertNotContains,
        ActionKind::AssertChecked,
        ActionKind::AssertValue,
        ActionKind::AssertCount,
        ActionKind::AssertItems,
        ActionKind::Finish,
        ActionKind::Fail,
    ];

    /// The stable name: `ActionRecord::kind`, the model's tool name, the serde tag.
    pub fn name(self) -> &'static str {
        match self {
            ActionKind::Open => "open",
            ActionKind::Tap => "tap",
            ActionKind::DoubleTap => "double_tap",
            ActionKind::LongPress => "long_press",
            ActionKind::SetChecked => "set_checked",
            ActionKind::Type => "type",
            ActionKind::Key => "key",
            ActionKind::Swipe => "swipe",
            ActionKind::Back => "back",
            ActionKind::ScrollUntil => "scroll_until",
            ActionKind::WaitFor => "wait_for",
            ActionKind::Sleep => "sleep",
            ActionKind::AssertContains => "assert_contains",
            ActionKind::AssertNotContains => "assert_not_contains",
            ActionKind::AssertChecked => "assert_checked",
            ActionKind::AssertValue => "assert_value",
            ActionKind::AssertCount => "assert_count",
            ActionKind::AssertItems => "assert_items",
            ActionKind::Finish => "finish",
            ActionKind::Fail => "fail",
        }
    }

    /// The kind named `name`, if any.
    pub fn from_name(name: &str) -> Option<ActionKind> {
        ActionKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// One line for the model's tool description.
    pub fn description(self) -> &'static str {
        match self {
            ActionKind::Open => "Open a URL or deep link.",
            ActionKind::Tap => "Tap (click) an element.",
            ActionKind::DoubleTap => "Double-tap (double-click) an element.",
            ActionKind::LongPress => "Press and hold an element.",
            ActionKind::SetChecked => "Check or uncheck a checkbox or switch.",
            ActionKind::Type => {
                "Focus a text field and type text. Write secrets as ${secret.NAME}."
            }
            ActionKind::Key => "Press one key.",
            ActionKind::Swipe => {
                "Swipe the finger up/down/left/right (swipe up scrolls the content down), across an element or the screen."
            }
            ActionKind::Back => "Go back (browser history or the system back button).",
            ActionKind::ScrollUntil => "Swipe until a text is on screen (bounded).",
            ActionKind::WaitFor => {
                "Wait until a text appears on screen by itself (it types nothing: to enter text, use type)."
            }
            ActionKind::Sleep => "Wait a fixed time.",
            ActionKind::AssertContains => "Check the screen shows a text.",
            ActionKind::AssertNotContains => "Check the screen does not show a text.",
            ActionKind::AssertChecked => {
                "Check a checkbox, switch or radio button is checked (or not); it taps nothing."
            }
            ActionKind::AssertValue => {
                "Check a text field or dropdown holds exactly a value (empty text: the field is empty)."
            }
            ActionKind::AssertCount => "Check how many elements on screen show a text.",
            ActionKind::AssertItems => {
                "Check how many list items (checkbox rows) are checked, not checked, or listed at all."
            }
            ActionKind::Finish => "The current step is done.",
            ActionKind::Fail => "The current step cannot be done; say why.",
        }
    }

    /// Whether the action needs a target element (an [`Aim`]).
    pub fn aimed(self) -> bool {
        matches!(
            self,
            ActionKind::Tap
                | ActionKind::DoubleTap
                | ActionKind::LongPress
                | ActionKind::SetChecked
                | ActionKind::Type
                | ActionKind::AssertChecked
                | ActionKind::AssertValue
        )
    }

    /// Whether it checks the screen without acting (`wait_for` and the `assert_…` kinds).
    pub fn checks(self) -> bool {
        matches!(
            self,
            ActionKind::WaitFor
                | ActionKind::AssertContains
                | ActionKind::AssertNotContains
                | ActionKind::AssertChecked
                | ActionKind::AssertValue
                | ActionKind::AssertCount
                | ActionKind::AssertItems
        )
    }

    /// Whether it changes the screen (and so gets a reflection and counts against
    /// `max_steps`).
    pub fn acts(self) -> bool {
        !matches!(
            self,
            ActionKind::WaitFor
                | ActionKind::Sleep
                | ActionKind::AssertContains
                | ActionKind::AssertNotContains
                | ActionKind::AssertChecked
                | ActionKind::AssertValue
                | ActionKind::AssertCount
                | ActionKind::AssertItems
                | ActionKind::Finish
                | ActionKind::Fail
        )
    }
}

impl Action {
    /// Its kind.
    pub fn kind(&self) -> ActionKind {
        match self {
            Action::Open { .. } => ActionKind::Open,
            Action::Tap { .. } => ActionKind::Tap,
            Action::DoubleTap { .. } => ActionKind::DoubleTap,
            Action::LongPress { .. } => ActionKind::LongPress,
            Action::SetChecked { .. } => ActionKind::SetChecked,
            Action::Type { .. } => ActionKind::Type,
            Action::Key { .. } => ActionKind::Key,
            Action::Swipe { .. } => ActionKind::Swipe,
            Action::Back => ActionKind::Back,
            Action::ScrollUntil { .. } => ActionKind::ScrollUntil,
            Action::WaitFor { .. } => ActionKind::WaitFor,
            Action::Sleep { .. } => ActionKind::Sleep,
            Action::AssertContains { .. } => ActionKind::AssertContains,
            Action::AssertNotContains { .. } => ActionKind::AssertNotContains,
            Action::AssertChecked { .. } => ActionKind::AssertChecked,
            Action::AssertValue { .. } => ActionKind::AssertValue,
            Action::AssertCount { .. } => ActionKind::AssertCount,
            Action::AssertItems { .. } => ActionKind::AssertItems,
            Action::Finish { .. } => ActionKind::Finish,
            Action::Fail { .. } => ActionKind::Fail,
        }
    }

    /// The element it is aimed at, if any.
    pub fn aim(&self) -> Option<&Aim> {
        match self {
            Action::Tap { target }
            | Action::DoubleTap { target }
            | Action::LongPress { target, .. }
            | Action::SetChecked { target, .. }
            | Action::Type { target, .. }
            | Action::AssertChecked { target, .. }
            | Action::AssertValue { target, .. } => Some(target),
            Action::Swipe { on, .. } => on.as_ref(),
            _ => None,
        }
    }

    /// The observation a model's call names (stale calls are refused against it).
    pub fn observation(&self) -> Option<u64> {
        self.aim().and_then(Aim::observation)
    }

    /// A one-line description for reports and logs; typed text is given by its length only.
    pub fn describe(&self) -> String {
        match self {
            Action::Open { url } => format!("open {url}"),
            Action::Tap { target } => format!("tap {target}"),
            Action::DoubleTap { target } => format!("double tap {target}"),
            Action::LongPress {
                target,
                duration_ms,
            } => format!("long press {target} for {duration_ms} ms"),
            Action::SetChecked { target, checked } => {
                format!("{} {target}", if *checked { "check" } else { "uncheck" })
            }
            Action::Type { text, target } => {
                format!("type {} chars into {target}", text.chars().count())
            }
            Action::Key { key } => format!("press {}", key.as_str()),
            Action::Swipe { direction, on } => match on {
                Some(t) => format!("swipe {} on {t}", direction.as_str()),
                None => format!("swipe {}", direction.as_str()),
            },
            Action::Back => "go back".into(),
            Action::ScrollUntil {
                text,
                direction,
                max_swipes,
            } => format!(
                "swipe {} until {text:?} is visible (at most {max_swipes} swipes)",
                direction.as_str()
            ),
            Action::WaitFor { text, timeout_ms } => {
                format!("wait for {text:?} (up to {timeout_ms} ms)")
            }
            Action::Sleep { ms } => format!("wait {ms} ms"),
            Action::AssertContains { text } => format!("assert screen contains {text:?}"),
            Action::AssertNotContains { text } => {
                format!("assert screen does not contain {text:?}")
            }
            Action::AssertChecked { target, checked } => format!(
                "assert {target} is {}",
                if *checked { "checked" } else { "not checked" }
            ),
            Action::AssertValue { target, value } if value.is_empty() => {
                format!("assert {target} is empty")
            }
            Action::AssertValue { target, value } => {
                format!("assert {target} has value {value:?}")
            }
            Action::AssertCount { text, count } => {
                format!(
                    "assert screen contains {text:?} {count} {}",
                    if *count == 1 { "time" } else { "times" }
                )
            }
            Action::AssertItems { checked, count } => items_line(*checked, *count),
            Action::Finish { summary } => format!("finish: {summary}"),
            Action::Fail { reason } => format!("fail: {reason}"),
        }
    }
}

/// `assert 2 items are checked` / `assert 1 item is not checked` / `assert 6 items are
/// listed`: the step-language line of [`Action::AssertItems`].
pub fn items_line(checked: Option<bool>, count: u32) -> String {
    let (noun, verb) = if count == 1 {
        ("item", "is")
    } else {
        ("items", "are")
    };
    let state = match checked {
        Some(true) => "checked",
        Some(false) => "not checked",
        None => "listed",
    };
    format!("assert {count} {noun} {verb} {state}")
}

/// The Chinese line of [`Action::AssertItems`]: `断言 共有 2 项已勾选` / `断言 共有 3 项未勾选`
/// / `断言 共有 6 项`.
pub fn items_line_zh(checked: Option<bool>, count: u32) -> String {
    let state = match checked {
        Some(true) => "已勾选",
        Some(false) => "未勾选",
        None => "",
    };
    format!("断言 共有 {count} 项{state}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for k in ActionKind::ALL {
            assert_eq!(ActionKind::from_name(k.name()), Some(k));
            assert!(seen.insert(k.name()), "duplicate name {}", k.name());
        }
        assert_eq!(ActionKind::from_name("double-click"), None);
    }

    #[test]
    fn serde_tag_is_the_kind_name() {
        let a = Action::DoubleTap {
            target: Target::named("Row").into(),
        };
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["kind"], a.kind().name());
        let back: Action = serde_json::from_value(v).unwrap();
        assert_eq!(back, a);
    }
}
