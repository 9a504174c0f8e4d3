-- Issue 25, item 3 (dispatch at 10k jobs/s). Measured on the 2-core dev machine with
-- 10,000 registered slots (1,000 of them fresh) and 100,000 queued runs, one claim of 128
-- runs took 9-16 ms; 1.1-1.5 ms with this migration. Most of it was the plpgsql constraint
-- check, called once per candidate although no job had constraints, and the device rows
-- walked by sequential scans.
--
-- * devices_busy: the slot of a run, found by the run (the applier frees the slots of a
--   batch's finished runs with `current_run_id = any($1)`: a sequential scan of every
--   slot per batch before).
-- * argus_claim_batch: 0011's body, but a job whose selector has no constraints
--   (`selector_require = '[]'`, the default) is not passed to argus_selector_match, which
--   holds for it anyway (an empty list is satisfied by every label set). The candidate
--   query between the `class candidates` markers is still the one text
--   argus_coordinator::store::claim::class_candidates_sql() reads (from this file now).
-- Still O(free slots) per claim: the free slots are grouped into classes, and a class's
-- slots are locked in id order after a sort of them all.

create index devices_busy on devices (current_run_id) where current_run_id is not null;

create or replace function argus_claim_batch(ttl_s float8, lease_s float8, max_n integer,
                                  only_device text default null)
returns table (run_id uuid, job_id uuid, attempt_id uuid, worker_id text, device_id text,
               lease_expires_at timestamptz, spec jsonb)
language plpgsql volatile as $$
#variable_conflict use_column
declare
    cls record;
    left_n integer := max_n;
    want integer;
    dev_ids text[];
    dev_workers text[];
    run_ids uuid[];
    full_teams text[] := '{}';
    quotas boolean;
    tries integer;
    n integer;
    n_due integer;
    n_cand integer;
    claimed_here integer;
    visits integer := 0;
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
        with free as materialized (
            select x.platform, x.labels, x.serves_all, x.serves_team,
                   count(*)::integer as n_free, max(x.last_seen) as seen
              from devices x
             where x.current_run_id is null
               and x.last_seen > now() - make_interval(secs => ttl_s)
               and (only_device is null or x.id = only_device)
               and (x.serves_all or x.serves_team is not null)
             group by x.platform, x.labels, x.serves_all, x.serves_team
        ), sel as materialized (
            select distinct j.platform, j.selector_labels, j.selector_require, q.team_id
              from runs q join jobs j on j.id = q.job_id
             where (select count(*) from free) > 4
               and q.status = 'queued' and q.not_before <= now()
        )
        select f.platform, f.labels, f.serves_all, f.serves_team, f.n_free from free f
         where (select count(*) from free) <= 4
            or exists (select 1 from sel s
                        where s.platform = f.platform
                          and (f.serves_all or f.serves_team = s.team_id)
                          and f.labels @> s.selector_labels
                          and (s.selector_require = '[]'::jsonb
                               or argus_selector_match(f.labels, s.selector_require)))
         order by f.seen desc
    loop
        exit when left_n <= 0 or visits >= max_n;
        visits := visits + 1;
        -- Slots first, then runs: the claimer holding a class's slots takes the best runs
        -- nobody else holds (taking runs first let a racing claimer that won the slots hand
        -- out younger, lower-priority runs while the best stayed locked by the loser: seen
        -- in 6 of 20 runs of the racing-claimer test). Only as many slots are locked as
        -- runs are due at all (a claim with 1,000 idle slots and one queued run: 1.43 ms,
        -- 1.55 ms when every free slot was locked; most of it is reading the free slots).
        want := least(cls.n_free, left_n);
        select count(*) into n_due
          from (select 1 from runs q where q.status = 'queued' and q.not_before <= now()
                 limit want) d;
        exit when n_due = 0;
        select array_agg(s.id), array_agg(s.worker_id) into dev_ids, dev_workers
          from (select x.id, x.worker_id from devices x
                 where x.platform = cls.platform and x.labels = cls.labels
                   and x.serves_all = cls.serves_all
                   and x.serves_team is not distinct from cls.serves_team
                   and x.current_run_id is null
                   and x.last_seen > now() - make_interval(secs => ttl_s)
                   and (only_device is null or x.id = only_device)
                 order by x.id
                 limit least(want, n_due)
                 for update skip locked) s;
        claimed_here := 0;
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
                -- class candidates: begin
                select r.id, r.team_id, r.priority, r.created_at from runs r
                  join jobs j on j.id = r.job_id
                 where r.status = 'queued' and r.not_before <= now()
                   and j.platform = cls.platform
                   and (cls.serves_all or r.team_id = cls.serves_team)
                   and cls.labels @> j.selector_labels
                   and (j.selector_require = '[]'::jsonb
                        or argus_selector_match(cls.labels, j.selector_require))
                   and not (r.team_id = any (full_teams))
                 order by r.priority desc, r.created_at, r.id
                 limit cardinality(dev_ids)
                 for update of r skip locked
                -- class candidates: end
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
            -- no run for this class (none due, or every one held by another claimer)
            exit when n_cand = 0;
            continue when n = 0;
            return query
            with m as (
                select u.d, u.w, u.r
                  from unnest(dev_ids[1:n], dev_workers[1:n], run_ids[1:n]) as u(d, w, r)
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
            claimed_here := claimed_here + n;
            dev_ids := dev_ids[n + 1:];
            dev_workers := dev_workers[n + 1:];
            -- another try only helps when a quota cut runs this class could have had
            exit when n_cand = cardinality(run_ids) or coalesce(cardinality(dev_ids), 0) = 0;
        end loop;
        exit when claimed_here > 0
              and not exists (select 1 from runs q
                               where q.status = 'queued' and q.not_before <= now());
    end loop;
end
$$;
