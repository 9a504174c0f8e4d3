//! Script files on the client side: `--steps FILE` read from disk with every file it
//! `include`s (transitively; each include relative to the file that holds it), so the job
//! carries them in `files` and the coordinator and worker never read a disk; `--var
//! NAME=VALUE` flags into the job's `vars`.

use std::collections::BTreeMap;
use std::path::Path;

use argus_protocol::job::MAX_FILES;
use argus_protocol::script::{include_refs, resolve_include};

/// `--steps FILE|TEXT`: the script and the files it includes. A path that names an existing
/// file is read, and its includes are found next to it; other text is the script itself,
/// its includes relative to the current folder.
pub fn read_steps(s: &str, vars: &BTreeMap<String, String>) -> anyhow::Result<Steps> {
    let p = Path::new(s);
    if !s.contains('\n') && p.is_file() {
        let text = std::fs::read_to_string(p)
            .map_err(|e| anyhow::anyhow!("cannot read steps file {s}: {e}"))?;
        let base = p.parent().unwrap_or(Path::new("."));
        let files = included_files(&text, s, base, vars)?;
        return Ok(Steps { text, files });
    }
    let files = included_files(s, "--steps", Path::new("."), vars)?;
    Ok(Steps {
        text: s.to_string(),
        files,
    })
}

/// A script and the files it includes, keyed as the job's `files` wants them.
pub struct Steps {
    /// The main script.
    pub text: String,
    /// Included files by key (path relative to the main script's folder).
    pub files: BTreeMap<String, String>,
}

/// Every file `text` (shown as `name` in errors) includes, transitively, read from `base`
/// (the main script's folder). Cycles are left for the parser to name; a file that cannot
/// be read is an error naming the including file and line.
pub fn included_files(
    text: &str,
    name: &str,
    base: &Path,
    vars: &BTreeMap<String, String>,
) -> anyhow::Result<BTreeMap<String, String>> {
    let mut files = BTreeMap::new();
    let mut todo: Vec<(Option<String>, String)> = vec![(None, text.to_string())];
    while let Some((key, text)) = todo.pop() {
        for (line, written) in include_refs(&text, vars) {
            let target = resolve_include(key.as_deref(), &written);
            if files.contains_key(&target) {
                continue;
            }
            if files.len() >= MAX_FILES {
                anyhow::bail!("the script includes more than {MAX_FILES} files");
            }
            let path = base.join(&target);
            let body = std::fs::read_to_string(&path).map_err(|e| {
                anyhow::anyhow!(
                    "{} line {line}: include {written}: cannot read {}: {e}",
                    key.as_deref().unwrap_or(name),
                    path.display()
                )
            })?;
            files.insert(target.clone(), body.clone());
            todo.push((Some(target), body));
        }
    }
    Ok(files)
}

/// Fills a suite file's jobs (JSON, as read from `suite_file`) for the API: a job's
/// `"steps": "FILE"` (a client-side shorthand, relative to the suite file) becomes its
/// `instruction`, and every file its script includes goes into its `files`.
pub fn fill_suite_jobs(body: &mut serde_json::Value, suite_file: &Path) -> anyhow::Result<()> {
    let dir = suite_file.parent().unwrap_or(Path::new("."));
    let Some(jobs) = body.get_mut("jobs").and_then(|j| j.as_array_mut()) else {
        return Ok(());
    };
    for (i, job) in jobs.iter_mut().enumerate() {
        let Some(job) = job.as_object_mut() else {
            continue;
        };
        let vars: BTreeMap<String, String> = job
            .get("vars")
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default();
        let (text, name, base) = match job.remove("steps") {
            Some(serde_json::Value::String(f)) => {
                let path = dir.join(&f);
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    anyhow::anyhow!("jobs[{i}].steps: cannot read {}: {e}", path.display())
                })?;
                job.insert("instruction".into(), text.clone().into());
                let base = path.parent().unwrap_or(dir).to_path_buf();
                (text, f, base)
            }
            Some(_) => anyhow::bail!("jobs[{i}].steps must be a file path"),
            None => match job.get("instruction").and_then(|v| v.as_str()) {
                Some(t) => (
                    t.to_string(),
                    format!("jobs[{i}].instruction"),
                    dir.to_path_buf(),
                ),
                None => continue,
            },
        };
        let files = included_files(&text, &name, &base, &vars)?;
        if !files.is_empty() {
            let slot = job
                .entry("files")
                .or_insert_with(|| serde_json::Value::Object(Default::default()));
            if let Some(m) = slot.as_object_mut() {
                for (k, v) in files {
                    m.entry(k).or_insert(v.into());
                }
            }
        }
    }
    Ok(())
}

/// `--var NAME=VALUE` flags as a map (a later flag for the same name wins).
pub fn parse_vars(flags: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    flags
        .iter()
        .map(|f| {
            f.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| anyhow::anyhow!("--var {f:?} is not NAME=VALUE"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_read_relative_to_the_including_file() {
        let dir = std::env::temp_dir().join(format!("argus-steps-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(dir.join("main.steps"), "include lib/a.steps\npress Enter").unwrap();
        std::fs::write(dir.join("lib/a.steps"), "include ../b.steps\npress Tab").unwrap();
        std::fs::write(dir.join("b.steps"), "wait 1ms").unwrap();
        let s = read_steps(dir.join("main.steps").to_str().unwrap(), &BTreeMap::new()).unwrap();
        assert_eq!(
            s.files.keys().collect::<Vec<_>>(),
            ["b.steps", "lib/a.steps"]
        );
        std::fs::write(dir.join("b.steps"), "include missing.steps").unwrap();
        let e = read_steps(dir.join("main.steps").to_str().unwrap(), &BTreeMap::new())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.starts_with("b.steps line 1: include missing.steps"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(parse_vars(&["A=1".into(), "B=x=y".into()]).unwrap()["B"] == "x=y");
        assert!(parse_vars(&["nope".into()]).is_err());
    }
}
