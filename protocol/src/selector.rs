//! Device selector constraints beyond exact labels: `os_version>=13`, `model in [Pixel 7,
//! Galaxy S23]`, `team=payments`, `gpu!=none`.
//!
//! Comparisons (`<`, `<=`, `>`, `>=`) are numeric when both sides are dotted numbers
//! (ASCII digits and dots, nothing else), component by component, a shorter prefix being
//! smaller (`13 < 13.0 < 13.1`, `9 < 10`); otherwise they compare strings byte-wise. A
//! constraint on a label the device lacks is false (`!=` included).
//!
//! The rules live twice on purpose: in SQL as `argus_selector_match` (migration 0002), so
//! the claim statement filters and locks runs in one pass inside the database, and here,
//! so the coordinator can tell at submit time whether any known device could run a job
//! without a round trip. [`Constraint::matches`] is the reference; the e2e test
//! `selector_sql` feeds generated selectors and label sets to both and asserts the same
//! answer.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
}

/// One parsed constraint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Constraint {
    /// Label key.
    pub key: String,
    /// Operator.
    pub op: Op,
    /// One value, or the list for `in`.
    pub values: Vec<String>,
}

/// Compares two label values: numerically/version-wise when both are dotted numbers
/// (`^[0-9]+(\.[0-9]+)*$`: ASCII digits only, no sign, no surrounding space, any length),
/// component by component; otherwise byte-wise. This is exactly what `argus_cmp_values`
/// (migration 0002) computes over `numeric[]`; the e2e test `selector_sql` checks the two
/// agree on generated values.
pub fn compare_values(a: &str, b: &str) -> Ordering {
    match (dotted(a), dotted(b)) {
        (Some(x), Some(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                let o = p.len().cmp(&q.len()).then_with(|| p.cmp(q));
                if o != Ordering::Equal {
                    return o;
                }
            }
            x.len().cmp(&y.len())
        }
        _ => a.cmp(b),
    }
}

/// The components of a dotted number with leading zeros stripped (so that comparing by
/// length, then bytes, is numeric order), or `None` when `s` is not one.
fn dotted(s: &str) -> Option<Vec<&str>> {
    s.split('.')
        .map(|p| {
            (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.trim_start_matches('0'))
        })
        .collect()
}

impl Constraint {
    /// Parses `key<op>value` or `key in [a, b]`; errors say what is wrong.
    pub fn parse(s: &str) -> Result<Constraint, String> {
        let s = s.trim();
        if let Some((k, rest)) = s.split_once(" in ") {
            let rest = rest.trim();
            let inner = rest
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'))
                .ok_or_else(|| format!("`{s}`: write the list as [a, b]"))?;
            let values: Vec<String> = inner
                .split(',')
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .collect();
            if values.is_empty() {
                return Err(format!("`{s}`: the list is empty"));
            }
            return Ok(Constraint {
                key: key_ok(k.trim(), s)?,
                op: Op::In,
                values,
            });
        }
        for (tok, op) in [
            (">=", Op::Ge),
            ("<=", Op::Le),
            ("!=", Op::Ne),
            ("==", Op::Eq),
            ("=", Op::Eq),
            (">", Op::Gt),
            ("<", Op::Lt),
        ] {
            if let Some((k, v)) = s.split_once(tok) {
                let v = v.trim();
                if v.is_empty() {
                    return Err(format!("`{s}`: missing value after {tok}"));
                }
                return Ok(Constraint {
                    key: key_ok(k.trim(), s)?,
                    op,
                    values: vec![v.to_string()],
                });
            }
        }
        Err(format!(
            "`{s}` is not a constraint; write key=value, key!=value, key>=13 or key in [a, b]"
        ))
    }

    /// Whether a device with `labels` satisfies this constraint.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let Some(have) = labels.get(&self.key) else {
            return false;
        };
        let first = self.values.first().map(String::as_str).unwrap_or("");
        match self.op {
            Op::Eq => have == first,
            Op::Ne => have != first,
            Op::In => self.values.iter().any(|v| v == have),
            Op::Lt => compare_values(have, first) == Ordering::Less,
            Op::Le => compare_values(have, first) != Ordering::Greater,
            Op::Gt => compare_values(have, first) == Ordering::Greater,
            Op::Ge => compare_values(have, first) != Ordering::Less,
        }
    }
}

fn key_ok(k: &str, whole: &str) -> Result<String, String> {
    if !k.is_empty()
        && k.len() <= 128
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
    {
        Ok(k.to_string())
    } else {
        Err(format!("`{whole}`: label key {k:?} is not valid"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn parses_and_matches() {
        let d = labels(&[
            ("os", "android"),
            ("os_version", "13.1"),
            ("model", "Pixel 7"),
        ]);
        assert!(Constraint::parse("os_version>=13").unwrap().matches(&d));
        assert!(!Constraint::parse("os_version>=14").unwrap().matches(&d));
        assert!(Constraint::parse("os_version<13.2").unwrap().matches(&d));
        assert!(Constraint::parse("model in [Pixel 7, Galaxy S23]")
            .unwrap()
            .matches(&d));
        assert!(!Constraint::parse("model in [Galaxy S23]")
            .unwrap()
            .matches(&d));
        assert!(Constraint::parse("os=android").unwrap().matches(&d));
        assert!(!Constraint::parse("team=payments").unwrap().matches(&d));
        assert!(
            !Constraint::parse("team!=payments").unwrap().matches(&d),
            "missing label is false"
        );
        assert!(Constraint::parse("nonsense").is_err());
        assert!(Constraint::parse("a in b").is_err());
        assert!(Constraint::parse("bad key!=1").is_err());
        assert_eq!(compare_values("10", "9"), Ordering::Greater);
        assert_eq!(compare_values("b", "a"), Ordering::Greater);
        assert_eq!(compare_values("13", "13.0"), Ordering::Less);
        assert_eq!(compare_values("013.00", "13.0"), Ordering::Equal);
        assert_eq!(
            compare_values("99999999999999999999", "100000000000000000000"),
            Ordering::Less,
            "longer than u64, still numeric"
        );
        // not dotted numbers, so byte-wise: no trimming, no sign
        assert_eq!(compare_values(" 13", "9"), Ordering::Less);
        assert_eq!(compare_values("+13", "9"), Ordering::Less);
    }
}
