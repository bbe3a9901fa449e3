#!/usr/bin/env bash
# compare-pgq.sh: PgQ beside actiond on the same PostgreSQL server, back to back.
#
# What it measures: each system the same two ways, fed by the same producers (pgbench, C,
# each call prepared once per session: P clients, default 8, each transaction one statement
# of B calls, default 10, as fast as the server takes them; the same ~300-byte
# notification.sent envelope, one of 10,000 users), so that each ratio divides like by like:
#   1. live: producers and consumer at once, the clock from the producers' start until every
#      event is consumed. PgQ (Skytools' queue, Debian's postgresql-15-pgq3 and pgqd; a fresh
#      database, one queue, one registered consumer following it on one connection:
#      pgq.next_batch, pgq.get_batch_events with each event's JSON parsed, pgq.finish_batch,
#      commit; pgqd ticking every 0.1 s, the queue's ticker_max_lag the same, so the last
#      events wait one tick, not PgQ's default 3 s): Scripts/pgq/pgq_phase.py, N events
#      (default 1,000,000). actiond: pgbench calling actiond.submit while one `actiond work`
#      (default settings) decides: Scripts/pgq/actiond_live.py, N2 events (default 200,000),
#      each checked to have exactly one outcome.
#   2. drain: a backlog inserted first, then the clock from the consumer's start until it is
#      all consumed. PgQ: the same N events into a second queue, then its consumer. actiond:
#      `actiond bench --events N2 --json FILE`'s end_to_end phase (a backlog of N2 mixed
#      events drained by `actiond work --drain`: handlers, outcomes, projections, sealing;
#      the run's bulk_submit rate and raw ceiling are printed below the table).
#   3. One event per transaction, the producer's call: P pgbench clients, each transaction
#      one statement, prepared (-M prepared, as drivers that cache statements send it) and as
#      a simple query (-M simple: parsed and planned every call), the two modes alternating
#      within each round, the same notification.response envelope (a new uuid id, one of
#      10,000 users): `select pgq.insert_event(queue, type, envelope)` into a fresh PgQ
#      queue, then `select actiond.submit(envelope)` into a freshly migrated actiond
#      database; alternating, --single-rounds times each (default 2), --single-seconds each
#      (default 15). The row is the mean transactions/s, and actiond's as a share of PgQ's.
#      No actiond worker runs (a producer then does not notify: wake_workers).
#
# How to read the table
#   events/s           throughput of the row's pipeline.
#   CPU µs per event   user + system CPU (from /proc) divided by the events:
#     PostgreSQL       the server's processes, counted alike for both rows: the postmaster
#                      and all its children (exited backends included, through the
#                      postmaster's cutime/cstime), autovacuum and checkpointer too; other
#                      clusters on the machine count for nothing.
#     client side      PgQ: producers (live only) + consumer + pgqd (the consumer from its
#                      start signal, not its interpreter start-up). actiond: the worker
#                      process, and the producers in the live row.
#     total            PostgreSQL + client side.
#   WAL B/event        WAL the server wrote per event over the phase.
#   Each actiond row names the PgQ row it divides by: live by live, drain by drain. The
#   two systems still do not do the same work: PgQ's consumer only parses each event,
#   actiond decides it (an outcome, domain events, state, sealing). Read PgQ's rows as what
#   moving an event through PostgreSQL costs at least, and actiond's as what deciding it
#   adds. A drain's producers ran before its clock and count for nothing in its row.
#   Figures of a debug build of actiond are not worth keeping: build the release one with
#   `swift build -c release --product actiond`. Run on an otherwise idle machine: PgQ's
#   producers and consumer and actiond's worker share its cores with the server.
#   Commits stay durable (fsync and synchronous_commit are recorded, never changed).
#
# The server: actiond's embedded cluster (--data-dir, default .actiond/postgres, started
# when not running and stopped again afterwards), or ACTIOND_DATABASE_URL / DATABASE_URL
# when set (its role must be able to create databases and the pgq extension; server CPU is
# then counted only when the server runs on this machine).
#
# Installs when missing: postgresql-15-pgq3 and pgqd (apt; sudo when not root), psycopg
# (pip). Run `Scripts/compare-pgq.sh --help` for the options.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)

usage() {
    cat <<EOF
Usage: Scripts/compare-pgq.sh [options] [-- extra actiond bench options]

Measures PgQ, then actiond, on the same PostgreSQL server, and prints events/s and CPU
per event of both (see the comment at the top of this script for what each figure is).

Options:
  --actiond PATH         actiond binary (default: .build/release/actiond; build it with
                         swift build -c release --product actiond)
  --data-dir DIR         the embedded cluster's folder (default: .actiond/postgres);
                         ignored when ACTIOND_DATABASE_URL or DATABASE_URL is set
  --events N             PgQ events, live and drained (default: 1000000)
  --actiond-events N     events of actiond's live run and of actiond bench's end-to-end
                         backlog (default: 200000)
  --producers P          PgQ producer sessions (default: 8)
  --batch N              PgQ events per producer transaction (default: 10)
  --ticker-period S      pgqd's ticker_period and the queue's ticker_max_lag (default: 0.1)
  --quick                smoke run: 20000 PgQ events, actiond bench --quick
  --skip-pgq             only actiond's phases
  --skip-actiond         only PgQ's phases
  --skip-single          leave out the one-event-per-transaction comparison
  --single-seconds S     pgbench seconds of each one-event round (default: 15)
  --single-rounds N      one-event rounds of each system, alternating (default: 2)
  --out FILE             also write the table to FILE
  --json FILE            also write all figures (both phases' JSON) to FILE
  --keep-running         leave the embedded cluster running if this script started it
  --no-install           do not install missing packages; fail instead
  -h, --help             this help
EOF
}

die() { echo "compare-pgq: $*" >&2; exit 1; }
say() { echo "… $*" >&2; }

ACTIOND=".build/release/actiond"
DATA_DIR=".actiond/postgres"
EVENTS=1000000
ACTIOND_EVENTS=200000
LIVE_EVENTS=""
PRODUCERS=8
BATCH=10
TICKER=0.1
QUICK=0
RUN_PGQ=1
RUN_ACTIOND=1
OUT=""
JSON_OUT=""
KEEP_RUNNING=0
INSTALL=1
EVENTS_SET=0
RUN_SINGLE=1
SINGLE_SECONDS=15
SINGLE_ROUNDS=2
BENCH_EXTRA=()

need_value() { [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value"; }
while [[ $# -gt 0 ]]; do
    case $1 in
        --actiond) need_value "$@"; ACTIOND=$2; shift 2 ;;
        --data-dir) need_value "$@"; DATA_DIR=$2; shift 2 ;;
        --events) need_value "$@"; EVENTS=$2; EVENTS_SET=1; shift 2 ;;
        --actiond-events) need_value "$@"; ACTIOND_EVENTS=$2; shift 2 ;;
        --producers) need_value "$@"; PRODUCERS=$2; shift 2 ;;
        --batch) need_value "$@"; BATCH=$2; shift 2 ;;
        --ticker-period) need_value "$@"; TICKER=$2; shift 2 ;;
        --quick) QUICK=1; shift ;;
        --skip-pgq) RUN_PGQ=0; shift ;;
        --skip-actiond) RUN_ACTIOND=0; shift ;;
        --skip-single) RUN_SINGLE=0; shift ;;
        --single-seconds) need_value "$@"; SINGLE_SECONDS=$2; shift 2 ;;
        --single-rounds) need_value "$@"; SINGLE_ROUNDS=$2; shift 2 ;;
        --out) need_value "$@"; OUT=$2; shift 2 ;;
        --json) need_value "$@"; JSON_OUT=$2; shift 2 ;;
        --keep-running) KEEP_RUNNING=1; shift ;;
        --no-install) INSTALL=0; shift ;;
        -h|--help) usage; exit 0 ;;
        --) shift; BENCH_EXTRA=("$@"); break ;;
        *) usage >&2; die "unknown option: $1" ;;
    esac
done
for number in "$EVENTS" "$ACTIOND_EVENTS" "$PRODUCERS" "$BATCH" "$SINGLE_SECONDS" "$SINGLE_ROUNDS"; do
    [[ $number =~ ^[1-9][0-9]*$ ]] || die "not a positive whole number: $number"
done
[[ $TICKER =~ ^[0-9]*\.?[0-9]+$ ]] || die "not a number of seconds: $TICKER"
if [[ $QUICK == 1 && $EVENTS_SET == 0 ]]; then EVENTS=20000; fi
if [[ $QUICK == 1 ]]; then SINGLE_SECONDS=3; SINGLE_ROUNDS=1; LIVE_EVENTS=8000; fi
# The live run's events: the backlog's, rounded down to whole producer transactions.
PER_ROUND=$((PRODUCERS * BATCH))
[[ -n $LIVE_EVENTS ]] || LIVE_EVENTS=$(( (ACTIOND_EVENTS / PER_ROUND) * PER_ROUND ))
(( LIVE_EVENTS > 0 )) || die "--actiond-events must be at least producers × batch ($PER_ROUND)"
(( EVENTS % PER_ROUND == 0 )) || die "--events must be a multiple of producers × batch ($PER_ROUND)"

# Relative paths are the caller's, except the defaults, which are the repository's (as when
# actiond runs from its root).
absolute() { if [[ $1 == /* ]]; then echo "$1"; else echo "$PWD/$1"; fi; }
if [[ $ACTIOND == ".build/release/actiond" && ! -e $ACTIOND ]]; then ACTIOND="$REPO/$ACTIOND"; fi
if [[ $DATA_DIR == ".actiond/postgres" ]]; then DATA_DIR="$REPO/$DATA_DIR"; fi
ACTIOND=$(absolute "$ACTIOND")
DATA_DIR=$(absolute "$DATA_DIR")
[[ -z $OUT ]] || OUT=$(absolute "$OUT")
[[ -z $JSON_OUT ]] || JSON_OUT=$(absolute "$JSON_OUT")
[[ -x $ACTIOND ]] || die "no actiond binary at $ACTIOND: build it with  swift build -c release --product actiond  (or give --actiond PATH)"
command -v python3 >/dev/null || die "python3 is needed"

# --- what PgQ needs ------------------------------------------------------------------
SUDO=()
if [[ $(id -u) != 0 ]]; then SUDO=(sudo); fi
if [[ $RUN_PGQ == 1 || $RUN_SINGLE == 1 ]]; then
    if ! command -v pgqd >/dev/null || [[ ! -f /usr/share/postgresql/15/extension/pgq.control ]]; then
        [[ $INSTALL == 1 ]] || die "postgresql-15-pgq3 and pgqd are not installed"
        say "installing postgresql-15-pgq3 and pgqd"
        "${SUDO[@]}" apt-get update -qq
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15-pgq3 pgqd >&2
    fi
fi
if [[ $RUN_PGQ == 1 || $RUN_ACTIOND == 1 ]] && ! python3 -c 'import psycopg' 2>/dev/null; then
    [[ $INSTALL == 1 ]] || die "psycopg (Python) is not installed"
    say "installing psycopg"
    python3 -m pip install -q 'psycopg[binary]' >&2 || die "could not install psycopg: try  pip install 'psycopg[binary]'  or  apt-get install python3-psycopg"
fi

# --- the server ----------------------------------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/compare-pgq.XXXXXX")
STARTED=0
ACTIOND_ENV=(env)
cleanup() {
    local status=$?
    if [[ $STARTED == 1 && $KEEP_RUNNING == 0 ]]; then
        say "stopping the embedded cluster this script started ($DATA_DIR)"
        "${ACTIOND_ENV[@]}" "$ACTIOND" db stop --data-dir "$DATA_DIR" >&2 || true
    fi
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT

URL=${ACTIOND_DATABASE_URL:-${DATABASE_URL:-}}
if [[ -n $URL ]]; then
    SERVER="DATABASE_URL's server"
    ACTIOND_ENV=(env)
    DB_ARGS=(--database-url "$URL")
else
    SERVER="the embedded cluster in $DATA_DIR"
    ACTIOND_ENV=(env -u ACTIOND_DATABASE_URL -u DATABASE_URL -u ACTIOND_DATA_DIR)
    DB_ARGS=(--data-dir "$DATA_DIR")
    if ! "${ACTIOND_ENV[@]}" "$ACTIOND" db status --data-dir "$DATA_DIR" >/dev/null 2>&1; then
        say "starting the embedded cluster in $DATA_DIR"
        STARTED=1
        "${ACTIOND_ENV[@]}" "$ACTIOND" db start --data-dir "$DATA_DIR" >&2
    fi
    URL=$("${ACTIOND_ENV[@]}" "$ACTIOND" db url --data-dir "$DATA_DIR")
fi
export PGQ_BENCH_URL=$URL  # for pgq_phase.py; from the environment so that ps does not show it

ROW=$(psql "$URL" -X -A -t -v ON_ERROR_STOP=1 -c "SELECT current_setting('server_version'), current_setting('fsync'),
    current_setting('synchronous_commit'), current_setting('shared_buffers')") || die "cannot query $SERVER"
IFS='|' read -r PG_VERSION FSYNC SYNC_COMMIT SHARED_BUFFERS <<<"$ROW"
SETTINGS="PostgreSQL $PG_VERSION, fsync $FSYNC, synchronous_commit $SYNC_COMMIT, shared_buffers $SHARED_BUFFERS, $(nproc) cores"
say "server: $SERVER; $SETTINGS"
if [[ $FSYNC != on || $SYNC_COMMIT == off ]]; then
    say "WARNING: commits are not durable on this server (fsync $FSYNC, synchronous_commit $SYNC_COMMIT): the figures are not comparable with durable ones"
fi

PGBENCH=$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -1 || true)
[[ -n $PGBENCH && -x $PGBENCH ]] || die "pgbench is needed (PostgreSQL's server packages have it)"

# --- PgQ: following live, then draining ----------------------------------------------
if [[ $RUN_PGQ == 1 ]]; then
    python3 "$HERE/pgq/pgq_phase.py" run --events "$EVENTS" --producers "$PRODUCERS" --batch "$BATCH" \
        --ticker-period "$TICKER" --pgbench "$PGBENCH" --json "$WORK/pgq.json"
fi

# --- actiond live: fed as PgQ's follow is ---------------------------------------------
if [[ $RUN_ACTIOND == 1 ]]; then
    python3 "$HERE/pgq/actiond_live.py" --actiond "$ACTIOND" --events "$LIVE_EVENTS" --producers "$PRODUCERS" \
        --batch "$BATCH" --pgbench "$PGBENCH" --json "$WORK/actiond-live.json"
fi

# --- one event per transaction --------------------------------------------------------
# url_with_db URL DB: URL naming database DB instead.
url_with_db() {
    python3 - "$1" "$2" <<'PY'
import sys, urllib.parse
url, db = sys.argv[1:3]
parts = urllib.parse.urlsplit(url)
print(urllib.parse.urlunsplit(parts._replace(path="/" + db)))
PY
}
if [[ $RUN_SINGLE == 1 ]]; then
    say "one event per transaction: pgq.insert_event and actiond.submit, $PRODUCERS pgbench clients, ${SINGLE_SECONDS} s × $SINGLE_ROUNDS rounds each"
    for db in pgq_single actiond_single; do
        psql "$URL" -X -q -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >&2
    done
    PGQ_SINGLE_URL=$(url_with_db "$URL" pgq_single)
    ACTIOND_SINGLE_URL=$(url_with_db "$URL" actiond_single)
    psql "$PGQ_SINGLE_URL" -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION pgq" \
        -c "SELECT pgq.create_queue('single')" -c "SELECT pgq.register_consumer('single', 'reader')" >/dev/null
    "${ACTIOND_ENV[@]}" "$ACTIOND" migrate --database-url "$ACTIOND_SINGLE_URL" >/dev/null 2>&1 \
        || die "actiond migrate failed on $ACTIOND_SINGLE_URL"
    ENVELOPE="jsonb_build_object('id', gen_random_uuid()::text, 'type', 'notification.response', 'user_id', 'u' || :u,
  'occurred_at', '2026-11-26T10:00:00Z', 'data', jsonb_build_object('request_id', 'r' || :u, 'action', 'ACCEPT_ACTION', 'locked', false))"
    printf '\\set u random(1, 10000)\nselect pgq.insert_event('"'"'single'"'"', '"'"'notification.response'"'"', %s::text);\n' "$ENVELOPE" > "$WORK/pgq_single.pgb"
    printf '\\set u random(1, 10000)\nselect actiond.submit(%s);\n' "$ENVELOPE" > "$WORK/actiond_single.pgb"
    single_tps() {  # single_tps MODE URL SCRIPT: transactions/s of one pgbench round
        "$PGBENCH" -n -M "$1" -c "$PRODUCERS" -j 2 -T "$SINGLE_SECONDS" -f "$3" "$2" 2>&1 \
            | sed -n 's/^tps = \([0-9.]*\) .*/\1/p' | tail -1
    }
    : > "$WORK/single-prepared.txt"
    : > "$WORK/single-simple.txt"
    # Round by round, both modes in each, so that neither meets the fuller tables alone.
    for round in $(seq 1 "$SINGLE_ROUNDS"); do
        for mode in prepared simple; do
            PGQ_TPS=$(single_tps $mode "$PGQ_SINGLE_URL" "$WORK/pgq_single.pgb")
            ACTIOND_TPS=$(single_tps $mode "$ACTIOND_SINGLE_URL" "$WORK/actiond_single.pgb")
            [[ -n $PGQ_TPS && -n $ACTIOND_TPS ]] || die "a pgbench round failed (run it by hand: $PGBENCH -M $mode -f $WORK/actiond_single.pgb)"
            say "round $round (-M $mode): pgq.insert_event $PGQ_TPS/s, actiond.submit $ACTIOND_TPS/s"
            echo "$PGQ_TPS $ACTIOND_TPS" >> "$WORK/single-$mode.txt"
        done
    done
    [[ $KEEP_RUNNING == 1 ]] || psql "$URL" -X -q -c "DROP DATABASE pgq_single" -c "DROP DATABASE actiond_single" >&2 || true
fi

# --- actiond -------------------------------------------------------------------------
if [[ $RUN_ACTIOND == 1 ]]; then
    if [[ $QUICK == 1 ]]; then SIZE=(--quick); else SIZE=(--events "$ACTIOND_EVENTS"); fi
    say "actiond: $ACTIOND bench ${SIZE[*]} ${BENCH_EXTRA[*]}"
    "${ACTIOND_ENV[@]}" "$ACTIOND" bench "${DB_ARGS[@]}" "${SIZE[@]}" "${BENCH_EXTRA[@]}" --json "$WORK/actiond.json" >&2
fi

# --- the table -----------------------------------------------------------------------
python3 - "$WORK" "$SETTINGS" "$ACTIOND" "$OUT" "$JSON_OUT" <<'EOF'
import json, os, sys

work, settings, actiond, out, json_out = sys.argv[1:6]

def load(name):
    path = os.path.join(work, name)
    return json.load(open(path)) if os.path.exists(path) else None

pgq, bench, live = load("pgq.json"), load("actiond.json"), load("actiond-live.json")
singles = {}
for mode in ("prepared", "simple"):
    single_path = os.path.join(work, f"single-{mode}.txt")
    if os.path.exists(single_path):
        singles[mode] = [tuple(map(float, line.split())) for line in open(single_path)]

def cell(value, digits=1):
    if value is None:
        return "–"
    return f"{value:,.0f}" if digits == 0 else f"{value:,.{digits}f}"

def total(*parts):
    return None if any(part is None for part in parts) else sum(parts)

def ratio(rate, phase):
    """actiond's rate as a share of PgQ's in the same way of running, named."""
    if not pgq:
        return ""
    return f": {rate / pgq[phase]['events_per_second']:.2f}× PgQ's {'live follow' if phase == 'follow' else 'drain'}"

rows, notes = [], []
feed = ""
if pgq:
    feed = f"pgbench {pgq['producers']} clients × {pgq['events_per_transaction']}/txn"
for phase in ("follow", "drain"):
    if pgq:
        figures = pgq[phase]
        server = figures["postgres_cpu_us_per_event"]
        if server is None:
            server = figures["postgres_all_on_machine_cpu_us_per_event"]
            notes.append(f"PgQ {phase}: the server is not on this machine or its postmaster was not found: its PostgreSQL CPU is every postgres process on the machine")
        what = (f"{feed} while 1 consumer follows, pgqd" if phase == "follow"
                else f"{feed} first, then 1 consumer drains, pgqd")
        rows.append((f"PgQ {pgq['pgq_version']} {'live' if phase == 'follow' else 'drain'} ({what})",
                     figures["events_per_second"], server, figures["client_cpu_us_per_event"],
                     total(server, figures["client_cpu_us_per_event"]), figures["wal_bytes_per_event"]))
        notes.append(f"PgQ {phase}: {figures['events']:,} events in {figures['seconds']:.1f} s ({figures['batches']:,} batches); "
                     f"producers inserted at {cell(figures['insert_events_per_second'], 0)} events/s; client CPU µs/event: producers "
                     f"{cell(figures['producer_cpu_us_per_event'])}{' (before the clock, not counted)' if phase == 'drain' else ''}, "
                     f"consumer {cell(figures['consumer_cpu_us_per_event'])}, pgqd {cell(figures['pgqd_cpu_us_per_event'])}")
    if phase == "follow" and live:
        rows.append((f"actiond live (pgbench {live['producers']} clients × {live['events_per_transaction']} submits/txn while actiond work decides)"
                     + ratio(live["events_per_second"], "follow"),
                     live["events_per_second"], live["postgres_cpu_us_per_event"], live["client_cpu_us_per_event"],
                     total(live["postgres_cpu_us_per_event"], live["client_cpu_us_per_event"]), live["wal_bytes_per_event"]))
        notes.append(f"actiond live: {live['events']:,} events in {live['seconds']:.1f} s, each with one outcome; producers submitted at "
                     f"{cell(live['insert_events_per_second'], 0)} events/s; client CPU µs/event: worker "
                     f"{cell(live['worker_cpu_us_per_event'])}, producers {cell(live['producer_cpu_us_per_event'])}")
    if phase == "drain" and bench:
        e2e = bench["end_to_end"]
        worker, server = e2e.get("worker_cpu_us_per_event"), e2e.get("postgres_cpu_us_per_event")
        rows.append((f"actiond drain (end_to_end, {bench['settings'].get('build', '?')} build: a mixed backlog drained by actiond work)"
                     + ratio(e2e["events_per_second"], "drain"),
                     e2e["events_per_second"], server, worker, total(server, worker), e2e.get("wal_bytes_per_event")))
        notes.append(f"actiond drain: {e2e['events']:,} events in {e2e['seconds']:.1f} s; bulk_submit "
                     f"{cell(bench['bulk_submit']['events_per_second'], 0)} events/s; ceiling (bare table claim+delete+commit) "
                     f"{cell(bench['ceiling']['events_per_second'], 0)} events/s")
        if bench["settings"].get("build") != "release":
            notes.append(f"actiond is a {bench['settings'].get('build')} build ({actiond}): build the release one with "
                         "swift build -c release --product actiond for figures worth keeping")

for mode, single in singles.items():
    pgq_tps = sum(p for p, _ in single) / len(single)
    actiond_tps = sum(a for _, a in single) / len(single)
    rows.append((f"PgQ one-event insert (pgq.insert_event, 1 event/txn, pgbench -M {mode})", pgq_tps, None, None, None, None))
    rows.append((f"actiond one-event submit (actiond.submit, 1 event/txn, pgbench -M {mode}): {actiond_tps / pgq_tps:.2f}× PgQ's",
                 actiond_tps, None, None, None, None))
    notes.append(f"one event per transaction, -M {mode}: mean of " + str(len(single)) + " alternating pgbench rounds each ("
                 + ", ".join(f"{p:,.0f}/{a:,.0f}" for p, a in single) + " PgQ/actiond transactions/s)")
if bench and "single_submit" in bench:
    notes.append(f"actiond bench single_submit (one actiond.submit() per transaction, prepared, from Swift): "
                 f"{cell(bench['single_submit']['events_per_second'], 0)} events/s")

header = ("system", "events/s", "PostgreSQL", "client side", "total", "WAL B/event")
table = [header] + [(name, cell(rate, 0), cell(pg), cell(client), cell(all_), cell(wal, 0))
                    for name, rate, pg, client, all_, wal in rows]
widths = [max(len(row[i]) for row in table) for i in range(len(header))]
def line(row):
    return "  ".join(row[0].ljust(widths[0]) if i == 0 else row[i].rjust(widths[i]) for i in range(len(row))).rstrip()
text = [" " * (widths[0] + 2 + widths[1] + 2) + "CPU µs per event".center(widths[2] + widths[3] + widths[4] + 4).rstrip(),
        line(table[0]), line(tuple("-" * w for w in widths))] + [line(row) for row in table[1:]]
text += ["", f"settings: {settings}"] + [f"- {note}" for note in notes]
report = "\n".join(text) + "\n"
sys.stdout.write(report)
if out:
    with open(out, "w") as f:
        f.write(report)
if json_out:
    with open(json_out, "w") as f:
        json.dump({"settings": settings, "pgq": pgq, "actiond_live": live, "actiond": bench}, f, indent=2)
        f.write("\n")
EOF
