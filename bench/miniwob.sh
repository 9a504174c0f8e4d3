#!/usr/bin/env bash
# MiniWoB++ side by side, FOR MEASURING ONLY (never run in CI, nothing here is a default):
# Argus in `llm` mode through the farm vs BrowserGym's GenericAgent, same model endpoint,
# same tasks, same seeds (BrowserGym's seeding: the very same episodes).
#
#   bench/miniwob.sh --tasks click-button,enter-text --seeds 1 \
#       --model-url http://127.0.0.1:18080/v1 --model local [--no-peer] [--no-argus] \
#       [--max-steps 10] [--episode-timeout-s 300] [--peer-max-new-tokens 512] [--out DIR] [--resume]
#   bench/miniwob.sh --retable DIR     re-print the tables and summary of a run's results
#                                      (e.g. bench/results/miniwob-56c441b; no services needed)
#
# How to read the output (last lines):
# - one row per episode, then per agent a table of VERDICT × PAGE REWARD. Argus's rows are its
#   run status (succeeded / unverified / failed / errored / timed_out / other); the peer has no
#   verdict, so its rows say how its episode ended (done / no action / timed_out / errored).
#   Columns are the page's own reward, read by the beacon, never from the agent: success (raw
#   reward > 0), failure (≤ 0), no score (the page never reported; counts as failed).
# - The cell that matters most: succeeded × failure + succeeded × no score = FALSE PASSES (Argus
#   said "passed", the page says not). failed × success = a run Argus failed that the page scored
#   a success (e.g. it kept acting after the task was done).
# - The summary line: miniwob_success / peer_success = page successes ÷ episodes;
#   false_pass_rate = false passes ÷ episodes Argus ended `succeeded` (na when none); then
#   false_passes and every Argus verdict count (succeeded= unverified= failed= errored=
#   timed_out= other=), over the episodes both agents ran when both ran.
#
# Task by task: Argus's suite for the task's seeds, then the peer on the same episodes; each
# row lands in OUT/rows.jsonl as it is known, so `--out DIR --resume` continues a run that was
# cut short (same commit, same endpoint) and the table always compares the same tasks.
#
# What it does:
# - a venv of its own under $ARGUS_BENCH_CACHE (~/.cache/argus-bench/peer): PyPI miniwob 1.1.0
#   (the HTML tasks), browsergym-miniwob 0.14.3, agentlab 0.4.2 + browsergym-experiments 0.14.3
#   with --no-deps (no torch/ray/gradio) plus the few packages GenericAgent imports; Playwright
#   1.44's Chromium slot linked to Debian's /usr/lib/chromium/chromium.
# - services from deploy/dev-up.sh (reused when they answer); builds `argus`; starts its own
#   coordinator (free port, database `argus_miniwob`, NATS prefix `mwbench`, bucket
#   `argus-miniwob`) and one web worker labelled bench=<tag> pointed at --model-url/--model.
# - bench/miniwob/harness.py: serves the patched task pages, reads the utterances, runs the
#   Argus suites (JUnit per task in the out dir) and the peer; prints a row per episode and the
#   summary line last. Everything lands in --out (default /tmp/argus-miniwob-<tag>).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
log() { printf '[miniwob] %s\n' "$*" >&2; }

tasks="" seeds=1 model_url="" model="" no_peer=0 no_argus=0 out="" max_steps=10 ep_timeout=300 peer_tokens=512 resume=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --tasks) tasks=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    --model-url) model_url=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --no-peer) no_peer=1; shift ;;
    --no-argus) no_argus=1; shift ;;
    --max-steps) max_steps=$2; shift 2 ;;
    --episode-timeout-s) ep_timeout=$2; shift 2 ;;
    --peer-max-new-tokens) peer_tokens=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --resume) resume=1; shift ;;
    --retable) exec python3 bench/miniwob/harness.py --retable "$2" ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) log "unknown argument $1"; exit 2 ;;
  esac
done
[[ -n $tasks && -n $model_url && -n $model ]] || { log "need --tasks, --model-url and --model"; exit 2; }
curl -sf -m 5 "${model_url%/}/models" >/dev/null || { log "no model answers at $model_url"; exit 2; }

tag=$(date +%Y%m%d-%H%M%S)
out=${out:-/tmp/argus-miniwob-$tag}
mkdir -p "$out"
cache=${ARGUS_BENCH_CACHE:-$HOME/.cache/argus-bench}
venv=$cache/peer
py=$venv/bin/python

# ---- the venv (pinned; agentlab without its heavy dependencies)
if [[ ! -f $venv/.argus-bench-ok ]]; then
  log "creating $venv (browsergym-miniwob, agentlab --no-deps)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'miniwob==1.1.0' 'browsergym-miniwob==0.14.3'
  "$venv/bin/pip" install -q --no-deps 'agentlab==0.4.2' 'browsergym-experiments==0.14.3'
  "$venv/bin/pip" install -q 'dataclasses-json==0.6.7' 'pandas==3.1.1' 'PyYAML==6.0.4' \
    'anthropic==2.14.0' 'litellm==1.110.2' 'tiktoken==0.14.0' 'openai==3.57.0'
  LITELLM_LOCAL_MODEL_COST_MAP=True "$py" -c 'import agentlab.agents.generic_agent, browsergym.miniwob, miniwob'
  touch "$venv/.argus-bench-ok"
fi
export PLAYWRIGHT_BROWSERS_PATH=$cache/ms-playwright LITELLM_LOCAL_MODEL_COST_MAP=True
pw_chrome=$PLAYWRIGHT_BROWSERS_PATH/chromium-1117/chrome-linux/chrome
if [[ ! -e $pw_chrome ]]; then
  mkdir -p "$(dirname "$pw_chrome")"
  ln -sf /usr/lib/chromium/chromium "$pw_chrome"
  touch "$PLAYWRIGHT_BROWSERS_PATH/chromium-1117/INSTALLATION_COMPLETE"
fi

# ---- services and the farm
env_file=${ARGUS_ENV_FILE:-/tmp/argus-dev/env}
log "services (deploy/dev-up.sh reuses those that answer)"
bash deploy/dev-up.sh >"$out/dev-up.log" 2>&1 || { log "dev-up failed: $out/dev-up.log"; exit 1; }
source "$env_file"
log "building argus"
cargo build -q --bin argus
argus=${CARGO_TARGET_DIR:-$root/target}/debug/argus

db=argus_miniwob
psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$db'" | grep -q 1 ||
  psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE $db" >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# The task pages' port: the worker's navigation policy allows exactly this loopback port.
www_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
token="argus_mwb_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
export ARGUS_DATABASE_URL=postgres://postgres@127.0.0.1:5432/$db ARGUS_NATS_PREFIX=mwbench \
  ARGUS_S3_BUCKET=argus-miniwob ARGUS_LISTEN=127.0.0.1:$port ARGUS_COORDINATOR_URL=http://127.0.0.1:$port \
  ARGUS_BOOTSTRAP_TOKEN=$token ARGUS_API_TOKEN=$token \
  ARGUS_RATE_PER_MIN=0 ARGUS_MAX_STREAMS_PER_TOKEN=0
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
"$argus" coordinator >"$out/coordinator.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 150); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || { log "coordinator did not start: $out/coordinator.log"; exit 1; }
ARGUS_MODEL_URL=$model_url ARGUS_MODEL=$model ARGUS_MODEL_TIMEOUT_S=${ARGUS_MODEL_TIMEOUT_S:-300} \
  "$argus" worker --platform web --worker-id "mwbench-$tag" --labels "bench=$tag" \
  --data-dir "$out/worker" --allow-hosts "127.0.0.1:$www_port" >"$out/worker.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 150); do
  curl -sf -H "Authorization: Bearer $token" "http://127.0.0.1:$port/devices" | grep -q "mwbench-$tag" && break
  sleep 0.2
done
log "farm: coordinator http://127.0.0.1:$port (db $db), worker mwbench-$tag; logs in $out"

flags=()
((no_peer)) && flags+=(--no-peer)
((no_argus)) && flags+=(--no-argus)
((resume)) && flags+=(--resume)
"$py" bench/miniwob/harness.py --tasks "$tasks" --seeds "$seeds" --model-url "$model_url" --model "$model" \
  --max-steps "$max_steps" --episode-timeout-s "$ep_timeout" --peer-max-new-tokens "$peer_tokens" \
  --out "$out" --argus "$argus" --server "http://127.0.0.1:$port" --tag "$tag" --www-port "$www_port" "${flags[@]}" | tee "$out/table.txt"
