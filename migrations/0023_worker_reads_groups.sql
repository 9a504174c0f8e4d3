-- Issue 25 (dispatch throughput): a claim's assignments for one worker go as one JetStream
-- message (argus_protocol::assignment_group) — but only to a worker that says in its
-- heartbeat that it reads such messages (`Heartbeat::reads_assignment_groups`). A worker
-- older than groups would read an array as one unreadable assignment, ack it and drop every
-- run in it until their leases expired, claim after claim; it keeps getting one assignment
-- a message. Written on every heartbeat (store/workers.rs `upsert_worker`), read by the
-- dispatcher before it publishes a claimed batch (`workers::reading_groups`).
alter table workers add column reads_assignment_groups boolean not null default false;
