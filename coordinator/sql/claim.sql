-- The claim: the one text of the functions that hand queued runs to free device slots.
--
-- Repeatable, not a migration: argus_coordinator::store::claim::apply_claim_sql runs this whole
-- file after the migrations each time the coordinator connects (`argus coordinator`,
-- `argus migrate`, every test database), under an advisory lock, so a change here reaches
-- every database, old or new, without a new migration copying the function again. Every
-- statement must therefore be repeatable (`create or replace`). A change of a function's
-- arguments or result columns needs a migration that drops the old function first
-- (`create or replace` cannot change them). The tables, indexes and
-- argus_selector_match it relies on are the migrations' (0001 to 0022); the versions of
-- argus_claim_batch in migrations 0003, 0005, 0006, 0011 and 0013 are history, replaced
-- by this file on connect.
--
-- argus_claim_batch(ttl_s, lease_s, max_n, only_device): claims runs for up to max_n free
-- slots heard from within ttl_s seconds (only the slot only_device when given), each with
-- a fresh attempt id and a lease of lease_s seconds; returns the claimed runs, each with
-- its team (the dispatcher's assignment carries it; migration 0022). Slots of
-- identical platform, labels and teams served form a class; each class is served by one
-- call of argus_claim_candidates and one assigning UPDATE. Within a class the free slots are
-- taken next fit: those after the slot the class's previous claim locked last (its hand in
-- claim_hands, migration 0021) first, wrapping around to the class's first slot; a claim for
-- one named slot (only_device) neither reads nor moves the hand. While any team has a quota, it
-- takes a transaction-level advisory lock so racing coordinators count exactly. A slot whose
-- device is quarantined (device_health, migration 0014) is never free: read once per call
-- into `held`, the quarantined ids (few; an empty array costs nothing). A run with devices to
-- avoid (`runs.avoid_devices`, migration 0016: a `retry_elsewhere` attempt) is paired only
-- with a slot outside its list (argus_claim_pair); one no slot of the class may take stays
-- queued for another class or a later claim. A run addressed to one device
-- (`runs.only_device`, migration 0019: a health probe, migration 0017, or a dashboard try) is
-- claimed first, by argus_claim_addressed, and only by that device (a probe even while it is
-- quarantined, a try never); the class candidates skip them, so no other device takes one.

-- argus_claim_pair(run_ids, dev_ids, dev_workers): pairs the runs (best first) with the
-- class's locked slots: positionally when no run has devices to avoid (the common case,
-- one indexed look-up), else greedily, each run in order taking the first slot left that
-- is not in its `avoid_devices`; a run no slot suits is left out.
create or replace function argus_claim_pair(run_ids uuid[], dev_ids text[],
                                            dev_workers text[])
returns table (pair_device text, pair_worker text, pair_run uuid)
language plpgsql stable as $$
declare
    n integer := least(coalesce(cardinality(run_ids), 0), coalesce(cardinality(dev_ids), 0));
    used boolean[];
    avoid text[];
    i integer;
    k integer;
begin
    if n = 0 then
        return;
    end if;
    if not exists (select 1 from runs x
                    where x.id = any (run_ids) and x.avoid_devices <> '{}') then
        return query
        select u.d, u.w, u.r
          from unnest(dev_ids[1:n], dev_workers[1:n], run_ids[1:n]) as u(d, w, r);
        return;
    end if;
    used := array_fill(false, array[cardinality(dev_ids)]);
    for i in 1 .. cardinality(run_ids) loop
        select x.avoid_devices into avoid from runs x where x.id = run_ids[i];
        for k in 1 .. cardinality(dev_ids) loop
            if not used[k] and not (dev_ids[k] = any (coalesce(avoid, '{}'))) then
                used[k] := true;
                pair_device := dev_ids[k];
                pair_worker := dev_workers[k];
                pair_run := run_ids[i];
                return next;
                exit;
            end if;
        end loop;
    end loop;
end
$$;

-- argus_claim_candidates: the queued runs a class of free slots may take, best first
-- (priority, then FIFO), at most $4, locked `for update skip locked`: $1 platform, $2 the
-- class's labels, $3 the teams at their quota, $4 how many of the class's slots the caller
-- holds, $5 whether the class serves every team, $6 the one team it serves otherwise.
-- Walks `runs_queued` in order; no sort. The query between the `class candidates` markers
-- is what argus_coordinator::store::claim::class_candidates_sql() returns verbatim (the
-- bench and the tests EXPLAIN it with these six parameters bound), so keep its parameters
-- positional. Its cost as a call of its own, against the same query inline in
-- argus_claim_batch (migration 0013's body), interleaved on the loaded 2-core dev machine
-- (pgbench -r, claims of 128 rolled back, 20,000 queued runs): 9.7 -> 10.0 ms a claim with
-- 1,000 identical free slots (one class), 210 -> 229 ms with 1,000 slots of distinct labels
-- (128 one-slot classes visited): about 0.15 ms a class visited.
create or replace function argus_claim_candidates(platform text, labels jsonb,
                                                  full_teams text[], n integer,
                                                  serves_all boolean, serves_team text)
returns table (id uuid, team_id text, priority integer, created_at timestamptz)
language plpgsql volatile as $$
#variable_conflict use_column
begin
    return query
    -- class candidates: begin
    select r.id, r.team_id, r.priority, r.created_at from runs r
      join jobs j on j.id = r.job_id
     where r.status = 'queued' and r.not_before <= now()
       and j.platform = $1
       and ($5 or r.team_id = $6)
       and $2 @> j.selector_labels
       and (j.selector_require = '[]'::jsonb or argus_selector_match($2, j.selector_require))
       and not (r.team_id = any ($3))
       and r.only_device is null
     order by r.priority desc, r.created_at, r.id
     limit $4
     for update of r skip locked
    -- class candidates: end
    ;
end
$$;

-- argus_claim_addressed(ttl_s, lease_s, max_n, only_device): assigns up to max_n queued
-- runs addressed to one device (`runs.only_device`, migration 0019), each to that device
-- when its slot is free and live and serves the run's team; the same assignment as
-- argus_claim_batch's. A health probe (`runs.probe_device` set too, migration 0017) may take
-- its device while it is quarantined (and belongs to team argus-system, which no device
-- serves by name); any other addressed run (a dashboard try) never takes a quarantined one.
-- Costs one look-up in the partial index runs_addressed_queued when none is queued (the
-- common case).
create or replace function argus_claim_addressed(ttl_s float8, lease_s float8, max_n integer,
                                                 only_device text default null)
returns table (run_id uuid, job_id uuid, attempt_id uuid, worker_id text, device_id text,
               lease_expires_at timestamptz, spec jsonb, team_id text)
language plpgsql volatile as $$
#variable_conflict use_column
begin
    if max_n <= 0 or not exists (select 1 from runs q
                                  where q.only_device is not null and q.status = 'queued') then
        return;
    end if;
    return query
    with m as (
        select x.id as d, x.worker_id as w, q.id as r
          from runs q join devices x on x.id = q.only_device
         where q.only_device is not null and q.status = 'queued'
           and q.not_before <= now()
           and x.current_run_id is null
           and x.last_seen > now() - make_interval(secs => ttl_s)
           and (only_device is null or x.id = only_device)
           and (x.serves_all or x.serves_team is not null)
           and (q.probe_device is not null
                or ((x.serves_all or x.serves_team = q.team_id)
                    and not exists (select 1 from device_health h
                                     where h.device_id = x.id and h.state = 'quarantined')))
         order by q.created_at, q.id
         limit max_n
         for update of q, x skip locked
    ), upd as (
        update runs r
           set status = 'assigned', attempt_id = gen_random_uuid(),
               attempts = r.attempts + 1, worker_id = m.w, device_id = m.d,
               lease_expires_at = now() + make_interval(secs => lease_s),
               assigned_at = now()
          from m where r.id = m.r
        returning r.id, r.job_id, r.attempt_id, r.worker_id, r.device_id, r.lease_expires_at,
                  r.team_id
    ), mark as (
        update devices x set current_run_id = m.r from m where x.id = m.d
    )
    select upd.id, upd.job_id, upd.attempt_id, upd.worker_id, upd.device_id,
           upd.lease_expires_at, j.spec, upd.team_id
      from upd join jobs j on j.id = upd.job_id;
end
$$;

-- Its plans may not read a whole table or sort what an index walk returns in order
-- (enable_seqscan, enable_bitmapscan and enable_sort off while it runs; every statement
-- has an index path): statistics lag behind a queue that drains and slots that change
-- (the bench analyzes runs while all are queued; devices are never analyzed while
-- autovacuum is off), and with them the planner chose a sequential scan that read every
-- finished run before the first queued one, and a read and sort of a whole class of
-- 10,000 slots instead of the devices_class walk that stops after the first n free ones.
-- jit off too: the planner's penalty for a disabled plan node (a sort with no other way to
-- order a CTE's rows) lifts the estimated cost above jit_above_cost, and compiling the
-- plan took over a second a claim.
-- plan_cache_mode = force_generic_plan: each statement of these functions is planned once per
-- connection, not on every call. By default PostgreSQL kept re-planning most of them with the
-- call's values (a custom plan looked cheaper than the generic one), which was most of the
-- cost of a claim that finds one run: at 500 submitted jobs/s a claim takes one or two
-- runs, once per submit. Measured at 79bcfe6 with pgbench on a private PostgreSQL 15
-- (1,000 identical slots, insert one job, claim, end it; synchronous_commit off, so CPU
-- only; load 5 from other work): 0.91-1.17 ms a claim of one run before, 0.36-0.51 ms with
-- it; a claim of 256 from 40,000 queued runs 8.0 -> 6.7 ms (1,000 slots) and 7.4-8.3 ->
-- 7.4-7.9 ms (10,000 slots). With sequential and bitmap scans and sorts off the generic
-- plans are the index walks the custom ones were.
create or replace function argus_claim_batch(ttl_s float8, lease_s float8, max_n integer,
                                  only_device text default null)
returns table (run_id uuid, job_id uuid, attempt_id uuid, worker_id text, device_id text,
               lease_expires_at timestamptz, spec jsonb, team_id text)
language plpgsql volatile
set enable_seqscan = off set enable_bitmapscan = off set enable_sort = off set jit = off
set plan_cache_mode = force_generic_plan
as $$
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
    held text[];
    hand text;
    lim integer;
    win_n integer;
    win_free text[];
    pair_devs text[];
    pair_workers text[];
    pair_runs uuid[];
begin
    -- The due runs, counted once (at most max_n): each walk of runs_queued from its head
    -- steps over the entries of every run claimed since the last VACUUM, so the claim walks
    -- it here and in the candidate query only (it walked it three times per class).
    select count(*) into n_due
      from (select 1 from runs q where q.status = 'queued' and q.not_before <= now()
             limit max_n) d;
    if n_due = 0 then
        return;
    end if;
    -- runs addressed to one device first (health probes, tries), each on its own device
    return query
    select * from argus_claim_addressed(ttl_s, lease_s, max_n, only_device);
    get diagnostics n = row_count;
    left_n := left_n - coalesce(n, 0);
    n_due := n_due - coalesce(n, 0);
    select coalesce(array_agg(h.device_id), '{}') into held
      from device_health h where h.state = 'quarantined';
    quotas := exists (select 1 from teams t where t.max_concurrent is not null);
    if quotas then
        -- key: the first 8 bytes of sha256('argus_claim_batch'), fixed
        perform pg_advisory_xact_lock(7306813395581925699);
    end if;
    for cls in
        -- the classes of registered slots, one index descent each (a skip scan of
        -- devices_class, migration 0020), not a read of every slot: a farm of 10,000 identical
        -- slots is one class and two descents
        with recursive k as (
            (select x.platform, md5(x.labels::text)::uuid as lh, x.serves_all,
                    coalesce(x.serves_team, '') as team
               from devices x
              order by x.platform, md5(x.labels::text)::uuid, x.serves_all,
                       coalesce(x.serves_team, '')
              limit 1)
            union all
            select n.* from k, lateral (
                select x.platform, md5(x.labels::text)::uuid, x.serves_all,
                       coalesce(x.serves_team, '')
                  from devices x
                 where (x.platform, md5(x.labels::text)::uuid, x.serves_all,
                        coalesce(x.serves_team, ''))
                       > (k.platform, k.lh, k.serves_all, k.team)
                 order by 1, 2, 3, 4
                 limit 1) n
        ), free as materialized (
            -- each class with a free live slot (the walk stops at the first), and its labels
            select k.platform, k.lh, k.serves_all, k.team, f.labels,
                   nullif(k.team, '') as serves_team
              from k, lateral (
                  select x.labels from devices x
                   where x.platform = k.platform and md5(x.labels::text)::uuid = k.lh
                     and x.serves_all = k.serves_all and coalesce(x.serves_team, '') = k.team
                     and x.current_run_id is null
                     and x.last_seen > now() - make_interval(secs => ttl_s)
                     and (only_device is null or x.id = only_device)
                     and (x.serves_all or x.serves_team is not null)
                     and not (x.id = any (held))
                   limit 1) f
        ), sel as materialized (
            select distinct j.platform, j.selector_labels, j.selector_require, q.team_id
              from runs q join jobs j on j.id = q.job_id
             where (select count(*) from free) > 4
               and q.status = 'queued' and q.not_before <= now()
               and q.only_device is null
        )
        select f.platform, f.lh, f.labels, f.serves_all, f.team, f.serves_team from free f
         where (select count(*) from free) <= 4
            or exists (select 1 from sel s
                        where s.platform = f.platform
                          and (f.serves_all or f.serves_team = s.team_id)
                          and f.labels @> s.selector_labels
                          and (s.selector_require = '[]'::jsonb
                               or argus_selector_match(f.labels, s.selector_require)))
         order by f.platform, f.lh, f.serves_all, f.team
    loop
        exit when left_n <= 0 or visits >= max_n or n_due <= 0;
        visits := visits + 1;
        -- Slots first, then runs: the claimer holding a class's slots takes the best runs
        -- nobody else holds (taking runs first let a racing claimer that won the slots hand
        -- out younger, lower-priority runs while the best stayed locked by the loser: seen
        -- in 6 of 20 runs of the racing-claimer test). Only as many slots are locked as
        -- runs are due at all (a claim with 1,000 idle slots and one queued run: 1.43 ms,
        -- 1.55 ms when every free slot was locked; most of it is reading the free slots):
        -- n_due, the count at the start less what this call claimed since (runs another
        -- claimer took meanwhile only make it lock a few slots it then leaves).
        want := left_n;
        -- Next fit (migration 0021): first the slots just after where this class's last
        -- claim stopped (claim_hands), a window of twice as many as wanted; from the class's
        -- first slot when there is no hand, when none in the window was free, and for the
        -- rest when the window reached the class's last slot (wrapping around). Slots free
        -- up in about the order they were claimed, so on a farm whose slots are nearly all
        -- busy the free ones are just after the hand, where the walk from the first slot
        -- stepped over every busy one (10,000 slots, ~9,900 busy: 8-10 ms a claim).
        lim := least(want, n_due);
        dev_ids := null;
        dev_workers := null;
        hand := null;
        win_n := 0;
        if only_device is null then
            select h.after_id into hand from claim_hands h
             where h.platform = cls.platform and h.labels_md5 = cls.lh
               and h.serves_all = cls.serves_all and h.team = cls.team;
        end if;
        if hand is not null then
            select count(*), array_agg(w.id) filter (where w.current_run_id is null)
              into win_n, win_free
              from (select y.id, y.current_run_id from devices y
                     where y.platform = cls.platform and md5(y.labels::text)::uuid = cls.lh
                       and y.serves_all = cls.serves_all
                       and coalesce(y.serves_team, '') = cls.team
                       and y.id collate "C" > hand
                     order by y.id collate "C"
                     limit 2 * lim) w;
            if win_free is not null then
                -- locked by key, each checked again once locked (no order by: with sorts
                -- off it would walk devices_class from its first entry)
                select array_agg(s.id order by s.id collate "C"),
                       array_agg(s.worker_id order by s.id collate "C")
                  into dev_ids, dev_workers
                  from (select x.id, x.worker_id from devices x
                         where x.id = any (win_free)
                           and x.labels = cls.labels
                           and x.current_run_id is null
                           and x.last_seen > now() - make_interval(secs => ttl_s)
                           and not (x.id = any (held))
                         limit lim
                         for update skip locked) s;
            end if;
        end if;
        if (dev_ids is null or win_n < 2 * lim) and coalesce(cardinality(dev_ids), 0) < lim then
            select coalesce(dev_ids, '{}') || coalesce(array_agg(s.id), '{}'),
                   coalesce(dev_workers, '{}') || coalesce(array_agg(s.worker_id), '{}')
              into dev_ids, dev_workers
              from (select x.id, x.worker_id from devices x
                     where x.platform = cls.platform and md5(x.labels::text)::uuid = cls.lh
                       and x.serves_all = cls.serves_all
                       and coalesce(x.serves_team, '') = cls.team
                       and x.labels = cls.labels
                       and x.current_run_id is null
                       and x.last_seen > now() - make_interval(secs => ttl_s)
                       and (only_device is null or x.id = only_device)
                       and not (x.id = any (held))
                       and not (x.id = any (coalesce(dev_ids, '{}')))
                     order by x.id collate "C"
                     limit lim - coalesce(cardinality(dev_ids), 0)
                     for update skip locked) s;
            if cardinality(dev_ids) = 0 then
                dev_ids := null;
                dev_workers := null;
            end if;
        end if;
        -- the hand moves to the last slot locked; a racing claimer holding the row keeps
        -- its own (skip locked: claimers never wait for each other here)
        if only_device is null and dev_ids is not null then
            perform 1 from claim_hands h
              where h.platform = cls.platform and h.labels_md5 = cls.lh
                and h.serves_all = cls.serves_all and h.team = cls.team
                for update skip locked;
            if found then
                update claim_hands h set after_id = dev_ids[cardinality(dev_ids)]
                 where h.platform = cls.platform and h.labels_md5 = cls.lh
                   and h.serves_all = cls.serves_all and h.team = cls.team;
            elsif hand is null then
                insert into claim_hands (platform, labels_md5, serves_all, team, after_id)
                values (cls.platform, cls.lh, cls.serves_all, cls.team,
                        dev_ids[cardinality(dev_ids)])
                on conflict do nothing;
            end if;
        end if;
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
                select c.id, c.team_id, c.priority, c.created_at
                  from argus_claim_candidates(cls.platform, cls.labels, full_teams,
                                              cardinality(dev_ids), cls.serves_all,
                                              cls.serves_team) c
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
            select array_agg(p.pair_device), array_agg(p.pair_worker), array_agg(p.pair_run)
              into pair_devs, pair_workers, pair_runs
              from argus_claim_pair(run_ids, dev_ids, dev_workers) p;
            n := coalesce(cardinality(pair_runs), 0);
            -- no run for this class (none due, or every one held by another claimer)
            exit when n_cand = 0;
            -- runs, but none that may take the slots locked (each avoids them: the slots
            -- are locked in id order, as many as runs are due): lock the class's other free
            -- slots some of these runs may take, and pair again
            if n = 0 and coalesce(cardinality(run_ids), 0) > 0 then
                select array_agg(s.id), array_agg(s.worker_id) into dev_ids, dev_workers
                  from (select x.id, x.worker_id from devices x
                         where x.platform = cls.platform
                           and md5(x.labels::text)::uuid = cls.lh
                           and x.serves_all = cls.serves_all
                           and coalesce(x.serves_team, '') = cls.team
                           and x.labels = cls.labels
                           and x.current_run_id is null
                           and x.last_seen > now() - make_interval(secs => ttl_s)
                           and (only_device is null or x.id = only_device)
                           and not (x.id = any (held)) and not (x.id = any (dev_ids))
                           and exists (select 1 from runs q where q.id = any (run_ids)
                                          and not (x.id = any (q.avoid_devices)))
                         order by x.id collate "C"
                         limit cardinality(run_ids)
                         for update skip locked) s;
                continue;
            end if;
            continue when n = 0;
            return query
            with m as (
                select u.d, u.w, u.r
                  from unnest(pair_devs, pair_workers, pair_runs) as u(d, w, r)
            ), upd as (
                update runs r
                   set status = 'assigned', attempt_id = gen_random_uuid(),
                       attempts = r.attempts + 1, worker_id = m.w, device_id = m.d,
                       lease_expires_at = now() + make_interval(secs => lease_s),
                       assigned_at = now()
                  from m where r.id = m.r
                returning r.id, r.job_id, r.attempt_id, r.worker_id, r.device_id,
                          r.lease_expires_at, r.team_id
            ), mark as (
                -- `x.id = any (…)`: primary-key look-ups (joined to m alone, the planner
                -- read every slot of a large farm for a hash join)
                update devices x set current_run_id = m.r from m
                 where x.id = m.d and x.id = any (pair_devs)
            )
            select upd.id, upd.job_id, upd.attempt_id, upd.worker_id, upd.device_id,
                   upd.lease_expires_at, j.spec, upd.team_id
              from upd join jobs j on j.id = upd.job_id;
            left_n := left_n - n;
            n_due := n_due - n;
            claimed_here := claimed_here + n;
            select array_agg(x.d order by x.i), array_agg(x.w order by x.i)
              into dev_ids, dev_workers
              from unnest(dev_ids, dev_workers) with ordinality as x(d, w, i)
             where not (x.d = any (pair_devs));
            -- another try only helps when a quota cut runs this class could have had
            exit when n_cand = cardinality(run_ids) or coalesce(cardinality(dev_ids), 0) = 0;
        end loop;
    end loop;
end
$$;
