//! Fusion of the tree channel with pixel-channel candidates (OCR text boxes, vision boxes).
//!
//! Tree elements are primary. Candidates are taken OCR first, then by confidence (highest
//! first); for each, in device px, against the tree elements (found through an `rstar`
//! R-tree) and the candidates already added:
//!
//! 1. OCR text whose box lies mostly ([`INSIDE_FRACTION`] of its area) inside an **unnamed**
//!    tree element (an icon button, an image) names that element and is not added;
//! 2. OCR text mostly inside an element whose labels already contain it is a duplicate and is
//!    dropped (a text box inside a large button has a small IoU but adds nothing);
//! 3. otherwise the candidate is added only when its IoU with every element so far is
//!    ≤ `iou_threshold` ([`DEFAULT_IOU_THRESHOLD`]) — except that an OCR line overlapping an
//!    OCR line already added is dropped only when the texts are the same or the IoU exceeds
//!    [`OCR_SAME_LINE_IOU`]: detection grows every box, so adjacent lines of a dense
//!    terminal overlap and are not duplicates.
//!
//! Added OCR text becomes a [`Role::Text`] element, a vision box a [`Role::Image`] element
//! (platform role `ocr` / `vision`), `covered` unknown. OCR text joins the observation's
//! text. Ids and neighbours are then recomputed over the whole list.

use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};
use serde::{Deserialize, Serialize};

use crate::geometry::Rect;
use crate::layout;
use crate::observation::{Element, Observation, Source};
use crate::role::Role;
use crate::text::collapse_ws;

/// Default IoU above which a pixel candidate duplicates an element.
pub const DEFAULT_IOU_THRESHOLD: f64 = 0.1;

/// IoU above which two OCR lines with different texts are one line read twice (overlapping
/// regions).
pub const OCR_SAME_LINE_IOU: f64 = 0.5;

/// Fraction of a text box's area that must lie inside an element for rules 1 and 2.
pub const INSIDE_FRACTION: f64 = 0.8;

/// What found a pixel candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PixelKind {
    /// OCR: the candidate has text.
    Ocr,
    /// Classical vision anchors or an icon detector: a box, maybe a class label.
    Vision,
}

/// One pixel-channel candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PixelCandidate {
    /// Box in device px (screenshot coordinates).
    pub bbox_px: Rect,
    /// Recognised text (OCR) or class label (detector); may be empty.
    pub text: String,
    /// Which detector.
    pub kind: PixelKind,
    /// Confidence 0..=1.
    pub confidence: f64,
}

type Entry = GeomWithData<Rectangle<[f64; 2]>, usize>;

fn entry(r: &Rect, k: usize) -> Entry {
    GeomWithData::new(
        Rectangle::from_corners([r.x, r.y], [r.right(), r.bottom()]),
        k,
    )
}

fn inside_fraction(inner: &Rect, outer: &Rect) -> f64 {
    let a = inner.area();
    if a <= 0.0 {
        return 0.0;
    }
    inner.intersect(outer).map(|r| r.area()).unwrap_or(0.0) / a
}

/// An OCR line inside a tree element (`hits` among the first `tree_count` elements of `out`,
/// the smallest that holds `b`): names it when it has no name, or is already in its labels.
/// Returns whether the line went into its host (no element of its own).
fn into_host(
    out: &mut Observation,
    tree_count: usize,
    hits: &[usize],
    b: &Rect,
    text: &str,
    extra_text: &mut Vec<String>,
) -> bool {
    let host = hits
        .iter()
        .copied()
        .filter(|&k| {
            k < tree_count && inside_fraction(b, &out.elements[k].bbox_px) >= INSIDE_FRACTION
        })
        .min_by(|&x, &y| {
            out.elements[x]
                .bbox_px
                .area()
                .total_cmp(&out.elements[y].bbox_px.area())
        });
    let Some(k) = host else {
        return false;
    };
    let el = &mut out.elements[k];
    if el.name.trim().is_empty() {
        el.name = text.to_string();
        extra_text.push(text.to_string());
        return true;
    }
    let lower = text.to_lowercase();
    el.labels()
        .any(|l| collapse_ws(l).to_lowercase().contains(&lower))
}

/// Fuses `candidates` into `obs` (see the module docs) and renumbers. `iou_threshold` is
/// usually [`DEFAULT_IOU_THRESHOLD`].
pub fn fuse(obs: &Observation, candidates: &[PixelCandidate], iou_threshold: f64) -> Observation {
    let mut out = obs.clone();
    let tree_count = out.elements.len();
    let mut rt: RTree<Entry> = RTree::bulk_load(
        out.elements
            .iter()
            .enumerate()
            .map(|(k, e)| entry(&e.bbox_px, k))
            .collect(),
    );
    let mut order: Vec<&PixelCandidate> = candidates
        .iter()
        .filter(|c| c.bbox_px.area() > 0.0)
        .collect();
    order.sort_by(|a, b| {
        (a.kind != PixelKind::Ocr)
            .cmp(&(b.kind != PixelKind::Ocr))
            .then(b.confidence.total_cmp(&a.confidence))
    });
    let mut extra_text: Vec<String> = Vec::new();
    for c in order {
        let text = collapse_ws(&c.text);
        let b = c.bbox_px;
        let env = AABB::from_corners([b.x, b.y], [b.right(), b.bottom()]);
        let hits: Vec<usize> = rt
            .locate_in_envelope_intersecting(&env)
            .map(|g| g.data)
            .collect();
        if c.kind == PixelKind::Ocr
            && !text.is_empty()
            && into_host(&mut out, tree_count, &hits, &b, &text, &mut extra_text)
        {
            continue;
        }
        let dup = hits.iter().any(|&k| {
            let el = &out.elements[k];
            let iou = el.bbox_px.iou(&b);
            if k >= tree_count && el.source == Source::Ocr && c.kind == PixelKind::Ocr {
                // Two OCR lines: neighbouring lines' boxes overlap (detection grows each
                // box), so only the same text or a near-total overlap is a duplicate.
                iou > OCR_SAME_LINE_IOU
                    || (iou > iou_threshold && text.eq_ignore_ascii_case(&el.name))
            } else {
                iou > iou_threshold
            }
        });
        if dup {
            continue;
        }
        let logical = out.screen.to_logical(&b);
        let Some(vis) = logical.intersect(&out.screen.logical_rect()) else {
            continue;
        };
        let (role, platform_role, source) = match c.kind {
            PixelKind::Ocr => (Role::Text, "ocr", Source::Ocr),
            PixelKind::Vision => (Role::Image, "vision", Source::Vision),
        };
        if c.kind == PixelKind::Ocr && !text.is_empty() {
            extra_text.push(text.clone());
        }
        let k = out.elements.len();
        rt.insert(entry(&b, k));
        out.elements.push(Element::from_pixels(
            role,
            platform_role,
            text,
            vis,
            out.screen.to_device(&vis),
            source,
            Some(c.confidence),
        ));
    }
    if !extra_text.is_empty() {
        let joined = format!("{} {}", out.text, extra_text.join(" "));
        out.text = collapse_ws(&joined);
    }
    layout::number(&mut out.elements);
    out
}
