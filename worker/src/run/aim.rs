//! Waiting for an action's target to be actionable: the element exists (exactly one match),
//! is visible, enabled, not covered and stable (same box in two consecutive observations),
//! bounded by the job's `auto_wait_ms` (default: the worker's `--agent-auto-wait-ms`, 5 s) —
//! the checks Playwright runs before it acts
//! (<https://playwright.dev/docs/actionability>). A failure names what it was still waiting
//! for.
//!
//! A script target ([`Aim::Target`]) is resolved by name again in every observation, so a
//! page that builds its form a second after load is simply waited for. A model's element id
//! ([`Aim::Element`]) must keep naming the same element (else the call is stale); a model's
//! point ([`Aim::Point`]) acts at once at that pixel.

use std::time::{Duration, Instant};

use argus_perception::geometry::{norm_to_px, NormScale};
use argus_perception::{Element, NodeRef, Observation, Rect, Tri};
use argus_protocol::{ActionTimings, Aim, CoordSpace, Target};

use super::ctx::RunCtx;
use crate::resolve::{anchor_of, resolve, resolve_waiting, Purpose};
use crate::run::outcome::ms;

/// Poll interval of the actionability wait.
const ACTIONABLE_POLL: Duration = Duration::from_millis(100);
/// How long a last-resort reading of a target (see `resolve_waiting`) may take to be seen
/// stable and actionable after the wait ran out.
const GUESS_GRACE: Duration = Duration::from_millis(1000);
/// Extra auto-wait per typed character, ms.
const TYPE_MS_PER_CHAR: u64 = 50;

/// Extra auto-wait a `type` of `text` gets, ms.
pub fn type_extra_wait_ms(text: &str) -> u64 {
    text.chars().count() as u64 * TYPE_MS_PER_CHAR
}

/// The element to act on and, for a model's point, the device px acted at.
pub(crate) struct Aimed {
    pub(crate) el: Element,
    pub(crate) point: Option<(f64, f64)>,
    /// The observation the element was last found on when waiting for it took fresh ones
    /// (`None`: the one passed in): the screen as it was just before acting.
    pub(crate) seen: Option<Observation>,
    /// Set when the pointer was rested over the target's anchor to reveal it (see
    /// [`Exec::wait_target`]): the line the action's detail gets.
    pub(crate) revealed: Option<String>,
}

/// Why a target is not actionable yet.
#[derive(Debug, Clone, PartialEq)]
pub enum NotReady {
    /// No single element matches (the resolver's message: missing or ambiguous).
    Unresolved(String),
    /// Its box is empty or off screen.
    Hidden,
    /// Disabled.
    Disabled,
    /// Another element lies on its centre.
    Covered,
    /// Its box moved between the last two observations.
    Moving,
}

impl std::fmt::Display for NotReady {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotReady::Unresolved(m) => write!(f, "{m}"),
            NotReady::Hidden => write!(f, "it is not visible"),
            NotReady::Disabled => write!(f, "it is disabled"),
            NotReady::Covered => write!(f, "it is covered by another element"),
            NotReady::Moving => write!(f, "it is still moving (not stable)"),
        }
    }
}

/// Same role, name and box (to 2 px).
fn same_element(a: &Element, b: &Element) -> bool {
    let r = |x: &Rect| {
        [
            (x.x / 2.0).round(),
            (x.y / 2.0).round(),
            (x.w / 2.0).round(),
            (x.h / 2.0).round(),
        ]
    };
    a.role == b.role && a.name == b.name && r(&a.bbox_px) == r(&b.bbox_px)
}

/// The actionability checks of one element against the previous sighting.
pub fn readiness(el: &Element, prev: Option<&Element>, obs: &Observation) -> Result<(), NotReady> {
    let (w, h) = obs.screen.device_size();
    let b = el.bbox_px;
    let on_screen = b.w > 0.0
        && b.h > 0.0
        && b.right() > 0.0
        && b.bottom() > 0.0
        && b.x < w as f64
        && b.y < h as f64;
    if !on_screen {
        return Err(NotReady::Hidden);
    }
    if el.enabled == Tri::No {
        return Err(NotReady::Disabled);
    }
    if el.covered.is_yes() {
        return Err(NotReady::Covered);
    }
    match prev {
        Some(p) if same_element(el, p) => Ok(()),
        _ => Err(NotReady::Moving),
    }
}

/// Maps a model point to device px, each axis by its own size.
pub fn point_to_px(space: CoordSpace, x: f64, y: f64, w: f64, h: f64) -> (f64, f64) {
    match space {
        CoordSpace::Abs => (
            x.clamp(0.0, (w - 1.0).max(0.0)),
            y.clamp(0.0, (h - 1.0).max(0.0)),
        ),
        CoordSpace::Norm1000 => norm_to_px(x, y, NormScale::Norm1000, w, h),
        CoordSpace::Norm999 => norm_to_px(x, y, NormScale::Norm999, w, h),
    }
}

/// The smallest element whose box contains the point (device px).
pub fn snap(obs: &Observation, x: f64, y: f64) -> Option<&Element> {
    obs.elements
        .iter()
        .filter(|e| e.bbox_px.contains_point(x, y))
        .min_by(|a, b| a.bbox_px.area().total_cmp(&b.bbox_px.area()))
}

/// An element standing for a bare point: a 1×1 px box and no node, so the driver acts at
/// exactly that pixel. Keeps the snapped element's role and name for the report.
fn point_element(obs: &Observation, x: f64, y: f64, snapped: Option<&Element>) -> Element {
    let dpr = if obs.screen.dpr > 0.0 {
        obs.screen.dpr
    } else {
        1.0
    };
    let mut e = match snapped {
        Some(s) => s.clone(),
        None => {
            let mut e = Element::from_pixels(
                argus_perception::Role::Other,
                "",
                String::new(),
                Rect::default(),
                Rect::default(),
                argus_perception::Source::Vision,
                None,
            );
            e.id = "point".into();
            e
        }
    };
    e.bbox_px = Rect::new(x - 0.5, y - 0.5, 1.0, 1.0);
    e.bbox_logical = Rect::new(
        x / dpr - 0.5 / dpr,
        y / dpr - 0.5 / dpr,
        1.0 / dpr,
        1.0 / dpr,
    );
    e.node_ref = NodeRef::None;
    e
}

impl RunCtx<'_> {
    /// The job's actionability wait, ms.
    pub(crate) fn auto_wait_ms(&self) -> u64 {
        self.spec
            .auto_wait_ms
            .unwrap_or(self.env.config.auto_wait_ms)
    }

    /// Waits until `aim` names one actionable element (see the module docs).
    pub(crate) async fn wait_aim(
        &mut self,
        aim: &Aim,
        obs: &Observation,
        purpose: Purpose,
        extra_wait_ms: u64,
        t: &mut ActionTimings,
    ) -> Result<Aimed, String> {
        let wait_ms = self.auto_wait_ms() + extra_wait_ms;
        match aim {
            Aim::Point { x, y, .. } => self.aim_point(*x, *y, obs),
            Aim::Target(target) => self
                .wait_target(target, obs, purpose, wait_ms, t)
                .await
                .map(|(el, seen, revealed)| Aimed {
                    el,
                    point: None,
                    seen,
                    revealed,
                }),
            Aim::Element { id, .. } => {
                self.wait_element(id, obs, wait_ms, t)
                    .await
                    .map(|(el, seen)| Aimed {
                        el,
                        point: None,
                        seen: Some(seen),
                        revealed: None,
                    })
            }

            Aim::Focused => {
                Err("only typing can go to the focused window; name the element to act on".into())
            }
        }
    }

    /// The coordinate space of the job's model points (the job's, else the worker's).
    pub(crate) fn coord_space(&self) -> CoordSpace {
        self.spec
            .model
            .as_ref()
            .and_then(|m| m.coords)
            .unwrap_or(self.env.config.coords)
    }

    fn aim_point(&self, x: f64, y: f64, obs: &Observation) -> Result<Aimed, String> {
        let space = self.coord_space();
        let (w, h) = obs.screen.device_size();
        let (px, py) = point_to_px(space, x, y, w as f64, h as f64);
        let snapped = snap(obs, px, py);
        if let Some(s) = snapped {
            if s.covered.is_yes() || s.enabled == Tri::No {
                return Err(format!(
                    "{} at ({px:.0}, {py:.0}) is not actionable (covered or disabled)",
                    s.describe()
                ));
            }
        }
        Ok(Aimed {
            el: point_element(obs, px, py, snapped),
            point: Some((px, py)),
            seen: None,
            revealed: None,
        })
    }

    /// A script target, resolved by name in each fresh observation until it is actionable;
    /// with the last fresh observation it was found on (`None`: `first`) and, when it took
    /// a hover to reveal it, the note saying so.
    ///
    /// Controls shown only under the pointer (a list row's delete button, CSS `:hover`) are
    /// not in the tree until something hovers: a target placed by an anchor (`"Delete" in
    /// the row of "pay rent"`) that is missing while its anchor is found gets the pointer
    /// rested over the anchor once (where the device can hover), then the wait goes on.
    async fn wait_target(
        &mut self,
        target: &Target,
        first: &Observation,
        purpose: Purpose,
        wait_ms: u64,
        t: &mut ActionTimings,
    ) -> Result<(Element, Option<Observation>, Option<String>), String> {
        let mut deadline = Instant::now() + Duration::from_millis(wait_ms);
        let mut latest: Option<Observation> = None;
        let mut prev: Option<Element> = None;
        let mut revealed: Option<String> = None;
        let mut hovered = false;
        // A bare role word is read as "the only element of that role" only once the wait
        // has run out (see `resolve_waiting`), with a short grace to see it stable.
        let mut guessing = false;
        loop {
            let obs = latest.as_ref().unwrap_or(first);
            let found = if guessing {
                resolve(obs, target, purpose)
            } else {
                resolve_waiting(obs, target, purpose)
            };
            let state: Result<(), NotReady> = match found {
                Err(m) => Err(NotReady::Unresolved(m)),
                Ok(el) => match readiness(el, prev.as_ref(), obs) {
                    Ok(()) => {
                        let el = el.clone();
                        return Ok((el, latest, revealed));
                    }
                    Err(r) => {
                        prev = Some(el.clone());
                        Err(r)
                    }
                },
            };
            if let Err(why) = state {
                if matches!(why, NotReady::Unresolved(_)) {
                    prev = None;
                    if !hovered {
                        if let Some(anchor) = anchor_of(obs, target).cloned() {
                            hovered = true;
                            revealed = self.hover_over(&anchor).await;
                        }
                    }
                }
                // At least one fresh observation before giving up (stability needs two).
                let out_of_time = latest.is_some() && Instant::now() >= deadline;
                let guess = (out_of_time && !guessing && matches!(why, NotReady::Unresolved(_)))
                    .then(|| resolve(obs, target, purpose).ok())
                    .flatten();
                if let Some(el) = guess {
                    guessing = true;
                    prev = Some(el.clone());
                    deadline = Instant::now() + GUESS_GRACE;
                } else if out_of_time {
                    return Err(match why {
                        NotReady::Unresolved(m) if wait_ms == 0 => m,
                        NotReady::Unresolved(m) => format!("after waiting {wait_ms} ms: {m}"),
                        other => format!(
                            "{target} is not actionable after waiting {wait_ms} ms: {other}"
                        ),
                    });
                }
            }
            // The first sighting is checked again right away for stability; later polls wait.
            if !(prev.is_some() && latest.is_none()) {
                tokio::time::sleep(ACTIONABLE_POLL).await;
            }
            let s0 = Instant::now();
            let next = self.observe().await;
            t.perceive_ms += ms(s0);
            latest = Some(next.map_err(|e| format!("cannot observe the screen: {e}"))?);
        }
    }

    /// Rests the pointer over `anchor`; the note for the action's detail, or `None` where
    /// the device cannot hover (touch screens) or the hover failed (logged).
    async fn hover_over(&mut self, anchor: &Element) -> Option<String> {
        match self.dev.hover(anchor).await {
            Ok(()) => Some(format!(
                " (revealed by resting the pointer over {})",
                anchor.describe()
            )),
            Err(e) => {
                tracing::debug!(run_id = %self.run_id, "no hover to reveal a target: {}", e.message);
                None
            }
        }
    }

    /// Waits until `aim` names one element, whatever its state — a check reads it and never
    /// acts on it, so a disabled, covered or moving element counts — bounded by the job's
    /// auto-wait like any target; then fails with the resolver's account of what is missing.
    /// A model's element id or point is read on `obs` at once.
    pub(crate) async fn wait_present(
        &mut self,
        aim: &Aim,
        obs: &Observation,
        purpose: Purpose,
        t: &mut ActionTimings,
    ) -> Result<Element, String> {
        let target = match aim {
            Aim::Target(target) => target,
            Aim::Element { id, .. } => {
                return obs
                    .element(id)
                    .cloned()
                    .ok_or_else(|| format!("observation {} has no element {id}", obs.serial))
            }
            Aim::Point { x, y, .. } => {
                let (w, h) = obs.screen.device_size();
                let (px, py) = point_to_px(self.coord_space(), *x, *y, w as f64, h as f64);
                return snap(obs, px, py)
                    .cloned()
                    .ok_or_else(|| format!("no element at ({px:.0}, {py:.0})"));
            }
            Aim::Focused => {
                return Err("a check needs a named element, not the focused window".into())
            }
        };
        let wait_ms = self.auto_wait_ms();
        let deadline = Instant::now() + Duration::from_millis(wait_ms);
        let mut latest: Option<Observation> = None;
        loop {
            let o = latest.as_ref().unwrap_or(obs);
            let why = match resolve_waiting(o, target, purpose) {
                Ok(el) => return Ok(el.clone()),
                Err(m) => m,
            };
            // At least one fresh observation before giving up; the last-resort reading of a
            // bare role word only once the wait ran out (as for acting targets).
            if latest.is_some() && Instant::now() >= deadline {
                return match resolve(o, target, purpose) {
                    Ok(el) => Ok(el.clone()),
                    Err(_) => Err(format!("after waiting {wait_ms} ms: {why}")),
                };
            }
            tokio::time::sleep(ACTIONABLE_POLL).await;
            let s0 = Instant::now();
            let next = self.observe().await;
            t.perceive_ms += ms(s0);
            latest = Some(next.map_err(|e| format!("cannot observe the screen: {e}"))?);
        }
    }

    /// A model's element id: it must keep naming the same element; then the same checks.
    async fn wait_element(
        &mut self,
        id: &str,
        obs: &Observation,
        wait_ms: u64,
        t: &mut ActionTimings,
    ) -> Result<(Element, Observation), String> {
        let Some(first) = obs.element(id) else {
            return Err(format!("observation {} has no element {id}", obs.serial));
        };
        let first = first.clone();
        let deadline = Instant::now() + Duration::from_millis(wait_ms);
        let mut prev = first.clone();
        loop {
            let s0 = Instant::now();
            let now = self.observe().await?;
            t.perceive_ms += ms(s0);
            let Some(cur) = now.element(id).cloned() else {
                return Err(format!(
                    "stale: {id} is gone since observation {} (screen changed) — not applied",
                    obs.serial
                ));
            };
            if cur.role != first.role || cur.name != first.name {
                return Err(format!(
                    "stale: {id} now names {} instead of {} (screen changed since observation {}) — not applied",
                    cur.describe(), first.describe(), obs.serial
                ));
            }
            match readiness(&cur, Some(&prev), &now) {
                Ok(()) => return Ok((cur, now)),
                Err(why) if Instant::now() >= deadline => {
                    return Err(format!(
                        "{} is not actionable after waiting {wait_ms} ms: {why}",
                        cur.describe()
                    ))
                }
                Err(_) => {}
            }
            prev = cur;
            tokio::time::sleep(ACTIONABLE_POLL).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm1000_maps_each_axis_by_its_own_size() {
        assert_eq!(
            point_to_px(CoordSpace::Norm1000, 500.0, 250.0, 1080.0, 2400.0),
            (540.0, 600.0)
        );
        assert_eq!(
            point_to_px(CoordSpace::Abs, 2000.0, 10.0, 1080.0, 2400.0),
            (1079.0, 10.0)
        );
    }
}
