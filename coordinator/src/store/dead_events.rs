//! Parked events (`dead_events`, migration 0010): an event the database kept rejecting is
//! written here with its bytes and the reason, and its run — whose record can no longer be
//! complete — ends `errored` saying which event was parked and where to read it. The run is
//! not retried: the same worker output would most likely be rejected again, and a person
//! should judge it first.

use argus_protocol::{EventBody, RunEvent};
use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// An event to park.
#[derive(Debug)]
pub struct Parked<'a> {
    /// JetStream stream sequence of the message.
    pub stream_seq: u64,
    /// The subject it was published on.
    pub subject: &'a str,
    /// The decoded event; `None` when the payload is not a readable event.
    pub event: Option<&'a RunEvent>,
    /// The bytes as published.
    pub payload: &'a [u8],
    /// Why it could not be applied (the database's or the decoder's message).
    pub error: &'a str,
    /// JetStream's delivery count at parking time.
    pub deliveries: i64,
}

/// One parked event, as `GET /api/v1/dead-events` lists it.
#[derive(Debug, Clone)]
pub struct DeadEvent {
    /// Row id (ascending in parking order).
    pub id: i64,
    /// JetStream stream sequence.
    pub stream_seq: i64,
    /// Subject it was published on.
    pub subject: String,
    /// Its run, when readable.
    pub run_id: Option<Uuid>,
    /// Its attempt, when readable.
    pub attempt_id: Option<Uuid>,
    /// Its per-run sequence number, when readable.
    pub seq: Option<i64>,
    /// The bytes as published.
    pub payload: Vec<u8>,
    /// Why it was parked.
    pub error: String,
    /// Deliveries before it was parked.
    pub deliveries: i32,
    /// When it was parked.
    pub parked_at: DateTime<Utc>,
}

/// The `type` of an event body as its wire form names it.
fn kind(body: &EventBody) -> String {
    serde_json::to_value(body)
        .ok()
        .and_then(|v| v["type"].as_str().map(str::to_string))
        .unwrap_or_else(|| "event".into())
}

/// Parks `p` in one transaction: the row (once per stream message), and for a readable event
/// of its run's current attempt, the run ended `errored` (fenced; a terminal run keeps its
/// status) — and its slot freed when the parked event was the run's end. Returns whether a
/// slot was freed (the dispatcher should be woken).
///
/// Errors: any database error; nothing is written then and the caller retries later.
pub async fn park(pool: &PgPool, p: &Parked<'_>) -> Result<bool, sqlx::Error> {
    let mut tx = pool.begin().await?;
    sqlx::query!(
        "insert into dead_events (stream_seq, subject, run_id, attempt_id, seq, payload, error,
                                  deliveries)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (stream_seq, subject) do nothing",
        p.stream_seq as i64,
        p.subject,
        p.event.map(|e| e.run_id),
        p.event.map(|e| e.attempt_id),
        p.event.map(|e| e.seq as i64),
        p.payload,
        p.error,
        p.deliveries.clamp(0, i32::MAX as i64) as i32
    )
    .execute(&mut *tx)
    .await?;
    let mut freed = false;
    if let Some(ev) = p.event {
        let why = format!(
            "run event seq {} ({}) was rejected by the database {} times and parked: {}; \
             this run's record is incomplete (admins: GET /api/v1/dead-events)",
            ev.seq,
            kind(&ev.body),
            p.deliveries,
            p.error
        );
        sqlx::query!(
            "update runs set status = 'errored', error = $3, finished_at = now(),
                    lease_expires_at = null
              where id = $1 and attempt_id = $2
                and status in ('queued', 'assigned', 'running')",
            ev.run_id,
            ev.attempt_id,
            why
        )
        .execute(&mut *tx)
        .await?;
        if matches!(ev.body, EventBody::RunFinished { .. }) {
            // The worker is done with the run: its slot is free, as after an applied end.
            let device = sqlx::query_scalar!("select device_id from runs where id = $1", ev.run_id)
                .fetch_optional(&mut *tx)
                .await?
                .flatten();
            freed = crate::store::claim::free_slot(&mut tx, ev.run_id, device.as_deref()).await?;
        }
    }
    tx.commit().await?;
    Ok(freed)
}

/// The `limit` most recently parked events, newest first.
///
/// Errors: any database error.
pub async fn list(pool: &PgPool, limit: i64) -> Result<Vec<DeadEvent>, sqlx::Error> {
    sqlx::query_as!(
        DeadEvent,
        "select id, stream_seq, subject, run_id, attempt_id, seq, payload, error, deliveries,
                parked_at
           from dead_events order by id desc limit $1",
        limit
    )
    .fetch_all(pool)
    .await
}
