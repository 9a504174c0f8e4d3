//! The dashboard's new-job form as data: the posted `application/x-www-form-urlencoded`
//! pairs (rows such as vars repeat their field names) → [`JobForm`] → the [`JobSpec`] that
//! `POST /api/v1/jobs` would accept. A value the form cannot even parse (a retry count that
//! is not a number) is refused naming the spec field, like the API names it; everything
//! else is left to the API's own validation ([`super::jobs::submit`]).

use std::collections::BTreeMap;

use argus_protocol::{
    Cache, CoordSpace, ErrorCode, ErrorEnvelope, JobSpec, Mode, ModelOverride, Platform, Selector,
};

use crate::error::ApiError;
use crate::views::JobForm;

/// An `invalid_field` error naming `field`.
pub(super) fn invalid(field: &str, msg: String) -> ApiError {
    ApiError::Client(
        ErrorEnvelope::new(
            ErrorCode::InvalidField,
            msg,
            "fix the field and submit again",
        )
        .with_field(field),
    )
}

/// Collects the posted pairs into a form; unknown names (the `csrf` token) are skipped.
pub(super) fn form_from_pairs(pairs: Vec<(String, String)>) -> JobForm {
    let mut f = JobForm::default();
    let (mut var_names, mut var_values) = (Vec::new(), Vec::new());
    let (mut secret_vars, mut secret_names) = (Vec::new(), Vec::new());
    let (mut label_keys, mut label_values) = (Vec::new(), Vec::new());
    for (k, v) in pairs {
        match k.as_str() {
            "name" => f.name = v,
            "app_build" => f.app_build = v,
            "platform" => f.platform = v,
            "mode" => f.mode = v,
            "start_url" => f.start_url = v,
            "instruction" => f.instruction = v,
            "expectations" => f.expectations = v,
            "timeout_s" => f.timeout_s = v,
            "max_steps" => f.max_steps = v,
            "retries" => f.retries = v,
            "priority" => f.priority = v,
            "queue_timeout_s" => f.queue_timeout_s = v,
            "cache" => f.cache = v,
            "model_base_url" => f.model_base_url = v,
            "model_name" => f.model_name = v,
            "model_temperature" => f.model_temperature = v,
            "model_coords" => f.model_coords = v,
            "var_name" => var_names.push(v),
            "var_value" => var_values.push(v),
            "secret_var" => secret_vars.push(v),
            "secret_name" => secret_names.push(v),
            "label_key" => label_keys.push(v),
            "label_value" => label_values.push(v),
            _ => {}
        }
    }
    f.vars = rows(var_names, var_values);
    f.secrets = rows(secret_vars, secret_names);
    f.labels = rows(label_keys, label_values);
    f
}

/// Pairs up the i-th names with the i-th values, dropping rows left wholly blank.
fn rows(names: Vec<String>, values: Vec<String>) -> Vec<(String, String)> {
    let n = names.len().max(values.len());
    let mut names = names.into_iter();
    let mut values = values.into_iter();
    (0..n)
        .map(|_| {
            (
                names.next().unwrap_or_default(),
                values.next().unwrap_or_default(),
            )
        })
        .filter(|(k, v)| !k.trim().is_empty() || !v.trim().is_empty())
        .collect()
}

/// A number field: blank → `None`; not a number → an error naming `field`.
fn number<T: std::str::FromStr>(field: &str, text: &str) -> Result<Option<T>, ApiError> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    t.parse()
        .map(Some)
        .map_err(|_| invalid(field, format!("{t:?} is not a whole number in range")))
}

/// Label rows → selector labels (a row without a key is refused).
fn labels(rows: &[(String, String)]) -> Result<BTreeMap<String, String>, ApiError> {
    let mut out = BTreeMap::new();
    for (k, v) in rows {
        if k.trim().is_empty() {
            return Err(invalid(
                "selector.labels",
                format!("the label with value {v:?} has no key"),
            ));
        }
        out.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok(out)
}

/// Var rows and secret-reference rows → the job's `vars` (a secret row's value is
/// `${secret.NAME}`). A name given twice, or a row without a name, is refused.
fn vars(f: &JobForm) -> Result<BTreeMap<String, String>, ApiError> {
    let mut out = BTreeMap::new();
    for (k, v) in &f.vars {
        let k = k.trim();
        if k.is_empty() {
            return Err(invalid(
                "vars",
                format!("the var with value {v:?} has no name"),
            ));
        }
        if out.insert(k.to_string(), v.clone()).is_some() {
            return Err(invalid(
                &format!("vars.{k}"),
                format!("var {k} is given twice"),
            ));
        }
    }
    for (k, secret) in &f.secrets {
        let (k, secret) = (k.trim(), secret.trim());
        if k.is_empty() || secret.is_empty() {
            return Err(invalid(
                "secrets",
                "a secret reference needs a var name and a secret name".into(),
            ));
        }
        if out
            .insert(k.to_string(), format!("${{secret.{secret}}}"))
            .is_some()
        {
            return Err(invalid("secrets", format!("var {k} is given twice")));
        }
    }
    Ok(out)
}

/// The model override of an `llm` / `vlm` job; `None` when every model field is blank.
fn model(f: &JobForm) -> Result<Option<ModelOverride>, ApiError> {
    let text = |t: &str| (!t.trim().is_empty()).then(|| t.trim().to_string());
    let temp = f.model_temperature.trim();
    let temperature = if temp.is_empty() {
        None
    } else {
        Some(
            temp.parse::<f64>()
                .map_err(|_| invalid("model.temperature", format!("{temp:?} is not a number")))?,
        )
    };
    let coords = match f.model_coords.as_str() {
        "" => None,
        "abs" => Some(CoordSpace::Abs),
        "norm1000" => Some(CoordSpace::Norm1000),
        "norm999" => Some(CoordSpace::Norm999),
        other => {
            return Err(invalid(
                "model.coords",
                format!("unknown coordinate space {other:?}"),
            ))
        }
    };
    let m = ModelOverride {
        base_url: text(&f.model_base_url),
        model: text(&f.model_name),
        temperature,
        coords,
    };
    Ok((m != ModelOverride::default()).then_some(m))
}

/// The spec the form describes, not yet validated; errors name the spec field at fault.
pub(super) fn spec_from_form(f: &JobForm) -> Result<JobSpec, ApiError> {
    let platform = Platform::parse(&f.platform)
        .ok_or_else(|| invalid("platform", format!("unknown platform {:?}", f.platform)))?;
    let url = f.start_url.trim();
    let mut spec = JobSpec::script(
        platform,
        (!url.is_empty()).then(|| url.to_string()),
        f.instruction.replace("\r\n", "\n"),
    );
    spec.mode = match f.mode.as_str() {
        "script" | "" => Mode::Script,
        "llm" => Mode::Llm,
        "vlm" => Mode::Vlm,
        other => return Err(invalid("mode", format!("unknown mode {other:?}"))),
    };
    spec.selector = Selector {
        labels: labels(&f.labels)?,
        require: vec![],
    };
    spec.name = (!f.name.trim().is_empty()).then(|| f.name.trim().to_string());
    // given as typed (a newline or an over-long build is refused by validation)
    spec.app_build = (!f.app_build.trim().is_empty()).then(|| f.app_build.clone());
    if let Some(t) = number("timeout_s", &f.timeout_s)? {
        spec.timeout_s = t;
    }
    if let Some(n) = number("max_steps", &f.max_steps)? {
        spec.max_steps = n;
    }
    spec.retries = number("retries", &f.retries)?.unwrap_or(0);
    spec.priority = number("priority", &f.priority)?.unwrap_or(0);
    spec.queue_timeout_s = number("queue_timeout_s", &f.queue_timeout_s)?;
    spec.cache = match f.cache.as_str() {
        "" => None,
        "off" => Some(Cache::Off),
        "read" => Some(Cache::Read),
        "read_write" => Some(Cache::ReadWrite),
        other => return Err(invalid("cache", format!("unknown cache policy {other:?}"))),
    };
    spec.model = model(f)?;
    spec.vars = vars(f)?;
    spec.expectations = f
        .expectations
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    Ok(spec)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Form pairs from string slices (the suite form's tests use it too).
    pub(in crate::api) fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn rows_and_numbers_become_the_spec() {
        let f = form_from_pairs(pairs(&[
            ("csrf", "t"),
            ("platform", "web"),
            ("mode", "llm"),
            ("instruction", "add a todo"),
            ("var_name", "A"),
            ("var_value", "1"),
            ("var_name", ""),
            ("var_value", ""),
            ("var_name", "B"),
            ("var_value", "two"),
            ("secret_var", "PASS"),
            ("secret_name", "shop_password"),
            ("label_key", "browser"),
            ("label_value", "chromium"),
            ("retries", "2"),
            ("priority", "-5"),
            ("queue_timeout_s", "60"),
            ("cache", "read"),
            ("model_name", "qwen"),
            ("model_temperature", "0.5"),
            ("model_coords", "norm1000"),
            ("app_build", "1.4.0"),
        ]));
        let s = spec_from_form(&f).unwrap();
        assert_eq!(s.app_build.as_deref(), Some("1.4.0"));
        assert_eq!(s.mode, Mode::Llm);
        assert_eq!(s.vars.len(), 3);
        assert_eq!(s.vars["B"], "two");
        assert_eq!(s.vars["PASS"], "${secret.shop_password}");
        assert_eq!(s.selector.labels["browser"], "chromium");
        assert_eq!(
            (s.retries, s.priority, s.queue_timeout_s),
            (2, -5, Some(60))
        );
        assert_eq!(s.cache, Some(Cache::Read));
        let m = s.model.unwrap();
        assert_eq!(m.model.as_deref(), Some("qwen"));
        assert_eq!(
            (m.temperature, m.coords),
            (Some(0.5), Some(CoordSpace::Norm1000))
        );
        assert_eq!(s.timeout_s, argus_protocol::job::DEFAULT_TIMEOUT_S);
    }

    #[test]
    fn unparsable_values_name_their_field() {
        let field = |p: &[(&str, &str)]| match spec_from_form(&form_from_pairs(pairs(p))) {
            Err(ApiError::Client(env)) => env.field.unwrap_or_default(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            field(&[("platform", "web"), ("retries", "many")]),
            "retries"
        );
        assert_eq!(field(&[("platform", "web"), ("var_value", "x")]), "vars");
        assert_eq!(
            field(&[("platform", "web"), ("secret_var", "P")]),
            "secrets"
        );
        assert_eq!(field(&[("platform", "web"), ("cache", "forever")]), "cache");
        assert_eq!(
            field(&[("platform", "web"), ("model_temperature", "hot")]),
            "model.temperature"
        );
    }
}
