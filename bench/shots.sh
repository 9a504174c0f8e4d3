#!/usr/bin/env bash
# Issue 25, item 2 ("screenshots off the critical path"): the quickstart's TodoMVC job
# (examples/todomvc.steps on TodoMVC vanillajs, one web worker, defaults: 1280×800, DPR 1)
# run N times, one after another, on a fresh farm (own database, NATS prefix, ports,
# worker profile), against the services deploy/dev-up.sh started. Prints, over all runs:
# the run time (started_at → finished_at of GET /api/v1/runs/{id}) median and range, the
# per-action `timings.screenshot_ms` and `timings.upload_ms` medians and p90 (perceive and
# act medians beside them), the action count and the bytes the report's images weigh (each
# key fetched through /artifacts, so every image the report links must serve), and the load
# average before and after. Compare binaries on the same machine state: run them one after
# the other (before/after pairs), and say the load.
#   bench/shots.sh [ARGUS_BIN]     default: $CARGO_TARGET_DIR or ./target, debug/argus
# Knobs: ARGUS_BENCH_RUNS (5), ARGUS_ENV_FILE (/tmp/argus-dev/env), ARGUS_BENCH_KEEP=1 keeps
# the state folder (logs) and the database.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
argus=${1:-${CARGO_TARGET_DIR:-$root/target}/debug/argus}
runs=${ARGUS_BENCH_RUNS:-5}
log() { printf '[shots-bench] %s\n' "$*" >&2; }
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
[[ -x $argus ]] || { log "no argus binary at $argus"; exit 2; }
# shellcheck disable=SC1090
source "${ARGUS_ENV_FILE:-/tmp/argus-dev/env}"
id="shots$(date +%s)$$"
dir=$(mktemp -d "/tmp/argus-shots-XXXXXX")
chmod 755 "$dir" # Chromium runs as the browser user and must reach the worker's profile.
db="argus_$id"
admin_url="${ARGUS_DATABASE_URL%/*}/postgres"
export ARGUS_DATABASE_URL="${ARGUS_DATABASE_URL%/*}/$db"
export ARGUS_NATS_PREFIX=$id
port=$(free_port)
app_port=$(free_port)
pids=()
cleanup() {
  local rc=$?
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 150); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
  done
  if [[ ${ARGUS_BENCH_KEEP:-0} != 1 ]]; then
    psql "$admin_url" -qc "drop database if exists \"$db\" with (force)" >/dev/null || true
    rm -rf "$dir"
  else
    log "kept $dir and database $db"
  fi
  exit "$rc"
}
trap cleanup EXIT
psql "$admin_url" -qc "create database \"$db\"" >/dev/null

echo "argus_bench_$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')" >"$dir/token"
ARGUS_BOOTSTRAP_TOKEN=$(cat "$dir/token")
export ARGUS_BOOTSTRAP_TOKEN ARGUS_API_TOKEN=$ARGUS_BOOTSTRAP_TOKEN
export ARGUS_LISTEN=127.0.0.1:$port ARGUS_COORDINATOR_URL=http://127.0.0.1:$port
"$argus" coordinator >"$dir/coordinator.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 150); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  sleep 0.2
done
worker_token=$("$argus" token create --role worker --shared-pool --name shots-bench 2>/dev/null)
env -u ARGUS_BOOTSTRAP_TOKEN -u ARGUS_DATABASE_URL ARGUS_API_TOKEN="$worker_token" \
  "$argus" worker --platform web --worker-id "$id" --data-dir "$dir/worker" \
  --allow-hosts "127.0.0.1:$app_port" >"$dir/worker.log" 2>&1 &
pids+=($!)
python3 -m http.server "$app_port" --bind 127.0.0.1 --directory "$ARGUS_TODOMVC_DIR" \
  >"$dir/app.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 600); do
  curl -sf -H "Authorization: Bearer $ARGUS_API_TOKEN" \
    "http://127.0.0.1:$port/api/v1/devices?worker_id=$id" | grep -q '"free":true' && break
  sleep 0.2
done

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "binary $argus, $runs runs, load average $load_before"
: >"$dir/runs"
for i in $(seq 1 "$runs"); do
  out=$("$argus" submit --server "http://127.0.0.1:$port" --platform web \
    --url "http://127.0.0.1:$app_port/examples/vanillajs/index.html" \
    --steps examples/todomvc.steps --name "shots-bench $i" --wait 2>&1) || {
    printf '%s\n' "$out" >&2
    log "run $i did not succeed"
    exit 1
  }
  run=$(grep -o 'runs/[0-9a-f-]\{36\}' <<<"$out" | head -n 1 | cut -d/ -f2)
  echo "$run" >>"$dir/runs"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$port" "$ARGUS_API_TOKEN" "$dir/runs" "$load_before" "$load_after" <<'PY'
import json, statistics, sys, urllib.request
from datetime import datetime
port, token, runs_file, load_before, load_after = sys.argv[1:]
base = f"http://127.0.0.1:{port}"
def get(path):
    req = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req) as r:
        return r.read(), r.headers.get("content-type")
def ts(s):
    return datetime.fromisoformat(s.replace("Z", "+00:00"))
def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]
totals, shot, up, perceive, act, n_actions, bytes_, keys_all, types = [], [], [], [], [], [], [], [], set()
for run in open(runs_file).read().split():
    d = json.loads(get(f"/api/v1/runs/{run}")[0])
    assert d["status"] == "succeeded", (run, d["status"], d.get("error"))
    totals.append((ts(d["finished_at"]) - ts(d["started_at"])).total_seconds() * 1000)
    keys, n = set(), 0
    for s in d["steps"]:
        for a in s["actions"]:
            n += 1
            t = a["timings"]
            shot.append(t["screenshot_ms"])
            up.append(t["upload_ms"])
            perceive.append(t["perceive_ms"])
            act.append(t["act_ms"])
            for k in ("before_key", "after_key"):
                assert a.get(k), (run, s["index"], a["action"], k, "missing")
                keys.add(a[k])
                keys_all.append(a[k])
    b = 0
    for k in sorted(keys):
        body, ct = get("/artifacts/" + k)
        types.add(ct)
        b += len(body)
    n_actions.append(n)
    bytes_.append(b)
print(f"runs: {len(totals)}, actions per run: {sorted(set(n_actions))}, load average before {load_before}, after {load_after}")
print(f"run time (started → finished): median {statistics.median(totals):.0f} ms, range {min(totals):.0f}–{max(totals):.0f} ms")
print(f"per action: screenshot_ms median {statistics.median(shot):.1f}, p90 {pct(shot, 0.9):.1f}; upload_ms median {statistics.median(up):.1f}, p90 {pct(up, 0.9):.1f}")
print(f"per action, for context: perceive_ms median {statistics.median(perceive):.1f} (max {max(perceive):.1f}), act_ms median {statistics.median(act):.1f}")
print(f"per run: screenshot+upload on the action path {statistics.median([sum(x) for x in zip(shot, up)]) * statistics.median(n_actions):.0f} ms (median per action × actions)")
print(f"stored per run: median {statistics.median(bytes_) / 1024:.0f} KiB in {len(set(keys_all)) // len(totals)} objects for {2 * statistics.median(n_actions):.0f} screenshot keys; served as {sorted(types)}")
PY
