#!/usr/bin/env bash
# The test command (README): brings the services up (deploy/dev-up.sh), then runs the
# format check, clippy and every test of the workspace against the real services.
# ARGUS_REQUIRE_ALL (default 1 here): a test whose component (Xvfb, xterm, adb, the OCR
# models, a desktop slot user, …) is missing fails instead of skipping — dev-up installs them
# all; ARGUS_REQUIRE_ALL=0 lets a machine that skipped some (ARGUS_SKIP_*) run the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
export ARGUS_REQUIRE_ALL="${ARGUS_REQUIRE_ALL:-1}"
env_file="${ARGUS_ENV_FILE:-/tmp/argus-dev/env}"
bash deploy/dev-up.sh >/dev/null
# OCR runtime and PP-OCR models from PyPI (pinned, sha256-checked) for the perception tests.
ARGUS_NO_RAPIDOCR_VENV=1 bash deploy/models.sh >/dev/null
# shellcheck disable=SC1090
source "$env_file"
echo "[test] cargo fmt --check" >&2
cargo fmt --all -- --check
echo "[test] cargo clippy" >&2
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "[test] .sqlx/ is current (the query macros' offline data, against a scratch database)" >&2
bash deploy/sqlx-prepare.sh --check
echo "[test] cargo build --bin argus (the fault tests run it as real processes)" >&2
cargo build --locked --bin argus
echo "[test] quickstart on a fresh database, then stop it (nothing it started may be left)" >&2
bash deploy/quickstart-ci.sh
echo "[test] dogfood: Argus runs its own dashboard suite (tests/dogfood/)" >&2
dogfood_log="$(mktemp)"
if ! cargo test -p argus-tests --test e2e --locked -- dogfood:: --nocapture >"$dogfood_log" 2>&1; then
  tail -n 100 "$dogfood_log" >&2
  exit 1
fi
grep -E '^dogfood suite:' "$dogfood_log" >&2
echo "[test] cargo test" >&2
cargo test --workspace --locked -- --test-threads "${ARGUS_TEST_THREADS:-2}" --skip dogfood::
echo "[test] OCR (perception --features ocr)" >&2
cargo test -p argus-perception --features ocr --locked
