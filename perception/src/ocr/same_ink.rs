//! Crops that show the same ink are read once: a screen repeats itself (a terminal's
//! permission and owner columns, a table's units, a list's "Edit" buttons, a calendar's
//! weekdays), and the recognizer is the pixel channel's largest cost — on a 1280×800 terminal
//! listing of `ls -la`, 82 of 161 text boxes repeat another's ink, 46% of recognition input.
//!
//! Two crops are the same when the tight box of their ink (pixels more than [`INK_DELTA`] away
//! from the crop's background, the most frequent colour on its border) has the same size and
//! the same pixels, on the same background colour. Detection boxes the same word a pixel or
//! two differently, so whole crops rarely match; the ink does. Everything outside the ink box
//! is within [`INK_DELTA`] of one background colour, so what the recognizer sees differs only
//! in how much of that margin surrounds the ink. A crop with no ink, or with the ink of a lone
//! glyph ([`MIN_INK_ASPECT`]), has no key and is read on its own. This is within one call
//! only: nothing is remembered between frames.

use std::collections::HashMap;

use image::RgbImage;

/// Largest per-channel difference (0..=255) from the background that is still background
/// (the same threshold as [`crate::ink::InkParams`]'s default).
pub const INK_DELTA: u8 = 24;

/// Ink narrower than this many times its height (a lone glyph or two: a key, a day number)
/// has no key and is always read on its own. A lone glyph's reading depends on the margin
/// around it, so two readings of the same key are two chances, and the keypad pass settles
/// each key by its own reading: sharing them lost 4 of 1,045 keys on the keypad set's
/// `tune_more` part (a `%` read as nothing, a `0` as `o`, twice instead of once). Such crops
/// are short and cheap to read.
pub const MIN_INK_ASPECT: u32 = 2;

/// For each crop, the index of the first crop with the same ink ([`ink_key`]); a crop without
/// ink, or the first of its kind, maps to itself.
pub fn first_of_kind(crops: &[RgbImage]) -> Vec<usize> {
    let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
    crops
        .iter()
        .enumerate()
        .map(|(i, c)| match ink_key(c) {
            Some(k) => *seen.entry(k).or_insert(i),
            None => i,
        })
        .collect()
}

/// The crop's ink as a key: the background colour (3 bytes), width and height of the tight
/// ink box (4 bytes each, little endian), then its RGB pixels row by row. `None` when the crop
/// has no ink or its ink is narrower than [`MIN_INK_ASPECT`] × its height.
pub fn ink_key(crop: &RgbImage) -> Option<Vec<u8>> {
    let bg = border_mode(crop)?;
    let (w, h) = crop.dimensions();
    let ink = |x: u32, y: u32| {
        let p = crop.get_pixel(x, y).0;
        (0..3).any(|c| p[c].abs_diff(bg[c]) > INK_DELTA)
    };
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for y in 0..h {
        for x in 0..w {
            if ink(x, y) {
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
        }
    }
    if x0 > x1 || y0 > y1 {
        return None;
    }
    let (iw, ih) = (x1 - x0 + 1, y1 - y0 + 1);
    if iw < MIN_INK_ASPECT * ih {
        return None;
    }
    let mut key = Vec::with_capacity(11 + (iw * ih * 3) as usize);
    key.extend_from_slice(&bg);
    key.extend_from_slice(&iw.to_le_bytes());
    key.extend_from_slice(&ih.to_le_bytes());
    let raw = crop.as_raw();
    let stride = w as usize * 3;
    for y in y0..=y1 {
        let row = y as usize * stride;
        key.extend_from_slice(&raw[row + x0 as usize * 3..row + (x1 as usize + 1) * 3]);
    }
    Some(key)
}

/// The most frequent colour on the crop's border (exact RGB); `None` for an empty crop.
fn border_mode(crop: &RgbImage) -> Option<[u8; 3]> {
    let (w, h) = crop.dimensions();
    if w == 0 || h == 0 {
        return None;
    }
    let mut counts: HashMap<[u8; 3], u32> = HashMap::new();
    let mut add = |x: u32, y: u32| *counts.entry(crop.get_pixel(x, y).0).or_insert(0) += 1;
    for x in 0..w {
        add(x, 0);
        add(x, h - 1);
    }
    for y in 1..h.saturating_sub(1) {
        add(0, y);
        add(w - 1, y);
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `w`×`h` white crop with a black bar at `(x, y)`, 6×2 px.
    fn crop(w: u32, h: u32, x: u32, y: u32) -> RgbImage {
        let mut c = RgbImage::from_pixel(w, h, image::Rgb([255, 255, 255]));
        for dy in 0..2 {
            for dx in 0..6 {
                c.put_pixel(x + dx, y + dy, image::Rgb([0, 0, 0]));
            }
        }
        c
    }

    #[test]
    fn same_ink_at_other_margins_is_one_kind() {
        let crops = [crop(10, 8, 2, 2), crop(12, 9, 5, 4), crop(10, 8, 2, 2)];
        assert_eq!(first_of_kind(&crops), vec![0, 0, 0]);
    }

    #[test]
    fn a_lone_glyph_is_read_on_its_own() {
        let mut dot = RgbImage::from_pixel(10, 8, image::Rgb([255, 255, 255]));
        dot.put_pixel(4, 4, image::Rgb([0, 0, 0]));
        dot.put_pixel(5, 4, image::Rgb([0, 0, 0]));
        dot.put_pixel(4, 3, image::Rgb([0, 0, 0]));
        assert_eq!(ink_key(&dot), None);
        assert_eq!(first_of_kind(&[dot.clone(), dot]), vec![0, 1]);
    }

    #[test]
    fn other_ink_or_none_stays_apart() {
        let mut grey = crop(10, 8, 2, 2);
        grey.put_pixel(2, 2, image::Rgb([100, 100, 100]));
        let blank = RgbImage::from_pixel(10, 8, image::Rgb([255, 255, 255]));
        let crops = [crop(10, 8, 2, 2), grey, blank.clone(), blank];
        assert_eq!(first_of_kind(&crops), vec![0, 1, 2, 3]);
    }

    #[test]
    fn another_background_is_another_kind() {
        let mut dark = RgbImage::from_pixel(10, 8, image::Rgb([0, 0, 80]));
        for dy in 0..2 {
            for dx in 0..6 {
                dark.put_pixel(2 + dx, 2 + dy, image::Rgb([0, 0, 0]));
            }
        }
        // the same bar, so the same pixels in its ink box, on another background
        let crops = [crop(10, 8, 2, 2), dark];
        let kinds = first_of_kind(&crops);
        assert_eq!(kinds, vec![0, 1]);
    }
}
