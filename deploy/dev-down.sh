#!/usr/bin/env bash
# Stops what deploy/dev-up.sh started itself (recorded in $ARGUS_RUN_DIR):
# SeaweedFS (seaweed.pid), NATS (nats.pid) and PostgreSQL (pg.started).
# Services that were already running when dev-up ran have no record there and
# are left alone. Data, installed packages, the weed binary and todomvc stay.
# Idempotent: running it again (or with nothing started) is a no-op.
set -euo pipefail

ARGUS_HOME=/var/lib/argus
ARGUS_RUN_DIR=${ARGUS_RUN_DIR:-$ARGUS_HOME/run}
DEV_TMP=/tmp/argus-dev

log() { printf '[dev-down] %s\n' "$*" >&2; }

mkdir -p "$DEV_TMP"
exec 9>"$DEV_TMP/dev-up.lock"   # do not race a running dev-up
flock 9

# stop_pid <name> <pidfile> <expected executable>
stop_pid() {
    local name=$1 pidfile=$2 exe=$3 pid i
    if [[ ! -e $pidfile ]]; then
        log "$name: not started by dev-up; leaving it alone"
        return 0
    fi
    pid=$(<"$pidfile")
    if ! [[ $pid =~ ^[0-9]+$ ]] || ! kill -0 "$pid" 2>/dev/null; then
        log "$name: pid ${pid:-?} from $pidfile is gone; removing stale pid file"
        rm -f "$pidfile"; return 0
    fi
    if [[ $(readlink -f "/proc/$pid/exe" 2>/dev/null) != "$(readlink -f "$exe")" ]]; then
        log "$name: pid $pid is no longer $exe (pid reused); removing stale pid file"
        rm -f "$pidfile"; return 0
    fi
    log "$name: stopping pid $pid"
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 300; i++)); do          # up to 30 s
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        log "$name: pid $pid ignored SIGTERM for 30 s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        sleep 0.5
    fi
    rm -f "$pidfile"
    log "$name: stopped"
}

# SeaweedFS: the executable is whatever dev-up started; take it from the process.
if [[ -s $ARGUS_RUN_DIR/seaweed.pid ]]; then
    pid=$(<"$ARGUS_RUN_DIR/seaweed.pid")
    exe=$(readlink -f "/proc/$pid/exe" 2>/dev/null || true)
    [[ $(basename "${exe:-none}") == weed ]] || exe=/nonexistent/weed
    stop_pid seaweedfs "$ARGUS_RUN_DIR/seaweed.pid" "$exe"
else
    stop_pid seaweedfs "$ARGUS_RUN_DIR/seaweed.pid" /nonexistent/weed
fi

stop_pid nats "$ARGUS_RUN_DIR/nats.pid" /usr/sbin/nats-server

if [[ -s $ARGUS_RUN_DIR/pg.started ]]; then
    read -r kind a b <"$ARGUS_RUN_DIR/pg.started"
    case $kind in
        debian)
            log "postgresql: stopping Debian cluster $a $b"
            pg_ctlcluster --skip-systemctl-redirect "$a" "$b" stop -m fast 2>&1 | sed 's/^/[dev-down]   /' >&2 || true ;;
        private)
            if [[ -s $b/postmaster.pid ]]; then
                log "postgresql: stopping private cluster $b"
                runuser -u postgres -- "$a/pg_ctl" -D "$b" -m fast -w stop 2>&1 | sed 's/^/[dev-down]   /' >&2 || true
            else
                log "postgresql: private cluster $b is not running"
            fi ;;
        *) log "postgresql: unknown record in $ARGUS_RUN_DIR/pg.started: $kind" ;;
    esac
    rm -f "$ARGUS_RUN_DIR/pg.started"
else
    log "postgresql: not started by dev-up; leaving it alone"
fi
log "done"
