-- Issue 27 item 4: the build of the app under test.
--
-- * jobs.app_build: the job spec's `app_build` (one line of 1 to 64 characters, validated
--   at submit), kept in a column so insights can group runs by build. Every run of the job
--   (retries, reruns) is joined to it: a run keeps its job's build.
-- * jobs_app_build: the runs of a build, for the insights' per-build pass rates.

alter table jobs add column app_build text
    check (app_build is null or char_length(app_build) between 1 and 64);
create index jobs_app_build on jobs (team_id, name, app_build) where app_build is not null;
