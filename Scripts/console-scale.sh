#!/usr/bin/env bash
# Times every page of the console on a large database (docs/console.md, "What it costs the
# database"): fills a fresh embedded cluster with Scripts/console-scale.sql, serves the
# console read-only on loopback, and requests each page ROUNDS times, printing p50 and p95.
#
#   Scripts/console-scale.sh [--events N] [--dead N] [--rounds N] [--data-dir DIR] [--binary PATH]
#
# The data folder is kept (filling 10 million events takes minutes); a second run with the
# same --data-dir skips the fill. Stop it afterwards with: actiond db stop --data-dir DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
events=10000000
dead=100000
rounds=40
data_dir=/var/tmp/actiond-console-scale
binary=.build/release/actiond
while [ $# -gt 0 ]; do
  case "$1" in
    --events) events=$2; shift 2 ;;
    --dead) dead=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --data-dir) data_dir=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$binary" ] || swift build -c release --product actiond

"$binary" db start --data-dir "$data_dir" >/dev/null
url=$("$binary" db url --data-dir "$data_dir")
"$binary" migrate --database-url "$url" >/dev/null
filled=$(psql "$url" -tAc "select count(*) > 0 from actiond.event_ids where id like 'big-%'")
if [ "$filled" != "t" ]; then
  echo "filling $events events ($dead dead letters)…"
  psql "$url" -q -v events="$events" -v dead="$dead" -f Scripts/console-scale.sql
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$binary" console --database-url "$url" --listen "127.0.0.1:$port" --users-file /nonexistent >/tmp/console-scale.log 2>&1 &
console=$!
trap 'kill $console 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.2; done

user=$(psql "$url" -tAc "select user_id from actiond.events where id = 'big-4242'")
request=$(psql "$url" -tAc "select data->>'request_id' from actiond.events where id = 'big-4242'")
dead_position=$(psql "$url" -tAc "select max(position) from actiond.outcomes where outcome = 'dead' and discarded_at is null")
older=$(psql "$url" -tAc "select min(position) from actiond.outcomes where outcome = 'dead' and discarded_at is null and position > $dead_position / 2")
printf '%-52s %8s %8s\n' page p50_ms p95_ms
for page in "/" "/outcomes" "/outcomes?category=MESSAGE&outcome=dead" "/dead-letters" \
            "/dead-letters?category=TIMER_EXPIRED&error=calendar" "/dead-letters?older_than=1h&before=$older" \
            "/dead-letters/$dead_position" "/person?q=$user" "/person?q=$request" "/person?q=nobody-here" \
            "/categories" "/pauses" "/audit"; do
  times=$(for _ in $(seq 1 "$rounds"); do curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port$page"; done | sort -n)
  p50=$(echo "$times" | awk -v n="$rounds" 'NR == int(n * 0.50 + 0.5) { printf "%.1f", $1 * 1000 }')
  p95=$(echo "$times" | awk -v n="$rounds" 'NR == int(n * 0.95 + 0.5) { printf "%.1f", $1 * 1000 }')
  printf '%-52s %8s %8s\n' "$page" "$p50" "$p95"
done
