-- Learned replay (issue 15): per team, the step-language script a successful llm/vlm run
-- left for the next run of the same job key (argus_protocol::replay documents the key).
-- The dispatcher attaches the script to the assignment; a team never reads another's row
-- (the team is part of the primary key and of every query).

-- sha256 hex of team + key material; null for script-mode jobs (they never replay).
alter table jobs add column replay_key text;

create table replay_cache (
    team_id text not null references teams (id) on delete cascade,
    key text not null,
    script text not null,
    -- the run whose success stored (or last updated) the script
    source_run_id uuid not null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    -- how many runs were handed the script
    hits bigint not null default 0,
    last_hit_at timestamptz,
    primary key (team_id, key)
);
