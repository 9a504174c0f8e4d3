//! Screen geometry in one place: logical px (CSS px on the web, points on iOS, dp on
//! Android) ↔ device px, via the device pixel ratio.

use serde::{Deserialize, Serialize};

/// An axis-aligned box: origin top-left, `w`/`h` ≥ 0. Unit given by where it is used.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    /// Builds a box.
    pub fn new(x: f64, y: f64, w: f64, h: f64) -> Rect {
        Rect { x, y, w, h }
    }
    /// Builds a box from its left, top, right and bottom edges (a reversed pair gives
    /// width or height 0).
    pub fn from_ltrb(l: f64, t: f64, r: f64, b: f64) -> Rect {
        Rect::new(l, t, (r - l).max(0.0), (b - t).max(0.0))
    }
    /// Parses Android / HarmonyOS bounds `"[x1,y1][x2,y2]"` (left, top, right, bottom;
    /// integers or decimals; spaces tolerated). `None` when malformed.
    pub fn parse_brackets(s: &str) -> Option<Rect> {
        let nums: Vec<f64> = s
            .split(['[', ']', ','])
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::parse::<f64>)
            .collect::<Result<_, _>>()
            .ok()?;
        match nums[..] {
            [l, t, r, b] => Some(Rect::from_ltrb(l, t, r, b)),
            _ => None,
        }
    }
    /// Whether the point lies inside (edges included on the top/left, excluded on the
    /// bottom/right).
    pub fn contains_point(&self, x: f64, y: f64) -> bool {
        x >= self.x && y >= self.y && x < self.right() && y < self.bottom()
    }
    /// Whether `o` lies entirely inside this box (edges may touch).
    pub fn contains_rect(&self, o: &Rect) -> bool {
        o.x >= self.x && o.y >= self.y && o.right() <= self.right() && o.bottom() <= self.bottom()
    }
    /// Area (unit²).
    pub fn area(&self) -> f64 {
        self.w.max(0.0) * self.h.max(0.0)
    }
    /// Centre point `(x, y)`.
    pub fn center(&self) -> (f64, f64) {
        (self.x + self.w / 2.0, self.y + self.h / 2.0)
    }
    /// Right edge.
    pub fn right(&self) -> f64 {
        self.x + self.w
    }
    /// Bottom edge.
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
    /// Intersection, `None` when the boxes do not overlap with positive area.
    pub fn intersect(&self, o: &Rect) -> Option<Rect> {
        let x = self.x.max(o.x);
        let y = self.y.max(o.y);
        let r = self.right().min(o.right());
        let b = self.bottom().min(o.bottom());
        (r > x && b > y).then(|| Rect::new(x, y, r - x, b - y))
    }
    /// Intersection over union, 0..=1.
    pub fn iou(&self, o: &Rect) -> f64 {
        let inter = self.intersect(o).map(|r| r.area()).unwrap_or(0.0);
        let union = self.area() + o.area() - inter;
        if union <= 0.0 {
            0.0
        } else {
            inter / union
        }
    }
    /// This box grown by `m` on every side (same unit as the box).
    pub fn grown(&self, m: f64) -> Rect {
        Rect::new(self.x - m, self.y - m, self.w + 2.0 * m, self.h + 2.0 * m)
    }

    /// Scales every coordinate by `k`.
    pub fn scale(&self, k: f64) -> Rect {
        Rect::new(self.x * k, self.y * k, self.w * k, self.h * k)
    }
    /// `[x, y, w, h]`.
    pub fn to_array(&self) -> [f64; 4] {
        [self.x, self.y, self.w, self.h]
    }
    /// Vertical overlap with `o` as a fraction of the smaller height, 0..=1.
    pub fn v_overlap(&self, o: &Rect) -> f64 {
        let top = self.y.max(o.y);
        let bot = self.bottom().min(o.bottom());
        let min_h = self.h.min(o.h);
        if min_h <= 0.0 {
            return 0.0;
        }
        ((bot - top) / min_h).clamp(0.0, 1.0)
    }
    /// Horizontal overlap with `o` as a fraction of the smaller width, 0..=1.
    pub fn h_overlap(&self, o: &Rect) -> f64 {
        let l = self.x.max(o.x);
        let r = self.right().min(o.right());
        let min_w = self.w.min(o.w);
        if min_w <= 0.0 {
            return 0.0;
        }
        ((r - l) / min_w).clamp(0.0, 1.0)
    }
}

/// The visible screen (or browser viewport) of one observation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Screen {
    /// Width in logical px.
    pub width: f64,
    /// Height in logical px.
    pub height: f64,
    /// Device pixels per logical px (`window.devicePixelRatio`, Android density / 160, iOS
    /// scale). Must be > 0.
    pub dpr: f64,
}

impl Screen {
    /// A screen given in device px (what Android, HarmonyOS and screenshots report) with its
    /// density ratio: logical size = device size / `dpr`.
    pub fn from_device_px(width_px: f64, height_px: f64, dpr: f64) -> Screen {
        Screen {
            width: width_px / dpr,
            height: height_px / dpr,
            dpr,
        }
    }
    /// The screen as a box in logical px.
    pub fn logical_rect(&self) -> Rect {
        Rect::new(0.0, 0.0, self.width, self.height)
    }
    /// Logical px → device px.
    pub fn to_device(&self, r: &Rect) -> Rect {
        r.scale(self.dpr)
    }
    /// Device px → logical px.
    pub fn to_logical(&self, r: &Rect) -> Rect {
        r.scale(1.0 / self.dpr)
    }
    /// Size in device px, rounded: `(w, h)`.
    pub fn device_size(&self) -> (u32, u32) {
        (
            (self.width * self.dpr).round() as u32,
            (self.height * self.dpr).round() as u32,
        )
    }
}

/// The range of a model's normalized coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NormScale {
    /// 0–1000: `px = v / 1000 × size`.
    Norm1000,
    /// 0–999: `px = v / 999 × size`.
    Norm999,
}

impl NormScale {
    fn denominator(self) -> f64 {
        match self {
            NormScale::Norm1000 => 1000.0,
            NormScale::Norm999 => 999.0,
        }
    }
}

/// Maps a model's normalized point to device px, **each axis by its own size** (x by the
/// width, y by the height), clamped to `[0, size - 1]`. `width_px`/`height_px` are the
/// screenshot's size in device px, as the model saw it.
pub fn norm_to_px(x: f64, y: f64, scale: NormScale, width_px: f64, height_px: f64) -> (f64, f64) {
    let d = scale.denominator();
    let fx = (x / d * width_px).clamp(0.0, (width_px - 1.0).max(0.0));
    let fy = (y / d * height_px).clamp(0.0, (height_px - 1.0).max(0.0));
    (fx, fy)
}

/// Device px → a model's normalized point (inverse of [`norm_to_px`], rounded).
pub fn px_to_norm(x: f64, y: f64, scale: NormScale, width_px: f64, height_px: f64) -> (f64, f64) {
    let d = scale.denominator();
    if width_px <= 0.0 || height_px <= 0.0 {
        return (0.0, 0.0);
    }
    (
        (x / width_px * d).round().clamp(0.0, d),
        (y / height_px * d).round().clamp(0.0, d),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iou_and_overlap() {
        let a = Rect::new(0.0, 0.0, 10.0, 10.0);
        let b = Rect::new(5.0, 0.0, 10.0, 10.0);
        assert!((a.iou(&b) - 50.0 / 150.0).abs() < 1e-9);
        assert_eq!(a.v_overlap(&b), 1.0);
        assert_eq!(a.iou(&Rect::new(20.0, 20.0, 1.0, 1.0)), 0.0);
        let s = Screen {
            width: 1280.0,
            height: 800.0,
            dpr: 2.0,
        };
        assert_eq!(s.device_size(), (2560, 1600));
        assert_eq!(s.to_device(&a).w, 20.0);
    }

    #[test]
    fn brackets_and_containment() {
        let r = Rect::parse_brackets("[0,63][1080, 210]").unwrap();
        assert_eq!(r, Rect::new(0.0, 63.0, 1080.0, 147.0));
        assert_eq!(Rect::parse_brackets("[1,2][3]"), None);
        assert_eq!(Rect::parse_brackets("[a,2][3,4]"), None);
        assert!(r.contains_point(0.0, 63.0) && !r.contains_point(1080.0, 100.0));
        assert!(r.contains_rect(&Rect::new(10.0, 70.0, 5.0, 5.0)));
    }

    #[test]
    fn normalized_coordinates_map_each_axis_by_its_own_size() {
        // 1080×2400 phone: y must scale by the height, not the width.
        let (x, y) = norm_to_px(500.0, 500.0, NormScale::Norm1000, 1080.0, 2400.0);
        assert_eq!((x, y), (540.0, 1200.0));
        let (x, y) = norm_to_px(250.0, 900.0, NormScale::Norm1000, 1080.0, 2400.0);
        assert_eq!((x, y), (270.0, 2160.0));
        let (x, y) = norm_to_px(999.0, 999.0, NormScale::Norm999, 1080.0, 2400.0);
        assert_eq!((x, y), (1079.0, 2399.0));
        let (x, y) = norm_to_px(0.0, 333.0, NormScale::Norm999, 1080.0, 2400.0);
        assert_eq!(x, 0.0);
        assert!((y - 800.0).abs() < 1e-9);
        assert_eq!(
            px_to_norm(540.0, 1200.0, NormScale::Norm1000, 1080.0, 2400.0),
            (500.0, 500.0)
        );
        let s = Screen::from_device_px(1080.0, 2400.0, 2.625);
        assert!((s.width - 411.428_571).abs() < 1e-3);
        assert_eq!(s.device_size(), (1080, 2400));
    }
}
