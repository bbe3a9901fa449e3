#!/usr/bin/env python3
"""The PgQ phase of Scripts/compare-pgq.sh.

    PGQ_BENCH_URL=postgresql://… pgq_phase.py run --events N [--producers P] [--batch 10] ...

`run` creates a fresh database (pgq_bench) on the server of PGQ_BENCH_URL, installs the pgq
extension, creates a queue and registers one consumer, starts pgqd as the ticker for that
database only, then starts one consumer and P producers (each a process of this script with
one long-lived connection), waits until the consumer has consumed all N events, and writes
the figures as JSON (--json FILE, else standard output). pgqd is stopped and the database
dropped afterwards, whatever happened.

Producers insert with pgq.insert_event(queue, type, data), `--batch` events per
transaction (one statement and one commit per transaction). The consumer follows the queue
live: pgq.next_batch, pgq.get_batch_events (each event's JSON parsed, the least a real
consumer does), pgq.finish_batch and commit, polling while there is no batch.

CPU (user + system) is counted from the moment the producers are told to start until the
consumer has finished:
  - the server: the postmaster and its children (backends, walwriter, checkpointer,
    autovacuum…), children that exit counted through the postmaster's cutime/cstime, so
    nothing is lost between samples; only when the server runs on this machine;
  - pgqd, from /proc;
  - producers and consumer, from their own getrusage between the start signal and the end
    (their interpreter start-up and connection are not part of the work).
"""

import argparse
import json
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

QUEUE = "bench"
CONSUMER = "bench_consumer"
DATABASE = "pgq_bench"
TICKS = os.sysconf("SC_CLK_TCK")


def connect(url, dbname=None, autocommit=True):
    import psycopg
    kwargs = {"autocommit": autocommit}
    if dbname:
        kwargs["dbname"] = dbname
    return psycopg.connect(url, **kwargs)


def own_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --- children ---------------------------------------------------------------------------

def payload(producer, serial, pad):
    """About 300 bytes of JSON, shaped like an actiond notification.sent event."""
    ident = f"p{producer}-{serial}"
    return (f'{{"id":"{ident}","type":"notification.sent","user_id":"u{serial % 300}",'
            f'"occurred_at":"2025-01-01T00:00:00Z","data":{{"request_id":"{ident}-invite",'
            f'"payload":{{"aps":{{"category":"MEETING_INVITATION","alert":{{"title":"Team sync",'
            f'"body":"Team sync"}}}},"MEETING_ID":"m-{serial // 5}","pad":"{pad}"}}}}}}')


def produce(args):
    conn = connect(args.url, DATABASE)
    pad = "x" * max(0, args.payload_bytes - len(payload(args.producer, 0, "")))
    statement = "SELECT count(pgq.insert_event(%s, %s, d)) FROM unnest(%s::text[]) AS d"
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        return 1
    cpu0 = own_cpu()
    start = time.monotonic()
    serial = 0
    with conn.cursor() as cur:
        while serial < args.count:
            batch = [payload(args.producer, serial + i, pad)
                     for i in range(min(args.batch, args.count - serial))]
            cur.execute(statement, (QUEUE, "notification.sent", batch))  # autocommit: one transaction
            serial += len(batch)
    seconds = time.monotonic() - start
    print(json.dumps({"events": serial, "seconds": seconds, "cpu_seconds": own_cpu() - cpu0}), flush=True)
    sys.stdin.readline()  # stay connected until the phase is measured: a backend that exits between samples
    conn.close()
    return 0


def consume(args):
    conn = connect(args.url, DATABASE, autocommit=False)
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        return 1
    cpu0 = own_cpu()
    consumed = batches = empty_polls = 0
    last_progress = time.monotonic()
    with conn.cursor() as cur:
        while consumed < args.count:
            cur.execute("SELECT pgq.next_batch(%s, %s)", (QUEUE, CONSUMER))
            batch = cur.fetchone()[0]
            if batch is None:
                conn.commit()
                empty_polls += 1
                if time.monotonic() - last_progress > args.stall_seconds:
                    print(json.dumps({"error": f"no batch for {args.stall_seconds} s after {consumed} events "
                                               "(is pgqd ticking?)"}), flush=True)
                    return 2
                time.sleep(args.poll)
                continue
            cur.execute("SELECT ev_id, ev_type, ev_data FROM pgq.get_batch_events(%s)", (batch,))
            for _ev_id, _ev_type, data in cur.fetchall():
                json.loads(data)
                consumed += 1
            cur.execute("SELECT pgq.finish_batch(%s)", (batch,))
            conn.commit()
            batches += 1
            last_progress = time.monotonic()
    print(json.dumps({"events": consumed, "batches": batches, "empty_polls": empty_polls,
                      "cpu_seconds": own_cpu() - cpu0}), flush=True)
    sys.stdin.readline()  # likewise
    conn.close()
    return 0


# --- CPU accounting ---------------------------------------------------------------------

def stat_fields(pid):
    """Fields of /proc/PID/stat after the command, so that fields[0] is field 3 (state)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def cpu_seconds(pid, children=False):
    fields = stat_fields(pid)
    if fields is None:
        return None
    ticks = int(fields[11]) + int(fields[12])  # fields 14 and 15: utime, stime
    if children:
        ticks += int(fields[13]) + int(fields[14])  # fields 16 and 17: cutime, cstime (waited-for children)
    return ticks / TICKS


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


def pids():
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def server_tree_cpu(postmaster):
    """The postmaster's own and its exited children's CPU, plus its live children's."""
    total = cpu_seconds(postmaster, children=True)
    if total is None:
        return None
    for pid in pids():
        fields = stat_fields(pid)
        if fields is not None and int(fields[1]) == postmaster:
            total += cpu_seconds(pid) or 0
    return total


class CommandSampler:
    """Every process named `command`, as actiond bench counts the server's CPU."""

    def __init__(self, command):
        self.command, self.first, self.last, self.sampled = command, {}, {}, False

    def sample(self):
        for pid in pids():
            if comm(pid) != self.command:
                continue
            cpu = cpu_seconds(pid)
            if cpu is None:
                continue
            self.first.setdefault(pid, cpu if not self.sampled else 0.0)
            self.last[pid] = cpu
        self.sampled = True

    @property
    def seconds(self):
        return sum(cpu - self.first[pid] for pid, cpu in self.last.items())

    @property
    def servers(self):
        """postmasters: processes named postgres whose parent is not."""
        result = []
        for pid in self.last:
            fields = stat_fields(pid)
            if fields is not None and comm(int(fields[1])) != self.command:
                result.append(pid)
        return result


def find_postmaster(conn):
    """The local postmaster of the server conn talks to, or None when it is not on this machine."""
    with conn.cursor() as cur:
        cur.execute("SELECT pg_backend_pid(), current_setting('data_directory')")
        backend, data_directory = cur.fetchone()
    fields = stat_fields(backend)
    if fields is None or comm(backend) != "postgres":
        return None
    parent = int(fields[1])
    try:
        with open(f"/proc/{parent}/cmdline", "rb") as f:
            cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return None
    if "postgres" not in cmdline:
        return None
    # Same pid numbers in another pid namespace (a container) would be someone else: check -D.
    if "-D" in cmdline and data_directory not in cmdline and os.path.realpath(data_directory) not in cmdline:
        return None
    return parent


# --- the phase ----------------------------------------------------------------------------

def libpq_connstr(url):
    """key=value connection string without dbname, for pgqd's base_connstr."""
    parts = urllib.parse.urlsplit(url)
    pairs = {}
    if parts.hostname:
        pairs["host"] = parts.hostname
    if parts.port:
        pairs["port"] = str(parts.port)
    if parts.username:
        pairs["user"] = urllib.parse.unquote(parts.username)
    if parts.password:
        pairs["password"] = urllib.parse.unquote(parts.password)
    for key, value in urllib.parse.parse_qsl(parts.query):
        if key != "dbname":
            pairs[key] = value

    def quote(value):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return " ".join(f"{key}={quote(value)}" for key, value in pairs.items())


def spawn(args, role, extra):
    command = [sys.executable, os.path.abspath(__file__), role] + extra
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = child.stdout.readline().strip()
    if line != "ready":
        child.kill()
        raise SystemExit(f"{role} did not start (said {line!r})")
    return child


def wal_lsn(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT pg_current_wal_insert_lsn()::text")
        return cur.fetchone()[0]


def wal_since(conn, start):
    with conn.cursor() as cur:
        cur.execute("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), %s::pg_lsn)::float8", (start,))
        return cur.fetchone()[0]


def say(*words):
    print("…", *words, file=sys.stderr, flush=True)


def run(args):
    admin = connect(args.url)
    postmaster = find_postmaster(admin)
    with admin.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        cur.execute(f"CREATE DATABASE {DATABASE}")
    workdir = tempfile.mkdtemp(prefix="pgq-bench-")
    pgqd = None
    children = []
    try:
        with connect(args.url, DATABASE) as db, db.cursor() as cur:
            cur.execute("CREATE EXTENSION pgq")
            cur.execute("SELECT pgq.create_queue(%s)", (QUEUE,))
            # A tick at every ticker run that finds new events (not only after 500 events or
            # 3 s, PgQ's defaults), so that the last events wait one ticker period at most.
            cur.execute("SELECT pgq.set_queue_config(%s, 'ticker_max_lag', %s)", (QUEUE, f"{args.ticker_period} seconds"))
            cur.execute("SELECT pgq.register_consumer(%s, %s)", (QUEUE, CONSUMER))
            cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'pgq'")
            pgq_version = cur.fetchone()[0]

        ini = os.path.join(workdir, "pgqd.ini")
        with open(ini, "w") as f:
            f.write("[pgqd]\n"
                    f"logfile = {workdir}/pgqd.log\n"
                    f"pidfile = {workdir}/pgqd.pid\n"
                    f"base_connstr = {libpq_connstr(args.url)}\n"
                    f"initial_database = {DATABASE}\n"
                    f"database_list = {DATABASE}\n"
                    "syslog = 0\n"
                    f"ticker_period = {args.ticker_period}\n")
        os.chmod(ini, 0o600)
        pgqd = subprocess.Popen([args.pgqd, "-q", ini], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        if pgqd.poll() is not None:
            raise SystemExit(f"pgqd exited ({pgqd.returncode}): {pgqd.stderr.read()}"
                             f"{open(os.path.join(workdir, 'pgqd.log')).read()[-2000:] if os.path.exists(os.path.join(workdir, 'pgqd.log')) else ''}")

        say(f"PgQ: {args.events} events, {args.producers} producers × {args.batch} events per transaction, "
            f"1 consumer following live, pgqd ticking every {args.ticker_period} s")
        consumer = spawn(args, "consume", ["--count", str(args.events), "--poll", str(args.poll),
                                           "--stall-seconds", str(args.stall_seconds)])
        children.append(consumer)
        share, extra = divmod(args.events, args.producers)
        producers = []
        for index in range(args.producers):
            count = share + (1 if index < extra else 0)
            producer = spawn(args, "produce", ["--producer", str(index), "--count", str(count),
                                               "--batch", str(args.batch), "--payload-bytes", str(args.payload_bytes)])
            producers.append(producer)
            children.append(producer)

        wal_start = wal_lsn(admin)
        machine = CommandSampler("postgres")
        machine.sample()
        server0 = server_tree_cpu(postmaster) if postmaster else None
        pgqd0 = cpu_seconds(pgqd.pid) or 0.0
        pgqd_last = pgqd0
        start = time.monotonic()
        for child in [consumer] + producers:
            child.stdin.write("go\n")
            child.stdin.flush()

        # Wait for everyone, sampling the machine's postgres processes and pgqd meanwhile.
        reports, inserted_at = {}, None
        pending = {child.stdout.fileno(): child for child in [consumer] + producers}
        while pending:
            ready, _, _ = select.select(list(pending), [], [], 0.25)
            for fd in ready:
                child = pending.pop(fd)
                line = child.stdout.readline()
                try:
                    reports[child.pid] = json.loads(line)
                except ValueError:
                    reports[child.pid] = {"error": f"exit {child.wait()}, said {line!r}"}
                if child is not consumer and all(p.pid in reports for p in producers):
                    inserted_at = time.monotonic()
                if "error" in reports[child.pid]:
                    raise SystemExit(f"{'consumer' if child is consumer else 'producer'} failed: {reports[child.pid]['error']}")
            machine.sample()
            pgqd_last = cpu_seconds(pgqd.pid) or pgqd_last
            if pgqd.poll() is not None:
                raise SystemExit(f"pgqd exited during the run ({pgqd.returncode})")
        end = time.monotonic()
        machine.sample()
        server1 = server_tree_cpu(postmaster) if postmaster else None
        pgqd_last = cpu_seconds(pgqd.pid) or pgqd_last
        wal = wal_since(admin, wal_start)
        for child in children:  # now they may disconnect
            child.stdin.close()
            child.wait()

        seconds = end - start
        consumed = reports[consumer.pid]
        events = consumed["events"]
        producer_cpu = sum(reports[p.pid]["cpu_seconds"] for p in producers)
        consumer_cpu = consumed["cpu_seconds"]
        pgqd_cpu = pgqd_last - pgqd0
        server_cpu = (server1 - server0) if postmaster else None
        client_cpu = producer_cpu + consumer_cpu + pgqd_cpu

        def per_event(cpu):
            return None if cpu is None else cpu * 1e6 / max(events, 1)

        result = {
            "events": events,
            "seconds": seconds,
            "events_per_second": events / seconds,
            "insert_seconds": inserted_at - start if inserted_at else None,
            "insert_events_per_second": events / (inserted_at - start) if inserted_at else None,
            "producers": args.producers,
            "events_per_transaction": args.batch,
            "payload_bytes": len(payload(0, 0, "x" * max(0, args.payload_bytes - len(payload(0, 0, ""))))),
            "ticker_period_seconds": args.ticker_period,
            "batches": consumed["batches"],
            "empty_polls": consumed["empty_polls"],
            "pgq_version": pgq_version,
            "cpu_seconds": {
                "postgres_server": server_cpu,
                "postgres_all_on_machine": machine.seconds,
                "pgqd": pgqd_cpu,
                "producers": producer_cpu,
                "consumer": consumer_cpu,
            },
            "postgres_cpu_us_per_event": per_event(server_cpu),
            "postgres_all_on_machine_cpu_us_per_event": per_event(machine.seconds),
            "client_cpu_us_per_event": per_event(client_cpu),
            "producer_cpu_us_per_event": per_event(producer_cpu),
            "consumer_cpu_us_per_event": per_event(consumer_cpu),
            "pgqd_cpu_us_per_event": per_event(pgqd_cpu),
            "total_cpu_us_per_event": per_event((server_cpu if server_cpu is not None else machine.seconds) + client_cpu),
            "wal_bytes_per_event": wal / max(events, 1),
            "postmaster_pid": postmaster,
            "postgres_servers_on_machine": len(machine.servers),
        }
        text = json.dumps(result, indent=2)
        if args.json:
            with open(args.json, "w") as f:
                f.write(text + "\n")
        else:
            print(text)
        return 0
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
        if pgqd is not None and pgqd.poll() is None:
            pgqd.send_signal(signal.SIGTERM)
            try:
                pgqd.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pgqd.kill()
                pgqd.wait()
        if not args.keep_database:
            with admin.cursor() as cur:
                cur.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        admin.close()
        if args.keep_workdir:
            say(f"pgqd's ini and log kept in {workdir}")
        else:
            for name in ("pgqd.ini", "pgqd.log", "pgqd.pid"):
                try:
                    os.unlink(os.path.join(workdir, name))
                except OSError:
                    pass
            os.rmdir(workdir)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    roles = parser.add_subparsers(dest="role", required=True)
    r = roles.add_parser("run")
    r.add_argument("--events", type=int, default=1_000_000)
    r.add_argument("--producers", type=int, default=8)
    r.add_argument("--batch", type=int, default=10, help="events per producer transaction")
    r.add_argument("--payload-bytes", type=int, default=300)
    r.add_argument("--ticker-period", type=float, default=0.1)
    r.add_argument("--poll", type=float, default=0.02, help="consumer's sleep when there is no batch, seconds")
    r.add_argument("--stall-seconds", type=float, default=120)
    r.add_argument("--pgqd", default="pgqd")
    r.add_argument("--json")
    r.add_argument("--keep-database", action="store_true")
    r.add_argument("--keep-workdir", action="store_true")
    p = roles.add_parser("produce")
    p.add_argument("--producer", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--batch", type=int, default=10)
    p.add_argument("--payload-bytes", type=int, default=300)
    c = roles.add_parser("consume")
    c.add_argument("--count", type=int, required=True)
    c.add_argument("--poll", type=float, default=0.02)
    c.add_argument("--stall-seconds", type=float, default=120)
    args = parser.parse_args()
    # The connection string (password included) comes from the environment, not argv, so
    # that ps does not show it.
    args.url = os.environ.get("PGQ_BENCH_URL")
    if not args.url:
        parser.error("PGQ_BENCH_URL is not set")
    return {"run": run, "produce": produce, "consume": consume}[args.role](args)


if __name__ == "__main__":
    sys.exit(main())
