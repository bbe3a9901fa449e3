#!/bin/bash
# The compose test: docker-compose.yml run for real, as a team deploys it, under Debian's podman,
# with every image built here from Debian's packages (no registry is reached):
#   1. a base image by debootstrap; PostgreSQL 15 and Prometheus from Debian's packages on it
#      (deploy/images/); actiond's image from the Dockerfile's `prebuilt` target on it, with the
#      actiond-worker binary of this checkout (ACTIOND_WORKER_BINARY, default the debug build);
#   2. the deployment's files as docs/operations.md ("Deploying with compose") makes them:
#      .env with passwords, the key file, the console's certificate and users file;
#   3. `podman-compose up --no-start`, then each service started in the order the compose file's
#      depends_on asks (podman-compose 1.0.3 ignores its conditions), health checks run by hand
#      (podman schedules them through systemd, absent here);
#   4. the checks: migrate finished before the workers and the console started; both healthy
#      through their own checks; a producer submits with psql as the producer login (a
#      notification and its response) and the response is decided; the console answers over
#      TLS, a viewer signs in, sees the outcomes and cannot act; Prometheus's targets are up for
#      the worker; 20,000 events submitted and the worker stopped mid-way exits 0 within its
#      grace, and started again decides the rest: every event one outcome;
#   5. everything torn down (containers, volumes, network), whatever happened.
# Exits non-zero naming the check that failed. Needs root (podman's containers as root here).
# COMPOSE_TEST_KEEP_BASE=1 keeps the base images between runs (a developer's machine).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${COMPOSE_TEST_DIR:-/var/tmp/actiond-compose-test}
PROJECT=actiondtest
BINARY=${ACTIOND_WORKER_BINARY:-$ROOT/.build/debug/actiond-worker}
ACTIOND=${ACTIOND_BINARY:-$ROOT/.build/debug/actiond}
CONSOLE_PORT=18443
PROMETHEUS_PORT=19091
started_at=$(date +%s)

log() { echo "compose-test: $(( $(date +%s) - started_at ))s $*"; }
fail() { echo "compose-test: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run as root (podman runs the containers as root here)"
[ -x "$BINARY" ] || fail "no actiond-worker at $BINARY (swift build first, or set ACTIOND_WORKER_BINARY)"
[ -x "$ACTIOND" ] || fail "no actiond at $ACTIOND (swift build first, or set ACTIOND_BINARY)"

missing=()
for tool in podman podman-compose debootstrap runc openssl curl; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing podman, podman-compose, debootstrap, runc, openssl, curl"
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q podman podman-compose debootstrap runc openssl curl >/dev/null
fi

mkdir -p "$WORK"
# crun cannot set the rlimits here, and podman's cgroup handling needs runc
# (../notes: containers here): this test's own containers.conf, not the machine's.
cat > "$WORK/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=$(( $(ulimit -Hu) < $(cat /proc/sys/kernel/pid_max) ? $(ulimit -Hu) : $(cat /proc/sys/kernel/pid_max) )):$(( $(ulimit -Hu) < $(cat /proc/sys/kernel/pid_max) ? $(ulimit -Hu) : $(cat /proc/sys/kernel/pid_max) ))"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF=$WORK/containers.conf

RUN=$WORK/deployment
compose() { (cd "$RUN" && podman-compose -p "$PROJECT" "$@"); }
container() { echo "${PROJECT}_$1_1"; }
teardown() {
    local status=$?
    if [ $status -ne 0 ] && [ -d "$RUN" ]; then
        for service in postgres migrate worker console prometheus; do
            echo "--- $service (last lines)" >&2
            podman logs --tail 30 "$(container $service)" 2>&1 | sed 's/^/    /' >&2 || true
        done
    fi
    log "tearing down"
    if [ -d "$RUN" ]; then compose down -v >/dev/null 2>&1 || true; fi
    podman rm -f -a --filter "label=io.podman.compose.project=$PROJECT" >/dev/null 2>&1 || true
    podman volume ls -q | grep "^${PROJECT}_" | xargs -r podman volume rm -f >/dev/null 2>&1 || true
    podman network ls -q | grep "^${PROJECT}_" | xargs -r podman network rm -f >/dev/null 2>&1 || true
    podman rmi -f localhost/actiond:compose-test >/dev/null 2>&1 || true
    if [ -z "${COMPOSE_TEST_KEEP_BASE:-}" ]; then
        podman rmi -f localhost/actiond-postgres:15 localhost/actiond-prometheus:latest localhost/debian:bookworm >/dev/null 2>&1 || true
    fi
    rm -rf "$RUN" "$WORK/context"
    exit $status
}
trap teardown EXIT

# 1. Images.
if ! podman image exists localhost/debian:bookworm; then
    mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
    mirror=${mirror:-http://deb.debian.org/debian}
    log "base image: debootstrap bookworm from $mirror"
    rm -rf "$WORK/rootfs"
    debootstrap --variant=minbase bookworm "$WORK/rootfs" "$mirror" >"$WORK/debootstrap.log" 2>&1 \
        || { tail -n 20 "$WORK/debootstrap.log" >&2; fail "debootstrap"; }
    tar -C "$WORK/rootfs" -c . | podman import - localhost/debian:bookworm >/dev/null
    rm -rf "$WORK/rootfs"
fi
build() { podman build -q --format docker "$@" >/dev/null 2>"$WORK/build.log" || { tail -n 20 "$WORK/build.log" >&2; fail "podman build $*"; }; }
podman image exists localhost/actiond-postgres:15 || { log "image: PostgreSQL 15 from Debian"; build --build-arg BASE_IMAGE=localhost/debian:bookworm -t localhost/actiond-postgres:15 deploy/images/postgres; }
podman image exists localhost/actiond-prometheus:latest || { log "image: Prometheus from Debian"; build --build-arg BASE_IMAGE=localhost/debian:bookworm -t localhost/actiond-prometheus:latest deploy/images/prometheus; }
# The alert rules, by Prometheus's own tool from Debian's package: checked, then unit-tested.
podman run --rm --network none -v "$PWD/deploy/prometheus:/rules:ro" --entrypoint /usr/bin/promtool \
    localhost/actiond-prometheus:latest check rules /rules/alerts.yml > "$WORK/promtool.log" 2>&1 \
    || fail "promtool check rules: $(cat "$WORK/promtool.log")"
podman run --rm --network none -v "$PWD/deploy/prometheus:/rules:ro" -w /rules --entrypoint /usr/bin/promtool \
    localhost/actiond-prometheus:latest test rules alerts.test.yml > "$WORK/promtool.log" 2>&1 \
    || fail "promtool test rules: $(cat "$WORK/promtool.log")"
log "alert rules: promtool check rules and test rules pass ($(grep -c '^ *- alert:' deploy/prometheus/alerts.yml) rules)"
log "image: actiond from the Dockerfile (target prebuilt)"
rm -rf "$WORK/context" && mkdir -p "$WORK/context/prebuilt/lib"
cp Dockerfile "$WORK/context/"
cp "$BINARY" "$WORK/context/prebuilt/actiond"
# The Swift runtime libraries a binary built without --static-swift-stdlib links (none otherwise).
ldd "$BINARY" | awk '$3 ~ /^\// && $3 !~ /^\/lib/ && $3 !~ /^\/usr\/lib/ {print $3}' | xargs -r cp -t "$WORK/context/prebuilt/lib/"
build --target prebuilt --build-arg RUNTIME_IMAGE=localhost/debian:bookworm -t localhost/actiond:compose-test "$WORK/context"
podman run --rm localhost/actiond:compose-test --help 2>/dev/null | grep -q "USAGE: actiond" || fail "the image's actiond --help"
[ "$(podman run --rm --entrypoint id localhost/actiond:compose-test -u 2>/dev/null)" = 10001 ] || fail "the image runs as uid 10001"

# 2. The deployment's files.
log "deployment files"
rm -rf "$RUN" && mkdir -p "$RUN/deploy/keys" "$RUN/deploy/console"
cp docker-compose.yml "$RUN/"
cp -r deploy/initdb deploy/prometheus "$RUN/deploy/"
secret() { openssl rand -hex 24; }
POSTGRES_PASSWORD=$(secret) WORKER_PASSWORD=$(secret) CONSOLE_PASSWORD=$(secret) PRODUCER_PASSWORD=$(secret)
VIEWER_PASSWORD=$(secret)
cat > "$RUN/.env" <<EOF
POSTGRES_PASSWORD=$POSTGRES_PASSWORD
ACTIOND_WORKER_PASSWORD=$WORKER_PASSWORD
ACTIOND_CONSOLE_PASSWORD=$CONSOLE_PASSWORD
ACTIOND_PRODUCER_PASSWORD=$PRODUCER_PASSWORD
POSTGRES_IMAGE=localhost/actiond-postgres:15
ACTIOND_IMAGE=localhost/actiond:compose-test
PROMETHEUS_IMAGE=localhost/actiond-prometheus:latest
ACTIOND_CONSOLE_PORT=$CONSOLE_PORT
PROMETHEUS_PORT=$PROMETHEUS_PORT
EOF
"$ACTIOND" keys new "$RUN/deploy/keys/actiond.key" >/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
    -keyout "$RUN/deploy/console/key.pem" -out "$RUN/deploy/console/cert.pem" 2>/dev/null
echo "$VIEWER_PASSWORD" | "$ACTIOND" console users add viewer --role viewer --users-file "$RUN/deploy/console/users" >/dev/null
chown -R 10001 "$RUN/deploy/keys" "$RUN/deploy/console"
chmod 600 "$RUN/deploy/console/key.pem"

# 3. Up, in order.
log "up --no-start"
compose up --no-start >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log" >&2; fail "podman-compose up --no-start"; }
healthy() {  # name, seconds
    local deadline=$(( $(date +%s) + $2 ))
    until podman healthcheck run "$(container "$1")" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$deadline" ] || fail "$1 not healthy within $2 s (its check: $(podman inspect -f '{{.Config.Healthcheck.Test}}' "$(container "$1")"); $(podman healthcheck run "$(container "$1")" 2>&1 | tail -n 2))"
        sleep 1
    done
}
psql_owner() { podman exec "$(container postgres)" psql -v ON_ERROR_STOP=1 -X -A -t -U actiond -d actiond "$@"; }
psql_producer() {
    podman exec -e PGPASSWORD="$PRODUCER_PASSWORD" "$(container postgres)" \
        psql -v ON_ERROR_STOP=1 -X -A -t -h 127.0.0.1 -U producer -d actiond "$@"
}
podman start "$(container postgres)" >/dev/null 2>"$WORK/start.log"
healthy postgres 60
log "postgres healthy"
podman start "$(container migrate)" >/dev/null 2>>"$WORK/start.log"
[ "$(podman wait "$(container migrate)")" = 0 ] || fail "migrate exited non-zero"
log "migrate done"
podman start "$(container worker)" "$(container console)" "$(container prometheus)" >/dev/null 2>>"$WORK/start.log"
finished=$(podman inspect -f '{{.State.FinishedAt.Unix}}' "$(container migrate)")
for service in worker console; do
    began=$(podman inspect -f '{{.State.StartedAt.Unix}}' "$(container $service)")
    [ "$began" -ge "$finished" ] || fail "$service started before migrate finished"
done
healthy worker 90
healthy console 60
log "worker and console healthy"

# 4. The checks.
# A producer's notification and its response, as the producer login (submit only).
notification='{"id":"n1","type":"notification.sent","user_id":"ana","occurred_at":"2026-11-28T10:00:00Z","data":{"request_id":"r1","payload":{"aps":{"category":"MEETING_INVITATION","alert":{"title":"Standup"}},"MEETING_ID":"m1"}}}'
response='{"id":"a1","type":"notification.response","user_id":"ana","occurred_at":"2026-11-28T10:01:00Z","data":{"request_id":"r1","action":"ACCEPT_ACTION","locked":false}}'
submitted=$(psql_producer -c "select actiond.submit('$notification'::jsonb)" -c "select actiond.submit('$response'::jsonb)" 2>&1) \
    || fail "the producer's submit: $submitted"
[ "$(grep -c '"accepted"' <<<"$submitted")" = 2 ] || fail "the producer's submit: $submitted"
if psql_producer -c "select count(*) from actiond.events" >/dev/null 2>&1; then fail "the producer login reads the log"; fi
deadline=$(( $(date +%s) + 60 ))
until [ "$(psql_owner -c "select outcome from actiond.outcomes o join actiond.events e using (user_id, position) where e.id = 'a1'")" = applied ]; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "the response was not decided within 60 s"
    sleep 1
done
log "a producer's response decided: applied"

# The console over TLS, the certificate checked; a viewer signs in, reads, cannot act.
base="https://localhost:$CONSOLE_PORT"
tls=(--silent --show-error --cacert "$RUN/deploy/console/cert.pem" --cookie-jar "$WORK/cookies" --cookie "$WORK/cookies")
curl "${tls[@]}" -o /dev/null "$base/sign-in" || fail "the console over TLS"
signed=$(curl "${tls[@]}" -o /dev/null -w '%{http_code}' -H "Origin: $base" \
    --data-urlencode name=viewer --data-urlencode "password=$VIEWER_PASSWORD" --data-urlencode next=/ "$base/sign-in")
[ "$signed" = 303 ] || fail "the viewer's sign-in answered $signed"
curl "${tls[@]}" "$base/outcomes" | grep -q "MEETING_INVITATION" || fail "the viewer reads the outcomes"
acted=$(curl "${tls[@]}" -o /dev/null -w '%{http_code}' -H "Origin: $base" -X POST "$base/pauses/pause")
[ "$acted" = 403 ] || fail "a viewer's pause answered $acted, not 403"
[ "$(psql_owner -c "select count(*) from actiond.pauses")" = 0 ] || fail "a viewer paused something"
log "console: TLS, a viewer reads and cannot act"

# Prometheus scrapes the worker.
deadline=$(( $(date +%s) + 90 ))
until curl -s "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/targets" | grep -q '"health":"up"'; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "Prometheus has no target up within 90 s: $(curl -s "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/targets" | head -c 600)"
    sleep 2
done
if curl -s "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/targets" | grep -q '"health":"down"'; then fail "a Prometheus target is down"; fi
curl -s "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/query?query=actiond_events_total" | grep -q '"status":"success"' || fail "Prometheus's query"
rules=$(curl -s "http://127.0.0.1:$PROMETHEUS_PORT/api/v1/rules")
for alert in $(sed -n 's/^ *- alert: *//p' deploy/prometheus/alerts.yml); do
    grep -q "\"name\":\"$alert\"" <<<"$rules" || fail "Prometheus did not load the alert rule $alert: $(head -c 600 <<<"$rules")"
done
grep -q '"health":"err"' <<<"$rules" && fail "an alert rule fails to evaluate: $(head -c 600 <<<"$rules")"
log "Prometheus: the worker's target is up, every alert rule loaded and evaluating"

# A stop with events in flight, then a start: every event one outcome.
psql_producer -c "select count(actiond.submit(jsonb_build_object('id', 'load-' || g, 'type', 'notification.sent',
    'user_id', 'user-' || (g % 500), 'occurred_at', '2026-11-28T11:00:00Z', 'data', jsonb_build_object('request_id', 'load-r-' || g,
    'payload', jsonb_build_object('aps', jsonb_build_object('category', 'TIMER_EXPIRED', 'alert', jsonb_build_object('title', 'Tea')),
    'TIMER_ID', 'timer-' || g))))) from generate_series(1, 20000) g" >/dev/null || fail "the producer's 20,000 submits"
total=$(psql_owner -c "select count(*) from actiond.events")
deadline=$(( $(date +%s) + 60 ))
until [ "$(psql_owner -c "select count(*) from actiond.outcomes")" -gt 100 ]; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "the worker decided nothing of the 20,000 within 60 s"
    sleep 0.2
done
stopping=$(date +%s)
podman stop -t 30 "$(container worker)" >/dev/null
stopped_in=$(( $(date +%s) - stopping ))
code=$(podman inspect -f '{{.State.ExitCode}}' "$(container worker)")
decided=$(psql_owner -c "select count(*) from actiond.outcomes")
[ "$code" = 0 ] || fail "the worker's stop exited $code"
[ "$stopped_in" -le 30 ] || fail "the worker's stop took $stopped_in s, past its grace"
[ "$decided" -lt "$total" ] || fail "the stop came after the last event ($decided of $total): nothing was in flight"
log "worker stopped with $(( total - decided )) of $total events left: exit 0 in ${stopped_in}s"
podman start "$(container worker)" >/dev/null 2>>"$WORK/start.log"
deadline=$(( $(date +%s) + 300 ))
until [ "$(psql_owner -c "select count(*) from actiond.outcomes")" = "$total" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "after the restart, $(psql_owner -c "select count(*) from actiond.outcomes") of $total decided within 300 s"
    sleep 1
done
missing=$(psql_owner -c "select count(*) from actiond.events e where not exists (select 1 from actiond.outcomes o where o.user_id = e.user_id and o.position = e.position)")
extra=$(psql_owner -c "select count(*) - count(distinct (user_id, position)) from actiond.outcomes")
[ "$missing" = 0 ] && [ "$extra" = 0 ] || fail "after the restart: $missing events without an outcome, $extra outcomes doubled"
log "after the restart all $total events decided, none lost or doubled"
log "passed"
