//! The one execution path of an [`Action`], whatever decided it (a script line, a model's
//! tool call, the popup policy): `act(&Action, &Observation)` → [`Acted`].
//!
//! Aimed actions first wait for their target ([`crate::run::aim`]: exists, visible, enabled, not
//! covered, stable across two observations — Playwright's actionability checks), then send
//! one input through the device's capability traits, repeating it only when it failed
//! `not_delivered`; checks (`wait for`, `assert`) read observations — a check of one
//! element's state waits for its target to exist (not to be actionable) and reads it
//! ([`crate::checks`]); every acting kind ends with a fresh observation for the reflector and
//! the after-screenshot's mask. A tap on a control and a check/uncheck are ok only when their
//! effect is seen ([`crate::run::effect`]: the next delivery channel when the first shows none,
//! else "no visible effect").

use std::time::{Duration, Instant};

use argus_perception::elements::collapse_ws;
use argus_perception::{Element, Observation, Role};
use argus_protocol::action::{SWIPE_FRACTION, SWIPE_MS};
use argus_protocol::{Action, ActionTimings, Aim, Direction, Disposition, Key};

use super::ctx::RunCtx;
use crate::checks;
use crate::device::web::guard::notes_suffix;
use crate::device::{ActError, ActErrorKind};
use crate::resolve::Purpose;
use crate::run::aim::Aimed;
use crate::run::effect::{effect_checked, effect_key, Want};
use crate::run::outcome::{ms, targeted, Outcome, NOT_DELIVERED_RETRIES};
use crate::secrets::rules::typed_into;

/// Poll interval of `wait for`.
const WAIT_POLL: Duration = Duration::from_millis(100);

/// One device input.
pub(crate) enum Input<'e> {
    Tap(&'e Element),
    DoubleTap(&'e Element),
    LongPress(&'e Element, u64),
    Type(&'e Element, &'e str),
    TypeFocused(&'e str),
    Swipe((f64, f64), (f64, f64)),
    Key(Key),
    Open(&'e str),
    Back,
}

/// What acting did: the outcome, where it acted (device px: the point of a tap-like input —
/// a model's point or the target's centre — and a swipe's start and end), and the observation
/// after acting (acting kinds only). The report draws the geometry over the before-screenshot.
pub(crate) struct Acted {
    pub(crate) out: Outcome,
    pub(crate) point: Option<(f64, f64)>,
    pub(crate) swipe: Option<((f64, f64), (f64, f64))>,
    pub(crate) after: Option<Observation>,
}

impl Acted {
    fn done(out: Outcome) -> Acted {
        Acted::observed(out, None)
    }

    /// An outcome with the observation taken after acting (no point).
    fn observed(out: Outcome, after: Option<Observation>) -> Acted {
        Acted {
            out,
            point: None,
            swipe: None,
            after,
        }
    }

    /// The geometry of this action for its record: `point_px` and `swipe_px`.
    pub(crate) fn geometry(&self) -> (Option<[f64; 2]>, Option<[f64; 4]>) {
        (
            self.point.map(|(x, y)| [x, y]),
            self.swipe.map(|((a, b), (c, d))| [a, b, c, d]),
        )
    }
}

/// First 200 chars of the visible text, for failure messages.
pub(crate) fn excerpt(obs: &Observation) -> String {
    let t: String = obs.text.chars().take(200).collect();
    if obs.text.chars().count() > 200 {
        format!("{t:?}…")
    } else {
        format!("{t:?}")
    }
}

/// Start and end of a swipe in `direction` across `area` (device px): centred,
/// [`SWIPE_FRACTION`] of the area's size along the axis.
pub fn swipe_points(
    direction: Direction,
    area: argus_perception::Rect,
) -> ((f64, f64), (f64, f64)) {
    let (cx, cy) = area.center();
    let (vx, vy) = direction.vector();
    let (dx, dy) = (
        vx * area.w * SWIPE_FRACTION / 2.0,
        vy * area.h * SWIPE_FRACTION / 2.0,
    );
    ((cx - dx, cy - dy), (cx + dx, cy + dy))
}

impl RunCtx<'_> {
    /// Performs `action` against `obs` (see the module docs). Timings go into `t`. What
    /// the device noticed meanwhile (requests the navigation policy blocked, JavaScript
    /// dialogs it answered) is appended to the action's detail.
    pub(crate) async fn act(
        &mut self,
        action: &Action,
        obs: &Observation,
        t: &mut ActionTimings,
    ) -> Acted {
        let mut acted = self.act_once(action, obs, t).await;
        let notes = self.dev.take_notes();
        acted.out.detail.push_str(&notes_suffix(&notes));
        acted
    }

    /// [`Self::act`] without the device's notes.
    async fn act_once(
        &mut self,
        action: &Action,
        obs: &Observation,
        t: &mut ActionTimings,
    ) -> Acted {
        let out = Outcome::new(action.describe());
        if let Some(named) = action.observation() {
            if named != obs.serial {
                return Acted::done(out.fail(format!(
                    "stale: the call names observation {named} but the screen is observation {}; element ids are valid for one observation only — not applied",
                    obs.serial
                )));
            }
        }
        match action {
            Action::WaitFor { text, timeout_ms } => {
                Acted::done(self.wait_for(out, text, *timeout_ms, obs, t).await)
            }
            Action::Sleep { ms: d } => {
                tokio::time::sleep(Duration::from_millis(*d)).await;
                Acted::done(out)
            }
            Action::AssertContains { text } => Acted::done(if obs.contains_text(text) {
                out
            } else {
                out.fail(format!(
                    "the screen does not contain {text:?}; it shows: {}",
                    excerpt(obs)
                ))
            }),
            Action::AssertNotContains { text } => Acted::done(if obs.contains_text(text) {
                out.fail(format!("the screen contains {text:?}"))
            } else {
                out
            }),
            Action::AssertCount { text, count } => {
                Acted::done(checked_out(out, checks::count(obs, text, *count)))
            }
            Action::AssertItems { checked, count } => {
                Acted::done(checked_out(out, checks::items(obs, *checked, *count)))
            }
            Action::AssertChecked { target, .. } | Action::AssertValue { target, .. } => {
                Acted::done(self.assert_element(out, action, target, obs, t).await)
            }
            Action::Finish { .. } => Acted::done(out),
            Action::Fail { reason } => Acted::done(out.fail(reason.clone())),
            Action::Open { url } => {
                // After the first plan, a page opened or left is the model's move.
                self.left_the_screen |= self.start_obs.is_some();
                self.unaimed(out, Input::Open(url), t).await
            }
            Action::Key { key } => self.unaimed(out, Input::Key(*key), t).await,
            Action::Back => {
                self.left_the_screen |= self.start_obs.is_some();
                self.unaimed(out, Input::Back, t).await
            }
            Action::ScrollUntil {
                text,
                direction,
                max_swipes,
            } => {
                self.scroll_until(out, text, *direction, *max_swipes, obs, t)
                    .await
            }
            Action::Swipe { direction, on } => self.swipe(out, *direction, on, obs, t).await,
            Action::Type {
                text,
                target: Aim::Focused,
            } => {
                // The focused field, as the observation shows it, gets the search-box rule.
                let focused = obs.elements.iter().find(|e| e.focused.is_yes());
                match focused.map_or(Ok(()), |e| typed_into(text, &e.platform_role)) {
                    Err(m) => Acted::done(out.fail(m)),
                    Ok(()) => self.type_focused(out, text, t).await,
                }
            }
            Action::Tap { target }
            | Action::DoubleTap { target }
            | Action::LongPress { target, .. }
            | Action::SetChecked { target, .. }
            | Action::Type { target, .. } => self.aimed(out, action, target, obs, t).await,
        }
    }

    /// `assert "X" is checked` / `has value "v"`: waits for the target to exist (see
    /// [`Exec::wait_present`]), then reads its state.
    async fn assert_element(
        &mut self,
        mut out: Outcome,
        action: &Action,
        aim: &Aim,
        obs: &Observation,
        t: &mut ActionTimings,
    ) -> Outcome {
        let purpose = match action {
            Action::AssertValue { .. } => Purpose::Type,
            _ => Purpose::Check,
        };
        let el = match self.wait_present(aim, obs, purpose, t).await {
            Ok(el) => el,
            Err(m) => return out.fail(m),
        };
        out.target = Some(targeted(&el));
        let res = match action {
            Action::AssertChecked { checked, .. } => checks::checked(&el, *checked),
            Action::AssertValue { value, .. } => match self.env.secrets.resolve(value) {
                Ok(real) => checks::value(&el, &real, value),
                Err(m) => Err(m),
            },
            _ => Ok(out.detail.clone()),
        };
        checked_out(out, res)
    }

    async fn wait_for(
        &mut self,
        out: Outcome,
        text: &str,
        timeout_ms: u64,
        obs: &Observation,
        t: &mut ActionTimings,
    ) -> Outcome {
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        let mut current = obs.contains_text(text);
        while !current && Instant::now() < deadline {
            tokio::time::sleep(WAIT_POLL).await;
            let start = Instant::now();
            let o = self.observe().await;
            t.perceive_ms += ms(start);
            match o {
                Ok(o) => current = o.contains_text(text),
                Err(e) => {
                    return out.fail_device(format!("cannot observe the screen: {e}"));
                }
            }
        }
        if !current {
            return out.fail(format!(
                "{text:?} did not appear within {timeout_ms} ms; screen shows: {}",
                excerpt(obs)
            ));
        }
        out
    }

    /// `type "…"` with no field: key strokes to the focused window, then a fresh observation.
    /// Unverified (nothing names where the text went); a later `assert` / `wait for` checks
    /// the screen.
    async fn type_focused(&mut self, mut out: Outcome, text: &str, t: &mut ActionTimings) -> Acted {
        out.detail = format!(
            "type {} chars into the focused window",
            text.chars().count()
        );
        match self.env.secrets.resolve(text) {
            Err(m) => Acted::done(out.fail(m)),
            Ok(real) => self.unaimed(out, Input::TypeFocused(&real), t).await,
        }
    }

    /// An input with no target (open, key), then a fresh observation.
    async fn unaimed(&mut self, out: Outcome, input: Input<'_>, t: &mut ActionTimings) -> Acted {
        let s0 = Instant::now();
        let out = self.input(out, input).await;
        t.act_ms += ms(s0);
        let after = self.observe_timed(t).await;
        Acted::observed(out, after)
    }

    async fn observe_timed(&mut self, t: &mut ActionTimings) -> Option<Observation> {
        let s0 = Instant::now();
        let o = self.observe().await.ok();
        t.perceive_ms += ms(s0);
        o
    }

    /// A swipe across the target (waited for like any target) or the middle of the screen.
    /// A vertical screen swipe on a device without swipes falls back to PageUp / PageDown.
    async fn swipe(
        &mut self,
        mut out: Outcome,
        direction: Direction,
        on: &Option<Aim>,
        obs: &Observation,
        t: &mut ActionTimings,
    ) -> Acted {
        let area = match on {
            Some(aim) => match self.wait_aim(aim, obs, Purpose::Tap, 0, t).await {
                Ok(Aimed { el, .. }) => {
                    out.target = Some(targeted(&el));
                    el.bbox_px
                }
                Err(m) => return Acted::done(out.fail(m)),
            },
            None => {
                let (w, h) = obs.screen.device_size();
                argus_perception::Rect::new(0.0, 0.0, w as f64, h as f64)
            }
        };
        let (from, to) = swipe_points(direction, area);
        let s0 = Instant::now();
        let mut res = self.send(&Input::Swipe(from, to)).await;
        let mut swipe = Some((from, to));
        if let Err(e) = &res {
            let fallback = match direction {
                Direction::Up => Some(Key::PageDown),
                Direction::Down => Some(Key::PageUp),
                _ => None,
            };
            if let (ActErrorKind::NotSupported, None, Some(k)) = (e.kind, on, fallback) {
                out.detail
                    .push_str(&format!(" (as {}: no swipe here)", k.as_str()));
                swipe = None;
                res = self.send(&Input::Key(k)).await;
            }
        }
        t.act_ms += ms(s0);
        let out = match res {
            Ok(()) => {
                out.disposition = Disposition::DeliveredUnverified;
                out
            }
            Err(e) => out.act_error(e),
        };
        let after = self.observe_timed(t).await;
        Acted {
            swipe,
            ..Acted::observed(out, after)
        }
    }

    /// Swipes until the screen contains `text`, at most `max_swipes` times. (No early stop on
    /// an unchanged screen: a long blank stretch of a page looks the same as its end.)
    async fn scroll_until(
        &mut self,
        mut out: Outcome,
        text: &str,
        direction: Direction,
        max_swipes: u32,
        obs: &Observation,
        t: &mut ActionTimings,
    ) -> Acted {
        if obs.contains_text(text) {
            out.detail.push_str(" (already visible)");
            return Acted::done(out);
        }
        let mut swipe = None;
        for n in 1..=max_swipes {
            let acted = self.swipe(out, direction, &None, obs, t).await;
            out = acted.out;
            swipe = acted.swipe;
            let Some(after) = acted.after else {
                return Acted {
                    swipe,
                    ..Acted::done(out.fail_device("cannot observe the screen after a swipe".into()))
                };
            };
            if !out.ok() {
                return Acted {
                    swipe,
                    ..Acted::observed(out, Some(after))
                };
            }
            if after.contains_text(text) {
                out.detail = format!(
                    "swiped {} {n}× until {text:?} was visible",
                    direction.as_str()
                );
                return Acted {
                    swipe,
                    ..Acted::observed(out, Some(after))
                };
            }
        }
        let msg = format!(
            "{text:?} did not appear after {max_swipes} swipes {}",
            direction.as_str()
        );
        Acted {
            swipe,
            ..Acted::done(out.fail(msg))
        }
    }

    /// Tap, double tap, long press, type and check/uncheck: wait for the target, act, verify
    /// what can be verified (a typed value; a checked state and a control's effect through
    /// [`crate::run::effect`], which tries the device's next delivery channel when none shows).
    async fn aimed(
        &mut self,
        mut out: Outcome,
        action: &Action,
        aim: &Aim,
        obs: &Observation,
        t: &mut ActionTimings,
    ) -> Acted {
        let (purpose, extra) = match action {
            Action::Type { text, .. } => (Purpose::Type, crate::run::aim::type_extra_wait_ms(text)),
            Action::SetChecked { .. } => (Purpose::Check, 0),
            Action::DoubleTap { .. } => (Purpose::DoubleTap, 0),
            _ => (Purpose::Tap, 0),
        };
        let Aimed {
            el,
            point,
            seen,
            revealed,
        } = match self.wait_aim(aim, obs, purpose, extra, t).await {
            Ok(a) => a,
            Err(m) => return Acted::done(out.fail(m)),
        };
        out.target = Some(targeted(&el));
        // Where a tap-like input lands: the model's point, else the target's centre (what
        // every driver aims at). Typing has no point: it goes to the field.
        let point = match action {
            Action::Type { .. } => point,
            _ => point.or_else(|| Some(el.bbox_px.center())),
        };
        if let Some(d) = aimed_detail(action, &el) {
            out.detail = d;
        }
        out.detail.push_str(revealed.as_deref().unwrap_or_default());
        if let Action::SetChecked { checked, .. } = action {
            if el.checked.is_yes() == *checked {
                out.detail.push_str(" (already in that state)");
                return Acted {
                    out,
                    point,
                    swipe: None,
                    after: None,
                };
            }
        }
        // Taps on controls and check/uncheck must show their effect (see `crate::run::effect`).
        if let Some(want) = effect_want(action, aim, &el, seen.as_ref().unwrap_or(obs)) {
            let (out, after) = self.tap_until_seen(out, &el, want, t).await;
            return Acted {
                out,
                point,
                swipe: None,
                after,
            };
        }
        let s0 = Instant::now();
        let out = match action {
            Action::Tap { .. } | Action::SetChecked { .. } => {
                self.input(out, Input::Tap(&el)).await
            }
            Action::DoubleTap { .. } => self.input(out, Input::DoubleTap(&el)).await,
            Action::LongPress { duration_ms, .. } => {
                self.input(out, Input::LongPress(&el, *duration_ms)).await
            }
            Action::Type { text, .. } => match typed_into(text, &el.platform_role)
                .and_then(|()| self.env.secrets.resolve(text))
            {
                Err(m) => out.fail(m),
                Ok(real) => self.input(out, Input::Type(&el, &real)).await,
            },
            _ => out,
        };
        t.act_ms += ms(s0);
        let after = self.observe_timed(t).await;
        let out = match (&after, action) {
            (Some(a), Action::Type { text, .. }) if out.ok() && !el.password.is_yes() => {
                // A password field's value is never read back.
                verify_typed(out, a, &el, text)
            }
            _ => out,
        };
        Acted {
            out,
            point,
            swipe: None,
            after,
        }
    }

    pub(crate) async fn send(&mut self, input: &Input<'_>) -> Result<(), ActError> {
        match input {
            Input::Tap(el) => self.dev.tap(el).await,
            Input::DoubleTap(el) => self.dev.double_tap(el).await,
            Input::LongPress(el, d) => self.dev.long_press(el, *d).await,
            Input::Type(el, text) => self.dev.type_text(el, text).await,
            Input::TypeFocused(text) => self.dev.type_focused(text).await,
            Input::Swipe(a, b) => self.dev.swipe(*a, *b, SWIPE_MS).await,
            Input::Key(k) => self.dev.key(*k).await,
            Input::Open(u) => self.dev.open(u).await,
            Input::Back => self.dev.back().await,
        }
    }

    /// Runs an input; repeats it only when it failed `not_delivered` (nothing reached the
    /// device), at most [`NOT_DELIVERED_RETRIES`] times — never a `not_supported` one. Any
    /// other failure is final: a `delivery_uncertain` input may have landed and is never
    /// sent again automatically.
    pub(crate) async fn input(&mut self, mut out: Outcome, input: Input<'_>) -> Outcome {
        let mut tries = 0;
        loop {
            match self.send(&input).await {
                Ok(()) => {
                    out.disposition = Disposition::DeliveredUnverified;
                    if tries > 0 {
                        out.detail
                            .push_str(&format!(" (repeated {tries}× after not_delivered)"));
                    }
                    return out;
                }
                Err(e)
                    if e.disposition == Disposition::NotDelivered
                        && e.kind == ActErrorKind::Failed
                        && tries < NOT_DELIVERED_RETRIES =>
                {
                    tries += 1;
                    tracing::info!(run_id = %self.run_id, "input not delivered; repeating it");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(e) => return out.act_error(e),
            }
        }
    }
}

/// A check's outcome: its detail line when it held, else its failure.
fn checked_out(mut out: Outcome, res: Result<String, String>) -> Outcome {
    match res {
        Ok(detail) => {
            out.detail = detail;
            out
        }
        Err(m) => out.fail(m),
    }
}

/// The effect a tap-like action must show, when it is checked (see [`crate::run::effect`]):
/// a tap on a control changes the screen; check/uncheck leaves the element in that state.
fn effect_want<'a>(
    action: &Action,
    aim: &'a Aim,
    el: &'a Element,
    before: &Observation,
) -> Option<Want<'a>> {
    match action {
        Action::Tap { .. } if effect_checked(el) => Some(Want::Change(effect_key(before))),
        Action::SetChecked { checked, .. } => Some(Want::Checked {
            aim,
            before: el,
            checked: *checked,
            key: effect_key(before),
        }),
        _ => None,
    }
}

/// After typing: the element's value holds the typed text (then `delivered_verified`).
fn verify_typed(mut out: Outcome, after: &Observation, el: &Element, text: &str) -> Outcome {
    let want = collapse_ws(text);
    let landed = after.elements.iter().any(|e| {
        e.node_ref == el.node_ref
            && e.value
                .as_deref()
                .is_some_and(|v| collapse_ws(v).contains(&want))
    });
    if landed {
        out.disposition = Disposition::DeliveredVerified;
        return out;
    }
    // Typed "into" a label, heading, button or picture (a form whose label is not tied to its
    // field; measured: a small model typing a date into the Submit button):
    // the keys went nowhere a reader can see. Said at once, not found by a later check.
    let not_a_field = !matches!(el.role, Role::Textfield | Role::Combobox) && !el.editable.is_yes();
    if not_a_field && !after.contains_text(text) {
        return out.fail(format!(
            "typed into {}, which is not a text field, and the text shows nowhere on the screen;              name the field itself, e.g. `type \"…\" into the textfield right of {:?}`",
            el.describe(),
            el.name
        ));
    }
    out
}

/// The record's detail of an aimed action on `el` (`tap e3 button "Save"`, `type 4 chars
/// into …`); `None` for an action that is not aimed.
fn aimed_detail(action: &Action, el: &Element) -> Option<String> {
    Some(match action {
        Action::Tap { .. } => format!("tap {}", el.describe()),
        Action::DoubleTap { .. } => format!("double tap {}", el.describe()),
        Action::LongPress { duration_ms, .. } => {
            format!("long press {} for {duration_ms} ms", el.describe())
        }
        Action::SetChecked { checked, .. } => format!(
            "{} {}",
            if *checked { "check" } else { "uncheck" },
            el.describe()
        ),
        Action::Type { text, .. } => {
            format!("type {} chars into {}", text.chars().count(), el.describe())
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_perception::Rect;

    #[test]
    fn swipes_are_centred_along_their_axis() {
        let screen = Rect::new(0.0, 0.0, 1000.0, 2000.0);
        assert_eq!(
            swipe_points(Direction::Up, screen),
            ((500.0, 1400.0), (500.0, 600.0))
        );
        assert_eq!(
            swipe_points(Direction::Right, screen),
            ((300.0, 1000.0), (700.0, 1000.0))
        );
    }
}
