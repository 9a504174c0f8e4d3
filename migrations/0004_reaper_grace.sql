-- Reaper grace after an outage. Workers extend their leases by heartbeating to a
-- coordinator over HTTP; when every coordinator (or PostgreSQL) is down for longer than a
-- lease, no heartbeat can land, so on recovery every lease looks expired although the
-- workers are fine. One shared row lets all coordinators agree on that:
--   last_pass        the last time any coordinator ran a reaper pass (refreshed about
--                    once a second by each live coordinator);
--   reap_not_before  expired leases are not reaped before this instant.
-- A pass that finds last_pass older than a few seconds (nobody was reaping, so nobody was
-- hearing heartbeats either) moves reap_not_before one lease ahead, giving every live
-- worker a full lease to heartbeat again (coordinator/src/store/reaper.rs).
create table reaper_state (
    id integer primary key check (id = 1),
    last_pass timestamptz not null,
    reap_not_before timestamptz not null
);
-- last_pass = now(): an upgrade that kept every coordinator down for a while gets a grace
-- on the first pass, like any other outage.
insert into reaper_state (id, last_pass, reap_not_before) values (1, now(), now());
