-- Revoked tokens stay revoked (issue 24, item 7): revoking deletes the token's row, so a
-- coordinator started again with the same ARGUS_BOOTSTRAP_TOKEN used to mint it anew. The
-- digest of every revoked token is kept here, and no token whose digest is here is ever
-- stored again (the bootstrap token included). Digests only, as in api_tokens.
-- (0012, not 0011: another branch of issue 24 adds 0011.)

create table revoked_tokens (
    token_sha256 bytea primary key,
    revoked_at timestamptz not null default now()
);
