//! Set-of-Mark image: the screenshot with every element's box outlined and its id (`e12`)
//! drawn on a filled label at the box's top-left corner, coloured by role — the visual prompt
//! of Yang et al., "Set-of-Mark Prompting Unleashes Extraordinary Visual Grounding in GPT-4V"
//! (2023). Boxes are the elements' `bbox_px` (device px), so the image lines up with the
//! screenshot it is drawn on.
//!
//! Glyphs come from a built-in 5×7 bitmap font covering what ids use (`e`, `0`–`9`); each
//! glyph is rasterised once per scale and cached in the [`SomRenderer`], which a worker keeps
//! across frames.

use std::collections::HashMap;

use image::{Rgb, RgbImage};

use crate::observation::Observation;
use crate::role::Role;

/// Outline thickness, device px (before scale).
const LINE_PX: u32 = 2;
/// Padding around the label text, device px (before scale).
const PAD_PX: u32 = 2;

/// 5×7 glyphs, one byte per row, the 5 low bits left to right.
fn glyph_rows(c: char) -> Option<[u8; 7]> {
    Some(match c {
        'e' => [
            0b00000, 0b00000, 0b01110, 0b10001, 0b11111, 0b10000, 0b01110,
        ],
        '0' => [
            0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110,
        ],
        '1' => [
            0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110,
        ],
        '2' => [
            0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111,
        ],
        '3' => [
            0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110,
        ],
        '4' => [
            0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010,
        ],
        '5' => [
            0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110,
        ],
        '6' => [
            0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110,
        ],
        '7' => [
            0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000,
        ],
        '8' => [
            0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110,
        ],
        '9' => [
            0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100,
        ],
        _ => return None,
    })
}

/// Label colour of a role (outline and label background); text is white.
pub fn role_color(role: Role) -> Rgb<u8> {
    match role {
        Role::Button | Role::Menuitem | Role::Tab => Rgb([214, 39, 40]),
        Role::Textfield | Role::Combobox => Rgb([31, 119, 180]),
        Role::Checkbox | Role::Switch | Role::Radio | Role::Slider => Rgb([148, 103, 189]),
        Role::Link => Rgb([44, 160, 44]),
        Role::Image => Rgb([255, 127, 14]),
        Role::Text | Role::Heading | Role::Listitem => Rgb([90, 90, 90]),
        Role::Dialog | Role::Other => Rgb([140, 86, 75]),
    }
}

/// Draws Set-of-Mark images; keeps rasterised glyphs between frames.
#[derive(Debug, Default)]
pub struct SomRenderer {
    /// `(char, scale)` → lit pixel offsets within the glyph cell.
    cache: HashMap<(char, u32), Vec<(u32, u32)>>,
}

impl SomRenderer {
    /// An empty renderer.
    pub fn new() -> SomRenderer {
        SomRenderer::default()
    }

    /// Glyphs rasterised so far (for tests and metrics).
    pub fn cached_glyphs(&self) -> usize {
        self.cache.len()
    }

    fn glyph(&mut self, c: char, scale: u32) -> &[(u32, u32)] {
        self.cache.entry((c, scale)).or_insert_with(|| {
            let mut px = Vec::new();
            if let Some(rows) = glyph_rows(c) {
                for (y, row) in rows.iter().enumerate() {
                    for x in 0..5u32 {
                        if row & (0b10000 >> x) != 0 {
                            for dy in 0..scale {
                                for dx in 0..scale {
                                    px.push((x * scale + dx, y as u32 * scale + dy));
                                }
                            }
                        }
                    }
                }
            }
            px
        })
    }

    /// Returns a copy of `screenshot` with the marks of `obs` drawn on it. `scale` multiplies
    /// line width and glyph size (use the device pixel ratio, at least 1).
    pub fn render(&mut self, screenshot: &RgbImage, obs: &Observation, scale: u32) -> RgbImage {
        let scale = scale.max(1);
        let mut img = screenshot.clone();
        let (w, h) = img.dimensions();
        for el in &obs.elements {
            let color = role_color(el.role);
            let b = el.bbox_px;
            let x0 = b.x.max(0.0).round() as u32;
            let y0 = b.y.max(0.0).round() as u32;
            let x1 = (b.right().round() as u32).min(w);
            let y1 = (b.bottom().round() as u32).min(h);
            if x0 >= x1 || y0 >= y1 {
                continue;
            }
            let t = LINE_PX * scale;
            fill(&mut img, x0, y0, x1, (y0 + t).min(y1), color);
            fill(&mut img, x0, y1.saturating_sub(t).max(y0), x1, y1, color);
            fill(&mut img, x0, y0, (x0 + t).min(x1), y1, color);
            fill(&mut img, x1.saturating_sub(t).max(x0), y0, x1, y1, color);
            // Label: above the box when there is room, else inside its top-left corner.
            let pad = PAD_PX * scale;
            let cell_w = 6 * scale;
            let label_w = el.id.chars().count() as u32 * cell_w + 2 * pad;
            let label_h = 7 * scale + 2 * pad;
            let lx = x0.min(w.saturating_sub(label_w));
            let ly = if y0 >= label_h { y0 - label_h } else { y0 };
            fill(
                &mut img,
                lx,
                ly,
                (lx + label_w).min(w),
                (ly + label_h).min(h),
                color,
            );
            for (i, c) in el.id.chars().enumerate() {
                let gx = lx + pad + i as u32 * cell_w;
                let gy = ly + pad;
                for &(dx, dy) in self.glyph(c, scale) {
                    let (x, y) = (gx + dx, gy + dy);
                    if x < w && y < h {
                        img.put_pixel(x, y, Rgb([255, 255, 255]));
                    }
                }
            }
        }
        img
    }
}

fn fill(img: &mut RgbImage, x0: u32, y0: u32, x1: u32, y1: u32, c: Rgb<u8>) {
    for y in y0..y1 {
        for x in x0..x1 {
            img.put_pixel(x, y, c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{Rect, Screen};
    use crate::tree::{Node, Tree};

    fn obs() -> Observation {
        let mut tree = Tree::default();
        let mut root = Node::new(Role::Other, "root", "");
        root.bounds = Some(Rect::new(0.0, 0.0, 200.0, 100.0));
        tree.nodes.push(root);
        for (role, name, b) in [
            (Role::Button, "OK", Rect::new(10.0, 30.0, 60.0, 30.0)),
            (Role::Textfield, "Name", Rect::new(100.0, 40.0, 80.0, 30.0)),
        ] {
            let mut n = Node::new(role, role.as_str(), name);
            n.bounds = Some(b);
            n.parent = Some(0);
            tree.nodes.push(n);
        }
        let screen = Screen {
            width: 200.0,
            height: 100.0,
            dpr: 1.0,
        };
        crate::elements::build(&tree, screen, 1)
    }

    #[test]
    fn boxes_labels_and_glyph_cache() {
        let o = obs();
        let shot = RgbImage::from_pixel(200, 100, Rgb([255, 255, 255]));
        let mut r = SomRenderer::new();
        let img = r.render(&shot, &o, 1);
        assert_eq!(img.dimensions(), (200, 100));
        let (btn, field) = (&o.elements[0], &o.elements[1]);
        assert_eq!((btn.id.as_str(), btn.role), ("e1", Role::Button));
        // Outlines in the role colours, interiors untouched.
        assert_eq!(*img.get_pixel(40, 59), role_color(Role::Button));
        assert_eq!(*img.get_pixel(179, 55), role_color(Role::Textfield));
        assert_eq!(*img.get_pixel(40, 45), Rgb([255, 255, 255]));
        // The label sits above the button: its background and white glyph pixels.
        let label: Vec<Rgb<u8>> = (10..26)
            .flat_map(|x| (19..30).map(move |y| (x, y)))
            .map(|(x, y)| *img.get_pixel(x, y))
            .collect();
        assert!(label.contains(&role_color(Role::Button)));
        assert!(label.contains(&Rgb([255, 255, 255])));
        assert_eq!(field.id, "e2");
        // Glyphs are rasterised once: e, 1, 2.
        assert_eq!(r.cached_glyphs(), 3);
        let again = r.render(&shot, &o, 1);
        assert_eq!(again, img, "same input, same image");
        assert_eq!(r.cached_glyphs(), 3);
        let big = r.render(&shot, &o, 2);
        assert_ne!(big, img);
        assert_eq!(r.cached_glyphs(), 6, "one set per scale");
    }
}
