//! The learned-replay cache (`replay_cache`, migration 0008): one step-language script per
//! `(team, key)`. The key is computed at submit ([`key`]) and kept on the job; the
//! dispatcher attaches a team's script to the assignments of runs whose job reads the cache
//! ([`attach`]); a `replay_learned` event of a job that writes it stores or updates the
//! script ([`learned`]) when the run's slot serves the job's team. Every query names the
//! team: a team never reads another's entry.

use std::collections::BTreeMap;

use argus_protocol::JobSpec;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::TeamScope;
use crate::store::claim::Claimed;

/// The replay key of `spec` submitted by `team`: sha256 (hex) of the team, a newline and
/// [`argus_protocol::replay::key_material`]; `None` for `script` mode.
pub fn key(team: &str, spec: &JobSpec) -> Option<String> {
    let material = argus_protocol::replay::key_material(spec)?;
    let mut h = Sha256::new();
    h.update(team.as_bytes());
    h.update(b"\n");
    h.update(material.as_bytes());
    Some(
        h.finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>(),
    )
}

/// A stored script, as the API shows it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Entry {
    /// The replay key (sha256 hex).
    pub key: String,
    /// Step-language lines.
    pub script: String,
    /// The run that stored or last updated it.
    pub source_run_id: Uuid,
    /// First stored.
    pub created_at: DateTime<Utc>,
    /// Last stored.
    pub updated_at: DateTime<Utc>,
    /// Runs handed the script so far.
    pub hits: i64,
    /// When a run was last handed it.
    pub last_hit_at: Option<DateTime<Utc>>,
}

/// Gives each claimed run whose job reads the cache the script its team stored under the
/// job's key (one statement for the batch, counting the hits); runs of other modes or
/// without an entry are left alone. Costs nothing when no claimed run is `llm` / `vlm`.
///
/// Errors: the database's; the dispatcher then publishes the assignments without scripts.
pub async fn attach(pool: &PgPool, claimed: &mut [Claimed]) -> Result<(), sqlx::Error> {
    let jobs: Vec<Uuid> = claimed
        .iter()
        .filter(|c| c.spec.cache_mode().reads())
        .map(|c| c.job_id)
        .collect();
    if jobs.is_empty() {
        return Ok(());
    }
    let rows = sqlx::query!(
        r#"with hit as (
             select j.id as job_id, c.team_id, c.key, c.script
               from jobs j
               join replay_cache c on c.team_id = j.team_id and c.key = j.replay_key
              where j.id = any($1))
         , counted as (
             update replay_cache c set hits = c.hits + n.n, last_hit_at = now()
               from (select team_id, key, count(*) as n from hit group by team_id, key) n
              where c.team_id = n.team_id and c.key = n.key)
         select job_id as "job_id!", script as "script!" from hit"#,
        &jobs
    )
    .fetch_all(pool)
    .await?;
    let by_job: BTreeMap<Uuid, String> = rows.into_iter().map(|r| (r.job_id, r.script)).collect();
    for c in claimed.iter_mut() {
        if c.spec.cache_mode().reads() {
            c.replay = by_job.get(&c.job_id).cloned();
        }
    }
    Ok(())
}

/// Stores (or replaces) the scripts of `learned` (`(run_id, attempt_id)` → script) for the
/// runs whose current attempt it is and whose job writes the cache (`llm` / `vlm`, `cache`
/// `read_write` or left out), under the job's team, and only when the slot holding the run
/// serves that team (the claim's rule, migrations/0011_worker_teams.sql): a worker cannot
/// store a script for a team its token does not serve, even holding that team's attempt.
/// Inside the applier's transaction.
pub async fn learned(
    tx: &mut PgConnection,
    learned: &BTreeMap<(Uuid, Uuid), &str>,
) -> Result<(), sqlx::Error> {
    if learned.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = learned.keys().map(|k| k.0).collect();
    let atts: Vec<Uuid> = learned.keys().map(|k| k.1).collect();
    let scripts: Vec<&str> = learned.values().copied().collect();
    sqlx::query!(
        "insert into replay_cache (team_id, key, script, source_run_id)
         select j.team_id, j.replay_key, u.script, r.id
           from unnest($1::uuid[], $2::uuid[], $3::text[]) as u(id, att, script)
           join runs r on r.id = u.id and r.attempt_id = u.att
           join jobs j on j.id = r.job_id
           join devices d on d.id = r.device_id
          where j.replay_key is not null
            and (d.serves_all or d.serves_team = j.team_id)
            and j.spec->>'mode' in ('llm', 'vlm')
            and coalesce(j.spec->>'cache', 'read_write') = 'read_write'
         on conflict (team_id, key) do update
           set script = excluded.script, source_run_id = excluded.source_run_id,
               updated_at = now()",
        &ids,
        &atts,
        &scripts as _
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// The team's entry under `job`'s key: `Ok(None)` when the job is not in `scope` (or does
/// not exist, or is a script job), `Ok(Some((key, None)))` when nothing is stored.
pub async fn for_job(
    pool: &PgPool,
    job: Uuid,
    scope: &TeamScope,
) -> Result<Option<(Option<String>, Option<Entry>)>, sqlx::Error> {
    let Some((team_id, key)) = job_key(pool, job, scope).await? else {
        return Ok(None);
    };
    let Some(key) = key else {
        return Ok(Some((None, None)));
    };
    let entry = sqlx::query_as!(
        Entry,
        "select key, script, source_run_id, created_at, updated_at, hits, last_hit_at
           from replay_cache where team_id = $1 and key = $2",
        team_id,
        key
    )
    .fetch_optional(pool)
    .await?;
    Ok(Some((Some(key), entry)))
}

/// Deletes the team's entry under `job`'s key; whether one was deleted, `None` when the job
/// is not in `scope`.
pub async fn clear_for_job(
    pool: &PgPool,
    job: Uuid,
    scope: &TeamScope,
) -> Result<Option<bool>, sqlx::Error> {
    let Some((team_id, key)) = job_key(pool, job, scope).await? else {
        return Ok(None);
    };
    let n = sqlx::query!(
        "delete from replay_cache where team_id = $1 and key = $2",
        team_id,
        key
    )
    .execute(pool)
    .await?
    .rows_affected();
    Ok(Some(n > 0))
}

/// The team and replay key of `job` (`None` for a script job's key), when the job is in
/// `scope`; `Ok(None)` otherwise.
async fn job_key(
    pool: &PgPool,
    job: Uuid,
    scope: &TeamScope,
) -> Result<Option<(String, Option<String>)>, sqlx::Error> {
    let row = sqlx::query!(
        "select team_id, replay_key from jobs where id = $1 and ($2::text is null or team_id = $2)",
        job,
        scope.team()
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| (r.team_id, r.replay_key)))
}
