//! Placeholder secrets are refused at start. The shipped layouts (`deploy/argus.env.example`,
//! `deploy/worker.env.example`, `deploy/k8s/secrets.yaml`, `deploy/systemd/*.env.example`)
//! hold values such as `CHANGE-ME-nats`; a farm started from a copied example without
//! editing would otherwise run with secrets anyone can read in this repository. Coordinator
//! and worker check their credentials here before connecting to anything, and the error
//! names the variable (never its value).

/// Markers of a value that was never filled in (compared case-insensitively, `_` and `-`
/// alike): every placeholder the shipped examples use contains `change-me`.
const MARKERS: &[&str] = &["change-me", "changeme", "replace-me", "your-secret"];

/// Whether `value` is a placeholder from an example file rather than a real secret.
pub fn is_placeholder(value: &str) -> bool {
    let v = value.to_ascii_lowercase().replace('_', "-");
    MARKERS.iter().any(|m| v.contains(m))
}

/// Refuses the first credential that holds a placeholder: `(variable, value)` pairs, the
/// value `None` when unset. The error names the variable and says what to do.
pub fn refuse_placeholders(credentials: &[(&str, Option<&str>)]) -> anyhow::Result<()> {
    for (var, value) in credentials {
        if value.is_some_and(is_placeholder) {
            anyhow::bail!(
                "{var} holds a placeholder from the shipped example files (it contains \
                 \"CHANGE-ME\"); set a real secret in {var} before starting"
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_placeholders_are_caught_real_values_are_not() {
        for v in [
            "CHANGE-ME",
            "CHANGE-ME-admin-token",
            "postgres://argus:CHANGE-ME-pg@postgres:5432/argus",
            "change_me",
            "ChangeMe",
        ] {
            assert!(is_placeholder(v), "{v}");
        }
        for v in [
            "argus-secret-key",
            "argus_3f9a0c",
            "postgres://postgres@127.0.0.1:5432/argus",
            "",
        ] {
            assert!(!is_placeholder(v), "{v}");
        }
    }

    #[test]
    fn the_error_names_the_variable_not_the_value() {
        let e = refuse_placeholders(&[
            ("ARGUS_API_TOKEN", Some("argus_real")),
            ("ARGUS_NATS_PASSWORD", None),
            ("ARGUS_S3_SECRET_KEY", Some("CHANGE-ME-s3-secret")),
        ])
        .expect_err("refused");
        let msg = e.to_string();
        assert!(msg.contains("ARGUS_S3_SECRET_KEY"), "{msg}");
        assert!(!msg.contains("s3-secret"), "{msg}");
        assert!(refuse_placeholders(&[("ARGUS_API_TOKEN", Some("argus_x"))]).is_ok());
    }
}
