-- Issue 27: tell a broken app from a sick device.
--
-- * runs.failure_class: who is to blame for a run that ended `failed` / `errored` (`app`,
--   `device`, `infra`; the worker reports it in `run_finished`, argus_protocol::failure),
--   and `device` for a run the reaper ended `lost`. Null for every other status.
-- * runs_device_recent: a device's latest ended runs, newest first (the health window,
--   coordinator::store::health).
-- * device_health: one row per device whose health was ever evaluated or set by hand:
--   `healthy`, `suspect` or `quarantined`, why, since when. A quarantined device gets no
--   assignments (argus_claim_batch, coordinator/sql/claim.sql) until an admin releases it.
--   `window_from`: the health window counts only runs that ended after it (set on a
--   release, so a released device starts with a clean window; null: never released). Kept apart from `devices`
--   (rewritten by heartbeats) and not cascaded from it: a quarantine outlives its worker's
--   registration.
-- * device_health_events: every state change with its reason and who made it (`health`:
--   the automatic evaluation; `admin:<token id>`: by hand), newest last.

alter table runs add column failure_class text
    check (failure_class in ('app', 'device', 'infra'));
create index runs_device_recent on runs (device_id, finished_at desc)
    where device_id is not null and finished_at is not null;

create table device_health (
    device_id text primary key,
    state text not null default 'healthy'
        check (state in ('healthy', 'suspect', 'quarantined')),
    reason text not null default '',
    since timestamptz not null default now(),
    window_from timestamptz
);

create table device_health_events (
    id bigserial primary key,
    device_id text not null,
    from_state text not null check (from_state in ('healthy', 'suspect', 'quarantined')),
    to_state text not null check (to_state in ('healthy', 'suspect', 'quarantined')),
    reason text not null,
    actor text not null,
    at timestamptz not null default now()
);
create index device_health_events_recent on device_health_events (at desc, id desc);
