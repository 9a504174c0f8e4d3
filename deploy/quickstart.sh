#!/usr/bin/env bash
# README command 1: services up, build, start a coordinator and one web worker, serve
# TodoMVC, wait until the worker's slot is registered and free, submit a real job, follow
# it, print the report URL.
#   deploy/quickstart.sh          run it (leaves coordinator, worker and app running)
#   deploy/quickstart.sh stop     stop what a previous quickstart started, and check (a
#                                 process listing) that nothing it started is left
# Knobs: ARGUS_QUICKSTART_DIR (state folder, /tmp/argus-quickstart), ARGUS_QUICKSTART_PORT
# (coordinator, 8080), ARGUS_QUICKSTART_APP_PORT (TodoMVC, 8090), ARGUS_QUICKSTART_WAIT_S
# (longest wait for the worker's slot, 120), ARGUS_NATS_PREFIX (argus), ARGUS_PG_DB /
# ARGUS_ENV_FILE (passed to deploy/dev-up.sh: a database of that name is created when
# missing), ARGUS_DATABASE_URL (wins over the env file when set).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
state=${ARGUS_QUICKSTART_DIR:-/tmp/argus-quickstart}
port=${ARGUS_QUICKSTART_PORT:-8080}
app_port=${ARGUS_QUICKSTART_APP_PORT:-8090}
slot_wait_s=${ARGUS_QUICKSTART_WAIT_S:-120}
log() { printf '[quickstart] %s\n' "$*" >&2; }

# Every process this quickstart starts (and everything those start: Chromium, its
# renderers) inherits ARGUS_QUICKSTART_RUN=<a token made at start, kept in $state/run>, so
# a /proc listing finds exactly them (never the caller, nor this shell's own helpers).
mark=""
[[ -s $state/run ]] && mark="ARGUS_QUICKSTART_RUN=$(cat "$state/run")"

# Live (non-zombie) processes carrying $mark, one "pid command" line each.
started_processes() {
  [[ -n $mark ]] || return 0
  local f pid st
  for f in /proc/[0-9]*/environ; do
    pid=${f#/proc/}; pid=${pid%/environ}
    grep -qzxF "$mark" "$f" 2>/dev/null || continue
    st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)
    [[ -z $st || $st == Z || $st == X ]] && continue
    printf '%s %s\n' "$pid" "$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | cut -c1-100)"
  done
}

# SIGTERM, then up to 15 s for it to exit, then SIGKILL.
stop_pid() {
  local name=$1 pid=$2
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  local t0=$SECONDS
  for _ in $(seq 1 150); do
    kill -0 "$pid" 2>/dev/null || { log "stopped $name (pid $pid, $((SECONDS - t0)) s)"; return 0; }
    sleep 0.1
  done
  log "$name (pid $pid) ignored SIGTERM for 15 s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
}

stop() {
  for name in worker coordinator app; do
    if [[ -f $state/$name.pid ]]; then
      stop_pid "$name" "$(cat "$state/$name.pid")"
      rm -f "$state/$name.pid"
    fi
  done
  local left=""
  for _ in $(seq 1 50); do
    left=$(started_processes)
    [[ -z $left ]] && return 0
    sleep 0.1
  done
  log "these processes it started were still running; killing them:"
  printf '%s\n' "$left" >&2
  awk '{print $1}' <<<"$left" | xargs -r kill -KILL 2>/dev/null || true
  return 1
}
if [[ ${1:-} == stop ]]; then stop; exit $?; fi

t_start=$(date +%s)
mkdir -p "$state"
stop || true
# A database URL given by the caller wins over the one dev-up writes.
db_url=${ARGUS_DATABASE_URL:-}
log "bringing services up (PostgreSQL, NATS JetStream, SeaweedFS S3, Chromium, TodoMVC)"
bash deploy/dev-up.sh >/dev/null
# shellcheck disable=SC1091
source "${ARGUS_ENV_FILE:-/tmp/argus-dev/env}"
[[ -n $db_url ]] && export ARGUS_DATABASE_URL=$db_url

log "building argus (first build takes a few minutes on 2 cores)"
cargo build --locked --bin argus
argus="${CARGO_TARGET_DIR:-$root/target}/debug/argus"

# One admin token for this quickstart farm (kept in $state/token; only its hash is stored):
# the coordinator's bootstrap token, used by this script and you; the worker gets its own.
[[ -s $state/token ]] || echo "argus_qs_$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')" >"$state/token"
chmod 600 "$state/token"
ARGUS_BOOTSTRAP_TOKEN=$(cat "$state/token")
export ARGUS_BOOTSTRAP_TOKEN ARGUS_API_TOKEN=$ARGUS_BOOTSTRAP_TOKEN
export ARGUS_LISTEN=127.0.0.1:$port
export ARGUS_COORDINATOR_URL=http://127.0.0.1:$port
export ARGUS_NATS_PREFIX=${ARGUS_NATS_PREFIX:-argus}
ARGUS_QUICKSTART_RUN=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "$ARGUS_QUICKSTART_RUN" >"$state/run"
export ARGUS_QUICKSTART_RUN
log "database ${ARGUS_DATABASE_URL##*/}, NATS prefix $ARGUS_NATS_PREFIX, state $state"
log "starting the coordinator on $ARGUS_LISTEN (log: $state/coordinator.log)"
"$argus" coordinator >"$state/coordinator.log" 2>&1 &
echo $! >"$state/coordinator.pid"
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  sleep 0.2
done
curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || { log "coordinator did not start; see $state/coordinator.log"; exit 1; }

worker_id=quickstart-web
# The worker gets a token of role `worker` (heartbeats only), never the admin token. A rerun
# revokes the previous one first, which frees the worker id it registered. It is a shared-pool
# token (granted here by the admin who runs this script): this one-host farm serves every
# team's jobs, each with only its own team's secrets.
if [[ -s $state/worker-token.id ]]; then
  "$argus" token revoke "$(cat "$state/worker-token.id")" 2>/dev/null || true
fi
worker_token=$("$argus" token create --role worker --shared-pool --name quickstart-worker 2>"$state/worker-token.log")
sed -n 's/^token \([0-9a-f-]*\) .*/\1/p' "$state/worker-token.log" >"$state/worker-token.id"
log "starting a web worker with a worker-role token (log: $state/worker.log)"
# Pages may reach exactly the app below on loopback (everything else local is blocked). The
# worker never holds the database's URL (its credentials): the database's address goes on its
# never-list instead.
# (A database reached over a Unix socket has no address to list: nothing is added then.)
db_hostport=$(python3 - "$ARGUS_DATABASE_URL" <<'PY'
import sys, urllib.parse as u
p = u.urlsplit(sys.argv[1])
try:
    port = p.port or 5432
except ValueError:
    port = 5432
h = p.hostname or ""
if h and not h.startswith("/") and "%" not in h:
    print(f"[{h}]:{port}" if ":" in h else f"{h}:{port}")
PY
)
env -u ARGUS_BOOTSTRAP_TOKEN -u ARGUS_DATABASE_URL ARGUS_API_TOKEN="$worker_token" \
  "$argus" worker --platform web --worker-id "$worker_id" --data-dir "$state/worker" \
  --allow-hosts "127.0.0.1:$app_port" --deny-hosts "$db_hostport" >"$state/worker.log" 2>&1 &
echo $! >"$state/worker.pid"

log "serving TodoMVC on 127.0.0.1:$app_port"
python3 -m http.server "$app_port" --bind 127.0.0.1 --directory "$ARGUS_TODOMVC_DIR" >"$state/app.log" 2>&1 &
echo $! >"$state/app.pid"

# Submit only once the worker's slot is registered, online and free: the job then starts at
# once instead of waiting in the queue (or, before it was queued, being refused).
t_wait=$(date +%s)
next_note=5
while :; do
  devices=$(curl -sf -H "Authorization: Bearer $ARGUS_API_TOKEN" \
    "http://127.0.0.1:$port/api/v1/devices?worker_id=$worker_id" || true)
  [[ $devices == *'"free":true'* ]] && break
  waited=$(( $(date +%s) - t_wait ))
  if ! kill -0 "$(cat "$state/worker.pid")" 2>/dev/null; then
    log "the worker exited before its slot was ready; last lines of $state/worker.log:"
    tail -n 15 "$state/worker.log" >&2
    exit 1
  fi
  if (( waited >= slot_wait_s )); then
    log "the worker's slot was not registered and free within $slot_wait_s s; see $state/worker.log"
    exit 1
  fi
  if (( waited >= next_note )); then
    log "waiting for the worker's slot to be registered and free (${waited} s of at most $slot_wait_s s)"
    next_note=$((waited + 5))
  fi
  sleep 0.2
done
log "worker slot ready after $(( $(date +%s) - t_wait )) s"

log "submitting the TodoMVC job"
set +e
"$argus" submit --server "http://127.0.0.1:$port" --platform web \
  --url "http://127.0.0.1:$app_port/examples/vanillajs/index.html" \
  --steps examples/todomvc.steps --name "quickstart: TodoMVC" --wait
rc=$?
set -e
log "done in $(( $(date +%s) - t_start )) s (exit $rc)"
log "dashboard: http://127.0.0.1:$port/  (sign in with the token in $state/token)"
log "stop everything with: deploy/quickstart.sh stop"
exit $rc
