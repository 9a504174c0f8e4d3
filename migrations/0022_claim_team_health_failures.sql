-- Issue 25 (dispatch at 10,000 jobs/s on 2 cores): two statements less of PostgreSQL's work
-- per batch, found with pg_stat_statements during `dispatch-bench --dispatch-only 1000` at
-- 7cc3a32 (a private PostgreSQL 15, the shared one's settings).
--
-- * The claim returns each run's team (a new result column `team_id` of argus_claim_batch
--   and argus_claim_addressed): the dispatcher read it back with a statement of its own, in
--   a transaction of its own, after every claim (0.8 ms a claim of ~110 runs). A function's
--   result columns cannot change by `create or replace`, so both are dropped here;
--   coordinator/sql/claim.sql, applied after the migrations on every connect, creates them
--   again.
-- * runs_device_failures: the ended runs that failed for the device (`failure_class =
--   'device'`), health probes left out, newest first per device. The applier's health check
--   (store/health.rs `evaluate`) asks for each device a batch ended runs on whether its
--   window (its 10 latest ended runs) holds a `device` failure: it read those 10 runs, by
--   runs_device_recent and their rows, for every device of every batch (1.2 ms a batch of
--   ~33 runs, 6% of PostgreSQL's statement time in that phase) although on a healthy farm
--   nearly no device has any. It now looks here first: a device with no `device` failure
--   since its window began cannot have one in its window, and that is one probe of this
--   index (nearly empty on a healthy farm; an entry is written only for a run that ends with
--   class `device`).
drop function if exists argus_claim_batch(float8, float8, integer, text);
drop function if exists argus_claim_addressed(float8, float8, integer, text);

create index runs_device_failures on runs (device_id, finished_at desc)
    where failure_class = 'device' and probe_device is null and finished_at is not null;
