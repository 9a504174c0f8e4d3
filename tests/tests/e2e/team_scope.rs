//! Store functions answer within the [`TeamScope`] they are given (issue 26): a user of team
//! A asking with its caller's scope sees, changes and cancels none of team B's rows through
//! any team-scoped store function, while the system scope sees both teams'.

use std::collections::HashSet;

use argus_coordinator::auth::{tokens, Caller, Role};
use argus_coordinator::store::insights::{self, GroupBy};
use argus_coordinator::store::runs::RunFilter;
use argus_coordinator::store::{
    device_runs, jobs, replay, runs, schedules, suites, verdicts, TeamScope,
};
use argus_protocol::RunStatus;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::{bare_farm, exec};

/// What one team owns: a job and its run, a suite and a schedule.
struct Owned {
    job: Uuid,
    run: Uuid,
    suite: Uuid,
    schedule: Uuid,
}

async fn created(c: &reqwest::Client, url: String, body: Value) -> Value {
    let r = c.post(&url).json(&body).send().await.expect("post");
    assert_eq!(r.status().as_u16(), 201, "{url}");
    r.json().await.expect("json")
}

fn id(v: &Value) -> Uuid {
    v.as_str().and_then(|s| s.parse().ok()).expect("an id")
}

/// Submits a job, a suite and a schedule as `c` (a user of its team).
async fn own(base: &str, c: &reqwest::Client, team: &str) -> Owned {
    let job = created(
        c,
        format!("{base}/api/v1/jobs"),
        json!({"platform": "web", "name": format!("{team} job"),
               "instruction": "tap \"Sign in\""}),
    )
    .await;
    let suite = created(
        c,
        format!("{base}/api/v1/suites"),
        json!({"name": format!("{team} suite"),
               "jobs": [{"platform": "web", "name": "s", "instruction": "wait 1ms"}]}),
    )
    .await;
    let schedule = created(
        c,
        format!("{base}/api/v1/schedules"),
        json!({"name": format!("{team} nightly"), "cron": "0 3 1 1 *", "timezone": "UTC",
               "template": {"platform": "web", "instruction": "wait 1ms"}}),
    )
    .await;
    Owned {
        job: id(&job["job_id"]),
        run: id(&job["run_id"]),
        suite: id(&suite["suite_id"]),
        schedule: id(&schedule["schedule_id"]),
    }
}

fn user_scope(team: &str) -> TeamScope {
    Caller {
        team_id: team.into(),
        role: Role::User,
        token_id: None,
        shared_pool: false,
    }
    .scope()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_scope_sees_none_of_another_teams_rows() {
    let farm = bare_farm().await;
    // A slot for the submit check, heard from an hour ago so nothing claims the runs.
    farm.register_sim_device("scope-web", "web", json!({}), 3600)
        .await;
    let base = farm.base_url.clone();
    let a = own(&base, &farm.client_for("team-a", "user").await, "team-a").await;
    let b = own(&base, &farm.client_for("team-b", "user").await, "team-b").await;
    // Both job runs end passed, with a step file, for the insights and the step file.
    for run in [a.run, b.run] {
        exec(
            &farm.pool,
            &format!(
                "update runs set status = 'succeeded', started_at = now() - interval '1 second',
                        finished_at = now(), steps_script = 'tap \"Sign in\"'
                  where id = '{run}'"
            ),
        )
        .await;
    }
    let pool = &farm.pool;
    let (sa, all) = (user_scope("team-a"), TeamScope::system());

    // Runs: lists, visibility and detail.
    let listed = runs::list(pool, &sa, &RunFilter::default())
        .await
        .expect("list");
    assert!(listed.iter().all(|r| r.team_id == "team-a"), "{listed:?}");
    assert!(listed.iter().any(|r| r.id == a.run));
    let listed: HashSet<Uuid> = runs::list(pool, &all, &RunFilter::default())
        .await
        .expect("list")
        .into_iter()
        .map(|r| r.id)
        .collect();
    assert!(listed.contains(&a.run) && listed.contains(&b.run));
    assert!(runs::visible(pool, a.run, &sa).await.expect("visible"));
    assert!(!runs::visible(pool, b.run, &sa).await.expect("visible"));
    assert!(runs::visible(pool, b.run, &all).await.expect("visible"));
    assert_eq!(
        runs::visible_ids(pool, &[a.run, b.run], &sa)
            .await
            .expect("visible_ids"),
        HashSet::from([a.run])
    );
    assert!(runs::detail(pool, b.run, &sa)
        .await
        .expect("detail")
        .is_none());
    assert!(runs::detail(pool, a.run, &sa)
        .await
        .expect("detail")
        .is_some());

    // One device's runs (its page).
    sqlx::query("update runs set device_id = 'scope-dev' where id = any($1)")
        .bind(vec![a.run, b.run])
        .execute(pool)
        .await
        .expect("device ids");
    let on = |rows: Vec<runs::RunSummary>| rows.into_iter().map(|r| r.id).collect::<HashSet<_>>();
    assert_eq!(
        on(device_runs::on_device(pool, &sa, "scope-dev", 100)
            .await
            .expect("device runs")),
        HashSet::from([a.run])
    );
    assert_eq!(
        on(device_runs::on_device(pool, &all, "scope-dev", 100)
            .await
            .expect("device runs")),
        HashSet::from([a.run, b.run])
    );

    // Jobs and their replay entries.
    assert!(jobs::get(pool, b.job, &sa).await.expect("job").is_none());
    assert!(jobs::get(pool, a.job, &sa).await.expect("job").is_some());
    assert!(replay::for_job(pool, b.job, &sa)
        .await
        .expect("replay")
        .is_none());
    assert!(replay::for_job(pool, a.job, &sa)
        .await
        .expect("replay")
        .is_some());
    assert!(replay::clear_for_job(pool, b.job, &sa)
        .await
        .expect("clear")
        .is_none());

    // Step files.
    assert!(verdicts::steps_file(pool, b.run, &sa)
        .await
        .expect("steps")
        .is_none());
    assert!(verdicts::steps_file(pool, b.run, &all)
        .await
        .expect("steps")
        .flatten()
        .is_some());

    // Suites.
    let recent: Vec<Uuid> = suites::recent(pool, &sa, 100)
        .await
        .expect("suites")
        .into_iter()
        .map(|s| s.0)
        .collect();
    assert!(recent.contains(&a.suite) && !recent.contains(&b.suite));
    assert!(suites::view(pool, b.suite, &sa)
        .await
        .expect("suite")
        .is_none());
    assert!(suites::view(pool, b.suite, &all)
        .await
        .expect("suite")
        .is_some());

    // Schedules: listed, read, paused and deleted only within the scope.
    let listed = schedules::list(pool, &sa).await.expect("schedules");
    assert!(listed.iter().all(|s| s.team_id == "team-a"));
    assert!(listed.iter().any(|s| s.id == a.schedule));
    assert!(schedules::get(pool, b.schedule, &sa)
        .await
        .expect("get")
        .is_none());
    let now = chrono::Utc::now();
    assert!(!schedules::set_paused(pool, b.schedule, &sa, true, now)
        .await
        .expect("pause"));
    assert!(!schedules::delete(pool, b.schedule, &sa)
        .await
        .expect("delete"));
    let kept = schedules::get(pool, b.schedule, &all)
        .await
        .expect("get")
        .expect("team B's schedule is still there");
    assert!(!kept.spec.paused, "team A paused team B's schedule");

    // Insights count only the scope's runs.
    let since = now - chrono::Duration::days(1);
    let total = |rates: Vec<insights::DayRate>| rates.iter().map(|r| r.total).sum::<i64>();
    let rates = insights::pass_rates(pool, &sa, since, GroupBy::Platform)
        .await
        .expect("rates");
    assert_eq!(total(rates), 1);
    let rates = insights::pass_rates(pool, &all, since, GroupBy::Platform)
        .await
        .expect("rates");
    assert_eq!(total(rates), 2);
    insights::flaky(pool, &sa, since, 10).await.expect("flaky");
    insights::slowest_steps(pool, &sa, since, 10)
        .await
        .expect("slowest");

    // Tokens.
    let listed = tokens::list(pool, &sa).await.expect("tokens");
    assert!(!listed.is_empty() && listed.iter().all(|t| t.team_id == "team-a"));

    // Cancelling: team A cannot cancel team B's queued suite run.
    let b_suite_run = suites::view(pool, b.suite, &all)
        .await
        .expect("suite")
        .expect("team B's suite")
        .jobs[0]
        .runs[0];
    assert_eq!(
        jobs::cancel_run(pool, b_suite_run, &sa)
            .await
            .expect("cancel"),
        None
    );
    let (d, _) = runs::detail(pool, b_suite_run, &all)
        .await
        .expect("detail")
        .expect("run");
    assert_eq!(d.status, RunStatus::Queued);
}
