//! Delivery channels: the ways one element-aimed tap can reach an app. A driver lists them
//! in the order it tries them ([`super::Act::tap_through`]); the executor moves to the next
//! one only when the screen shows no effect of the last (see [`crate::run::effect`]).

/// One way a tap reaches the app, named in the action's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// The platform's one tap (a driver with no second channel).
    Platform,
    /// The element's own accessibility action (AT-SPI `DoAction`).
    AccessibilityAction,
    /// A pointer click synthesized by the accessibility registry (AT-SPI device events).
    SynthesizedPointer,
    /// A real pointer click at the element's centre through the X server's XTest extension.
    XTestPointer,
    /// Mouse events through the browser's input pipeline (CDP `Input.dispatchMouseEvent`).
    CdpInput,
    /// The element's DOM `click()` (CDP `Runtime.callFunctionOn`).
    DomClick,
}

impl Channel {
    /// How the record names the channel, e.g. `accessibility action`.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Platform => "tap",
            Channel::AccessibilityAction => "accessibility action",
            Channel::SynthesizedPointer => "synthesized pointer click",
            Channel::XTestPointer => "pointer click (XTest)",
            Channel::CdpInput => "CDP mouse input",
            Channel::DomClick => "DOM click()",
        }
    }
}
