-- Issue 27 item 2: retry on another device.
--
-- * runs.avoid_devices: devices this run may not be assigned to: every device its earlier
--   attempts ran on, for a run made by the job's `retry_elsewhere`
--   (coordinator::store::jobs::retry_in); argus_claim_batch (coordinator/sql/claim.sql)
--   pairs such a run only with a free slot outside the list. Empty for every other run.
-- * runs.flaky: a failed attempt of a job that a later attempt passed (set when the later
--   attempt succeeds, coordinator::store::effects).

alter table runs add column avoid_devices text[] not null default '{}';
alter table runs add column flaky boolean not null default false;
-- the attempt that retried a run (the run detail's `attempts.next_attempt`)
create index runs_retry_of on runs (retry_of) where retry_of is not null;
