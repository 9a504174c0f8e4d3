//! Operator glyphs told by their shape, where a text recognizer guesses: `÷` (a bar with a dot
//! above and one below, which the recognizer reads as `+` or nothing), `=` (two stacked bars),
//! a lone `.` or `-` (read as `:`, `.` or nothing once the crop is grown to key height), `/`
//! (read as `1` or nothing), and `×` against
//! the letter `x` (the same strokes; typography tells them apart: a letter stands on the
//! baseline its row's digits and capitals stand on, the sign is centred on the math axis,
//! above it).
//!
//! Parts are the 8-connected components of the glyph's ink: pixels whose luma differs from
//! the glyph box's border (its background, the median of the box grown by 2 px's edge row
//! and column) by more than [`INK_DELTA`], or by more than half the strongest pixel's
//! difference where that is lower (faint thin strokes; never below [`INK_DELTA_MIN`]). All in
//! device px.

use image::RgbImage;

use crate::geometry::Rect;
use crate::glyphs::{components, luma_of_px, Comp};

/// Luma difference from the background above which a pixel is ink (0..=255): anti-aliased
/// strokes of 11 px text on a coloured key keep their cores above it.
pub const INK_DELTA: i32 = 70;

/// Lowest ink threshold: where the glyph's strongest pixel differs from the background by
/// less than 2 × [`INK_DELTA`] (a 1 px stroke of a 12 px font, anti-aliased across two
/// pixels, peaks near 90 on a coloured key), the threshold is half that peak, down to this.
pub const INK_DELTA_MIN: i32 = 35;

/// A part is a bar when at least this many times as wide as tall.
const BAR_ASPECT: f64 = 2.0;

/// Luma of every pixel of `r` (clipped to the image), row by row; `(w, h, luma)`.
fn luma_of(img: &RgbImage, r: &Rect) -> (usize, usize, Vec<i32>) {
    let (iw, ih) = img.dimensions();
    let x0 = r.x.floor().clamp(0.0, f64::from(iw)) as u32;
    let y0 = r.y.floor().clamp(0.0, f64::from(ih)) as u32;
    let x1 = r.right().ceil().clamp(0.0, f64::from(iw)) as u32;
    let y1 = r.bottom().ceil().clamp(0.0, f64::from(ih)) as u32;
    let (w, h) = (
        x1.saturating_sub(x0) as usize,
        y1.saturating_sub(y0) as usize,
    );
    let mut luma = Vec::with_capacity(w * h);
    for y in y0..y1 {
        for x in x0..x1 {
            luma.push(luma_of_px(&img.get_pixel(x, y).0));
        }
    }
    (w, h, luma)
}

/// The ink of glyph box `g` grown by 2 px: its mask (row by row, `w` wide) and its parts,
/// top to bottom; parts touching the grown box's edge (a key's outline) are left out.
struct Ink {
    mask: Vec<bool>,
    w: usize,
    parts: Vec<Comp>,
}

/// How dark (or light) a pixel must be to be ink.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Cut {
    /// [`INK_DELTA`], or half the peak where that is lower (module docs).
    Usual,
    /// [`STRICT_SHARE`] × the peak: only the cores of strokes.
    Strict,
}

/// Share of the peak contrast a pixel needs under [`Cut::Strict`]: a small font's `÷` dot
/// sits one anti-aliased pixel (36–86 off the background, against a peak of 154) from its
/// bar and joins it under the usual cut.
pub const STRICT_SHARE: f64 = 0.6;

fn ink_of(img: &RgbImage, g: &Rect, cut: Cut) -> Ink {
    let grown = g.grown(2.0);
    let (w, h, luma) = luma_of(img, &grown);
    if w < 3 || h < 3 {
        return Ink {
            mask: Vec::new(),
            w,
            parts: Vec::new(),
        };
    }
    let mut border: Vec<i32> = (0..w)
        .flat_map(|x| [luma[x], luma[(h - 1) * w + x]])
        .chain((0..h).flat_map(|y| [luma[y * w], luma[y * w + w - 1]]))
        .collect();
    border.sort_unstable();
    let bg = border[border.len() / 2];
    let peak = luma.iter().map(|l| (l - bg).abs()).max().unwrap_or(0);
    let delta = match cut {
        Cut::Usual => INK_DELTA.min(peak / 2).max(INK_DELTA_MIN),
        Cut::Strict => (STRICT_SHARE * f64::from(peak)) as i32,
    };
    let mask: Vec<bool> = luma.iter().map(|l| (l - bg).abs() > delta).collect();
    let mut parts: Vec<Comp> = components(&mask, w)
        .into_iter()
        .filter(|c| c.x0 > 0 && c.y0 > 0 && c.x1 + 1 < w && c.y1 + 1 < h)
        .collect();
    parts.sort_by_key(|c| c.y0);
    Ink { mask, w, parts }
}

fn parts(img: &RgbImage, g: &Rect) -> Vec<Comp> {
    ink_of(img, g, Cut::Usual).parts
}

/// Mean x of the ink of part `c`'s rows `rows` (part-relative), and the width of that ink.
fn ink_span(ink: &Ink, c: &Comp, rows: std::ops::Range<usize>) -> Option<(f64, usize)> {
    let (mut sum, mut n, mut lo, mut hi) = (0usize, 0usize, usize::MAX, 0usize);
    for y in rows.map(|r| c.y0 + r) {
        for x in c.x0..=c.x1 {
            if ink.mask[y * ink.w + x] {
                (sum, n, lo, hi) = (sum + x, n + 1, lo.min(x), hi.max(x));
            }
        }
    }
    (n > 0).then(|| (sum as f64 / n as f64, hi - lo + 1))
}

/// Whether part `c` is a slash: taller than wide (0.2–0.9 of its height), the ink of its top
/// fifth and of its bottom fifth each at most half its width, the top's right of the
/// bottom's by at least 40% of its width (a `1` stands straight; a `7`'s top is its width).
fn is_slash(ink: &Ink, c: &Comp) -> bool {
    let (w, h) = (c.w() as f64, c.h() as f64);
    let band = (c.h() / 5).max(1);
    if !(0.2 * h..=0.9 * h).contains(&w) || c.h() < 6 {
        return false;
    }
    let (Some((top, tw)), Some((bottom, bw))) = (
        ink_span(ink, c, 0..band),
        ink_span(ink, c, c.h() - band..c.h()),
    ) else {
        return false;
    };
    tw as f64 <= 0.5 * w && bw as f64 <= 0.5 * w && top - bottom >= 0.4 * w
}

/// Whether `outer` holding `dot` is a monospace font's dotted zero: the ring taller than wide
/// (0.4–0.85 of its height wide: a round key's outline is as wide as tall), the dot 12–40% of
/// its height and centred in it (within 15% of its sides).
fn is_dotted_zero(outer: &Comp, dot: &Comp) -> bool {
    let (w, h) = (outer.w() as f64, outer.h() as f64);
    let held = dot.x0 > outer.x0 && dot.x1 < outer.x1 && dot.y0 > outer.y0 && dot.y1 < outer.y1;
    let dx = (dot.x0 + dot.x1) as f64 / 2.0 - (outer.x0 + outer.x1) as f64 / 2.0;
    let dy = (dot.y0 + dot.y1) as f64 / 2.0 - (outer.y0 + outer.y1) as f64 / 2.0;
    held && (0.4 * h..=0.85 * h).contains(&w)
        && (0.12 * h..=0.4 * h).contains(&(dot.h() as f64))
        && dx.abs() <= 0.15 * w
        && dy.abs() <= 0.15 * h
}

fn is_bar(c: &Comp) -> bool {
    c.w() as f64 >= BAR_ASPECT * c.h() as f64
}

/// Whether `a` is a dot over (or under) bar `bar`: no wider than half the bar (a small
/// font's dot may be 2 × 1 px, a bar by its aspect), its centre within a fifth of the bar's
/// width of the bar's centre.
fn dot_on(a: &Comp, bar: &Comp) -> bool {
    let centre = |c: &Comp| (c.x0 + c.x1) as f64 / 2.0;
    a.w() as f64 <= 0.5 * bar.w() as f64 && (centre(a) - centre(bar)).abs() <= 0.2 * bar.w() as f64
}

/// The key glyph box `g` of `img` draws by its shape alone, if any: `÷`, `=`, `/`, a dotted
/// `0` (a ring around a centred dot, which the recognizer reads as nothing), and
/// for one part of ink less than `small_h` px tall, `-` (a bar at least 0.6 × `small_h` wide)
/// or `.` (round, also less than `small_h` wide). A `÷` whose dot joins its bar under the
/// usual cut is looked for again under [`Cut::Strict`] (only `÷`: a `+` whose stem is faint
/// would lose it there and pass for `-`).
pub fn operator_by_shape(img: &RgbImage, g: &Rect, small_h: f64) -> Option<&'static str> {
    let ink = ink_of(img, g, Cut::Usual);
    by_parts(&ink, small_h).or_else(|| {
        let strict = ink_of(img, g, Cut::Strict);
        is_division(&strict.parts).then_some("÷")
    })
}

/// Whether `parts` (top to bottom) are a bar with a dot centred above and one below, apart.
fn is_division(parts: &[Comp]) -> bool {
    match parts {
        [top, bar, bottom] => {
            is_bar(bar)
                && dot_on(top, bar)
                && dot_on(bottom, bar)
                && top.y1 < bar.y0
                && bar.y1 < bottom.y0
        }
        _ => false,
    }
}

/// [`operator_by_shape`] on the parts of `ink`.
fn by_parts(ink: &Ink, small_h: f64) -> Option<&'static str> {
    match ink.parts.as_slice() {
        p if is_division(p) => Some("÷"),
        [a, b] if is_bar(a) && is_bar(b) => {
            let (wa, wb) = (a.w() as f64, b.w() as f64);
            let aligned = (a.x0 as f64 - b.x0 as f64).abs() <= 0.25 * wa.max(wb);
            (a.y1 < b.y0 && aligned && wa.min(wb) >= 0.7 * wa.max(wb)).then_some("=")
        }
        [outer, dot] if is_dotted_zero(outer, dot) => Some("0"),
        [bar] if is_bar(bar) && (bar.h() as f64) < small_h && bar.w() as f64 >= 0.6 * small_h => {
            Some("-")
        }
        [slash] if is_slash(ink, slash) => Some("/"),
        [dot] if (dot.h() as f64) < small_h && (dot.w() as f64) < small_h => {
            let aspect = dot.w() as f64 / dot.h() as f64;
            (0.5..=2.0).contains(&aspect).then_some(".")
        }
        _ => None,
    }
}

/// The tight box of the ink inside `r` of `img` (device px): the union of its ink parts.
pub fn ink_box(img: &RgbImage, r: &Rect) -> Option<Rect> {
    let p = parts(img, r);
    let x0 = p.iter().map(|c| c.x0).min()?;
    let y0 = p.iter().map(|c| c.y0).min()?;
    let x1 = p.iter().map(|c| c.x1).max()?;
    let y1 = p.iter().map(|c| c.y1).max()?;
    let (gx, gy) = (r.x.floor() - 2.0, r.y.floor() - 2.0);
    Some(Rect::new(
        gx + x0 as f64,
        gy + y0 as f64,
        (x1 - x0 + 1) as f64,
        (y1 - y0 + 1) as f64,
    ))
}

/// The baseline of `row` (ink boxes of glyphs on one row): the bottom most of them share,
/// within `tol` px (letters without descenders, digits and capitals all stand on it).
fn baseline(row: &[&Rect], tol: f64) -> Option<f64> {
    row.iter()
        .map(|r| {
            let n = row
                .iter()
                .filter(|o| (o.bottom() - r.bottom()).abs() <= tol)
                .count();
            (n, r.bottom())
        })
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)))
        .map(|(_, b)| b)
}

/// Whether ink box `x`, read as the letter `x`, is the sign `×` by where it stands among
/// `row` (ink boxes of the other glyphs read, any row; those overlapping `x` vertically and at
/// least half of `typical_h` tall are its row): its bottom is above the row's baseline
/// ([`baseline`]) by more than 8% of `typical_h`, and its centre is within 15% of `typical_h`
/// of the median centre of the row's glyphs at least 0.8 × `typical_h` tall standing on that
/// baseline (digits, capitals). `false` when the row has no such glyph to measure against.
pub fn is_times_sign(x: &Rect, row: &[Rect], typical_h: f64) -> bool {
    if typical_h <= 0.0 {
        return false;
    }
    let tol = (0.06 * typical_h).max(1.0);
    let mates: Vec<&Rect> = row
        .iter()
        .filter(|r| r.h >= 0.5 * typical_h && r.y < x.bottom() && x.y < r.bottom())
        .collect();
    let Some(base) = baseline(&mates, tol) else {
        return false;
    };
    let mut centres: Vec<f64> = mates
        .iter()
        .filter(|r| r.h >= 0.8 * typical_h && (r.bottom() - base).abs() <= tol)
        .map(|r| r.y + r.h / 2.0)
        .collect();
    if centres.is_empty() {
        return false;
    }
    centres.sort_by(f64::total_cmp);
    let centre = centres[centres.len() / 2];
    base - x.bottom() > 0.08 * typical_h && ((x.y + x.h / 2.0) - centre).abs() <= 0.15 * typical_h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canvas() -> RgbImage {
        RgbImage::from_pixel(60, 60, image::Rgb([240, 240, 240]))
    }

    fn fill(img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32) {
        for yy in y..y + h {
            for xx in x..x + w {
                img.put_pixel(xx, yy, image::Rgb([20, 20, 20]));
            }
        }
    }

    #[test]
    fn a_bar_between_two_dots_is_a_division_sign() {
        let mut img = canvas();
        fill(&mut img, 28, 18, 3, 3);
        fill(&mut img, 22, 25, 15, 2);
        fill(&mut img, 28, 31, 3, 3);
        let g = Rect::new(22.0, 18.0, 15.0, 16.0);
        assert_eq!(operator_by_shape(&img, &g, 8.0), Some("÷"));
        // The same strokes with the dots off to one side are not.
        let mut off = canvas();
        fill(&mut off, 22, 18, 3, 3);
        fill(&mut off, 22, 25, 15, 2);
        fill(&mut off, 34, 31, 3, 3);
        assert_eq!(operator_by_shape(&off, &g, 8.0), None);
        // A small font's: dots of 2 × 1 px over a 6 px bar.
        let mut small = canvas();
        fill(&mut small, 26, 20, 2, 1);
        fill(&mut small, 24, 23, 6, 1);
        fill(&mut small, 26, 26, 2, 1);
        let g = Rect::new(24.0, 20.0, 6.0, 7.0);
        assert_eq!(operator_by_shape(&small, &g, 4.0), Some("÷"));
        // A 13 px one on a blue key: each dot joined to the bar by an anti-aliased pixel.
        let mut joined = RgbImage::from_pixel(40, 40, image::Rgb([100, 100, 100]));
        let px = |img: &mut RgbImage, x: u32, y: u32, d: u8| {
            img.put_pixel(x, y, image::Rgb([100 + d, 100 + d, 100 + d]))
        };
        px(&mut joined, 20, 15, 131);
        px(&mut joined, 20, 16, 73);
        for x in 17..25 {
            px(&mut joined, x, 17, 154);
        }
        px(&mut joined, 20, 19, 41);
        px(&mut joined, 20, 20, 131);
        px(&mut joined, 20, 21, 41);
        let g = Rect::new(17.0, 15.0, 8.0, 7.0);
        assert_eq!(operator_by_shape(&joined, &g, 4.0), Some("÷"));
    }

    #[test]
    fn two_stacked_bars_are_equals_and_a_lone_small_dot_is_a_point() {
        let mut img = canvas();
        fill(&mut img, 20, 22, 16, 2);
        fill(&mut img, 20, 29, 16, 2);
        assert_eq!(
            operator_by_shape(&img, &Rect::new(20.0, 22.0, 16.0, 9.0), 8.0),
            Some("=")
        );
        let mut dot = canvas();
        fill(&mut dot, 30, 30, 3, 3);
        assert_eq!(
            operator_by_shape(&dot, &Rect::new(30.0, 30.0, 3.0, 3.0), 8.0),
            Some(".")
        );
        let mut bar = canvas();
        fill(&mut bar, 24, 30, 9, 2);
        assert_eq!(
            operator_by_shape(&bar, &Rect::new(24.0, 30.0, 9.0, 2.0), 8.0),
            Some("-")
        );
        let mut slash = canvas();
        for i in 0..20 {
            fill(&mut slash, 36 - i / 2, 15 + i, 2, 1);
        }
        assert_eq!(
            operator_by_shape(&slash, &Rect::new(26.0, 15.0, 12.0, 20.0), 8.0),
            Some("/")
        );
        // A 12 px serif slash, light on a coloured key: its cores only 80–89 off the
        // background, its steps split across two pixels of 37–63 (a threshold of 70 cut it
        // into three parts).
        let mut faint = RgbImage::from_pixel(40, 40, image::Rgb([100, 100, 100]));
        let steps = [
            (2, 63),
            (2, 89),
            (2, 82),
            (1, 50),
            (2, 40),
            (1, 86),
            (1, 87),
            (0, 37),
            (1, 53),
            (0, 80),
            (0, 89),
        ];
        let mut y = 15;
        for (i, (x, d)) in steps.iter().enumerate() {
            let v = 100 + d;
            faint.put_pixel(20 + x, y, image::Rgb([v, v, v]));
            if i != 3 && i != 7 {
                y += 1;
            }
        }
        assert_eq!(
            operator_by_shape(&faint, &Rect::new(19.0, 14.0, 5.0, 11.0), 3.0),
            Some("/")
        );
        // A ring with a dot in its middle is a monospace zero; a round key around a dot is not.
        let mut zero = canvas();
        fill(&mut zero, 24, 15, 12, 20);
        let mut face = zero.clone();
        for y in 17..33 {
            for x in 26..34 {
                face.put_pixel(x, y, image::Rgb([240, 240, 240]));
            }
        }
        fill(&mut face, 29, 23, 2, 4);
        assert_eq!(
            operator_by_shape(&face, &Rect::new(24.0, 15.0, 12.0, 20.0), 8.0),
            Some("0")
        );
        // A tall single stroke is no operator this reads.
        let mut one = canvas();
        fill(&mut one, 30, 15, 3, 20);
        assert_eq!(
            operator_by_shape(&one, &Rect::new(30.0, 15.0, 3.0, 20.0), 8.0),
            None
        );
    }

    #[test]
    fn an_x_on_the_baseline_is_a_letter_and_one_on_the_axis_a_sign() {
        // Digits 20 px tall standing on y = 40 (their centre at 30), and a `g` hanging below.
        let row = [
            Rect::new(0.0, 20.0, 10.0, 20.0),
            Rect::new(40.0, 20.0, 10.0, 20.0),
            Rect::new(60.0, 26.0, 10.0, 18.0),
        ];
        let letter = Rect::new(20.0, 26.0, 11.0, 14.0);
        assert!(!is_times_sign(&letter, &row, 20.0));
        let sign = Rect::new(20.0, 24.0, 11.0, 12.0);
        assert!(is_times_sign(&sign, &row, 20.0));
        assert!(
            !is_times_sign(&sign, &[], 20.0),
            "nothing to measure against"
        );
    }
}
