#!/usr/bin/env bash
# citus-cluster.sh: a local Citus cluster on PostgreSQL 15 for actiond's Citus tests
# (docs/citus.md, section 3). Citus is not in the Debian archive, so it is built from a
# Citus source checkout that you supply.
#
# Usage
#   Scripts/citus-cluster.sh build CITUS_SOURCE_DIR
#       Installs the missing Debian build packages (as root; otherwise names them), then
#       configure, make and make install against PostgreSQL 15's pg_config. Does nothing
#       when a citus.so of the checkout's version is already installed.
#   Scripts/citus-cluster.sh start [DIR]
#       Creates (first time) and starts three nodes under DIR: coordinator on port 9700,
#       workers on 9701 and 9702, listening on 127.0.0.1 only with trust auth, unix
#       sockets in DIR. Each node gets database actiond with the citus extension; the
#       coordinator registers itself and both workers. Already running: says so, exits 0.
#   Scripts/citus-cluster.sh stop [DIR]
#       Stops the three nodes.
#   Scripts/citus-cluster.sh url
#       Prints the coordinator's URL, for ACTIOND_CITUS_URL.
#   Scripts/citus-cluster.sh test
#       Starts the cluster if needed, then runs `swift test --filter Citus` from the
#       repository root with ACTIOND_CITUS_URL set.
#   Scripts/citus-cluster.sh rates [ROUNDS]
#       The submit and drain rates on the cluster against plain PostgreSQL on the
#       coordinator's server (database actiond_plain, no extension), alternated, ROUNDS
#       times each (default 2): 64,000 events over 3,200 users (timers sent and snoozed,
#       invitations sent and accepted), `actiond submit --no-seal`, then two `actiond work
#       --drain --concurrency 2` at once; each run starts from an empty schema and must
#       apply every event. Uses the release build (swift build -c release first). Drops the
#       schema actiond of both databases.
#
# Environment
#   ACTIOND_CITUS_DIR    DIR when none is given (default: .actiond/citus under the
#                        current directory; for `test`, under the repository root)
#   ACTIOND_CITUS_PORT   the coordinator's port (default 9700); workers take the next two
#   PG_CONFIG            PostgreSQL 15's pg_config (default: Debian's)
#
# As root, PostgreSQL's programs run as the `postgres` user, and DIR must be reachable by
# it; when it is not (or its socket path would be too long), a directory under /tmp is
# used instead and printed. The nodes' logs are DIR/<node>.log.
set -euo pipefail

PG_BIN=/usr/lib/postgresql/15/bin
PG_CONFIG=${PG_CONFIG:-$PG_BIN/pg_config}
PORT=${ACTIOND_CITUS_PORT:-9700}
NODES=(coordinator worker1 worker2)
DB=actiond
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

say() { printf 'citus-cluster: %s\n' "$*"; }
die() { printf 'citus-cluster: %s\n' "$*" >&2; exit 1; }

is_root() { [[ $(id -u) -eq 0 ]]; }

node_port() { # node index -> port
    echo $((PORT + $1))
}

url() {
    echo "postgresql://postgres@127.0.0.1:${PORT}/${DB}?sslmode=disable"
}

# Runs a PostgreSQL server program (initdb, pg_ctl) as a user it accepts.
as_pg() {
    if is_root; then
        (cd / && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

# psql over TCP as the postgres superuser, to one node.
psql_node() { # port database args...
    local port=$1 db=$2
    shift 2
    PGOPTIONS="-c client_min_messages=warning" "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d "$db" "$@"
}

# ---------------------------------------------------------------------------------- build

deb_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

cmd_build() {
    local src=${1:-}
    [[ -n $src ]] || die "usage: $0 build CITUS_SOURCE_DIR"
    [[ -f $src/configure.ac ]] || die "$src is not a Citus source checkout (no configure.ac)"
    src=$(cd "$src" && pwd)
    local version
    version=$(sed -n 's/^AC_INIT(\[Citus\], \[\([^]]*\)\].*/\1/p' "$src/configure.ac")
    [[ -n $version ]] || die "cannot read Citus' version from $src/configure.ac"
    [[ -x $PG_CONFIG ]] || die "no pg_config at $PG_CONFIG (install postgresql-15, or set PG_CONFIG)"

    local pkglibdir
    pkglibdir=$("$PG_CONFIG" --pkglibdir)
    if [[ -f $pkglibdir/citus.so ]] && grep -aq "Citus $version on " "$pkglibdir/citus.so"; then
        say "Citus $version is already installed in $pkglibdir; nothing to build"
        return 0
    fi

    # Build dependencies. The server headers are pinned to the installed server's version,
    # so that installing them never upgrades (and restarts) PostgreSQL.
    local pg_pkg=postgresql-server-dev-15 server_version
    server_version=$(dpkg-query -W -f='${Version}' postgresql-15 2>/dev/null || true)
    if [[ -n $server_version ]] && apt-cache madison postgresql-server-dev-15 2>/dev/null \
        | awk -F'|' '{gsub(/ /, "", $2); print $2}' | grep -qxF "$server_version"; then
        pg_pkg="postgresql-server-dev-15=$server_version"
    elif [[ -n $server_version ]] && ! deb_installed postgresql-server-dev-15 && [[ ${ALLOW_SERVER_UPGRADE:-} != 1 ]]; then
        # Only a newer postgresql-server-dev-15 is on offer: installing it upgrades the server
        # package too, and every cluster still running the old binaries then fails to load
        # plpgsql ("undefined symbol"). Seen once; refused since.
        die "postgresql-server-dev-15=$server_version (the installed server's version) is not available from apt; the newer one would upgrade PostgreSQL under running clusters. Upgrade postgresql-15 first and restart them, or rerun with ALLOW_SERVER_UPGRADE=1"
    fi
    local missing=() pkg
    for pkg in postgresql-server-dev-15 libkrb5-dev libssl-dev liblz4-dev libzstd-dev make gcc; do
        deb_installed "$pkg" || missing+=("$pkg")
    done
    if ! grep -qs "^PACKAGE_VERSION='$version'" "$src/configure"; then
        deb_installed autoconf || missing+=(autoconf)
    fi
    if ((${#missing[@]})); then
        local to_install=("${missing[@]/#postgresql-server-dev-15/$pg_pkg}")
        if is_root; then
            say "installing ${to_install[*]}"
            export DEBIAN_FRONTEND=noninteractive
            apt-get install -y -q --no-install-recommends "${to_install[@]}" \
                || { apt-get update -q && apt-get install -y -q --no-install-recommends "${to_install[@]}"; }
        else
            die "missing build packages; install them as root: apt-get install --no-install-recommends ${to_install[*]}"
        fi
    fi

    say "building Citus $version from $src against $("$PG_CONFIG" --version)"
    cd "$src"
    if [[ -x configure ]] && grep -q "^PACKAGE_VERSION='$version'" configure; then
        # A fresh checkout's timestamps can make configure look older than configure.ac,
        # and make would then regenerate it (with autoconf); the shipped one is current.
        touch configure
    else
        ./autogen.sh
    fi
    # PostgreSQL 15.20 exports have_createdb_privilege(), which Citus 13.2.2 defines itself
    # as a static inline for the versions that did not: its own copy is renamed (its callers
    # follow the #define), so both compile. Only in the build folder; nothing else changes.
    local compat=src/include/pg_version_compat.h
    if grep -qs "extern bool have_createdb_privilege" "$("$PG_CONFIG" --includedir-server)/commands/dbcommands.h" \
        && grep -q "^have_createdb_privilege(void)" "$compat"; then
        say "renaming Citus' own have_createdb_privilege (this server's headers export one)"
        sed -i 's/^have_createdb_privilege(void)/citus_have_createdb_privilege(void)/' "$compat"
        sed -i '0,/^static inline bool$/{/^static inline bool$/i #define have_createdb_privilege citus_have_createdb_privilege
}' "$compat"
    fi
    # Without libcurl: no anonymous usage statistics are sent from a test cluster.
    ./configure PG_CONFIG="$PG_CONFIG" --without-libcurl
    make -j"$(nproc)"
    if is_root; then
        make install
    else
        say "make install needs to write to $pkglibdir; running it with sudo"
        sudo make install
    fi
    grep -aq "Citus $version on " "$pkglibdir/citus.so" || die "citus.so in $pkglibdir is not version $version after install"
    say "installed Citus $version into $pkglibdir"
}

# ------------------------------------------------------------------------- data directory

# Sets DIR to the absolute data directory to use (creating it when $2 is "create").
resolve_dir() { # requested-dir create|find
    local requested=$1 mode=$2 fallback
    fallback=/tmp/actiond-citus-$(id -u)
    if [[ $mode == create ]]; then mkdir -p "$requested" 2>/dev/null || true; fi
    DIR=$requested
    if [[ -d $(dirname "$requested") ]]; then
        DIR=$(cd "$(dirname "$requested")" && pwd)/$(basename "$requested")
    fi

    local ok=1
    # A unix socket's path has at most 107 bytes.
    ((${#DIR} + ${#PORT} + 13 <= 107)) || ok=0
    if ((ok)) && [[ $mode == create ]]; then
        mkdir -p "$DIR" || ok=0
        if ((ok)) && is_root; then
            chown postgres:postgres "$DIR" && chmod 700 "$DIR" || ok=0
            ((ok)) && runuser -u postgres -- test -w "$DIR" -a -x "$DIR" || ok=0
        fi
    elif ((ok)) && [[ $mode == find ]] && [[ ! -d $DIR/${NODES[0]} ]] && [[ -d $fallback/${NODES[0]} ]]; then
        ok=0
    fi
    if ((!ok)); then
        [[ $mode == create ]] && say "$DIR is not usable by the PostgreSQL server user; using $fallback"
        DIR=$fallback
        if [[ $mode == create ]]; then
            mkdir -p "$DIR"
            if is_root; then chown postgres:postgres "$DIR"; fi
            chmod 700 "$DIR"
        fi
    fi
}

default_dir() {
    echo "${ACTIOND_CITUS_DIR:-.actiond/citus}"
}

node_running() { # node
    [[ -f $DIR/$1/PG_VERSION ]] && as_pg "$PG_BIN/pg_ctl" -D "$DIR/$1" status >/dev/null 2>&1
}

# ---------------------------------------------------------------------------------- start

init_node() { # index
    local i=$1 node=${NODES[$1]} port
    port=$(node_port "$i")
    if [[ -f $DIR/$node/PG_VERSION ]]; then
        local had
        had=$(as_pg sed -n 's/^port = \([0-9]*\).*/\1/p' "$DIR/$node/postgresql.conf" | tail -n 1)
        [[ $had == "$port" ]] || die "$DIR/$node was created for port $had, not $port; remove $DIR or set ACTIOND_CITUS_PORT"
        return 0
    fi
    say "initdb $node (port $port)"
    as_pg "$PG_BIN/initdb" -D "$DIR/$node" -U postgres --auth=trust --encoding=UTF8 --locale=C >"$DIR/$node.initdb.log" 2>&1 \
        || { cat "$DIR/$node.initdb.log" >&2; die "initdb of $node failed"; }
    as_pg tee -a "$DIR/$node/postgresql.conf" >/dev/null <<EOF

# actiond's local Citus cluster (Scripts/citus-cluster.sh)
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
shared_preload_libraries = 'citus'
max_prepared_transactions = 100
citus.enable_statistics_collection = off
EOF
    as_pg tee "$DIR/$node/pg_hba.conf" >/dev/null <<EOF
# TYPE  DATABASE  USER  ADDRESS        METHOD
local   all       all                  trust
host    all       all   127.0.0.1/32   trust
EOF
}

cmd_start() {
    resolve_dir "${1:-$(default_dir)}" create
    local pkglibdir
    pkglibdir=$("$PG_CONFIG" --pkglibdir)
    [[ -f $pkglibdir/citus.so ]] || die "Citus is not installed in $pkglibdir; run: $0 build CITUS_SOURCE_DIR"
    if is_root && ! id postgres >/dev/null 2>&1; then
        die "running as root needs the postgres user (PostgreSQL refuses to run as root)"
    fi

    local all=1 i node
    for node in "${NODES[@]}"; do node_running "$node" || all=0; done
    if ((all)); then
        say "already running in $DIR ($(url))"
        return 0
    fi

    for i in "${!NODES[@]}"; do
        node=${NODES[$i]}
        init_node "$i"
        if node_running "$node"; then
            say "$node already running"
            continue
        fi
        if "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$(node_port "$i")"; then
            die "port $(node_port "$i") is taken by another server; stop it or set ACTIOND_CITUS_PORT"
        fi
        say "starting $node"
        as_pg "$PG_BIN/pg_ctl" -D "$DIR/$node" -l "$DIR/$node.log" -w -t 60 start >/dev/null \
            || { tail -n 20 "$DIR/$node.log" >&2; die "$node did not start (log: $DIR/$node.log)"; }
    done

    for i in "${!NODES[@]}"; do
        local port
        port=$(node_port "$i")
        if [[ -z $(psql_node "$port" postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'") ]]; then
            psql_node "$port" postgres -c "CREATE DATABASE $DB"
        fi
        psql_node "$port" "$DB" -c "CREATE EXTENSION IF NOT EXISTS citus"
    done

    local workers=""
    for i in 1 2; do workers+="${workers:+,}$(node_port "$i")"; done
    psql_node "$PORT" "$DB" >/dev/null <<EOF
SELECT citus_set_coordinator_host('127.0.0.1', $PORT);
SELECT citus_add_node('127.0.0.1', p)
  FROM unnest(ARRAY[$workers]) AS p
 WHERE NOT EXISTS (SELECT 1 FROM pg_dist_node WHERE nodename = '127.0.0.1' AND nodeport = p);
EOF
    local active
    active=$(psql_node "$PORT" "$DB" -tAc "SELECT count(*) FROM citus_get_active_worker_nodes()")
    [[ $active == 2 ]] || die "the coordinator sees $active active workers, not 2"
    say "running in $DIR: coordinator $PORT, workers $workers"
    say "ACTIOND_CITUS_URL=$(url)"
}

# ----------------------------------------------------------------------------------- stop

cmd_stop() {
    resolve_dir "${1:-$(default_dir)}" find
    local node any=0
    for node in "${NODES[@]}"; do
        [[ -f $DIR/$node/PG_VERSION ]] || continue
        any=1
        if node_running "$node"; then
            say "stopping $node"
            as_pg "$PG_BIN/pg_ctl" -D "$DIR/$node" -m fast -w -t 60 stop >/dev/null
        else
            say "$node is not running"
        fi
    done
    ((any)) || say "no cluster in $DIR"
}

# ----------------------------------------------------------------------------------- test

cmd_test() {
    cd "$REPO_ROOT"
    if [[ $(psql_node "$PORT" "$DB" -tAc "SELECT count(*) FROM citus_get_active_worker_nodes()" 2>/dev/null) == 2 ]]; then
        say "using the cluster running at $(url)"
    else
        cmd_start
    fi
    ACTIOND_CITUS_URL=$(url) swift test --filter Citus
}

# ---------------------------------------------------------------------------------- rates

# One JSON line per event: per user, five timers (sent, snoozed) and five invitations
# (sent, accepted), each on a meeting of its own.
rates_input() {
    awk -v users=3200 'BEGIN {
        t = "2026-11-25T10:00:00Z"; s = "2026-11-25T10:01:00Z"
        for (u = 0; u < users; u++) for (k = 0; k < 5; k++) {
            id = "r" u "-" k
            printf "{\"id\":\"%s-ts\",\"type\":\"notification.sent\",\"user_id\":\"rate-u%d\",\"occurred_at\":\"%s\",\"data\":{\"request_id\":\"%s-t\",\"payload\":{\"aps\":{\"category\":\"TIMER_EXPIRED\"},\"TIMER_ID\":\"%s-timer\"}}}\n", id, u, t, id, id
            printf "{\"id\":\"%s-tr\",\"type\":\"notification.response\",\"user_id\":\"rate-u%d\",\"occurred_at\":\"%s\",\"data\":{\"request_id\":\"%s-t\",\"action\":\"SNOOZE_ACTION\",\"locked\":false}}\n", id, u, s, id
            printf "{\"id\":\"%s-ms\",\"type\":\"notification.sent\",\"user_id\":\"rate-u%d\",\"occurred_at\":\"%s\",\"data\":{\"request_id\":\"%s-m\",\"payload\":{\"aps\":{\"category\":\"MEETING_INVITATION\"},\"MEETING_ID\":\"%s-meeting\"}}}\n", id, u, t, id, id
            printf "{\"id\":\"%s-mr\",\"type\":\"notification.response\",\"user_id\":\"rate-u%d\",\"occurred_at\":\"%s\",\"data\":{\"request_id\":\"%s-m\",\"action\":\"ACCEPT_ACTION\",\"locked\":false}}\n", id, u, s, id
        }
    }'
}

now_ms() { date +%s%3N; }

# rates_run NAME URL MIGRATE_FLAGS...: one submit and one drain; prints NAME submit/s drain/s.
rates_run() {
    local name=$1 db=$2; shift 2
    local bin=$REPO_ROOT/.build/release/actiond
    "$PG_BIN/psql" -X -q "$db" -c "DROP SCHEMA IF EXISTS actiond CASCADE" >/dev/null 2>&1
    "$bin" migrate "$@" --database-url "$db" >/dev/null
    local start end submitted drained applied
    start=$(now_ms)
    "$bin" submit "$INPUT" --no-seal --database-url "$db" >/dev/null
    end=$(now_ms); submitted=$((end - start))
    start=$(now_ms)
    "$bin" work --drain --concurrency 2 --database-url "$db" >/dev/null 2>&1 &
    local first=$!
    "$bin" work --drain --concurrency 2 --database-url "$db" >/dev/null 2>&1
    wait "$first"
    end=$(now_ms); drained=$((end - start))
    applied=$("$PG_BIN/psql" -X -tAc "SELECT count(*) FROM actiond.outcomes WHERE outcome = 'applied'" "$db")
    [[ $applied == "$EVENTS" ]] || die "$name: $applied of $EVENTS events applied"
    printf '%-6s submit %6d events/s   drain %6d events/s\n' "$name" $((EVENTS * 1000 / submitted)) $((EVENTS * 1000 / drained))
}

cmd_rates() {
    local rounds=${1:-2}
    cd "$REPO_ROOT"
    [[ -x .build/release/actiond ]] || die "no release build: run swift build -c release --product actiond first"
    [[ $(psql_node "$PORT" "$DB" -tAc "SELECT count(*) FROM citus_get_active_worker_nodes()" 2>/dev/null) == 2 ]] \
        || die "no cluster at $(url): run $0 start first"
    psql_node "$PORT" postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'actiond_plain'" | grep -q 1 \
        || psql_node "$PORT" postgres -qc "CREATE DATABASE actiond_plain" >/dev/null
    INPUT=$(mktemp); EVENTS=64000
    rates_input > "$INPUT"
    export ACTIOND_KEY_FILE=${ACTIOND_KEY_FILE:-$(mktemp -u)}
    [[ -f $ACTIOND_KEY_FILE ]] || .build/release/actiond keys new "$ACTIOND_KEY_FILE" >/dev/null
    local plain="postgresql://postgres@127.0.0.1:${PORT}/actiond_plain?sslmode=disable"
    for ((r = 1; r <= rounds; r++)); do
        rates_run plain "$plain"
        rates_run citus "$(url)" --citus
    done
    rm -f "$INPUT"
}

# ----------------------------------------------------------------------------------- main

case ${1:-} in
    build) shift; cmd_build "$@" ;;
    start) shift; cmd_start "$@" ;;
    stop) shift; cmd_stop "$@" ;;
    url) url ;;
    test) shift; cmd_test "$@" ;;
    rates) shift; cmd_rates "$@" ;;
    *)
        sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
        exit 2
        ;;
esac
