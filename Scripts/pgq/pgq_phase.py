#!/usr/bin/env python3
"""The PgQ phases of Scripts/compare-pgq.sh.

    PGQ_BENCH_URL=postgresql://… pgq_phase.py run --events N [--producers P] [--batch 10] ...

`run` creates a fresh database (pgq_bench) on the server of PGQ_BENCH_URL, installs the pgq
extension, creates two queues with one registered consumer each, starts pgqd as the ticker
for that database only, measures two phases and writes the figures as JSON (--json FILE,
else standard output). pgqd is stopped and the database dropped afterwards, whatever
happened.

The producers are pgbench (C, each call prepared once per session): P clients, each
transaction one statement of `--batch` pgq.insert_event calls, as fast as the server takes
them. (Producers in Python measured themselves as much as PgQ: about 22,000 events/s alone.)
The consumer (this script, psycopg) follows its queue: pgq.next_batch, pgq.get_batch_events
(each event's JSON parsed, the least a real consumer does), pgq.finish_batch and commit,
polling while there is no batch.

  follow  the producers and the consumer at once; the clock runs from the producers' start
          until the consumer has all N events. Beside actiond's live run.
  drain   the producers insert all N first, pgqd ticks, then the clock runs from the
          consumer's start until it has them all. Beside actiond's end_to_end (a backlog
          submitted before the clock starts, drained by actiond work).

CPU (user + system) over each phase's clock:
  - the server: the postmaster and its children (backends, walwriter, checkpointer,
    autovacuum…), children that exit counted through the postmaster's cutime/cstime, so
    nothing is lost between samples; only when the server runs on this machine;
  - pgqd, from /proc; pgbench from wait4 (a drain's producers ran before its clock: their
    CPU is reported and not counted); the consumer from its own getrusage after its start
    signal.
"""

import argparse
import json
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

QUEUES = {"follow": "bench", "drain": "bench_drain"}
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

def envelope_sql(pad):
    """One event as SQL for pgbench: about 300 bytes of JSON shaped like an actiond
    notification.sent event (a new uuid id, one of 10,000 users). pgbench's variable :u."""
    return ("jsonb_build_object('id', gen_random_uuid()::text, 'type', 'notification.sent', 'user_id', 'u' || :u, "
            "'occurred_at', '2026-11-26T10:00:00Z', 'data', jsonb_build_object('request_id', gen_random_uuid()::text, "
            "'payload', jsonb_build_object('aps', jsonb_build_object('category', 'MEETING_INVITATION', "
            "'alert', jsonb_build_object('title', 'Team sync', 'body', 'Team sync')), "
            f"'MEETING_ID', 'm' || :u, 'pad', '{pad}')))")


PAD = "x" * 24  # brings the envelope to about 300 bytes


def pgbench_script(path, call, batch):
    """A pgbench script of one transaction: `batch` calls of `call` (SQL with {envelope}) in
    one statement, the event's user random among 10,000."""
    with open(path, "w") as f:
        f.write("\\set u random(1, 10000)\n")
        f.write(f"select count({call.format(envelope=envelope_sql(PAD))}) from generate_series(1, {batch});\n")


def password_in_environment(url):
    """The URL without its password, and an environment holding it (PGPASSWORD), so that a
    child's argv shows no secret."""
    parts = urllib.parse.urlsplit(url)
    environment = dict(os.environ)
    if parts.password is None:
        return url, environment
    environment["PGPASSWORD"] = urllib.parse.unquote(parts.password)
    user, host = parts.netloc.rsplit("@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=user.split(":", 1)[0] + "@" + host)), environment


def start_producers(args, url, script, events, output_path):
    """pgbench, C and prepared, as the producers: P clients inserting `events` events in
    transactions of args.batch, as fast as the server takes them (Python producers measured
    themselves as much as the queue: they reached about 22,000 events/s alone)."""
    transactions, rest = divmod(events, args.producers * args.batch)
    if rest:
        raise SystemExit(f"the events ({events}) must be a multiple of producers × batch ({args.producers * args.batch})")
    url, environment = password_in_environment(url)
    return subprocess.Popen([args.pgbench, "-n", "-M", "prepared", "-c", str(args.producers), "-j", "2",
                             "-t", str(transactions), "-f", script, url], env=environment,
                            stdin=subprocess.DEVNULL, stdout=open(output_path, "w"), stderr=subprocess.STDOUT)


def finish_producers(producers, output_path, wait=True):
    """pgbench's CPU seconds (user + system, from wait4) once it has exited, else None (only
    when not `wait`). Fails unless every transaction it was given was processed. (Popen's
    poll and wait would reap it without its resource use.)"""
    pid, status, usage = os.wait4(producers.pid, 0 if wait else os.WNOHANG)
    if pid == 0:
        return None
    producers.returncode = os.waitstatus_to_exitcode(status)
    with open(output_path) as f:
        output = f.read()
    processed = re.search(r"number of transactions actually processed: (\d+)/(\d+)", output)
    if producers.returncode != 0 or not processed or processed.group(1) != processed.group(2):
        raise SystemExit(f"pgbench failed ({producers.returncode}):\n{output[-3000:]}")
    return usage.ru_utime + usage.ru_stime


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
            cur.execute("SELECT pgq.next_batch(%s, %s)", (args.queue, CONSUMER))
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


def fresh_database(url, name):
    """An autocommit connection to the server of `url`, the server's local postmaster (None
    when not on this machine), and database `name` made anew (dropped first if it exists)."""
    admin = connect(url)
    with admin.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        cur.execute(f"CREATE DATABASE {name}")
    return admin, find_postmaster(admin)


def write_result(result, path):
    """The figures as JSON: to `path` (--json), else to standard output."""
    text = json.dumps(result, indent=2)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


def say(*words):
    print("…", *words, file=sys.stderr, flush=True)


def measure(args, phase, admin, postmaster, pgqd, producers_url, workdir, children):
    """One phase on its own queue. follow: the consumer follows live while the producers
    insert; the clock runs from their start until the consumer has every event. drain: the
    producers insert everything first (the consumer registered, not reading), pgqd ticks,
    then the clock runs from the consumer's start until it has every event, and only what
    runs then counts (the server, the consumer, pgqd)."""
    queue = QUEUES[phase]
    say(f"PgQ {phase}: {args.events} events, pgbench {args.producers} clients × {args.batch} events per transaction, "
        + ("1 consumer following live" if phase == "follow" else "then 1 consumer draining them")
        + f", pgqd ticking every {args.ticker_period} s")
    script = os.path.join(workdir, f"{phase}.pgb")
    pgbench_script(script, f"pgq.insert_event('{queue}', 'notification.sent', {{envelope}}::text)", args.batch)
    output = os.path.join(workdir, f"{phase}.pgbench.txt")
    consumer = spawn(args, "consume", ["--queue", queue, "--count", str(args.events), "--poll", str(args.poll),
                                       "--stall-seconds", str(args.stall_seconds)])
    children.append(consumer)

    producer_cpu = insert_seconds = None
    if phase == "drain":
        begun = time.monotonic()
        producer_cpu = finish_producers(start_producers(args, producers_url, script, args.events, output), output)
        insert_seconds = time.monotonic() - begun
        time.sleep(max(1.0, 5 * args.ticker_period))  # pgqd's tick after the last insert

    wal_start = wal_lsn(admin)
    machine = CommandSampler("postgres")
    machine.sample()
    server0 = server_tree_cpu(postmaster) if postmaster else None
    pgqd0 = cpu_seconds(pgqd.pid) or 0.0
    pgqd_last = pgqd0
    start = time.monotonic()
    producers = start_producers(args, producers_url, script, args.events, output) if phase == "follow" else None
    consumer.stdin.write("go\n")
    consumer.stdin.flush()

    # Wait for the consumer, sampling the machine's postgres processes and pgqd meanwhile.
    report = None
    while report is None:
        ready, _, _ = select.select([consumer.stdout.fileno()], [], [], 0.25)
        if ready:
            line = consumer.stdout.readline()
            try:
                report = json.loads(line)
            except ValueError:
                report = {"error": f"exit {consumer.wait()}, said {line!r}"}
            if "error" in report:
                raise SystemExit(f"consumer failed: {report['error']}")
        if producers is not None and producer_cpu is None:
            producer_cpu = finish_producers(producers, output, wait=False)
            if producer_cpu is not None:
                insert_seconds = time.monotonic() - start
        machine.sample()
        pgqd_last = cpu_seconds(pgqd.pid) or pgqd_last
        if pgqd.poll() is not None:
            raise SystemExit(f"pgqd exited during the run ({pgqd.returncode})")
    end = time.monotonic()
    machine.sample()
    server1 = server_tree_cpu(postmaster) if postmaster else None
    pgqd_last = cpu_seconds(pgqd.pid) or pgqd_last
    wal = wal_since(admin, wal_start)
    if producers is not None and producer_cpu is None:
        producer_cpu = finish_producers(producers, output)
        insert_seconds = end - start
    consumer.stdin.close()  # now it may disconnect
    consumer.wait()

    seconds = end - start
    events = report["events"]
    consumer_cpu = report["cpu_seconds"]
    pgqd_cpu = pgqd_last - pgqd0
    server_cpu = (server1 - server0) if postmaster else None
    # A drain's producers ran before its clock: their CPU is reported, not counted.
    client_cpu = consumer_cpu + pgqd_cpu + (producer_cpu if phase == "follow" else 0.0)

    def per_event(cpu):
        return None if cpu is None else cpu * 1e6 / max(events, 1)

    return {
        "events": events,
        "seconds": seconds,
        "events_per_second": events / seconds,
        "insert_seconds": insert_seconds,
        "insert_events_per_second": events / insert_seconds if insert_seconds else None,
        "batches": report["batches"],
        "empty_polls": report["empty_polls"],
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
        "postgres_servers_on_machine": len(machine.servers),
    }


def run(args):
    admin, postmaster = fresh_database(args.url, DATABASE)
    workdir = tempfile.mkdtemp(prefix="pgq-bench-")
    pgqd = None
    children = []
    try:
        with connect(args.url, DATABASE) as db, db.cursor() as cur:
            cur.execute("CREATE EXTENSION pgq")
            for queue in QUEUES.values():
                cur.execute("SELECT pgq.create_queue(%s)", (queue,))
                # A tick at every ticker run that finds new events (not only after 500 events or
                # 3 s, PgQ's defaults), so that the last events wait one ticker period at most.
                cur.execute("SELECT pgq.set_queue_config(%s, 'ticker_max_lag', %s)", (queue, f"{args.ticker_period} seconds"))
                cur.execute("SELECT pgq.register_consumer(%s, %s)", (queue, CONSUMER))
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

        producers_url = urllib.parse.urlunsplit(urllib.parse.urlsplit(args.url)._replace(path="/" + DATABASE))
        result = {"pgq_version": pgq_version, "producers": args.producers, "events_per_transaction": args.batch,
                  "producer_client": "pgbench -M prepared", "ticker_period_seconds": args.ticker_period,
                  "postmaster_pid": postmaster}
        for phase in ("follow", "drain"):
            result[phase] = measure(args, phase, admin, postmaster, pgqd, producers_url, workdir, children)
        write_result(result, args.json)
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
            shutil.rmtree(workdir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    roles = parser.add_subparsers(dest="role", required=True)
    r = roles.add_parser("run")
    r.add_argument("--events", type=int, default=1_000_000)
    r.add_argument("--producers", type=int, default=8)
    r.add_argument("--batch", type=int, default=10, help="events per producer transaction")
    r.add_argument("--pgbench", default="pgbench")
    r.add_argument("--ticker-period", type=float, default=0.1)
    r.add_argument("--poll", type=float, default=0.02, help="consumer's sleep when there is no batch, seconds")
    r.add_argument("--stall-seconds", type=float, default=120)
    r.add_argument("--pgqd", default="pgqd")
    r.add_argument("--json")
    r.add_argument("--keep-database", action="store_true")
    r.add_argument("--keep-workdir", action="store_true")
    c = roles.add_parser("consume")
    c.add_argument("--queue", required=True)
    c.add_argument("--count", type=int, required=True)
    c.add_argument("--poll", type=float, default=0.02)
    c.add_argument("--stall-seconds", type=float, default=120)
    args = parser.parse_args()
    # The connection string (password included) comes from the environment, not argv, so
    # that ps does not show it.
    args.url = os.environ.get("PGQ_BENCH_URL")
    if not args.url:
        parser.error("PGQ_BENCH_URL is not set")
    return {"run": run, "consume": consume}[args.role](args)


if __name__ == "__main__":
    sys.exit(main())
