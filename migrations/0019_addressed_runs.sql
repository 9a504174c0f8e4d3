-- Issue 28 item 4 ("try a step"): a run addressed to one device, the probe's addressing
-- made general.
--
-- * runs.only_device: the one device that may take the run (the claim's
--   argus_claim_addressed, coordinator/sql/claim.sql; the class candidates skip every run
--   that has one, so no other device takes it). Set on a health probe (together with
--   runs.probe_device, which keeps the probe's own meaning: it may run on its quarantined
--   device, its success releases the device, it counts in no health window) and on a
--   dashboard try (coordinator api/try_page.rs: never on a quarantined device, and it
--   releases nothing).
-- * runs_addressed_queued: the claim's index for "is any addressed run queued" (one look-up
--   when none is, the common case) and its look-up of the queued ones.
-- * argus_claim_probes is replaced by argus_claim_addressed (claim.sql, applied after the
--   migrations).

alter table runs add column only_device text;
update runs set only_device = probe_device where probe_device is not null;
create index runs_addressed_queued on runs (only_device)
    where only_device is not null and status = 'queued';
drop function if exists argus_claim_probes(float8, float8, integer, text);
