//! Reads a suite's JUnit XML with PyPI `junitparser` (as CI tools read it), not with our own
//! parser: the wheel `deploy/dev-up.sh` installs (`ARGUS_JUNITPARSER`) is put on
//! `PYTHONPATH` and `python3` prints one JSON object per test case.

use serde_json::Value;

const READ: &str = r#"
import json, sys
from junitparser import JUnitXml
xml = JUnitXml.fromstring(sys.stdin.read())
suites = [xml] if xml._tag == "testsuite" else list(xml)
for suite in suites:
    for case in suite:
        print(json.dumps({
            "suite": suite.name,
            "name": case.name,
            "results": [{"kind": r._tag, "type": r.type, "message": r.message} for r in case.result],
        }))
"#;

/// The wheel's path (`ARGUS_JUNITPARSER`, default where dev-up puts it) when it is there.
pub fn wheel() -> Option<String> {
    let path = std::env::var("ARGUS_JUNITPARSER").unwrap_or_else(|_| {
        "/var/lib/argus/junitparser/junitparser-5.0.3-py3-none-any.whl".to_string()
    });
    std::path::Path::new(&path).is_file().then_some(path)
}

/// Every test case of `xml` as junitparser reads it: `{"suite", "name", "results": [{"kind":
/// "failure"|"error"|"skipped", "type", "message"}]}`. Panics when junitparser rejects the XML.
pub fn cases(wheel: &str, xml: &str) -> Vec<Value> {
    use std::io::Write;
    let mut child = std::process::Command::new("python3")
        .args(["-c", READ])
        .env("PYTHONPATH", wheel)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(xml.as_bytes())
        .expect("write xml");
    let out = child.wait_with_output().expect("python3 ran");
    assert!(
        out.status.success(),
        "junitparser could not read the JUnit: {}\n{xml}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}
