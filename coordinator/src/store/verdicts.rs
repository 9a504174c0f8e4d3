//! What a run's verdict rests on (migration 0009): the expectations the worker reported
//! before its first action (`runs.expectations`), and the step file a succeeded `llm` /
//! `vlm` run exported (`runs.steps_script`, served by `GET /api/v1/runs/{id}/steps`). The
//! verdict itself is written with the run's end ([`super::effects`]). Writes are fenced by
//! attempt id like every other effect of a run event.

use std::collections::BTreeMap;

use super::TeamScope;
use argus_protocol::expect::Expectation;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// Stores each run's reported expectations (`(run_id, attempt_id)` → items) on the runs
/// whose current attempt it is; in the applier's transaction, one statement.
///
/// Errors: the database's; the caller rolls the batch back.
pub async fn expectations(
    tx: &mut PgConnection,
    items: &BTreeMap<(Uuid, Uuid), &[Expectation]>,
) -> Result<(), sqlx::Error> {
    if items.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = items.keys().map(|k| k.0).collect();
    let atts: Vec<Uuid> = items.keys().map(|k| k.1).collect();
    let lists: Vec<sqlx::types::Json<&[Expectation]>> =
        items.values().map(|v| sqlx::types::Json(*v)).collect();
    sqlx::query!(
        "update runs r set expectations = u.items
           from unnest($1::uuid[], $2::uuid[], $3::jsonb[]) as u(id, att, items)
          where r.id = u.id and r.attempt_id = u.att",
        &ids,
        &atts,
        &lists as _
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Stores each run's learned step file (`(run_id, attempt_id)` → script) as the run's
/// exported steps, whatever the job's cache mode; in the applier's transaction.
///
/// Errors: the database's; the caller rolls the batch back.
pub async fn steps_scripts(
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
        "update runs r set steps_script = u.script
           from unnest($1::uuid[], $2::uuid[], $3::text[]) as u(id, att, script)
          where r.id = u.id and r.attempt_id = u.att",
        &ids,
        &atts,
        &scripts as _
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// A run's exported step file, as `GET /api/v1/runs/{id}/steps` serves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepsFile {
    /// The run.
    pub run_id: Uuid,
    /// The job's display name, else its id.
    pub job: String,
    /// Step-language lines, the expectations last as assertions.
    pub script: String,
}

impl StepsFile {
    /// The file's text: a `# run <id> of job <name>` header, then the script (ending in a
    /// newline).
    pub fn text(&self) -> String {
        // a name is one line in the header, whatever the job was called
        let job: String = self
            .job
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let mut out = format!("# run {} of job {job}\n{}", self.run_id, self.script);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }
}

/// Whether a run exists in `scope` and, if so, its step file: `Ok(None)` for an unknown run
/// or one out of scope, `Ok(Some(None))` for a run that has none (only a succeeded `llm` /
/// `vlm` run has one).
///
/// Errors: the database's.
pub async fn steps_file(
    pool: &PgPool,
    id: Uuid,
    scope: &TeamScope,
) -> Result<Option<Option<StepsFile>>, sqlx::Error> {
    let row = sqlx::query!(
        "select r.status, r.steps_script, j.name, j.id as job_id
           from runs r join jobs j on j.id = r.job_id
          where r.id = $1 and ($2::text is null or r.team_id = $2)",
        id,
        scope.team()
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| {
        let (name, job_id) = (r.name, r.job_id);
        r.steps_script
            .filter(|_| r.status == "succeeded")
            .map(|script| StepsFile {
                run_id: id,
                job: name.unwrap_or_else(|| job_id.to_string()),
                script,
            })
    }))
}

/// Whether the run has an exported step file (the report's "Download as steps" link).
///
/// Errors: the database's.
pub async fn has_steps(pool: &PgPool, id: Uuid) -> Result<bool, sqlx::Error> {
    let row = sqlx::query_scalar!(
        r#"select steps_script is not null and status = 'succeeded' as "has!"
             from runs where id = $1"#,
        id
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.unwrap_or(false))
}
