//! Secrets: `${secret.NAME}` references in a job are resolved on the worker, at the moment
//! text is typed, from the worker's secret source (`ARGUS_SECRET_<NAME>` variables and an
//! optional `NAME=value` file). Values never leave the worker except as keystrokes: every
//! outgoing string (events, prompts, error messages) goes through [`Secrets::redact`], which
//! puts the reference back in place of any value it finds.

use std::collections::BTreeMap;
use std::path::Path;

use argus_protocol::secret_refs;

/// Values shorter than this are not searched for in free text (a 1-char secret would
/// garble every message); they are still never written anywhere by Argus itself.
pub const MIN_REDACT_CHARS: usize = 4;

/// Snapshot of the `ARGUS_SECRET_<NAME>` variables (read once, at configuration time).
pub fn env_secrets() -> Vec<(String, String)> {
    std::env::vars()
        .filter_map(|(k, v)| {
            k.strip_prefix("ARGUS_SECRET_")
                .filter(|n| !n.is_empty())
                .map(|n| (n.to_string(), v))
        })
        .collect()
}

/// The worker's secret source.
#[derive(Default)]
pub struct Secrets {
    values: BTreeMap<String, String>,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secrets")
            .field("names", &self.values.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Secrets {
    /// From `(name, value)` pairs.
    pub fn from_pairs<I: IntoIterator<Item = (String, String)>>(pairs: I) -> Secrets {
        Secrets {
            values: pairs.into_iter().collect(),
        }
    }

    /// Reads the file (if any), then the environment snapshot (which wins).
    pub fn load(file: Option<&Path>, env: &[(String, String)]) -> Result<Secrets, String> {
        let mut values = BTreeMap::new();
        if let Some(p) = file {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read the secrets file {}: {e}", p.display()))?;
            for (i, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let (k, v) = line
                    .split_once('=')
                    .ok_or_else(|| format!("{} line {}: not NAME=value", p.display(), i + 1))?;
                values.insert(k.trim().to_string(), v.to_string());
            }
        }
        for (k, v) in env {
            values.insert(k.clone(), v.clone());
        }
        Ok(Secrets { values })
    }

    /// Whether `text` references any secret.
    pub fn has_refs(text: &str) -> bool {
        text.contains("${secret.")
    }

    /// `text` with every `${secret.NAME}` replaced by its value. Errors name the missing
    /// secret, never a value.
    pub fn resolve(&self, text: &str) -> Result<String, String> {
        let names = secret_refs(text)?;
        let mut out = text.to_string();
        for n in names {
            let v = self.values.get(&n).ok_or_else(|| {
                format!("secret {n:?} is not configured on this worker (ARGUS_SECRET_{n} or the secrets file)")
            })?;
            out = out.replace(&format!("${{secret.{n}}}"), v);
        }
        Ok(out)
    }

    /// `text` with every known secret value (≥ [`MIN_REDACT_CHARS`] chars) replaced by its
    /// `${secret.NAME}` reference.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        let mut by_len: Vec<(&String, &String)> = self.values.iter().collect();
        by_len.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        for (k, v) in by_len {
            if v.chars().count() >= MIN_REDACT_CHARS && out.contains(v.as_str()) {
                out = out.replace(v.as_str(), &format!("${{secret.{k}}}"));
            }
        }
        out
    }

    /// Whether `text` contains a known secret value.
    pub fn leaks(&self, text: &str) -> bool {
        self.values
            .values()
            .any(|v| v.chars().count() >= MIN_REDACT_CHARS && text.contains(v.as_str()))
    }

    /// Redacts every string inside a JSON value, in place.
    pub fn redact_json(&self, v: &mut serde_json::Value) {
        if self.values.is_empty() {
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
        let s = Secrets::load(Some(&dir), &[("A".into(), "from-env".into())]).unwrap();
        assert_eq!(
            s.resolve("${secret.A}/${secret.B}").unwrap(),
            "from-env/bee"
        );
        let _ = std::fs::remove_file(dir);
    }
}
