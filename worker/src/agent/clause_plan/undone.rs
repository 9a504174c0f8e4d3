//! A tick taken back at once: "Soft food: I bought some pouches but she won't touch them, so
//! leave that one unticked" reads as a `check` (the past form) and then an `uncheck` of the
//! same open item. Both go: the item ends as it started, and two needless clicks on a
//! toggle are two chances to hit the wrong row (measured: such a run spent its step budget).

use super::Read;

/// `read` without each `check "X"` that the next line takes back with `uncheck "X"` while X
/// was open at the `start` (or `uncheck` then `check` of an item done at the start); the
/// indices of its free clauses and reports follow the lines removed.
pub(super) fn drop_undone(read: &mut Read, start: &[(String, bool)]) {
    let mut i = 0;
    while i + 1 < read.steps.len() {
        let pair = (read.steps[i].as_str(), read.steps[i + 1].as_str());
        let undone = start.iter().any(|(name, done)| {
            let q = super::clauses::quote_line(name);
            let (on, off) = (format!("check {q}"), format!("uncheck {q}"));
            (!done && pair == (on.as_str(), off.as_str()))
                || (*done && pair == (off.as_str(), on.as_str()))
        });
        let placed = read.free.iter().any(|f| f.step == i || f.step == i + 1);
        if !undone || placed {
            i += 1;
            continue;
        }
        read.steps.drain(i..i + 2);
        for f in read.free.iter_mut().filter(|f| f.step > i) {
            f.step -= 2;
        }
        for r in read.reports.iter_mut().filter(|r| r.step > i) {
            r.step = r.step.saturating_sub(2).max(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::read;
    use super::super::test_support::list;

    #[test]
    fn a_tick_taken_back_at_once_is_no_step() {
        let obs = list(&[("buy dog treats", false), ("walk the dog", true)]);
        let r = read(
            "Dog treats: I bought a bag but he hates them, so leave that one unticked. And untick the walk.",
            &obs,
        )
        .expect("reads");
        assert_eq!(r.steps, vec!["uncheck \"walk the dog\""], "{r:?}");
    }
}
