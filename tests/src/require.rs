//! One switch for tests that need something a machine may lack (Xvfb, xterm, adb, the OCR
//! models, a desktop slot user, root…). Such a test asks [`require`] (or
//! [`require_programs`]) first. Present: it goes on. Missing: it prints `SKIP: …` and
//! returns early, so a laptop without a desktop stack still runs the rest — unless
//! `ARGUS_REQUIRE_ALL=1`, where a missing component fails the test naming it and how to
//! install it. `deploy/test.sh` (and so CI, `.ci/run`) sets it: there `deploy/dev-up.sh` has
//! installed everything, and a component that went missing turns the run red instead of
//! green by skipping.

/// Whether `ARGUS_REQUIRE_ALL=1`: a missing component fails the test instead of skipping it.
pub fn require_all() -> bool {
    std::env::var("ARGUS_REQUIRE_ALL").as_deref() == Ok("1")
}

/// `true` when `present`. Otherwise, under `ARGUS_REQUIRE_ALL=1`, panics with
/// "required component `component` missing: `how`"; without it prints the skip (to stderr,
/// shown with `--nocapture`) and returns `false` for the caller to return.
#[track_caller]
pub fn require(component: &str, present: bool, how: &str) -> bool {
    if present {
        return true;
    }
    if require_all() {
        panic!("required component {component} missing: {how} (ARGUS_REQUIRE_ALL=1 turns skips into failures)");
    }
    eprintln!(
        "SKIP: {component} missing ({how}); with ARGUS_REQUIRE_ALL=1 this test fails instead"
    );
    false
}

/// Whether an executable file named `program` is in a folder of `PATH`.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

/// [`require`] for programs looked up on `PATH`; the component named is the list of the
/// missing ones.
#[track_caller]
pub fn require_programs(programs: &[&str], how: &str) -> bool {
    let missing: Vec<&str> = programs.iter().copied().filter(|p| !on_path(p)).collect();
    require(&missing.join(", "), missing.is_empty(), how)
}
