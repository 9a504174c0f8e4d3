//! Which parts of a screen the pixel channel should look at: the regions the tree does not
//! cover.
//!
//! Two kinds, both in device px (screenshot coordinates):
//!
//! 1. **Opaque nodes** ([`RegionReason::OpaqueNode`]): tree nodes that draw content the tree
//!    cannot describe — a platform role containing `canvas`, `SurfaceView`, `TextureView`,
//!    `GLSurfaceView`, `WebView`, `Video` or `XComponent` (HarmonyOS), HarmonyOS `Web`, an
//!    unnamed image, or an unnamed control covering at least
//!    [`RegionParams::big_control_fraction`] of the screen (a game's or a Compose canvas's
//!    full-screen clickable `View`) — at least [`RegionParams::min_opaque_px`] on each side,
//!    with no named or valued descendant (an empty WebView counts; one whose page made it into
//!    the tree does not).
//! 2. **Uncovered areas** ([`RegionReason::Uncovered`]): the screen is divided into square cells
//!    of [`RegionParams::cell_px`]; cells touched by an element of the observation or by an
//!    opaque region are covered; the remaining cells are merged greedily into rectangles (runs
//!    along a row, extended down while the run below is identical and free) and rectangles at
//!    least [`RegionParams::min_uncovered_cells`] cells on each side are kept. A screen whose
//!    tree is empty is one big uncovered region.
//!
//! The list is meant for [`crate::ocr`]'s region OCR (which adds a margin) and for
//! [`crate::vision::anchors`]; it is ordered opaque nodes first, then top-to-bottom.

use crate::elements::visible_boxes;
use crate::geometry::Rect;
use crate::observation::Observation;
use crate::role::Role;
use crate::tree::Tree;

/// Why a region was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegionReason {
    /// A node whose content the tree cannot see; holds its platform role.
    OpaqueNode(String),
    /// Part of the screen with no element at all.
    Uncovered,
}

/// One region for the pixel channel.
#[derive(Debug, Clone, PartialEq)]
pub struct PixelRegion {
    /// Box in device px, clipped to the screen.
    pub rect: Rect,
    /// Why.
    pub reason: RegionReason,
}

/// Tuning of [`pixel_regions`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegionParams {
    /// Minimum width and height of an opaque node, device px.
    pub min_opaque_px: f64,
    /// Grid cell side for uncovered areas, device px.
    pub cell_px: f64,
    /// Minimum width and height of an uncovered rectangle, in cells.
    pub min_uncovered_cells: usize,
    /// Fraction 0..=1 of the screen an unnamed control must cover to count as opaque.
    pub big_control_fraction: f64,
}

impl Default for RegionParams {
    /// 96 px opaque minimum (a large icon), 48 px cells (a touch target), 3 cells (144 px),
    /// unnamed controls over half the screen.
    fn default() -> Self {
        RegionParams {
            min_opaque_px: 96.0,
            cell_px: 48.0,
            min_uncovered_cells: 3,
            big_control_fraction: 0.5,
        }
    }
}

/// Platform role fragments (lowercase) of nodes that draw content the tree cannot see.
pub const OPAQUE_ROLES: [&str; 6] = [
    "canvas",
    "surfaceview",
    "textureview",
    "webview",
    "video",
    "xcomponent",
];

fn is_opaque_role(platform_role: &str, role: Role, named: bool) -> bool {
    let r = platform_role.to_ascii_lowercase();
    OPAQUE_ROLES.iter().any(|o| r.contains(o)) || r == "web" || (role == Role::Image && !named)
}

/// Regions of `obs` (built from `tree`) the tree does not cover; see the module docs.
pub fn pixel_regions(tree: &Tree, obs: &Observation, p: &RegionParams) -> Vec<PixelRegion> {
    let screen = obs.screen;
    let (sw, sh) = screen.device_size();
    let (sw, sh) = (f64::from(sw), f64::from(sh));
    let mut out = Vec::new();
    let visible = visible_boxes(tree, &screen);
    let named = |i: usize| {
        let n = &tree.nodes[i];
        !n.name.trim().is_empty() || n.value.as_deref().is_some_and(|v| !v.trim().is_empty())
    };
    for (i, node) in tree.nodes.iter().enumerate() {
        let Some(vis) = visible[i] else { continue };
        let r = screen.to_device(&vis);
        let big_unnamed_control =
            node.role.is_actionable() && !named(i) && r.area() >= p.big_control_fraction * sw * sh;
        if !big_unnamed_control && !is_opaque_role(&node.platform_role, node.role, named(i)) {
            continue;
        }
        if r.w < p.min_opaque_px || r.h < p.min_opaque_px {
            continue;
        }
        let end = tree.subtree_end(i);
        if (i + 1..end).any(|k| visible[k].is_some() && named(k)) {
            continue;
        }
        // an opaque node inside one already taken adds nothing
        if out.iter().any(|o: &PixelRegion| o.rect.contains_rect(&r)) {
            continue;
        }
        out.push(PixelRegion {
            rect: r,
            reason: RegionReason::OpaqueNode(node.platform_role.clone()),
        });
    }
    let cell = p.cell_px.max(1.0);
    let cols = (sw / cell).ceil() as usize;
    let rows = (sh / cell).ceil() as usize;
    if cols == 0 || rows == 0 {
        return out;
    }
    let mut covered = vec![false; cols * rows];
    let mut mark = |r: &Rect| {
        let c0 = (r.x / cell).floor().max(0.0) as usize;
        let r0 = (r.y / cell).floor().max(0.0) as usize;
        let c1 = ((r.right() / cell).ceil() as usize).min(cols);
        let r1 = ((r.bottom() / cell).ceil() as usize).min(rows);
        for row in r0..r1 {
            for c in c0..c1 {
                covered[row * cols + c] = true;
            }
        }
    };
    for e in &obs.elements {
        mark(&e.bbox_px);
    }
    for o in &out {
        mark(&o.rect);
    }
    let min = p.min_uncovered_cells.max(1);
    for row in 0..rows {
        let mut c = 0;
        while c < cols {
            if covered[row * cols + c] {
                c += 1;
                continue;
            }
            let start = c;
            while c < cols && !covered[row * cols + c] {
                c += 1;
            }
            let end = c;
            // extend down while the same span is free
            let mut bottom = row + 1;
            while bottom < rows && (start..end).all(|k| !covered[bottom * cols + k]) {
                bottom += 1;
            }
            if end - start >= min && bottom - row >= min {
                for rr in row..bottom {
                    for k in start..end {
                        covered[rr * cols + k] = true;
                    }
                }
                let x = start as f64 * cell;
                let y = row as f64 * cell;
                out.push(PixelRegion {
                    rect: Rect::from_ltrb(
                        x,
                        y,
                        (end as f64 * cell).min(sw),
                        (bottom as f64 * cell).min(sh),
                    ),
                    reason: RegionReason::Uncovered,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elements::build;
    use crate::geometry::Screen;
    use crate::tree::Node;

    fn node(role: Role, platform: &str, name: &str, b: Rect) -> Node {
        let mut n = Node::new(role, platform, name);
        n.bounds = Some(b);
        n
    }

    #[test]
    fn surface_view_and_empty_bottom_are_regions() {
        // 1080×1920 screen at dpr 2 (540×960 logical)
        let mut t = Tree::default();
        let root = t.push(
            node(
                Role::Other,
                "android.widget.FrameLayout",
                "",
                Rect::new(0.0, 0.0, 540.0, 960.0),
            ),
            None,
        );
        t.push(
            node(
                Role::Button,
                "android.widget.Button",
                "Play",
                Rect::new(0.0, 0.0, 540.0, 60.0),
            ),
            Some(root),
        );
        t.push(
            node(
                Role::Other,
                "android.view.SurfaceView",
                "",
                Rect::new(0.0, 60.0, 540.0, 500.0),
            ),
            Some(root),
        );
        t.push(
            node(
                Role::Text,
                "android.widget.TextView",
                "Score",
                Rect::new(0.0, 560.0, 540.0, 40.0),
            ),
            Some(root),
        );
        let obs = build(&t, Screen::from_device_px(1080.0, 1920.0, 2.0), 1);
        let regions = pixel_regions(&t, &obs, &RegionParams::default());
        assert_eq!(
            regions[0],
            PixelRegion {
                rect: Rect::new(0.0, 120.0, 1080.0, 1000.0),
                reason: RegionReason::OpaqueNode("android.view.SurfaceView".into())
            }
        );
        // below the Score text (device y 1120..1200) to the bottom is free: cells from
        // row 25 (y 1200) to 40 (1920)
        assert_eq!(regions.len(), 2, "{regions:?}");
        assert_eq!(regions[1].reason, RegionReason::Uncovered);
        assert_eq!(regions[1].rect, Rect::new(0.0, 1200.0, 1080.0, 720.0));
    }

    #[test]
    fn a_webview_with_page_content_is_not_opaque() {
        let mut t = Tree::default();
        let root = t.push(
            node(
                Role::Other,
                "android.webkit.WebView",
                "",
                Rect::new(0.0, 0.0, 400.0, 400.0),
            ),
            None,
        );
        t.push(
            node(
                Role::Text,
                "android.view.View",
                "Hello",
                Rect::new(0.0, 0.0, 400.0, 400.0),
            ),
            Some(root),
        );
        let obs = build(&t, Screen::from_device_px(400.0, 400.0, 1.0), 1);
        assert!(pixel_regions(&t, &obs, &RegionParams::default()).is_empty());
    }

    #[test]
    fn an_empty_tree_is_one_uncovered_region() {
        let t = Tree::default();
        let obs = build(&t, Screen::from_device_px(1080.0, 1920.0, 1.0), 1);
        let r = pixel_regions(&t, &obs, &RegionParams::default());
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].rect, Rect::new(0.0, 0.0, 1080.0, 1920.0));
    }
}
