//! Per-token request rates: a token bucket per token (GCRA, `governor`), `burst` requests at
//! once refilled at `per_min` a minute, checked by [`super::require`] after the caller is
//! known. User and admin tokens share one quota ([`ReadLimits::rate_per_min`]), worker tokens
//! have their own ([`ReadLimits::worker_rate_per_min`], off by default). Over it the answer is
//! a 429 `rate_limited` envelope with `Retry-After` ([`too_many`]).
//!
//! Buckets live in this coordinator's memory (a request costs no database round trip), so
//! behind N coordinators a token gets up to N times its quota; a restart forgets them.
//! Requests without a token (auth `off`) are not counted.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use argus_protocol::{ErrorCode, ErrorEnvelope};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use governor::clock::Clock;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use uuid::Uuid;

use super::Caller;
use crate::config::ReadLimits;
use crate::error::ApiError;

/// Checks between two sweeps of buckets that are full again (and so hold nothing).
const SWEEP_EVERY: u64 = 4096;

/// The per-token buckets of one coordinator.
pub struct RateLimits {
    users: Option<DefaultKeyedRateLimiter<Uuid>>,
    workers: Option<DefaultKeyedRateLimiter<Uuid>>,
    checks: AtomicU64,
}

fn limiter(per_min: u32, burst: u32) -> Option<DefaultKeyedRateLimiter<Uuid>> {
    let per_min = NonZeroU32::new(per_min)?;
    let burst = NonZeroU32::new(burst.max(1)).unwrap_or(NonZeroU32::MIN);
    Some(RateLimiter::keyed(
        Quota::per_minute(per_min).allow_burst(burst),
    ))
}

impl RateLimits {
    /// Buckets for `limits`; a rate of 0 leaves that kind of token unlimited.
    pub fn new(limits: &ReadLimits) -> RateLimits {
        RateLimits {
            users: limiter(limits.rate_per_min, limits.rate_burst),
            workers: limiter(limits.worker_rate_per_min, limits.rate_burst),
            checks: AtomicU64::new(0),
        }
    }

    /// Counts one request of `caller`; `Err(wait)` when its token's bucket is empty, with
    /// how long until the next request would be allowed.
    pub fn check(&self, caller: &Caller) -> Result<(), Duration> {
        let Some(id) = caller.token_id else {
            return Ok(());
        };
        let bucket = if caller.role == crate::auth::Role::Worker {
            &self.workers
        } else {
            &self.users
        };
        let Some(bucket) = bucket else {
            return Ok(());
        };
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            bucket.retain_recent();
        }
        bucket
            .check_key(&id)
            .map_err(|not_until| not_until.wait_time_from(bucket.clock().now()))
    }
}

/// Whole seconds to tell a client to wait: `wait` rounded up, at least 1.
pub fn retry_after_s(wait: Duration) -> u64 {
    wait.as_secs_f64().ceil().max(1.0) as u64
}

/// A 429 `rate_limited` envelope (`retry: true`, a hint naming the wait) with a
/// `Retry-After` header of `wait_s` seconds.
pub fn too_many(message: impl Into<String>, wait_s: u64) -> Response {
    let mut resp = ApiError::Client(ErrorEnvelope::new(
        ErrorCode::RateLimited,
        message,
        format!("wait {wait_s} s and try again"),
    ))
    .into_response();
    resp.headers_mut()
        .insert(header::RETRY_AFTER, header::HeaderValue::from(wait_s));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(role: crate::auth::Role) -> Caller {
        Caller {
            team_id: "t".into(),
            role,
            token_id: Some(Uuid::new_v4()),
            shared_pool: false,
        }
    }

    #[test]
    fn a_burst_then_a_wait_per_token_and_workers_are_free_by_default() {
        let limits = RateLimits::new(&ReadLimits {
            rate_per_min: 60,
            rate_burst: 3,
            ..ReadLimits::default()
        });
        let (a, b, w) = (
            caller(crate::auth::Role::User),
            caller(crate::auth::Role::Admin),
            caller(crate::auth::Role::Worker),
        );
        for _ in 0..3 {
            assert!(limits.check(&a).is_ok());
        }
        let wait = limits.check(&a).expect_err("past the burst");
        assert!(wait <= Duration::from_secs(1), "{wait:?}");
        assert_eq!(retry_after_s(wait), 1);
        assert!(limits.check(&b).is_ok(), "another token has its own bucket");
        for _ in 0..100 {
            assert!(limits.check(&w).is_ok());
        }
        let off = RateLimits::new(&ReadLimits::off());
        for _ in 0..100 {
            assert!(off.check(&a).is_ok());
        }
    }
}
