-- Issue 28 item 2: suites from the dashboard.
--
-- suites.spec: the definition the suite was made from (the `POST /api/v1/suites` body, a
-- protocol::SuiteSpec as JSON), so the dashboard can run the same suite again (a new suite
-- of the same name, in its history) and open its "Edit" form prefilled. Null for suites made
-- before this migration: their jobs are stored expanded (job × data row × cell), which does
-- not say what the rows and cells were, so those suites cannot be run again from the page.

alter table suites add column spec jsonb;
