//! Secrets: `${secret.NAME}` references in a job are resolved on the worker, at the moment
//! text is typed, from the worker's secret source. Values never leave the worker except as
//! keystrokes: every outgoing string (events, prompts, error messages) goes through
//! [`Secrets::redact`], which puts the reference back in place of any value it finds.
//!
//! **Every secret belongs to one team**, and a run resolves only its job's team's secrets
//! (the assignment carries the team; [`Secrets::for_team`] makes the run's view):
//! - `ARGUS_SECRET_<TEAM>__<NAME>` belongs to team `<TEAM>` (spelled as the team id is, the
//!   first `__` separates it from the name); `ARGUS_SECRET_<NAME>` (no `__`) belongs to team
//!   `default`, the quickstart's only team.
//! - In the secrets file, `NAME=value` lines belong to `default` until a `[team]` line opens
//!   that team's section; a `TEAM__NAME=value` key outside a section is scoped like the
//!   variable. Teams whose ids are not shell names (`team-a`) use the file.
//!
//! A reference its team has no value for fails the run before any action, naming the
//! secret (never a value, never whether another team has one). Redaction covers every
//! team's values.
//!
//! [`mask`] blanks password fields (and fields showing a secret) in screenshots before they
//! are stored; [`rules`] says where a model- or replay-chosen text may use a secret.

pub mod mask;
pub mod rules;

use std::collections::BTreeMap;
use std::path::Path;

use argus_protocol::secret_refs;

/// Values shorter than this are not searched for in free text (a 1-char secret would
/// garble every message); they are still never written anywhere by Argus itself.
pub const MIN_REDACT_CHARS: usize = 4;

/// The team an unscoped secret (`ARGUS_SECRET_<NAME>`, a file line outside any section)
/// belongs to.
pub const DEFAULT_TEAM: &str = "default";

/// Separates the team from the name in `ARGUS_SECRET_<TEAM>__<NAME>`.
const TEAM_SEP: &str = "__";

/// Snapshot of the `ARGUS_SECRET_*` variables, prefix removed (read once, at configuration
/// time); [`Secrets::load`] splits the team off.
pub fn env_secrets() -> Vec<(String, String)> {
    std::env::vars()
        .filter_map(|(k, v)| {
            k.strip_prefix("ARGUS_SECRET_")
                .filter(|n| !n.is_empty())
                .map(|n| (n.to_string(), v))
        })
        .collect()
}

/// `(team, name)` of a key written `TEAM__NAME` or `NAME` (team [`DEFAULT_TEAM`]).
fn scoped(key: &str) -> Result<(String, String), String> {
    match key.split_once(TEAM_SEP) {
        None => Ok((DEFAULT_TEAM.to_string(), key.to_string())),
        Some((t, n)) if !t.is_empty() && !n.is_empty() => Ok((t.to_string(), n.to_string())),
        Some(_) => Err(format!(
            "secret key {key:?}: write TEAM__NAME with both parts non-empty"
        )),
    }
}

/// The worker's secret source: every team's values, and the team whose values
/// [`Secrets::resolve`] may use (none for the worker-wide source, so nothing resolves
/// before a run's team is known).
#[derive(Default)]
pub struct Secrets {
    /// Values by team, then name.
    by_team: BTreeMap<String, BTreeMap<String, String>>,
    /// The team whose values resolve.
    team: Option<String>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<String> = self
            .by_team
            .iter()
            .flat_map(|(t, m)| m.keys().map(move |n| format!("{t}/{n}")))
            .collect();
        f.debug_struct("Secrets")
            .field("team", &self.team)
            .field("names", &names)
            .finish()
    }
}

impl Secrets {
    /// From `(name, value)` pairs of team [`DEFAULT_TEAM`], resolving for that team.
    pub fn from_pairs<I: IntoIterator<Item = (String, String)>>(pairs: I) -> Secrets {
        let mut by_team = BTreeMap::new();
        by_team.insert(DEFAULT_TEAM.to_string(), pairs.into_iter().collect());
        Secrets {
            by_team,
            team: Some(DEFAULT_TEAM.to_string()),
        }
    }

    /// Reads the file (if any), then the environment snapshot (which wins); the result
    /// resolves nothing until [`Secrets::for_team`] picks a team.
    pub fn load(file: Option<&Path>, env: &[(String, String)]) -> Result<Secrets, String> {
        let mut by_team: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        if let Some(p) = file {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read the secrets file {}: {e}", p.display()))?;
            let mut section: Option<String> = None;
            for (i, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let at = || format!("{} line {}", p.display(), i + 1);
                if let Some(t) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                    let t = t.trim();
                    if t.is_empty() {
                        return Err(format!("{}: empty team section", at()));
                    }
                    section = Some(t.to_string());
                    continue;
                }
                let (k, v) = line
                    .split_once('=')
                    .ok_or_else(|| format!("{}: not NAME=value", at()))?;
                let k = k.trim();
                let (team, name) = match &section {
                    Some(_) if k.contains(TEAM_SEP) => {
                        return Err(format!("{}: a name inside [team] has no `__`", at()))
                    }
                    Some(t) => (t.clone(), k.to_string()),
                    None => scoped(k).map_err(|e| format!("{}: {e}", at()))?,
                };
                by_team.entry(team).or_default().insert(name, v.to_string());
            }
        }
        for (k, v) in env {
            let (team, name) = scoped(k).map_err(|e| format!("ARGUS_SECRET_{k}: {e}"))?;
            by_team.entry(team).or_default().insert(name, v.clone());
        }
        Ok(Secrets {
            by_team,
            team: None,
        })
    }

    /// The view a run of `team` uses: resolves that team's secrets only, redacts every
    /// team's.
    pub fn for_team(&self, team: &str) -> Secrets {
        Secrets {
            by_team: self.by_team.clone(),
            team: Some(team.to_string()),
        }
    }

    /// Whether `text` references any secret.
    pub fn has_refs(text: &str) -> bool {
        text.contains("${secret.")
    }

    /// The value of `name` for this view's team.
    fn value(&self, name: &str) -> Result<&String, String> {
        let Some(team) = &self.team else {
            return Err(format!(
                "secret {name:?} cannot be resolved: the run has no team"
            ));
        };
        self.by_team
            .get(team)
            .and_then(|m| m.get(name))
            .ok_or_else(|| {
                format!(
                    "secret {name:?} is not configured for team {team:?} on this worker \
                     (ARGUS_SECRET_{team}__{name}, or {name} in the [{team}] section of the secrets file)"
                )
            })
    }

    /// The first secret `text` references that this view cannot resolve, as the error
    /// [`Secrets::resolve`] would give; `None` when every reference resolves (or the text
    /// holds a malformed reference, which job validation reports).
    pub fn unresolvable(&self, text: &str) -> Option<String> {
        let names = secret_refs(text).ok()?;
        names.iter().find_map(|n| self.value(n).err())
    }

    /// `text` with every `${secret.NAME}` replaced by its value for this view's team. Errors
    /// name the secret, never a value.
    pub fn resolve(&self, text: &str) -> Result<String, String> {
        let names = secret_refs(text)?;
        let mut out = text.to_string();
        for n in names {
            let v = self.value(&n)?;
            out = out.replace(&format!("${{secret.{n}}}"), v);
        }
        Ok(out)
    }

    /// Every `(name, value)` of every team.
    fn all(&self) -> impl Iterator<Item = (&String, &String)> {
        self.by_team.values().flat_map(|m| m.iter())
    }

    /// `text` with every known secret value of any team (≥ [`MIN_REDACT_CHARS`] chars)
    /// replaced by its `${secret.NAME}` reference.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        let mut by_len: Vec<(&String, &String)> = self.all().collect();
        by_len.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        for (k, v) in by_len {
            if v.chars().count() >= MIN_REDACT_CHARS && out.contains(v.as_str()) {
                out = out.replace(v.as_str(), &format!("${{secret.{k}}}"));
            }
        }
        out
    }

    /// Whether `text` contains a known secret value of any team.
    pub fn leaks(&self, text: &str) -> bool {
        self.all()
            .any(|(_, v)| v.chars().count() >= MIN_REDACT_CHARS && text.contains(v.as_str()))
    }

    /// Redacts every string inside a JSON value, in place.
    pub fn redact_json(&self, v: &mut serde_json::Value) {
        if self.by_team.is_empty() {
            return;
        }
        match v {
            serde_json::Value::String(s) if self.leaks(s) => *s = self.redact(s),
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| self.redact_json(x)),
            serde_json::Value::Object(o) => o.values_mut().for_each(|x| self.redact_json(x)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_and_redacts() {
        let s = Secrets::from_pairs([("PASSWORD".to_string(), "hunter2!".to_string())]);
        assert_eq!(s.resolve("pw ${secret.PASSWORD}").unwrap(), "pw hunter2!");
        let e = s.resolve("${secret.OTHER}").unwrap_err();
        assert!(e.contains("OTHER") && !e.contains("hunter2"));
        assert_eq!(s.redact("typed hunter2! ok"), "typed ${secret.PASSWORD} ok");
        let mut j = serde_json::json!({"a": ["x hunter2!"], "b": 1});
        s.redact_json(&mut j);
        assert_eq!(j["a"][0], "x ${secret.PASSWORD}");
    }

    #[test]
    fn file_then_env() {
        let dir = std::env::temp_dir().join(format!("argus-secrets-{}", uuid::Uuid::new_v4()));
        std::fs::write(&dir, "# c\nA=from-file\nB=bee\n").unwrap();
        let s = Secrets::load(Some(&dir), &[("A".into(), "from-env".into())])
            .unwrap()
            .for_team(DEFAULT_TEAM);
        assert_eq!(
            s.resolve("${secret.A}/${secret.B}").unwrap(),
            "from-env/bee"
        );
        let _ = std::fs::remove_file(dir);
    }

    #[test]
    fn a_team_resolves_only_its_own() {
        let dir = std::env::temp_dir().join(format!("argus-secrets-{}", uuid::Uuid::new_v4()));
        std::fs::write(&dir, "D=dee\n[team-a]\nPW=alpha-pw\n[b]\nPW=bravo-pw\n").unwrap();
        let env = [("a__TOKEN".to_string(), "tok-a".to_string())];
        let s = Secrets::load(Some(&dir), &env).unwrap();
        let _ = std::fs::remove_file(dir);
        assert!(
            s.resolve("${secret.D}").is_err(),
            "no team: nothing resolves"
        );
        assert_eq!(
            s.for_team("team-a").resolve("${secret.PW}").unwrap(),
            "alpha-pw"
        );
        assert_eq!(s.for_team("b").resolve("${secret.PW}").unwrap(), "bravo-pw");
        assert_eq!(s.for_team("default").resolve("${secret.D}").unwrap(), "dee");
        assert_eq!(s.for_team("a").resolve("${secret.TOKEN}").unwrap(), "tok-a");
        let e = s.for_team("b").resolve("${secret.TOKEN}").unwrap_err();
        assert!(e.contains("TOKEN") && !e.contains("tok-a"), "{e}");
        assert!(s
            .for_team("default")
            .unresolvable("x ${secret.PW}")
            .is_some());
        assert!(s.for_team("b").unresolvable("x ${secret.PW}").is_none());
        // Redaction covers every team.
        assert_eq!(s.for_team("b").redact("x alpha-pw"), "x ${secret.PW}");
    }
}
