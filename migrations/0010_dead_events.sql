-- Poison events (issue 24, item 9): an event PostgreSQL keeps rejecting (a value outside a
-- column's range, say) used to be nak'ed and redelivered without end. After
-- `ARGUS_EVENT_MAX_DELIVERIES` deliveries the applier parks it here and settles it on the
-- stream, so it stops coming back; admins read the table at GET /api/v1/dead-events. An
-- unreadable event (not a RunEvent) is parked on its first delivery, with no run.

create table dead_events (
    id bigserial primary key,
    -- the JetStream stream sequence and subject: one row per stream message, even when a
    -- coordinator dies between parking and settling and the event is parked again
    stream_seq bigint not null,
    subject text not null,
    -- null when the payload is not a readable event
    run_id uuid,
    attempt_id uuid,
    seq bigint,
    -- the bytes as published (bytea: whatever they hold, PostgreSQL takes them)
    payload bytea not null,
    -- the database's (or the decoder's) reason
    error text not null,
    -- JetStream's delivery count when it was parked
    deliveries integer not null,
    parked_at timestamptz not null default now(),
    unique (stream_seq, subject)
);
create index dead_events_recent on dead_events (parked_at desc);
