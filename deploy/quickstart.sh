#!/usr/bin/env bash
# README command 1: services up, build, start a coordinator and one web worker, serve
# TodoMVC, submit a real job, follow it, print the report URL.
#   deploy/quickstart.sh          run it (leaves coordinator, worker and app running)
#   deploy/quickstart.sh stop     stop what a previous quickstart started
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
state=${ARGUS_QUICKSTART_DIR:-/tmp/argus-quickstart}
port=${ARGUS_QUICKSTART_PORT:-8080}
app_port=${ARGUS_QUICKSTART_APP_PORT:-8090}
log() { printf '[quickstart] %s\n' "$*" >&2; }

stop() {
  for name in worker coordinator app; do
    if [[ -f $state/$name.pid ]]; then
      pid=$(cat "$state/$name.pid")
      if kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        log "stopped $name (pid $pid)"
      fi
      rm -f "$state/$name.pid"
    fi
  done
}
if [[ ${1:-} == stop ]]; then stop; exit 0; fi

mkdir -p "$state"
stop
log "bringing services up (PostgreSQL, NATS JetStream, SeaweedFS S3, Chromium, TodoMVC)"
bash deploy/dev-up.sh >/dev/null
# shellcheck disable=SC1091
source "${ARGUS_ENV_FILE:-/tmp/argus-dev/env}"

log "building argus (first build takes a few minutes on 2 cores)"
cargo build --locked --bin argus
argus="${CARGO_TARGET_DIR:-$root/target}/debug/argus"

# One admin token for this quickstart farm (kept in $state/token; only its hash is stored).
[[ -s $state/token ]] || echo "argus_qs_$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')" >"$state/token"
chmod 600 "$state/token"
ARGUS_BOOTSTRAP_TOKEN=$(cat "$state/token")
export ARGUS_BOOTSTRAP_TOKEN ARGUS_API_TOKEN=$ARGUS_BOOTSTRAP_TOKEN
export ARGUS_LISTEN=127.0.0.1:$port
export ARGUS_COORDINATOR_URL=http://127.0.0.1:$port
export ARGUS_NATS_PREFIX=${ARGUS_NATS_PREFIX:-argus}
log "starting the coordinator on $ARGUS_LISTEN (log: $state/coordinator.log)"
"$argus" coordinator >"$state/coordinator.log" 2>&1 &
echo $! >"$state/coordinator.pid"
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  sleep 0.2
done
curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || { log "coordinator did not start; see $state/coordinator.log"; exit 1; }

log "starting a web worker (log: $state/worker.log)"
# Pages may reach exactly the app below on loopback (everything else local is blocked).
"$argus" worker --platform web --worker-id "quickstart-web" --data-dir "$state/worker" \
  --allow-hosts "127.0.0.1:$app_port" >"$state/worker.log" 2>&1 &
echo $! >"$state/worker.pid"

log "serving TodoMVC on 127.0.0.1:$app_port"
python3 -m http.server "$app_port" --bind 127.0.0.1 --directory "$ARGUS_TODOMVC_DIR" >"$state/app.log" 2>&1 &
echo $! >"$state/app.pid"
sleep 0.5

log "submitting the TodoMVC job"
set +e
"$argus" submit --server "http://127.0.0.1:$port" --platform web \
  --url "http://127.0.0.1:$app_port/examples/vanillajs/index.html" \
  --steps examples/todomvc.steps --name "quickstart: TodoMVC" --wait
rc=$?
set -e
log "dashboard: http://127.0.0.1:$port/  (sign in with the token in $state/token)"
log "stop everything with: deploy/quickstart.sh stop"
exit $rc
