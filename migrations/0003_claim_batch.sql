-- Batched claim: one round trip claims runs for up to max_n free device slots. One
-- statement per slot was the dispatcher's ceiling (round trips, not the engine, limit a
-- 2-core host: see ENVIRONMENT.md), so the per-slot loop runs inside the server.
--
-- Each slot is claimed with exactly the rules of the single claim statement
-- (coordinator/src/store/claim.rs CLAIM_SQL): the slot row and the run row are taken
-- `for update skip locked`; the run of highest priority (FIFO within) that is due, of the
-- slot's platform, whose labels and constraints the slot satisfies and whose team is under
-- its quota. Statements inside a plpgsql function each see the effects of the earlier ones,
-- so a quota counts the runs this same call already assigned.
--
-- The loop stops early once no queued run is due at all, so an idle farm with many free
-- slots costs one cheap index probe per pass.
create function argus_claim_batch(ttl_s float8, lease_s float8, max_n integer)
returns table (run_id uuid, job_id uuid, attempt_id uuid, worker_id text, device_id text,
               lease_expires_at timestamptz, spec jsonb)
language plpgsql volatile as $$
#variable_conflict use_column
declare
    d record;
    cand uuid;
begin
    for d in
        select x.id, x.worker_id, x.platform, x.labels from devices x
         where x.current_run_id is null and x.last_seen > now() - make_interval(secs => ttl_s)
         order by x.last_seen desc
         limit max_n
    loop
        -- the slot: skipped when another claimer holds it or filled it since the list
        perform 1 from devices x where x.id = d.id and x.current_run_id is null
            for update skip locked;
        if not found then
            continue;
        end if;
        select r.id into cand from runs r join jobs j on j.id = r.job_id
         where r.status = 'queued' and r.not_before <= now() and j.platform = d.platform
           and d.labels @> j.selector_labels and argus_selector_match(d.labels, j.selector_require)
           and coalesce((select case when t.max_concurrent is null then true
                                     else t.max_concurrent > (select count(*) from runs x
                                           where x.team_id = r.team_id
                                             and x.status in ('assigned', 'running')) end
                           from teams t where t.id = r.team_id), true)
         order by r.priority desc, r.created_at, r.id
         limit 1
         for update of r skip locked;
        if cand is null then
            -- nothing for this slot; when nothing at all is due, no later slot gets one
            if not exists (select 1 from runs q where q.status = 'queued' and q.not_before <= now()) then
                exit;
            end if;
            continue;
        end if;
        return query
            update runs r
               set status = 'assigned', attempt_id = gen_random_uuid(), attempts = r.attempts + 1,
                   worker_id = d.worker_id, device_id = d.id,
                   lease_expires_at = now() + make_interval(secs => lease_s), assigned_at = now()
              from jobs j
             where r.id = cand and j.id = r.job_id
            returning r.id, r.job_id, r.attempt_id, r.worker_id, r.device_id, r.lease_expires_at,
                      j.spec;
        update devices x set current_run_id = cand where x.id = d.id;
        cand := null;
    end loop;
end
$$;
