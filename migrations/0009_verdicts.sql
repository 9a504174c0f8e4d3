-- Verdicts you can trust (issue 23): a natural-language run passes only on evidence.

-- `unverified`: a run that carried out its plan with nothing to check. Terminal, never a
-- pass (argus_protocol::RunStatus::Unverified). The check is 0001's, named by postgres'
-- default `<table>_<column>_check`.
alter table runs drop constraint runs_status_check;
alter table runs add constraint runs_status_check check (status in ('queued', 'assigned',
    'running', 'succeeded', 'unverified', 'failed', 'errored', 'cancelled', 'timed_out',
    'lost'));

-- The run's expectations (`[argus_protocol::expect::Expectation]`) as the worker reported
-- them before its first action, so the API and the report show them while it runs.
alter table runs add column expectations jsonb not null default '[]';

-- What decided the terminal status (`argus_protocol::expect::Verdict`), from run_finished;
-- null for runs that ended without one (errored, cancelled, older workers).
alter table runs add column verdict jsonb;

-- The step file a succeeded llm / vlm run exported (its actions, the expectations as
-- asserts), whatever the job's cache mode: `GET /api/v1/runs/{id}/steps` serves it. The
-- replay cache keeps its own copy only for jobs that write it.
alter table runs add column steps_script text;
