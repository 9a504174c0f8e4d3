//! Small isolated glyphs that text detection misses: the one-character keys of keypads,
//! calculators, PIN pads and on-screen keyboards.
//!
//! Why: PP-OCR's detector (DB) finds lines of text; a lone `7` centred on a button is too
//! small and too short for it, so a calculator with no accessibility tree came back with its
//! `DEG` and `sin` keys but not one digit, and `tap "7"` failed. This finds where such glyphs
//! are drawn so the recognizer can read each one by itself ([`crate::pixel`]):
//!
//! 1. luma (BT.601 integer weights) of the area; Sobel `|gx| + |gy|` above
//!    [`GlyphParams::edge_thresh`] marks an edge pixel (no dilation: a glyph stays apart from
//!    the outline of the button it sits on);
//! 2. 8-connected components of the edge map, each with its box;
//! 3. components are dropped when they are rectangle outlines (a button's or a field's
//!    border: ≥ [`OUTLINE_SHARE`] of their pixels within 2 px of their box's edges, both sides
//!    ≥ 12 px), are taller than
//!    [`GlyphParams::max_h_px`] or wider than `max_aspect` × their height, or have their centre
//!    inside a box already read (`exclude`: OCR lines);
//! 4. the rest are grouped: two components join when they overlap vertically (or one sits
//!    above the other, as in `÷`, `=`, `i`, `%`) and the horizontal gap between them is at most
//!    [`GlyphParams::join_gap`] × the taller one's height; each group of height ≥
//!    [`GlyphParams::min_h_px`] is one glyph box (a word of a few letters, like `DEG`, stays
//!    one group too). A component that holds others (a round key's outline around its
//!    glyph; a dotted `0` around its dot) is kept with the group inside it as an alternative
//!    ([`Glyph::alt`]): the recognizer's confidence chooses.
//!
//! Everything in device px; about 10 ms for a 1024×640 area of buttons on one core.

use image::RgbImage;

use crate::geometry::Rect;

/// Share of a component's pixels near its box's edges above which it is a rectangle outline.
pub const OUTLINE_SHARE: f64 = 0.85;

/// Tuning of [`glyph_boxes`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlyphParams {
    /// Sobel `|gx| + |gy|` above which a pixel is an edge (range 0..=2040).
    pub edge_thresh: i32,
    /// Shortest glyph group, px (a `.` or `-` key's glyph alone is shorter; it joins nothing
    /// and is read only when its group passes this).
    pub min_h_px: u32,
    /// Tallest glyph component, px.
    pub max_h_px: u32,
    /// Widest component as a multiple of its height.
    pub max_aspect: f64,
    /// Largest horizontal gap inside a group, as a share of the taller component's height.
    pub join_gap: f64,
}

impl Default for GlyphParams {
    /// Edge threshold 120 (anti-aliased 11 px text on a coloured key still passes), glyphs
    /// 3..=64 px tall (11–48 px fonts at 1×, and a `-` is 2–3 px after Sobel widening),
    /// components at most 6× as wide as tall (a `-` or `=` bar), groups joined across gaps of
    /// 0.45 × height (letter spacing of sans fonts is ≤ 0.2 em; keys sit ≥ 0.8 em apart).
    fn default() -> Self {
        GlyphParams {
            edge_thresh: 120,
            min_h_px: 3,
            max_h_px: 64,
            max_aspect: 6.0,
            join_gap: 0.45,
        }
    }
}

/// One edge component: box (area px, inclusive) and pixel count, and how many of its pixels
/// lie within 2 px of its box's edges.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Comp {
    pub(crate) x0: usize,
    pub(crate) y0: usize,
    pub(crate) x1: usize,
    pub(crate) y1: usize,
    near_edge: usize,
    n: usize,
}

impl Comp {
    pub(crate) fn w(&self) -> usize {
        self.x1 - self.x0 + 1
    }
    pub(crate) fn h(&self) -> usize {
        self.y1 - self.y0 + 1
    }
    fn holds(&self, o: &Comp) -> bool {
        o.x0 >= self.x0 && o.x1 <= self.x1 && o.y0 >= self.y0 && o.y1 <= self.y1
    }
    fn is_outline(&self) -> bool {
        self.w() >= 12 && self.h() >= 12 && self.near_edge as f64 >= OUTLINE_SHARE * self.n as f64
    }
}

/// Luma of one RGB pixel (BT.601 integer weights), 0..=255; also [`crate::glyph_shape`]'s.
pub(crate) fn luma_of_px(px: &[u8]) -> i32 {
    (299 * i32::from(px[0]) + 587 * i32::from(px[1]) + 114 * i32::from(px[2])) / 1000
}

/// Sobel edge map of `area` (w × h px at x0, y0 in `img`): `true` where the luma gradient's
/// |gx| + |gy| exceeds `t` (the one-pixel border stays `false`). Also the edge pass of
/// [`crate::vision`].
pub(crate) fn edges(
    img: &RgbImage,
    (x0, y0, w, h): (usize, usize, usize, usize),
    t: i32,
) -> Vec<bool> {
    let raw = img.as_raw();
    let stride = img.width() as usize * 3;
    let mut luma = vec![0i32; w * h];
    for y in 0..h {
        let row = &raw[(y0 + y) * stride + x0 * 3..(y0 + y) * stride + (x0 + w) * 3];
        for (x, px) in row.chunks_exact(3).enumerate() {
            luma[y * w + x] = luma_of_px(px);
        }
    }
    let mut edge = vec![false; w * h];
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let l = |dx: usize, dy: usize| luma[(y + dy - 1) * w + (x + dx - 1)];
            let gx = (l(2, 0) + 2 * l(2, 1) + l(2, 2)) - (l(0, 0) + 2 * l(0, 1) + l(0, 2));
            let gy = (l(0, 2) + 2 * l(1, 2) + l(2, 2)) - (l(0, 0) + 2 * l(1, 0) + l(2, 0));
            edge[y * w + x] = gx.abs() + gy.abs() > t;
        }
    }
    edge
}

/// 8-connected components of `edge` (w wide); also of a glyph's ink
/// ([`crate::glyph_shape`]).
pub(crate) fn components(edge: &[bool], w: usize) -> Vec<Comp> {
    let h = edge.len() / w.max(1);
    let mut seen = vec![false; edge.len()];
    let (mut out, mut stack, mut pixels) = (Vec::new(), Vec::new(), Vec::new());
    for start in 0..edge.len() {
        if !edge[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        pixels.clear();
        while let Some(i) = stack.pop() {
            pixels.push(i);
            let (x, y) = (i % w, i / w);
            for yy in y.saturating_sub(1)..(y + 2).min(h) {
                for xx in x.saturating_sub(1)..(x + 2).min(w) {
                    let j = yy * w + xx;
                    if edge[j] && !seen[j] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        let xs = pixels.iter().map(|i| i % w);
        let (x0, x1) = (xs.clone().min().unwrap_or(0), xs.max().unwrap_or(0));
        let ys = pixels.iter().map(|i| i / w);
        let (y0, y1) = (ys.clone().min().unwrap_or(0), ys.max().unwrap_or(0));
        let near_edge = pixels
            .iter()
            .filter(|&&i| {
                let (x, y) = (i % w, i / w);
                x <= x0 + 2 || x + 2 >= x1 || y <= y0 + 2 || y + 2 >= y1
            })
            .count();
        out.push(Comp {
            x0,
            y0,
            x1,
            y1,
            near_edge,
            n: pixels.len(),
        });
    }
    out
}

/// Joins components into glyph groups (see the module docs); boxes in area px.
fn group(comps: &[Comp], p: &GlyphParams) -> Vec<Comp> {
    let mut groups: Vec<Comp> = comps.to_vec();
    let close = |a: &Comp, b: &Comp| {
        let gap_x = a.x0.max(b.x0) as f64 - a.x1.min(b.x1) as f64 - 1.0;
        let over_y = a.y1.min(b.y1) as f64 - a.y0.max(b.y0) as f64 + 1.0;
        let tall = a.h().max(b.h()) as f64;
        let over_x = -gap_x;
        // Stacked parts: the gap is measured against the larger side of the larger part, so
        // the flat bars of `=` and `÷` (2 px tall, 4 px apart) stay one glyph.
        let size = tall.max(a.w().max(b.w()) as f64);
        let stacked = over_x > 0.0 && (a.y0.max(b.y0) as f64 - a.y1.min(b.y1) as f64) < 0.6 * size;
        (over_y > 0.0 && gap_x <= p.join_gap * tall) || stacked
    };
    loop {
        let mut merged = false;
        let mut i = 0;
        while i < groups.len() {
            let mut j = i + 1;
            while j < groups.len() {
                if close(&groups[i], &groups[j]) {
                    let b = groups.swap_remove(j);
                    let a = &mut groups[i];
                    (a.x0, a.y0) = (a.x0.min(b.x0), a.y0.min(b.y0));
                    (a.x1, a.y1) = (a.x1.max(b.x1), a.y1.max(b.y1));
                    a.n += b.n;
                    merged = true;
                } else {
                    j += 1;
                }
            }
            i += 1;
        }
        if !merged {
            return groups;
        }
    }
}

/// One place a glyph may be drawn: its box and, for a component that holds others, the box
/// of what it holds — either may be the glyph (a round key around a `7`; a `0` around its
/// dot), the recognizer decides. Full-image px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Glyph {
    /// The group's (or container's) box.
    pub rect: Rect,
    /// The box of the groups a container holds.
    pub alt: Option<Rect>,
}

/// Isolated glyph groups inside `area` (device px) of `img` whose centres lie in none of
/// `exclude` (device px); full-image px, top to bottom, left to right.
pub fn glyph_boxes(img: &RgbImage, area: &Rect, exclude: &[Rect], p: &GlyphParams) -> Vec<Glyph> {
    let (iw, ih) = img.dimensions();
    let x0 = area.x.floor().clamp(0.0, f64::from(iw)) as usize;
    let y0 = area.y.floor().clamp(0.0, f64::from(ih)) as usize;
    let x1 = area.right().ceil().clamp(0.0, f64::from(iw)) as usize;
    let y1 = area.bottom().ceil().clamp(0.0, f64::from(ih)) as usize;
    let (w, h) = (x1.saturating_sub(x0), y1.saturating_sub(y0));
    if w < 3 || h < 3 {
        return Vec::new();
    }
    let comps = components(&edges(img, (x0, y0, w, h), p.edge_thresh), w);
    let centre_known = |c: &Comp| {
        let cx = (x0 + c.x0) as f64 + c.w() as f64 / 2.0;
        let cy = (y0 + c.y0) as f64 + c.h() as f64 / 2.0;
        exclude
            .iter()
            .any(|r| cx >= r.x && cx <= r.right() && cy >= r.y && cy <= r.bottom())
    };
    let open: Vec<Comp> = comps
        .iter()
        .filter(|c| !c.is_outline() && !centre_known(c))
        .copied()
        .collect();
    let to_rect = |g: &Comp| {
        Rect::new(
            (x0 + g.x0) as f64,
            (y0 + g.y0) as f64,
            g.w() as f64,
            g.h() as f64,
        )
    };
    let mut out: Vec<Glyph> = choose(&open, p)
        .iter()
        .map(|(g, alt)| Glyph {
            rect: to_rect(g),
            alt: alt.as_ref().map(to_rect),
        })
        .collect();
    out.sort_by(|a, b| {
        a.rect
            .y
            .total_cmp(&b.rect.y)
            .then(a.rect.x.total_cmp(&b.rect.x))
    });
    out
}

/// Glyph groups of the `open` components (area px): leaves grouped; a component holding
/// others (a round key around its glyph, or a `0` around its dot) is returned with the group
/// inside it as the alternative.
fn choose(open: &[Comp], p: &GlyphParams) -> Vec<(Comp, Option<Comp>)> {
    let sized =
        |c: &&Comp| c.h() as u32 <= p.max_h_px && c.w() as f64 <= p.max_aspect * c.h() as f64;
    let holds_any = |c: &Comp| open.iter().any(|o| !std::ptr::eq(c, o) && c.holds(o));
    let leaves: Vec<Comp> = open
        .iter()
        .filter(sized)
        .filter(|c| !holds_any(c))
        .copied()
        .collect();
    let containers: Vec<Comp> = open
        .iter()
        .filter(sized)
        .filter(|c| holds_any(c))
        .copied()
        .collect();
    let ok = |g: &Comp| g.h() as u32 >= p.min_h_px && g.h() as u32 <= p.max_h_px;
    let mut out: Vec<(Comp, Option<Comp>)> = Vec::new();
    let mut groups: Vec<Comp> = group(&leaves, p).into_iter().filter(ok).collect();
    for c in containers {
        let inner: Vec<Comp> = groups.iter().filter(|g| c.holds(g)).copied().collect();
        groups.retain(|g| !c.holds(g));
        let alt = inner.into_iter().reduce(|mut a, b| {
            (a.x0, a.y0) = (a.x0.min(b.x0), a.y0.min(b.y0));
            (a.x1, a.y1) = (a.x1.max(b.x1), a.y1.max(b.y1));
            a
        });
        out.push((c, alt));
    }
    out.extend(groups.into_iter().map(|g| (g, None)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, c: [u8; 3]) {
        for yy in y..y + h {
            for xx in x..x + w {
                img.put_pixel(xx, yy, image::Rgb(c));
            }
        }
    }

    #[test]
    fn a_glyph_on_a_key_is_found_and_the_key_outline_is_not() {
        let mut img = RgbImage::from_pixel(200, 100, image::Rgb([255, 255, 255]));
        fill(&mut img, 20, 20, 50, 50, [60, 60, 60]); // key border, 1 px
        fill(&mut img, 21, 21, 48, 48, [230, 230, 230]); // key face
        fill(&mut img, 42, 35, 4, 20, [0, 0, 0]); // a "1"
        fill(&mut img, 120, 30, 3, 3, [0, 0, 0]); // a speck: a box too (the recognizer decides)
        let all = Rect::new(0.0, 0.0, 200.0, 100.0);
        let b = glyph_boxes(&img, &all, &[], &GlyphParams::default());
        assert_eq!(b.len(), 2, "{b:?}");
        let key = b.iter().find(|g| g.rect.x < 100.0).expect("the 1");
        let r = key.rect;
        assert!(r.x >= 40.0 && r.right() <= 48.0 && r.h >= 20.0, "{b:?}");
        assert_eq!(key.alt, None);
        let known = glyph_boxes(
            &img,
            &all,
            &[Rect::new(40.0, 30.0, 10.0, 30.0)],
            &GlyphParams::default(),
        );
        assert!(known.iter().all(|g| g.rect.x > 100.0), "{known:?}");
    }

    #[test]
    fn a_thick_key_outline_holds_its_glyph_as_the_alternative() {
        let mut img = RgbImage::from_pixel(120, 100, image::Rgb([255, 255, 255]));
        fill(&mut img, 20, 20, 50, 50, [60, 60, 60]); // key border, 2 px
        fill(&mut img, 22, 22, 46, 46, [230, 230, 230]);
        fill(&mut img, 42, 35, 4, 20, [0, 0, 0]);
        let b = glyph_boxes(
            &img,
            &Rect::new(0.0, 0.0, 120.0, 100.0),
            &[],
            &GlyphParams::default(),
        );
        assert_eq!(b.len(), 1, "{b:?}");
        let alt = b[0].alt.expect("the glyph inside");
        assert!(
            alt.x >= 40.0 && alt.right() <= 48.0 && alt.h >= 20.0,
            "{b:?}"
        );
        assert!(b[0].rect.w >= 50.0, "{b:?}");
    }
}
