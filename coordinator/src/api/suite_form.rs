//! The New suite form as data: posted pairs → [`SuiteForm`] → the [`SuiteSpec`] that
//! `POST /api/v1/suites` would accept, and back (a stored suite → its "Edit" form). Each
//! case's inputs are named `jobs[i].<job form field>` and parsed by the New job form's own
//! parser ([`super::job_form`]); its refusals are renamed `jobs[i].<field>`, the path the
//! API itself names. A value the form cannot parse is refused here naming its field; all
//! else is left to the API's validation ([`super::suites::submit`]).

use std::collections::BTreeMap;

use argus_protocol::{JobSpec, SuiteSpec};

use super::job_form::{
    form_from_pairs as job_form_from_pairs, invalid, spec_from_form as job_spec,
};
use super::matrix_lines::{cell_line, parse_cell, parse_row, row_line};
use crate::error::ApiError;
use crate::views::{JobForm, SuiteCase, SuiteForm};

/// The fields of an empty case: the New job form's defaults.
pub(super) fn blank_case() -> SuiteCase {
    SuiteCase {
        form: JobForm {
            platform: "web".into(),
            mode: "script".into(),
            timeout_s: argus_protocol::job::DEFAULT_TIMEOUT_S.to_string(),
            retries: "0".into(),
            ..Default::default()
        },
        base: String::new(),
    }
}

/// `jobs[3].name` → `(3, "name")`.
fn case_key(k: &str) -> Option<(usize, &str)> {
    let (i, field) = k.strip_prefix("jobs[")?.split_once("].")?;
    Some((i.parse().ok()?, field))
}

/// Collects the posted pairs; `add_case` is true when the "Add a case" button sent them.
/// Cases left wholly blank are dropped, the rest keep their order (so `jobs[i]` of the
/// spec is the i-th case shown again).
pub(super) fn form_from_pairs(pairs: Vec<(String, String)>) -> (SuiteForm, bool) {
    let mut f = SuiteForm::default();
    let mut add_case = false;
    let mut cases: BTreeMap<usize, (Vec<(String, String)>, String)> = BTreeMap::new();
    for (k, v) in pairs {
        match k.as_str() {
            "name" => f.name = v,
            "app_build" => f.app_build = v,
            "retry_elsewhere" => f.retry_elsewhere = v,
            "matrix" => f.matrix = v,
            "rows" => f.rows = v,
            "add_case" => add_case = true,
            _ => match case_key(&k) {
                Some((i, "base")) => cases.entry(i).or_default().1 = v,
                Some((i, field)) => cases.entry(i).or_default().0.push((field.to_string(), v)),
                None => {}
            },
        }
    }
    f.cases = cases
        .into_values()
        .map(|(pairs, base)| SuiteCase {
            form: job_form_from_pairs(pairs),
            base,
        })
        .filter(|c| !is_blank(c))
        .collect();
    (f, add_case)
}

/// A case with nothing typed (platform, mode and limits keep their defaults): dropped. An
/// edited case whose name, start URL, steps, expectations and vars were all emptied is
/// dropped too, whatever its stored spec (the hidden `base`) holds: that is how Edit removes
/// a case.
fn is_blank(c: &SuiteCase) -> bool {
    let f = &c.form;
    [&f.name, &f.start_url, &f.instruction, &f.expectations]
        .iter()
        .all(|t| t.trim().is_empty())
        && f.vars.is_empty()
}

/// `e` with its field renamed `jobs[i].<field>` (`jobs[i]` when it names none).
fn in_case(i: usize, e: ApiError) -> ApiError {
    match e {
        ApiError::Client(mut env) => {
            env.field = Some(match env.field {
                Some(f) => format!("jobs[{i}].{f}"),
                None => format!("jobs[{i}]"),
            });
            ApiError::Client(env)
        }
        other => other,
    }
}

/// Case `i` as a job: the shown fields parsed by the New job form's parser, laid over the
/// stored spec an "Edit" started from (its other fields kept).
fn case_spec(i: usize, c: &SuiteCase, app_build: &str) -> Result<JobSpec, ApiError> {
    let shown = job_spec(&c.form).map_err(|e| in_case(i, e))?;
    let mut spec = if c.base.trim().is_empty() {
        shown.clone()
    } else {
        serde_json::from_str::<JobSpec>(&c.base).map_err(|e| {
            invalid(
                &format!("jobs[{i}]"),
                format!("the stored case does not parse: {e}"),
            )
        })?
    };
    spec.name = shown.name;
    spec.platform = shown.platform;
    spec.mode = shown.mode;
    spec.start_url = shown.start_url;
    spec.instruction = shown.instruction;
    spec.expectations = shown.expectations;
    spec.timeout_s = shown.timeout_s;
    spec.retries = shown.retries;
    spec.vars = shown.vars;
    if !app_build.trim().is_empty() {
        spec.app_build = Some(app_build.to_string());
    }
    Ok(spec)
}

/// The suite the form describes, not yet validated; errors name the spec field at fault.
pub(super) fn spec_from_form(f: &SuiteForm) -> Result<SuiteSpec, ApiError> {
    let jobs = f
        .cases
        .iter()
        .enumerate()
        .map(|(i, c)| case_spec(i, c, &f.app_build))
        .collect::<Result<Vec<_>, _>>()?;
    let lines = |t: &str| {
        t.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let mut matrix = Vec::new();
    for line in lines(&f.matrix) {
        matrix.push(
            parse_cell(&line)
                .map_err(|e| invalid("matrix", format!("{e}; one cell per line: k=v, k2>=13")))?,
        );
    }
    let mut vars_matrix = Vec::new();
    for line in lines(&f.rows) {
        vars_matrix.push(parse_row(&line).map_err(|e| {
            invalid(
                "vars_matrix",
                format!("{e}; one data row per line: USER=alice, PASS=x"),
            )
        })?);
    }
    let re = f.retry_elsewhere.trim();
    let retry_elsewhere = if re.is_empty() {
        None
    } else {
        Some(
            re.parse::<u32>()
                .map_err(|_| invalid("retry_elsewhere", format!("{re:?} is not a whole number")))?,
        )
    };
    Ok(SuiteSpec {
        name: f.name.clone(),
        jobs,
        matrix,
        vars_matrix,
        retry_elsewhere,
    })
}

/// A job as the case fields show it; secret references stay var rows (`${secret.NAME}`).
fn case_from_spec(j: &JobSpec) -> SuiteCase {
    SuiteCase {
        form: JobForm {
            name: j.name.clone().unwrap_or_default(),
            platform: j.platform.to_string(),
            mode: j.mode.as_str().to_string(),
            start_url: j.start_url.clone().unwrap_or_default(),
            instruction: j.instruction.clone(),
            expectations: j.expectations.join("\n"),
            timeout_s: j.timeout_s.to_string(),
            retries: j.retries.to_string(),
            vars: j.vars.clone().into_iter().collect(),
            ..Default::default()
        },
        base: serde_json::to_string(j).unwrap_or_default(),
    }
}

/// A stored suite as its "Edit" form: the inverse of [`spec_from_form`]. The app build is
/// shown once when every case has the same one (each case keeps its own otherwise).
pub(super) fn form_from_spec(s: &SuiteSpec) -> SuiteForm {
    let builds: Vec<Option<&String>> = s.jobs.iter().map(|j| j.app_build.as_ref()).collect();
    let app_build = match builds.first() {
        Some(Some(b)) if builds.iter().all(|x| *x == Some(*b)) => b.to_string(),
        _ => String::new(),
    };
    SuiteForm {
        name: s.name.clone(),
        app_build,
        retry_elsewhere: s.retry_elsewhere.map(|n| n.to_string()).unwrap_or_default(),
        matrix: s
            .matrix
            .iter()
            .map(cell_line)
            .collect::<Vec<_>>()
            .join("\n"),
        rows: s
            .vars_matrix
            .iter()
            .map(row_line)
            .collect::<Vec<_>>()
            .join("\n"),
        cases: s.jobs.iter().map(case_from_spec).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::job_form::tests::pairs;

    #[test]
    fn cases_rows_and_cells_become_the_suite_and_back() {
        let (f, add) = form_from_pairs(pairs(&[
            ("csrf", "t"),
            ("name", "checkout"),
            ("app_build", "1.4.0"),
            ("retry_elsewhere", "2"),
            (
                "matrix",
                "browser=chromium\r\nmodel=Pixel 7, os_version>=13\n",
            ),
            ("rows", "USER=alice, PASS=${secret.alice}\nUSER=bob"),
            ("jobs[0].name", "login"),
            ("jobs[0].platform", "web"),
            ("jobs[0].instruction", "wait 1s"),
            ("jobs[0].var_name", "SHOP"),
            ("jobs[0].var_value", "demo"),
            ("jobs[1].platform", "web"),
            ("jobs[1].timeout_s", "60"),
            ("jobs[2].name", "pay"),
            ("jobs[2].platform", "android"),
            ("jobs[2].instruction", "tap \"Pay\""),
            ("jobs[2].timeout_s", "90"),
        ]));
        assert!(!add);
        assert_eq!(f.cases.len(), 2, "the blank case is dropped");
        let s = spec_from_form(&f).unwrap();
        assert_eq!(s.name, "checkout");
        assert_eq!(s.retry_elsewhere, Some(2));
        assert_eq!(s.matrix.len(), 2);
        assert_eq!(s.matrix[1].require, vec!["os_version>=13"]);
        assert_eq!(s.vars_matrix.len(), 2);
        assert_eq!(s.vars_matrix[0]["PASS"], "${secret.alice}");
        assert_eq!(s.jobs[0].vars["SHOP"], "demo");
        assert_eq!(s.jobs[1].name.as_deref(), Some("pay"));
        assert_eq!(s.jobs[1].timeout_s, 90);
        assert!(s
            .jobs
            .iter()
            .all(|j| j.app_build.as_deref() == Some("1.4.0")));
        // Edit: the same form again builds the same suite.
        let back = form_from_spec(&s);
        assert_eq!(back.app_build, "1.4.0");
        assert_eq!(spec_from_form(&back).unwrap(), s);
    }

    #[test]
    fn an_edit_keeps_the_fields_the_form_does_not_show() {
        let mut j = JobSpec::script(argus_protocol::Platform::Web, None, "wait 1s".into());
        j.priority = 9;
        j.retry_elsewhere = 1;
        j.selector.labels.insert("rack".into(), "a".into());
        let s = SuiteSpec {
            name: "n".into(),
            jobs: vec![j],
            matrix: vec![],
            vars_matrix: vec![],
            retry_elsewhere: None,
        };
        let mut f = form_from_spec(&s);
        f.cases[0].form.instruction = "wait 2s".into();
        let edited = spec_from_form(&f).unwrap();
        assert_eq!(edited.jobs[0].instruction, "wait 2s");
        assert_eq!(edited.jobs[0].priority, 9);
        assert_eq!(edited.jobs[0].retry_elsewhere, 1);
        assert_eq!(edited.jobs[0].selector.labels["rack"], "a");
    }

    #[test]
    fn an_edited_case_emptied_of_name_url_and_steps_is_removed() {
        let mut kept = JobSpec::script(argus_protocol::Platform::Web, None, "wait 2s".into());
        kept.priority = 7;
        let base = serde_json::to_string(&kept).unwrap();
        let (f, _) = form_from_pairs(pairs(&[
            ("name", "n"),
            ("jobs[0].name", "a"),
            ("jobs[0].platform", "web"),
            ("jobs[0].instruction", "wait 1s"),
            // Case 2 as Edit shows it (its stored spec in `base`), with every field emptied.
            ("jobs[1].base", &base),
            ("jobs[1].platform", "web"),
            ("jobs[1].name", ""),
            ("jobs[1].start_url", ""),
            ("jobs[1].instruction", ""),
        ]));
        let edited = spec_from_form(&f).unwrap();
        assert_eq!(edited.jobs.len(), 1, "{edited:?}");
        assert_eq!(edited.jobs[0].instruction, "wait 1s");
    }

    #[test]
    fn unparsable_values_name_their_field() {
        let field = |p: &[(&str, &str)]| {
            let (f, _) = form_from_pairs(pairs(p));
            match spec_from_form(&f) {
                Err(ApiError::Client(env)) => env.field.unwrap_or_default(),
                other => panic!("{other:?}"),
            }
        };
        let case = [
            ("jobs[0].instruction", "wait 1s"),
            ("jobs[0].platform", "web"),
        ];
        let with = |extra: (&'static str, &'static str)| {
            let mut v = case.to_vec();
            v.push(extra);
            v
        };
        assert_eq!(field(&with(("retry_elsewhere", "lots"))), "retry_elsewhere");
        assert_eq!(field(&with(("matrix", "just words"))), "matrix");
        assert_eq!(field(&with(("rows", "alice"))), "vars_matrix");
        assert_eq!(field(&with(("jobs[0].retries", "x"))), "jobs[0].retries");
        assert_eq!(field(&with(("jobs[0].mode", "psychic"))), "jobs[0].mode");
    }
}
