//! The planner's messages, as typed text: what never changes comes first, so a server's
//! prefix cache keeps it between jobs; the job and the screen come last.

/// The planner's system message.
pub const PLANNER_SYSTEM: &str =
    "You are the planner of a UI-automation agent. Answer only with JSON: {\"steps\": [\"…\", …]}.";

/// The planner's user message: the fixed instructions and examples, then the job
/// (`replayed`: what a stored script did before it handed over, with its leading blank
/// line, or empty) and the current screen's element listing.
pub fn planner(task: &str, replayed: &str, screen: &str) -> String {
    format!(
        "Break the job below into the fewest short, ordered steps a device operator can carry out one at a time, starting on the current screen below: each step is one tap, one typing into a field, one key press, one swipe or one check the job asks for, naming the element in quotes as the list names it; an element the list shows with no name is named by its role when it is the only one (\"textfield\"). Typing into a field needs no tap first; a single text field is usually submitted by pressing Enter. No steps to open, find, navigate to or wait for what the screen already shows, and none the job does not ask for: the list is what the screen holds, not a list of things to do. Copy names and texts from the job and the list exactly. Keep ${{secret.NAME}} references as written.\n\nFor example, the job \"Sign in as 'ann' with ${{secret.PW}} and check that the page says Welcome\" on a screen with a textfield \"Username\", a textfield \"Password\" and a button \"Sign in\" is planned as {{\"steps\": [\"type 'ann' into \\\"Username\\\"\", \"type ${{secret.PW}} into \\\"Password\\\"\", \"tap \\\"Sign in\\\"\", \"check that the screen shows \\\"Welcome\\\"\"]}}, the job \"Add the note 'call Bob'\" on a screen with a textfield \"New note\" as {{\"steps\": [\"type 'call Bob' into \\\"New note\\\"\", \"press Enter\"]}}, the job \"Open the link 'Pricing'\" on a screen with many links as {{\"steps\": [\"tap \\\"Pricing\\\"\"]}}, the job \"Put the cursor in the search box\" on a screen whose only field is an unnamed textfield as {{\"steps\": [\"tap \\\"textfield\\\"\"]}}, and the job \"Accept the terms, then sign up\" on a screen with a checkbox next to the text \"I accept the terms\" and a button \"Sign up\" as {{\"steps\": [\"check \\\"I accept the terms\\\"\", \"tap \\\"Sign up\\\"\"]}} (a checkbox is named by the text next to it).\n\nJob: {task}{replayed}\n\n{screen}"
    )
}

/// The re-plan paragraph: the previous plan, where it got stuck (0-based `at`) and the
/// failed attempts.
pub fn replan(prev: &[String], at: usize, failures: &[String]) -> String {
    format!(
        "\n\nThe previous plan was:\n{}\nIt got stuck at step {}. Failed attempts:\n- {}\nPlan the rest of the job from the current screen, avoiding what failed.",
        prev.iter()
            .enumerate()
            .map(|(i, s)| format!("{}. {s}", i + 1))
            .collect::<Vec<_>>()
            .join("\n"),
        at + 1,
        failures.join("\n- ")
    )
}
