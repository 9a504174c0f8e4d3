//! The built-in popup policy, run between steps unless the job sets `popups: false`.
//!
//! This file *is* the policy, kept as plain tables so it can be reviewed line by line:
//!
//! 1. A popup is on screen when a named dialog is shown, or the visible text contains one of
//!    [`TRIGGERS`] (cookie banners, update prompts, ads, guides / tours).
//! 2. If the popup's text (the dialog's name and the whole screen text) contains any of
//!    [`NEVER`] — payment, deletion, account, permission or sharing prompts — the policy does
//!    nothing: a person or the planner must decide.
//! 3. Otherwise it taps the one uncovered, enabled button or link whose label is exactly one
//!    of [`DISMISS`] (case-insensitive, whitespace-collapsed). It never taps anything else —
//!    in particular never "Accept", "Allow", "OK" or "Continue".

use argus_perception::elements::collapse_ws;
use std::time::Instant;

use argus_perception::{Element, Observation, Role, Tri};
use argus_protocol::{ActionTimings, Disposition};
use chrono::Utc;

use super::act::Input;
use super::exec::Exec;
use super::outcome::{ms, targeted, StepFail};
use super::record::{Record, RecordKind};

/// Text that signals a dismissable popup.
pub const TRIGGERS: &[&str] = &[
    "cookie",
    "cookies",
    "update available",
    "new version",
    "update now",
    "advertisement",
    "sponsored",
    "take the tour",
    "what's new",
    "rate this app",
    "enable notifications",
    "subscribe to our newsletter",
    "广告",
    "新版本",
    "立即更新",
    "新手引导",
    "开启通知",
];

/// Labels the policy may tap to close a popup.
pub const DISMISS: &[&str] = &[
    "reject all",
    "reject",
    "decline",
    "necessary only",
    "only necessary",
    "use necessary cookies only",
    "not now",
    "no thanks",
    "no, thanks",
    "maybe later",
    "later",
    "remind me later",
    "skip",
    "skip tour",
    "close",
    "dismiss",
    "got it",
    "×",
    "✕",
    "x",
    "以后再说",
    "暂不",
    "暂不更新",
    "跳过",
    "关闭",
    "我知道了",
    "不再提示",
];

/// If the popup mentions any of these, the policy never touches it.
pub const NEVER: &[&str] = &[
    "pay",
    "payment",
    "purchase",
    "buy now",
    "checkout",
    "delete",
    "remove account",
    "erase",
    "sign out",
    "log out",
    "permission",
    "share",
    "contacts",
    "location",
    "account",
    "transfer",
    "支付",
    "付款",
    "购买",
    "删除",
    "注销",
    "授权",
    "权限",
    "分享",
    "账户",
    "账号",
    "转账",
];

/// What the policy decided for one screen.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision<'a> {
    /// No popup.
    None,
    /// A popup the policy must not touch; the reason names the rule.
    Leave(String),
    /// Tap this element to dismiss it.
    Dismiss(&'a Element, String),
}

fn has_word(hay: &str, needle: &str) -> bool {
    if !needle.is_ascii() {
        return hay.contains(needle);
    }
    hay.match_indices(needle).any(|(i, _)| {
        let before = hay[..i].chars().next_back();
        let after = hay[i + needle.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Applies the policy to one observation.
pub fn decide(obs: &Observation) -> Decision<'_> {
    let text = obs.text.to_lowercase();
    let dialog = obs
        .elements
        .iter()
        .find(|e| e.role == Role::Dialog && !e.name.trim().is_empty());
    let trigger = TRIGGERS.iter().find(|t| has_word(&text, t));
    if dialog.is_none() && trigger.is_none() {
        return Decision::None;
    }
    let scope = format!(
        "{} {}",
        dialog.map(|d| d.name.to_lowercase()).unwrap_or_default(),
        text
    );
    if let Some(w) = NEVER.iter().find(|w| has_word(&scope, w)) {
        return Decision::Leave(format!("the popup mentions {w:?}; left for the planner"));
    }
    let candidates: Vec<&Element> = obs
        .elements
        .iter()
        .filter(|e| matches!(e.role, Role::Button | Role::Link))
        .filter(|e| e.enabled != Tri::No && !e.covered.is_yes())
        .filter(|e| {
            let l = collapse_ws(&e.name).to_lowercase();
            DISMISS.contains(&l.as_str())
        })
        .collect();
    match candidates.as_slice() {
        [one] => Decision::Dismiss(
            one,
            format!(
                "dismiss popup ({}) with {}",
                trigger.copied().unwrap_or("dialog"),
                one.describe()
            ),
        ),
        [] => Decision::Leave("a popup without a known dismiss button".into()),
        _ => Decision::Leave(format!(
            "{} possible dismiss buttons; not guessing",
            candidates.len()
        )),
    }
}

impl<S> Exec<'_, S> {
    /// Runs the popup policy on `obs` (unless the job turned it off); records a `popup`
    /// action as action 0 of `step` when it dismissed one. Returns whether it did.
    pub(crate) async fn popup_pass(
        &mut self,
        step: u32,
        obs: &Observation,
    ) -> Result<bool, StepFail> {
        if !self.ctx.spec.popups {
            return Ok(false);
        }
        let (el, why) = match decide(obs) {
            Decision::None => return Ok(false),
            Decision::Leave(why) => {
                tracing::info!(run_id = %self.ctx.run_id, reason = %why, "popup left alone");
                return Ok(false);
            }
            Decision::Dismiss(el, why) => (el.clone(), why),
        };
        let started_at = Utc::now();
        let mut t = ActionTimings::default();
        let mask = self.ctx.mask_for(obs);
        let before_key = self.ctx.shot(step, 0, "before", &mask, &mut t).await;
        let start = Instant::now();
        let r = self.ctx.send(&Input::Tap(&el)).await;
        t.act_ms = ms(start);
        let (error, disposition) = match r {
            Ok(()) => (None, Disposition::DeliveredUnverified),
            Err(e) => (Some(e.message), e.disposition),
        };
        let after_key = self.ctx.shot(step, 0, "after", &mask, &mut t).await;
        let rec = Record::new(step, 0, RecordKind::Popup, why, started_at)
            .result(error, disposition)
            .target(Some(targeted(&el)))
            .shots(before_key, after_key)
            .timings(t)
            .on(Some(obs))
            .geometry(Some(el.bbox_px.center().into()), None, None)
            .screen_of(obs);
        self.rec.emit_action(rec.done()).await?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use argus_perception::tree::{Node, Tree};
    use argus_perception::{build, Rect, Screen};

    fn obs(items: &[(Role, &str)]) -> Observation {
        let mut nodes = vec![{
            let mut n = Node::new(Role::Other, "root", "");
            n.bounds = Some(Rect::new(0.0, 0.0, 400.0, 600.0));
            n
        }];
        for (i, (r, name)) in items.iter().enumerate() {
            let mut n = Node::new(*r, r.as_str(), name);
            n.bounds = Some(Rect::new(10.0, 10.0 + 40.0 * i as f64, 200.0, 30.0));
            n.parent = Some(0);
            nodes.push(n);
        }
        build(
            &Tree { nodes },
            Screen {
                width: 400.0,
                height: 600.0,
                dpr: 1.0,
            },
            1,
        )
    }

    #[test]
    fn dismisses_cookie_banner_but_never_payment() {
        let o = obs(&[
            (Role::Text, "We use cookies"),
            (Role::Button, "Accept all"),
            (Role::Button, "Reject all"),
        ]);
        match decide(&o) {
            Decision::Dismiss(e, _) => assert_eq!(e.name, "Reject all"),
            d => panic!("{d:?}"),
        }
        let o = obs(&[
            (Role::Text, "New version: confirm payment of $5"),
            (Role::Button, "Not now"),
        ]);
        assert!(matches!(decide(&o), Decision::Leave(_)));
        let o = obs(&[(Role::Text, "todos"), (Role::Button, "Clear completed")]);
        assert_eq!(decide(&o), Decision::None);
    }
}
