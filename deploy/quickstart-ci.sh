#!/usr/bin/env bash
# CI check of README command 1 (called by deploy/test.sh): runs deploy/quickstart.sh the way
# a newcomer does, but against a FRESH database (unique name, created by dev-up), its own
# NATS prefix, its own free ports and its own state folder, so a race between the worker's
# registration and the first submit cannot hide behind state left by an earlier run. Then
# `quickstart.sh stop` must leave no process it started, and the database is dropped.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[quickstart-ci] %s\n' "$*" >&2; }
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
id="qs$(date +%s)$$"
dir=$(mktemp -d "/tmp/argus-qs-ci-XXXXXX")
# The browser user (Chromium runs as it, sandboxed) must reach the worker's profile below.
chmod 755 "$dir"
db="argus_$id"
qs_env=(
  ARGUS_PG_DB="$db"
  ARGUS_ENV_FILE="$dir/env"
  ARGUS_NATS_PREFIX="$id"
  ARGUS_QUICKSTART_DIR="$dir/state"
  ARGUS_QUICKSTART_PORT="$(free_port)"
  ARGUS_QUICKSTART_APP_PORT="$(free_port)"
)
cleanup() {
  local rc=$?
  env "${qs_env[@]}" bash deploy/quickstart.sh stop || rc=1
  if [[ -s $dir/env ]]; then
    # shellcheck disable=SC1091
    url=$(source "$dir/env" && echo "$ARGUS_DATABASE_URL")
    psql "${url%/*}/postgres" -qc "drop database if exists \"$db\" with (force)" || rc=1
    log "dropped database $db"
  fi
  rm -rf "$dir"
  exit "$rc"
}
trap cleanup EXIT
t0=$(date +%s)
log "database $db, NATS prefix $id, state $dir/state"
# deploy/test.sh has sourced the shared env file: its ARGUS_DATABASE_URL would win over the
# fresh database in quickstart.sh.
env -u ARGUS_DATABASE_URL "${qs_env[@]}" bash deploy/quickstart.sh
log "quickstart passed in $(( $(date +%s) - t0 )) s on a fresh database"
