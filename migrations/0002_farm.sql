-- The farm: teams and API tokens (hashed), priorities, retries, queue deadlines, cancel,
-- label constraints evaluated inside the claim, schedules (patrols) and suites.

create table teams (
    id text primary key,
    -- most runs of this team assigned/running at once; null = unlimited
    max_concurrent integer check (max_concurrent is null or max_concurrent >= 0),
    created_at timestamptz not null default now()
);
insert into teams (id) values ('default');

-- Tokens are stored as sha256 digests only; the clear value is shown once at creation.
create table api_tokens (
    id uuid primary key,
    team_id text not null references teams (id) on delete cascade,
    name text not null default '',
    token_sha256 bytea not null unique,
    role text not null default 'user' check (role in ('user', 'worker', 'admin')),
    created_at timestamptz not null default now()
);

alter table jobs add column team_id text not null default 'default' references teams (id);
alter table jobs add column selector_require jsonb not null default '[]';
alter table jobs add column schedule_id uuid;
alter table jobs add column suite_id uuid;
alter table jobs add column matrix_cell text;
create index jobs_team on jobs (team_id, created_at desc);
create index jobs_suite on jobs (suite_id) where suite_id is not null;
create index jobs_schedule on jobs (schedule_id) where schedule_id is not null;

alter table runs add column team_id text not null default 'default';
alter table runs add column priority integer not null default 0;
-- a retry waits for its backoff
alter table runs add column not_before timestamptz not null default now();
-- a queued run past this ends timed_out
alter table runs add column queue_deadline timestamptz;
alter table runs add column cancel_requested boolean not null default false;
alter table runs add column retry_of uuid references runs (id) on delete set null;

-- Priority first, FIFO within: the claim walks this index in order.
drop index runs_queued;
create index runs_queued on runs (priority desc, created_at, id) where status = 'queued';
create index runs_active_team on runs (team_id) where status in ('assigned', 'running');
create index runs_queue_deadline on runs (queue_deadline)
    where status = 'queued' and queue_deadline is not null;

-- Dotted-number compare (13 < 13.0 < 13.1, 9 < 10) else byte-wise; mirrors
-- argus_protocol::selector::compare_values.
create function argus_cmp_values(a text, b text) returns integer
language sql immutable as $$
    select case
        when a ~ '^[0-9]+(\.[0-9]+)*$' and b ~ '^[0-9]+(\.[0-9]+)*$' then
            case when string_to_array(a, '.')::numeric[] < string_to_array(b, '.')::numeric[] then -1
                 when string_to_array(a, '.')::numeric[] > string_to_array(b, '.')::numeric[] then 1
                 else 0 end
        else
            case when a collate "C" < b collate "C" then -1
                 when a collate "C" > b collate "C" then 1
                 else 0 end
    end
$$;

-- Does a device's label object satisfy every constraint `{key, op, values}`? Mirrors
-- argus_protocol::selector::Constraint::matches: a missing label is false.
create function argus_selector_match(labels jsonb, cons jsonb) returns boolean
language plpgsql immutable as $$
declare
    c jsonb;
    have text;
    v text;
    cmp integer;
begin
    for c in select * from jsonb_array_elements(cons) loop
        have := labels ->> (c ->> 'key');
        if have is null then
            return false;
        end if;
        v := c -> 'values' ->> 0;
        if c ->> 'op' = 'eq' then
            if have <> v then return false; end if;
        elsif c ->> 'op' = 'ne' then
            if have = v then return false; end if;
        elsif c ->> 'op' = 'in' then
            if not ((c -> 'values') ? have) then return false; end if;
        else
            cmp := argus_cmp_values(have, v);
            if (c ->> 'op' = 'lt' and cmp >= 0) or (c ->> 'op' = 'le' and cmp > 0)
               or (c ->> 'op' = 'gt' and cmp <= 0) or (c ->> 'op' = 'ge' and cmp < 0) then
                return false;
            end if;
        end if;
    end loop;
    return true;
end
$$;

create table schedules (
    id uuid primary key,
    team_id text not null references teams (id) on delete cascade,
    name text not null,
    cron text not null,
    timezone text not null,
    -- a JobSpec without selector; each matrix cell supplies one
    template jsonb not null,
    -- array of selectors, one job per cell per tick
    matrix jsonb not null,
    missed text not null default 'skip' check (missed in ('skip', 'run_once')),
    paused boolean not null default false,
    next_fire_at timestamptz not null,
    last_fired_at timestamptz,
    created_at timestamptz not null default now()
);
create index schedules_due on schedules (next_fire_at) where not paused;

-- One row per fired tick: the primary key makes a second firing of the same tick impossible
-- even with several coordinators.
create table schedule_fires (
    schedule_id uuid not null references schedules (id) on delete cascade,
    fire_at timestamptz not null,
    fired_at timestamptz not null default now(),
    primary key (schedule_id, fire_at)
);

create table suites (
    id uuid primary key,
    team_id text not null references teams (id) on delete cascade,
    name text not null,
    created_at timestamptz not null default now()
);
