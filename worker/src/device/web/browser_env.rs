//! The environment Chromium starts with. The worker's own environment holds its
//! credentials (API token, S3 keys, a database or NATS URL, every `ARGUS_SECRET_*`), and a
//! page that gets code execution in the browser process could read them back from
//! `/proc/self/environ`. So Chromium starts from an empty environment plus only what a
//! headless browser needs: `HOME` (its own profile folder, so it reads no dotfiles of the
//! worker's user), a fixed `PATH`, and the locale and time zone the worker runs with, when
//! they are plain values.

use std::path::Path;

use tokio::process::Command;

/// `PATH` Chromium gets: where Debian puts the helpers it may exec.
const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Variables passed on from the worker when set: they shape pages (locale, time zone),
/// never carry credentials.
const PASSED: [&str; 3] = ["LANG", "LC_ALL", "TZ"];

/// Whether `v` is a plain locale or time-zone value (`C.UTF-8`, `en_US.UTF-8`,
/// `Europe/Oslo`, `UTC`): nothing that could smuggle another value in.
fn plain(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 64
        && v.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/' | '@' | '+' | ':')
        })
}

/// The whole environment of a Chromium whose profile (and home) is `home`, given the
/// worker's variables `get`.
pub fn browser_env(home: &Path, get: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    let mut env = vec![
        ("HOME".to_string(), home.display().to_string()),
        ("PATH".to_string(), PATH.to_string()),
    ];
    for k in PASSED {
        if let Some(v) = get(k).filter(|v| plain(v)) {
            env.push((k.to_string(), v));
        }
    }
    if !env.iter().any(|(k, _)| k == "LANG") {
        env.push(("LANG".into(), "C.UTF-8".into()));
    }
    env
}

/// Clears `cmd`'s environment and sets [`browser_env`] from the worker's.
pub fn apply(cmd: &mut Command, home: &Path) {
    cmd.env_clear();
    cmd.envs(browser_env(home, |k| std::env::var(k).ok()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_a_browser_needs() {
        let worker = |k: &str| match k {
            "LANG" => Some("en_US.UTF-8".to_string()),
            "TZ" => Some("Europe/Oslo".to_string()),
            "LC_ALL" => Some("x; ARGUS_API_TOKEN=leak".to_string()),
            "ARGUS_API_TOKEN" => Some("tok".to_string()),
            _ => None,
        };
        let env = browser_env(Path::new("/w/chromium"), worker);
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["HOME", "PATH", "LANG", "TZ"]);
        assert_eq!(env[0].1, "/w/chromium");
        let none = browser_env(Path::new("/p"), |_| None);
        assert!(none.contains(&("LANG".into(), "C.UTF-8".into())));
    }
}
