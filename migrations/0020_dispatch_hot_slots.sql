-- Issue 25, item 3 (dispatch at 10k jobs/s): slot rows written in place, and a claim that
-- walks one class's slots instead of reading every free slot twice.
--
-- * devices_class: a slot's class (platform, labels, whether it serves every team, the one
--   team it serves) and then its id. The claim (coordinator/sql/claim.sql) finds the
--   classes by a skip scan of it (one index descent per class, not a read of every slot)
--   and locks a class's first free slots by walking it in id order (no sort of all of
--   them). Labels enter as md5(labels::text)::uuid (16 bytes, and no index-row size limit
--   for a large label set); the claim compares the labels themselves too. Ids in "C" order:
--   the claim orders by `id collate "C"` (the database's default collation may not be C,
--   and a comparison by strcoll costs more).
-- * devices_free and devices_busy dropped: they index current_run_id, which every claim sets
--   and every run's end clears, so neither write could be a HOT update (a new row version
--   plus an entry in each of the table's indexes, and dead index entries that nothing but
--   VACUUM removes). No index of devices holds current_run_id or last_seen now, so claims,
--   ends and heartbeats update a slot's row in place when its page has room: fillfactor 50
--   keeps room (a slot row is ~150 bytes; set for new pages, an existing table keeps its
--   pages until rewritten). The applier finds a finished run's slot by the run's device_id
--   (the primary key) instead of devices_busy.

drop index if exists devices_free;
drop index if exists devices_busy;

create index devices_class on devices (platform, (md5(labels::text)::uuid), serves_all,
                                       (coalesce(serves_team, '')), id collate "C");

alter table devices set (fillfactor = 50);

-- runs_cancel_requested: every heartbeat asks for the worker's runs a person cancelled
-- (store/workers.rs, cancel_requested). Without an index of its own the plan walked every
-- active run (runs_active_team, with the dead entries vacuum had not removed yet) or every
-- run: 28 ms a heartbeat in dispatch-bench with 10,000 devices (100 workers, one beat each
-- every 2 s) and 98,000 runs, the largest cost of that run. Holds only runs someone
-- cancelled (rare), so it costs nothing to keep for the others.
create index runs_cancel_requested on runs (worker_id) where cancel_requested;
