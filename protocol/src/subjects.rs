//! NATS subject and JetStream stream names, derived from one prefix so several farms (or
//! tests) can share a NATS server without seeing each other's traffic.
//!
//! Works on NATS 2.9 (Debian's): each consumer uses exactly one filter subject.

/// Names under one prefix (default `argus`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subjects {
    prefix: String,
}

impl Subjects {
    /// `prefix` must be a NATS token: `[A-Za-z0-9_-]`, non-empty.
    pub fn new(prefix: &str) -> Result<Subjects, String> {
        if prefix.is_empty()
            || !prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(format!(
                "NATS prefix {prefix:?} must be letters, digits, `_` or `-`"
            ));
        }
        Ok(Subjects {
            prefix: prefix.to_string(),
        })
    }

    /// Stream holding assignments: `<PREFIX>_ASSIGN`.
    pub fn assign_stream(&self) -> String {
        format!("{}_ASSIGN", self.prefix.to_uppercase())
    }

    /// Subject of one worker's assignments: `<prefix>.assign.<worker_id>`.
    pub fn assign(&self, worker_id: &str) -> String {
        format!("{}.assign.{worker_id}", self.prefix)
    }

    /// Wildcard for the assignment stream.
    pub fn assign_all(&self) -> String {
        format!("{}.assign.*", self.prefix)
    }

    /// Stream holding run events: `<PREFIX>_EVENTS`.
    pub fn events_stream(&self) -> String {
        format!("{}_EVENTS", self.prefix.to_uppercase())
    }

    /// Subject of one run's events: `<prefix>.events.<run_id>`.
    pub fn events(&self, run_id: &uuid::Uuid) -> String {
        format!("{}.events.{run_id}", self.prefix)
    }

    /// Wildcard for the events stream.
    pub fn events_all(&self) -> String {
        format!("{}.events.*", self.prefix)
    }

    /// Core-NATS subject (no stream) on which coordinators renew the watch lease of a run
    /// someone is watching, once a second: `<prefix>.live.watch.<worker_id>.<run_id>`. The
    /// worker holding the run streams its screen while leases keep coming.
    pub fn live_watch(&self, worker_id: &str, run_id: &uuid::Uuid) -> String {
        format!("{}.live.watch.{worker_id}.{run_id}", self.prefix)
    }

    /// What one worker subscribes to for its runs' watch leases:
    /// `<prefix>.live.watch.<worker_id>.*`.
    pub fn live_watch_all(&self, worker_id: &str) -> String {
        format!("{}.live.watch.{worker_id}.*", self.prefix)
    }

    /// Core-NATS subject of one run's live frames ([`crate::live`]), published by the worker
    /// holding it: `<prefix>.live.frame.<worker_id>.<run_id>`. A coordinator relays only the
    /// subject of the worker the run is assigned to, and NATS permissions can pin each worker
    /// user to its own `<prefix>.live.frame.<worker_id>.*`.
    pub fn live_frame(&self, worker_id: &str, run_id: &uuid::Uuid) -> String {
        format!("{}.live.frame.{worker_id}.{run_id}", self.prefix)
    }

    /// Durable consumer name of one worker on the assignment stream.
    pub fn worker_consumer(&self, worker_id: &str) -> String {
        format!("worker-{worker_id}")
    }

    /// Durable consumer name shared by all coordinators on the events stream.
    pub fn coordinator_consumer(&self) -> String {
        "coordinator".to_string()
    }
}

/// True when `id` can be a NATS subject token and a consumer name.
pub fn is_valid_worker_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_prefix() {
        let s = Subjects::new("t1").unwrap();
        assert_eq!(s.assign_stream(), "T1_ASSIGN");
        assert_eq!(s.assign("w-1"), "t1.assign.w-1");
        let run = uuid::Uuid::nil();
        assert_eq!(
            s.live_frame("w-1", &run),
            format!("t1.live.frame.w-1.{run}")
        );
        assert_eq!(
            s.live_watch("w-1", &run),
            format!("t1.live.watch.w-1.{run}")
        );
        assert_eq!(s.live_watch_all("w-1"), "t1.live.watch.w-1.*");
        assert!(Subjects::new("a.b").is_err());
        assert!(is_valid_worker_id("host_1-a"));
        assert!(!is_valid_worker_id("a.b"));
    }
}
