//! The one place an [`ActionRecord`] is built: [`RecordKind`] says what the record is of (an
//! action, or one of the run's own records: a plan, a popup dismissal, an `if` check, the
//! judge, a model reply that sent nothing), and [`Record`] fills the record from what the
//! step knows (outcome, observation, screenshots, timings) in one chain.

use argus_perception::Observation;
use argus_protocol::action::ActionKind;
use argus_protocol::{
    ActionRecord, ActionSource, ActionTimings, Disposition, ModelUsage, Reflection, TargetedElement,
};
use chrono::{DateTime, Utc};

use super::outcome::Outcome;

/// What an action record is of; its wire name is the record's `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecordKind {
    /// An [`argus_protocol::Action`] (its tool name: `tap`, `type`, …).
    Action(ActionKind),
    /// The planner's answer (`plan`).
    Plan,
    /// A popup the policy dismissed before a step (`popup`).
    Popup,
    /// An `if` block's condition (`if`).
    If,
    /// The judge's answer at the end of an unverified run (`judge`).
    Judge,
    /// A model reply from which no action could be sent (`model`).
    Model,
}

impl RecordKind {
    /// The `kind` string the record carries on the wire (the report reads it).
    pub(crate) fn wire(self) -> &'static str {
        match self {
            RecordKind::Action(k) => k.name(),
            RecordKind::Plan => "plan",
            RecordKind::Popup => "popup",
            RecordKind::If => "if",
            RecordKind::Judge => "judge",
            RecordKind::Model => "model",
        }
    }

    /// Whether a record of `kind` (a wire name) is the run's own (plan, judge) rather than an
    /// action on the app: the action log leaves those out.
    pub(crate) fn is_bookkeeping(kind: &str) -> bool {
        [RecordKind::Plan, RecordKind::Judge]
            .iter()
            .any(|k| k.wire() == kind)
    }
}

/// An action record being filled in; [`Record::done`] hands it over.
pub(crate) struct Record(ActionRecord);

impl Record {
    /// The record of action `action` of step `step`: a `kind` described by `detail`,
    /// started at `started_at`; ok and not delivered until told otherwise.
    pub(crate) fn new(
        step: u32,
        action: u32,
        kind: RecordKind,
        detail: String,
        started_at: DateTime<Utc>,
    ) -> Record {
        Record(ActionRecord::new(
            step,
            action,
            kind.wire(),
            detail,
            true,
            None,
            Disposition::NotDelivered,
            started_at,
        ))
    }

    /// Sets the result: `error` is `None` when it went well; `retry` follows `disposition`.
    pub(crate) fn result(mut self, error: Option<String>, disposition: Disposition) -> Record {
        self.0.ok = error.is_none();
        self.0.error = error;
        self.0.disposition = disposition;
        self.0.retry = disposition.retry();
        self
    }

    /// Sets the result, disposition and target of an action's [`Outcome`].
    pub(crate) fn outcome(self, out: &Outcome) -> Record {
        let mut r = self.result(out.error(), out.disposition);
        r.0.target = out.target.clone();
        r
    }

    /// The element acted on.
    pub(crate) fn target(mut self, t: Option<TargetedElement>) -> Record {
        self.0.target = t;
        self
    }

    /// The screenshots' keys, before and after.
    pub(crate) fn shots(mut self, before: Option<String>, after: Option<String>) -> Record {
        self.0.before_key = before;
        self.0.after_key = after;
        self
    }

    /// The phase split.
    pub(crate) fn timings(mut self, t: ActionTimings) -> Record {
        self.0.timings = t;
        self
    }

    /// The observation the action was aimed on: its serial and how it was perceived.
    pub(crate) fn on(mut self, obs: Option<&Observation>) -> Record {
        self.0.observation = obs.map(|o| o.serial);
        self.0.perception = obs.and_then(crate::perceive::note);
        self
    }

    /// The size of the screen of `obs`, device px (the space of the record's boxes).
    pub(crate) fn screen_of(mut self, obs: &Observation) -> Record {
        let (w, h) = obs.screen.device_size();
        self.0.screen_px = Some([w, h]);
        self
    }

    /// Where the action aimed and swiped, and the screen size, device px.
    pub(crate) fn geometry(
        mut self,
        point: Option<[f64; 2]>,
        swipe: Option<[f64; 4]>,
        screen: Option<[u32; 2]>,
    ) -> Record {
        (self.0.point_px, self.0.swipe_px, self.0.screen_px) = (point, swipe, screen);
        self
    }

    /// Who chose the action (`None`: the job's own script).
    pub(crate) fn source(mut self, s: Option<ActionSource>) -> Record {
        self.0.source = s;
        self
    }

    /// The model's accounting, its raw call and the planned steps, where there are any.
    pub(crate) fn model(
        mut self,
        usage: Option<ModelUsage>,
        call: Option<String>,
        plan: Option<Vec<String>>,
    ) -> Record {
        self.0.usage = usage;
        self.0.call = call;
        self.0.plan = plan;
        self
    }

    /// The reflector's class of the action.
    pub(crate) fn reflection(mut self, r: Option<Reflection>) -> Record {
        self.0.reflection = r;
        self
    }

    /// The finished record (`finished_at` now).
    pub(crate) fn done(mut self) -> ActionRecord {
        self.0.finished_at = Utc::now();
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::outcome::{FailClass, StepFail};

    #[test]
    fn kinds_keep_their_wire_names() {
        let names: Vec<&str> = [
            RecordKind::Action(ActionKind::Tap),
            RecordKind::Action(ActionKind::DoubleTap),
            RecordKind::Plan,
            RecordKind::Popup,
            RecordKind::If,
            RecordKind::Judge,
            RecordKind::Model,
        ]
        .iter()
        .map(|k| k.wire())
        .collect();
        assert_eq!(
            names,
            ["tap", "double_tap", "plan", "popup", "if", "judge", "model"]
        );
        assert!(RecordKind::is_bookkeeping("plan") && RecordKind::is_bookkeeping("judge"));
        assert!(!RecordKind::is_bookkeeping("popup") && !RecordKind::is_bookkeeping("tap"));
    }

    #[test]
    fn a_record_carries_its_outcome() {
        let started = Utc::now();
        let ok = Record::new(1, 0, RecordKind::If, "x".into(), started).done();
        assert!(ok.ok && ok.error.is_none());
        assert_eq!(ok.disposition, Disposition::NotDelivered);
        let out = Outcome {
            disposition: Disposition::DeliveredUnverified,
            ..Outcome::new("tap \"Save\"".into())
        }
        .fail_device("cannot observe the screen".into());
        assert!(!out.ok() && out.infra());
        let rec = Record::new(
            2,
            1,
            RecordKind::Action(ActionKind::Tap),
            out.detail.clone(),
            started,
        )
        .outcome(&out)
        .done();
        assert_eq!((rec.step, rec.action, rec.kind.as_str()), (2, 1, "tap"));
        assert!(!rec.ok);
        assert_eq!(rec.error.as_deref(), Some("cannot observe the screen"));
        assert_eq!(rec.disposition, Disposition::DeliveredUnverified);
        assert_eq!(rec.retry, Disposition::DeliveredUnverified.retry());
        assert!(rec.finished_at >= rec.started_at);
        match out.result.map_err(StepFail::from) {
            Err(StepFail::Device(m)) => assert_eq!(m, "cannot observe the screen"),
            other => panic!("expected an infra failure, got {other:?}"),
        }
        let verdict = Outcome::new("assert".into()).fail("not shown".into());
        assert!(matches!(&verdict.result, Err(f) if f.class == FailClass::Verdict));
    }
}
