//! Runs by app build (issue 27): pass rate per build of a job (by name) or a suite (by
//! name), and the first build each job started failing on. A run's build is its job's
//! `app_build` (retries and reruns are runs of the same job, so they keep it); runs of jobs
//! without one are left out. Only runs with a verdict count, as on the insights charts:
//! `succeeded` (a pass), `unverified`, `failed`, `timed_out` (not a pass).

use chrono::{DateTime, Utc};
use sqlx::PgPool;

use super::TeamScope;

/// Most runs read for one answer (the latest ones).
pub const MAX_RUNS: i64 = 5000;

/// Whose runs: the jobs named so, or the jobs of the suites named so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildsOf<'a> {
    /// Jobs with this `name`.
    Job(&'a str),
    /// Jobs of suites with this name.
    Suite(&'a str),
}

/// One ended run with a verdict and a build.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildRun {
    /// The job's name (its id when it has none).
    pub job: String,
    /// The job's `app_build`.
    pub app_build: String,
    /// Whether it succeeded.
    pub passed: bool,
    /// When it ended.
    pub finished_at: DateTime<Utc>,
}

/// The latest (at most [`MAX_RUNS`]) runs of `of` in `scope` that have a build and a
/// verdict, oldest first.
///
/// Errors: the database's.
pub async fn runs(
    pool: &PgPool,
    scope: &TeamScope,
    of: BuildsOf<'_>,
) -> Result<Vec<BuildRun>, sqlx::Error> {
    let (job, suite) = match of {
        BuildsOf::Job(n) => (Some(n), None),
        BuildsOf::Suite(n) => (None, Some(n)),
    };
    let mut rows = sqlx::query_as!(
        BuildRun,
        r#"select coalesce(j.name, j.id::text) as "job!", j.app_build as "app_build!",
                  r.status = 'succeeded' as "passed!", r.finished_at as "finished_at!"
             from runs r
             join jobs j on j.id = r.job_id
             left join suites s on s.id = j.suite_id
            where ($1::text is null or r.team_id = $1)
              and j.app_build is not null and r.finished_at is not null
              and r.status in ('succeeded', 'unverified', 'failed', 'timed_out')
              and ($2::text is null or j.name = $2)
              and ($3::text is null or s.name = $3)
            order by r.finished_at desc, r.id desc
            limit $4"#,
        scope.team(),
        job,
        suite,
        MAX_RUNS
    )
    .fetch_all(pool)
    .await?;
    rows.reverse();
    Ok(rows)
}

/// The runs of one build.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildRate {
    /// The build.
    pub app_build: String,
    /// Runs that succeeded.
    pub passed: u64,
    /// Runs with a verdict.
    pub total: u64,
    /// When its first counted run ended (builds are listed in this order).
    pub first_run_at: DateTime<Utc>,
}

impl BuildRate {
    /// `passed / total`, 0..=1 (`total` is never 0).
    pub fn pass_rate(&self) -> f64 {
        self.passed as f64 / self.total.max(1) as f64
    }
}

/// Pass rate per build of `runs` (oldest first), builds in the order they first ran.
pub fn pass_rates(runs: &[BuildRun]) -> Vec<BuildRate> {
    let mut out: Vec<BuildRate> = Vec::new();
    for r in runs {
        let i = match out.iter().position(|b| b.app_build == r.app_build) {
            Some(i) => i,
            None => {
                out.push(BuildRate {
                    app_build: r.app_build.clone(),
                    passed: 0,
                    total: 0,
                    first_run_at: r.finished_at,
                });
                out.len() - 1
            }
        };
        out[i].total += 1;
        out[i].passed += u64::from(r.passed);
    }
    out
}

/// One job's turn from passing to failing.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstFailing {
    /// The job's name.
    pub job: String,
    /// The build of the first run after the job's last pass (its first run when it never
    /// passed), when every run since has failed; `None` when its latest run passed.
    pub first_failing_build: Option<String>,
    /// Runs that failed in a row up to the latest.
    pub failing_runs: u64,
    /// The build of its latest run.
    pub latest_build: String,
}

/// For each job of `runs` (oldest first), in the order the jobs first ran: the earliest
/// build after which every run of the job failed.
pub fn first_failing(runs: &[BuildRun]) -> Vec<FirstFailing> {
    let mut jobs: Vec<&str> = Vec::new();
    for r in runs {
        if !jobs.contains(&r.job.as_str()) {
            jobs.push(&r.job);
        }
    }
    jobs.into_iter()
        .filter_map(|job| {
            let mine: Vec<&BuildRun> = runs.iter().filter(|r| r.job == job).collect();
            let latest = mine.last()?;
            let tail = mine.iter().rev().take_while(|r| !r.passed).count();
            let first = (tail > 0).then(|| mine[mine.len() - tail].app_build.clone());
            Some(FirstFailing {
                job: job.to_string(),
                first_failing_build: first,
                failing_runs: tail as u64,
                latest_build: latest.app_build.clone(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(job: &str, build: &str, passed: bool, s: i64) -> BuildRun {
        BuildRun {
            job: job.into(),
            app_build: build.into(),
            passed,
            finished_at: DateTime::from_timestamp(s, 0).unwrap_or_default(),
        }
    }

    /// 1.3.0 passes, 1.4.0 and 1.4.1 fail: 1.4.0 is the first failing build.
    #[test]
    fn the_first_failing_build_starts_the_failing_tail() {
        let runs = vec![
            run("login", "1.3.0", true, 1),
            run("cart", "1.3.0", true, 2),
            run("login", "1.4.0", false, 3),
            run("cart", "1.4.0", true, 4),
            run("login", "1.4.1", false, 5),
            run("cart", "1.4.1", false, 6),
        ];
        let rates = pass_rates(&runs);
        let got: Vec<(&str, u64, u64)> = rates
            .iter()
            .map(|b| (b.app_build.as_str(), b.passed, b.total))
            .collect();
        assert_eq!(got, [("1.3.0", 2, 2), ("1.4.0", 1, 2), ("1.4.1", 0, 2)]);
        assert_eq!(rates[1].pass_rate(), 0.5);
        let ff = first_failing(&runs);
        assert_eq!(ff[0].job, "login");
        assert_eq!(ff[0].first_failing_build.as_deref(), Some("1.4.0"));
        assert_eq!(ff[0].failing_runs, 2);
        assert_eq!(ff[1].first_failing_build.as_deref(), Some("1.4.1"));
    }

    /// A pass after failures clears it; a job that never passed failed from its first run.
    #[test]
    fn a_pass_clears_it_and_never_passing_starts_at_the_first_run() {
        let runs = vec![
            run("a", "1", false, 1),
            run("a", "2", true, 2),
            run("b", "1", false, 3),
            run("b", "2", false, 4),
        ];
        let ff = first_failing(&runs);
        assert_eq!(ff[0].first_failing_build, None);
        assert_eq!(ff[1].first_failing_build.as_deref(), Some("1"));
        assert_eq!(ff[1].latest_build, "2");
    }
}
