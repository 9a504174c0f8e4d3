//! An action is ok only when its effect is seen.
//!
//! Why: on a GTK 4 calculator, `tap "="` was reported ok — the accessibility action answered
//! true — while the app never computed; the screens before and after were the same and the
//! run failed a later assertion for a reason the report never showed.
//!
//! What is effect-checked, and why only that:
//! - **tap** on a tree element whose role exists to be activated — button, link, checkbox,
//!   switch, radio, menu item, tab ([`effect_checked`]). Activating one of these is meant to
//!   change what the screen shows. Taps on anything else are not checked: a tap on a text
//!   field (already focused or not), a label, a list row or a picture legitimately changes
//!   nothing a reader can see, and an element read from pixels (OCR, vision) has no tree
//!   state to compare.
//! - **check / uncheck**: the element must end in the wanted state (read back by its target);
//!   when its state cannot be read, the screen must change, as for a tap.
//! - Not checked here: **type** (verified by the field's value where it can be read, see
//!   `act.rs`), **key** (Enter in a field that submits nothing, Tab that moves focus: no
//!   target to judge and no-change is often right), **double tap** and **long press** (their
//!   effects — a selection, a held-press menu, a drag start — are often invisible to the tree,
//!   and every driver already sends them as pointer events, so no second channel differs).
//!
//! What counts as an effect: the element list (role, name, value, checked and selected
//! states) or the visible text changed within [`EFFECT_WAIT`] of the input, or the device
//! noticed something on its own meanwhile (a navigation the policy blocked, a JavaScript
//! dialog it answered: the app reacted). Focus alone is not an effect: a real pointer click
//! focuses the very button it presses. Screenshots are not compared: the hover highlight
//! and pressed look of the clicked control, and a blinking caret, change pixels when the
//! action did nothing — a pixel diff would call those effects and hide this failure.
//!
//! When no effect is seen after an element's **accessibility action** (which an app may
//! acknowledge and ignore), the same element is tapped through the driver's next delivery
//! [`Channel`] (desktop: accessibility action → a real pointer click through XTest). Real
//! input that showed nothing — a pointer click, CDP mouse events, a phone's tap — is not
//! sent again another way and does not fail the step: it stays `delivered_unverified` with
//! "no visible change" in its detail. Measured on a web benchmark (README, "Measured here";
//! commit 658c0cc): escalating CDP input to DOM `click()` and failing unchanged screens
//! turned 20 of 34 passing episodes into failures — a submit button whose effect is
//! elsewhere shows nothing in the tree, and the second channel pressed it again. The web driver keeps its DOM `click()` channel; the executor does not use it. The first channel
//! that shows an effect makes the action `delivered_verified`, and the detail names it. If
//! none does, the step fails "no visible effect", naming the channels tried, with
//! `delivered_unverified` (the input was delivered; its effect was not seen) and the
//! before/after screenshots on the record. The wait before the next channel keeps a slow
//! but working app (GTK's button activation alone takes 250 ms) from being clicked twice.

use std::time::{Duration, Instant};

use argus_perception::elements::collapse_ws;
use argus_perception::{Element, Observation, Role, Source, Tri};
use argus_protocol::{ActionTimings, Aim, Disposition};

use super::ctx::RunCtx;
use crate::device::web::guard::notes_suffix;
use crate::device::{ActError, ActErrorKind, Channel};
use crate::resolve::{resolve, Purpose};
use crate::run::outcome::{ms, Outcome};

/// How long after an input its effect may take to show before the next channel is tried.
pub const EFFECT_WAIT: Duration = Duration::from_millis(1000);
/// Interval between observations while waiting for an effect.
const EFFECT_POLL: Duration = Duration::from_millis(250);
/// Most delivery channels tried for one tap.
const MAX_CHANNELS: usize = 3;

/// Whether a tap on `el` must show an effect (see the module docs).
pub(crate) fn effect_checked(el: &Element) -> bool {
    el.source == Source::Tree
        && matches!(
            el.role,
            Role::Button
                | Role::Link
                | Role::Checkbox
                | Role::Switch
                | Role::Radio
                | Role::Menuitem
                | Role::Tab
        )
}

/// What an effect is compared on: each element's role, name, value, checked and selected
/// states, and the visible text (focus left out: see the module docs).
pub(crate) fn effect_key(o: &Observation) -> String {
    let mut k: String = o
        .elements
        .iter()
        .map(|e| {
            format!(
                "{}|{}|{}|{:?}|{:?}\n",
                e.role.as_str(),
                collapse_ws(&e.name),
                e.value.as_deref().map(collapse_ws).unwrap_or_default(),
                e.checked,
                e.selected
            )
        })
        .collect();
    k.push_str("--\n");
    k.push_str(&o.text);
    k
}

/// The effect an input should have.
pub(crate) enum Want<'a> {
    /// Any change of [`effect_key`] from this one (the screen before acting).
    Change(String),
    /// The element (found again by its target, or by its node) in the wanted checked
    /// state; a change of the before key when its state cannot be read.
    Checked {
        aim: &'a Aim,
        before: &'a Element,
        checked: bool,
        key: String,
    },
}

/// What an observation says about the wanted effect.
#[derive(Debug, PartialEq)]
pub(crate) enum Seen {
    Yes,
    No,
    /// A check/uncheck left the element in the other state (its description).
    Wrong(String),
}

/// Judges `after` against `want`.
pub(crate) fn judge(want: &Want<'_>, after: &Observation) -> Seen {
    let changed = |key: &str| {
        if effect_key(after) != key {
            Seen::Yes
        } else {
            Seen::No
        }
    };
    match want {
        Want::Change(key) => changed(key),
        Want::Checked {
            aim,
            before,
            checked,
            key,
        } => {
            let now = match aim {
                Aim::Target(t) => resolve(after, t, Purpose::Check).ok(),
                _ => after
                    .elements
                    .iter()
                    .find(|e| e.node_ref == before.node_ref),
            };
            match now {
                Some(now) if now.checked.is_yes() == *checked => Seen::Yes,
                Some(now) if now.checked != Tri::Unknown => Seen::Wrong(format!(
                    "{} is still {}",
                    now.describe(),
                    if *checked { "unchecked" } else { "checked" }
                )),
                _ => changed(key),
            }
        }
    }
}

/// The channels tried, in order, as the failure message names them.
fn channel_list(tried: &[Channel]) -> String {
    let names: Vec<&str> = tried.iter().map(|c| c.as_str()).collect();
    names.join(", then ")
}

impl RunCtx<'_> {
    /// Taps `el` through the device's delivery channels, one after another, until `want` is
    /// seen (see the module docs). Returns the outcome and the last observation.
    pub(crate) async fn tap_until_seen(
        &mut self,
        mut out: Outcome,
        el: &Element,
        want: Want<'_>,
        t: &mut ActionTimings,
    ) -> (Outcome, Option<Observation>) {
        let mut tried: Vec<Channel> = Vec::new();
        let mut after = None;
        let mut last = Seen::No;
        let mut no_more = String::new();
        for n in 0..MAX_CHANNELS {
            let s0 = Instant::now();
            let (sent, tries) = self.tap_channel(el, n).await;
            t.act_ms += ms(s0);
            if tries > 0 {
                out.detail
                    .push_str(&format!(" (repeated {tries}× after not_delivered)"));
            }
            match sent {
                Ok(ch) => tried.push(ch),
                Err(e) if n > 0 && e.disposition == Disposition::NotDelivered => {
                    if e.kind != ActErrorKind::NotSupported {
                        no_more = format!(" (the next channel could not be sent: {})", e.message);
                    } else if n == 1 {
                        no_more = " (this device has no other delivery channel)".into();
                    }
                    break;
                }
                Err(e) => {
                    let out = out.act_error(e);
                    return (out, self.observe_effect(t).await);
                }
            }
            out.disposition = Disposition::DeliveredUnverified;
            let (o, seen, notes) = self.await_effect(&want, t).await;
            after = o;
            match seen {
                Some(Seen::Yes) => {
                    out.disposition = Disposition::DeliveredVerified;
                    out.detail.push_str(&seen_detail(&tried, &notes));
                    return (out, after);
                }
                // The screen cannot be observed: the input stays unverified, as before.
                None => return (out, after),
                Some(s) => last = s,
            }
            if !tried.contains(&Channel::AccessibilityAction) {
                // Real input (a pointer click, CDP mouse events, the platform's tap) that
                // showed nothing is not sent again another way: a working control that shows
                // nothing would be pressed twice. It stays delivered, unverified.
                out.detail.push_str(&format!(
                    " (no visible change within {} ms of the {}; not sent again)",
                    EFFECT_WAIT.as_millis(),
                    channel_list(&tried)
                ));
                return (out, after);
            }
        }
        let what = match last {
            Seen::Wrong(m) => format!("{m} after the {}", channel_list(&tried)),
            _ => format!(
                "{} was activated through the {} and the screen did not change within {} ms",
                el.describe(),
                channel_list(&tried),
                EFFECT_WAIT.as_millis()
            ),
        };
        (
            out.fail(format!("no visible effect: {what}{no_more}")),
            after,
        )
    }

    /// One tap through channel `n`, and how often it was repeated: the first channel is
    /// repeated when it failed `not_delivered` (as every input is), later ones are not.
    async fn tap_channel(&mut self, el: &Element, n: usize) -> (Result<Channel, ActError>, u32) {
        let mut tries = 0;
        loop {
            match self.dev.tap_through(el, n).await {
                Err(e)
                    if n == 0
                        && e.disposition == Disposition::NotDelivered
                        && e.kind == ActErrorKind::Failed
                        && tries < crate::run::outcome::NOT_DELIVERED_RETRIES =>
                {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                res => return (res, tries),
            }
        }
    }

    /// Observes until `want` is seen or [`EFFECT_WAIT`] has passed: the last observation,
    /// the judgement (`None`: the screen could not be observed) and what the device noticed
    /// on its own meanwhile (which counts as an effect).
    async fn await_effect(
        &mut self,
        want: &Want<'_>,
        t: &mut ActionTimings,
    ) -> (Option<Observation>, Option<Seen>, Vec<String>) {
        let deadline = Instant::now() + EFFECT_WAIT;
        loop {
            let Some(o) = self.observe_effect(t).await else {
                return (None, None, Vec::new());
            };
            let seen = judge(want, &o);
            if seen == Seen::Yes {
                return (Some(o), Some(seen), Vec::new());
            }
            let notes = self.dev.take_notes();
            if !notes.is_empty() {
                return (Some(o), Some(Seen::Yes), notes);
            }
            if Instant::now() >= deadline {
                return (Some(o), Some(seen), notes);
            }
            tokio::time::sleep(EFFECT_POLL).await;
        }
    }

    async fn observe_effect(&mut self, t: &mut ActionTimings) -> Option<Observation> {
        let s0 = Instant::now();
        let o = self.observe().await.ok();
        t.perceive_ms += ms(s0);
        o
    }
}

/// The detail suffix of a tap whose effect was seen: which channel produced it, which did
/// not, and what the device noticed when that was the effect.
fn seen_detail(tried: &[Channel], notes: &[String]) -> String {
    let Some((last, before)) = tried.split_last() else {
        return String::new();
    };
    let mut d = format!(" — effect seen after the {}", last.as_str());
    if !before.is_empty() {
        d.push_str(&format!(" (the {} showed none)", channel_list(before)));
    }
    if !notes.is_empty() {
        d.push_str(&format!(": the device noticed{}", notes_suffix(notes)));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_detail_names_the_channel_that_worked_and_those_that_did_not() {
        let d = seen_detail(&[Channel::AccessibilityAction, Channel::XTestPointer], &[]);
        assert_eq!(
            d,
            " — effect seen after the pointer click (XTest) (the accessibility action showed none)"
        );
        assert_eq!(
            seen_detail(&[Channel::CdpInput], &[]),
            " — effect seen after the CDP mouse input"
        );
    }

    #[test]
    fn failures_name_every_channel_in_order() {
        assert_eq!(
            channel_list(&[Channel::CdpInput, Channel::DomClick]),
            "CDP mouse input, then DOM click()"
        );
    }
}
