//! The kinds of device a job targets ([`Platform`]): plain data, below the job spec (`job`)
//! and the navigation rules (`nav`) that both name it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Kind of device a job targets. Serialized lowercase (`"web"`, `"android"`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Platform {
    /// Headless Chromium driven over CDP.
    Web,
    /// An Electron app attached over CDP.
    Electron,
    /// A Linux desktop app under Xvfb + AT-SPI.
    Desktop,
    /// An Android phone over ADB.
    Android,
    /// A HarmonyOS NEXT phone over hdc.
    Harmony,
    /// An iPhone over WebDriverAgent.
    Ios,
}

impl Platform {
    /// Every platform, in documentation order.
    pub const ALL: [Platform; 6] = [
        Platform::Web,
        Platform::Electron,
        Platform::Desktop,
        Platform::Android,
        Platform::Harmony,
        Platform::Ios,
    ];

    /// The lowercase wire name (`"web"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Web => "web",
            Platform::Electron => "electron",
            Platform::Desktop => "desktop",
            Platform::Android => "android",
            Platform::Harmony => "harmony",
            Platform::Ios => "ios",
        }
    }

    /// Parses a wire name; `None` for anything else.
    pub fn parse(s: &str) -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
