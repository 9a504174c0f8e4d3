-- Issue 28 item 2: suites from the dashboard.
--
-- suites.spec: the definition the suite was made from (the `POST /api/v1/suites` body, a
-- protocol::SuiteSpec as JSON), so the dashboard can run the same suite again (a new suite
-- of the same name, in its history) and open its "Edit" form prefilled. Null for suites made
-- before this migration: their jobs are stored expanded (job × data row × cell), which does
-- not say what the rows and cells were, so those suites cannot be run again from the page.

alter table suites add column spec jsonb;

-- jobs.suite_position: a suite job's place in submission order (job × data row × cell, as
-- protocol::SuiteSpec::rows_expanded and scheduler::expand list them). A suite's jobs are
-- inserted in one transaction, so they share created_at (now() is the transaction's time)
-- and the suite page's grid came out in uuid order; the suite view orders by this instead.
-- Null for jobs outside suites and for suites made before this migration.
alter table jobs add column suite_position integer;
