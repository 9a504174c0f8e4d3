#!/usr/bin/env bash
# Learned replay, FOR MEASURING: the same `llm` TodoMVC job twice through the farm (real
# Chromium, coordinator, NATS, S3) against the scripted chat-completions stub — the first run
# asks the "model" (11 requests: plan + tool calls), the second replays the stored script.
# It runs the e2e test that pins this (tests/tests/e2e/replay.rs) and prints its bench line:
#
#   replay_first_s=… replay_second_s=… first_model_calls=11 second_model_calls=0 speedup=…
#   wall_first_s=… wall_second_s=…
#
# `replay_*_s` are the runs' own durations (worker start → finish); `wall_*_s` submit → result.
# The stub answers at once, so the speedup here is only what replay saves besides model
# latency (plan and `finish` turns, their observations and screenshots); with a real model
# each saved call also saves its seconds. Needs deploy/dev-up.sh's services.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f /tmp/argus-dev/env ]] || deploy/dev-up.sh
# shellcheck disable=SC1091
source /tmp/argus-dev/env
out=$(cargo test -p argus-tests --test e2e -- --test-threads 1 --nocapture \
  replay::second_run_replays_with_no_model_call_and_a_changed_page_hands_over 2>&1) || {
  printf '%s\n' "$out" | tail -40 >&2
  exit 1
}
printf '%s\n' "$out" | grep -E '^replay_first_s='
