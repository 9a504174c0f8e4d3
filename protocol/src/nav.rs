//! Which URLs a job may ask a device to open: the scheme half of the navigation policy,
//! shared by the API (at submit), the CLI and the worker (before every `open`, whoever chose
//! the URL — a script line, a model or a replay).
//!
//! Browsers (web, electron) open only `http:`, `https:` and `about:blank`: a `file:` URL
//! reads the worker's disk, `chrome:` / `devtools:` / `view-source:` reach browser internals,
//! `javascript:` runs code in whatever page is open, `data:` builds a page no server served.
//! Phones open deep links (`myapp://…`), so there only the schemes that reach the device's
//! files or run script are refused. Which hosts a browser may reach is the worker's side of
//! the policy (`argus worker --allow-hosts`).

use crate::platform::Platform;

/// Schemes no device opens, whatever its platform (lowercase, without the colon).
pub const NEVER_SCHEMES: [&str; 8] = [
    "file",
    "javascript",
    "data",
    "chrome",
    "chrome-untrusted",
    "devtools",
    "view-source",
    "content",
];

/// Lowercased scheme of `url` (the part before the first `:`), when it looks like one.
pub fn scheme_of(url: &str) -> Option<String> {
    let (scheme, _) = url.trim_start().split_once(':')?;
    let ok = !scheme.is_empty()
        && scheme
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then(|| scheme.to_ascii_lowercase())
}

/// Why `url` may not be opened on `platform`, or `None` when it may.
pub fn refusal(platform: Platform, url: &str) -> Option<String> {
    let browser = matches!(platform, Platform::Web | Platform::Electron);
    let Some(scheme) = scheme_of(url) else {
        // A phone's `open` also takes an app id (`com.example.app`), which has no scheme.
        return browser.then(|| "the URL has no scheme (write http:// or https://)".into());
    };
    if browser {
        return match scheme.as_str() {
            "http" | "https" => None,
            "about" if url.trim().eq_ignore_ascii_case("about:blank") => None,
            _ => Some(format!(
                "`{scheme}:` URLs are not allowed; a browser job opens only http, https or \
                 about:blank"
            )),
        };
    }
    NEVER_SCHEMES
        .contains(&scheme.as_str())
        .then(|| format!("`{scheme}:` URLs are not allowed on {platform}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browsers_open_only_http_https_and_about_blank() {
        for ok in [
            "http://127.0.0.1:8080/",
            "HTTPS://example.com",
            "about:blank",
        ] {
            assert_eq!(refusal(Platform::Web, ok), None, "{ok}");
        }
        for bad in [
            "file:///etc/passwd",
            "FILE:///etc/passwd",
            " chrome://version",
            "view-source:http://x/",
            "javascript:alert(1)",
            "devtools://devtools/bundled/inspector.html",
            "data:text/html,<b>x</b>",
            "about:config",
            "ws://127.0.0.1:9222/",
            "127.0.0.1:8080",
            "/etc/passwd",
        ] {
            assert!(refusal(Platform::Web, bad).is_some(), "{bad}");
            assert!(refusal(Platform::Electron, bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn phones_keep_deep_links_but_not_files_or_script() {
        assert_eq!(refusal(Platform::Android, "myapp://orders/1"), None);
        assert_eq!(refusal(Platform::Ios, "https://x.test/"), None);
        assert!(refusal(Platform::Android, "file:///sdcard/x").is_some());
        assert!(refusal(Platform::Harmony, "javascript:1").is_some());
        assert!(refusal(Platform::Android, "content://sms/inbox").is_some());
        assert_eq!(refusal(Platform::Ios, "com.apple.Preferences"), None);
    }
}
