//! API tokens: minted by `argus token create` (clear value shown once, only its sha256
//! stored), optionally expiring, listed with their last use, revoked by id. A lookup
//! refuses expired tokens and stamps `last_used_at` (at most once a minute per token, so a
//! worker heartbeating every 2 s does not rewrite the row each time). A revoked token's
//! digest is kept (`revoked_tokens`), and a value revoked once is never stored again: the
//! coordinator's `ARGUS_BOOTSTRAP_TOKEN` is not re-created at its next start ([`bootstrap`]).

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use sqlx::PgPool;

use super::{Caller, Role};
use crate::store::TeamScope;

/// sha256 of a token.
pub fn digest(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// A fresh random token: `argus_` + 64 hex chars (two v4 UUIDs, 244 random bits).
pub fn generate() -> String {
    format!(
        "argus_{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// Stores a token for `team` (creating the team) with `role`, never expiring; returns its id.
pub async fn create_token(
    pool: &PgPool,
    team: &str,
    role: Role,
    name: &str,
    token: &str,
) -> Result<uuid::Uuid, sqlx::Error> {
    create_token_expiring(pool, team, role, name, token, None).await
}

/// Stores a token that stops working at `expires_at` (`None` = never); returns its id.
/// A value already stored, or revoked once, is left as it is (nothing is stored).
pub async fn create_token_expiring(
    pool: &PgPool,
    team: &str,
    role: Role,
    name: &str,
    token: &str,
    expires_at: Option<DateTime<Utc>>,
) -> Result<uuid::Uuid, sqlx::Error> {
    let id = uuid::Uuid::new_v4();
    sqlx::query!(
        "insert into teams (id) values ($1) on conflict do nothing",
        team
    )
    .execute(pool)
    .await?;
    sqlx::query!(
        "insert into api_tokens (id, team_id, name, token_sha256, role, expires_at)
         select $1, $2, $3, $4, $5, $6
          where not exists (select 1 from revoked_tokens where token_sha256 = $4)
         on conflict (token_sha256) do nothing",
        id,
        team,
        name,
        digest(token),
        role.as_str(),
        expires_at
    )
    .execute(pool)
    .await?;
    Ok(id)
}

/// A stored role name as a [`Role`]. Errors: a name other than the three (the table's check
/// constraint rules it out), as a decode error.
pub(super) fn stored_role(name: &str) -> Result<Role, sqlx::Error> {
    name.parse::<Role>()
        .map_err(|e| sqlx::Error::Decode(e.into()))
}

/// Looks a live (known, unexpired) token up and records its use.
pub async fn lookup(pool: &PgPool, token: &str) -> Result<Option<Caller>, sqlx::Error> {
    let row = sqlx::query!(
        r#"select id, team_id, role, shared_pool,
                  last_used_at is null or last_used_at < now() - interval '1 minute'
                      as "stale!"
             from api_tokens
            where token_sha256 = $1 and (expires_at is null or expires_at > now())"#,
        digest(token)
    )
    .fetch_optional(pool)
    .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    if row.stale {
        touch(pool, row.id).await?;
    }
    Ok(Some(Caller {
        team_id: row.team_id,
        role: stored_role(&row.role)?,
        token_id: Some(row.id),
        shared_pool: row.shared_pool,
    }))
}

/// Grants (or withdraws) the shared pool to the worker token `id`: its workers then serve
/// every team's runs, not only its own team's. An admin action (`argus token create --role
/// worker --shared-pool`); a heartbeat cannot ask for it. Returns whether a worker token
/// with that id was changed (`false`: no such token, or not a worker token).
///
/// Errors: the database's.
pub async fn set_shared_pool(pool: &PgPool, id: uuid::Uuid, on: bool) -> Result<bool, sqlx::Error> {
    let r = sqlx::query!(
        "update api_tokens set shared_pool = $2 where id = $1 and role = 'worker'",
        id,
        on
    )
    .execute(pool)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Stamps a token's `last_used_at`.
pub(crate) async fn touch(pool: &PgPool, id: uuid::Uuid) -> Result<(), sqlx::Error> {
    sqlx::query!(
        "update api_tokens set last_used_at = now() where id = $1",
        id
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// One token as `argus token list` shows it (never its value).
#[derive(Debug, Clone, serde::Serialize)]
pub struct TokenRow {
    /// Token id (what `argus token revoke` takes).
    pub id: uuid::Uuid,
    /// Team it acts for.
    pub team_id: String,
    /// What it may do.
    pub role: Role,
    /// A worker token whose workers serve every team (the shared pool).
    pub shared_pool: bool,
    /// The note given at creation.
    pub name: String,
    /// When it was minted.
    pub created_at: DateTime<Utc>,
    /// When it stops working; `None` = never.
    pub expires_at: Option<DateTime<Utc>>,
    /// Last request made with it (to the minute).
    pub last_used_at: Option<DateTime<Utc>>,
}

/// The tokens of the teams in `scope`, oldest first.
pub async fn list(pool: &PgPool, scope: &TeamScope) -> Result<Vec<TokenRow>, sqlx::Error> {
    let rows = sqlx::query!(
        "select id, team_id, role, shared_pool, name, created_at, expires_at, last_used_at
           from api_tokens where $1::text is null or team_id = $1
          order by created_at, id",
        scope.team()
    )
    .fetch_all(pool)
    .await?;
    rows.into_iter()
        .map(|r| {
            Ok(TokenRow {
                id: r.id,
                team_id: r.team_id,
                role: stored_role(&r.role)?,
                shared_pool: r.shared_pool,
                name: r.name,
                created_at: r.created_at,
                expires_at: r.expires_at,
                last_used_at: r.last_used_at,
            })
        })
        .collect()
}

/// Deletes a token (its dashboard sessions and identity claims go with it) and remembers
/// its digest, so the same value is never stored again; `false` if there was none with
/// that id.
pub async fn revoke(pool: &PgPool, id: uuid::Uuid) -> Result<bool, sqlx::Error> {
    let r = sqlx::query!(
        "with gone as (delete from api_tokens where id = $1 returning token_sha256)
         insert into revoked_tokens (token_sha256) select token_sha256 from gone
         on conflict do nothing",
        id
    )
    .execute(pool)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// What [`bootstrap`] did with `ARGUS_BOOTSTRAP_TOKEN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bootstrap {
    /// Stored now: an admin token of team `default`.
    Created,
    /// Already stored (an earlier start).
    Present,
    /// Revoked earlier: not stored again.
    Revoked,
}

/// Stores the bootstrap admin token for team `default` unless it is stored already or was
/// revoked.
pub async fn bootstrap(pool: &PgPool, token: &str) -> Result<Bootstrap, sqlx::Error> {
    let row = sqlx::query!(
        r#"select exists (select 1 from api_tokens where token_sha256 = $1) as "present!",
                  exists (select 1 from revoked_tokens where token_sha256 = $1) as "revoked!""#,
        digest(token)
    )
    .fetch_one(pool)
    .await?;
    if row.revoked {
        return Ok(Bootstrap::Revoked);
    }
    if row.present {
        return Ok(Bootstrap::Present);
    }
    create_token(pool, "default", Role::Admin, "bootstrap", token).await?;
    Ok(Bootstrap::Created)
}
