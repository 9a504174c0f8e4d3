-- Issue 27 item 3: the health probe that brings a quarantined device back.
--
-- * Team `argus-system`: owns the coordinator's own jobs (health probes). Only admins (and
--   the system) see every team's rows, so no team user lists them; a token is never minted
--   for it by Argus itself.
-- * runs.probe_device: set only on a health probe run (coordinator::health_probe, store
--   probes.rs): the quarantined device it checks. argus_claim_batch
--   (coordinator/sql/claim.sql) hands such a run to that one device even while it is
--   quarantined, and never to another; the claim's class candidates skip it. Probe runs do not
--   count in a device's health window (store/health.rs).
-- * runs_probe_outstanding: at most one probe not yet ended per device (two coordinators that
--   schedule at once: the second insert fails and rolls back); also the claim's index for
--   "is any probe queued".
-- * runs_probe_latest: a device's latest probe (the backoff after a failed one).
-- * device_health.actor: who made the current state (`health`, `health-probe`,
--   `admin:<token id>`): only a quarantine the evaluation made (`health`) is probed; one made
--   by hand holds until an admin releases it.

insert into teams (id) values ('argus-system') on conflict do nothing;

alter table runs add column probe_device text;
create unique index runs_probe_outstanding on runs (probe_device)
    where probe_device is not null and status in ('queued', 'assigned', 'running');
create index runs_probe_latest on runs (probe_device, created_at desc)
    where probe_device is not null;

alter table device_health add column actor text not null default 'health';
update device_health h set actor = e.actor
  from (select distinct on (device_id) device_id, actor from device_health_events
         order by device_id, at desc, id desc) e
 where e.device_id = h.device_id;
