//! Live run streams held open per token (`GET /runs/{id}/live`): each open stream holds a
//! [`StreamPermit`] that gives its place back when the stream ends or its client goes away
//! (the permit lives in the stream's state, which the server drops then). A token already
//! holding [`ReadLimits::max_streams_per_token`] is refused with a 429 envelope.
//!
//! Counted in this coordinator's memory: behind N coordinators a token may hold up to N
//! times as many. Callers without a token (auth `off`) are not counted.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::response::Response;
use uuid::Uuid;

use super::rate::too_many;
use super::Caller;
use crate::config::ReadLimits;

/// How long a refused client is told to wait, s.
const RETRY_AFTER_S: u64 = 5;

/// Open streams per token.
pub struct StreamSlots {
    max: u32,
    open: Mutex<HashMap<Uuid, u32>>,
}

/// One open stream's place; given back on drop.
pub struct StreamPermit {
    slots: Arc<StreamSlots>,
    token: Uuid,
}

impl StreamSlots {
    /// Slots for `limits`; 0 streams = unlimited.
    pub fn new(limits: &ReadLimits) -> StreamSlots {
        StreamSlots {
            max: limits.max_streams_per_token,
            open: Mutex::new(HashMap::new()),
        }
    }

    fn open(&self) -> MutexGuard<'_, HashMap<Uuid, u32>> {
        // a panic while holding the lock leaves the counts usable
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes a place for a new stream of `caller`: `Ok(None)` when nothing is counted (no
    /// limit, no token), `Err` with the 429 answer when the token holds its maximum.
    pub fn acquire(
        self: &Arc<Self>,
        caller: &Caller,
    ) -> Result<Option<StreamPermit>, Box<Response>> {
        let Some(token) = caller.token_id.filter(|_| self.max > 0) else {
            return Ok(None);
        };
        let mut open = self.open();
        let n = open.entry(token).or_insert(0);
        if *n >= self.max {
            tracing::warn!(%token, max = self.max, "live stream refused: too many open");
            return Err(Box::new(too_many(
                format!(
                    "this token already holds {} live streams, the most it may",
                    self.max
                ),
                RETRY_AFTER_S,
            )));
        }
        *n += 1;
        Ok(Some(StreamPermit {
            slots: self.clone(),
            token,
        }))
    }

    /// Streams `token` holds open now.
    pub fn held(&self, token: Uuid) -> u32 {
        self.open().get(&token).copied().unwrap_or(0)
    }
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut open = self.slots.open();
        if let Some(n) = open.get_mut(&self.token) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.token);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n_streams_per_token_and_a_closed_one_frees_its_place() {
        let slots = Arc::new(StreamSlots::new(&ReadLimits {
            max_streams_per_token: 2,
            ..ReadLimits::default()
        }));
        let c = Caller {
            team_id: "t".into(),
            role: crate::auth::Role::User,
            token_id: Some(Uuid::new_v4()),
            shared_pool: false,
        };
        let a = slots.acquire(&c).ok().flatten();
        let b = slots.acquire(&c).ok().flatten();
        assert!(a.is_some() && b.is_some());
        let refused = slots.acquire(&c).err().expect("third refused");
        assert_eq!(refused.status().as_u16(), 429);
        drop(a);
        assert_eq!(slots.held(c.token_id.unwrap_or_default()), 1);
        assert!(slots.acquire(&c).ok().flatten().is_some());
    }
}
