//! One-character readings settled by the row they stand in. A recognizer trained on text
//! confuses shapes a digit and a letter share (`0`/`O`/`o`, `1`/`I`/`l`, `5`/`S`, `8`/`B`,
//! `2`/`Z`, `9`/`q`) and sometimes answers a digit in its full-width form (`５`). Keys of one
//! row of a keypad are of one kind — a calculator's row is digits (and operators), a keyboard's
//! row letters — so a look-alike among at least [`MIN_MATES`] keys of the other kind, and none
//! of its own, is read as its twin of that kind.
//!
//! A row is the other one-character readings whose boxes overlap the key's vertically by at
//! least half of the shorter one's height and are 0.7–1.4 × as tall (a second keypad beside
//! it, drawn at another size, is another row), cut where the step to the next key is much
//! wider than the row's usual step (a second keypad beside it at the same size). Boxes in
//! device px.

use crate::fusion::PixelCandidate;
use crate::geometry::Rect;

/// Fewest keys of one kind on a row for a look-alike to be read as that kind.
pub const MIN_MATES: usize = 2;

/// Look-alike pairs: (letter forms, digit).
const TWINS: [(&str, char); 6] = [
    ("oOQD", '0'),
    ("IlL|", '1'),
    ("Ss", '5'),
    ("B", '8'),
    ("Zz", '2'),
    ("qg", '9'),
];

/// `c` as ASCII when it is a full-width form (U+FF01..=U+FF5E), else `c`. Also the glyph
/// pass's look-alike folding ([`crate::glyph_read`]).
pub fn half_width_char(c: char) -> char {
    match c {
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
        _ => c,
    }
}

/// Full-width forms of `s` as ASCII ([`half_width_char`]).
fn half_width(s: &str) -> String {
    s.chars().map(half_width_char).collect()
}

/// The one character of `c`'s text, if it has exactly one (trimmed).
fn single(c: &PixelCandidate) -> Option<char> {
    let mut it = c.text.trim().chars();
    let first = it.next()?;
    it.next().is_none().then_some(first)
}

fn same_row(a: &Rect, b: &Rect) -> bool {
    let over = a.bottom().min(b.bottom()) - a.y.max(b.y);
    let ratio = a.h / b.h.max(1.0);
    over >= 0.5 * a.h.min(b.h) && (0.7..=1.4).contains(&ratio)
}

/// The keys of `row` (indices into `cands`, `i` among them) on the same keypad as `i`: sorted
/// by centre x, the run around `i` whose steps are at most [`MAX_STEP`] × the row's median
/// step (a wider step is the space between two keypads side by side).
fn segment(cands: &[PixelCandidate], mut row: Vec<(usize, char)>, i: usize) -> Vec<(usize, char)> {
    let cx = |k: &(usize, char)| cands[k.0].bbox_px.x + cands[k.0].bbox_px.w / 2.0;
    row.sort_by(|a, b| cx(a).total_cmp(&cx(b)));
    let steps: Vec<f64> = row.windows(2).map(|w| cx(&w[1]) - cx(&w[0])).collect();
    let mut sorted = steps.clone();
    sorted.sort_by(f64::total_cmp);
    let Some(median) = sorted.get(sorted.len() / 2).copied() else {
        return row;
    };
    let Some(at) = row.iter().position(|k| k.0 == i) else {
        return row;
    };
    let near = |s: f64| s <= MAX_STEP * median;
    let mut lo = at;
    while lo > 0 && near(steps[lo - 1]) {
        lo -= 1;
    }
    let mut hi = at;
    while hi < steps.len() && near(steps[hi]) {
        hi += 1;
    }
    row[lo..=hi].to_vec()
}

/// Widest step between neighbouring keys of one keypad, as a multiple of the row's median.
pub const MAX_STEP: f64 = 1.4;

/// The twin of `ch` of the other kind: a digit for a letter form, the letter for a digit
/// (`lower`: the row's letters are lower case).
fn twin(ch: char, to_digit: bool, lower: bool) -> Option<char> {
    let (letters, digit) = TWINS
        .iter()
        .find(|(l, d)| if to_digit { l.contains(ch) } else { *d == ch })?;
    if to_digit {
        return Some(*digit);
    }
    let mut forms = letters.chars();
    let upper = forms.next()?;
    Some(if lower {
        upper.to_ascii_lowercase()
    } else {
        upper
    })
}

/// Settles every one-character reading of `cands`: full-width forms to ASCII, then
/// look-alikes by their row (module docs).
pub fn settle(cands: &mut [PixelCandidate]) {
    for c in cands.iter_mut() {
        if single(c).is_some() {
            c.text = half_width(c.text.trim());
        }
    }
    let keys: Vec<(usize, char)> = cands
        .iter()
        .enumerate()
        .filter_map(|(i, c)| single(c).map(|ch| (i, ch)))
        .collect();
    let mut renamed: Vec<(usize, char)> = Vec::new();
    for &(i, ch) in &keys {
        let row: Vec<(usize, char)> = keys
            .iter()
            .filter(|(j, _)| *j == i || same_row(&cands[i].bbox_px, &cands[*j].bbox_px))
            .copied()
            .collect();
        let (mut digits, mut letters, mut lower) = (0, 0, 0);
        for (_, m) in segment(cands, row, i).into_iter().filter(|(j, _)| *j != i) {
            if m.is_ascii_digit() {
                digits += 1;
            } else if m.is_alphabetic() {
                letters += 1;
                lower += usize::from(m.is_lowercase());
            }
        }
        let to = if ch.is_alphabetic() && letters == 0 && digits >= MIN_MATES {
            twin(ch, true, false)
        } else if ch.is_ascii_digit() && digits == 0 && letters >= MIN_MATES {
            twin(ch, false, 2 * lower > letters)
        } else {
            None
        };
        if let Some(t) = to {
            renamed.push((i, t));
        }
    }
    for (i, t) in renamed {
        cands[i].text = t.to_string();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::PixelKind;

    fn key(text: &str, x: f64, y: f64, h: f64) -> PixelCandidate {
        PixelCandidate {
            bbox_px: Rect::new(x, y, h * 0.6, h),
            text: text.into(),
            kind: PixelKind::Ocr,
            confidence: 0.9,
        }
    }

    fn texts(c: &[PixelCandidate]) -> Vec<&str> {
        c.iter().map(|c| c.text.as_str()).collect()
    }

    #[test]
    fn look_alikes_take_the_kind_of_their_row() {
        let mut c = vec![
            key("7", 0.0, 10.0, 20.0),
            key("8", 40.0, 10.0, 20.0),
            key("o", 80.0, 11.0, 18.0),
            key("５", 120.0, 10.0, 20.0),
            // A keyboard row below: letters, one read as a digit.
            key("q", 0.0, 60.0, 20.0),
            key("w", 40.0, 60.0, 20.0),
            key("0", 80.0, 60.0, 20.0),
            key("p", 120.0, 60.0, 20.0),
            // A row of one letter beside a digit is left alone (too few mates).
            key("S", 0.0, 120.0, 20.0),
            key("4", 40.0, 120.0, 20.0),
            // Two keypads side by side: a digit pad, then after a wide gap a letter pad.
            key("-", 0.0, 180.0, 20.0),
            key("5", 40.0, 180.0, 20.0),
            key("H", 160.0, 180.0, 20.0),
            key("S", 200.0, 180.0, 20.0),
            key("T", 240.0, 180.0, 20.0),
        ];
        settle(&mut c);
        assert_eq!(
            texts(&c),
            ["7", "8", "0", "5", "q", "w", "o", "p", "S", "4", "-", "5", "H", "S", "T"]
        );
    }

    #[test]
    fn a_mixed_row_and_a_row_at_another_size_change_nothing() {
        let mut c = vec![
            key("A", 0.0, 10.0, 20.0),
            key("1", 40.0, 10.0, 20.0),
            key("2", 80.0, 10.0, 20.0),
            key("B", 120.0, 10.0, 20.0),
            key("o", 200.0, 10.0, 40.0),
        ];
        settle(&mut c);
        assert_eq!(texts(&c), ["A", "1", "2", "B", "o"]);
    }
}
