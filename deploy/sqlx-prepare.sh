#!/usr/bin/env bash
# Regenerates .sqlx/: the query data sqlx's query macros (`query!`, `query_as!`, …) compile
# against. Builds are offline by default (.cargo/config.toml sets SQLX_OFFLINE=true), so
# neither CI nor a newcomer needs a database to compile; this script is what needs one.
#
#   bash deploy/sqlx-prepare.sh           rewrite .sqlx/ (run it after changing a query or
#                                         a migration, and commit .sqlx/ with the change)
#   bash deploy/sqlx-prepare.sh --check   regenerate into a temporary folder and fail when
#                                         .sqlx/ differs from it (deploy/test.sh runs this)
#
# How: creates a scratch database (argus_sqlx_prep_<pid>, dropped on exit), applies
# migrations/*.sql in order and then coordinator/sql/claim.sql to it with psql, touches the
# source files holding query macros (cargo cannot see that the macros' input changed) and
# runs `cargo check` of their packages online (SQLX_OFFLINE=false, DATABASE_URL = the scratch
# database), with SQLX_OFFLINE_DIR naming the folder the macros write their data into. Only
# the packages with query macros are rechecked. Needs PostgreSQL with trust auth for the
# postgres role at ARGUS_PG_HOST:ARGUS_PG_PORT (default 127.0.0.1:5432; deploy/dev-up.sh
# sets it up), psql, createdb and dropdb.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
log() { printf '[sqlx-prepare] %s\n' "$*" >&2; }
host=${ARGUS_PG_HOST:-127.0.0.1}
port=${ARGUS_PG_PORT:-5432}
db="argus_sqlx_prep_$$"
pg=(-h "$host" -p "$port" -U postgres)
tmp=$(mktemp -d /tmp/argus-sqlx-XXXXXX)
cleanup() {
  dropdb "${pg[@]}" --if-exists "$db" || true
  rm -rf "$tmp"
}
trap cleanup EXIT
createdb "${pg[@]}" "$db"
for f in migrations/*.sql coordinator/sql/claim.sql; do
  psql -X -q -v ON_ERROR_STOP=1 -1 "${pg[@]}" -d "$db" -f "$f" >/dev/null
done
# The files holding query macros, and the packages (nearest Cargo.toml) they belong to.
mapfile -t files < <(grep -rlE --include='*.rs' 'sqlx::query[a-z_]*!' \
  coordinator src bench worker infra protocol perception tests 2>/dev/null || true)
if [[ ${#files[@]} -eq 0 ]]; then
  log "no query macros"
  exit 0
fi
pkgs=()
for f in "${files[@]}"; do
  d=$(dirname "$f")
  while [[ ! -f $d/Cargo.toml ]]; do d=$(dirname "$d"); done
  name=$(sed -n 's/^name = "\(.*\)"$/\1/p' "$d/Cargo.toml" | head -n1)
  [[ " ${pkgs[*]} " == *" -p $name "* ]] || pkgs+=(-p "$name")
done
out="$tmp/sqlx"
mkdir -p "$out"
touch "${files[@]}"
log "checking ${pkgs[*]} against a scratch database"
SQLX_OFFLINE=false DATABASE_URL="postgres://postgres@$host:$port/$db" SQLX_OFFLINE_DIR="$out" \
  cargo check --locked --all-targets "${pkgs[@]}"
n=$(find "$out" -name 'query-*.json' | wc -l)
if [[ $check == 1 ]]; then
  if ! diff -r "$root/.sqlx" "$out" >&2; then
    log ".sqlx/ is stale: run bash deploy/sqlx-prepare.sh and commit .sqlx/"
    exit 1
  fi
  log ".sqlx/ is current ($n queries)"
else
  mkdir -p "$root/.sqlx"
  rm -f "$root"/.sqlx/query-*.json
  cp "$out"/query-*.json "$root/.sqlx/"
  log "wrote $n queries to .sqlx/"
fi
