-- Issue 12 (security): tokens may expire and record their last use; the dashboard cookie
-- names a server-side session (never the API token itself) that carries its CSRF token;
-- failed sign-ins are counted per client address in SQL so every coordinator behind a load
-- balancer throttles alike; a worker id or device id belongs to the token that first
-- registered it.

alter table api_tokens add column expires_at timestamptz;
alter table api_tokens add column last_used_at timestamptz;

create table dashboard_sessions (
    id_sha256 bytea primary key,
    token_id uuid not null references api_tokens (id) on delete cascade,
    csrf text not null,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null
);
create index dashboard_sessions_token on dashboard_sessions (token_id);

create table login_failures (
    addr text not null,
    at timestamptz not null default now()
);
create index login_failures_addr on login_failures (addr, at);

-- Revoking a token frees its identities, so a replacement token can take them over.
create table identity_owners (
    kind text not null check (kind in ('worker', 'device')),
    name text not null,
    token_id uuid not null references api_tokens (id) on delete cascade,
    claimed_at timestamptz not null default now(),
    primary key (kind, name)
);
