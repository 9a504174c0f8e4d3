//! One-character readings settled by the row they stand in. A recognizer trained on text
//! confuses shapes a digit and a letter share (`0`/`O`/`o`/`θ`, `1`/`I`/`l`, `5`/`S`, `8`/`B`,
//! `2`/`Z`, `9`/`q`) and sometimes answers a digit in its full-width form (`５`). Keys of one
//! row of a keypad are of one kind — a calculator's row is digits (and operators), a keyboard's
//! row letters — so a look-alike is read as its twin of the other kind where its row holds
//! none of its own kind for sure and enough of the other: a letter among at least
//! [`MIN_MATES`] digits and operators, one of them a digit (a calculator row `= 9 o . %`); a
//! digit among at least [`MIN_MATES`] letters that are no look-alikes. A look-alike mate is
//! itself in question and vetoes nothing (a calculator row `o × 2 9` read `o x 2 9`: the `x`
//! does not keep the `o` a letter). The letter `x` among at least
//! [`MIN_MATES`] digits and operators and no sure letter is the sign `×`: many fonts (DejaVu
//! Sans among them) draw `×` as an `x` standing where the letter stands, so only its row tells
//! them apart.
//!
//! A row is the other keys (readings of 1..=[`KEY_MAX_CHARS`] characters) whose boxes overlap
//! the key's vertically by at least half of the shorter one's height — letters and digits
//! 0.6–1.67 × as tall as the key (0.5–1.67 when the key is an `x`, perhaps a small `×`; a second
//! keypad beside it, drawn at another size, is another row), operators, an `x` and longer keys
//! any height — cut where the step to the next key is much wider than the row's usual step (a
//! second keypad beside it at the same size). Where the row holds fewer than [`MIN_MATES`]
//! letters and digits (a keypad two keys wide, a row of long keys and operators) and does not
//! settle the key, its column does, alike: keys centred within half a glyph's height of it
//! across, cut at wide steps. Boxes in device px.

use crate::fusion::PixelCandidate;
use crate::geometry::Rect;

/// Fewest keys of one kind on a row for a look-alike to be read as that kind.
pub const MIN_MATES: usize = 2;

/// The multiplication sign, which the letter `x` on a row of digits and operators stands for.
pub const TIMES: char = '×';

fn is_x(c: char) -> bool {
    matches!(c, 'x' | 'X')
}

/// Look-alike pairs: (letter forms, digit). A monospace font's dotted zero reads as `θ`.
const TWINS: [(&str, char); 6] = [
    ("oOQDθ", '0'),
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

/// Whether `b` stands on `a`'s row: overlapping it vertically by at least half the shorter's
/// height, `a`'s height `ratio` × `b`'s.
fn same_row(a: &Rect, b: &Rect, ratio: std::ops::RangeInclusive<f64>) -> bool {
    let over = a.bottom().min(b.bottom()) - a.y.max(b.y);
    over >= 0.5 * a.h.min(b.h) && ratio.contains(&(a.h / b.h.max(1.0)))
}

/// Highest height ratio of a key to its letter and digit row mates ([`same_row`]): 1 /
/// [`ROW_RATIO`].
const ROW_MAX: f64 = 1.67;

/// Lowest height ratio of a key to its letter and digit row mates ([`same_row`]), on ink
/// boxes: a lower-case `o` stands about 0.72 × as tall as a `k` in DejaVu Sans (0.7 split
/// lower-case keyboard rows on the tuning part), and a second keypad drawn at another size
/// differs by more. An `x` (a `×` drawn small and centred on the math axis, 0.6 × a digit's
/// height in serif fonts) may be as low as [`TIMES_RATIO`].
const ROW_RATIO: f64 = 0.6;

/// Lowest height ratio of an `x` to its row mates.
const TIMES_RATIO: f64 = 0.5;

/// Which way a line of keys runs.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Line {
    Row,
    Column,
}

/// The centre of `r` along `line`.
fn centre(r: &Rect, line: Line) -> f64 {
    match line {
        Line::Row => r.x + r.w / 2.0,
        Line::Column => r.y + r.h / 2.0,
    }
}

/// The keys of `keys` (indices into `boxes`, `i` among them) on the same keypad as `i`: sorted
/// by centre along `line`, the run around `i` whose steps are at most [`MAX_STEP`] × the
/// line's median step (a wider step is the space between two keypads side by side).
fn segment(boxes: &[Rect], mut keys: Vec<Key>, i: usize, line: Line) -> Vec<Key> {
    let c = |k: &Key| centre(&boxes[k.0], line);
    keys.sort_by(|a, b| c(a).total_cmp(&c(b)));
    let steps: Vec<f64> = keys.windows(2).map(|w| c(&w[1]) - c(&w[0])).collect();
    let mut sorted = steps.clone();
    sorted.sort_by(f64::total_cmp);
    let Some(median) = sorted.get(sorted.len() / 2).copied() else {
        return keys;
    };
    let Some(at) = keys.iter().position(|k| k.0 == i) else {
        return keys;
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
    keys[lo..=hi].to_vec()
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

/// A key on the page: its index in the candidates and its one character (`None` for a key of
/// 2..=[`KEY_MAX_CHARS`] characters, like `sin`, which places a row but is of no kind).
type Key = (usize, Option<char>);

/// Longest reading taken for a key (the glyph pass's longest, `DEG`, `CE/C`).
pub const KEY_MAX_CHARS: usize = 6;

fn key_of(i: usize, c: &PixelCandidate) -> Option<Key> {
    let n = c.text.trim().chars().count();
    if n == 1 {
        Some((i, single(c)))
    } else {
        (2..=KEY_MAX_CHARS).contains(&n).then_some((i, None))
    }
}

/// Whether `b` stands in `a`'s column: centres at most half the taller one's height apart
/// across (glyphs are centred on their keys), `a`'s height `ratio` × `b`'s.
fn same_column(a: &Rect, b: &Rect, ratio: std::ops::RangeInclusive<f64>) -> bool {
    let apart = (centre(a, Line::Row) - centre(b, Line::Row)).abs();
    apart <= 0.5 * a.h.max(b.h) && ratio.contains(&(a.h / b.h.max(1.0)))
}

/// The keys of `i`'s row (or column) on its keypad ([`same_row`], [`same_column`],
/// [`segment`]); a letter or digit mate is 0.6–1.67 × as tall as `i` (0.5–1.67 for an `x`:
/// [`TIMES_RATIO`]), an operator, an `x` (perhaps a small `×`) or a longer key any height (a
/// `.` or `-` glyph is small; only its place counts).
fn line_of(boxes: &[Rect], keys: &[Key], i: usize, ch: char, line: Line) -> Vec<Key> {
    let lowest = if is_x(ch) { TIMES_RATIO } else { ROW_RATIO };
    let along = match line {
        Line::Row => same_row,
        Line::Column => same_column,
    };
    let mates: Vec<Key> = keys
        .iter()
        .filter(|(j, m)| {
            let ratio = match m {
                Some(m) if m.is_alphanumeric() && !is_x(*m) => lowest..=ROW_MAX,
                _ => 0.0..=f64::INFINITY,
            };
            *j == i || along(&boxes[i], &boxes[*j], ratio)
        })
        .copied()
        .collect();
    segment(boxes, mates, i, line)
}

/// Counts of a key's row mates by kind. A look-alike (a [`TWINS`] form or an `x`) is itself in
/// question, so it never vetoes the other kind: `sure_letters` leaves out the letters that
/// have a digit twin and `x`, `sure_digits` the digits that have a letter twin.
#[derive(Default)]
struct Mates {
    digits: usize,
    sure_digits: usize,
    letters: usize,
    sure_letters: usize,
    lower: usize,
    ops: usize,
}

/// Whether `c` is one of a look-alike pair ([`TWINS`]) or an `x` (the sign `×`).
fn in_question(c: char) -> bool {
    is_x(c) || TWINS.iter().any(|(l, d)| l.contains(c) || *d == c)
}

/// The kinds of the one-character mates of key `i` on `row`.
fn mates(row: &[Key], i: usize) -> Mates {
    let mut n = Mates::default();
    for m in row.iter().filter(|(j, _)| *j != i).filter_map(|k| k.1) {
        let sure = usize::from(!in_question(m));
        if m.is_ascii_digit() {
            n.digits += 1;
            n.sure_digits += sure;
        } else if m.is_alphabetic() {
            n.letters += 1;
            n.sure_letters += sure;
            n.lower += sure * usize::from(m.is_lowercase());
        } else {
            n.ops += 1;
        }
    }
    n
}

/// What key `ch` reads as among `n` mates (module docs), if not itself.
fn settled(ch: char, n: &Mates) -> Option<char> {
    if is_x(ch) && n.sure_letters == 0 && n.digits + n.ops >= MIN_MATES {
        Some(TIMES)
    } else if ch.is_alphabetic()
        && n.sure_letters == 0
        && n.digits >= 1
        && n.digits + n.ops >= MIN_MATES
    {
        twin(ch, true, false)
    } else if ch.is_ascii_digit() && n.sure_digits == 0 && n.sure_letters >= MIN_MATES {
        twin(ch, false, 2 * n.lower > n.sure_letters)
    } else {
        None
    }
}

/// Settles every one-character reading of `cands` by the boxes of their candidates
/// ([`settle_in`]).
pub fn settle(cands: &mut [PixelCandidate]) {
    let boxes: Vec<Rect> = cands.iter().map(|c| c.bbox_px).collect();
    settle_in(cands, &boxes);
}

/// Settles every one-character reading of `cands`: full-width forms to ASCII, then
/// look-alikes by their row (module docs), rows found on `boxes` (one per candidate, device
/// px: the tight box of its ink where known — text detection's boxes are padded, a glyph's
/// are not, and their heights are compared). Nothing changes when `boxes` is not one per
/// candidate.
pub fn settle_in(cands: &mut [PixelCandidate], boxes: &[Rect]) {
    if boxes.len() != cands.len() {
        return;
    }
    for c in cands.iter_mut() {
        if single(c).is_some() {
            c.text = half_width(c.text.trim());
        }
    }
    let keys: Vec<Key> = cands
        .iter()
        .enumerate()
        .filter_map(|(i, c)| key_of(i, c))
        .collect();
    let renamed: Vec<(usize, char)> = keys
        .iter()
        .filter_map(|&(i, ch)| ch.map(|ch| (i, ch)))
        .filter_map(|(i, ch)| {
            let row = mates(&line_of(boxes, &keys, i, ch, Line::Row), i);
            if row.digits + row.letters >= MIN_MATES {
                return settled(ch, &row).map(|t| (i, t));
            }
            let column = mates(&line_of(boxes, &keys, i, ch, Line::Column), i);
            settled(ch, &row)
                .or_else(|| settled(ch, &column))
                .map(|t| (i, t))
        })
        .collect();
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
            // A keyboard row (each case its own keypad): letters, one read as a digit.
            key("q", 1000.0, 60.0, 20.0),
            key("w", 1040.0, 60.0, 20.0),
            key("0", 1080.0, 60.0, 20.0),
            key("p", 1120.0, 60.0, 20.0),
            // A row of one letter beside a digit is left alone (too few mates).
            key("S", 2000.0, 120.0, 20.0),
            key("4", 2040.0, 120.0, 20.0),
            // Two keypads side by side: a digit pad, then after a wide gap a letter pad.
            key("-", 3000.0, 180.0, 20.0),
            key("5", 3040.0, 180.0, 20.0),
            key("H", 3160.0, 180.0, 20.0),
            key("S", 3200.0, 180.0, 20.0),
            key("T", 3240.0, 180.0, 20.0),
            // An `x` among digits and operators is the times sign; among letters a letter.
            key("9", 4000.0, 240.0, 20.0),
            key("x", 4040.0, 240.0, 20.0),
            key("+", 4080.0, 240.0, 20.0),
            key("X", 4120.0, 243.0, 13.0),
            // Look-alikes veto nothing: `o` and `x` among digits are `0` and `×`.
            key("o", 5000.0, 360.0, 20.0),
            key("x", 5040.0, 363.0, 13.0),
            key("2", 5080.0, 360.0, 20.0),
            key("9", 5120.0, 360.0, 20.0),
            // A calculator row of one digit and operators.
            key("=", 7000.0, 360.0, 20.0),
            key("9", 7040.0, 360.0, 20.0),
            key("o", 7080.0, 361.0, 18.0),
            key(".", 7120.0, 375.0, 4.0),
            key("z", 6000.0, 300.0, 20.0),
            key("x", 6040.0, 300.0, 20.0),
            key("c", 6080.0, 300.0, 20.0),
        ];
        settle(&mut c);
        assert_eq!(
            texts(&c),
            [
                "7", "8", "0", "5", "q", "w", "o", "p", "S", "4", "-", "5", "H", "S", "T", "9",
                "×", "+", "×", "0", "×", "2", "9", "=", "9", "0", ".", "z", "x", "c"
            ]
        );
    }

    #[test]
    fn a_key_its_row_cannot_settle_takes_the_kind_of_its_column() {
        // A keypad two keys wide: `o` has one digit beside it, three above and below.
        let mut c = vec![
            key("7", 0.0, 0.0, 20.0),
            key("8", 40.0, 0.0, 20.0),
            key("4", 0.0, 40.0, 20.0),
            key("5", 40.0, 40.0, 20.0),
            key("o", 0.0, 81.0, 18.0),
            key("2", 40.0, 80.0, 20.0),
            key("1", 0.0, 120.0, 20.0),
            key("3", 40.0, 120.0, 20.0),
        ];
        settle(&mut c);
        assert_eq!(texts(&c), ["7", "8", "4", "5", "0", "2", "1", "3"]);
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
