#!/usr/bin/env python3
"""actiond's live run for Scripts/compare-pgq.sh, beside PgQ's live follow.

    PGQ_BENCH_URL=postgresql://… actiond_live.py --actiond PATH --events N [--producers P] [--batch 10]

Creates a fresh database (actiond_live) on the server of PGQ_BENCH_URL, migrates it, writes a
key file, starts one `actiond work` (default settings), then feeds it exactly as PgQ's follow
is fed: pgbench (C, prepared), P clients, each transaction one statement of `--batch`
actiond.submit calls with the same ~300-byte notification.sent envelope (one of 10,000
users), as fast as the server takes them, while the worker decides them. The clock runs from
the producers' start until no event waits (`actiond.queue_is_empty()`, asked every 0.1 s once
the producers are done); every event is then checked to have exactly one outcome.

CPU (user + system) over the clock: the server's tree (as pgq_phase.py counts it), the worker
from /proc, pgbench from wait4. The figures go out as JSON (--json FILE, else standard
output); the database is dropped afterwards, whatever happened.
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from pgq_phase import (connect, cpu_seconds, fresh_database, finish_producers, password_in_environment,
                       pgbench_script, say, server_tree_cpu, start_producers, wal_lsn, wal_since, write_result)

DATABASE = "actiond_live"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ready(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/ready", timeout=1) as answer:
            return answer.status == 200
    except OSError:
        return False


def run(args):
    admin, postmaster = fresh_database(args.url, DATABASE)
    workdir = tempfile.mkdtemp(prefix="actiond-live-")
    database_url = urllib.parse.urlunsplit(urllib.parse.urlsplit(args.url)._replace(path="/" + DATABASE))
    # The URL from the environment, never argv (ps shows argv).
    _, environment = password_in_environment(database_url)
    for name in ("DATABASE_URL", "ACTIOND_DATA_DIR", "ACTIOND_KEY_FILE", "ACTIOND_HTTP_PORT"):
        environment.pop(name, None)
    environment["ACTIOND_DATABASE_URL"] = database_url
    worker = None
    try:
        for command in (["migrate"], ["keys", "new", os.path.join(workdir, "key")]):
            done = subprocess.run([args.actiond] + command, env=environment, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"actiond {command[0]} failed: {done.stderr[-2000:]}")
        port = free_port()
        log = open(os.path.join(workdir, "work.log"), "w")
        worker = subprocess.Popen([args.actiond, "work", "--key-file", os.path.join(workdir, "key"),
                                   "--http-port", str(port)], env=environment, stdin=subprocess.DEVNULL,
                                  stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while not ready(port):
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("actiond work did not become ready: " + open(os.path.join(workdir, "work.log")).read()[-2000:])
            time.sleep(0.1)

        say(f"actiond live: {args.events} events, pgbench {args.producers} clients × {args.batch} actiond.submit "
            "calls per transaction, one actiond work deciding them meanwhile")
        script = os.path.join(workdir, "live.pgb")
        pgbench_script(script, "actiond.submit({envelope})", args.batch)
        output = os.path.join(workdir, "live.pgbench.txt")
        database = connect(args.url, DATABASE)

        wal_start = wal_lsn(admin)
        server0 = server_tree_cpu(postmaster) if postmaster else None
        worker0 = cpu_seconds(worker.pid)
        start = time.monotonic()
        producers = start_producers(args, database_url, script, args.events, output)
        producer_cpu = finish_producers(producers, output)
        insert_seconds = time.monotonic() - start
        with database.cursor() as cur:
            while True:
                cur.execute("SELECT actiond.queue_is_empty()")
                if cur.fetchone()[0]:
                    break
                if worker.poll() is not None:
                    raise SystemExit(f"actiond work exited ({worker.returncode}) with events waiting")
                time.sleep(0.1)
        end = time.monotonic()
        server1 = server_tree_cpu(postmaster) if postmaster else None
        worker1 = cpu_seconds(worker.pid)
        wal = wal_since(admin, wal_start)
        with database.cursor() as cur:
            cur.execute("SELECT count(*), count(distinct position) FROM actiond.outcomes")
            outcomes, decided = cur.fetchone()
            cur.execute("SELECT count(*) FROM actiond.events")
            submitted = cur.fetchone()[0]
        database.close()
        if not (outcomes == decided == submitted == args.events):
            raise SystemExit(f"expected {args.events} events with one outcome each: {submitted} submitted, "
                             f"{outcomes} outcomes for {decided} events")

        seconds = end - start
        events = args.events
        server_cpu = (server1 - server0) if postmaster else None
        worker_cpu = worker1 - worker0

        def per_event(cpu):
            return None if cpu is None else cpu * 1e6 / events

        result = {
            "events": events,
            "seconds": seconds,
            "events_per_second": events / seconds,
            "insert_seconds": insert_seconds,
            "insert_events_per_second": events / insert_seconds,
            "producers": args.producers,
            "events_per_transaction": args.batch,
            "producer_client": "pgbench -M prepared",
            "cpu_seconds": {"postgres_server": server_cpu, "worker": worker_cpu, "producers": producer_cpu},
            "postgres_cpu_us_per_event": per_event(server_cpu),
            "worker_cpu_us_per_event": per_event(worker_cpu),
            "producer_cpu_us_per_event": per_event(producer_cpu),
            "client_cpu_us_per_event": per_event(worker_cpu + producer_cpu),
            "wal_bytes_per_event": wal / events,
        }
        write_result(result, args.json)
        return 0
    finally:
        if worker is not None and worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
                worker.wait()
        with admin.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        admin.close()
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actiond", required=True)
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--producers", type=int, default=8)
    parser.add_argument("--batch", type=int, default=10, help="events per producer transaction")
    parser.add_argument("--pgbench", default="pgbench")
    parser.add_argument("--json")
    args = parser.parse_args()
    args.url = os.environ.get("PGQ_BENCH_URL")
    if not args.url:
        parser.error("PGQ_BENCH_URL is not set")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
