#!/usr/bin/env bash
# What a long reader, the purge from cron and a second relay's start do to a relay's channels on PostgreSQL (issue 36),
# for each build named, by turns, ROUNDS times: a relay under CONNECTIONS channels of new GUIDs (the C core and the C
# load of ../shared/bench), then at 10 s a read transaction on tx held READER_S seconds (as a report or pg_dump holds
# one), at 12 s `purge --days 7` (200 DONE rows older than that are due) and at 14 s a second relay on the same ledger.
# Prints per run: the replies of each second while the reader is open against the median second before it (the lowest
# share), the slowest reply, the codes of every reply. A build whose relay does not change the schema at its start is
# migrated first (`migrate`, as the owner role would); an older one makes its schema itself, as it did.
#   scripts/bench-lock-queue.sh                                            # this build alone
#   OLD=/tmp/prev/idempotent-relay.jar scripts/bench-lock-queue.sh         # the build before, then this one, by turns
#   ROUNDS=3 READER_S=30 scripts/bench-lock-queue.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
CONNECTIONS=${CONNECTIONS:-16}
READER_S=${READER_S:-30}
ROUNDS=${ROUNDS:-1}
JAR=${JAR:-target/idempotent-relay.jar}
[ -f "$JAR" ] || mvn -B -q package -DskipTests
SHARED=../shared/bench/c
BIN=$(mktemp -d)
gcc -O2 -o "$BIN/fastcore" "$SHARED/fastcore.c"
gcc -O2 -o "$BIN/loadgen" "$SHARED/loadgen.c"
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  as_pg "$PG_BIN/pg_ctl" -D "$work/pg" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$work" "$BIN"
}
trap cleanup EXIT
[ "$(id -u)" = 0 ] && chown postgres "$work"

pg_port=$(free_port)
as_pg "$PG_BIN/initdb" -D "$work/pg" -A trust -U postgres >/dev/null
as_pg "$PG_BIN/pg_ctl" -D "$work/pg" -w -l "$work/pg.log" \
  -o "-p $pg_port -k $work -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=256MB" start >/dev/null
pg() { as_pg "$PG_BIN/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qAt "$@"; }
core_port=$(free_port)
"$BIN/fastcore" "$core_port" & pids+=($!)
core="http://127.0.0.1:$core_port"

builds=()
[ -z "${OLD:-}" ] || builds+=("before=$OLD")
builds+=("this=$JAR")
echo "machine: $(nproc) cores, $(java -version 2>&1 | head -1), PostgreSQL $(pg -c 'show server_version');"\
     "$CONNECTIONS connections, a reader of $READER_S s at 10 s, purge at 12 s, a second relay at 14 s"

start_relay() { # jar db log -> sets relay_port, appends pid
  relay_port=$(free_port)
  java $RELAY_OPTS -jar "$1" run --db "$2" --db-user postgres --port "$relay_port" --core "$core" --no-jobs \
    --admin-port "$(free_port)" > "$3" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 300); do grep -qs "listening on port" "$3" && return 0; sleep 0.1; done
  echo "the relay did not start:"; cat "$3"; exit 1
}

run=0
for round in $(seq 1 "$ROUNDS"); do
  for build in "${builds[@]}"; do
    name=${build%%=*}; jar=${build#*=}; run=$((run + 1)); db=run$run
    url="jdbc:postgresql://127.0.0.1:$pg_port/$db"
    pg -c "create database $db"
    if java -jar "$jar" --help 2>/dev/null | grep -q '^  migrate'; then
      java -jar "$jar" migrate --db "$url" --db-user postgres > "$work/$db-migrate.log"
    fi
    start_relay "$jar" "$url" "$work/$db-a.log"; first=${pids[-1]}
    pg -d "$db" -c "INSERT INTO tx (guid, tx_code, state, rsp_code, request, response, attempts, created_at, updated_at)
      SELECT 'OLD' || lpad(i::text, 29, '0'), 'TR01', 'DONE', '0000', 'x', 'y', 1, '2026-01-01 00:00:00', '2026-01-01 00:00:00'
      FROM generate_series(1, 200) AS i"
    t0=$(date +%s.%N)
    "$BIN/loadgen" -p "$relay_port" -c "$CONNECTIONS" -d $((READER_S + 25)) -w 0 -r 0 -s 1 > "$work/$db.load" 2> "$work/$db.seconds" &
    load=$!
    sleep 10
    pg -d "$db" -c "BEGIN; SELECT count(*) FROM tx; SELECT pg_sleep($READER_S); COMMIT" > /dev/null & reader=$!
    sleep 2
    java -jar "$jar" purge --db "$url" --db-user postgres --days 7 > "$work/$db-purge.log" 2>&1 & purge=$!
    sleep 2
    start_relay "$jar" "$url" "$work/$db-b.log"; second=${pids[-1]}
    wait "$load"; wait "$reader" || true; wait "$purge" || true
    kill "$first" "$second"; wait "$first" "$second" 2>/dev/null || true
    python3 - "$work/$db" "$name" "$READER_S" "$(tail -1 "$work/$db-purge.log")" <<'EOF'
import re, statistics, sys
base, name, reader_s, purge = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
seconds = [(int(m[1]), int(m[2]), float(m[3])) for m in re.finditer(r"sec (\d+) replies (\d+) max_ms ([\d.]+)", open(base + ".seconds").read())]
before = statistics.median(n for s, n, _ in seconds if 2 <= s < 10)
during = [(s, n) for s, n, _ in seconds if 10 <= s < 10 + reader_s]
low = min(during, key=lambda x: x[1])
summary = open(base + ".load").read().strip()
codes = summary[summary.index("codes") + 6:]
print(f"{name:6} median second before the reader {before:.0f} replies; with it the lowest second {low[1]} (at {low[0]} s,"
      f" {low[1] / before:.2f} of it); slowest reply {max(m for _, _, m in seconds):.0f} ms; replies {codes}; {purge}")
EOF
  done
done
