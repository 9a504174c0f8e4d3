//! Reading order, ids and neighbours of an element list (logical px).
//!
//! - Reading order: rows top to bottom (an element joins the current row when its vertical
//!   centre lies inside the row's first element's band and that element's centre inside its
//!   own, ±[`ROW_TOLERANCE_PX`]), left to right within a row. Ids are `e1…` in that order.
//! - Neighbours: for each side, the nearest element entirely on that side (edges may overlap
//!   by [`EDGE_SLACK_PX`]) that shares part of this element's height (left/right) or width
//!   (top/bottom); nearest by gap, then by centre distance on the other axis. Elements that
//!   contain each other (a dialog and its buttons) are never neighbours. O(n²), fine for the
//!   few hundred elements of a screen.

use crate::geometry::Rect;
use crate::observation::{Element, Neighbours};

/// Slack when grouping elements into reading-order rows, logical px.
pub const ROW_TOLERANCE_PX: f64 = 4.0;

/// How far two boxes may overlap and still count as side by side, logical px.
pub const EDGE_SLACK_PX: f64 = 2.0;

/// Sorts into reading order, numbers `e1…` and fills every element's neighbours.
pub fn number(els: &mut Vec<Element>) {
    reading_order(els);
    for (i, e) in els.iter_mut().enumerate() {
        e.id = format!("e{}", i + 1);
    }
    let boxes: Vec<Rect> = els.iter().map(|e| e.bbox_logical).collect();
    let found: Vec<[Option<usize>; 4]> = (0..boxes.len()).map(|i| neighbours(&boxes, i)).collect();
    for (e, [l, r, t, b]) in els.iter_mut().zip(found) {
        let id = |k: Option<usize>| k.map(|k| format!("e{}", k + 1));
        e.neighbours = Neighbours {
            left: id(l),
            right: id(r),
            top: id(t),
            bottom: id(b),
        };
    }
}

/// Sorts into rows top-to-bottom, left-to-right within a row.
fn reading_order(els: &mut Vec<Element>) {
    els.sort_by(|a, b| {
        a.bbox_logical
            .y
            .total_cmp(&b.bbox_logical.y)
            .then(a.bbox_logical.x.total_cmp(&b.bbox_logical.x))
    });
    let mut rows: Vec<Vec<Element>> = Vec::new();
    for e in els.drain(..) {
        match rows.last_mut() {
            Some(row) if same_row(&row[0].bbox_logical, &e.bbox_logical) => row.push(e),
            _ => rows.push(vec![e]),
        }
    }
    for mut row in rows {
        row.sort_by(|a, b| a.bbox_logical.x.total_cmp(&b.bbox_logical.x));
        els.extend(row);
    }
}

/// Whether `b` joins the row headed by `a`: each one's vertical centre lies inside the
/// other's band, ±[`ROW_TOLERANCE_PX`] (so a tall overlay does not swallow the rows it spans).
fn same_row(a: &Rect, b: &Rect) -> bool {
    let inside =
        |r: &Rect, y: f64| y >= r.y - ROW_TOLERANCE_PX && y <= r.bottom() + ROW_TOLERANCE_PX;
    inside(a, b.center().1) && inside(b, a.center().1)
}

/// Overlap length of two intervals (negative when apart).
fn overlap(a0: f64, a1: f64, b0: f64, b1: f64) -> f64 {
    a1.min(b1) - a0.max(b0)
}

/// Indices of the nearest left, right, top and bottom neighbours of `boxes[i]`.
pub fn neighbours(boxes: &[Rect], i: usize) -> [Option<usize>; 4] {
    let Some(&e) = boxes.get(i) else {
        return [None; 4];
    };
    let (ecx, ecy) = e.center();
    // (gap, off-axis centre distance, index) per side.
    let mut best: [Option<(f64, f64, usize)>; 4] = [None; 4];
    for (j, o) in boxes.iter().enumerate() {
        if j == i || e.contains_rect(o) || o.contains_rect(&e) {
            continue;
        }
        let (ocx, ocy) = o.center();
        let shares_h = overlap(e.y, e.bottom(), o.y, o.bottom()) > 0.0;
        let shares_w = overlap(e.x, e.right(), o.x, o.right()) > 0.0;
        let cands = [
            (
                shares_h && o.right() <= e.x + EDGE_SLACK_PX,
                e.x - o.right(),
                (ocy - ecy).abs(),
            ),
            (
                shares_h && o.x >= e.right() - EDGE_SLACK_PX,
                o.x - e.right(),
                (ocy - ecy).abs(),
            ),
            (
                shares_w && o.bottom() <= e.y + EDGE_SLACK_PX,
                e.y - o.bottom(),
                (ocx - ecx).abs(),
            ),
            (
                shares_w && o.y >= e.bottom() - EDGE_SLACK_PX,
                o.y - e.bottom(),
                (ocx - ecx).abs(),
            ),
        ];
        for (side, (ok, gap, off)) in cands.into_iter().enumerate() {
            if !ok {
                continue;
            }
            let better = match best[side] {
                None => true,
                Some((g, d, _)) => gap < g - 1e-9 || ((gap - g).abs() <= 1e-9 && off < d),
            };
            if better {
                best[side] = Some((gap, off, j));
            }
        }
    }
    best.map(|b| b.map(|(_, _, j)| j))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_on_each_side() {
        // A 2×2 grid plus a wide footer.
        let b = [
            Rect::new(0.0, 0.0, 10.0, 10.0),
            Rect::new(20.0, 0.0, 10.0, 10.0),
            Rect::new(0.0, 20.0, 10.0, 10.0),
            Rect::new(20.0, 20.0, 10.0, 10.0),
            Rect::new(0.0, 40.0, 30.0, 10.0),
        ];
        assert_eq!(neighbours(&b, 0), [None, Some(1), None, Some(2)]);
        assert_eq!(neighbours(&b, 3), [Some(2), None, Some(1), Some(4)]);
        // Footer: both cells above are 10 px away; the one nearer its centre wins (tie → first).
        assert_eq!(neighbours(&b, 4), [None, None, Some(2), None]);
    }
}
