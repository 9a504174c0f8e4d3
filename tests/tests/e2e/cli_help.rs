//! Pins that the debug `argus` binary answers `--help` for itself and for every subcommand
//! (nested ones included) with exit 0: clap's debug assertions run at parse time in a debug
//! build, so a clashing argument id panics every invocation, `--help` included. The list of
//! subcommands is read from the binary's own help, so a new one is covered without editing
//! this test.

use std::process::Command;

use argus_tests::procs::argus_bin;

/// Runs `argus <path…> --help`; asserts exit 0; returns stdout.
fn help(path: &[String]) -> String {
    let out = Command::new(argus_bin())
        .args(path)
        .arg("--help")
        .output()
        .expect("run argus");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "argus {} --help:\n{stdout}\n{}",
        path.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Usage:"), "{stdout}");
    stdout
}

/// The subcommand names listed under `Commands:` (without clap's `help`).
fn subcommands(help_text: &str) -> Vec<String> {
    help_text
        .lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_subcommand_answers_help() {
    let top = help(&[]);
    let subs = subcommands(&top);
    for want in [
        "coordinator",
        "worker",
        "submit",
        "run",
        "migrate",
        "suite",
        "token",
    ] {
        assert!(
            subs.iter().any(|s| s == want),
            "{want} missing from {subs:?}"
        );
    }
    let mut todo: Vec<Vec<String>> = subs.into_iter().map(|s| vec![s]).collect();
    let mut checked = 0;
    while let Some(path) = todo.pop() {
        let text = help(&path);
        checked += 1;
        for sub in subcommands(&text) {
            let mut p = path.clone();
            p.push(sub);
            todo.push(p);
        }
    }
    assert!(checked >= 8, "only {checked} subcommands checked");
    // The run's limit and the model call's limit are two distinct flags.
    let run = help(&["run".to_string()]);
    assert!(run.contains("--timeout-s"), "{run}");
    assert!(run.contains("--model-timeout-s"), "{run}");
}
