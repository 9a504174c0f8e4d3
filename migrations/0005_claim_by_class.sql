-- Claim by device class: one index walk per class of identical free slots, not one per slot.
--
-- 0003's argus_claim_batch looked for a run once per free slot; every look walked the
-- runs_queued index from its head over the entries this same call had just claimed, so a
-- batch of n slots cost O(n^2) heap visits (measured: the claim was the dispatcher's
-- ceiling at ~850 jobs/s on 2 cores). Slots with the same platform and label set match
-- exactly the same jobs, so they are claimed together:
--
--   1. nothing is due at all -> return at once (one index probe; an idle farm stays cheap);
--   2. when any team has a quota, a transaction-level advisory lock serialises claimers, so
--      the quota count is exact even with several coordinators (0003 could exceed a quota by
--      one when two coordinators claimed for one team in the same instant);
--   3. for each class (platform, labels) of free slots heard from within ttl_s: lock up to
--      the remaining number of its slots `for update skip locked`; take that many due runs the
--      class satisfies (platform, labels @> selector_labels, argus_selector_match) of teams
--      under quota, highest priority first, FIFO within, `for update of r skip locked`; keep
--      per team no more runs than its quota leaves; pair runs and slots in order; assign
--      every pair in one UPDATE (fresh attempt id, lease) and mark the slots in another.
--      A class whose runs were cut by a quota is tried again (at most 4 times) with its
--      slots still free.
--
-- Same guarantees as before: a slot or run another claimer holds is skipped, never handed
-- out twice; the caller's contract (at most max_n claims, each with a fresh attempt id and a
-- lease of lease_s seconds) is unchanged.
create or replace function argus_claim_batch(ttl_s float8, lease_s float8, max_n integer)
returns table (run_id uuid, job_id uuid, attempt_id uuid, worker_id text, device_id text,
               lease_expires_at timestamptz, spec jsonb)
language plpgsql volatile as $$
#variable_conflict use_column
declare
    cls record;
    left_n integer := max_n;
    dev_ids text[];
    dev_workers text[];
    run_ids uuid[];
    full_teams text[] := '{}';
    quotas boolean;
    tries integer;
    n integer;
    n_cand integer;
begin
    if not exists (select 1 from runs q where q.status = 'queued' and q.not_before <= now()) then
        return;
    end if;
    quotas := exists (select 1 from teams t where t.max_concurrent is not null);
    if quotas then
        -- key: the first 8 bytes of sha256('argus_claim_batch'), fixed
        perform pg_advisory_xact_lock(7306813395581925699);
    end if;
    for cls in
        select x.platform, x.labels from devices x
         where x.current_run_id is null and x.last_seen > now() - make_interval(secs => ttl_s)
         group by x.platform, x.labels
    loop
        exit when left_n <= 0;
        select array_agg(s.id), array_agg(s.worker_id) into dev_ids, dev_workers
          from (select x.id, x.worker_id from devices x
                 where x.platform = cls.platform and x.labels = cls.labels
                   and x.current_run_id is null
                   and x.last_seen > now() - make_interval(secs => ttl_s)
                 order by x.id
                 limit left_n
                 for update skip locked) s;
        tries := 0;
        while coalesce(cardinality(dev_ids), 0) > 0 and tries < 4 loop
            tries := tries + 1;
            if quotas then
                select coalesce(array_agg(t.id), '{}') into full_teams from teams t
                 where t.max_concurrent is not null
                   and t.max_concurrent <= (select count(*) from runs x
                                             where x.team_id = t.id
                                               and x.status in ('assigned', 'running'));
            end if;
            with cand as (
                select r.id, r.team_id, r.priority, r.created_at from runs r
                  join jobs j on j.id = r.job_id
                 where r.status = 'queued' and r.not_before <= now()
                   and j.platform = cls.platform
                   and cls.labels @> j.selector_labels
                   and argus_selector_match(cls.labels, j.selector_require)
                   and not (r.team_id = any (full_teams))
                 order by r.priority desc, r.created_at, r.id
                 limit cardinality(dev_ids)
                 for update of r skip locked
            ), ranked as (
                select c.*, row_number() over (partition by c.team_id
                                               order by c.priority desc, c.created_at, c.id) rn
                  from cand c
            )
            select count(*),
                   array_agg(k.id order by k.priority desc, k.created_at, k.id)
                       filter (where not quotas or t.max_concurrent is null
                                  or k.rn <= t.max_concurrent
                                             - (select count(*) from runs x
                                                 where x.team_id = k.team_id
                                                   and x.status in ('assigned', 'running')))
              into n_cand, run_ids
              from ranked k left join teams t on t.id = k.team_id;
            n := least(coalesce(cardinality(run_ids), 0), cardinality(dev_ids));
            -- no run for this class (none due, or every one cut by a quota)
            exit when n_cand = 0;
            continue when n = 0;
            return query
            with m as (
                select u.d, u.w, u.r from unnest(dev_ids[1:n], dev_workers[1:n], run_ids[1:n])
                    as u(d, w, r)
            ), upd as (
                update runs r
                   set status = 'assigned', attempt_id = gen_random_uuid(),
                       attempts = r.attempts + 1, worker_id = m.w, device_id = m.d,
                       lease_expires_at = now() + make_interval(secs => lease_s),
                       assigned_at = now()
                  from m where r.id = m.r
                returning r.id, r.job_id, r.attempt_id, r.worker_id, r.device_id,
                          r.lease_expires_at
            ), mark as (
                update devices x set current_run_id = m.r from m where x.id = m.d
            )
            select upd.id, upd.job_id, upd.attempt_id, upd.worker_id, upd.device_id,
                   upd.lease_expires_at, j.spec
              from upd join jobs j on j.id = upd.job_id;
            left_n := left_n - n;
            dev_ids := dev_ids[n + 1:];
            dev_workers := dev_workers[n + 1:];
            -- another try only helps when a quota cut runs this class could have had
            exit when n_cand = cardinality(run_ids) or coalesce(cardinality(dev_ids), 0) = 0;
        end loop;
    end loop;
end
$$;
