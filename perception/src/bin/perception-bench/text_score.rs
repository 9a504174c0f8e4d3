//! Scoring OCR on a generated text page: for each drawn item (label or button), the pixel
//! elements whose centre lies in the item's box (grown by [`SLACK_PX`]) are read left to
//! right and compared with the item's text:
//!
//! - **words**: whitespace-separated words of the item found among the words read there
//!   (exact, case-sensitive; each word read matches once);
//! - **characters**: the item's length minus the edit distance (Levenshtein, by `char`)
//!   between the text and what was read, at least 0.
//!
//! A word read into the wrong item, merged with a neighbour's, or split, counts as missed.

use argus_perception::{Observation, Rect};

use super::pages::Page;

/// Slack around an item's box for the centre of an element read in it, px.
pub const SLACK_PX: f64 = 4.0;

/// Counts over a set of items.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    /// Words drawn.
    pub words: usize,
    /// Words read exactly.
    pub words_ok: usize,
    /// Characters drawn.
    pub chars: usize,
    /// Characters drawn minus the edit distance to what was read.
    pub chars_ok: usize,
}

impl Tally {
    /// Adds `o`.
    pub fn add(&mut self, o: Tally) {
        self.words += o.words;
        self.words_ok += o.words_ok;
        self.chars += o.chars;
        self.chars_ok += o.chars_ok;
    }

    /// Words read exactly / words drawn (1 when none).
    pub fn word_accuracy(&self) -> f64 {
        ratio(self.words_ok, self.words)
    }

    /// 1 − character error rate (edit distance / characters drawn).
    pub fn char_accuracy(&self) -> f64 {
        ratio(self.chars_ok, self.chars)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

/// Levenshtein distance by `char`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// What the observation read inside `r`: element names whose centre lies in it, left to
/// right, joined by spaces.
pub fn read_in(obs: &Observation, r: &Rect) -> String {
    let grown = Rect::new(
        r.x - SLACK_PX,
        r.y - SLACK_PX,
        r.w + 2.0 * SLACK_PX,
        r.h + 2.0 * SLACK_PX,
    );
    let mut hits: Vec<(f64, &str)> = obs
        .elements
        .iter()
        .filter(|e| !e.name.is_empty())
        .filter(|e| {
            let (cx, cy) = (
                e.bbox_px.x + e.bbox_px.w / 2.0,
                e.bbox_px.y + e.bbox_px.h / 2.0,
            );
            cx >= grown.x && cx <= grown.right() && cy >= grown.y && cy <= grown.bottom()
        })
        .map(|e| (e.bbox_px.x, e.name.as_str()))
        .collect();
    hits.sort_by(|a, b| a.0.total_cmp(&b.0));
    hits.iter().map(|h| h.1).collect::<Vec<_>>().join(" ")
}

/// One item's tally: `text` drawn, `got` read.
pub fn score_item(text: &str, got: &str) -> Tally {
    let mut pool: Vec<&str> = got.split_whitespace().collect();
    let mut words_ok = 0;
    let words: Vec<&str> = text.split_whitespace().collect();
    for w in &words {
        if let Some(k) = pool.iter().position(|p| p == w) {
            pool.swap_remove(k);
            words_ok += 1;
        }
    }
    let chars = text.chars().count();
    Tally {
        words: words.len(),
        words_ok,
        chars,
        chars_ok: chars.saturating_sub(edit_distance(text, got)),
    }
}

/// The page's tally and the items read wrong (`drawn → read`).
pub fn score_page(page: &Page, obs: &Observation) -> (Tally, Vec<String>) {
    let mut t = Tally::default();
    let mut wrong = Vec::new();
    for it in &page.items {
        let got = read_in(obs, &it.rect());
        let s = score_item(&it.text, &got);
        if s.words_ok < s.words {
            wrong.push(format!("{:?} → {:?}", it.text, got));
        }
        t.add(s);
    }
    (t, wrong)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_and_words() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        let t = score_item("Save all files", "Save al files");
        assert_eq!((t.words, t.words_ok, t.chars, t.chars_ok), (3, 2, 14, 13));
    }
}
