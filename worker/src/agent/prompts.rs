//! The planner's messages, as typed text: what never changes comes first, so a server's
//! prefix cache keeps it between jobs; the job and the screen come last.

use super::plan_step::{kinds_help, StepKind};

/// The planner's system message.
pub const PLANNER_SYSTEM: &str = "You are the planner of a UI-automation agent. Answer only with JSON: {\"steps\": [{\"do\": \"<kind>\", \"target\": \"<element>\", \"text\": \"<text>\"}, …]}.";

/// The planner's user message: the fixed instructions (the step kinds from
/// [`StepKind::ALL`], the rules, two examples), then the job (`replayed`: what a stored
/// script did before it handed over, with its leading blank line, or empty) and the current
/// screen's element listing.
pub fn planner(task: &str, replayed: &str, screen: &str) -> String {
    format!(
        "Turn the job below into the fewest ordered steps that carry it out, starting on the current screen below. Each step is {{\"do\": a kind, \"target\": the element as the screen's list names it, \"text\": the text}}; a field the kind does not use is \"\". The kinds:\n{kinds}\n\nRules:\n- Read each part of the job by its meaning: tick off, complete, finish, check off or mark done an item → check it; untick or reopen → uncheck; every item, all of them or everything at once → check_all (uncheck_all), never one step per item; enter, fill in, put or write a value → type; submit, send, search, log in → tap the form's button; remove, delete or get rid of an item → delete it; rename, edit or correct an item's text → rename (target: its text now; text: the new text).\n- Parts that confirm, verify, check that or make sure are checked by Argus after the last step: plan no step for them (an assert kind only where the job asks to check before a later step). Never tap a word of the job that the list does not show.\n- Copy names and texts from the job and the list exactly; keep ${{secret.NAME}} as written. The screen's headings, hints and example texts are not part of the job. Plan nothing the job does not ask for, nothing already done on the screen, and nothing to open, find or wait for what the screen shows.\n- A form: one type step for every value the job gives, each naming its field, then tap the form's button. A lone text field with no button (a new-item box) is submitted by press Enter after each typing.\n\nFor example, the job \"Sign in as 'ann' with ${{secret.PW}}, then make sure the page says Welcome\" on a screen with a textfield \"Username\", a textfield \"Password\" and a button \"Sign in\" is {{\"steps\": [{{\"do\": \"type\", \"target\": \"Username\", \"text\": \"ann\"}}, {{\"do\": \"type\", \"target\": \"Password\", \"text\": \"${{secret.PW}}\"}}, {{\"do\": \"tap\", \"target\": \"Sign in\", \"text\": \"\"}}]}}; the job \"Put 'call Bob' and 'pay rent' on my notes, then mark 'call Bob' done\" on a screen with a textfield \"New note\" is {{\"steps\": [{{\"do\": \"type\", \"target\": \"New note\", \"text\": \"call Bob\"}}, {{\"do\": \"press\", \"target\": \"\", \"text\": \"Enter\"}}, {{\"do\": \"type\", \"target\": \"New note\", \"text\": \"pay rent\"}}, {{\"do\": \"press\", \"target\": \"\", \"text\": \"Enter\"}}, {{\"do\": \"check\", \"target\": \"call Bob\", \"text\": \"\"}}]}}.\n\nJob: {task}{replayed}\n\n{screen}",
        kinds = kinds_help(&StepKind::ALL)
    )
}

/// The re-plan paragraph: the previous plan, which of its steps are done (those before the
/// 0-based `at`), where it got stuck and the failed attempts. The planner continues from the
/// current screen; it never starts the job again.
pub fn replan(prev: &[String], at: usize, failures: &[String]) -> String {
    format!(
        "\n\nThe previous plan was:\n{}\n{}It got stuck at step {}. Failed attempts:\n- {}\nPlan only what is left of the job, from the current screen, avoiding what failed.",
        prev.iter()
            .enumerate()
            .map(|(i, s)| format!("{}. {s}{}", i + 1, if i < at { " (done)" } else { "" }))
            .collect::<Vec<_>>()
            .join("\n"),
        if at == 0 {
            String::new()
        } else {
            format!("Steps 1 to {at} are done: their effects are on the screen above; do not plan them again. ")
        },
        at + 1,
        failures.join("\n- ")
    )
}
