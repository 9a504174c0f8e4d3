//! Scoring a generated keypad page: a one-character button is **found** when the observation
//! has an element named that character ([`same_key`]: trimmed, any case — `x` and `X` are one
//! key to `tap`, as for the worker's resolver) whose box lies inside the button's
//! box (grown by [`SLACK_PX`]) — what `tap "7"` needs to aim at the right key. Buttons of
//! more than one character (`DEG`, `sin`) are drawn as distractors and not counted.

use argus_perception::Observation;

use super::pages::{inside, Page};

/// Slack around a button for the box of the element found in it, px (anti-aliased borders).
pub const SLACK_PX: f64 = 2.0;

/// One-character buttons on a page and how many were found; `missed` lists the others
/// (`"7" at x,y`).
#[derive(Debug, Clone, Default)]
pub struct KeyTally {
    /// One-character buttons drawn.
    pub keys: usize,
    /// Found with the right text and a box inside the button.
    pub found: usize,
    /// What was missed.
    pub missed: Vec<String>,
    /// (drawn, found) by kind of key: digit, letter, operator.
    pub by_kind: [(usize, usize); 3],
}

/// Names of [`KeyTally::by_kind`]'s entries.
pub const KINDS: [&str; 3] = ["digit", "letter", "operator"];

fn kind_of(key: &str) -> usize {
    match key.chars().next() {
        Some(c) if c.is_ascii_digit() => 0,
        Some(c) if c.is_alphabetic() => 1,
        _ => 2,
    }
}

impl KeyTally {
    /// Adds `o`'s counts (not its misses).
    pub fn add(&mut self, o: &KeyTally) {
        self.keys += o.keys;
        self.found += o.found;
        for (a, b) in self.by_kind.iter_mut().zip(o.by_kind) {
            a.0 += b.0;
            a.1 += b.1;
        }
    }

    /// Found / drawn (1 when none).
    pub fn share(&self) -> f64 {
        if self.keys == 0 {
            1.0
        } else {
            self.found as f64 / self.keys as f64
        }
    }
}

/// Whether an element named `name` answers `tap "key"`: trimmed and compared without case,
/// as the worker's resolver compares names (`worker/src/resolve.rs`, `norm`).
pub fn same_key(name: &str, key: &str) -> bool {
    name.trim().to_lowercase() == key.to_lowercase()
}

/// Scores one page.
pub fn score_page(page: &Page, obs: &Observation) -> KeyTally {
    let mut t = KeyTally::default();
    for it in page
        .items
        .iter()
        .filter(|i| i.kind == "button" && i.text.chars().count() == 1)
    {
        t.keys += 1;
        let k = kind_of(&it.text);
        t.by_kind[k].0 += 1;
        let r = it.rect();
        let hit = obs
            .elements
            .iter()
            .any(|e| same_key(&e.name, &it.text) && inside(&e.bbox_px, &r, SLACK_PX));
        if hit {
            t.found += 1;
            t.by_kind[k].1 += 1;
        } else {
            let read: Vec<&str> = obs
                .elements
                .iter()
                .filter(|e| e.bbox_px.intersect(&r).is_some())
                .map(|e| e.name.as_str())
                .collect();
            t.missed.push(format!(
                "{:?} at {:.0},{:.0} (read there: {read:?})",
                it.text, r.x, r.y
            ));
        }
    }
    t
}
