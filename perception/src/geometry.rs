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
}
