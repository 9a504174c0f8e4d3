//! The device a dashboard try (issue 28 item 4, `api/try_page.rs`) is addressed to: what it
//! is and whether it can take a run now. A try is refused at once on a device that cannot
//! (offline, busy, quarantined, serving another team) rather than queued to wait for it.

use sqlx::PgPool;

use super::TeamScope;

/// One device as a try sees it.
#[derive(Debug, Clone)]
pub struct TryTarget {
    /// Device id.
    pub id: String,
    /// Its platform (`web`, `android`, …).
    pub platform: String,
    /// Heard from within the device TTL.
    pub online: bool,
    /// Running a run, or a run addressed to it alone is queued for it (another try, a
    /// probe).
    pub busy: bool,
    /// Its health state is `quarantined`.
    pub quarantined: bool,
    /// It serves the caller's team (every team, or that team by name): its runs may go there.
    pub serves_caller: bool,
    /// The caller's team runs as many runs as its quota (`teams.max_concurrent`) allows: the
    /// claim of addressed runs does not count quotas, so a try is refused then instead.
    pub team_at_quota: bool,
}

/// The device `id` when the caller may see it: an admin sees every device, anyone else the
/// devices that serve every team or its own team. `None` when unknown or not visible (the
/// caller answers 404 for both, so another team's device is not revealed).
///
/// Errors: the database's.
pub async fn target(
    pool: &PgPool,
    id: &str,
    ttl_s: u64,
    scope: &TeamScope,
    team: &str,
) -> Result<Option<TryTarget>, sqlx::Error> {
    let row = sqlx::query!(
        r#"select d.id, d.platform, d.serves_all, d.serves_team,
                  d.last_seen > now() - make_interval(secs => $2) as "online!",
                  (d.current_run_id is not null
                   or exists (select 1 from runs q
                               where q.only_device = d.id and q.status = 'queued')) as "busy!",
                  exists (select 1 from device_health h
                           where h.device_id = d.id and h.state = 'quarantined') as "quarantined!",
                  exists (select 1 from teams t
                           where t.id = $3 and t.max_concurrent is not null
                             and t.max_concurrent <= (select count(*) from runs x
                                                       where x.team_id = t.id
                                                         and x.status in ('assigned', 'running')))
                      as "team_at_quota!"
             from devices d where d.id = $1"#,
        id,
        ttl_s as f64,
        team
    )
    .fetch_optional(pool)
    .await?;
    let Some(r) = row else {
        return Ok(None);
    };
    let serves = |t: &str| r.serves_all || r.serves_team.as_deref() == Some(t);
    if let Some(t) = scope.team() {
        if !serves(t) {
            return Ok(None);
        }
    }
    Ok(Some(TryTarget {
        serves_caller: serves(team),
        id: r.id,
        platform: r.platform,
        online: r.online,
        busy: r.busy,
        quarantined: r.quarantined,
        team_at_quota: r.team_at_quota,
    }))
}
